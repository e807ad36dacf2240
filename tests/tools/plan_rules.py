#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent check of the placement planner (issue 27): the rules of
docs/placement.md recomputed from the host model and the plans, without
any of the planner's code.

    plan_rules.py check TOPO.json PLAN.json [PLAN.rc PLAN.err]... [--host NAME] [--quiet]
    plan_rules.py matrices TOPO.json OUTDIR [--grid ci|full]

`check` reads `vtbench topo --format json` of one host and any number of
`vtbench plan --format json` of matrices planned on it, checks every
configuration and the rules between configurations (overcommit = yes
plans whatever overcommit = no plans; lie plans whatever mirror plans),
and prints one line per violation ("HOST: LABEL: RULE: detail"), a count
per rule and a summary line; exit 1 when any rule is broken, 2 on bad
input.  Beside PLAN.json, PLAN.rc (vtbench's exit status) and PLAN.err
(its stderr) are read when they exist (naming them too is the same
plan): a failed matrix is a violation (a configuration that cannot run
is refused, not the matrix), and 124 is a plan stopped as hung.

`matrices` writes the matrices to plan on the host into OUTDIR (one per
setting that is no axis: vms, overcommit, hugepages, housekeeping) and
prints their paths; `--grid full` is the whole cross product, `ci` (the
default) a cover of it small enough for the test suite.

The host model helpers are here on purpose: a checker that imported the
planner's would agree with its bugs.
"""
import functools
import itertools
import json
import os
import re
import sys

GRAN_KIB = 1024
GRAN_HUGE = 2 << 20

# settings a matrix sets for every configuration, with vtbench's defaults
# (the plan's params leave defaults out)
DEFAULTS = {"hugepages": "no", "housekeeping": "auto", "numa": "auto", "overcommit": "no",
            "vms": "1", "locked": "no", "machine": "pc"}

# the explicit topologies every matrix defines: name -> (sockets, dies,
# cores, threads); each plans only its own vCPU count
EXPLICIT = {"smt4": (1, 1, 2, 2), "smt2": (1, 1, 1, 2)}


# ---- cpu lists ---------------------------------------------------------------

def cpus(text):
    """'0-3,8' -> [0, 1, 2, 3, 8]; None or '' -> []"""
    return list(_cpus(text or ""))


@functools.lru_cache(maxsize=65536)
def _cpus(text):
    out = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return tuple(out)


def cpulist(values):
    v = sorted(set(values))
    out, i = [], 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[j + 1] == v[j] + 1:
            j += 1
        out.append(str(v[i]) if i == j else "%d-%d" % (v[i], v[j]))
        i = j + 1
    return ",".join(out)


def size(n):
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, unit)
    return "%dB" % n


# ---- the host model ----------------------------------------------------------

class Host:
    """The host as `vtbench topo --format json` describes it: PUs by OS
    number with their group indexes, nodes by OS number."""

    def __init__(self, topo):
        self.pus = {p["os"]: p for p in topo["pus"]}
        self.nodes = {n["os"]: n for n in topo["nodes"]}
        self.node_os = {n["index"]: n["os"] for n in topo["nodes"]}
        self.has_llc = any(p.get("llc") is not None for p in topo["pus"])
        self.has_die = any(p.get("die") is not None for p in topo["pus"])
        self.core_pus = {}
        for p in topo["pus"]:
            if p.get("online") and p.get("core") is not None:
                self.core_pus.setdefault(p["core"], set()).add(p["os"])
        self.compact = topo.get("compact") or []
        # the lookups the checks make millions of times, once per CPU
        self._node = {c: self._node_of(c) for c in self.pus}
        self._core = {c: self._core_of(c) for c in self.pus}
        self._llc = {c: self._llc_of(c) for c in self.pus}
        self.usable_set = {c for c in self.pus if self.allowed(c) and self._node[c] is not None}
        # nodes outside the allowed node set (a cgroup's cpuset.mems): no
        # guest memory may be bound there
        self.denied = {n["os"] for n in topo["nodes"] if n.get("allowed") is False}

    def online(self, c):
        return c in self.pus and bool(self.pus[c].get("online"))

    def allowed(self, c):
        return self.online(c) and bool(self.pus[c].get("allowed"))

    def node(self, c):
        """OS number of the node of CPU c, None when it has none"""
        return self._node.get(c)

    def _node_of(self, c):
        p = self.pus.get(c)
        if p is None or p.get("node") is None:
            return None
        return self.node_os.get(p["node"])

    def usable(self, c):
        """what a guest or baseline may get: online, allowed, in a node"""
        return c in self.usable_set

    def core(self, c):
        """a PU without a core object is a core of its own"""
        return self._core.get(c) or ("pu", c)

    def _core_of(self, c):
        p = self.pus.get(c)
        if p is None or p.get("core") is None:
            return ("pu", c)
        return ("core", p["core"])

    def siblings(self, c):
        p = self.pus.get(c)
        if p is None or p.get("core") is None:
            return {c}
        return self.core_pus.get(p["core"], {c})

    def llc(self, c):
        """the LLC group: the LLC, else (no cache information) the die,
        else the package, else the whole host"""
        return self._llc.get(c) or ("pu", c)

    def _llc_of(self, c):
        p = self.pus.get(c) or {}
        if self.has_llc:
            return ("llc", p.get("llc")) if p.get("llc") is not None else ("pu", c)
        if self.has_die and p.get("die") is not None:
            return ("die", p["die"])
        if p.get("package") is not None:
            return ("package", p["package"])
        return ("host",)

    def capacity(self, node, hugepages):
        """bytes a guest may bind to the node, None when unknown"""
        n = self.nodes.get(node)
        if n is None:
            return None
        if hugepages:
            pages = n.get("hugepages_2m_free")
            if pages is None:
                pages = n.get("hugepages_2m")
            return None if pages is None else pages * GRAN_HUGE
        return n.get("normal")


# ---- the checker ---------------------------------------------------------------

class Checker:
    def __init__(self, host_name, host):
        self.name = host_name
        self.h = host
        self.violations = []
        self.counts = {}
        self.planned = self.refused = self.failed = self.baselines = 0
        self.vmcfgs = []  # (params, cfg) of every VM configuration

    def bad(self, label, rule, detail):
        self.violations.append((label, rule, detail))
        self.counts[rule] = self.counts.get(rule, 0) + 1

    # -- one plan file ---------------------------------------------------------

    def load(self, base):
        path = base + ".json"
        rc = 0
        if os.path.exists(base + ".rc"):
            with open(base + ".rc") as f:
                rc = int(f.read().strip() or "0")
        if rc != 0:
            err = []
            if os.path.exists(base + ".err"):
                with open(base + ".err") as f:
                    err = [x for x in f.read().strip().splitlines()
                           if not x.startswith("timing: ")]
            self.failed += 1
            if rc == 124:
                self.bad(os.path.basename(base), "plan-hung",
                         " ".join(err) or "vtbench plan was stopped as hung")
            else:
                self.bad(os.path.basename(base), "plan-exit",
                         "vtbench plan exited %d on the whole matrix: %s"
                         % (rc, err[0] if err else "(no message)"))
            return
        with open(path) as f:
            plan = json.load(f)
        matrix = os.path.basename(base)
        for cfg in plan["configurations"]:
            cfg["label"] = "%s: %s" % (matrix, cfg["label"])
            if cfg["kind"] == "baseline":
                self.baselines += 1
                self.baseline(cfg)
                continue
            params = dict(DEFAULTS)
            params.update(cfg["params"])
            self.vmcfgs.append((params, cfg))
            if cfg["plan"] is None:
                self.refused += 1
                if cfg["runnable"]:
                    self.bad(cfg["label"], "verdict", "runnable without a plan")
                continue
            self.planned += 1
            self.vm(params, cfg)

    def baseline(self, cfg):
        label = cfg["label"]
        cs = cpus(cfg["cpus"])
        for c in cs:
            if not self.h.allowed(c):
                self.bad(label, "baseline-pcpu", "CPU %d is not online and allowed" % c)
            elif self.h.node(c) is None:
                self.bad(label, "baseline-pcpu", "CPU %d is in no NUMA node" % c)
        nodes = {self.h.node(c) for c in cs} - {None}
        if cs and cpus(cfg["mems"]) != sorted(nodes):
            self.bad(label, "baseline-pcpu", "mems '%s', its CPUs' nodes are '%s'"
                     % (cfg["mems"], cpulist(nodes)))

    # -- one VM configuration --------------------------------------------------

    def vm(self, params, cfg):
        h, label, plan = self.h, cfg["label"], cfg["plan"]
        n = int(params["vcpus"])
        memory = int(params["memory"])
        pinning = params["pinning"]
        oc = params["overcommit"] == "yes"
        hp = params["hugepages"] == "yes"
        vms = plan["vms"]
        if cfg["runnable"] and cfg.get("why_not"):
            self.bad(label, "verdict", "runnable with a reason not to run")
        if not cfg["runnable"] and not cfg.get("why_not"):
            self.bad(label, "verdict", "not runnable without a reason")
        if len(vms) != int(params["vms"]):
            self.bad(label, "vm-count", "%d VMs planned, %s asked" % (len(vms), params["vms"]))

        hk = set(cpus(plan.get("housekeeping") if plan.get("housekeeping") != "none" else ""))
        hk_sib = set()
        for c in hk:
            hk_sib |= h.siblings(c)
        hk_sib -= hk

        # pins[v][i]: the pCPU set vCPU i of VM v may run on (None: floating)
        pins, vmcpus = [], []
        for v, m in enumerate(vms):
            mc = cpus(m["cpus"])
            vmcpus.append(set(mc))
            tag = "vm %d" % v
            for c in mc:
                if not h.allowed(c):
                    self.bad(label, "pcpu-unusable", "%s: pCPU %d is not an online CPU the host allows"
                             % (tag, c))
                elif h.node(c) is None:
                    self.bad(label, "pcpu-nodeless", "%s: pCPU %d is in no NUMA node" % (tag, c))
                if c in hk:
                    self.bad(label, "pcpu-housekeeping", "%s: pCPU %d is a housekeeping CPU"
                             % (tag, c))
                elif c in hk_sib:
                    self.bad(label, "pcpu-housekeeping",
                             "%s: pCPU %d is an SMT sibling of housekeeping CPU(s) %s"
                             % (tag, c, cpulist(hk)))
            if len(mc) != n and not (oc and pinning == "none" and len(mc) < n):
                self.bad(label, "vcpu-count", "%s: %d vCPUs on %d pCPUs" % (tag, n, len(mc)))
            pins.append(self.vcpupin(label, tag, m, n, set(mc), pinning))
            nodes = {h.node(c) for c in mc} - {None}
            if cpus(m.get("nodes")) != sorted(nodes):
                self.bad(label, "vm-nodes", "%s: nodes '%s', its pCPUs are on nodes '%s'"
                         % (tag, m.get("nodes"), cpulist(nodes)))

        if not oc:
            for a, b in itertools.combinations(range(len(vms)), 2):
                both = vmcpus[a] & vmcpus[b]
                if both:
                    self.bad(label, "shared-pcpu", "vms %d and %d share pCPUs %s without overcommit"
                             % (a, b, cpulist(both)))
                    continue
                ca = {h.core(c) for c in vmcpus[a]}
                cb = {h.core(c) for c in vmcpus[b]}
                if ca & cb:
                    shared = sorted(c for c in vmcpus[a] | vmcpus[b] if h.core(c) in ca & cb)
                    self.bad(label, "shared-core", "vms %d and %d share the cores of pCPUs %s "
                             "without overcommit" % (a, b, cpulist(shared)))

        self.topology(label, params, plan, n)
        surely, maybe = self.cells(label, params, plan, pins, vmcpus, n, memory, hp)
        mems = set(cpus(cfg.get("mems")))
        if mems & h.denied:
            self.bad(label, "mems", "config mems '%s' holds node(s) %s, outside the allowed "
                     "node set" % (cfg.get("mems"), cpulist(mems & h.denied)))
        if not mems:
            self.bad(label, "mems", "config mems is empty")
        elif not surely <= mems <= maybe:
            self.bad(label, "mems", "config mems '%s', the cells are bound to nodes '%s'%s"
                     % (cfg.get("mems"), cpulist(surely),
                        "" if surely == maybe else " (and may be to '%s')" % cpulist(maybe)))
        self.memory(label, cfg, plan, pins, vmcpus, hp, pinning)
        self.claims(label, params, plan, pins, n)
        if oc:
            self.evenness(label, params, plan, pins, vmcpus, hk | hk_sib, n, memory, hp)

    def vcpupin(self, label, tag, m, n, mc, pinning):
        h = self.h
        pin = m.get("vcpupin") or []
        if len(pin) != n:
            self.bad(label, "vcpupin", "%s: %d vcpupin entries for %d vCPUs" % (tag, len(pin), n))
            return [None] * n
        out = []
        group = {"core": h.core, "llc": h.llc, "node": h.node}.get(pinning)
        members = {}
        if group:
            for c in mc:
                members.setdefault(group(c), set()).add(c)
        for i, e in enumerate(pin):
            if pinning == "none":
                if e is not None:
                    self.bad(label, "vcpupin", "%s: vCPU %d pinned to '%s' with pinning none"
                             % (tag, i, e))
                out.append(None)
                continue
            s = set(cpus(e))
            out.append(s)
            if not s:
                self.bad(label, "vcpupin", "%s: vCPU %d pinned to nothing" % (tag, i))
                continue
            if not s <= mc:
                self.bad(label, "vcpupin", "%s: vCPU %d pinned to %s, outside the VM's pCPUs %s"
                         % (tag, i, e, cpulist(mc)))
            if pinning == "strict" and len(s) != 1:
                self.bad(label, "vcpupin", "%s: vCPU %d pinned strictly to %d pCPUs (%s)"
                         % (tag, i, len(s), e))
            if group and not (pinning == "node" and None in {h.node(c) for c in s}):
                gs = {group(c) for c in s}
                if len(gs) != 1:
                    self.bad(label, "vcpupin", "%s: vCPU %d pinned (%s) to %s: more than one %s"
                             % (tag, i, pinning, e, pinning))
                elif s != members.get(next(iter(gs))):
                    self.bad(label, "vcpupin", "%s: vCPU %d pinned (%s) to %s, not to all the VM's "
                             "pCPUs of that %s" % (tag, i, pinning, e, pinning))
        if pinning == "strict" and len(mc) == n and all(len(s) == 1 for s in out):
            used = [next(iter(s)) for s in out]
            if len(set(used)) != len(used) or set(used) != mc:
                self.bad(label, "vcpupin", "%s: strict pins %s are not one pCPU each of %s"
                         % (tag, ",".join(m["vcpupin"]), cpulist(mc)))
        return out

    def topology(self, label, params, plan, n):
        t = plan.get("topology") or {}
        shape = (t.get("sockets", 0), t.get("dies", 0), t.get("cores", 0), t.get("threads", 0))
        if shape[0] * shape[1] * shape[2] * shape[3] != n:
            self.bad(label, "topology", "%d sockets x %d dies x %d cores x %d threads is not %d "
                     "vCPUs" % (shape + (n,)))
        name = params["topology"]
        want = {"flat": (n, 1, 1, 1), "cores": (1, 1, n, 1)}.get(name, EXPLICIT.get(name))
        if want and shape != want:
            self.bad(label, "topology", "%s told %s, not %s" % (name, shape, want))

    def cell_pcpus(self, pins, vmcpus, v, vc, pinning, assigned=None):
        """(pCPUs, exact): the pCPUs the cell's vCPUs run on: each
        vCPU's pCPU in the assignment where the plan says it (pcpus),
        else exact where each vCPU's pin set lies in one node (strict,
        core, node pinning); else (llc, none) a superset: the pin sets
        or the VM's pCPUs."""
        if assigned is not None and all(i < len(assigned) for i in vc):
            return {assigned[i] for i in vc}, True
        out = set()
        for i in vc:
            if i >= len(pins[v]) or pins[v][i] is None:
                return set(vmcpus[v]), False
            out |= pins[v][i]
        return out, pinning in ("strict", "core", "node")

    def assigned(self, label, tag, m, vmcpus, pins, n):
        """the plan's vCPU -> pCPU assignment (pcpus), checked against
        the VM's pCPUs and each vCPU's pins; None when it has none"""
        a = m.get("pcpus")
        if a is None:
            return None
        if len(a) != n or set(a) != vmcpus:
            self.bad(label, "pcpus", "%s: pcpus %s are not one entry per vCPU over the VM's "
                     "pCPUs %s" % (tag, a, cpulist(vmcpus)))
            return None
        for i, c in enumerate(a):
            if pins[i] is not None and c not in pins[i]:
                self.bad(label, "pcpus", "%s: vCPU %d on pCPU %d, outside its pins %s"
                         % (tag, i, c, cpulist(pins[i])))
        return a

    def cells(self, label, params, plan, pins, vmcpus, n, memory, hp):
        """cells partition the vCPUs, split the memory in proportion and
        are on the node their vCPUs are; returns the nodes memory is
        surely bound to and those it may be bound to"""
        h = self.h
        surely, maybe = set(), set()
        gran = GRAN_HUGE if hp else GRAN_KIB
        for v, m in enumerate(plan["vms"]):
            tag = "vm %d" % v
            seen = []
            total = 0
            for k, cell in enumerate(m["cells"]):
                vc = cpus(cell["vcpus"])
                seen += vc
                total += cell["memory"]
                share = memory * len(vc) / n
                if abs(cell["memory"] - share) >= gran:
                    self.bad(label, "cells", "%s cell %d: %s for %d of %d vCPUs, not in proportion "
                             "(%.0f bytes)" % (tag, k, size(cell["memory"]), len(vc), n, share))
                if cell["memory"] % gran:
                    self.bad(label, "cells", "%s cell %d: %d bytes is not a multiple of %s"
                             % (tag, k, cell["memory"], size(gran)))
                where, exact = self.cell_pcpus(pins, vmcpus, v, vc, params["pinning"],
                                               self.assigned(label, tag, m, vmcpus[v], pins[v], n))
                hn = cell["host_node"]
                nodes = {h.node(c) for c in where}
                real = nodes - {None}
                if hn == -1:
                    if len(real) < 2:
                        self.bad(label, "host-node", "%s cell %d: host node -1 (several) but its "
                                 "vCPUs' pCPUs %s are on %s" % (tag, k, cpulist(where),
                                 "node %d and no node" % min(real) if real else "no node"))
                    maybe |= real
                    if exact:
                        surely |= real
                elif exact and nodes != {hn}:
                    self.bad(label, "host-node", "%s cell %d: host node %d, its vCPUs' pCPUs %s "
                             "are on nodes %s" % (tag, k, hn, cpulist(where),
                                                  sorted(nodes, key=str)))
                elif not exact and hn not in real:
                    self.bad(label, "host-node", "%s cell %d: host node %d, none of the pCPUs its "
                             "vCPUs may run on (%s) is there" % (tag, k, hn, cpulist(where)))
                if hn != -1:
                    surely.add(hn)
                    maybe.add(hn)
            if sorted(seen) != list(range(n)):
                self.bad(label, "cells", "%s: cells' vCPUs %s do not partition 0-%d"
                         % (tag, cpulist(seen), n - 1))
            if total != memory:
                self.bad(label, "cells", "%s: cells hold %s, the guest has %s"
                         % (tag, size(total), size(memory)))
        return surely, maybe

    def binding(self, plan, pins, vmcpus, pinning):
        """([(nodes, bytes)], exact): each cell's memory and the nodes it
        is bound to (a superset where the plan does not say exactly)"""
        out, exact = [], True
        for v, m in enumerate(plan["vms"]):
            for cell in m["cells"]:
                if cell["host_node"] != -1:
                    out.append(({cell["host_node"]}, cell["memory"]))
                    continue
                where, ex = self.cell_pcpus(pins, vmcpus, v, cpus(cell["vcpus"]), pinning,
                                            m.get("pcpus"))
                exact = exact and ex
                out.append(({self.h.node(c) for c in where} - {None}, cell["memory"]))
        return out, exact

    def fits(self, binding, hp):
        """(True | False | None, why): None when a node's memory is
        unknown.  Cells bound to several nodes may take their memory from
        any of them: they fit when every set of them fits what their nodes
        have left beside the single-node cells (Hall's condition, exact)."""
        used, groups, unbound = {}, {}, 0
        for nodes, b in binding:
            if not nodes:  # bound nowhere (reported elsewhere): any node's
                nodes = set(self.h.nodes)
                unbound += b
                if not nodes:
                    return None, "unknown"
            if len(nodes) == 1:
                nd = next(iter(nodes))
                used[nd] = used.get(nd, 0) + b
            else:
                groups[frozenset(nodes)] = groups.get(frozenset(nodes), 0) + b
        allnodes = set(used).union(*groups) if groups else set(used)
        caps = {nd: self.h.capacity(nd, hp) for nd in allnodes}
        if any(c is None for c in caps.values()):
            return None, "unknown"
        what = "2MiB huge pages" if hp else "normal memory"
        if unbound:
            what += "; %s of the cells bound to no node count against every node" % size(unbound)
        for nd, b in sorted(used.items()):
            if b > caps[nd]:
                return False, "host node %d: cells of %s bound to it, %s of %s" % (
                    nd, size(b), size(caps[nd]), what)
        left = {nd: caps[nd] - used.get(nd, 0) for nd in allnodes}
        gs = list(groups.items())
        if len(gs) > 12:  # too many subsets: all of them together only
            subsets = [gs]
        else:
            subsets = (c for k in range(1, len(gs) + 1) for c in itertools.combinations(gs, k))
        for sub in subsets:
            nodes = set().union(*(g for g, _ in sub))
            need = sum(b for _, b in sub)
            have = sum(left[nd] for nd in nodes)
            if need > have:
                return False, "host nodes %s: cells of %s spanning them, %s of %s left" % (
                    cpulist(nodes), size(need), size(have), what)
        return True, ""

    def memory(self, label, cfg, plan, pins, vmcpus, hp, pinning):
        binding, exact = self.binding(plan, pins, vmcpus, pinning)
        ok, why_not = self.fits(binding, hp)
        if cfg["runnable"] and ok is False:
            self.bad(label, "memory-fit", "runnable, but the guest cells overflow %s" % why_not)
        why = cfg.get("why_not") or ""
        if not cfg["runnable"] and exact and ok is True and "memory" in why and "does not fit" in why:
            self.bad(label, "memory-refusal", "refused for memory, yet the planned cells fit "
                     "their nodes: %s" % why[:160])

    def claims(self, label, params, plan, pins, n):
        h = self.h
        pinning, topo = params["pinning"], params["topology"]
        t = plan.get("topology") or {}
        threads, per_die = t.get("threads", 1), t.get("cores", 1) * t.get("threads", 1)
        notes = {}
        for v, m in enumerate(plan["vms"]):
            notes[v] = " ".join(m.get("notes") or [])
        by_vm = {}
        for cl in plan.get("claims") or []:
            v, kind, state = cl["vm"], cl["kind"], cl["state"]
            vc = cpus(cl["vcpus"])
            by_vm.setdefault(v, {}).setdefault(kind, []).append(tuple(vc))
            if v >= len(pins) or any(i >= n for i in vc):
                self.bad(label, "claims", "claim %s %s of vm %d names vCPUs outside the VM"
                         % (kind, cl["vcpus"], v))
                continue
            what = "vm %d %s claim %s" % (v, kind, cl["vcpus"])
            backed = pinning == "strict" or (pinning == "core" and kind == "smt")
            if not backed:
                if state != "unbacked":
                    self.bad(label, "claims", "%s is %s under pinning %s: only strict (and core, "
                             "for SMT) back claims" % (what, state, pinning))
                continue
            if state not in ("true", "false"):
                self.bad(label, "claims", "%s is %s under pinning %s, which backs it"
                         % (what, state, pinning))
                continue
            where = set()
            for i in vc:
                where |= pins[v][i] or set()
            if kind == "smt":
                truth = len({h.core(c) for c in where}) == 1
            elif kind == "llc":
                truth = len({h.llc(c) for c in where}) == 1
            else:
                nodes = {h.node(c) for c in where}
                truth = len(nodes) == 1 and None not in nodes
                if truth:
                    nd = next(iter(nodes))
                    cells = [c for c in plan["vms"][v]["cells"]
                             if set(cpus(c["vcpus"])) & set(vc)]
                    truth = all(c["host_node"] == nd for c in cells)
            if truth != (state == "true"):
                self.bad(label, "claims", "%s is %s, the placement makes it %s (pCPUs %s)"
                         % (what, state, "true" if truth else "false", cpulist(where)))
            if topo == "mirror" and pinning == "strict" and state != "true" and \
                    not (kind != "node" and "off mirror's shape" in notes[v]):
                self.bad(label, "mirror-claims", "%s is %s: mirror + strict makes every claim "
                         "true" % (what, state))
            if topo == "lie" and pinning == "strict" and kind != "node" and state == "true" and \
                    "still true" not in notes[v]:
                self.bad(label, "lie-claims", "%s is true and no note of the VM says so" % what)
        # every relationship the guest sees is claimed: SMT pairs (virtual
        # cores), LLC groups (virtual dies), nodes (cells)
        for v, m in enumerate(plan["vms"]):
            got = by_vm.get(v, {})
            want = {"node": sorted(tuple(cpus(c["vcpus"])) for c in m["cells"])}
            if threads > 1:
                want["smt"] = [tuple(range(i, i + threads)) for i in range(0, n, threads)]
            if per_die > 1:
                want["llc"] = [tuple(range(i, i + per_die)) for i in range(0, n, per_die)]
            for kind in ("smt", "llc", "node"):
                if sorted(got.get(kind, [])) != sorted(want.get(kind, [])):
                    self.bad(label, "claims-cover", "vm %d: %s claims on vCPUs %s, the guest sees %s"
                             % (v, kind, [cpulist(x) for x in sorted(got.get(kind, []))],
                                [cpulist(x) for x in want.get(kind, [])]))

    def evenness(self, label, params, plan, pins, vmcpus, kept, n, memory, hp):
        """overcommit: the loads over the pool differ by one vCPU at most,
        unless memory keeps VMs off nodes (a plan note, checked)"""
        h = self.h
        pool = h.usable_set - kept
        if not pool:
            return
        load = {c: 0.0 for c in pool}
        for v in range(len(plan["vms"])):
            if params["pinning"] == "strict" and all(p is not None and len(p) == 1 for p in pins[v]):
                for p in pins[v]:
                    c = next(iter(p))
                    if c in load:
                        load[c] += 1
            elif vmcpus[v]:
                for c in vmcpus[v]:
                    if c in load:
                        load[c] += n / len(vmcpus[v])
        hi, lo = max(load.values()), min(load.values())
        if hi - lo <= 1 + 1e-9:
            return
        note = next((x for x in plan.get("notes") or []
                     if "do not spread evenly" in x and "memory" in x), None)
        shape = "pCPUs %s hold %g vCPUs, %s hold %g" % (
            cpulist(c for c in pool if load[c] == hi), hi,
            cpulist(c for c in pool if load[c] == lo), lo)
        if note is None:
            self.bad(label, "overcommit-even", "%s (max - min > 1) and no plan note says why" % shape)
            return
        # the note blames memory: a least loaded pCPU's node must have no
        # room for one more vCPU's share of any VM (unknown: cannot decide)
        used = {}
        for nodes, b in self.binding(plan, pins, vmcpus, params["pinning"])[0]:
            for nd in nodes:
                used[nd] = used.get(nd, 0) + b / len(nodes)
        share = memory / n
        for nd in sorted({h.node(c) for c in pool if load[c] == lo}):
            cap = h.capacity(nd, hp)
            if cap is None:
                continue
            if cap - used.get(nd, 0) >= share:
                self.bad(label, "overcommit-even", "%s; the note blames memory, but host node %d "
                         "has %s left, room for a vCPU's share (%s) of a VM"
                         % (shape, nd, size(int(cap - used.get(nd, 0))), size(int(share))))
                return

    # -- between configurations ------------------------------------------------

    def cross(self):
        def key(params, drop):
            return tuple(sorted((k, v) for k, v in params.items() if k != drop))

        by_oc, by_topo = {}, {}
        for params, cfg in self.vmcfgs:
            by_oc[key(params, "overcommit") + (("overcommit", params["overcommit"]),)] = cfg
            by_topo[key(params, "topology") + (("topology", params["topology"]),)] = cfg
        for params, cfg in self.vmcfgs:
            if params["overcommit"] == "no" and cfg["plan"] is not None:
                other = by_oc.get(key(params, "overcommit") + (("overcommit", "yes"),))
                if other is not None and other["plan"] is None:
                    self.bad(other["label"], "overcommit-monotone",
                             "refused (%s) although overcommit = no plans it"
                             % (other.get("why_not") or "")[:200])
                elif other is not None and cfg["runnable"] and not other["runnable"]:
                    self.bad(other["label"], "overcommit-monotone",
                             "not runnable (%s) although overcommit = no runs it"
                             % (other.get("why_not") or "")[:200])
            if params["topology"] == "mirror" and cfg["plan"] is not None:
                other = by_topo.get(key(params, "topology") + (("topology", "lie"),))
                if other is None:
                    continue
                if other["plan"] is None:
                    self.bad(other["label"], "lie-vs-mirror",
                             "refused (%s) although mirror plans it"
                             % (other.get("why_not") or "")[:200])
                    continue
                if cfg["runnable"] and not other["runnable"]:
                    self.bad(other["label"], "lie-vs-mirror",
                             "not runnable (%s) although mirror runs it"
                             % (other.get("why_not") or "")[:200])
                mt, lt = cfg["plan"]["topology"], other["plan"]["topology"]
                if mt != lt:
                    self.bad(other["label"], "lie-vs-mirror", "lie tells %s, mirror %s" % (lt, mt))
                # a VM off its shape (overcommit) takes cells where its
                # pCPUs are: only VMs on their shape in both compare
                for v, (mm, lm) in enumerate(zip(cfg["plan"]["vms"], other["plan"]["vms"])):
                    if any("is off" in x for x in (mm.get("notes") or []) + (lm.get("notes") or [])):
                        continue
                    mc = [c["vcpus"] for c in mm["cells"]]
                    lc = [c["vcpus"] for c in lm["cells"]]
                    if mc != lc:
                        self.bad(other["label"], "lie-vs-mirror", "vm %d: lie's cells %s, mirror's "
                                 "%s" % (v, lc, mc))

    def report(self, quiet=False):
        for label, rule, detail in self.violations:
            if not quiet:
                print("%s: %s: %s: %s" % (self.name, label, rule, detail))
        for rule in sorted(self.counts):
            print("%s: rule %s: %d" % (self.name, rule, self.counts[rule]))
        print("%s: %d VM configurations (%d planned, %d refused), %d baselines, %d matrices "
              "failed, %d violations" % (self.name, self.planned + self.refused, self.planned,
                                         self.refused, self.baselines, self.failed,
                                         len(self.violations)))


# ---- the matrices --------------------------------------------------------------

AXES = """\
[vm]
vcpus    = 1, 2, 4, 8, 16, 31, $host_cpus
topology = flat, cores, mirror, lie, smt4, smt2
pinning  = strict, core, llc, node, none
memory   = 1G, 24G, 200G
"""


def matrix_text(host, vms, oc, hp, hk):
    only = ["baseline *"]
    for t in ("flat", "cores", "mirror", "lie"):
        only.append("vm vcpus=* topology=%s *" % t)
    for name, shape in EXPLICIT.items():
        only.append("vm vcpus=%d topology=%s *" % (shape[0] * shape[1] * shape[2] * shape[3], name))
    out = ["; written by tests/tools/plan_rules.py matrices",
           "[global]", "reps = 1", "housekeeping = %s" % hk, "only = %s" % ", ".join(only),
           "[baseline]", "cpus = 1, 50%, $host_cpus", "vm = no", AXES.rstrip(),
           "vms = %d" % vms, "overcommit = %s" % oc, "hugepages = %s" % hp]
    for name, (s, d, c, t) in EXPLICIT.items():
        out += ["[topology %s]" % name, "sockets = %d" % s, "dies = %d" % d, "cores = %d" % c,
                "threads = %d" % t]
    out += ["[workload s]", "type = membw", "size = 1M"]
    return "\n".join(out) + "\n"


def grid(host, full):
    """(vms, hugepages, housekeeping) settings, each planned with
    overcommit no and yes (the pairs the cross rules compare)"""
    first = next((c for c in sorted(host.pus) if host.allowed(c)), 0)
    hks = ["auto", "none", str(first)]
    if full:
        return [(v, hp, hk) for v in (1, 2, 4) for hp in ("no", "yes") for hk in hks]
    # every vms with auto housekeeping (auto falls back to none where the
    # request needs every CPU: overcommit = yes must then plan too); 2 VMs
    # without housekeeping (lie and the loads on a full pool); huge pages
    # with housekeeping on the first CPU (its sibling idle; a 1-core host
    # left without a CPU for guests)
    return [(1, "no", "auto"), (2, "no", "auto"), (4, "no", "auto"),
            (2, "no", "none"), (1, "yes", hks[2])]


def matrices(topo_path, outdir, full):
    with open(topo_path) as f:
        host = Host(json.load(f))
    os.makedirs(outdir, exist_ok=True)
    for vms, hp, hk in grid(host, full):
        for oc in ("no", "yes"):
            name = "vms%d-oc%s-hp%s-hk%s.conf" % (vms, oc, hp, re.sub(r"[^0-9a-z]", "_", hk))
            path = os.path.join(outdir, name)
            with open(path, "w") as f:
                f.write(matrix_text(host, vms, oc, hp, hk))
            print(path)


def main(argv):
    if len(argv) >= 3 and argv[1] == "matrices":
        g = "ci"
        if "--grid" in argv:
            g = argv[argv.index("--grid") + 1]
        if g not in ("ci", "full"):
            print("plan_rules.py: --grid ci or full", file=sys.stderr)
            return 2
        matrices(argv[2], argv[3], g == "full")
        return 0
    if len(argv) >= 3 and argv[1] == "check":
        args = argv[2:]
        host_name, quiet = None, False
        if "--host" in args:
            i = args.index("--host")
            host_name = args[i + 1]
            del args[i:i + 2]
        if "--quiet" in args:
            args.remove("--quiet")
            quiet = True
        try:
            with open(args[0]) as f:
                topo = json.load(f)
        except (OSError, ValueError) as e:
            print("plan_rules.py: cannot read host '%s': %s" % (args[0], e), file=sys.stderr)
            return 2
        ck = Checker(host_name or topo.get("source") or args[0], Host(topo))
        bases = []
        for p in args[1:]:  # PLAN.json, PLAN.rc, PLAN.err: one plan
            b = re.sub(r"\.(json|rc|err)$", "", p)
            if b not in bases:
                bases.append(b)
        for p in bases:
            try:
                ck.load(p)
            except (OSError, ValueError, KeyError) as e:
                print("plan_rules.py: cannot read plan '%s': %s" % (p, e), file=sys.stderr)
                return 2
        ck.cross()
        ck.report(quiet)
        return 1 if ck.violations else 0
    print("usage:\n" + "\n".join(__doc__.strip().splitlines()[4:6]), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
