#!/bin/sh
# make bench: figures, never assertions.
#  1. harness overhead per bare-metal boot: `vtbench run` of a no-op job
#     (boot, host checks, record parsing, one SQLite transaction) against
#     starting the agent directly with the same job, interleaved, N each;
#  2. membw by hand on 1 CPU and on every CPU (the STREAM figures).
set -eu
BUILD=${1:-build}
N=${BENCH_N:-10}
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbbench.XXXXXX")
trap 'rm -rf "$T"' EXIT

cat >"$T/noop.conf" <<'CONF'
[global]
reps = 1
[baseline]
cpus = 1
[workload noop]
type = debug
mode = ok
CONF
printf '%s\n' '{"schema":1,"nonce":"00","cells":[{"key":"k","name":"noop","workload":"debug","params":{"mode":"ok","seconds":"1000000000ns","records":"1"}}]}' >"$T/job.json"

now() { date +%s%N; }
i=0 tv=0 ta=0
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	t0=$(now); "$BUILD/vtbench" run "$T/noop.conf" --db "$T/b.db" --quiet >/dev/null; t1=$(now)
	taskset -c 0 "$BUILD/vtbench-agent" --job "$T/job.json" --records >/dev/null; t2=$(now)
	tv=$((tv + t1 - t0)); ta=$((ta + t2 - t1))
done
echo "== harness overhead per bare-metal boot (no-op job, $N each, interleaved)"
awk -v v="$tv" -v a="$ta" -v n="$N" 'BEGIN {
	printf "  vtbench run (1 boot, incl. 100 ms busy check): %8.1f ms\n", v / n / 1e6
	printf "  vtbench-agent --job directly:                  %8.1f ms\n", a / n / 1e6
	printf "  ratio run/agent: %.1fx; harness cost per boot: %.1f ms\n", v / a, (v - a) / n / 1e6 }'

echo "== membw (STREAM rules) by hand"
echo "-- 1 CPU"
taskset -c 0 "$BUILD/vtbench-agent" membw
echo "-- all CPUs"
"$BUILD/vtbench-agent" membw
