# reps = auto on real bare-metal campaigns (issue 15): interleaved rounds
# until every compare row of a configuration is decided.  Deterministic
# cases: rows decided at min_reps (a constant metric: same), a row that
# stays undecided (few: one side's boots fail after its first) runs both of
# its configurations to max_reps and says so, --resume continues under the
# same rule (and runs nothing when all is decided), the budget stops new
# boots, and the progress lines say how many rows are undecided and the
# most boots left.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0

cat >"$T/auto.conf" <<CONF
[global]
reps = auto
min_reps = 3
max_reps = 5
auto_compare = axis:cpus
timeout = 60s
[baseline]
cpus = 1, 2
[workload probe]
type = debug
mode = ok
CONF

boots() { # db config-label: boots stored
	sql "$1" "select count(*) from boot join config on config.id = boot.config_id where config.label = '$2'"
}

expect_exit "plan: reps auto shows its range and the most boots" 0 \
	"$VTBENCH" plan "$T/auto.conf"
expect_grep "plan: the range" "$T/out" "reps auto (3 to 5 boots a configuration, until its compare rows are decided; along cpus)"
expect_grep "plan: at most" "$T/out" "at most 10 boots"

# a constant value on both sides: same, decided at min_reps
expect_exit "reps = auto: every row decided at min_reps" 0 \
	"$VTBENCH" run "$T/auto.conf" --db "$T/same.db"
expect_eq "... 3 boots of each configuration" \
	"$(boots "$T/same.db" 'baseline cpus=1') $(boots "$T/same.db" 'baseline cpus=2')" "3 3"
expect_grep "... says every row is decided" "$T/out" "reps = auto: every compare row decided after 3 rounds"
expect_grep "... progress: the boots done of the most possible" "$T/out" "boot 6/<=10 baseline cpus=2 rep 2: ok"
expect_grep "... notes before the first decision" "$T/err" \
	"reps = auto, round 1: 3 boots a configuration before the first decision"
expect_grep "... and after it" "$T/err" \
	"reps = auto, round 3: 0 compare rows undecided; 0 configurations go on, at most 0 boots left"
expect_exit "... --resume then runs nothing" 0 \
	"$VTBENCH" run "$T/auto.conf" --db "$T/same.db" --resume
expect_grep "... and says so" "$T/out" "0 boots run (0 ok, 0 failed, 0 timed out), 6 already stored"
expect_grep "... every row was decided" "$T/out" "reps = auto: every compare row was already decided"

# --resume of a campaign begun with fixed reps continues under the rule
expect_exit "--reps 2, then --resume: the stopping rule of reps = auto" 0 \
	"$VTBENCH" run "$T/auto.conf" --db "$T/resume.db" --reps 2
expect_exit "... the resumed run" 0 "$VTBENCH" run "$T/auto.conf" --db "$T/resume.db" --resume
expect_grep "... runs only what the rule asks" "$T/out" "2 boots run (2 ok, 0 failed, 0 timed out), 4 already stored"
expect_eq "... every (configuration, rep) once" \
	"$(sql "$T/resume.db" "select count(*), count(distinct config_id || '/' || rep) from boot")" "6|6"

# the cpus=2 side fails every boot after its first: one value, few, an
# undecided row that runs both of its configurations to max_reps
key=$("$VTBENCH" plan "$T/auto.conf" --format json |
	python3 -c 'import json,sys; print([c["key"] for c in json.load(sys.stdin)["configurations"] if c["label"] == "baseline cpus=2"][0])')
mkdir "$T/state"
cat >"$T/flaky-agent" <<SH
#!/bin/sh
# the real agent, but the configuration $key fails after its first boot
if grep -q '"config":"$key"' /dev/fd/3; then
	if [ -e "$T/state/seen" ]; then echo "flaky: failing on request" >&2; exit 1; fi
	: >"$T/state/seen"
fi
exec "$AGENT" "\$@"
SH
chmod +x "$T/flaky-agent"
VTBENCH_AGENT="$T/flaky-agent" "$VTBENCH" run "$T/auto.conf" --db "$T/few.db" \
	>"$T/out" 2>"$T/err"
expect_eq "an undecided row: run exits 1 (failed boots), both configurations to max_reps" \
	"$? $(boots "$T/few.db" 'baseline cpus=1') $(boots "$T/few.db" 'baseline cpus=2')" "1 5 5"
expect_grep "... says the row is undecided at the cap" "$T/out" \
	"reps = auto: 1 compare row still undecided after 5 rounds (max_reps reached)"
expect_grep "... the progress line counts the boots" "$T/out" "boot 7/<=10 baseline cpus=1 rep 3: ok"
if grep -q '^boot 8/<=10 baseline cpus=2 rep 3: failed .*: agent exited with status 1, 1 row undecided$' "$T/out"; then
	ok "... and the rows undecided"
else notok "... and the rows undecided" "$(cat "$T/out")"; fi
# its only row is few: nothing could be judged, and the default gate fails
expect_exit "... and compare says why (nothing judged: exit 1)" 1 \
	"$VTBENCH" compare --db "$T/few.db" --axis cpus
expect_grep "... nothing could be judged" "$T/out" "nothing could be judged: 2 boots a side are needed"
expect_grep "... few: one boot" "$T/out" "few: 1 boot against 5: not judged"

# the budget: no boot starts that would end past it
cat >"$T/budget.conf" <<CONF
[global]
reps = auto
max_reps = 20
budget = 1s
auto_compare = axis:cpus
[baseline]
cpus = 1, 2
[workload nap]
type = debug
mode = sleep
seconds = 0.3s
CONF
expect_exit "a budget of 1s: the run ends" 0 "$VTBENCH" run "$T/budget.conf" --db "$T/budget.db"
got=$(sql "$T/budget.db" "select count(*) from boot")
if [ "$got" -ge 1 ] && [ "$got" -le 4 ]; then ok "... after $got boots of 0.3 s"; else
	notok "... after a few boots of 0.3 s" "$got boots"; fi
expect_grep "... and says why" "$T/out" "reps = auto: stopped before the first decision (the budget is spent)"
expect_eq "... the campaign is done, not interrupted" "$(sql "$T/budget.db" "select status from campaign")" "done"

# input errors before any boot
sed 's/auto_compare = axis:cpus/auto_compare = axis:nope/' "$T/auto.conf" >"$T/bad.conf"
expect_exit "auto_compare along an axis no configuration has: exit 2" 2 \
	"$VTBENCH" run "$T/bad.conf" --db "$T/bad.db"
expect_grep "... says so" "$T/err" "auto_compare: no configuration of campaign"
# exit 2 writes nothing: the database the run created for it is removed
if [ -e "$T/bad.db" ]; then notok "... before any boot, and leaves no database"; else
	ok "... before any boot, and leaves no database"; fi
