#!/bin/sh
# membw vs likwid-bench, side by side: Triad MB/s (10^6 bytes, 24 bytes
# counted per element by both) with the same array size, at 1 thread and
# at every CPU, interleaved REPS times each.  likwid's `stream` (scalar)
# and `stream_sse` (SSE2) kernels use regular stores like ours; its AVX
# and non-temporal variants are left out on purpose: the agent is built
# for the baseline x86-64 ISA and STREAM's rules use regular stores.
# likwid-bench's -w size is the total of its three vectors, so it gets 3x
# our per-array size.  mbw is printed for information only.
# Figures only: exits non-zero when a tool is missing or fails.
#   AGENT=build/vtbench-agent REPS=10 sh scripts/bench-workloads/membw.sh
# SIZE overrides the per-array size (default: 4 x the LLC, rounded up to MiB).
set -u
AGENT=${AGENT:-build/vtbench-agent}
REPS=${REPS:-10}
LO=0.9
HI=1.1
for t in likwid-bench taskset; do
	command -v $t >/dev/null 2>&1 || {
		echo "membw bench: $t is missing" >&2
		exit 1
	}
done
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbmembw.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
ncpu=$(nproc)
if [ -z "${SIZE:-}" ]; then
	# the agent resolves auto the same way: ask it (array_bytes in info)
	"$AGENT" membw --iterations 2 --records >"$T/probe" 2>/dev/null || {
		echo "membw bench: the agent failed" >&2
		exit 1
	}
	SIZE=$(sed -n 's/.*"array_bytes":\([0-9]*\).*/\1/p' "$T/probe" | head -n 1)
fi
MB=$((SIZE / 1048576))
# likwid's units are decimal (kB = 1000 bytes): give it the exact bytes
TOTKB=$((3 * MB * 1048576 / 1000))

ours() { # threads cpus
	taskset -c "$2" "$AGENT" membw --size "${MB}M" --threads "$1" >"$T/o" 2>&1 || {
		cat "$T/o" >&2
		exit 1
	}
	awk '$1 == "triad" { print $2 }' "$T/o"
}
likwid() { # kernel domain-spec
	likwid-bench -t "$1" -w "$2" >"$T/l" 2>&1 || {
		cat "$T/l" >&2
		exit 1
	}
	awk -F: '/^MByte\/s/ { gsub(/[ \t]/, "", $2); print $2 }' "$T/l"
}
med() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "membw vs likwid-bench, Triad MB/s, ${MB} MiB per array (${TOTKB} kB for likwid's -w), $REPS runs each, interleaved"
printf '%-10s %-11s %12s %12s %8s  %s\n' threads kernel ours likwid ratio "within $LO-$HI"
for th in 1 "$ncpu"; do
	cpus=0-$((th - 1))
	: >"$T/ours"
	: >"$T/stream"
	: >"$T/sse"
	i=0
	while [ $i -lt "$REPS" ]; do
		i=$((i + 1))
		ours "$th" "$cpus" >>"$T/ours"
		likwid stream "N:${TOTKB}kB:$th" >>"$T/stream"
		likwid stream_sse "N:${TOTKB}kB:$th" >>"$T/sse"
	done
	mo=$(med <"$T/ours")
	for k in stream stream_sse; do
		f=$T/stream
		[ $k = stream_sse ] && f=$T/sse
		ml=$(med <"$f")
		awk -v th="$th" -v k="$k" -v o="$mo" -v l="$ml" -v lo=$LO -v hi=$HI 'BEGIN {
			r = o / l; printf "%-10s %-11s %12.0f %12.0f %8.3f  %s\n", th, k, o, l, r,
			(r >= lo && r <= hi) ? "yes" : "no" }'
	done
done
if command -v mbw >/dev/null 2>&1; then
	echo
	echo "for information: mbw -t0 (memcpy) $MB MiB, 1 thread: it reports MiB/s (2^20), counts the"
	echo "bytes once (not read + write), and glibc's memcpy switches to non-temporal stores on"
	echo "large copies, so it is not comparable with STREAM's Copy:"
	taskset -c 0 mbw -q -n 3 -t0 "$MB" 2>/dev/null | grep AVG || true
fi
