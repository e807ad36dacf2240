#!/bin/sh
# `make bench`: the calibration of compare's verdicts (issue 15) on
# generated campaigns run through `vtbench compare` (tests/tools/calibrate):
# false alarms, power at n = 3, 5, 10 and with reps = auto (median boots),
# CI coverage for normal, lognormal and contaminated data, and whether the
# goals are met.  Figures only: nothing here fails on them.  CAL_SEEDS
# (default 100) seeds a case; the databases go to a tmpfs when there is one.
set -eu
BUILD=${1:-build}
make --no-print-directory "BUILD=$BUILD" "$BUILD/tests/tools/calibrate" >/dev/null
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then TMPDIR=/dev/shm; fi
export TMPDIR=${TMPDIR:-/tmp}
echo "== calibration of compare's verdicts ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
"$BUILD/tests/tools/calibrate" "$BUILD/vtbench" "${CAL_SEEDS:-100}"
