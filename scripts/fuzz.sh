#!/bin/sh
# Runs every libFuzzer target of FUZZ_BUILD (make fuzz-build) at once, each
# for SECONDS of wall time, from the committed corpus (tests/fuzz/corpus/
# TARGET, regression inputs included) and the seeds of the tree (example
# matrices, topology fixtures).  Prints "ok - ..." or "not ok - ..." per
# target (tests/run.sh counts them) and exits 1 on any finding: a crash,
# undefined behaviour, a leak, an input slower than 10 s or a broken
# invariant; the reproducer is kept in FUZZ_BUILD/findings/TARGET/ (copy
# it into tests/fuzz/corpus/TARGET/ as a regression input once fixed).
#
#   fuzz.sh FUZZ_BUILD SECONDS [keep]
#
# keep (make fuzz): new inputs go to FUZZ_BUILD/corpus/TARGET and are used
# again next time; without it (the smoke of make check) they go to a
# temporary directory, so the tree and the build stay as they were.
set -u
B=${1:?usage: fuzz.sh FUZZ_BUILD SECONDS [keep]}
SECS=${2:?usage: fuzz.sh FUZZ_BUILD SECONDS [keep]}
MODE=${3:-smoke}
B=$(cd "$B" 2>/dev/null && pwd) || { echo "not ok - fuzz targets are built (no $1: make fuzz-build)"; exit 1; }
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
export SRCDIR
# leaks are findings; symbolized reports name the line
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# leaks inside libraries we cannot fix (each entry says why)
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$SRCDIR/tests/fuzz/lsan.supp:print_suppressions=0}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vtbfuzz.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export TMPDIR=$TMP

seeds() { # target: extra seed directories from the tree
	case $1 in
	fuzz_matrix) echo "$SRCDIR/examples $SRCDIR/tests/fixtures/matrix" ;;
	fuzz_hosttopo) echo "$SRCDIR/tests/fixtures/topo" ;;
	fuzz_schedstat) echo "$SRCDIR/tests/fixtures/schedstat" ;;
	esac
}

names=""
for bin in "$B"/fuzz-bin/fuzz_*; do
	[ -x "$bin" ] || continue
	t=$(basename "$bin")
	names="$names $t"
	if [ "$MODE" = keep ]; then work=$B/corpus/$t; else work=$TMP/corpus-$t; fi
	mkdir -p "$work" "$B/findings/$t"
	# shellcheck disable=SC2046
	(cd "$TMP" && exec "$bin" "$work" "$SRCDIR/tests/fuzz/corpus/$t" $(seeds "$t") \
		-max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$B/findings/$t/") >"$TMP/$t.log" 2>&1 &
	echo $! >"$TMP/$t.pid"
done
if [ -z "$names" ]; then
	echo "not ok - fuzz targets are built ($B/fuzz-bin is empty: make fuzz-build)"
	exit 1
fi
failed=0
for t in $names; do
	wait "$(cat "$TMP/$t.pid")"
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/$t.log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$TMP/$t.log" | tail -n 1 | sed 's/cov: //')
	if [ "$rc" -eq 0 ]; then
		echo "ok - fuzz $t: ${runs:-?} runs in ${SECS}s, coverage ${cov:-?} edges, no finding"
	else
		failed=1
		echo "not ok - fuzz $t: exit $rc"
		grep -E 'ERROR|runtime error|invariant broken|Test unit written|SUMMARY|#[0-9]+ +in ' \
			"$TMP/$t.log" | head -n 30 | sed 's/^/# /'
	fi
done
exit $failed
