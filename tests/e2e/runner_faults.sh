# The bare-metal runner on real agent processes: a hanging agent is killed
# at the timeout, a crashing one is "failed", garbage on the record stream
# is stored as errors against the boot, and the matrix goes on each time.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0

mk() { # name mode [timeout]
	cat >"$T/$1.conf" <<CONF
[global]
reps = 2
timeout = ${3:-20s}
[baseline]
cpus = 1
[workload probe]
type = debug
mode = $2
seconds = 0.1
CONF
}

mk hang hang 1s
# the agent through a link of this test's own: a surviving agent is found
# by that path, never confused with one of another run on the machine
a=${VTBENCH_AGENT:-$AGENT}
case $a in /*) ;; *) a=$PWD/$a ;; esac
ln -s "$a" "$T/vtbench-agent"
expect_exit "hang: run exits 1 (boots failed, all stored)" 1 \
	env VTBENCH_AGENT="$T/vtbench-agent" "$VTBENCH" run "$T/hang.conf" --db "$T/hang.db" --quiet
got=$(sql "$T/hang.db" "select count(*)||' '||group_concat(distinct status) from boot")
expect_eq "hang: both reps stored as timeout (the matrix goes on)" "$got" "2 timeout"
got=$(sql "$T/hang.db" "select error from boot limit 1")
expect_eq "hang: the error says timed out" "$got" "timed out after 1s"
A="$T/vtbench-agent --job"
if pgrep -f -- "$A" >/dev/null; then notok "hang: no agent left running" "$(pgrep -af -- "$A")"; else ok "hang: no agent left running"; fi

mk crash crash
expect_exit "crash: run exits 1" 1 "$VTBENCH" run "$T/crash.conf" --db "$T/crash.db" --quiet
got=$(sql "$T/crash.db" "select count(*)||' '||group_concat(distinct status) from boot")
expect_eq "crash: both reps stored as failed" "$got" "2 failed"
got=$(sql "$T/crash.db" "select error from boot limit 1")
case "$got" in *"signal 6"*) ok "crash: error says killed by signal 6" ;; *) notok "crash: error says killed by signal 6" "$got" ;; esac

mk fail fail
expect_exit "fail: run exits 1" 1 "$VTBENCH" run "$T/fail.conf" --db "$T/fail.db" --quiet
got=$(sql "$T/fail.db" "select group_concat(distinct r.status) from result r")
expect_eq "fail: the cell result is failed" "$got" "failed"
got=$(sql "$T/fail.db" "select stderr_tail from boot limit 1")
expect_eq "fail: the agent's stderr tail is stored" "$got" "vtbench-agent: debug: debug workload failing on request"

# a busy CPU before a boot is a warning stored with that boot
cpu=$(taskset -cp $$ | sed 's/.*: //; s/[-,].*//')
mk busy ok
sed -i "s/^cpus = 1$/cpus = 1\ncpuset = $cpu/" "$T/busy.conf"
taskset -c "$cpu" sh -c 'while :; do :; done' &
hog=$!
expect_exit "busy: the run still runs" 0 "$VTBENCH" run "$T/busy.conf" --db "$T/busy.db" --quiet
kill $hog; wait $hog 2>/dev/null
got=$(sql "$T/busy.db" "select count(*) from event where level = 'warn' and boot_id is not null and message like 'machine busy before the boot: cpu$cpu %'")
expect_eq "busy: each boot carries a 'machine busy' warning naming the CPU" "$got" "2"
expect_grep "busy: the warning is printed" "$T/err" "warning: machine busy before the boot: cpu$cpu"

mk garbage garbage
expect_exit "garbage: run exits 1" 1 "$VTBENCH" run "$T/garbage.conf" --db "$T/garbage.db" --quiet
got=$(sql "$T/garbage.db" "select count(*) from event where level='error' and boot_id is not null")
if [ "$got" -ge 2 ]; then ok "garbage: record errors stored against the boot"; else notok "garbage: record errors stored against the boot" "$got error events"; fi
got=$(sql "$T/garbage.db" "select count(*) from sample")
expect_eq "garbage: the valid samples are kept" "$got" "2"
got=$(sql "$T/garbage.db" "pragma integrity_check")
expect_eq "garbage: database intact" "$got" "ok"

mk okay ok
expect_exit "ok: run exits 0" 0 "$VTBENCH" run "$T/okay.conf" --db "$T/okay.db" --quiet
expect_exit "ok: compare exits 0" 0 "$VTBENCH" compare --db "$T/okay.db"
expect_grep "ok: compare shows the metric" "$T/out" "value"
expect_exit "ok: second run without --resume starts a new campaign" 0 "$VTBENCH" run "$T/okay.conf" --db "$T/okay.db" --quiet
got=$(sql "$T/okay.db" "select count(*) from campaign")
expect_eq "ok: two campaigns" "$got" "2"
expect_exit "ok: --resume of a finished campaign runs nothing" 0 "$VTBENCH" run "$T/okay.conf" --db "$T/okay.db" --resume
expect_grep "ok: --resume says what was stored" "$T/out" "0 boots run"
got=$(sql "$T/okay.db" "select count(*) from boot")
expect_eq "ok: resume stored no duplicate" "$got" "4"
expect_exit "ok: list runs" 0 "$VTBENCH" list runs --db "$T/okay.db"
expect_exit "ok: list cells" 0 "$VTBENCH" list cells --db "$T/okay.db"
expect_grep "ok: list cells shows the cell" "$T/out" "probe"

# SIGINT: stops cleanly, database consistent, prints the resume command
mk slow sleep 30s
sed -i 's/seconds = 0.1/seconds = 3/' "$T/slow.conf"
for sig in INT TERM; do
	rm -f "$T/slow.db"*
	# a background job starts with SIGINT ignored: perl restores the default
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' \
		"$VTBENCH" run "$T/slow.conf" --db "$T/slow.db" --quiet >"$T/out" 2>"$T/err" &
	pid=$!
	# once the campaign is stored (the runner holds the signals by then):
	# a fixed sleep lost that race on a loaded machine
	i=0
	while [ "$(sql "$T/slow.db" "select count(*) from campaign" 2>/dev/null)" != 1 ] && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -$sig $pid
	wait $pid; rc=$?
	# as a shell reports a process the signal killed: 128 + its number
	want=130
	[ "$sig" = TERM ] && want=143
	expect_eq "SIG$sig: exit $want" "$rc" "$want"
	expect_grep "SIG$sig: prints the resume command" "$T/err" "--resume"
	got=$(sql "$T/slow.db" "select status from campaign")
	expect_eq "SIG$sig: campaign marked interrupted" "$got" "interrupted"
	got=$(sql "$T/slow.db" "pragma integrity_check")
	expect_eq "SIG$sig: database intact" "$got" "ok"
done
expect_exit "--resume after an interrupt completes" 0 "$VTBENCH" run "$T/slow.conf" --db "$T/slow.db" --resume --quiet
expect_eq "... in the same campaign, each rep once" \
	"$(sql "$T/slow.db" "select count(*) || ' ' || count(distinct rep) || ' ' || (select count(*) from campaign) from boot")" "2 2 1"

# --resume of a campaign that holds failed and timed-out boots runs only
# the boots never stored: theirs are results, not gaps (running one again
# would fail on "already stored").  The first run stores rep 0 of each
# configuration (--reps 1): cpus=1 crashes (failed), cpus=2 hangs past the
# timeout; the resume then runs rep 1 of each, and only that.
cat >"$T/bad.conf" <<'CONF'
[global]
reps = 2
order = sequential
timeout = 1s
exclude = baseline cpus=1/hang, baseline cpus=2/crash
[baseline]
cpus = 1, 2
[workload crash]
type = debug
mode = crash
[workload hang]
type = debug
mode = hang
CONF
expect_exit "failed boots: a first run of rep 0 exits 1" 1 "$VTBENCH" run "$T/bad.conf" --db "$T/bad.db" --reps 1 --quiet
expect_eq "... storing one failed and one timed-out boot" \
	"$(sql "$T/bad.db" "select group_concat(status, ' ') from (select status from boot order by status)")" "failed timeout"
expect_exit "--resume of a campaign with failed and timed-out boots exits 1 (its boots fail again)" 1 \
	"$VTBENCH" run "$T/bad.conf" --db "$T/bad.db" --resume --quiet
if grep -q "already stored" "$T/err"; then notok "... without re-running a stored boot" "$(cat "$T/err")"; else ok "... without re-running a stored boot"; fi
expect_eq "... one campaign, each (configuration, rep) stored once, rep 1 by the resume" \
	"$(sql "$T/bad.db" "select count(distinct campaign_id) || ' ' || count(*) || ' ' || count(distinct config_id || '/' || rep) || ' ' || (select group_concat(rep) from (select distinct rep from boot order by rep)) from boot")" "1 4 4 0,1"
expect_eq "... the resumed boots failed and timed out as the first ones" \
	"$(sql "$T/bad.db" "select group_concat(status, ' ') from (select status from boot where rep = 1 order by status)")" "failed timeout"
