# Every domain `vtbench plan --xml-dir` writes for the placement fixture,
# on a synthetic host and on interleaved numbering, as TCG and as KVM
# domains, is accepted by the real qemu driver: `virsh domxml-to-native
# qemu-argv` (needs the daemon: run by tests/run.sh with the guest tests).
# A kvm domain converts only where libvirt's QEMU has KVM: elsewhere
# tests/tools/domxml_to_native.sh checks it with virt-xml-validate and
# converts its TCG twin, and here each twin must be, byte for byte, the
# domain planned with --accel tcg (so the twin is what vtbench writes, and
# the kvm domain differs from it only in the accelerator's parts).
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1
need virsh || exit 0
need virt-xml-validate || exit 0
X2N="$SRCDIR/tests/tools/domxml_to_native.sh"

M=tests/fixtures/matrix/placement.conf
for host in 'pack:2 numa:4 l3:16 core:4 pu:2' tests/fixtures/topo/epyc-rome-nps4.xml; do
	for accel in tcg kvm; do
		d="$T/$(echo "$host-$accel" | tr -c 'a-z0-9\n' _)"
		mkdir -p "$d"
		expect_exit "plan --xml-dir --accel $accel on '$host'" 0 \
			"$VTBENCH" plan "$M" --host-topology "$host" --xml-dir "$d" --accel "$accel" ||
			continue
		n=$(ls "$d"/*.xml | wc -l)
		if [ "$accel" = tcg ]; then
			bad=""
			for f in "$d"/*.xml; do
				virsh -c qemu:///system domxml-to-native qemu-argv "$f" >/dev/null 2>"$T/err" ||
					bad="$bad $(basename "$f"): $(head -c 200 "$T/err")"
			done
		else
			sh "$X2N" "$d"/*.xml >"$T/x2n" 2>&1
			bad=$(grep '^not ok' "$T/x2n" | head -n 3)
			tcgdir="$T/$(echo "$host-tcg" | tr -c 'a-z0-9\n' _)"
			differ=""
			for f in "$d"/*.xml; do
				sh "$X2N" --tcg-twin "$f" | cmp -s - "$tcgdir/$(basename "$f")" ||
					differ="$differ $(basename "$f")"
			done
			expect_eq "kvm on '$host': each domain's TCG twin is the --accel tcg domain" "$differ" ""
		fi
		if [ -z "$bad" ] && [ "$n" -eq 25 ]; then
			ok "$accel on '$host': all $n planned domains convert to a QEMU command line"
		else
			notok "$accel on '$host': all planned domains convert to a QEMU command line" "$n files" "$bad"
		fi
	done
done

# The tool's KVM path fails what it should: a kvm domain libvirt's schema
# refuses, and one whose twin QEMU cannot take.
f=$(ls "$T"/pack_2*_kvm/*.xml | head -n 1)
sed 's|<vcpu placement="static">|<vcpu placement="everywhere">|' "$f" >"$T/badschema.xml"
expect_exit "a kvm domain outside libvirt's schema is not ok" 1 sh "$X2N" "$T/badschema.xml"
sed 's|<os>|<os><loader type="rom">/nonexistent/vtbench.fd</loader>|; s|<type arch="x86_64" machine="pc">|<type arch="x86_64" machine="pc-nonexistent-9.9">|' \
	"$f" >"$T/badmachine.xml"
expect_exit "a kvm domain of a machine type QEMU lacks is not ok" 1 sh "$X2N" "$T/badmachine.xml"
