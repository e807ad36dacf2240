# The real qemu driver accepts every golden domain XML (tests/fixtures/
# domxml: the exact output of vtb_domxml for hand-built specs, see
# tests/unit/test_domxml.c): `virsh domxml-to-native qemu-argv`, through
# tests/tools/domxml_to_native.sh (which says what it localizes for this
# host; a kvm domain where libvirt's QEMU has no KVM passes virt-xml-validate
# and its TCG twin is converted).  And QEMU itself realizes what a q35 domain of ours asks for:
# two isa-serial ports and the ISA pvpanic device on q35's LPC bridge.
. "$SRCDIR/tests/cli/lib.sh"
need virsh || exit 0
need xmllint || exit 0
sh "$SRCDIR/tests/tools/domxml_to_native.sh" "$SRCDIR"/tests/fixtures/domxml/*.xml
n=0
for f in "$SRCDIR"/tests/fixtures/domxml/*.xml; do [ -f "$f" ] && n=$((n + 1)); done
if [ "$n" -ge 5 ]; then ok "at least five golden domains ($n)"; else notok "at least five golden domains" "found $n"; fi

argv=$(virsh -c qemu:///system domxml-to-native qemu-argv "$SRCDIR/tests/fixtures/domxml/q35-flat.xml" 2>&1)
case $argv in
*"-machine pc-q35-"*isa-serial*isa-serial*pvpanic*) ok "a q35 domain gets two isa-serial ports and pvpanic" ;;
*) notok "a q35 domain gets two isa-serial ports and pvpanic" "$argv" ;;
esac
if need qemu-system-x86_64; then
	out=$(echo quit | timeout 60 qemu-system-x86_64 -machine q35 -accel tcg -nodefaults -display none \
		-S -monitor stdio -chardev null,id=s0 -device isa-serial,chardev=s0,index=0 \
		-chardev null,id=s1 -device isa-serial,chardev=s1,index=1 -device pvpanic 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then ok "QEMU realizes isa-serial x2 and pvpanic on q35"; else notok "QEMU realizes isa-serial x2 and pvpanic on q35" "exit $rc" "$out"; fi
fi
