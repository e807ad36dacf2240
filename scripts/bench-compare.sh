#!/bin/sh
# `make bench`: vtbench compare over a generated database of 1,000,000
# samples in 10,000 cells (tests/tools/mkfixture --big): wall time and peak
# RSS beside the floor (sqlite3's plain GROUP BY mean over the same
# samples).  Figures only: nothing here fails on a timing.
set -eu
BUILD=${1:-build}
VTBENCH=$BUILD/vtbench
MKFIXTURE=$BUILD/tests/tools/mkfixture
DB=${BENCH_COMPARE_DB:-$BUILD/bench-compare.db}

if [ ! -f "$DB" ]; then
	echo "bench-compare: generating $DB (1,000,000 samples, about a minute)"
	"$MKFIXTURE" --big "$DB"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbbench.XXXXXX")
trap 'rm -rf "$T"' EXIT

# run NAME CMD...: wall seconds and peak RSS (GNU time's %e and %M)
run() {
	_n=$1; shift
	/usr/bin/time -f '%e %M' -o "$T/time" "$@" >/dev/null 2>"$T/err" || true
	set -- $(tail -n 1 "$T/time")
	printf '%-28s %8s s  %8s MiB\n' "$_n" "$1" "$(($2 / 1024))"
	last=$1
}

# a shared machine: the load says how far the times can be trusted
echo "compare over $DB: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
run "sqlite3 GROUP BY mean" sqlite3 "$DB" \
	"SELECT result.cell_id, avg(sample.value) FROM sample JOIN result ON result.id = sample.result_id GROUP BY result.cell_id"
floor=$last
run "compare --format json" "$VTBENCH" compare --db "$DB" --format json --fail-on none
full=$last
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$full $floor" | awk '$2 > 0 { printf "ratio to the floor: %.1fx\n", $1 / $2 }'
