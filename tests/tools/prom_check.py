#!/usr/bin/env python3
# tests/e2e/upload_pushgateway.sh: the vtbench_* families a Pushgateway
# serves on /metrics against the campaign in the store and what vtbench
# compare shows, and against Prometheus's naming conventions.
#   prom_check.py URL JOB INSTANCE FILE.db VTBENCH [FAMILY...]
# FAMILY...: names that must be there (the test's workloads).
import json
import re
import sqlite3
import statistics
import subprocess
import sys
import urllib.request

from compare_mean import compare_mean

url, job, inst, path, vtbench = sys.argv[1:6]
must = sys.argv[6:]
text = urllib.request.urlopen(url + "/metrics", timeout=10).read().decode()
line_re = re.compile(r'^(vtbench_\w+)\{(.*)\} (\S+)$')
label_re = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
name_re = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*$')


def unescape(v):
    return v.replace('\\n', '\n').replace('\\"', '"').replace('\\\\', '\\')


# the naming rule docs/upload.md states, written again here
UNITS = {"ns": ("seconds", 1e-9), "us": ("seconds", 1e-6), "ms": ("seconds", 1e-3),
         "s": ("seconds", 1), "MB/s": ("bytes_per_second", 1e6),
         "rps": ("requests_per_second", 1), "count": ("", 1), "": ("", 1)}


def family(workload, metric, unit):
    suffix, scale = UNITS[unit]
    m = metric[len(workload) + 1:] if metric.startswith(workload + "_") else metric
    m = re.sub(r'[^a-z0-9_]', '_', m.lower())
    if suffix == "seconds":
        m = re.sub(r'(^|_)(ns|us|ms|s|seconds)$', '', m)
    if suffix == "requests_per_second" and m == "rps":
        m = ""
    base = "vtbench_" + workload + ("_" + m if m else "")
    return base, suffix, scale



help_, type_, got = {}, {}, {}
for line in text.splitlines():
    if line.startswith("# HELP vtbench_"):
        help_[line.split()[2]] = line
        continue
    if line.startswith("# TYPE vtbench_"):
        type_[line.split()[2]] = line.split()[3]
        continue
    m = line_re.match(line)
    if not m:
        continue
    labels = {k: unescape(v) for k, v in label_re.findall(m.group(2))}
    if labels.pop("job", None) != job or labels.pop("instance", None) != inst:
        continue
    key = (m.group(1), labels.get("config"), labels.get("cell"))
    if key in got:
        sys.exit("twice: %s" % (key,))
    got[key] = (float(m.group(3)), labels)

con = sqlite3.connect(path)
camp, started = con.execute("select uuid, started_ns from campaign order by started_ns desc limit 1").fetchone()
vals = {}
for cfg, kind, params, cell, wl, metric, unit, value in con.execute(
        "select config.key, config.kind, config.params, cell.name, cell.workload, sample.metric,"
        " sample.unit, sample.value from sample join result on result.id = sample.result_id"
        " join boot on boot.id = result.boot_id join cell on cell.id = result.cell_id"
        " join config on config.id = cell.config_id"
        " where result.status = 'ok' and boot.status <> 'unexpected-topology'"):
    vals.setdefault((cfg, cell, wl, metric, unit), (kind, json.loads(params), []))[2].append(value)
out = subprocess.run([vtbench, "compare", "--db", path, "--format", "json", "--fail-on", "none"],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
try:
    series = {(s["config"], s["cell"], s["metric"]): s["summary"] for s in json.loads(out).get("series", [])}
except ValueError:
    series = {}

errors = []
info = got.pop(("vtbench_campaign_info", None, None), (None, {}))
if info[1].get("campaign") != camp:
    errors.append("vtbench_campaign_info campaign %s, want %s" % (info[1].get("campaign"), camp))
start = got.pop(("vtbench_campaign_start_time_seconds", None, None), (None, {}))
if start[0] is None or abs(start[0] - started / 1e9) > 1e-3:
    errors.append("vtbench_campaign_start_time_seconds %s, want %s" % (start[0], started / 1e9))
n_compare = 0
want_names = set()
for (cfg, cell, wl, metric, unit), (kind, params, v) in vals.items():
    base, suffix, scale = family(wl, metric, unit)
    u = "_" + suffix if suffix else ""
    mean = compare_mean(metric, unit, v)
    sd = statistics.stdev(v) if len(v) > 1 else 0.0
    want = {base + u: mean * scale, base + "_stddev" + u: sd * scale, base + "_boots": len(v)}
    s = series.get((cfg, cell, metric))
    if s:
        n_compare += 1
        if abs(s["mean"] - mean) > 1e-9 * max(1.0, abs(mean)):
            errors.append("%s/%s/%s: compare's mean %r, here %r" % (cfg, cell, metric, s["mean"], mean))
    vm = kind == "vm"
    want_labels = {"config": cfg, "cell": cell, "kind": kind,
                   "vcpus": str(params.get("vcpus", params.get("cpus")))}
    for k in ("topology", "pinning", "sched"):
        if vm:
            want_labels[k] = params[k]
    for fam, w in want.items():
        want_names.add(fam)
        g = got.pop((fam, cfg, cell), None)
        if not g:
            errors.append("missing %s{config=%s,cell=%s}" % (fam, cfg, cell))
            continue
        if abs(g[0] - w) > 1e-9 * max(abs(w), 1e-300):
            errors.append("%s %s/%s: %r, want %r" % (fam, cfg, cell, g[0], w))
        for k, v2 in want_labels.items():
            if g[1].get(k) != v2:
                errors.append("%s %s/%s: label %s=%r, want %r" % (fam, cfg, cell, k, g[1].get(k), v2))
        extra = set(g[1]) - set(want_labels) - ({"accelerator", "guest_kernel"} if vm else set())
        if extra:
            errors.append("%s: labels %s (host is the instance; metric and unit are in the name)"
                          % (fam, sorted(extra)))
        if "none" in g[1].values() and g[1].get("pinning") != "none":
            errors.append("%s: a 'none' stand-in: %s" % (fam, g[1]))
for fam in want_names | {"vtbench_campaign_info", "vtbench_campaign_start_time_seconds"}:
    if not name_re.match(fam) or fam in ("",):
        errors.append("bad name %s" % fam)
    if type_.get(fam) != "gauge" or fam not in help_:
        errors.append("%s: TYPE %s, HELP %s" % (fam, type_.get(fam), fam in help_))
    if re.search(r'_(us|ns|ms|mb)(_|$)', fam):
        errors.append("%s: not in base units" % fam)
for fam in must:
    if fam not in want_names:
        errors.append("no family %s (have %s)" % (fam, sorted(want_names)))
if got:
    errors.append("unexpected series: %s" % sorted(got)[:5])
if series and n_compare != len(vals):
    errors.append("%d series, %d in compare's" % (len(vals), n_compare))
if errors:
    print("\n".join(errors[:20]))
    sys.exit(1)
print("%d families, %d series (%d checked against compare)" % (len(want_names), 3 * len(vals), n_compare))
