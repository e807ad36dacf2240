# Every domain `vtbench plan --xml-dir` writes for the placement fixture,
# on a synthetic host and on interleaved numbering, as TCG and as KVM
# domains, is accepted by the real qemu driver: `virsh domxml-to-native
# qemu-argv` (needs the daemon: run by tests/run.sh with the guest tests).
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1
command -v virsh >/dev/null 2>&1 || { skip "domxml-to-native of planned domains" "no virsh"; exit 0; }

M=tests/fixtures/matrix/placement.conf
for host in 'pack:2 numa:4 l3:16 core:4 pu:2' tests/fixtures/topo/epyc-rome-nps4.xml; do
	for accel in tcg kvm; do
		d="$T/$(echo "$host-$accel" | tr -c 'a-z0-9\n' _)"
		mkdir -p "$d"
		expect_exit "plan --xml-dir --accel $accel on '$host'" 0 \
			"$VTBENCH" plan "$M" --host-topology "$host" --xml-dir "$d" --accel "$accel" ||
			continue
		bad="" n=0
		for f in "$d"/*.xml; do
			n=$((n + 1))
			virsh -c qemu:///system domxml-to-native qemu-argv "$f" >/dev/null 2>"$T/err" ||
				bad="$bad $(basename "$f"): $(head -c 200 "$T/err")"
		done
		if [ -z "$bad" ] && [ "$n" -eq 25 ]; then
			ok "$accel on '$host': all $n planned domains convert to a QEMU command line"
		else
			notok "$accel on '$host': all planned domains convert to a QEMU command line" "$n files" "$bad"
		fi
	done
done
