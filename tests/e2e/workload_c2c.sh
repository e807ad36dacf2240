# c2c end to end: --help names the reference model, a by-hand run prints
# the matrix, bad cells fail with clear errors, and a tiny bare-metal
# campaign stores the samples and the matrix.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0

# Two CPUs this test may use (the first two of its affinity, whatever
# their numbers); the campaign uses 2 CPUs too, so neither its time (pairs
# grow as n^2) nor what it checks depends on the machine's CPU count.
two=$(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ b = NF > 1 ? $2 : $1; for (i = $1; i <= b; i++) print i }' | head -n 2)
c0=$(echo "$two" | sed -n 1p) c1=$(echo "$two" | sed -n 2p)
if [ -z "$c1" ]; then
	notok "c2c end to end" "needs 2 cpus, this test may use '$two'"
	exit 0
fi
ncpu=2

expect_exit "c2c --help exits 0" 0 "$AGENT" c2c --help
expect_grep "c2c --help names the reference model" "$T/out" "core-to-core-latency"
expect_grep "c2c --help shows the time default" "$T/out" "default 10ms"

expect_exit "c2c by hand on 2 cpus exits 0" 0 taskset -c "$c0,$c1" "$AGENT" c2c --time 1ms --rounds 100
expect_grep "by hand: the matrix is printed" "$T/out" "round-trip latency, ns"
expect_grep "by hand: the clusters are printed" "$T/out" "level 0:"
expect_grep "by hand: the expected duration goes to stderr" "$T/err" "expected duration about"
expect_grep "by hand: c2c_median is in the summary" "$T/out" "c2c_median"
expect_exit "c2c with records on 2 cpus exits 0" 0 taskset -c "$c0,$c1" "$AGENT" c2c --time 1ms --rounds 100 --records
expect_grep "records: the expected duration still goes to stderr" "$T/err" "expected duration about"
expect_exit "a cpu that never answers fails the pair (exit 1, no hang)" 1 taskset -c "$c0,$c1" "$AGENT" c2c --time 1ms silent=yes
expect_grep "never answers: the error names the cpu and the deadline" "$T/err" "cpu $c1 did not answer cpu $c0 within 1s"

expect_exit "c2c on one cpu fails (exit 1)" 1 taskset -c "$c0" "$AGENT" c2c --time 1ms
expect_grep "one cpu: the error says why" "$T/err" "at least 2 cpus"
expect_exit "c2c with an unknown option is a usage error" 2 "$AGENT" c2c --tiem 1ms
expect_grep "unknown option: a suggestion" "$T/err" "did you mean 'time'"
expect_exit "c2c with a bad mode is a usage error" 2 "$AGENT" c2c --mode most

cat >"$T/m.conf" <<'CONF'
[global]
reps = 1
[baseline]
cpus = 2
[workload pingpong]
type = c2c
time = 2ms
rounds = 200
mode = full, sampled
CONF
expect_exit "run of a c2c matrix exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db" --quiet
got=$(sql "$T/r.db" "select count(*) from result where status = 'ok'")
expect_eq "both cells ok" "$got" "2"
pairs=$((ncpu * (ncpu - 1) / 2))
for metric in c2c_min c2c_median c2c_max; do
	got=$(sql "$T/r.db" "select count(*) from sample where metric = '$metric' and unit = 'ns' and better = 'lower' and value > 0 and value < 1000000000")
	expect_eq "$metric stored for both cells, plausible ns (over 0, under a second: a descheduled thread on a loaded machine takes milliseconds)" "$got" "2"
done
got=$(sql "$T/r.db" "select count(*) from sample a join sample b on a.result_id = b.result_id where a.metric = 'c2c_min' and b.metric = 'c2c_max' and a.value <= b.value")
expect_eq "c2c_min is at most c2c_max" "$got" "2"
got=$(sql "$T/r.db" "select count(distinct s.result_id) from sample s join result r on r.id = s.result_id, json_each(json_extract(r.info, '\$.clusters[0].names')) j where s.metric = 'c2c_' || j.value || '_ns' and s.unit = 'ns' and s.value > 0")
expect_eq "the first level's metric is named by its kind (c2c_<kind>_ns)" "$got" "2"
got=$(sql "$T/r.db" "select count(*) from sample where metric glob 'c2c_level[0-9]*'")
expect_eq "no level metric is named by its rank" "$got" "0"
got=$(sql "$T/r.db" "select count(*) from sample where metric = 'c2c_levels' and unit = 'count' and value >= 1")
expect_eq "at least one cluster level" "$got" "2"
got=$(sql "$T/r.db" "select json_extract(r.info, '\$.pairs') from result r join cell c on c.id = r.cell_id where json_extract(r.info, '\$.mode') = 'full'")
expect_eq "full mode measured every pair" "$got" "$pairs"
got=$(sql "$T/r.db" "select json_array_length(json_extract(info, '\$.matrix.cpus')) from result limit 1")
expect_eq "the matrix has a column per cpu" "$got" "$ncpu"
got=$(sql "$T/r.db" "select json_type(info, '\$.matrix.ns[0][0]') || ' ' || (json_extract(info, '\$.matrix.ns[0][1]') > 0) || ' ' || (json_extract(info, '\$.matrix.ns[0][1]') = json_extract(info, '\$.matrix.ns[1][0]')) from result limit 1")
expect_eq "diagonal null, pairs positive and symmetric" "$got" "null 1 1"
got=$(sql "$T/r.db" "select count(*) from result where json_extract(info, '\$.clusters[0].n_clusters') >= 1 and json_extract(info, '\$.expected_seconds') > 0 and json_extract(info, '\$.measured_seconds') > 0")
expect_eq "clusters and the expected and measured durations are stored" "$got" "2"
got=$(sql "$T/r.db" "select json_extract(r.info, '\$.mode') from result r join cell c on c.id = r.cell_id where json_extract(c.params, '\$.mode') = 'sampled'")
expect_eq "the sampled cell ran in sampled mode" "$got" "sampled"
