#!/bin/sh
# make bench: the placement planner's figure (never an assertion): a
# 256-vCPU mirror/strict plan on a synthetic 8-socket, 2048-PU host plus
# its domain XML, against the 50 ms budget of issue 5.  Loading the host
# description and parsing the matrix are not in the figure.
set -eu
BUILD=${1:-build}
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbbench.XXXXXX")
trap 'rm -rf "$T"' EXIT
HOST='pack:8 numa:1 l3:2 core:64 pu:2'
cat >"$T/big.conf" <<'CONF'
[baseline]
enabled = no
[vm]
vcpus = 256
topology = mirror
pinning = strict
memory = 64G
[workload noop]
type = debug
CONF
echo "== placement planner: 256-vCPU mirror/strict plan + domain XML on '$HOST' (budget 50 ms)"
i=0
while [ $i -lt 5 ]; do
	i=$((i + 1))
	"$BUILD/vtbench" plan "$T/big.conf" --host-topology "$HOST" --timing --xml-dir "$T" \
		2>&1 >/dev/null | sed -n 's/^timing: .*in \([0-9.]*\) ms$/\1/p'
done | awk '{ s[NR] = $1 } END {
	n = NR; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
	printf "  best %.2f ms, median %.2f ms of %d runs: %s\n", s[1], s[int((n + 1) / 2)], n,
		(s[int((n + 1) / 2)] < 50 ? "within the 50 ms budget" : "OVER the 50 ms budget") }'
printf '  domain XML: %s bytes\n' "$(cat "$T"/*.xml | wc -c)"

# Hostile matrices (issue 16): sections and keys were compared pairwise
# (40k [sched] sections 13.6 s, 40k keys in one section 5 s).  A figure,
# never an assertion: a million sections refused at the limit, 40k keys
# in one section read whole.
{
	printf '[global]\nreps = 1\n[baseline]\ncpus = 1\n[workload w]\ntype = debug\n'
	awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "[sched s%d]\n", i }'
} >"$T/sects.conf"
{
	printf '[global]\nreps = 1\n[baseline]\ncpus = 1\n[workload w]\ntype = debug\n[sched s]\n'
	awk 'BEGIN { for (i = 0; i < 40000; i++) printf "sysctl.kernel.k%d = 1\n", i }'
} >"$T/keys.conf"
for f in sects keys; do
	s=$(date +%s%N)
	"$BUILD/vtbench" plan "$T/$f.conf" --host-topology 'pack:1 core:2 pu:1' >/dev/null 2>"$T/err" || true
	e=$(date +%s%N)
	printf '== matrix reader: %s: %d ms (%s)\n' \
		"$([ $f = sects ] && echo 'a million [sched] sections' || echo '40000 keys in one section')" \
		$(((e - s) / 1000000)) "$(sed -n '1s/.*\.conf:[0-9]*: //p' "$T/err" | grep . || echo read whole)"
done

# Matrix size (issue 25): reading and planning take time linear in the
# cells, up to the limit of 100 000; past it the matrix is refused at
# once, its cells counted from the axes before any is made.  Before:
# 25k cells in many workload sections 2.2 s, 50k 5 s, 100k 27 s
# (each section's duplicate check sorted every earlier cell again), and
# 20 s to refuse 100 100.  Two shapes, each on the same synthetic host:
# one VM configuration of N/100 workload sections of 100 cells (a comma
# list), and N/100 VM configurations ([sched] profiles x vcpus x
# pinning) of 100 cells with a baseline on each VM's pCPUs.  The figure
# is the best of 3 runs of the whole plan (text to /dev/null).
PH='pack:2 numa:2 l3:2 core:8 pu:2'
sections() { # CELLS: one VM configuration of CELLS/100 sections x 100 cells
	printf '[global]\nreps = 1\n[baseline]\nenabled = no\n[vm]\nvcpus = 2\ntopology = flat\npinning = none\nmemory = 1G\n'
	awk -v n="$1" 'BEGIN { for (i = 0; i < n / 100; i++) {
		printf "[workload w%d]\ntype = debug\nrecords = ", i
		for (j = 0; j < 100; j++) printf "%s%d", (j ? "," : ""), i * 100 + j
		printf "\n" } }'
}
configs() { # CELLS: about CELLS/100 configurations (baselines included) x 100 cells
	printf '[global]\nreps = 1\n[baseline]\nenabled = yes\ncpus = 1\nvm = yes\n'
	printf '[vm]\nvcpus = 1, 2, 3, 4\ntopology = flat\npinning = none, strict\nmemory = 1G\nsched = '
	awk -v s="$(($1 / 800 - 1))" 'BEGIN { for (i = 0; i < s; i++) printf "%sp%d", (i ? ", " : ""), i
		printf "\n"; for (i = 0; i < s; i++) printf "[sched p%d]\ndebugfs.migration_cost_ns = %d\n", i, i }'
	awk 'BEGIN { for (i = 0; i < 10; i++) { printf "[workload w%d]\ntype = debug\nrecords = ", i
		for (j = 0; j < 10; j++) printf "%s%d", (j ? "," : ""), i * 10 + j
		printf "\n" } }'
}
best_ms() { # FILE: the best of 3 plans, in ms; "rc N" when plan failed
	_best=
	for _i in 1 2 3; do
		_s=$(date +%s%N)
		_rc=0
		"$BUILD/vtbench" plan "$1" --host-topology "$PH" >/dev/null 2>"$T/err" || _rc=$?
		_e=$(date +%s%N)
		if [ $_rc -ne 0 ]; then
			echo "rc $_rc"
			return
		fi
		_t=$(((_e - _s) / 1000000))
		if [ -z "$_best" ] || [ $_t -lt $_best ]; then _best=$_t; fi
	done
	echo "$_best"
}
for shape in sections configs; do
	echo "== matrix size: plan time by cells ($shape), on '$PH', best of 3"
	per25=
	for n in 25000 50000 100000; do
		$shape $n >"$T/size.conf"
		ms=$(best_ms "$T/size.conf")
		cells=$("$BUILD/vtbench" plan "$T/size.conf" --host-topology "$PH" -q 2>/dev/null |
			sed -n 's/^plan .*, \([0-9]*\) cells,.*/\1/p')
		case $ms in
		rc*)
			printf '  %6s cells: plan failed (%s): %s\n' "$n" "$ms" "$(head -c 200 "$T/err")"
			continue ;;
		esac
		per=$(awk -v ms="$ms" -v c="$cells" 'BEGIN { printf "%.2f", ms * 1000 / c }')
		[ "$n" = 25000 ] && per25=$per
		printf '  %6s cells: %6d ms, %s us per cell' "$cells" "$ms" "$per"
		if [ "$n" = 100000 ] && [ -n "$per25" ]; then
			awk -v a="$per" -v b="$per25" 'BEGIN { r = a / b
				printf ", %.2fx 25k'"'"'s per cell: linear (within 1.5x): %s", r, (r <= 1.5 ? "met" : "NOT met") }'
		fi
		echo
	done
done
sections 100100 >"$T/over.conf"
s=$(date +%s%N)
rc=0
timeout 120 "$BUILD/vtbench" plan "$T/over.conf" --host-topology "$PH" >/dev/null 2>"$T/err" || rc=$?
e=$(date +%s%N)
printf '== matrix size: 100100 cells (just past the limit) refused in %d ms, exit %d: %s\n' \
	$(((e - s) / 1000000)) $rc "$(sed -n '1s/^vtbench plan: [^:]*:[0-9]*: //p' "$T/err")"

# The planner on hard hosts (issue 27): CPUs on no node, an offline
# node, a cpuset, nodes of 1-2 GiB and guests that do not fit them, a
# 2048-PU host.  Every configuration of a grid (vCPUs x topology x
# pinning x memory, for 1 and 4 VMs with and without overcommit) is
# timed by plan --timing (planning and domain XML, refused ones too);
# the figure is the slowest, against the goal of 50 ms each.  Before:
# 8-22 s per configuration on the node-less host at 200G.
echo "== placement planner on hard hosts: the slowest configuration of a grid (goal: every one under 50 ms)"
worst_all=0
for h in tests/fixtures/hosts/xeon-e5-2680v3-offline-node.xml tests/fixtures/hosts/nodeless-2s.xml \
	tests/fixtures/hosts/epyc-cpuset-filtered.xml tests/fixtures/hosts/four-1g-nodes.synthetic \
	topologies/hosts/small-nodes.synthetic topologies/hosts/epyc-2s.synthetic \
	'pack:8 numa:2(memory=64GiB) l3:4 core:16 pu:2'; do
	case $h in *.synthetic) spec=$(grep -v '^#' "$h" | grep -m1 .) ;; *) spec=$h ;; esac
	n=$("$BUILD/vtbench" topo --host-topology "$spec" --format json |
		sed -n 's/^ *"summary": ".* \([0-9]*\) PUs".*/\1/p')
	[ "$n" -le 1024 ] || n=1024 # vtbench's limit on vcpus
	: >"$T/times"
	for vms in 1 4; do
		for oc in no yes; do
			cat >"$T/hard.conf" <<CONF
[baseline]
enabled = no
[vm]
vcpus = 1, 2, 3, 4, 8, 16, 31, 64, $n
topology = flat, cores, mirror, lie
pinning = strict, core, none
memory = 1G, 24G, 200G
vms = $vms
overcommit = $oc
[workload noop]
type = debug
CONF
			"$BUILD/vtbench" plan "$T/hard.conf" --host-topology "$spec" --timing 2>&1 >/dev/null |
				sed -n 's/^timing: \(.*\): [a-z].* in \([0-9.]*\) ms$/\2 \1/p' >>"$T/times"
		done
	done
	sort -rn "$T/times" | awk -v h="$h" '
		NR == 1 { worst = $1; $1 = ""; what = $0 }
		{ n++ }
		END { printf "  %-48s %5d configurations, slowest %7.2f ms:%s\n", h, n, worst, what }'
	w=$(sort -rn "$T/times" | awk 'NR == 1 { print $1 }')
	worst_all=$(awk -v a="$worst_all" -v b="${w:-0}" 'BEGIN { print (b > a ? b : a) }')
done
awk -v w="$worst_all" 'BEGIN { printf "  slowest of all: %.2f ms: %s\n", w, (w < 50 ? "every configuration within 50 ms" : "OVER the 50 ms goal") }'
