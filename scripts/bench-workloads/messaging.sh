#!/bin/sh
# messaging vs rt-tests hackbench, side by side: the same parameters for
# both (process + socket pairs, thread + pipes), interleaved REPS times
# each; prints the median seconds of ours and of hackbench, the ratio
# ours/hackbench and whether it lies within the 0.85-1.15.
# Figures only: exits non-zero when a tool is missing or fails, never on
# timings.
#   AGENT=build/vtbench-agent REPS=10 sh scripts/bench-workloads/messaging.sh
# ARGS overrides the common parameters (default "-g 4 -l 1000").
set -u
AGENT=${AGENT:-build/vtbench-agent}
REPS=${REPS:-10}
ARGS=${ARGS:--g 4 -l 1000}
LO=0.85
HI=1.15

command -v hackbench >/dev/null 2>&1 || {
	echo "messaging bench: hackbench (rt-tests) is missing" >&2
	exit 1
}
[ -x "$AGENT" ] || {
	echo "messaging bench: no agent at '$AGENT' (set AGENT)" >&2
	exit 1
}
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbmsg.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

# run NAME CMD...: runs CMD, appends its "Time: S" to $T/NAME
run() {
	_n=$1
	shift
	if ! "$@" >"$T/out" 2>"$T/err"; then
		echo "messaging bench: '$*' failed:" >&2
		cat "$T/out" "$T/err" >&2
		exit 2
	fi
	_t=$(sed -n 's/^Time: *\([0-9.]*\).*/\1/p' "$T/out" | tail -n 1)
	if [ -z "$_t" ]; then
		echo "messaging bench: no 'Time:' line from '$*':" >&2
		cat "$T/out" >&2
		exit 2
	fi
	echo "$_t" >>"$T/$_n"
}

median() {
	sort -n "$T/$1" | awk '{ v[NR] = $1 } END {
		if (NR % 2) printf "%.4f", v[(NR + 1) / 2]
		else printf "%.4f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "== messaging vs hackbench (rt-tests $(hackbench --help 2>&1 | sed -n 's/^hackbench V *//p')), $ARGS, $REPS runs each, interleaved"
echo "   cpus: $(nproc) ($(taskset -pc $$ 2>/dev/null | sed 's/.*: //'))"
i=0
while [ "$i" -lt "$REPS" ]; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # ARGS is a word list on purpose
	{
		run ps_ref hackbench $ARGS
		run ps_our "$AGENT" messaging $ARGS
		run tp_our "$AGENT" messaging $ARGS -T -p
		run tp_ref hackbench $ARGS -T -p
	}
done

printf '%-24s %12s %12s %8s  %s\n' "mode" "ours (s)" "hackbench" "ratio" "within $LO-$HI"
for m in "ps:process + socket pairs" "tp:thread + pipes"; do
	k=${m%%:*}
	label=${m#*:}
	o=$(median "${k}_our")
	r=$(median "${k}_ref")
	awk -v l="$label" -v o="$o" -v r="$r" -v lo="$LO" -v hi="$HI" 'BEGIN {
		ratio = r > 0 ? o / r : 0
		printf "%-24s %12.4f %12.4f %8.3f  %s\n", l, o, r, ratio,
			(ratio >= lo && ratio <= hi) ? "yes" : "no" }'
done
echo "(medians of $REPS runs; hackbench prints milliseconds, ours is rounded to them too)"
