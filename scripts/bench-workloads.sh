#!/bin/sh
# make bench-workloads: each workload beside its reference tool (or, where
# none is packaged, validated by injected effects), interleaved, REPS
# times each; medians and ratios printed, never asserted.  One script per
# workload in scripts/bench-workloads/.
#
#   scripts/bench-workloads.sh [BUILD] [NAME...]     REPS=10 by default
set -u
BUILD=${1:-build}
[ $# -gt 0 ] && shift
AGENT=$(cd "$(dirname "$BUILD/vtbench-agent")" && pwd)/vtbench-agent
export AGENT
export REPS=${REPS:-10}
dir=$(dirname "$0")/bench-workloads
rc=0
for s in "$dir"/*.sh; do
	name=$(basename "$s" .sh)
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "==================== $name"
	sh "$s" || { echo "bench-workloads: $name failed (exit $?)"; rc=1; }
	echo
done
exit $rc
