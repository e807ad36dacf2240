#!/usr/bin/env python3
# tests/e2e/upload_pushgateway.sh: compares the vtbench_* gauges a
# Pushgateway serves on /metrics with the campaign's aggregates in the store.
#   prom_check.py URL JOB INSTANCE FILE.db
import json
import re
import sqlite3
import statistics
import sys
import urllib.request

url, job, inst, path = sys.argv[1:5]
text = urllib.request.urlopen(url + "/metrics", timeout=10).read().decode()
line_re = re.compile(r'^(vtbench_\w+)\{(.*)\} (\S+)$')
label_re = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def unescape(v):
    return v.replace('\\n', '\n').replace('\\"', '"').replace('\\\\', '\\')


got = {}
for line in text.splitlines():
    m = line_re.match(line)
    if not m:
        continue
    labels = {k: unescape(v) for k, v in label_re.findall(m.group(2))}
    if labels.get("job") != job or labels.get("instance") != inst:
        continue
    if m.group(1) == "vtbench_campaign_info":
        got["campaign"] = labels["campaign"]
        continue
    key = (m.group(1), labels["config"], labels["workload"], labels["metric"])
    if key in got:
        sys.exit("twice: %s" % (key,))
    got[key] = (float(m.group(3)), labels)

con = sqlite3.connect(path)
camp = con.execute("select uuid from campaign order by started_ns desc limit 1").fetchone()[0]
host = con.execute("select hostname from host").fetchone()[0]
vals = {}
for cfg, kind, cell, metric, unit, value in con.execute(
        "select config.key, config.kind, cell.name, sample.metric, sample.unit, sample.value"
        " from sample join result on result.id = sample.result_id join boot on boot.id = result.boot_id"
        " join cell on cell.id = result.cell_id join config on config.id = cell.config_id"
        " where result.status = 'ok' and boot.status <> 'unexpected-topology'"):
    vals.setdefault((cfg, cell, metric), (kind, unit, []))[2].append(value)
errors = []
if got.get("campaign") != camp:
    errors.append("campaign %s, want %s" % (got.get("campaign"), camp))
for (cfg, cell, metric), (kind, unit, v) in vals.items():
    want = {"vtbench_value": statistics.mean(v), "vtbench_n": len(v),
            "vtbench_stddev": statistics.stdev(v) if len(v) > 1 else 0.0}
    for fam, w in want.items():
        g = got.get((fam, cfg, cell, metric))
        if not g:
            errors.append("missing %s %s/%s/%s" % (fam, cfg, cell, metric))
            continue
        if abs(g[0] - w) > 1e-9 * max(1.0, abs(w)):
            errors.append("%s %s/%s: %r, want %r" % (fam, cell, metric, g[0], w))
        if g[1]["host"] != host or g[1]["kind"] != kind or g[1]["unit"] != unit:
            errors.append("%s %s/%s: labels %s" % (fam, cell, metric, g[1]))
n = len([k for k in got if k != "campaign"])
if n != 3 * len(vals):
    errors.append("%d gauges, want %d" % (n, 3 * len(vals)))
if errors:
    print("\n".join(errors[:20]))
    sys.exit(1)
print("%d gauges" % n)
