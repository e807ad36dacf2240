#!/bin/sh
# `make bench`: the calibration of compare's verdicts (issues 15 and 26) on
# generated campaigns run through `vtbench compare` (tests/tools/calibrate):
# false alarms (normal, lognormal, and with 5% of boots 3x slower), power
# at n = 3, 5, 10 and with reps = auto (median boots), one slow boot or 5%
# of slow boots against a real 10% regression, CI coverage for normal,
# lognormal, contaminated and slow-boot data, tail rows (p50, p99, p999,
# max from per-boot latency histograms) with stalls in 0 to 4 of 10 boots,
# and whether the goals are met.  Figures only: nothing here fails on
# them.  CAL_SEEDS (default 100) seeds a case; CAL_CASES=slowboot,tails
# runs only the cases whose names hold one of the substrings; CAL_ARGS are
# further `compare` arguments (split on spaces, no shell), e.g.
# CAL_ARGS=--no-robust.  The databases go to a tmpfs when there is one.
set -eu
BUILD=${1:-build}
make --no-print-directory "BUILD=$BUILD" "$BUILD/tests/tools/calibrate" >/dev/null
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then TMPDIR=/dev/shm; fi
export TMPDIR=${TMPDIR:-/tmp}
echo "== calibration of compare's verdicts ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
"$BUILD/tests/tools/calibrate" "$BUILD/vtbench" "${CAL_SEEDS:-100}"
