#!/bin/sh
# The statistics of compare on their own: 10,000 rows of n = 10 vs n = 10
# boots and 1,000 rows of n = 100 vs 100: two summaries, the row statistic
# (the t interval and test of the log ratio), BH and the verdict per row.
# Figures only (never an assertion); not part of `make check`.
set -eu
BUILD=${1:-build}
make --no-print-directory "BUILD=$BUILD" "$BUILD/tests/tools/statsbench" >/dev/null
echo "== stats (load average $(cut -d' ' -f1-3 /proc/loadavg))"
for run in "10000 10" "1000 100"; do
	set -- $run
	"$BUILD/tests/tools/statsbench" "$1" "$2" |
		awk '{ printf "  %6s rows, n = %3s vs %3s: %6.3f s  peak RSS %.1f MB\n",
			$2, $4, $4, $6, $8 / 1024 }'
done
# The tail test (issue 26): 10,000 rows of the p99.9 of 10 vs 10 boots
# from their histograms (100,000 values a boot, bits 6), B = 2000
# replicates (CM_TAIL_B) and, for scale, 1000.
make --no-print-directory "BUILD=$BUILD" "$BUILD/tests/tools/tailbench" >/dev/null
echo "== tails"
for B in 2000 1000; do
	"$BUILD/tests/tools/tailbench" 10000 10 "$B" |
		awk '{ printf "  %6s rows, n = %3s vs %3s, B = %4s: %6.3f s  peak RSS %.1f MB\n",
			$2, $4, $4, $6, $8, $10 / 1024 }'
done
