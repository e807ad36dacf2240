#!/bin/sh
# Harness overhead per VM boot in a campaign, as a ratio: `vtbench run` of
# one VM configuration with a no-op job and reps = B (one process, B
# boots back to back) against qemu-system-x86_64 started B times with the
# arguments libvirt used (read from libvirt's QEMU log) and the same
# kernel and initramfs, interleaved (in rotating order), N rounds.  The
# harness is timed from process start to exit, so its start-up and its
# last teardown count, spread over the campaign's B boots.  QEMU direct is
# timed two ways: to poweroff (QEMU left to exit by itself: the goal's
# denominator), and to its end record (the agent's last record is in the
# record port's file; QEMU is then killed and reaped), which is where
# `vtbench run` ends a guest; the second is printed for reference only: a
# shell pipeline that watches the file and kills QEMU can take longer than
# the guest's own poweroff, and would flatter the harness.  A warm-up run
# first pays the daemon's first-connection probe (QEMU capabilities) and is
# excluded, so neither side carries it; accel = tcg skips the KVM probe (a
# one-off per host, cached).  The load average is printed before and
# after: the machine may be shared.  Figures only, never assertions.
#
#   scripts/bench-vm.sh [BUILD]   BENCH_VM_N=3 rounds, BENCH_VM_BOOTS=3 boots a round
#
# BENCH_VM_BOOTS=1 gives the cost of one boot in its own `vtbench run`.
# VTBENCH_GUEST_LOCK=FILE: the whole measurement holds flock(1) on FILE
# (guest runs of others on the same machine wait, and would skew it).
set -eu
BUILD=${1:-build}
N=${BENCH_VM_N:-3}
B=${BENCH_VM_BOOTS:-3}
GOAL=1.05
SRC=$(cd "$(dirname "$0")/.." && pwd)
case "$N$B" in *[!0-9]*) echo "bench-vm: BENCH_VM_N and BENCH_VM_BOOTS are counts" >&2; exit 2 ;; esac
[ "$N" -ge 1 ] && [ "$B" -ge 1 ] || { echo "bench-vm: BENCH_VM_N and BENCH_VM_BOOTS must be at least 1" >&2; exit 2; }
if [ -n "${VTBENCH_GUEST_LOCK:-}" ] && [ -z "${VTBENCH_GUEST_LOCKED:-}" ]; then
	VTBENCH_GUEST_LOCKED=1 exec flock "$VTBENCH_GUEST_LOCK" sh "$0" "$@"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/vtbbenchvm.XXXXXX")
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
[ -n "$kernel" ] || { echo "bench-vm: no guest kernel: run scripts/fetch-kernel.sh" >&2; exit 1; }
export VTBENCH_GUEST_DIR="$T/guest"

conf() {
	cat <<CONF
[global]
reps = $1
timeout = 3m
accel = tcg
kernel = $kernel
[baseline]
enabled = no
[vm]
vcpus = 2
topology = cores
memory = 512M
[workload noop]
type = debug
mode = ok
CONF
}
conf 1 >"$T/warm.conf"
conf "$B" >"$T/vm.conf"

now() { date +%s%N; }
runvm() { "$BUILD/vtbench" run "$T/$1.conf" --db "$T/$2.db" --quiet >/dev/null 2>"$T/err" || {
	cat "$T/err" >&2
	exit 1
}; }

# Warm-up (excluded), and the command line libvirt gave QEMU.
runvm warm warm
uuid=$(sqlite3 "$T/warm.db" "select uuid from boot")
log=/var/log/libvirt/qemu/vtbench-$uuid.log
[ -r "$log" ] || { echo "bench-vm: libvirt's QEMU log '$log' is missing" >&2; exit 1; }
# From the binary to the last continued line; shell quoting undone;
# what only libvirt can use dropped: -S (start paused), the monitor
# socket passed as an fd, the master key file, -no-shutdown (libvirt
# kills QEMU at poweroff); serial ports go to files instead of ptys.
perl -ne '
	if (/^\/usr\/bin\/qemu-system/ .. !/\\$/) {
		chomp; s/ \\$//;
		if (/^(\S+) (.*)$/) { print "$1\n"; $a = $2; $a =~ s/^\x27(.*)\x27$/$1/; $a =~ s/\x27\\\x27\x27/\x27/g; print "$a\n"; }
		else { print "$_\n"; }
	}' "$log" >"$T/args.raw"
perl -e '
	my ($dir) = @ARGV; open my $f, "<", "$dir/args.raw" or die; my @a = <$f>; chomp @a;
	my @o;
	for (my $i = 0; $i < @a; $i++) {
		my $x = $a[$i];
		if ($x eq "-S" || $x eq "-no-shutdown") { next }
		if ($i + 1 < @a) {
			my $v = $a[$i + 1];
			if (($x eq "-object" && $v =~ /masterKey/) ||
			    ($x eq "-chardev" && $v =~ /charmonitor/) || $x eq "-mon") { $i++; next }
			if ($x eq "-initrd") { push @o, $x, "$dir/direct.img"; $i++; next }
			if ($x eq "-chardev" && $v =~ /^pty,id=(charserial\d)/) {
				push @o, $x, "file,id=$1,path=$dir/$1.out"; $i++; next }
		}
		push @o, $x;
	}
	open my $g, ">", "$dir/args" or die; print $g "$_\n" for @o;' "$T"
qemu=$(head -n 1 "$T/args")

# The same initramfs with the same no-op job (nonce 0).
init=$BUILD/guest/initramfs.cpio.gz
cp "$init" "$T/direct.img"
sz=$(stat -c %s "$T/direct.img")
pad=$(((4 - sz % 4) % 4))
[ "$pad" -eq 0 ] || head -c "$pad" /dev/zero >>"$T/direct.img"
mkdir -p "$T/job"
printf '%s\n' '{"schema":1,"nonce":"0","cells":[{"key":"k","name":"noop","workload":"debug","params":{"mode":"ok"}}]}' >"$T/job/job.json"
(cd "$T/job" && echo job.json | cpio --quiet -o -H newc -R 0:0) >>"$T/direct.img"

tail -n +2 "$T/args" >"$T/args.tail"

# direct MODE: QEMU with libvirt's arguments; MODE end: until the agent's
# end record is in the record port's file, then QEMU is killed and reaped;
# MODE off: until it powers off and exits
direct() {
	mode=$1
	rm -f "$T/charserial0.out" "$T/charserial1.out"
	# one argument per line: no shell word splitting of data
	set --
	while IFS= read -r a; do set -- "$@" "$a"; done <"$T/args.tail"
	"$qemu" "$@" >/dev/null 2>"$T/qerr" &
	qpid=$!
	if [ "$mode" = end ]; then
		# tail follows the file with inotify (a polling loop would take
		# CPU from the TCG guest on a small machine); the kill comes as
		# soon as grep sees the end record, and tail goes with QEMU
		tail -n +1 -F -s 0.1 --pid="$qpid" "$T/charserial1.out" 2>/dev/null |
			{ grep -q -m 1 '"type":"end"'; kill "$qpid" 2>/dev/null; } &
		wpid=$!
	fi
	rc=0
	wait "$qpid" || rc=$?
	[ "$mode" != end ] || wait "$wpid" || :
	if [ "$mode" = off ] && [ "$rc" -ne 0 ]; then
		cat "$T/qerr" >&2
		exit 1
	fi
	grep -q '"type":"end","status":"ok"' "$T/charserial1.out" || {
		echo "bench-vm: the direct QEMU guest did not finish its job" >&2
		exit 1
	}
}
# B direct boots back to back
directs() { j=0; while [ $j -lt "$B" ]; do j=$((j + 1)); direct "$1"; done; }

load() { cut -d' ' -f1-3 /proc/loadavg; }
load0=$(load)
i=0
: >"$T/times"
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	# rotate the order: none of the three always runs first
	for k in 0 1 2; do
		case $(((i + k) % 3)) in
		0)
			t0=$(now)
			runvm vm "r$i"
			tv=$(($(now) - t0))
			got=$(sqlite3 "$T/r$i.db" "select count(*) from boot where status = 'ok'")
			[ "$got" = "$B" ] || { echo "bench-vm: the campaign stored $got ok boots of $B" >&2; exit 1; }
			;;
		1) t0=$(now); directs end; te=$(($(now) - t0)) ;;
		2) t0=$(now); directs off; to=$(($(now) - t0)) ;;
		esac
	done
	echo "$tv $te $to" >>"$T/times"
done
echo "== harness overhead per VM boot: campaigns of $B boot(s) (2 vCPUs, TCG, no-op job), $N rounds, interleaved"
echo "   vtbench run: one process, reps = $B, from start to exit; QEMU direct: $B runs back to back"
echo "   QEMU direct: $qemu with libvirt's arguments from $(basename "$log")"
echo "   load average (1, 5, 15 min): $load0 before, $(load) after"
awk -v b="$B" -v goal="$GOAL" '{ v[NR] = $1 / b; e[NR] = $2 / b; o[NR] = $3 / b; ro[NR] = $1 / $3; re[NR] = $1 / $2
	printf "   round %d, a boot: vtbench run %6.2f s   qemu direct to poweroff %6.2f s, to its end record %6.2f s   ratios %.3fx, %.3fx\n", NR, v[NR] / 1e9, o[NR] / 1e9, e[NR] / 1e9, ro[NR], re[NR] }
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	n = NR; mo = median(ro, n); me = median(re, n)
	printf "   median a boot: vtbench run %.2f s, qemu direct %.2f s to poweroff, %.2f s to its end record\n", median(v, n) / 1e9, median(o, n) / 1e9, median(e, n) / 1e9
	printf "   ratio against qemu direct to poweroff (median of the rounds; the goal uses this one): %.3fx (goal <= %sx): %s\n",
		mo, goal, mo <= goal ? "met" : "not met"
	printf "   ratio against qemu direct to its end record (median of the rounds; for reference, not the goal): %.3fx\n", me }' "$T/times"
