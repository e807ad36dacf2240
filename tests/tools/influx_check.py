#!/usr/bin/env python3
# Checks for tests/e2e/upload_influx.sh, against a real InfluxDB 1.x.
#   influx_check.py counters URL             -> "pointsWrittenOK writeReq"
#   influx_check.py readback URL DB FILE.db  -> compares every point with the store
#   influx_check.py count URL DB             -> number of points in measurement vtbench
#   influx_check.py tags URL DB KEY          -> the distinct values of tag KEY, one a line
import json
import sqlite3
import sys
import urllib.parse
import urllib.request


def get(url, **params):
    with urllib.request.urlopen(url + "?" + urllib.parse.urlencode(params), timeout=10) as r:
        return json.load(r)


def query(base, db, q):
    res = get(base + "/query", db=db, q=q, epoch="ns")["results"][0]
    if "error" in res:
        sys.exit("query error: " + res["error"])
    out = []
    for s in res.get("series", []):
        for v in s["values"]:
            out.append(dict(zip(s["columns"], v)))
    return out


def counters(base):
    d = get(base + "/debug/vars")
    for k, v in d.items():
        if k.startswith("httpd"):
            return v["values"]["pointsWrittenOK"], v["values"]["writeReq"]
    sys.exit("no httpd counters")


def readback(base, db, path):
    con = sqlite3.connect(path)
    host = con.execute("select hostname from host join campaign on campaign.host_id = host.id").fetchone()[0]
    rows = con.execute(
        "select boot.uuid, boot.started_ns, boot.kind, cell.name, sample.metric, sample.unit,"
        " sample.value, config.params from sample join result on result.id = sample.result_id"
        " join boot on boot.id = result.boot_id join cell on cell.id = result.cell_id"
        " join config on config.id = boot.config_id where result.status = 'ok'"
        " and boot.status <> 'unexpected-topology'").fetchall()
    want = {}
    for uuid, ts, kind, cell, metric, unit, value, params in rows:
        p = json.loads(params)
        want[(uuid, cell, metric)] = {
            "time": ts, "host": host, "kind": kind, "workload": cell, "metric": metric,
            "unit": unit, "value": value, "vcpus": str(p.get("vcpus", p.get("cpus"))),
            "topology": p.get("topology", "none"), "pinning": p.get("pinning", "none"),
            "sched": p.get("sched", "none"), "accelerator": "none", "guest_kernel": "none",
        }
    got = query(base, db, "select * from vtbench where boot <> ''")
    errors = []
    seen = set()
    times = {}
    for g in got:
        key = (g["boot"], g["workload"], g["metric"])
        if key in seen:
            errors.append("twice: %s" % (key,))
        seen.add(key)
        w = want.get(key)
        if not w:
            errors.append("unexpected point %s" % g)
            continue
        for k, v in w.items():
            if g.get(k) != v:
                errors.append("%s: %s = %r, want %r" % (key, k, g.get(k), v))
        times.setdefault(g["time"], set()).add(g["boot"])
    for key in want:
        if key not in seen:
            errors.append("missing %s" % (key,))
    if any(len(b) > 1 for b in times.values()):
        errors.append("two boots share a timestamp")
    aggr = query(base, db, "select * from vtbench where campaign <> ''")
    groups = {}
    for (uuid, cell, metric), w in want.items():
        groups.setdefault((cell, metric), []).append(w["value"])
    for a in aggr:
        vals = groups.get((a["workload"], a["metric"]))
        if not vals or a["n"] != len(vals) or abs(a["value"] - sum(vals) / len(vals)) > 1e-9 * max(1, abs(a["value"])):
            errors.append("aggregate %s/%s: n=%s mean=%s, want %s" % (a["workload"], a["metric"], a["n"], a["value"], vals))
    if len(aggr) != len(groups):
        errors.append("%d aggregates, want %d" % (len(aggr), len(groups)))
    if errors:
        print("\n".join(errors[:20]))
        sys.exit(1)
    print("%d points, %d aggregates" % (len(got), len(aggr)))


def main():
    cmd, base = sys.argv[1], sys.argv[2]
    if cmd == "counters":
        print("%d %d" % counters(base))
    elif cmd == "readback":
        readback(base, sys.argv[3], sys.argv[4])
    elif cmd == "count":
        print(len(query(base, sys.argv[3], "select * from vtbench")))
    elif cmd == "tags":
        for r in query(base, sys.argv[3], 'show tag values with key = "%s"' % sys.argv[4]):
            print(r["value"])
    else:
        sys.exit("unknown command " + cmd)


main()
