# Verdicts on real bare-metal campaigns (issue 15).  A campaign run under a
# CPU hog on its CPU (the debug workload's spin: a fixed amount of CPU
# work, timed, which the hog about doubles), compared against a clean one,
# exits 1 with a worse row, with a noise generator making both sides' CoV
# some 10-30%; two clean campaigns exit 0; a side whose every boot failed
# is a missing row and exit 1; a membw campaign with two cells reporting
# the same metrics (size = 1M, 64M) against its own copy pairs every row
# with itself.  The two sides of a comparison are run interleaved (two reps
# of each in turn, --resume --reps N), so the machine's drift reaches both.
. "$SRCDIR/tests/cli/lib.sh"
need sqlite3 || exit 0
need python3 || exit 0
need taskset || exit 0

cpu=$(taskset -cp $$ | sed 's/.*: //; s/[-,].*//')
cat >"$T/spin.conf" <<CONF
[global]
reps = 1
timeout = 60s
[baseline]
cpus = 1
cpuset = $cpu
[workload spin]
type = debug
mode = spin
work = 15000000
CONF

# noise on $cpu: busy or idle in random 20 ms slices, busy 30% of the time
noise() {
	taskset -c "$cpu" python3 -c '
import random, time
random.seed(15)
while True:
    end = time.monotonic() + 0.02
    if random.random() < 0.3:
        while time.monotonic() < end:
            pass
    else:
        time.sleep(0.02)' &
	noise_pid=$!
}
# the hog: two busy threads on $cpu, so that the spin gets a third of it
# where it had all (and about half where the noise took its share)
hog() {
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	hog_pid=$!
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	hog_pid="$hog_pid $!"
}
stop() { for p in $1; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }

run1() { # db reps
	"$VTBENCH" run "$T/spin.conf" --db "$1" --resume --reps "$2" --quiet >"$T/run.out" 2>&1 ||
		notok "run $1 rep $2" "$(cat "$T/run.out")"
}

# 8 boots a side, two at a time in turn
noise
for r in 2 4 6 8; do
	run1 "$T/clean.db" "$r"
	run1 "$T/clean2.db" "$r"
	hog
	run1 "$T/hog.db" "$r"
	stop "$hog_pid"
done
stop "$noise_pid"

cov() { # db: the CoV of its spin times, in percent
	sql "$1" "select value from sample" |
		awk '{ s += $1; ss += $1 * $1; n++ } END { m = s / n; printf "%.0f", 100 * sqrt((ss - n * m * m) / (n - 1)) / m }'
}
echo "# CoV clean $(cov "$T/clean.db")%, clean2 $(cov "$T/clean2.db")%, hog $(cov "$T/hog.db")%"

expect_exit "a campaign under a CPU hog against a clean one exits 1" 1 \
	"$VTBENCH" compare --db "$T/hog.db" --against "$T/clean.db" --format json
got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]
print(r["verdict"], "%.0f" % r["change_pct"])' "$T/out")
case "$got" in
worse\ *) ok "the hog's row is worse (change ${got#worse }%)" ;;
*) notok "the hog's row is worse" "verdict and change: $got" ;;
esac
expect_exit "two clean campaigns exit 0" 0 \
	"$VTBENCH" compare --db "$T/clean2.db" --against "$T/clean.db"

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
	expect_eq "membw size = 1M, 64M against its copy: 8 rows of 2 cells, each with itself" \
		"$got" "8 2 none"
else
	notok "membw size = 1M, 64M runs" "$(cat "$T/run.out")"
fi
