#!/bin/sh
# What collecting the scheduler evidence costs the measured values (issue
# 28, docs/evidence.md): one 2-vCPU guest (pinned, default profile) runs
# wakeup (schbench model) and messaging (hackbench model) with
# [global] evidence = yes (schedstats on in the guest, /proc/schedstat and
# /proc/stat read around each cell, the host reading the vCPU threads)
# and with evidence = no, one boot each in turn (rotating which goes
# first), N each.  Printed: each side's median wakeup p99 and messaging
# time, their ratio, what the two readings of a cell took in the guest
# (the record's cost_ns) against the cell's time, and compare's statistic
# of yes against no (ratio of means with its 95% interval).  The goal is at most 1%; under TCG a
# boot-to-boot spread of several percent hides a difference that small:
# read the interval, not only the point.  Figures only, never assertions.
#
#   scripts/bench-evidence.sh [BUILD]       BENCH_EV_N=6 by default
set -eu
BUILD=${1:-build}
N=${BENCH_EV_N:-6}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbbenchev.XXXXXX")
chmod 0755 "$T"
started=""
cleanup() {
	rm -rf "$T"
	[ -z "$started" ] || sh "$SRC/scripts/libvirtd.sh" stop
}
trap cleanup EXIT
if ! virsh -c qemu:///system version >/dev/null 2>&1; then
	sh "$SRC/scripts/libvirtd.sh" start
	started=yes
fi
kernel=$(ls "$SRC"/build/guest/kernel/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
[ -n "$kernel" ] || { echo "bench-evidence: no guest kernel: run scripts/fetch-kernel.sh" >&2; exit 1; }

for side in yes no; do
	cat >"$T/$side.conf" <<CONF
[global]
kernel = $kernel
timeout = 3m
accel = tcg
evidence = $side
[baseline]
enabled = no
[vm]
vcpus = 2
topology = cores
pinning = strict
memory = 512M
[workload wakeup]
type = wakeup
message_threads = 1
threads = 2
runtime = 2s
warmup = 500ms
[workload msg]
type = messaging
groups = 2
CONF
done

echo "== evidence collection overhead (2-vCPU guest, TCG, $N boots a side, interleaved)"
i=0
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	if [ $((i % 2)) = 1 ]; then order="yes no"; else order="no yes"; fi
	for side in $order; do
		"$BUILD/vtbench" run "$T/$side.conf" --db "$T/$side.db" --resume --reps $i \
			--quiet >/dev/null 2>"$T/err" ||
			{ echo "bench-evidence: run ($side) failed:" >&2; tail -n 5 "$T/err" >&2; exit 1; }
	done
done
med() { # db metric
	sqlite3 "$T/$1.db" "select s.value from sample s join result r on r.id = s.result_id
		where s.metric = '$2' and r.status = 'ok' order by s.value" |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for m in wakeup_p99:us seconds:s; do
	metric=${m%%:*} unit=${m#*:}
	y=$(med yes "$metric") n=$(med no "$metric")
	awk -v m="$metric" -v u="$unit" -v y="$y" -v n="$n" 'BEGIN {
		printf "  %-11s with evidence %10.1f %s   without %10.1f %s   ratio %.3f\n", m, y, u, n, u, y / n }'
done
echo "-- what the readings themselves took (the agent's cost_ns), per cell"
sqlite3 "$T/yes.db" "select c.name, count(*), avg(json_extract(e.guest, '\$.cost_ns')) / 1e3,
	100.0 * avg(json_extract(e.guest, '\$.cost_ns')) / avg(json_extract(e.guest, '\$.seconds') * 1e9)
	from evidence e join result r on r.id = e.result_id join cell c on c.id = r.cell_id
	group by c.name order by c.name" |
	awk -F'|' '{ printf "  %-7s %2d boots: %8.1f us a cell, %.4f%% of its time\n", $1, $2, $3, $4 }'
echo "-- compare: evidence = yes against evidence = no (ratio of means, 95% interval)"
"$BUILD/vtbench" compare --db "$T/yes.db" --against "$T/no.db" --metric 'wakeup_p99' \
	--fail-on none --format csv 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
	NR > 1 { printf "  %s/%s: %+.1f%% [%+.1f%%, %+.1f%%] %s\n", $h["cell"], $h["metric"],
		$h["change_pct"], $h["ci_low_pct"], $h["ci_high_pct"], $h["verdict"] }' || true
"$BUILD/vtbench" compare --db "$T/yes.db" --against "$T/no.db" --metric 'seconds' \
	--fail-on none --format csv 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
	NR > 1 { printf "  %s/%s: %+.1f%% [%+.1f%%, %+.1f%%] %s\n", $h["cell"], $h["metric"],
		$h["change_pct"], $h["ci_low_pct"], $h["ci_high_pct"], $h["verdict"] }' || true
