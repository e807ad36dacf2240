#!/usr/bin/env python3
# Checks for tests/e2e/upload_influx.sh, against a real InfluxDB 1.x.
#   influx_check.py counters URL             -> "pointsWrittenOK writeReq"
#   influx_check.py readback URL DB FILE.db VTBENCH
#       -> every per-boot point (measurement vtbench) against the store, the
#          aggregates (measurement vtbench_campaign) against vtbench compare
#   influx_check.py count URL DB             -> points in both measurements
#   influx_check.py tags URL DB KEY          -> the distinct values of tag KEY, one a line
#   influx_check.py select URL DB QUERY COL... -> the columns of each row, one row a line
import json
import sqlite3
import statistics
import subprocess
import sys
import urllib.parse
import urllib.request

from compare_mean import compare_mean, screened


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


def compare_series(vtbench, path):
    """compare's per-series summaries: {(config, cell, metric): summary}"""
    out = subprocess.run([vtbench, "compare", "--db", path, "--format", "json", "--fail-on", "none"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    try:
        doc = json.loads(out)
    except ValueError:
        return {}
    return {(s["config"], s["cell"], s["metric"]): s["summary"] for s in doc.get("series", [])}



def summary(values, metric, unit):
    """what compare computes, over the boots it keeps: the harmonic mean
    for rates, the geometric mean for latencies, else the mean; one boot
    has no stddev"""
    values = screened(metric, unit, values)
    return {"n": len(values), "min": min(values), "max": max(values),
            "median": statistics.median(values),
            "mean": compare_mean(metric, unit, values, screen=False),
            "stddev": statistics.stdev(values) if len(values) > 1 else None}


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def readback(base, db, path, vtbench):
    con = sqlite3.connect(path)
    host = con.execute("select hostname from host join campaign on campaign.host_id = host.id").fetchone()[0]
    rows = con.execute(
        "select boot.uuid, boot.started_ns, boot.kind, cell.name, sample.metric, sample.unit,"
        " sample.value, config.params, config.key, boot.accelerator, boot.guest_kernel"
        " from sample join result on result.id = sample.result_id"
        " join boot on boot.id = result.boot_id join cell on cell.id = result.cell_id"
        " join config on config.id = boot.config_id where result.status = 'ok'"
        " and boot.status <> 'unexpected-topology'").fetchall()
    want = {}
    for uuid, ts, kind, cell, metric, unit, value, params, config, accel, gk in rows:
        p = json.loads(params)
        vm = kind == "vm"
        # a tag that does not apply is absent (None), never "none"
        want[(uuid, cell, metric)] = {
            "time": ts, "host": host, "kind": kind, "workload": cell, "metric": metric,
            "unit": unit, "value": value, "vcpus": str(p.get("vcpus", p.get("cpus"))),
            "config": config,
            "topology": p.get("topology") if vm else None,
            "pinning": p.get("pinning") if vm else None,
            "sched": p.get("sched") if vm else None,
            "accelerator": accel if vm else None, "guest_kernel": gk if vm else None,
        }
    got = query(base, db, "select * from vtbench")
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
    # the aggregates: their own measurement, one per configuration, cell
    # and metric, equal to what compare shows (the mean is harmonic for
    # rates, geometric for latencies), checked against vtbench compare's series where it has them
    # and against the same statistics computed here
    groups = {}
    for (uuid, cell, metric), w in want.items():
        groups.setdefault((w["config"], cell, metric), (w["unit"], []))[1].append(w["value"])
    series = compare_series(vtbench, path)
    aggr = query(base, db, "select * from vtbench_campaign")
    n_compare = 0
    for a in aggr:
        key = (a["config"], a["workload"], a["metric"])
        if key not in groups:
            errors.append("aggregate of nothing: %s" % a)
            continue
        for source, s in (("here", summary(groups[key][1], key[2], groups[key][0])), ("compare", series.get(key))):
            if not s:
                continue
            n_compare += source == "compare"
            for f in ("mean", "median", "stddev", "min", "max"):
                if a.get(f) is None and s.get(f) is None:
                    continue  # one boot: no stddev on either side
                if a.get(f) is None or s.get(f) is None or not close(a[f], s[f]):
                    errors.append("aggregate %s: %s = %r, %s says %r" % (key, f, a[f], source, s[f]))
            if a["n"] != s["n"]:
                errors.append("aggregate %s: n = %s, %s says %s" % (key, a["n"], source, s["n"]))
        if a.get("boot") is not None or a.get("value") is not None:
            errors.append("aggregate %s: a per-boot field: %s" % (key, a))
    if len(aggr) != len(groups):
        errors.append("%d aggregates, want %d" % (len(aggr), len(groups)))
    if len({(a["config"], a["workload"], a["metric"]) for a in aggr}) != len(aggr):
        errors.append("two aggregates share a configuration, cell and metric")
    if series and n_compare != len(aggr):
        errors.append("%d aggregates, %d of them in compare's series" % (len(aggr), n_compare))
    if errors:
        print("\n".join(errors[:20]))
        sys.exit(1)
    print("%d points, %d aggregates (%d checked against compare)" % (len(got), len(aggr), n_compare))


def main():
    cmd, base = sys.argv[1], sys.argv[2]
    if cmd == "counters":
        print("%d %d" % counters(base))
    elif cmd == "readback":
        readback(base, sys.argv[3], sys.argv[4], sys.argv[5])
    elif cmd == "count":
        print(len(query(base, sys.argv[3], "select * from vtbench"))
              + len(query(base, sys.argv[3], "select * from vtbench_campaign")))
    elif cmd == "select":
        for r in query(base, sys.argv[3], sys.argv[4]):
            print(" ".join(str(r[k]) for k in sys.argv[5:]))
    elif cmd == "tags":
        for r in query(base, sys.argv[3], 'show tag values from vtbench with key = "%s"' % sys.argv[4]):
            print(r["value"])
    else:
        sys.exit("unknown command " + cmd)


main()
