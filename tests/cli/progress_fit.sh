# run's progress and the widths of what vtbench prints (docs/commands.md,
# run, plan; docs/reports.md, widths): on a pseudo-terminal of 30, 40, 80
# and 120 columns the updating line never gets wider than the terminal and
# leaves no stale row (tests/tools/ptyrun.py emulates the terminal); into
# a file or pipe only whole lines (no CR, no escape); plan's time
# estimate by the stated model and, with --db, from stored boot times;
# compare piped gets the controlling terminal's width, else 80.  Two
# bare-metal boots of a 1.1 s sleep per terminal (one refresh a second),
# no guest boots.
. "$SRCDIR/tests/cli/lib.sh"
need python3 || exit 0
need sqlite3 || exit 0
need setsid || exit 0

cat >"$T/m.conf" <<'CONF'
[global]
reps = 1
timeout = 30s
[baseline]
cpus = 1, 2
[workload nap]
type = debug
mode = sleep
seconds = 1.1
CONF

# the widths at once (each its own database): a few seconds in all
for w in 30 40 80 120; do
	PTYRUN_LINES="$T/lines$w" python3 "$SRCDIR/tests/tools/ptyrun.py" $w "2 boots run" \
		env -u COLUMNS "$VTBENCH" run "$T/m.conf" --db "$T/p$w.db" >"$T/pty$w" 2>&1 &
done
wait
for w in 30 40 80 120; do
	if grep -q '^error' "$T/pty$w" || ! grep -q '^refreshes [1-9]' "$T/pty$w"; then
		notok "run on a $w-column terminal: every progress line fits, no stale row, the summary" \
			"$(head -c 1500 "$T/pty$w")"
	else ok "run on a $w-column terminal: every progress line fits, no stale row, the summary"
	fi
done

# what is kept: all of it on 80 columns; on 40 the position, the label
# and the eta; on 30 the label shortened in its middle
expect_grep "on 80 columns: the whole line" "$T/lines80" "boot 1/2  baseline cpus=1  rep 0  elapsed 0:0"
if grep -q '^boot 1/2  baseline cpus=1  eta [0-9]' "$T/lines40" && ! grep -q 'elapsed' "$T/lines40"
then ok "on 40 columns: elapsed and the rep go, the label stays"
else notok "on 40 columns: elapsed and the rep go, the label stays" "$(head -n 3 "$T/lines40")"; fi
expect_grep "on 30 columns: the label cut in its middle" "$T/lines30" "boot 1/2  bas...s=1  eta "

# the eta before any boot has finished: the stated model (a baseline
# 1 s + a cell without a runtime 1 s, two boots)
expect_eq "the first eta is the model's" "$(head -n 1 "$T/lines120")" \
	"boot 1/2  baseline cpus=1  rep 0  elapsed 0:00  eta 0:04"

# into files (a pipe is the same: no terminal): whole lines only; the
# same configurations (a cell's parameters are not in their keys), quick
sed 's/seconds = 1.1/seconds = 0.05/' "$T/m.conf" >"$T/q.conf"
expect_exit "run into files" 0 "$VTBENCH" run "$T/q.conf" --db "$T/f.db"
cat "$T/out" "$T/err" >"$T/both"
if LC_ALL=C grep -q "$(printf '[\r\033]')" "$T/both"; then
	notok "run into files: no CR, no escape" "$(od -c "$T/both" | head -n 8)"
else ok "run into files: no CR, no escape"; fi
expect_grep "run into files: a line per boot" "$T/out" "boot 2/2 baseline cpus=2 rep 0: ok"

# --resume: the campaign's stored boots count as finished ones (one of
# the kind, timed here at 100 s, against the model's 2 s)
"$VTBENCH" run "$T/q.conf" --db "$T/r.db" --only 'baseline cpus=1' >/dev/null 2>&1
sql "$T/r.db" "UPDATE boot SET ended_ns = started_ns + 100000000000"
PTYRUN_LINES="$T/linesr" python3 "$SRCDIR/tests/tools/ptyrun.py" 120 "1 boot run" \
	env -u COLUMNS "$VTBENCH" run "$T/q.conf" --db "$T/r.db" --resume >"$T/ptyr" 2>&1 ||
	notok "run --resume on a terminal" "$(head -c 1500 "$T/ptyr")"
expect_eq "run --resume: the eta counts the stored boots" "$(head -n 1 "$T/linesr")" \
	"boot 1/1  baseline cpus=2  rep 0  elapsed 0:00  eta 1:40"

# plan without --db: the model.  A boot: baseline 1 s, the debug cell 1 s
# (no runtime), the wakeup cell its runtime + warmup 2.5 s: 4.5 s; 4 reps
# of 2 configurations: 36 s
cat >"$T/e.conf" <<'CONF'
[global]
reps = 4
[baseline]
cpus = 1, 2
[workload nap]
type = debug
mode = sleep
seconds = 1.1
[workload wakeup]
type = wakeup
runtime = 2s
warmup = 500ms
CONF
expect_exit "plan: the time estimate" 0 "$VTBENCH" plan "$T/e.conf" -q
expect_grep "plan: 8 boots, about 36 seconds by the stated model" "$T/out" \
	"time     about 36 seconds (model: VM boot 10 s with KVM, 20 s under TCG, baseline 1 s, each cell its runtime + warmup or 1 s)"
expect_exit "plan --format json: the estimate" 0 "$VTBENCH" plan "$T/e.conf" --format json
got=$(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["estimate"]
print(e["seconds"], e["basis"], e["configurations"]["model"], e["stored_boots"])' "$T/out" 2>&1)
expect_eq "plan --format json: seconds, basis, configurations by the model" "$got" "36 model 2 0"

# plan --db: the stored boots of the same configurations, times set here
# (cpus=1: 5 s twice and 8 s, cpus=2: 10 s); 3 reps: 3 x 6 + 3 x 10 = 48 s
sql "$T/f.db" "UPDATE boot SET ended_ns = started_ns + 10000000000"
"$VTBENCH" run "$T/q.conf" --db "$T/f.db" --only 'baseline cpus=1' --reps 2 >/dev/null 2>&1
sql "$T/f.db" "UPDATE boot SET ended_ns = started_ns + 8000000000 WHERE config_id IN (SELECT id FROM config WHERE label = 'baseline cpus=1') AND rep = 1"
sql "$T/f.db" "UPDATE boot SET ended_ns = started_ns + 5000000000 WHERE config_id IN (SELECT id FROM config WHERE label = 'baseline cpus=1') AND rep = 0"
n=$(sql "$T/f.db" "SELECT count(*) FROM boot")
expect_eq "plan --db: the fixture holds 2 + 2 boots" "$n" "4"
expect_exit "plan --db: the time estimate" 0 "$VTBENCH" plan "$T/m.conf" -q --reps 3 --db "$T/f.db"
expect_grep "plan --db: from the stored boots" "$T/out" \
	"time     about 48 seconds (from 4 stored boots: 2 of 2 configurations by their own)"
# other settings: other configuration keys, timed by their kind's boots
# (mean of 5, 5, 8, 10: 7 s; 2 boots: 14 s)
sed 's/^cpus = 1, 2$/&\nconfinement = partition/' "$T/m.conf" >"$T/o.conf"
expect_exit "plan --db, other configurations" 0 "$VTBENCH" plan "$T/o.conf" -q --db "$T/f.db" --format json
got=$(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["estimate"]
print(e["seconds"], e["basis"], e["configurations"]["kind"], e["stored_boots"])' "$T/out" 2>&1)
expect_eq "plan --db: configurations without boots of their own by their kind's" "$got" \
	"14 stored 2 4"

# compare's width: into a pipe, the controlling terminal's (script gives
# one of 70 columns); without one (setsid), 80; COLUMNS over both
MKFIXTURE=${MKFIXTURE:-$(dirname "$VTBENCH")/tests/tools/mkfixture}
if [ ! -x "$MKFIXTURE" ]; then
	notok "mkfixture is built" "$MKFIXTURE is missing (make tests)"
elif ! "$MKFIXTURE" "$T/base.db" base 2>"$T/err"; then
	notok "mkfixture base" "$(cat "$T/err")"
elif need script; then
	widest() { awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }
	env -u COLUMNS script -qec "stty cols 70; '$VTBENCH' compare --db '$T/base.db' | cat >'$T/c70'" \
		/dev/null </dev/null >/dev/null 2>&1
	w=$(widest "$T/c70")
	if [ "$w" -gt 60 ] && [ "$w" -le 70 ]; then ok "compare | cat on a 70-column terminal: $w wide"
	else notok "compare | cat on a 70-column terminal: the terminal's width" "widest line $w"; fi
	env -u COLUMNS setsid -w "$VTBENCH" compare --db "$T/base.db" 2>/dev/null | cat >"$T/c80"
	w=$(widest "$T/c80")
	if [ "$w" -gt 70 ] && [ "$w" -le 80 ]; then ok "compare | cat without a terminal: 80 columns ($w)"
	else notok "compare | cat without a terminal: 80 columns" "widest line $w"; fi
	COLUMNS=100 script -qec "stty cols 70; '$VTBENCH' compare --db '$T/base.db' | cat >'$T/c100'" \
		/dev/null </dev/null >/dev/null 2>&1
	w=$(widest "$T/c100")
	if [ "$w" -gt 80 ] && [ "$w" -le 100 ]; then ok "compare | cat: COLUMNS wins over the terminal ($w)"
	else notok "compare | cat: COLUMNS wins over the terminal" "widest line $w"; fi
fi
