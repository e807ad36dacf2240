#!/bin/sh
# `make bench`: the racing engine of explore (issue 19, item 5) on
# generated candidates with known effects (tests/tools/racebench.c,
# docs/explore.md): how often the race names the true best, and its boots
# against the full cross product at fixed reps with the same final
# confidence.  The defaults first (futility off), by CoV band, then the
# alternatives the defaults were chosen against (futility on among them).
# Figures only: nothing here fails on them.
# RACE_SEEDS (default 500) seeds the main case, a fifth of it the others.
set -eu
BUILD=${1:-build}
S=${RACE_SEEDS:-500}
A=$((S / 5))
make --no-print-directory "BUILD=$BUILD" "$BUILD/tests/tools/racebench" >/dev/null
R=$BUILD/tests/tools/racebench
echo "== racing search (explore): the defaults (min_rounds 3, BH, compare's worse, futility off), 8-24 candidates"
"$R" -s "$S"
echo "-- futility on ([explore] futility = yes), the same seeds"
"$R" -s "$S" -f yes | sed -n '1,7p'
echo "-- by CoV band"
"$R" -s "$A" -v 2-5 | sed -n '1,5p'
"$R" -s "$A" -v 5-10 | sed -n '1,5p'
echo "-- the defaults (-r 3) against the alternatives, on the same seeds"
for opt in "-r 3" "-r 5" "-H" "-F" "-f yes"; do
	"$R" -s "$A" $opt | sed -n '1,5p'
done
