# The placement planner on hosts unlike ours (issue 14), one check per
# defect it had: guest memory against the host nodes it is bound to,
# whole nodes for a VM that fills whole nodes, overcommitted VMs that
# stacked on the same pCPUs, hosts without cache information, and the SMT
# siblings of housekeeping CPUs.  Hosts are hwloc synthetic strings and
# tests/fixtures/topo/nocache-2s.* (written by gen.py), never this machine.
. "$SRCDIR/tests/cli/lib.sh"
cd "$SRCDIR" || exit 1
need python3 || exit 0

F=tests/fixtures/topo
NODES8G='pack:2 numa:2(memory=8GiB) l3:2(size=32MiB) core:4 pu:2'
NODES32='pack:1 numa:4(memory=64GiB) l3:4(size=16MiB) core:4 pu:2' # 4 nodes of 32 PUs
PKGS32='pack:4 numa:1(memory=64GiB) l3:2(size=32MiB) core:8 pu:2'  # 4 packages of 32 PUs
BIG='pack:2 numa:1(memory=768GiB) l3:12(size=32MiB) core:8 pu:2'   # 384 PUs, 8-core LLCs

# plan NAME HOST MATRIX: `vtbench plan` (text into $T/out) of MATRIX
# (the [vm] keys and more) with one membw cell
plan() {
	printf '%s\n[workload s]\ntype = membw\nsize = 1M\n' "$3" >"$T/m.conf"
	rm -f "$T/json"
	_host=$2
	"$VTBENCH" plan "$T/m.conf" --host-topology "$2" >"$T/out" 2>"$T/err" && return 0
	notok "$1: plan" "$(head -c 600 "$T/err")"
	return 1
}

# facts KEY: a fact of the first VM configuration of the last plan (its
# JSON, made once)
facts() {
	[ -s "$T/json" ] ||
		"$VTBENCH" plan "$T/m.conf" --host-topology "$_host" --format json >"$T/json" ||
		return 1
	python3 - "$1" "$T/json" <<'PY'
import json, sys

def cpus(s):
    out = []
    for part in (s or "").split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out

key, path = sys.argv[1], sys.argv[2]
cfg = next(c for c in json.load(open(path))["configurations"] if c["kind"] == "vm")
p = cfg["plan"]
vms = p["vms"]
if key == "runnable":
    print("yes" if cfg["runnable"] else "no")
elif key == "cells":  # vCPUs per cell of VM 0
    print(" ".join(str(len(cpus(c["vcpus"]))) for c in vms[0]["cells"]))
elif key == "nodes":  # host nodes of each VM
    print(" ".join(vm["nodes"] for vm in vms))
elif key == "memory-proportional":  # cell memory / memory == cell vCPUs / vCPUs
    nv = sum(len(cpus(c["vcpus"])) for c in vms[0]["cells"])
    tot = sum(c["memory"] for c in vms[0]["cells"])
    print("yes" if all(abs(c["memory"] * nv - tot * len(cpus(c["vcpus"]))) <= 1024 * nv
                       for c in vms[0]["cells"]) else "no")
elif key == "pins":  # distinct pin sets of VM 0
    print(len(set(vms[0]["vcpupin"])))
elif key in ("loads", "spread"):
    load = {}
    for vm in vms:
        for pin in vm["vcpupin"]:
            for c in cpus(pin):
                load[c] = load.get(c, 0) + 1
    hk = set(cpus(p["housekeeping"]))
    # the pool: every PU outside housekeeping's cores (siblings 2k, 2k+1)
    busy = {c ^ 1 for c in hk} | hk
    ls = [load.get(c, 0) for c in range(384) if c not in busy]
    if key == "loads":
        print("max %d, %d shared, %d idle" % (max(ls), sum(l > 1 for l in ls),
                                              sum(l == 0 for l in ls)))
    else:
        print(max(ls) - min(ls))
elif key == "used":  # every pCPU any VM uses
    s = set()
    for vm in vms:
        s |= set(cpus(vm["cpus"]))
    print(",".join(str(c) for c in sorted(s)))
PY
}

# ---- 3: guest memory against the host nodes it is bound to -----------------

if plan "24G x 2 on 8 GiB nodes" "$NODES8G" "[vm]
vcpus = 4
topology = mirror
pinning = strict
memory = 24G
vms = 2"; then
	expect_eq "two 24 GiB guests on 8 GiB nodes are not runnable" "$(facts runnable)" no
	expect_grep "the refusal gives the node and its memory" "$T/out" \
		"not runnable: guest memory does not fit host node 0: it has 8GiB"
	expect_grep "the refusal gives what the guest cells need" "$T/out" \
		"need 48GiB (vm 0 cell 0 24GiB, vm 1 cell 0 24GiB); lower memory or vms"
fi
if plan "6G x 2 on 8 GiB nodes" "$NODES8G" "[vm]
vcpus = 4
topology = mirror
pinning = strict
memory = 6G
vms = 2"; then
	expect_eq "two 6 GiB guests on 8 GiB nodes run" "$(facts runnable)" yes
	expect_eq "two 6 GiB guests take one 8 GiB node each" "$(facts nodes)" "0 1"
fi
if plan "numa = off on 8 GiB nodes" "$NODES8G" "[vm]
vcpus = 4
topology = cores
pinning = strict
memory = 12G
numa = off"; then
	expect_eq "numa = off: 12 GiB bound to one 8 GiB node is not runnable" "$(facts runnable)" no
	expect_grep "numa = off: the refusal says why" "$T/out" \
		"guest memory does not fit host node 0: vm 0 binds 12GiB to it (numa = off)"
fi
if plan "hugepages = yes, 3 x 1G" "caps:$F/nocache-2s.caps.xml" "[vm]
vcpus = 2
pinning = strict
memory = 1G
hugepages = yes
vms = 3"; then
	expect_eq "hugepages = yes: 3 GiB of guests on a 2 GiB pool of huge pages is not runnable" \
		"$(facts runnable)" no
	expect_grep "hugepages = yes: the refusal names the huge page pool" "$T/out" \
		"it has 2GiB in its 2MiB huge page pool"
	expect_grep "hugepages = yes: the plan says free pages are unknown for capabilities XML" \
		"$T/out" "gives the huge page pools but not how much of them is free"
fi
if plan "hugepages = yes, 2 x 1G" "caps:$F/nocache-2s.caps.xml" "[vm]
vcpus = 2
pinning = strict
memory = 1G
hugepages = yes
vms = 2"; then
	expect_eq "hugepages = yes: 2 GiB of guests fit the 2 GiB pool" "$(facts runnable)" yes
	expect_eq "hugepages = yes: both guests on the node with the pool" "$(facts nodes)" "0 0"
fi
if plan "unknown node memory" "pack:2 l3:2(size=32MiB) core:4 pu:2" "[vm]
vcpus = 4
memory = 1T"; then
	expect_grep "node memory a host description does not give is said, not guessed" "$T/out" \
		"memory of host node 0 unknown (the host description gives none)"
	expect_eq "unknown node memory refuses nothing" "$(facts runnable)" yes
fi

# ---- 7: whole nodes for a VM that fills whole nodes ------------------------

if plan "64 vCPUs mirror on nodes of 32 PUs" "$NODES32" "[vm]
vcpus = 64
topology = mirror
pinning = strict"; then
	expect_eq "64 vCPUs mirror/strict on nodes of 32 PUs: 2 cells of 32" "$(facts cells)" "32 32"
fi
if plan "48 vCPUs mirror on 4 packages" "$PKGS32" "[vm]
vcpus = 48
topology = mirror
pinning = strict"; then
	expect_eq "48 vCPUs mirror/strict on a 4-node host take 2 nodes" "$(facts nodes)" "0-1"
fi
if plan "64 vCPUs cores on nodes of 32 PUs" "$NODES32" "[vm]
vcpus = 64
topology = cores
pinning = strict
memory = 8G"; then
	expect_eq "64 vCPUs on nodes of 32 PUs: 2 cells of 32" "$(facts cells)" "32 32"
	expect_grep "housekeeping goes to a node the VM does not use" "$T/out" "housekeeping 64-65"
	expect_grep "the plan says where housekeeping went and why" "$T/out" \
		"note: housekeeping on CPUs 64-65 (host node 2), a core of a host node no VM uses, not on the first core: on the first core the VM would take 3 host nodes and 1 package instead of 2 and 1"
fi
if plan "40 vCPUs over two nodes" "$NODES32" "[vm]
vcpus = 40
topology = cores
pinning = strict
memory = 10G"; then
	expect_eq "cells of 30 and 10 vCPUs" "$(facts cells)" "30 10"
	expect_eq "guest memory is split in proportion to each cell's vCPUs" \
		"$(facts memory-proportional)" yes
fi

# ---- 8: overcommit shares pCPUs only when the pool is full -----------------

# plan_oc VCPUS TOPOLOGY VMS: VMS x VCPUS overcommitted, pinning strict, on BIG
plan_oc() {
	plan "$3 x $1 $2 overcommitted" "$BIG" "[vm]
vcpus = $1
topology = $2
pinning = strict
vms = $3
overcommit = yes"
}

for topo in mirror lie; do
	if plan_oc 192 $topo 2; then
		expect_eq "2 x 192 vCPUs $topo on 382 free pCPUs share 2 pCPUs, none idle" \
			"$(facts loads)" "max 2, 2 shared, 0 idle"
	fi
done
if plan_oc 192 mirror 4; then
	expect_eq "4 x 192 vCPUs mirror: loads within one vCPU per pCPU" "$(facts spread)" 1
fi
# 380 vCPUs fit the 382 free pCPUs: no pCPU is shared even where mirror's
# shape (19 LLC groups of 5 cores) no longer fits the free ones, and the
# plan says which VM left its shape; 475 vCPUs fill the pool: every pCPU
# used, the loads within one vCPU per pCPU
for topo in mirror lie; do
	if plan_oc 95 $topo 4; then
		expect_eq "4 x 95 vCPUs $topo on 382 free pCPUs share none" "$(facts loads)" \
			"max 1, 0 shared, 2 idle"
		expect_grep "4 x 95 vCPUs $topo: the plan says which VM left its shape and why" \
			"$T/out" "note: overcommit: VM 3 is off $topo's shape (19 LLC groups of 5 cores of 1 threads): the free pCPUs no longer hold it but hold its vCPUs"
	fi
	if plan_oc 95 $topo 5; then
		expect_eq "5 x 95 vCPUs $topo fill the 382 free pCPUs within one vCPU per pCPU" \
			"$(facts loads)" "max 2, 93 shared, 0 idle"
	fi
done
if plan_oc 95 cores 4; then
	expect_eq "4 x 95 vCPUs cores on 382 free pCPUs share none" "$(facts loads)" \
		"max 1, 0 shared, 2 idle"
fi

# ---- 9: no cache information ------------------------------------------------

for src in "$F/nocache-2s.xml" "caps:$F/nocache-2s.caps.xml"; do
	if plan "mirror without caches ($src)" "$src" "[vm]
vcpus = 16
topology = mirror
pinning = strict
numa = off"; then
		# package 0 is CPUs 0-7 and 16-23, package 1 8-15 and 24-31
		expect_eq "mirror on a host without caches keeps to one package ($src)" \
			"$(facts used | python3 -c 'import sys; print(len({int(c) % 16 // 8 for c in sys.stdin.read().split(",")}))')" 1
		expect_grep "its LLC claims are stated against the package ($src)" "$T/out" \
			"claims llc: 0-15=true"
		expect_grep "the plan says what stands for the LLC ($src)" "$T/out" \
			"the host description gives no caches: its LLC groups are taken to be its packages"
	fi
done
# no caches but dies: the die stands in for the LLC (before the package)
if plan "mirror without caches, with dies" "pack:2 die:2 core:4 pu:2" "[vm]
vcpus = 16
topology = mirror
pinning = strict
numa = off"; then
	# dies are PUs 0-7, 8-15 (package 0) and 16-23, 24-31 (package 1)
	expect_eq "mirror on dies without caches keeps to one package" \
		"$(facts used | python3 -c 'import sys; print(len({int(c) // 16 for c in sys.stdin.read().split(",")}))')" 1
	expect_grep "... and tells the guest the package's two dies" "$T/out" "1 socket x 2 dies x 4 cores x 2 threads"
	expect_grep "its LLC claims are stated against the dies" "$T/out" "claims llc: 0-7=true, 8-15=true"
	expect_grep "the plan says the dies stand for the LLC" "$T/out" \
		"the host description gives no caches: its LLC groups are taken to be its dies"
fi
if plan "pinning llc without caches" "$F/nocache-2s.xml" "[vm]
vcpus = 16
topology = mirror
pinning = llc
numa = off"; then
	expect_eq "pinning llc without caches pins each vCPU to its package's pCPUs" \
		"$(facts pins)" 1
	expect_grep "pinning llc says what it fell back to" "$T/out" "pinning llc pins to them"
fi

# ---- 10: the SMT siblings of housekeeping CPUs -----------------------------

if plan "housekeeping = 0" "pack:1 l3:1(size=32MiB) core:4 pu:2" "[vm]
vcpus = 6
topology = cores
pinning = strict
housekeeping = 0"; then
	expect_eq "the SMT sibling of housekeeping CPU 0 gets no vCPU" "$(facts used)" "2,3,4,5,6,7"
	expect_grep "the plan says the sibling stays idle" "$T/out" \
		"housekeeping 0: its SMT sibling 1 stays idle"
fi
if plan "housekeeping = 0, siblings 16 apart" "$F/nocache-2s.xml" "[vm]
vcpus = 30
topology = cores
pinning = strict
housekeeping = 0"; then
	expect_eq "siblings 16 apart: CPU 16 gets no vCPU" \
		"$(facts used | tr ',' '\n' | grep -cx 16)" 0
fi
