# The wakeup workload (schbench model) end to end: --help and option
# errors of the agent, then a tiny bare-metal matrix through `vtbench run`
# whose metrics and histograms must land in SQLite, present and plausible.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0

expect_exit "wakeup --help exits 0" 0 "$AGENT" wakeup --help
expect_grep "--help names the reference model" "$T/out" "schbench"
expect_grep "--help shows the schbench letters" "$T/out" "-m, --message_threads"
expect_grep "--help shows defaults" "$T/out" "default 100us"
if grep -q -- "--delay" "$T/out"; then notok "the debug delay is not in --help"; else ok "the debug delay is not in --help"; fi
expect_exit "wakeup is listed" 0 "$AGENT" --list
expect_grep "--list has wakeup" "$T/out" "wakeup"
expect_exit "an unknown option is a usage error" 2 "$AGENT" wakeup --treads 2
expect_grep "the unknown option gets a suggestion" "$T/err" "did you mean 'threads'"
expect_exit "a bare sleep number (seconds) over 1s is a usage error" 2 "$AGENT" wakeup -s 100
expect_grep "the sleep error names the option" "$T/err" "'sleep' must be between"
expect_exit "zero message threads is a usage error" 2 "$AGENT" wakeup -m 0
expect_exit "a warm-up as long as the runtime fails the workload" 1 "$AGENT" wakeup -r 1s -w 1s
expect_grep "the warm-up error says why" "$T/err" "must be shorter than 'runtime'"
expect_exit "a pin outside the allowed cpus fails the workload" 1 "$AGENT" wakeup -r 100ms -M 4095
expect_grep "the pin error names the cpu" "$T/err" "names cpu 4095"

# By hand, with framed records: two histograms and eleven samples.
expect_exit "a tiny run by hand exits 0" 0 "$AGENT" wakeup -r 300ms -n 1 -F 16 -s 20us --records
got=$(grep -c '"type":"sample"' "$T/out")
expect_eq "eleven samples by hand" "$got" "11"
got=$(grep -c '"type":"hist"' "$T/out")
expect_eq "two histograms by hand" "$got" "2"
# each percentile is its own histogram's, computed again independently
# (tests/tools/hist_check.py): ordered percentiles would not tell p90
# reported as p99
if need python3; then
	cp "$T/out" "$T/hand.rec"
	expect_exit "every wakeup_pNN and request_pNN is the histogram's percentile" 0 \
		python3 "$SRCDIR/tests/tools/hist_check.py" "$T/hand.rec" wakeup=wakeup request=request
	expect_grep "... all eight checked" "$T/out" "checked 8"
fi

cat >"$T/m.conf" <<'CONF'
[global]
reps = 1
order = sequential
[baseline]
cpus = 1, $host_cpus
[workload wake]
type = wakeup
runtime = 1s
warmup = 200ms
operations = 1
footprint = 16
sleep = 50us
CONF
ncpu=$(nproc)
[ "$ncpu" -gt 1 ] && boots=2 || boots=1
expect_exit "run exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db" --quiet
got=$(sql "$T/r.db" "select count(*) from boot where status = 'ok'")
expect_eq "every boot ok" "$got" "$boots"
got=$(sql "$T/r.db" "select group_concat(metric, ',') from (select distinct metric from sample order by metric)")
expect_eq "the eleven metrics stored" "$got" \
	"request_max,request_p50,request_p90,request_p99,request_p999,rps,wakeup_max,wakeup_p50,wakeup_p90,wakeup_p99,wakeup_p999"
got=$(sql "$T/r.db" "select count(*) from sample where metric like '%\_p%' escape '\\' or metric like '%\_max' escape '\\'")
want=$(sql "$T/r.db" "select count(*) from sample where unit = 'us' and better = 'lower' and value >= 0")
expect_eq "latencies are us, lower is better, not negative" "$got" "$want"
expect_eq "ten latencies per boot" "$want" "$((boots * 10))"
got=$(sql "$T/r.db" "select count(*) from sample where metric = 'rps' and unit = 'rps' and better = 'higher' and value > 0")
expect_eq "rps positive, higher is better" "$got" "$boots"
# plausible: ordered percentiles; a request holds its 50us sleep
got=$(sql "$T/r.db" "select count(*) from result r where
	(select value from sample where result_id = r.id and metric = 'wakeup_p50') <=
	(select value from sample where result_id = r.id and metric = 'wakeup_p99') and
	(select value from sample where result_id = r.id and metric = 'wakeup_p99') <=
	(select value from sample where result_id = r.id and metric = 'wakeup_max') and
	(select value from sample where result_id = r.id and metric = 'request_p50') >= 50")
expect_eq "percentiles ordered, requests include their sleep" "$got" "$boots"
got=$(sql "$T/r.db" "select group_concat(metric || ':' || unit || ':' || json_extract(params, '\$.kind'), ',') from (select * from histogram order by metric) where result_id = (select min(id) from result)")
expect_eq "both histograms stored with their parameters" "$got" "request:ns:loglinear,wakeup:ns:loglinear"
got=$(sql "$T/r.db" "select count(*) from histogram h where (select sum(json_extract(b.value, '\$[1]')) from json_each(h.buckets) b) =
	(select json_extract(info, '\$.' || case h.metric when 'wakeup' then 'wakeup_samples' else 'requests' end) from result where id = h.result_id)")
expect_eq "histogram counts match the samples measured" "$got" "$((boots * 2))"
got=$(sql "$T/r.db" "select json_extract(r.info, '\$.workers_per_message_thread') from result r join boot b on b.id = r.boot_id join config c on c.id = b.config_id where c.label = 'baseline cpus=1'")
expect_eq "one cpu: one worker per message thread (ceil(cpus / m))" "$got" "1"
# the stored figures are the stored histograms' (as the records by hand)
if command -v python3 >/dev/null 2>&1; then
	bad=""
	for rid in $(sql "$T/r.db" "select id from result"); do
		sql "$T/r.db" "select '@vtb1 db ' || json_object('type', 'sample', 'metric', metric, 'value', value) || ' 0' from sample where result_id = $rid;
			select '@vtb1 db ' || json_object('type', 'hist', 'metric', metric, 'unit', unit, 'params', json(params),
				'count', (select sum(json_extract(b.value, '\$[1]')) from json_each(buckets) b), 'buckets', json(buckets)) || ' 0'
			from histogram where result_id = $rid" >"$T/db$rid.rec"
		python3 "$SRCDIR/tests/tools/hist_check.py" "$T/db$rid.rec" wakeup=wakeup request=request \
			>"$T/db$rid.chk" 2>&1 || bad="$bad $(cat "$T/db$rid.chk")"
	done
	expect_eq "every stored pNN is its stored histogram's percentile" "$bad" ""
fi
got=$(sql "$T/r.db" "select json_extract(info, '\$.window_seconds') from result limit 1")
expect_eq "the measured window excludes the warm-up" "$got" "0.8"
