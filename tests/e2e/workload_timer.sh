# The timer workload (cyclictest model) end to end: a tiny bare-metal
# campaign through `vtbench run`, its metrics, histogram and per-thread
# facts in SQLite, and the agent by hand.  Bounds checked here follow from
# the model (order statistics, the deadline grid), never from timings.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0

# SCHED_FIFO needs privilege; without it only the SCHED_OTHER cell runs
if [ "$(id -u)" -eq 0 ]; then prios="0, 50"; ncells=2; else prios="0"; ncells=1; fi
cat >"$T/m.conf" <<CONF
[global]
reps = 1
order = sequential
timeout = 60s
[baseline]
cpus = 1, \$host_cpus
[workload tick]
type = timer
interval = 1ms
duration = 1s
priority = $prios
CONF
ncpu=$(nproc)
[ "$ncpu" -gt 1 ] && boots=2 || boots=1
expect_exit "plan exits 0" 0 "$VTBENCH" plan "$T/m.conf"
expect_grep "plan shows the timer cell" "$T/out" "timer"

expect_exit "run exits 0" 0 "$VTBENCH" run "$T/m.conf" --db "$T/r.db" --quiet
got=$(sql "$T/r.db" "select count(*) from boot where status = 'ok'")
expect_eq "every boot ok" "$got" "$boots"
got=$(sql "$T/r.db" "select count(*) from result where status = 'ok'")
expect_eq "every cell ok" "$got" "$((boots * ncells))"
got=$(sql "$T/r.db" "select group_concat(metric, ',') from (select distinct metric from sample order by metric)")
expect_eq "cyclictest's figures stored" "$got" "timer_avg,timer_max,timer_min,timer_p99"
got=$(sql "$T/r.db" "select count(*) from sample where unit = 'us' and better = 'lower' and value >= 0 and value < 1e6")
expect_eq "every sample in us, lower is better, between 0 and 1 s" "$got" "$((boots * ncells * 4))"
# 0 < min <= avg <= max and min <= p99 <= max within each result (a wake-up
# is read after its deadline: none is 0)
got=$(sql "$T/r.db" "select count(*) from (select result_id,
	max(case metric when 'timer_min' then value end) mn,
	max(case metric when 'timer_avg' then value end) av,
	max(case metric when 'timer_p99' then value end) p99,
	max(case metric when 'timer_max' then value end) mx
	from sample group by result_id) where 0 < mn and mn <= av and av <= mx and mn <= p99 and p99 <= mx")
expect_eq "0 < min <= avg, p99 <= max in every result" "$got" "$((boots * ncells))"

got=$(sql "$T/r.db" "select count(*) from histogram where metric = 'timer_latency' and unit = 'ns'
	and json_extract(params, '\$.kind') = 'loglinear' and json_extract(params, '\$.bits') = 6")
expect_eq "one ns log-linear histogram per result" "$got" "$((boots * ncells))"
got=$(sql "$T/r.db" "select count(*) from histogram h join result r on r.id = h.result_id
	where (select sum(json_extract(b.value, '\$[1]')) from json_each(h.buckets) b)
	      = json_extract(r.info, '\$.cycles')")
expect_eq "each histogram holds every wake-up counted" "$got" "$((boots * ncells))"

# threads default to one per CPU, pinned in order
got=$(sql "$T/r.db" "select count(*) from result r join boot b on b.id = r.boot_id
	join config c on c.id = b.config_id
	where json_extract(r.info, '\$.threads') = json_array_length(json_extract(r.info, '\$.per_thread'))
	and json_extract(r.info, '\$.threads') = (case c.label when 'baseline cpus=1' then 1 else $ncpu end)")
expect_eq "one thread per CPU of the configuration" "$got" "$((boots * ncells))"
got=$(sql "$T/r.db" "select json_extract(r.info, '\$.per_thread[0].cpu') || ' ' || c.cpus
	from result r join boot b on b.id = r.boot_id join config c on c.id = b.config_id
	where c.label = 'baseline cpus=1' limit 1")
expect_eq "cpus=1: the thread ran on the configuration's CPU" "${got% *}" "${got#* }"
# thread k sleeps interval + k * 500us and, over 1 s, wakes at most once per deadline
got=$(sql "$T/r.db" "select count(*) from result r, json_each(json_extract(r.info, '\$.per_thread')) t
	where json_extract(t.value, '\$.interval_us') = 1000 + 500 * json_extract(t.value, '\$.thread')
	and json_extract(t.value, '\$.cycles') between 1 and 1000000 / json_extract(t.value, '\$.interval_us') + 1")
want=$(sql "$T/r.db" "select sum(json_extract(info, '\$.threads')) from result")
expect_eq "per-thread intervals and counts follow the deadline grid" "$got" "$want"
if [ "$ncells" -eq 2 ]; then
	got=$(sql "$T/r.db" "select group_concat(p, ',') from (select distinct json_extract(info, '\$.policy') || ':' || json_extract(info, '\$.priority') p from result order by p)")
	expect_eq "priority 50 ran SCHED_FIFO, 0 SCHED_OTHER" "$got" "fifo:50,other:0"
fi

expect_exit "compare exits 0" 0 "$VTBENCH" compare --db "$T/r.db"
expect_grep "compare shows timer_avg" "$T/out" "timer_avg"

# by hand
expect_exit "agent timer --help exits 0" 0 "$AGENT" timer --help
expect_grep "--help names the reference model" "$T/out" "cyclictest"
expect_grep "--help shows the interval default" "$T/out" "1000us"
expect_exit "a bare-number interval (cyclictest's us) is a usage error" 2 "$AGENT" timer -i 1000
expect_grep "... naming the option and its range" "$T/err" "'interval' must be between 10us and 10s"
expect_exit "zero threads is a usage error" 2 "$AGENT" timer -t 0
expect_exit "more threads than CPUs share them round robin (cyclictest)" 0 "$AGENT" timer -t $((ncpu + 1)) -l 1 --dma_latency -1
expect_grep "... all of them" "$T/out" "Threads = $((ncpu + 1)),"
expect_exit "-a with one cpu and no -t runs one thread" 0 "$AGENT" timer -a 0 -l 1 --dma_latency -1
expect_grep "... saying so" "$T/out" "Threads = 1,"
expect_exit "by hand, 20 loops" 0 "$AGENT" timer -t 1 -l 20 -i 500us --dma_latency -1
expect_grep "... prints cyclictest-like thread lines" "$T/out" "C:       20"
expect_grep "... and the summary" "$T/out" "timer_p99"
expect_exit "records by hand" 0 "$AGENT" timer -t 1 -l 200 -i 100us --dma_latency -1 --records
expect_grep "... carry the histogram" "$T/out" '"type":"hist","cell":"manual","metric":"timer_latency","unit":"ns"'
# the figures are the histogram's (tests/tools/hist_check.py computes them
# again): min and max in its end buckets, p99 its percentile; no latency is
# 0 (the clock is read after the deadline slept to has passed, so a latency
# taken against the next deadline, clamped at 0, shows); and no more
# wake-ups exceed the 100us interval than deadlines were missed (each such
# one skips one: a latency against the deadline before would exceed it
# every time)
cp "$T/out" "$T/hand.rec"
if need python3; then
	expect_exit "timer_min, timer_p99, timer_max are the histogram's" 0 \
		python3 "$SRCDIR/tests/tools/hist_check.py" "$T/hand.rec" timer_latency=timer \
		late:timer_latency=100000
	expect_grep "... p99 checked" "$T/out" "checked 1"
fi
got=$(sed -n 's/.*"metric":"timer_min","unit":"us","value":\([^,]*\),.*/\1/p' "$T/hand.rec")
if awk -v v="$got" 'BEGIN { exit !(v + 0 > 0) }'; then ok "timer_min > 0 ($got us)"; else notok "timer_min > 0" "timer_min is '$got'"; fi
