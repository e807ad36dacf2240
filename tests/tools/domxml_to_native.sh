#!/bin/sh
# SPDX-License-Identifier: MIT
# Does the real qemu driver accept a domain XML?  Runs `virsh
# domxml-to-native qemu-argv` on each FILE and prints "ok - " or "not ok -
# " per file; exit 1 when one fails.
#
#   domxml_to_native.sh [-c URI] FILE...
#   domxml_to_native.sh --tcg-twin FILE    # prints FILE's TCG twin
#
# A kvm domain (<domain type="kvm">) converts only where libvirt's QEMU
# supports KVM: libvirt answers "does not support virt type 'kvm'"
# elsewhere, whatever the XML says.  Whether it does is asked of libvirt
# (`virsh domcapabilities --virttype kvm`), not read from /dev/kvm.  Where
# it does not, the kvm XML must pass `virt-xml-validate` (libvirt's domain
# schema) and its TCG twin is converted instead: the same domain as
# vtb_domxml() writes it for TCG, i.e. type "qemu", the CPU model kvm64 in
# place of host-passthrough, and no <kvm> features (the only parts
# vtb_domxml() writes differently for KVM; tests/guest/plan_native.sh
# checks that the twin of each planned kvm domain is byte for byte the
# domain planned with --accel tcg).
#
# Two parts of a plan for another machine are, by design, checked by
# libvirt against THIS host, and would fail here whatever the XML says:
#  - <numatune> nodesets naming host nodes this machine lacks ("NUMA node
#    N is unavailable"): they are rewritten to node 0 of this host;
#  - <hugepages/> without a hugetlbfs mount ("hugetlbfs filesystem is not
#    mounted"): the element is dropped.
# Each rewrite is said on a "# " line; nothing else is touched (vCPU pins
# are not checked against the host by libvirt until the domain starts).
set -u
uri=qemu:///system

# tcg_twin FILE: FILE (as vtb_domxml() formats it) with the KVM-only parts
# written as for TCG
tcg_twin() {
	sed -e 's|^<domain type="kvm">$|<domain type="qemu">|' \
		-e '/^    <kvm>$/,/^    <\/kvm>$/d' \
		-e 's|^  <cpu mode="host-passthrough">$|  <cpu mode="custom" match="exact">\n    <model fallback="forbid">kvm64</model>|' \
		-e 's|^  <cpu mode="host-passthrough"/>$|  <cpu mode="custom" match="exact">\n    <model fallback="forbid">kvm64</model>\n  </cpu>|' \
		"$1"
}

if [ "${1:-}" = --tcg-twin ]; then
	[ $# -eq 2 ] || { echo "usage: domxml_to_native.sh --tcg-twin FILE" >&2; exit 2; }
	tcg_twin "$2"
	exit
fi
if [ "${1:-}" = -c ]; then uri=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: domxml_to_native.sh [-c URI] FILE..." >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/dx2n.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT

# kvm_here: does libvirt's QEMU on this host support KVM?  Asked once.
kvm=""
kvm_here() {
	if [ -z "$kvm" ]; then
		if virsh -c "$uri" domcapabilities --virttype kvm --arch x86_64 >/dev/null 2>"$W/caps"; then
			kvm=yes
		else
			kvm=no
		fi
	fi
	[ "$kvm" = yes ]
}

nodes=$(for d in /sys/devices/system/node/node[0-9]*; do [ -d "$d" ] && echo "${d##*/node}"; done | sort -n)
[ -n "$nodes" ] || nodes=0
first=$(echo "$nodes" | head -n 1)
hugetlbfs=no
grep -q ' hugetlbfs ' /proc/mounts 2>/dev/null && hugetlbfs=yes

expand() { printf '%s\n' "$1" | tr ',' '\n' | awk -F- 'NF == 1 { print $1 } NF == 2 { for (i = $1; i <= $2; i++) print i }'; }

rc=0
for f in "$@"; do
	cp "$f" "$W/x.xml" || { echo "not ok - domxml-to-native $f"; echo "# cannot read it"; rc=1; continue; }
	: >"$W/notes"
	for set in $(xmllint --xpath '/domain/numatune/*/@nodeset' "$f" 2>/dev/null | sed -n 's/.*="\([^"]*\)"/\1/p' | sort -u); do
		for n in $(expand "$set"); do
			if ! echo "$nodes" | grep -qx "$n"; then
				echo "host node(s) $set -> $first (this host has nodes $(echo "$nodes" | tr '\n' ',' | sed 's/,$//'))" >>"$W/notes"
				sed "s/\\(<memory[^>]*\\|<memnode[^>]*\\) nodeset=\"$set\"/\\1 nodeset=\"$first\"/" "$W/x.xml" >"$W/y.xml"
				mv "$W/y.xml" "$W/x.xml"
				break
			fi
		done
	done
	if [ "$hugetlbfs" = no ] && grep -q '<hugepages/>' "$W/x.xml"; then
		echo "<hugepages/> dropped (no hugetlbfs mounted here)" >>"$W/notes"
		sed 's|<hugepages/>||' "$W/x.xml" >"$W/y.xml"
		mv "$W/y.xml" "$W/x.xml"
	fi
	what="domxml-to-native $(basename "$f")"
	if grep -q '^<domain type="kvm">$' "$W/x.xml" && ! kvm_here; then
		echo "this host's QEMU has no KVM (libvirt: $(grep . "$W/caps" | tail -n 1 | sed 's/^error: //')): its TCG twin is converted" >>"$W/notes"
		if ! virt-xml-validate "$W/x.xml" domain >"$W/err" 2>&1; then
			echo "not ok - $what (the kvm XML fails virt-xml-validate)"
			sed 's/^/# /' "$W/err" "$W/notes"
			rc=1
			continue
		fi
		echo "the kvm XML passes virt-xml-validate" >>"$W/notes"
		tcg_twin "$W/x.xml" >"$W/y.xml"
		mv "$W/y.xml" "$W/x.xml"
		what="$what (kvm: valid; its TCG twin converts)"
	fi
	if virsh -c "$uri" domxml-to-native qemu-argv "$W/x.xml" >"$W/argv" 2>"$W/err"; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		sed 's/^/# /' "$W/err"
		rc=1
	fi
	sed 's/^/# /' "$W/notes"
done
exit $rc
