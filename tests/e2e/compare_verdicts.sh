# Verdicts on real bare-metal campaigns (issue 15) that rest on no
# measured figure: a side whose every boot failed is a missing row and
# exit 1; a membw campaign with two cells reporting the same metrics
# (size = 1M, 64M) against its own copy pairs every row with itself.  A
# hog against a clean campaign and two clean campaigns are judged in
# tests/quiet/compare_verdicts.sh, alone after the lanes.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
need taskset || exit 0

spin_conf "$T/spin.conf"

# the clean side: two boots (its figures are not judged here)
"$VTBENCH" run "$T/spin.conf" --db "$T/clean.db" --reps 2 --quiet >"$T/run.out" 2>&1 ||
	notok "run clean.db" "$(cat "$T/run.out")"

# every boot of one side failed (an agent that exits at once): missing
printf '#!/bin/sh\necho "agent unavailable" >&2\nexit 1\n' >"$T/broken-agent"
chmod +x "$T/broken-agent"
for r in 1 2; do
	VTBENCH_AGENT="$T/broken-agent" "$VTBENCH" run "$T/spin.conf" --db "$T/broken.db" \
		--resume --reps "$r" --quiet >/dev/null 2>&1
done
# wide: the reason is grepped whole (text folds at COLUMNS)
expect_exit "a cell that failed in every boot of one side exits 1" 1 \
	env COLUMNS=250 "$VTBENCH" compare --db "$T/broken.db" --against "$T/clean.db"
expect_grep "... and the failed boots come first" "$T/out" "boots        2: 0 ok, 2 failed"
expect_grep "... with a missing row" "$T/out" "seconds (-)  s"
expect_grep "... that says why" "$T/out" \
	"spin seconds (s), c1 vs c2: missing: 'baseline cpus=1' of campaign"
expect_grep "... naming the boots and the error" "$T/out" "failed in all 2 boots: agent exited with"
expect_grep "... counted in the summary" "$T/out" "1 missing, 0 error"
expect_exit "--fail-on none: the missing row exits 0" 0 \
	"$VTBENCH" compare --db "$T/broken.db" --against "$T/clean.db" --fail-on none

# membw with two cells of the same metrics, against its own copy: each row
# pairs a cell with itself (equal values, change 0), none with the other size
cat >"$T/membw.conf" <<CONF
[global]
reps = 2
[baseline]
cpus = 1
[workload stream]
type = membw
size = 1M, 64M
iterations = 2
CONF
if "$VTBENCH" run "$T/membw.conf" --db "$T/membw.db" --quiet >"$T/run.out" 2>&1; then
	cp "$T/membw.db" "$T/membw-copy.db"
	"$VTBENCH" compare --db "$T/membw.db" --against "$T/membw-copy.db" --format json \
		>"$T/self.json" 2>"$T/err"
	got=$(python3 -c 'import json,sys
rows = json.load(open(sys.argv[1]))["rows"]
bad = [r["cell"] + " " + r["metric"] for r in rows
       if r["base"]["values"] != r["x"]["values"] or r["change_pct"] != 0]
print(len(rows), len({r["cell"] for r in rows}), ",".join(bad) or "none")' "$T/self.json")
	expect_eq "membw size = 1M, 64M against its copy: 16 rows of 2 cells, each with itself" \
		"$got" "16 2 none"
else
	notok "membw size = 1M, 64M runs" "$(cat "$T/run.out")"
fi
