#!/bin/sh
# SPDX-License-Identifier: MIT
# Does the real qemu driver accept a domain XML?  Runs `virsh
# domxml-to-native qemu-argv` on each FILE and prints "ok - " or "not ok -
# " per file; exit 1 when one fails.
#
#   domxml_to_native.sh [-c URI] FILE...
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
if [ "${1:-}" = -c ]; then uri=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: domxml_to_native.sh [-c URI] FILE..." >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/dx2n.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT

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
	if virsh -c "$uri" domxml-to-native qemu-argv "$W/x.xml" >"$W/argv" 2>"$W/err"; then
		echo "ok - domxml-to-native $(basename "$f")"
	else
		echo "not ok - domxml-to-native $(basename "$f")"
		sed 's/^/# /' "$W/err"
		rc=1
	fi
	sed 's/^/# /' "$W/notes"
done
exit $rc
