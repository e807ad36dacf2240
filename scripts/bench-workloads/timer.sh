#!/bin/sh
# timer (cyclictest model) beside rt-tests cyclictest, with identical
# threads, interval, distance, priority, duration, mlockall and pinning
# (thread k on the k-th CPU), interleaved REPS times (the order alternates
# each rep to cancel drift).  Prints the medians of the average, minimum
# and maximum latency of each, the ratio ours/cyclictest and whether the
# average holds the bound (0.8-1.25).  Figures only: it never
# fails on timings; it exits 2 when a tool is missing, 1 when one crashes
# or prints nothing we can read.
#
#   AGENT=build/vtbench-agent REPS=10 sh scripts/bench-workloads/timer.sh
#   knobs: THREADS (2), INTERVAL (us, 1000), DISTANCE (us, 500), PRIO (80),
#          DURATION (s, 10)
#
# cyclictest runs with -N (nanoseconds): its default truncates every
# latency to whole microseconds, which alone lowers its average by ~0.5 us.
set -u
AGENT=${AGENT:-build/vtbench-agent}
REPS=${REPS:-10}
THREADS=${THREADS:-2}
INTERVAL=${INTERVAL:-1000}
DISTANCE=${DISTANCE:-500}
PRIO=${PRIO:-80}
DURATION=${DURATION:-10}
LO=0.8 HI=1.25

die() { echo "timer.sh: $*" >&2; exit "${rc:-1}"; }
rc=2
[ -x "$AGENT" ] || die "agent '$AGENT' not found (build it with make, or set AGENT)"
command -v cyclictest >/dev/null 2>&1 || die "cyclictest not found (Debian package rt-tests)"
ncpu=$(nproc)
if [ "$THREADS" -gt "$ncpu" ]; then
	echo "timer.sh: only $ncpu CPUs: THREADS=$THREADS lowered to $ncpu" >&2
	THREADS=$ncpu
fi
rc=1
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbtimer.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$T"' EXIT

# ours: "avg min max" in us from the agent's summary table
run_ours() {
	"$AGENT" timer -t "$THREADS" -i "${INTERVAL}us" -d "${DISTANCE}us" -p "$PRIO" \
		-D "${DURATION}s" -m >"$T/ours.out" 2>&1 ||
		{ cat "$T/ours.out" >&2; die "vtbench-agent timer failed"; }
	awk '$1 == "timer_avg" { a = $2 } $1 == "timer_min" { n = $2 } $1 == "timer_max" { x = $2 }
	     END { if (a == "" || n == "" || x == "") exit 1; print a, n, x }' "$T/ours.out" ||
		{ cat "$T/ours.out" >&2; die "no timer_avg/min/max in the agent's output"; }
}

# cyclictest: its per-thread lines "T: 0 (pid) P:80 I:1000 C: n Min: a Act: b
# Avg: c Max: d" (ns with -N) to "avg min max" in us over all threads, the
# average weighted by cycles as ours is
run_ref() {
	cyclictest -q -N --threads="$THREADS" -i "$INTERVAL" -d "$DISTANCE" -p "$PRIO" \
		-D "$DURATION" -m -a >"$T/ref.out" 2>&1 ||
		{ cat "$T/ref.out" >&2; die "cyclictest failed"; }
	awk '/^T:/ { gsub(/:/, ": ")
		for (i = 1; i < NF; i++) {
			if ($i == "C:") c = $(i + 1)
			if ($i == "Min:") mn = $(i + 1)
			if ($i == "Avg:") av = $(i + 1)
			if ($i == "Max:") mx = $(i + 1)
		}
		n++; sc += c; sa += c * av
		if (n == 1 || mn < amin) amin = mn
		if (n == 1 || mx > amax) amax = mx
	}
	END { if (n == 0 || sc == 0) exit 1
	      printf "%.3f %.3f %.3f\n", sa / sc / 1000, amin / 1000, amax / 1000 }' "$T/ref.out" ||
		{ cat "$T/ref.out" >&2; die "no thread lines in cyclictest's output"; }
}

median() { # file column
	sort -g -k"$2,$2" "$1" | awk -v k="$2" '{ v[NR] = $k }
		END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "== timer vs cyclictest: $THREADS threads, interval ${INTERVAL} us (+${DISTANCE} us per thread),"
echo "   SCHED_FIFO $PRIO, ${DURATION} s, mlockall, pinned; $REPS reps each, interleaved"
echo "   ours:       $AGENT timer -t $THREADS -i ${INTERVAL}us -d ${DISTANCE}us -p $PRIO -D ${DURATION}s -m"
echo "   cyclictest: cyclictest -q -N --threads=$THREADS -i $INTERVAL -d $DISTANCE -p $PRIO -D $DURATION -m -a"
printf '%4s  %28s  %28s\n' "rep" "ours avg/min/max us" "cyclictest avg/min/max us"
: >"$T/ours" && : >"$T/ref"
i=0
while [ "$i" -lt "$REPS" ]; do
	i=$((i + 1))
	if [ $((i % 2)) -eq 1 ]; then
		o=$(run_ours) || exit 1
		r=$(run_ref) || exit 1
	else
		r=$(run_ref) || exit 1
		o=$(run_ours) || exit 1
	fi
	echo "$o" >>"$T/ours"
	echo "$r" >>"$T/ref"
	printf '%4d  %28s  %28s\n' "$i" "$o" "$r"
done

echo
printf '%-16s %14s %14s %8s\n' "median (us)" "ours" "cyclictest" "ratio"
for col in 1 2 3; do
	case $col in 1) name="avg latency" ;; 2) name="min latency" ;; 3) name="max latency" ;; esac
	mo=$(median "$T/ours" $col)
	mr=$(median "$T/ref" $col)
	awk -v n="$name" -v o="$mo" -v r="$mr" -v lo="$LO" -v hi="$HI" -v col="$col" 'BEGIN {
		if (r > 0) { ratio = o / r; rs = sprintf("%.3f", ratio) } else rs = "n/a"
		line = sprintf("%-16s %14.3f %14.3f %8s", n, o, r, rs)
		if (col == 1)
			line = line sprintf("   within %s-%s: %s", lo, hi,
				(r > 0 && ratio >= lo && ratio <= hi) ? "yes" : "no")
		print line }'
done
echo "(bound from issue 4 on the average only; min and max are for information)"
