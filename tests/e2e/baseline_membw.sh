# A real bare-metal membw campaign end to end: plan, run, store, compare.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0

cat >"$T/m.conf" <<'CONF'
[global]
reps = 2
order = sequential
[baseline]
cpus = 1, $host_cpus
[workload stream]
type = membw
size = 4M
iterations = 4
CONF
ncpu=$(nproc)
expect_exit "plan exits 0" 0 "$VTBENCH" plan "$T/m.conf"
expect_exit "plan --format json exits 0" 0 "$VTBENCH" plan "$T/m.conf" --format json
got=$(sqlite3 :memory: "select json_extract(readfile('$T/out'), '\$.boots')" 2>/dev/null || echo "?")
[ "$ncpu" -gt 1 ] && want=4 || want=2
expect_eq "plan json counts the boots" "$got" "$want"

expect_exit "run exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db"
expect_grep "run prints where the results are" "$T/out" "results in $T/r.db"
got=$(sql "$T/r.db" "select count(*) from boot where status = 'ok'")
expect_eq "every boot ok" "$got" "$want"
got=$(sql "$T/r.db" "select group_concat(metric, ',') from (select distinct metric from sample order by metric)")
expect_eq "STREAM's four metrics and their means stored" "$got" \
	"add,add_mean,copy,copy_mean,scale,scale_mean,triad,triad_mean"
got=$(sql "$T/r.db" "select count(*) from sample where unit = 'MB/s' and better = 'higher' and value > 0")
expect_eq "every sample positive MB/s, higher is better" "$got" "$((want * 8))"
got=$(sql "$T/r.db" "select count(*) from sample b join sample m on m.result_id = b.result_id and m.metric = b.metric || '_mean' where m.value <= b.value")
expect_eq "each mean rate is at most its best rate" "$got" "$((want * 4))"
got=$(sql "$T/r.db" "select json_extract(header, '\$.kernel') from boot limit 1")
expect_eq "the boot's header has the kernel" "$got" "$(uname -r)"
got=$(sql "$T/r.db" "select json_extract(header, '\$.memory.total') >= json_extract(header, '\$.memory.available') and json_extract(header, '\$.memory.available') > 0 from boot limit 1")
expect_eq "the boot's header has MemTotal and MemAvailable" "$got" "1"
got=$(sql "$T/r.db" "select json_extract(info, '\$.array_bytes') from result limit 1")
expect_eq "the resolved array size is stored" "$got" "4194304"
got=$(sql "$T/r.db" "select b.cpus from boot b join config c on c.id = b.config_id where c.label = 'baseline cpus=1' limit 1")
expect_eq "cpus=1 ran confined to one CPU" "$got" "$(sql "$T/r.db" "select cpus from config where label = 'baseline cpus=1'")"
got=$(sql "$T/r.db" "select json_extract(header, '\$.cpus') from boot b join config c on c.id = b.config_id where c.label = 'baseline cpus=1' limit 1")
expect_eq "the agent saw only its CPU" "$got" "$(sql "$T/r.db" "select cpus from config where label = 'baseline cpus=1'")"
got=$(sql "$T/r.db" "select count(*) from campaign where host_state is not null and json_extract(host_state, '\$.kernel') is not null")
expect_eq "the host state snapshot is stored" "$got" "1"

# (wide enough that the per-configuration table is one block: at 80
# columns, the default without a terminal, its last columns may come
# after it as a second block, as many rows again)
expect_exit "compare exits 0" 0 env COLUMNS=200 "$VTBENCH" compare --db "$T/r.db"
expect_grep "compare has the header" "$T/out" "configuration"
expect_grep "compare shows triad" "$T/out" "triad (+)"
expect_grep "compare shows the baseline" "$T/out" "baseline cpus=1"
# the per-configuration table names c1 (split in two parts when wider than the terminal)
n=$(grep '^c1  *stream ' "$T/out" | awk '{ print $3 }' | sort -u | wc -l)
expect_eq "one row per metric" "$n" "8"

# --only and --reps narrow a run; a filter that matches nothing is an error
expect_exit "--only one configuration, --reps 1" 0 "$VTBENCH" run "$T/m.conf" --db "$T/only.db" --only 'baseline cpus=1' --reps 1 --quiet
got=$(sql "$T/only.db" "select group_concat(c.label) || ' ' || count(*) from boot b join config c on c.id = b.config_id")
expect_eq "--only ran just that configuration, once" "$got" "baseline cpus=1 1"
expect_exit "--only matching nothing is an input error" 2 "$VTBENCH" run "$T/m.conf" --db "$T/none.db" --only 'nothing*'
expect_grep "--only matching nothing lists the labels" "$T/err" "'baseline cpus=1'"
if [ -e "$T/none.db" ]; then notok "--only matching nothing creates no database"; else ok "--only matching nothing creates no database"; fi
