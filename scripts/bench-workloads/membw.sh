#!/bin/sh
# membw vs likwid-bench, side by side, like with like: Triad MB/s (10^6
# bytes, 24 bytes counted per element by both) with the same array size,
# at 1 thread and at every CPU, interleaved REPS times each (the order
# alternates each rep to cancel drift).
#
# The two tools read their iterations differently.  membw's `triad` is
# STREAM's figure: bytes / the BEST time of iterations 2..N.  likwid-bench
# times its whole loop of iterations at once and prints all the bytes over
# all that time, a MEAN.  membw also reports that reading, `triad_mean`
# (bytes / the mean time of iterations 2..N), so the ratio held to the
# goal is triad_mean / likwid; triad (best) / likwid is printed beside it
# to show how much of the old gap was the statistic.
#
# likwid's `stream` and `stream_sse` kernels use regular stores like ours;
# its AVX and non-temporal variants are left out on purpose: the agent is
# built for the baseline x86-64 ISA and STREAM's rules use regular stores.
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

# ours: "best mean" Triad MB/s from the agent's summary (metric value unit)
ours() { # threads cpus
	taskset -c "$2" "$AGENT" membw --size "${MB}M" --threads "$1" >"$T/o" 2>&1 || {
		cat "$T/o" >&2
		exit 1
	}
	awk '$3 == "MB/s" && $1 == "triad" { b = $2 } $3 == "MB/s" && $1 == "triad_mean" { m = $2 }
	     END { if (b == "" || m == "") exit 1; print b, m }' "$T/o" || {
		cat "$T/o" >&2
		echo "membw bench: no triad and triad_mean in the agent's summary" >&2
		exit 1
	}
}
likwid() { # kernel domain-spec
	likwid-bench -t "$1" -w "$2" >"$T/l" 2>&1 || {
		cat "$T/l" >&2
		exit 1
	}
	awk -F: '/^MByte\/s/ { gsub(/[ \t]/, "", $2); print $2 }' "$T/l"
}
med() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# max / min of a file's numbers: how noisy the runs were
spread() { sort -g "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f", (lo > 0) ? hi / lo : 0 }'; }

echo "membw vs likwid-bench, Triad MB/s, ${MB} MiB per array (${TOTKB} kB for likwid's -w), $REPS runs each, interleaved"
echo "ours best = STREAM's rule (best of iterations 2..N); ours mean = bytes / mean time of 2..N, likwid's reading"
echo "goal: ours mean / likwid within $LO-$HI (like with like); best / likwid for information"
printf '%-7s %-10s %10s %10s %10s %10s %10s  %s\n' threads likwid "ours best" "ours mean" likwid \
	best/lw mean/lw "goal $LO-$HI"
for th in 1 "$ncpu"; do
	cpus=0-$((th - 1))
	: >"$T/best"
	: >"$T/mean"
	: >"$T/stream"
	: >"$T/sse"
	i=0
	while [ $i -lt "$REPS" ]; do
		i=$((i + 1))
		if [ $((i % 2)) -eq 1 ]; then
			ours "$th" "$cpus" >"$T/one" || exit 1
		fi
		likwid stream "N:${TOTKB}kB:$th" >>"$T/stream"
		likwid stream_sse "N:${TOTKB}kB:$th" >>"$T/sse"
		if [ $((i % 2)) -eq 0 ]; then
			ours "$th" "$cpus" >"$T/one" || exit 1
		fi
		read -r b m <"$T/one"
		echo "$b" >>"$T/best"
		echo "$m" >>"$T/mean"
	done
	mb=$(med <"$T/best")
	mm=$(med <"$T/mean")
	for k in stream stream_sse; do
		f=$T/stream
		[ $k = stream_sse ] && f=$T/sse
		ml=$(med <"$f")
		awk -v th="$th" -v k="$k" -v b="$mb" -v m="$mm" -v l="$ml" -v lo=$LO -v hi=$HI 'BEGIN {
			rb = b / l; rm = m / l
			printf "%-7s %-10s %10.0f %10.0f %10.0f %10.3f %10.3f  %s\n", th, k, b, m, l, rb, rm,
			(rm >= lo && rm <= hi) ? "met" : "not met" }'
	done
	echo "        spread of the runs (max/min): ours best $(spread "$T/best"), ours mean $(spread "$T/mean"), likwid stream $(spread "$T/stream"), stream_sse $(spread "$T/sse")"
done
echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
if command -v mbw >/dev/null 2>&1; then
	echo
	echo "for information: mbw -t0 (memcpy) $MB MiB, 1 thread: it reports MiB/s (2^20), counts the"
	echo "bytes once (not read + write), and glibc's memcpy switches to non-temporal stores on"
	echo "large copies, so it is not comparable with STREAM's Copy:"
	taskset -c 0 mbw -q -n 3 -t0 "$MB" 2>/dev/null | grep AVG || true
fi
