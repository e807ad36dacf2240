#!/bin/sh
# `make bench`: vtbench compare over a generated database of 1,000,000
# samples (tests/tools/mkfixture --big: 100 bare-metal configurations x 100
# wakeup cells x 10 metrics x 10 boots) against the floor, one sqlite3
# query doing the same grouping (count, avg, min, max per configuration,
# cell and metric).  Every format, for the default selection (baselines
# only: no row, the per-configuration summary) and for --baseline
# 'baseline cpus=1' (99,000 rows); each run right after a run of the
# floor (interleaved), its time as a ratio to that floor and its peak RSS
# beside the goals: at most 3x the floor and under 300 MB.  Figures only:
# nothing here fails on a timing.
set -eu
BUILD=${1:-build}
VTBENCH=${VTBENCH:-$BUILD/vtbench}
MKFIXTURE=$BUILD/tests/tools/mkfixture
DB=${BENCH_COMPARE_DB:-$BUILD/bench-compare.db}
FORMATS=${BENCH_COMPARE_FORMATS:-text md csv json html}
GOAL_RATIO=3
GOAL_MB=300
# a run longer than this is stopped and reported as such (html of 99,000
# rows builds one tree of the whole page)
LIMIT=${BENCH_COMPARE_LIMIT:-120}

# a database of another shape (an older mkfixture) is made again
if [ -f "$DB" ] && [ "$(sqlite3 "$DB" 'SELECT count(*) FROM config' 2>/dev/null)" != 100 ]; then
	rm -f "$DB"
fi
if [ ! -f "$DB" ]; then
	echo "bench-compare: generating $DB (1,000,000 samples, about a minute)"
	"$MKFIXTURE" --big "$DB"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbbench.XXXXXX")
trap 'rm -rf "$T"' EXIT

FLOOR="SELECT config.key, cell.key, sample.metric, count(*), avg(sample.value),
	min(sample.value), max(sample.value) FROM sample
	JOIN result ON result.id = sample.result_id JOIN cell ON cell.id = result.cell_id
	JOIN config ON config.id = cell.config_id
	GROUP BY config.key, cell.key, sample.metric"

# measure CMD...: $secs and $kib (GNU time's %e and %M) and $bytes written
measure() {
	/usr/bin/time -f '%e %M' -o "$T/time" timeout "$LIMIT" "$@" >"$T/out" 2>"$T/err" || true
	set -- $(tail -n 1 "$T/time")
	secs=$1 kib=$2
	bytes=$(wc -c <"$T/out")
}

# a shared machine: the load says how far the times can be trusted
echo "compare over $DB: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "goal: each format at most ${GOAL_RATIO}x the floor (run just before it) and under ${GOAL_MB} MB peak RSS"
printf '%-34s %7s %7s %8s %9s  %s\n' "run" "s" "floor s" "ratio" "peak MiB" "goal"
for sel in default baseline; do
	for fmt in $FORMATS; do
		measure sqlite3 "$DB" "$FLOOR"
		floor=$secs
		if [ "$sel" = default ]; then
			measure "$VTBENCH" compare --db "$DB" --format "$fmt" --fail-on none
		else
			measure "$VTBENCH" compare --db "$DB" --baseline 'baseline cpus=1' \
				--format "$fmt" --fail-on none
		fi
		echo "$sel $fmt $secs $floor $kib $bytes" | awk -v gr="$GOAL_RATIO" -v gm="$GOAL_MB" -v lim="$LIMIT" '{
			r = $4 > 0 ? $3 / $4 : 0
			met = (r <= gr && $5 * 1024 < gm * 1e6) ? "met" : "not met"
			if ($3 >= lim) met = "not met: stopped after " lim " s"
			printf "%-34s %7.2f %7.2f %7.2fx %9d  %s (%.0f MB out)\n",
				$1 " --format " $2, $3, $4, r, $5 / 1024, met, $6 / 1e6 }'
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
