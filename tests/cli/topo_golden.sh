# `vtbench topo` on the fixtures of tests/fixtures/topo (never this
# machine for goldens): text and JSON goldens, capabilities vs hwloc XML of
# one machine, the --export round trip, input errors.  Regenerate the
# goldens with UPDATE_GOLDEN=1 after an intended change, and review the diff.
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1

F=tests/fixtures/topo
E=tests/cli/expected

golden() { # name expected-file args...
	_n=$1 _e=$2; shift 2
	"$VTBENCH" topo "$@" >"$T/got" 2>"$T/err"; _rc=$?
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp "$T/got" "$_e"; fi
	if [ $_rc -eq 0 ] && cmp -s "$T/got" "$_e"; then ok "$_n"; return; fi
	notok "$_n" "exit $_rc" "$(diff -u "$_e" "$T/got" | head -n 30)" "$(head -c 400 "$T/err")"
}

golden "topo: 2 sockets, SNC2, offline CPUs (hwloc XML, text)" $E/topo-xeon.txt \
	--host-topology $F/xeon-2s-snc2.xml
golden "topo: 2 sockets, SNC2, offline CPUs (hwloc XML, json)" $E/topo-xeon.json \
	--host-topology $F/xeon-2s-snc2.xml --format json
golden "topo: EPYC NPS4, CCX L3s, siblings 64 apart (capabilities XML, text)" \
	$E/topo-epyc-caps.txt --host-topology caps:$F/epyc-rome-nps4.caps.xml
golden "topo: synthetic 2-socket host (text)" $E/topo-synthetic.txt \
	--host-topology "pack:2 l3:2(size=32MiB) core:4 pu:2"
golden "topo: no caches, a huge page pool (hwloc XML, text)" $E/topo-nocache.txt \
	--host-topology $F/nocache-2s.xml

# this machine: every node with CPUs has its memory and its free huge
# pages (the pool and the free count from sysfs), whatever they are
if ! need jq; then
	:
elif "$VTBENCH" topo --format json >"$T/local.json" 2>"$T/err" &&
	jq -e '[.nodes[] | select((.pus | length) > 0)] | length > 0 and
		all(.memory > 0 and .hugepages_2m != null and .hugepages_2m_free != null and
		    .hugepages_2m_free <= .hugepages_2m)' "$T/local.json" >/dev/null; then
	ok "topo: this machine's nodes have memory and free huge pages"
else
	notok "topo: this machine's nodes have memory and free huge pages" \
		"$(jq -c .nodes "$T/local.json" 2>&1 | head -c 600)" "$(cat "$T/err")"
fi

digest() { # spec: the digest of `vtbench topo --format json`
	"$VTBENCH" topo --host-topology "$1" --format json 2>"$T/err" |
		sed -n 's/^  "digest": "\([0-9a-f]*\)",*$/\1/p'
}

for m in epyc-rome-nps4 xeon-2s-snc2 nocache-2s; do
	a=$(digest $F/$m.xml) b=$(digest caps:$F/$m.caps.xml)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		ok "topo: $m capabilities and hwloc XML give one digest"
	else
		notok "topo: $m capabilities and hwloc XML give one digest" "hwloc '$a', caps '$b'" \
			"$(cat "$T/err")"
	fi
done
expect_eq "topo: a 2-vCPU VM's virsh capabilities is its synthetic shape" \
	"$(digest $F/vm-2cpu.caps.xml)" "$(digest "pack:1 l3:1(size=32MiB) core:2 pu:1")"

# export, load the export: same digest (this machine, hwloc XML, capabilities)
for spec in local $F/xeon-2s-snc2.xml caps:$F/xeon-2s-snc2.caps.xml caps:$F/epyc-rome-nps4.caps.xml \
	caps:$F/nocache-2s.caps.xml; do
	if [ "$spec" = local ]; then set --; else set -- --host-topology "$spec"; fi
	rm -f "$T/export.xml"
	if "$VTBENCH" topo "$@" --export "$T/export.xml" --format json >"$T/j1" 2>"$T/err"; then
		a=$(sed -n 's/^  "digest": "\([0-9a-f]*\)",*$/\1/p' "$T/j1")
		b=$(digest "$T/export.xml")
		if [ -n "$a" ] && [ "$a" = "$b" ]; then
			ok "topo --export round trip keeps the digest ($spec)"
		else
			notok "topo --export round trip keeps the digest ($spec)" "'$a' vs '$b'" \
				"$(cat "$T/err")"
		fi
	else
		notok "topo --export round trip keeps the digest ($spec)" "$(cat "$T/err")"
	fi
done
if command -v lstopo-no-graphics >/dev/null 2>&1; then
	if lstopo-no-graphics --input "$T/export.xml" >"$T/lstopo" 2>&1 &&
		grep -q 'NUMANode' "$T/lstopo"; then
		ok "topo --export from capabilities XML is hwloc XML lstopo reads"
	else
		notok "topo --export from capabilities XML is hwloc XML lstopo reads" "$(head "$T/lstopo")"
	fi
fi

# libvirt's test driver needs no daemon
expect_exit "topo --host-topology libvirt:test:///default" 0 \
	"$VTBENCH" topo --host-topology libvirt:test:///default
expect_grep "topo reads the test driver's two cells" "$T/out" "2 packages, 2 nodes"

expect_exit "topo --help exits 0" 0 "$VTBENCH" topo --help
expect_grep "topo --help documents --export" "$T/out" "--export FILE.xml"
expect_exit "vtbench --help lists topo" 0 "$VTBENCH" --help
expect_grep "vtbench --help lists topo" "$T/out" "topo "

expect_exit "topo: a missing topology file is an input error" 2 \
	"$VTBENCH" topo --host-topology "$T/missing.xml"
expect_grep "topo: a missing topology file is named" "$T/err" "'$T/missing.xml'"
printf '<topology version="2.0"><object type="Machine"' >"$T/broken.xml"
expect_exit "topo: malformed XML is an input error" 2 \
	"$VTBENCH" topo --host-topology "$T/broken.xml"
expect_grep "topo: malformed XML is named" "$T/err" "'$T/broken.xml' is not well-formed XML"
printf "<capabilities><host><topology><cells num='1'><cell id='0'><cpus num='1'><cpu id='0'/></cpus></cell></cells></topology></host></capabilities>" >"$T/caps.xml"
expect_exit "topo: inconsistent capabilities XML is an input error" 2 \
	"$VTBENCH" topo --host-topology "caps:$T/caps.xml"
expect_grep "topo: inconsistent capabilities XML is named" "$T/err" "'$T/caps.xml': cpu 0"
expect_exit "plan: malformed topology file is an input error too" 2 \
	"$VTBENCH" plan examples/quick.conf --host-topology "$T/broken.xml"
expect_exit "topo: --export into a missing directory is an input error" 2 \
	"$VTBENCH" topo --host-topology "pack:1 core:2 pu:1" --export "$T/no/such/dir.xml"
expect_grep "topo: --export names the file it cannot write" "$T/err" "'$T/no/such/dir.xml'"
expect_exit "topo: unknown format" 2 "$VTBENCH" topo --format yaml
