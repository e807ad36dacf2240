#!/bin/sh
# The statistics of compare on their own (issue 7's budget is for the whole
# `compare` over 1,000,000 samples in 10,000 cells: under 10 s with the
# default B on both cores, under 2 s with --no-ci).  10,000 rows of n = 10
# vs n = 10 boots: two summaries, the comparison (Welch, bootstrap CI), BH
# and the verdict per row, at B = 2000 on 1 and 2 threads and at B = 0.
# Figures only (never an assertion); not part of `make check`.
set -eu
BUILD=${1:-build}
make --no-print-directory "BUILD=$BUILD" "$BUILD/tests/tools/statsbench" >/dev/null
echo "== stats: 10,000 rows, n = 10 vs 10 boots (load average $(cut -d' ' -f1-3 /proc/loadavg))"
for run in "2000 1" "2000 2" "2000 2 rows" "0 1"; do
	set -- $run
	"$BUILD/tests/tools/statsbench" 10000 10 "$@" |
		awk -v how="${3:+across rows}" '{ printf "  B = %-5s %s thread%s %-12s %6.2f s  peak RSS %.1f MB\n",
			$6, $8, ($8 == 1 ? " " : "s"), (how != "" ? how : "per row"), $10, $12 / 1024 }'
done
