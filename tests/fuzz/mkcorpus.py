#!/usr/bin/env python3
# Writes the committed seed corpus of the fuzz targets (tests/fuzz/corpus/
# TARGET/): small valid inputs, and the reproducers of issue 16 as
# regression inputs (regress-*).  Run from the source tree after a change
# to the record schema, the matrix format or the compare seed:
#   python3 tests/fuzz/mkcorpus.py
# A finding of `make fuzz` becomes a regression input by copying its
# reproducer (build/fuzz/findings/TARGET/crash-...) into corpus/TARGET/.
# Larger seeds are read from the tree directly (scripts/fuzz.sh passes
# examples/, tests/fixtures/matrix/ and tests/fixtures/topo/).
import json
import os
import re
import sqlite3
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
NONCE = "c0ffee"


def put(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def frame(j, nonce=NONCE):
    b = j.encode() if isinstance(j, str) else j
    return b"@vtb1 %s %s %08x\n" % (nonce.encode(), b, zlib.crc32(b) & 0xffffffff)


def rec(**o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=True)


HP = {"kind": "loglinear", "bits": 6, "unit": "us"}
HEADER = rec(type="header", schema=1, agent="fuzz")
CELL = rec(type="cell", cell="k1", workload="timer", params={})
END = rec(type="end", status="ok", cells=1)


def cell_end(status="ok", error=None):
    o = dict(type="cell_end", cell="k1", status=status, seconds=1.5, info={"a": 1})
    if error is not None:
        o["error"] = error
    return rec(**o)


streams = {
    "good": [HEADER, CELL,
             rec(type="sample", cell="k1", metric="triad", unit="MB/s", value=12.5, better="higher"),
             rec(type="hist", cell="k1", metric="lat", unit="us", params=HP, count=3, buckets=[[1, 2], [70, 1]]),
             rec(type="error", cell="k1", message="something odd"),
             cell_end(), END],
    "chunked": [HEADER,
                rec(type="chunk", id=1, seq=0, last=False, data=CELL[:20]),
                rec(type="chunk", id=1, seq=1, last=True, data=CELL[20:]),
                cell_end(), END],
    # issue 16: two buckets of INT64_MAX (the sums wrapped, negative counts)
    "regress-hist-overflow": [HEADER, CELL,
                              rec(type="hist", cell="k1", metric="lat", unit="us", params=HP,
                                  count=9223372036854775807,
                                  buckets=[[1, 9223372036854775807], [2, 9223372036854775807]]),
                              cell_end(), END],
    "regress-hist-repeated-index": [HEADER, CELL,
                                    rec(type="hist", cell="k1", metric="lat", unit="us", params=HP,
                                        count=4, buckets=[[1, 2], [1, 2]]),
                                    cell_end(), END],
    "regress-hist-count-mismatch": [HEADER, CELL,
                                    rec(type="hist", cell="k1", metric="lat", unit="us", params=HP,
                                        count=5, buckets=[[1, 2], [70, 1]]),
                                    cell_end(), END],
    # distinct errors for one cell (quadratic appending, unbounded text)
    "regress-error-flood": [HEADER, CELL] +
    [rec(type="error", cell="k1", message=chr(97 + i % 26) * 300 + str(i)) for i in range(40)] +
    [cell_end("failed", "and the end"), END],
    # a message cut at 4096 bytes inside a character
    "regress-cut-utf8": [HEADER, CELL, rec(type="error", cell="k1", message="x" * 4095 + "\u00e9\u00e9"),
                         cell_end("failed", "y" * 4095 + "\u20ac"), END],
    # terminal escapes from the guest
    "regress-escapes": [HEADER, CELL,
                        rec(type="error", cell="k1", message="\x1b]52;c;ZXZpbA==\x07clip\r\x1b[2K"),
                        rec(type="sample", cell="k1", metric="=HYPERLINK(\"http://x/\")", unit="+1",
                            value=1, better="higher"),
                        cell_end("failed", "\x1b[31mred\x07"), END],
    # issue 28: a cell's scheduler counters (levels, CPUs, notes)
    "schedstat": [HEADER, CELL,
                  rec(type="schedstat", cell="k1", seconds=2.0, version=15, user_hz=100,
                      levels=[{"level": "MC", "cpus": 2,
                               "lb": {t: {"count": 9, "balanced": 1, "failed": 2, "imbalance": 3,
                                          "gained": 4, "hot_gained": 0, "nobusyq": 0, "nobusyg": 1}
                                      for t in ("busy", "idle", "newidle")},
                               "alb": {"count": 1, "failed": 0, "pushed": 1},
                               "sbe": {"count": 0, "balanced": 0, "pushed": 0},
                               "sbf": {"count": 0, "balanced": 0, "pushed": 0},
                               "ttwu": {"remote": 5, "affine": 2, "balance": 0}}],
                      cpus=[{"cpu": 0, "yield": 0, "sched": 9, "goidle": 1, "ttwu": 7, "ttwu_local": 3,
                             "run_ns": 10, "wait_ns": 20, "slices": 3, "steal": 1}],
                      notes=["cpu 3 present before, not after: left out"], error=None, cost_ns=5),
                  cell_end(), END],
}

# a real guest's records (tests/fixtures/guestview/records), with our nonce
for name in sorted(os.listdir(os.path.join(SRC, "tests/fixtures/guestview/records"))):
    lines = []
    for line in open(os.path.join(SRC, "tests/fixtures/guestview/records", name), "rb"):
        m = re.match(rb"^@vtb1 \S+ (.*) [0-9a-f]{8}$", line.rstrip(b"\n"))
        if m:
            lines.append(m.group(1).decode())
    streams["guest-" + name.replace(".rec", "")] = lines

for name, lines in streams.items():
    raw = b"".join(frame(j) for j in lines)
    put("fuzz_recframe", name, "\n".join(lines) + "\n")
    put("fuzz_recparse", name, b"\x00" + raw)
    if name == "good":
        put("fuzz_recparse", "good-bytewise", b"\x02" + raw)
        put("fuzz_recparse", "good-tight-limits", b"\x81" + b"noise\r\n" + raw)
        # a wrong nonce of the same length (issue 16)
        put("fuzz_recparse", "regress-nonce-same-length",
            b"\x00" + frame(HEADER, "c0ffef") + raw)

# matrices: the reader's holes of issue 16
WL = b"[workload w]\ntype = debug\n"
mats = {
    "small": b"[global]\nreps = 2\n[baseline]\ncpus = 2\n[vm]\nvcpus = 2, 4\ntopology = flat, mirror\npinning = strict\n" + WL,
    "regress-surrogate": b"[global]\nname = a\xed\xb3\xbf\n" + WL,
    "regress-above-10ffff": b"[global]\nname = \xf4\x90\x80\x80\n" + WL,
    "regress-hex-float": b"[vm]\nmemory = 0x1p30\n" + WL,
    "regress-quoted-vtbench": b"[vm]\nsched = s\n[sched s]\ncmdline = quiet \"vtbench.nonce=00\"\n" + WL,
    "regress-unbalanced-quote": b"[vm]\nsched = s\n[sched s]\ncmdline = a=\"b c\n" + WL,
    "regress-duplicate-key": b"[sched s]\n" + b"".join(b"sysctl.kernel.k%d = 1\n" % i for i in range(50)) + b"sysctl.kernel.k7 = 2\n" + WL,
}
for name, text in mats.items():
    put("fuzz_matrix", name, text)

# host topologies: two tiny seeds (the fixtures are passed as a directory)
HWLOC_1PU = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'
    '<topology version="2.0">\n <object type="Machine" os_index="0" cpuset="0x00000001" '
    'complete_cpuset="0x00000001" allowed_cpuset="0x00000001" nodeset="0x00000001" '
    'complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">\n'
    '  <object type="Package" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" '
    'nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2">\n'
    '   <object type="Core" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" '
    'nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3">\n'
    '    <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" '
    'nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="4"/>\n'
    '   </object>\n  </object>\n  <object type="NUMANode" os_index="0" cpuset="0x00000001" '
    'complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" '
    'gp_index="5" local_memory="1073741824"/>\n </object>\n</topology>\n')
put("fuzz_hosttopo", "hwloc-1pu.xml", HWLOC_1PU)
# what fuzz_hosttopo found, each reduced to one change of the seed:
# no PU at all (qsort(NULL, 0) in topo.c), a NUMA node without
# complete_nodeset (hwloc 2.9 crashes), a PU without os_index (hwloc took
# 22 s and ran out of memory)
put("fuzz_hosttopo", "regress-no-pu.xml",
    "".join(l + "\n" for l in HWLOC_1PU.split("\n") if 'type="PU"' not in l and l))
put("fuzz_hosttopo", "regress-hwloc-crash-numa-without-complete-nodeset.xml",
    HWLOC_1PU.replace('complete_nodeset="0x00000001" gp_index="5"', 'gp_index="5"'))
put("fuzz_hosttopo", "regress-pu-without-os-index.xml",
    HWLOC_1PU.replace('type="PU" os_index="0" ', 'type="PU" '))
put("fuzz_hosttopo", "caps-1cpu.xml",
    "<capabilities><host><cpu><arch>x86_64</arch><model>EPYC</model><vendor>AMD</vendor>"
    "<topology sockets='1' dies='1' cores='1' threads='1'/></cpu><topology><cells num='1'>"
    "<cell id='0'><memory unit='KiB'>1048576</memory><distances><sibling id='0' value='10'/>"
    "</distances><cpus num='1'><cpu id='0' socket_id='0' die_id='0' core_id='0' siblings='0'/>"
    "</cpus></cell></cells></topology><cache><bank id='0' level='3' type='both' size='16' "
    "unit='MiB' cpus='0'/></cache></host></capabilities>\n")

# compare over a mutated database: mutations as fuzz_compare.c decodes them
db = sqlite3.connect(":memory:")
db.executescript(open(os.path.join(HERE, "compare-seed.sql")).read())
tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
cols = {t: [r[0] for r in db.execute("SELECT name, pk FROM pragma_table_info(?)", (t,))
            if not r[1] or t == "guest_view"] for t in tables}
OPS = {"null": 0, "text": 1, "int": 2, "real": 3, "delete": 4, "fragment": 5, "copy": 6,
       "long": 7}
FRAGMENT_HIST_OVERFLOW = 8  # index in fuzz_compare.c's fragments[]
FRAGMENT_NOT_JSON = 20  # "failed"


def op(table, kind, col, row, payload=b""):
    return bytes([tables.index(table), OPS[kind], cols[table].index(col), row]) + payload


def width(w):
    """The first two bytes of an input: text is rendered at w (1-400)."""
    return bytes([(w - 1) >> 8, (w - 1) & 0xff])


def long_text(piece, n):
    """The payload of a "long" op: piece repeated to n bytes (n a multiple of 8)."""
    return bytes([len(piece) - 1]) + (n // 8).to_bytes(2, "big") + piece


def compare_input(name, data, w=100):
    put("fuzz_compare", name, width(w) + data)


# 100 columns: what these inputs ran at before the width was an input
# (regress-hist-without-buckets, a finding, was given the same 2 bytes,
# and its op bytes of 7 and over their value modulo 7: "long" is op 7)
compare_input("none", b"")
compare_input("regress-null-sample-metric", op("sample", "null", "metric", 5))
compare_input("regress-null-cell-name", op("cell", "null", "name", 2))
compare_input("regress-null-host-hostname", op("host", "null", "hostname", 1))
compare_input("regress-unit-not-utf8", op("sample", "text", "unit", 3, b"\x02\xff\x41"))
compare_input("regress-label-surrogate", op("config", "text", "label", 1, b"\x03\xed\xa0\x80"))
compare_input("regress-value-text", op("sample", "text", "value", 7, b"\x03abc"))
compare_input("regress-params-not-json",
              op("histogram", "fragment", "params", 2, bytes([FRAGMENT_NOT_JSON])))
compare_input("regress-hist-overflow",
              b"".join(op("histogram", "fragment", "buckets", r, bytes([FRAGMENT_HIST_OVERFLOW]))
                       for r in range(1, 17)))
# issue 25: the old layout wrapped a width below zero and padded forever
# at 50 columns (c2c's one_way_mean_ns did not fit: a timeout); a unit of
# 104 characters on one boot's sample made its reason's line wider than
# the default width (the width check)
compare_input("regress-narrow-width", b"", 50)
compare_input("regress-long-unit", op("sample", "long", "unit", 3, long_text(b"unit", 104)))
# long names and labels at the narrowest widths: a unit of 2 KiB in one
# word, a label of 4 KiB with blanks, a host name of 1 KiB (the old
# layout: a timeout)
compare_input("long-fields-narrow",
              op("sample", "long", "unit", 3, long_text(b"u", 2048)) +
              op("config", "long", "label", 2, long_text(b"word ", 4096)) +
              op("host", "long", "hostname", 1, long_text(b"h\xc3\xa9", 1024)), 1)
compare_input("long-fields-wide",
              op("sample", "long", "metric", 3, long_text(b"m", 512)) +
              op("cell", "long", "name", 2, long_text(b"c \x1b", 1024)), 400)

# fuzz_schedstat: before/after pairs of tests/fixtures/schedstat/ split at
# a form feed (the single texts come from that directory: scripts/fuzz.sh)
SS = os.path.join(SRC, "tests", "fixtures", "schedstat")


def ss(name):
    with open(os.path.join(SS, name), "rb") as f:
        return f.read()


for pair in ("v15", "v16", "v17", "wrap", "hotplug", "reset"):
    put("fuzz_schedstat", "pair-" + pair, ss(pair + "-before") + b"\f" + ss(pair + "-after"))
