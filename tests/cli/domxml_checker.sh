# The independent checker (tests/tools/check_domxml.sh) passes the golden
# domains on the hosts they were made for, and fails hand-broken copies on
# exactly the property each one breaks: an SMT pair split over two host
# cores, a virtual die over two host L3s, a cell's vCPUs off its memory
# node, a pin outside the host, and siblings assumed numbered next to each
# other on a host that numbers them 64 apart.  Bad input: exit 2.
. "$SRCDIR/tests/cli/lib.sh"
need xmllint || exit 0
need hwloc-calc || exit 0
C="$SRCDIR/tests/tools/check_domxml.sh"
F="$SRCDIR/tests/fixtures/domxml"
S16='pack:2 numa:1 l3:2 core:2 pu:2'
EPYC="$SRCDIR/tests/fixtures/topo/epyc-rome-nps4.xml"

expect_exit "mirror-strict passes on its synthetic host" 0 memo sh "$C" "$F/mirror-strict.xml" "$S16"
expect_grep "it checks all four properties" "$T/out" "summary: 4 ok, 0 not ok, 0 n/a"
expect_exit "core pinning with hugepages passes" 0 memo sh "$C" "$F/core-hugepages.xml" "$S16"
expect_exit "the EPYC plan passes on the hwloc XML host (siblings 64 apart)" 0 memo sh "$C" "$F/epyc-interleaved.xml" "$EPYC"
expect_grep "  and its SMT pairs are checked" "$T/out" "ok - smt: each of 8 virtual cores on one host core"
expect_exit "an unpinned domain has nothing to fail" 0 memo sh "$C" "$F/minimal.xml" "$S16"
expect_grep "  and says so" "$T/out" "n/a - pins: no <vcpupin>"

# bad NAME SED-SCRIPT BASE HOST PROPERTY: the copy fails PROPERTY (exit 1)
# and only PROPERTY
bad() {
	sed "$2" "$F/$3.xml" >"$T/$1.xml"
	if cmp -s "$T/$1.xml" "$F/$3.xml"; then notok "$1: the broken copy differs" "sed '$2' changed nothing"; return; fi
	expect_exit "$1 fails" 1 memo sh "$C" "$T/$1.xml" "$4" || return
	expect_grep "  on $5" "$T/out" "not ok - $5:"
	n=$(grep -c '^not ok' "$T/out")
	expect_eq "  and on nothing else" "$n" 1
}
bad smt-split 's/vcpu="1" cpuset="1"/vcpu="1" cpuset="2"/; s/vcpu="2" cpuset="2"/vcpu="2" cpuset="1"/' \
	mirror-strict "$S16" smt
bad die-over-two-l3 's/vcpu="2" cpuset="2"/vcpu="2" cpuset="4"/; s/vcpu="3" cpuset="3"/vcpu="3" cpuset="5"/' \
	mirror-strict "$S16" llc
bad cell-off-its-node 's/memnode cellid="1" mode="strict" nodeset="1"/memnode cellid="1" mode="strict" nodeset="0"/' \
	mirror-strict "$S16" node
bad pin-outside-host 's/vcpu="7" cpuset="11"/vcpu="7" cpuset="99"/' mirror-strict "$S16" pins
bad emulator-outside-host 's/emulatorpin cpuset="15"/emulatorpin cpuset="15-16"/' mirror-strict "$S16" pins
bad siblings-assumed-adjacent 's/vcpu="1" cpuset="64"/vcpu="1" cpuset="1"/; s/vcpu="2" cpuset="1"/vcpu="2" cpuset="64"/' \
	epyc-interleaved "$EPYC" smt
bad numatune-off-the-pins 's/<memory mode="preferred" nodeset="0"/<memory mode="preferred" nodeset="1"/' \
	core-hugepages "$S16" node
expect_grep "  the failure names the vCPUs and host objects" "$T/out" "# the domain: pCPUs 0-3 are on host node(s) 0, memory on 1"
sed 's/vcpu="1" cpuset="1"/vcpu="1" cpuset="2"/' "$F/mirror-strict.xml" >"$T/one.xml"
memo sh "$C" "$T/one.xml" "$S16" >"$T/out"
expect_grep "an SMT failure names the virtual core, its pCPUs and host cores" "$T/out" "# virtual core 0 (vCPUs 0-1) on pCPUs 0,2: host core 0,1"

expect_exit "a missing XML is an input error" 2 memo sh "$C" "$T/none.xml" "$S16"
expect_exit "an unreadable host topology is an input error" 2 memo sh "$C" "$F/mirror-strict.xml" "pack:zz"
expect_exit "a wrong argument count is a usage error" 2 memo sh "$C" "$F/mirror-strict.xml"
printf '<domain><vcpu>4</vcpu><cpu><topology sockets="1" dies="1" cores="3" threads="2"/></cpu></domain>\n' >"$T/t.xml"
expect_exit "a topology that is not the vCPU count is an input error" 2 memo sh "$C" "$T/t.xml" "$S16"
