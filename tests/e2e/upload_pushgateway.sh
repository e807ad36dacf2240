# vtbench upload to a real Prometheus Pushgateway (Debian's, on loopback,
# stopped by pid): the campaign's aggregates read back from /metrics, named
# as Prometheus names things (a family per quantity in base units, no host
# label beside instance) and equal to what compare shows (the harmonic
# mean for rates), VMs and baselines, a host name that needs base64 in the
# grouping path, each upload recorded.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
need prometheus-pushgateway || exit 0
PG_PID=""
trap '[ -n "$PG_PID" ] && kill "$PG_PID" 2>/dev/null; rm -rf "$T"' EXIT
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
# its own persistence file: Debian's default is one shared file that every
# other pushgateway started here would read back
prometheus-pushgateway --web.listen-address="127.0.0.1:$PORT" \
	--persistence.file="$T/pg.data" >"$T/pg.log" 2>&1 &
PG_PID=$!
i=0
while ! python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/-/ready", timeout=1)' "$URL" 2>/dev/null; do
	i=$((i + 1))
	# (the bound only stops a hang: a loaded machine starts it slowly)
	if [ $i -gt 600 ] || ! kill -0 $PG_PID 2>/dev/null; then
		notok "the pushgateway answers" "$(tail -n 20 "$T/pg.log")"
		exit 1
	fi
	sleep 0.1
done

cat >"$T/m.conf" <<'CONF'
[global]
reps = 3
[baseline]
cpus = 1
[workload timer]
type = timer
duration = 100ms
[workload stream]
type = membw
size = 1M
iterations = 2
CONF
"$VTBENCH" run "$T/m.conf" --db "$T/r.db" --quiet >/dev/null 2>&1
HOST=$(sql "$T/r.db" "select hostname from host")

expect_exit "upload to pushgateway://" 0 "$VTBENCH" upload --db "$T/r.db" --to "pushgateway://127.0.0.1:$PORT/vtbench"
expect_grep "... says the snapshot was sent" "$T/out" ": sent ("
FAMS="vtbench_timer_p99_seconds vtbench_timer_max_stddev_seconds vtbench_membw_triad_bytes_per_second vtbench_membw_copy_boots"
if out=$(python3 "$SRCDIR/tests/tools/prom_check.py" "$URL" vtbench "$HOST" "$T/r.db" "$VTBENCH" $FAMS 2>&1); then
	ok "/metrics holds the campaign's aggregates: a family per quantity in base units, compare's means, labelled without host ($out)"
else
	notok "/metrics holds the campaign's aggregates: a family per quantity in base units, compare's means, labelled without host" "$out"
fi
expect_exit "a second upload sends the snapshot again (its nature)" 0 "$VTBENCH" upload --db "$T/r.db" --to "pushgateway://127.0.0.1:$PORT/vtbench"
expect_eq "... each recorded" "$(sql "$T/r.db" "select count(*) from upload where what = 'snapshot' and status = 'sent'")" "2"

sql "$T/r.db" "update host set hostname = 'rack 1/box \"ü\"'"
expect_exit "a host name with a slash, quotes and non-ASCII" 0 "$VTBENCH" upload --db "$T/r.db" --to "pushgateway://127.0.0.1:$PORT/vtbench"
if out=$(python3 "$SRCDIR/tests/tools/prom_check.py" "$URL" vtbench 'rack 1/box "ü"' "$T/r.db" "$VTBENCH" 2>&1); then
	ok "... reads back under its own instance ($out)"
else
	notok "... reads back under its own instance" "$out"
fi

# VMs (pinned none and strict) beside a baseline: the compare fixture
MKFIXTURE=$(dirname "$VTBENCH")/tests/tools/mkfixture
"$MKFIXTURE" "$T/fix.db" base >/dev/null 2>&1 || notok "mkfixture" "$MKFIXTURE base failed"
expect_exit "the compare fixture uploads" 0 "$VTBENCH" upload --db "$T/fix.db" --to "pushgateway://127.0.0.1:$PORT/fixture"
if out=$(python3 "$SRCDIR/tests/tools/prom_check.py" "$URL" fixture fixture-host "$T/fix.db" "$VTBENCH" \
	vtbench_membw_copy_bytes_per_second vtbench_wakeup_p99_seconds vtbench_c2c_one_way_mean_seconds 2>&1); then
	ok "... VM series carry topology, pinning, sched; baselines none of them; harmonic means for MB/s ($out)"
else
	notok "... VM series carry topology, pinning, sched; baselines none of them; harmonic means for MB/s" "$out"
fi
