#!/bin/sh
# Harness overhead per VM boot, as a ratio: `vtbench run` of one VM
# configuration with a no-op job against qemu-system-x86_64 started with
# the arguments libvirt used (read from libvirt's QEMU log) and the same
# kernel and initramfs, both to poweroff, interleaved, N each.  A warm-up
# run first pays the daemon's first-connection probe (QEMU capabilities)
# and is excluded, so neither side carries it; accel = tcg skips the KVM
# probe (a one-off per host, cached).  Figures only, never assertions.
#
#   scripts/bench-vm.sh [BUILD]       BENCH_VM_N=5 by default
set -eu
BUILD=${1:-build}
N=${BENCH_VM_N:-5}
SRC=$(cd "$(dirname "$0")/.." && pwd)
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

cat >"$T/vm.conf" <<CONF
[global]
reps = 1
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

now() { date +%s%N; }
runvm() { "$BUILD/vtbench" run "$T/vm.conf" --db "$T/$1.db" --quiet >/dev/null 2>"$T/err" || {
	cat "$T/err" >&2
	exit 1
}; }

# Warm-up (excluded), and the command line libvirt gave QEMU.
runvm warm
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

direct() {
	# one argument per line: no shell word splitting of data
	tail -n +2 "$T/args" | tr '\n' '\0' | timeout 300 xargs -0 "$qemu" >/dev/null 2>"$T/qerr" || {
		cat "$T/qerr" >&2
		exit 1
	}
	grep -q '"type":"end","status":"ok"' "$T/charserial1.out" || {
		echo "bench-vm: the direct QEMU guest did not finish its job" >&2
		exit 1
	}
}

i=0
: >"$T/times"
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	t0=$(now); runvm "r$i"; t1=$(now)
	direct; t2=$(now)
	echo "$((t1 - t0)) $((t2 - t1))" >>"$T/times"
done
echo "== harness overhead per VM boot (2 vCPUs, TCG, no-op job, $N each, interleaved)"
echo "   QEMU direct: $qemu with libvirt's arguments from $(basename "$log")"
awk '{ v[NR] = $1; q[NR] = $2; printf "   run %d: vtbench run %6.2f s   qemu direct %6.2f s\n", NR, $1 / 1e9, $2 / 1e9 }
END {
	n = NR
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
		if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		if (q[j] < q[i]) { t = q[i]; q[i] = q[j]; q[j] = t }
	}
	mv = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	mq = n % 2 ? q[(n + 1) / 2] : (q[n / 2] + q[n / 2 + 1]) / 2
	printf "   median: vtbench run %.2f s, qemu direct %.2f s, ratio %.3fx (target <= 1.25x): %s\n",
		mv / 1e9, mq / 1e9, mv / mq, mv / mq <= 1.25 ? "met" : "NOT met" }' "$T/times"
