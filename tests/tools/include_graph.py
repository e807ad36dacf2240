#!/usr/bin/env python3
"""The include graph of vtbench's sources (issue 18, docs/architecture.md
"What each part may include").

include_graph.py SRCDIR [--parts]

Reads every `#include "..."` under harness/, reports/, topologies/,
common/ and workloads/, resolved against the including file's folder, and
prints one line per check, "ok - ..." or "not ok - ...":
  - every quoted include names a file that exists;
  - the file graph has no circle;
  - the part graph (a part: harness/PART, reports, topologies, common,
    workloads) has no circle;
  - common/ includes only common/; workloads/ only workloads/ and common/;
  - nothing but harness/cli includes harness/cli;
  - nothing below the command layer includes reports/.
--parts prints the part graph's edges instead.
"""
import os
import re
import sys

ROOTS = ("harness", "reports", "topologies", "common", "workloads")
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def part_of(path):
    top = path.split("/")
    if top[0] == "harness" and len(top) > 2:
        return "harness/" + top[1]
    return top[0]


def main():
    src = sys.argv[1]
    files = []
    for root in ROOTS:
        for d, _, fs in os.walk(os.path.join(src, root)):
            files += [os.path.relpath(os.path.join(d, f), src) for f in fs if f.endswith((".c", ".h"))]
    files.sort()
    edges = {f: set() for f in files}
    missing = []
    for f in files:
        with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for inc in INC.findall(text):
            t = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if not os.path.exists(os.path.join(src, t)):
                missing.append("%s: %s" % (f, inc))
            elif t.split("/")[0] in ROOTS:
                edges[f].add(t)
    pedges = {}
    for f, ts in edges.items():
        for t in ts:
            a, b = part_of(f), part_of(t)
            if a != b:
                pedges.setdefault(a, set()).add(b)
    if "--parts" in sys.argv:
        for a in sorted(pedges):
            print("%s -> %s" % (a, " ".join(sorted(pedges[a]))))
        return 0

    def cycle(graph):
        state = {}
        stack = []

        def visit(n):
            state[n] = 1
            stack.append(n)
            for m in sorted(graph.get(n, ())):
                if state.get(m) == 1:
                    return stack[stack.index(m):] + [m]
                if m not in state:
                    c = visit(m)
                    if c:
                        return c
            stack.pop()
            state[n] = 2
            return None

        for n in sorted(graph):
            if n not in state:
                c = visit(n)
                if c:
                    return c
        return None

    bad = 0

    def check(ok, what, detail=""):
        nonlocal bad
        print(("ok - " if ok else "not ok - ") + what)
        if not ok:
            bad += 1
            if detail:
                print("# " + detail)

    check(not missing, "every quoted include names a file (%d files)" % len(files), "; ".join(missing[:5]))
    c = cycle(edges)
    check(c is None, "the file include graph has no circle", " -> ".join(c or []))
    c = cycle(pedges)
    check(c is None, "the part include graph has no circle", " -> ".join(c or []))
    wrong = sorted("%s -> %s" % (a, b) for a, bs in pedges.items() for b in bs
                   if (a == "common") or (a == "workloads" and b != "common"))
    check(not wrong, "common/ includes only common/, workloads/ only itself and common/", "; ".join(wrong))
    wrong = sorted(a for a, bs in pedges.items() if "harness/cli" in bs)
    check(not wrong, "only the command layer includes harness/cli", "; ".join(wrong))
    wrong = sorted(a for a, bs in pedges.items() if "reports" in bs and a != "harness/cli")
    check(not wrong, "only the command layer includes reports/", "; ".join(wrong))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
