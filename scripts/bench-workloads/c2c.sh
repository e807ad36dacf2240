#!/bin/sh
# c2c validation figures: runs `vtbench-agent c2c` REPS times and prints
# the matrix and clusters of the first run, then per run the round-trip
# min/median/max and the measured duration against the predicted one
# (the estimate the workload prints before it starts), and their medians.  Figures, never
# assertions: exits non-zero only when the agent is missing or fails.
#
# There is no packaged reference: core-to-core-latency (the model) is a
# Rust crate and c2clat a single C++ file, neither in Debian.  Build one
# and run it beside for a by-hand comparison; both print one-way
# latencies, half of our round trips.
#
#   AGENT=build/vtbench-agent REPS=10 sh scripts/bench-workloads/c2c.sh
#   C2C_ARGS="--time 20ms" ... passes options to the workload.
set -u
AGENT=${AGENT:-build/vtbench-agent}
REPS=${REPS:-10}
C2C_ARGS=${C2C_ARGS:-}

if [ ! -x "$AGENT" ]; then
	echo "c2c.sh: agent '$AGENT' not found or not executable (set AGENT=)" >&2
	exit 2
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbc2c.XXXXXX")
trap 'rm -rf "$T"' EXIT

echo "== c2c: core-to-core round trips (CAS ping-pong), $REPS runs, $(nproc) cpus"
echo "   no packaged reference (core-to-core-latency, c2clat are not in Debian): figures only"
echo "   clustering on real multi-socket hardware is untested on this machine"
i=0
while [ "$i" -lt "$REPS" ]; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$AGENT" c2c $C2C_ARGS >"$T/out.$i" 2>"$T/err.$i"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "c2c.sh: run $i failed (exit $rc):" >&2
		cat "$T/err.$i" "$T/out.$i" >&2
		exit 1
	fi
done

echo
echo "-- run 1"
grep -v '^c2c: core-to-core' "$T/err.1"
sed -n '/^cpus /p; /^round-trip latency/,/^measured in/p; /^(matrix of/p' "$T/out.1"

echo
echo "-- every run (round trip, ns; durations, s)"
i=0
while [ "$i" -lt "$REPS" ]; do
	i=$((i + 1))
	awk -v rep="$i" '
		$1 == "c2c_min" { mn = $2 } $1 == "c2c_median" { md = $2 } $1 == "c2c_max" { mx = $2 }
		$1 == "c2c_levels" { lv = $2 }
		/^measured in/ { meas = $3; pred = $7 }
		END { printf "%d %s %s %s %d %s %s\n", rep, mn, md, mx, lv, meas, pred }
	' "$T/out.$i"
done >"$T/table"
awk '
	function median(a, n,    i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	BEGIN { printf "  %4s %10s %10s %10s %7s %10s %10s %9s\n", "run", "min", "median", "max",
		"levels", "measured", "predicted", "meas/pred" }
	{
		n++; mn[n] = $2; md[n] = $3; mx[n] = $4; lv[n] = $5; me[n] = $6; pr[n] = $7
		r[n] = $7 > 0 ? $6 / $7 : 0
		printf "  %4d %10.1f %10.1f %10.1f %7d %10.3f %10.3f %9.2f\n", $1, $2, $3, $4, $5, $6, $7, r[n]
	}
	END {
		if (!n) exit
		printf "  %4s %10.1f %10.1f %10.1f %7s %10.3f %10.3f %9.2f\n", "med", median(mn, n),
			median(md, n), median(mx, n), median(lv, n), median(me, n), median(pr, n), median(r, n)
		printf "  (meas/pred > 1: per-pair setup, and batches that outlast the time bound on a busy machine)\n"
	}
' "$T/table"
