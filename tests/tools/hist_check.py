#!/usr/bin/env python3
# Checks a workload's reported percentiles against its own histogram, for
# tests/e2e/workload_wakeup.sh and workload_timer.sh.  Reads the agent's
# framed records (@vtb1 NONCE JSON CRC, docs/record-format.md) from FILE,
# rebuilds each hist record's log-linear buckets from the layout that
# common/hist.h documents (its arithmetic written again here, not called)
# and holds every sample METRIC_pNN (and _p999) of that histogram against
# the percentile it should be: the representative value (the middle of
# the bucket holding the ceil(p/100 * count)-th smallest value) clamped to
# the minimum and the maximum seen.  The record keeps no min and max: the
# reported PREFIX_max is taken as the maximum and must lie in the last
# bucket, PREFIX_min (when reported) as the minimum, in the first bucket;
# without a minimum, where it could move a value (the percentile in the
# first bucket) the value must lie between the representative and the
# bucket's top.  Prints one line per problem, and
# "checked N" (percentiles checked) on stdout; exits 1 on any problem.
# An argument late:HIST=NS checks the timer's catch-up instead: a wake-up
# later than its interval (NS) skips the deadlines already past and counts
# them in the cell's "missed", so no more samples than that lie in
# buckets wholly above NS (a latency measured against the deadline before
# the one slept to is always above the interval).
#   hist_check.py FILE HIST=PREFIX... [late:HIST=NS]
#   e.g. hist_check.py recs wakeup=wakeup request=request
import json
import math
import sys


def records(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("@vtb1 "):
                continue
            body = line.rstrip("\n").split(" ", 2)[2]
            out.append(json.loads(body.rsplit(" ", 1)[0]))
    return out


def bucket(bits, idx):
    """(lo, width) of bucket idx: exact below 2S, then S per power of two"""
    s = 1 << bits
    if idx < 2 * s:
        return idx, 1
    g = (idx >> bits) - 1
    return (s + (idx & (s - 1))) << g, 1 << g


def percentile_bucket(buckets, count, p):
    """index into buckets (sorted [idx, n]) holding the rank-th value"""
    rank = max(1, min(count, math.ceil(p / 100.0 * count)))
    cum = 0
    for k, (_, n) in enumerate(buckets):
        cum += n
        if cum >= rank:
            return k
    raise ValueError("counts add up to %d, less than %d" % (cum, count))


def main():
    recs = records(sys.argv[1])
    samples = {r["metric"]: r["value"] for r in recs if r.get("type") == "sample"}
    hists = {r["metric"]: r for r in recs if r.get("type") == "hist"}
    bad, checked = [], 0
    ends = [r for r in recs if r.get("type") == "cell_end"]
    for arg in sys.argv[2:]:
        name, prefix = arg.split("=", 1)
        if name.startswith("late:"):
            h = hists.get(name[5:])
            missed = ends[0]["info"].get("missed") if len(ends) == 1 else None
            if h is None or not isinstance(missed, int):
                bad.append("%s: no hist record or no single cell_end with info.missed" % name)
                continue
            late = sum(n for i, n in h["buckets"] if bucket(h["params"]["bits"], i)[0] > int(prefix))
            if late > missed:
                bad.append("%d samples are above the interval of %s ns, but only %d deadlines "
                           "were missed" % (late, prefix, missed))
            continue
        h = hists.get(name)
        if h is None:
            bad.append("no hist record '%s'" % name)
            continue
        bits = h["params"]["bits"]
        scale = {"ns": 1000.0}.get(h["unit"], 1.0)  # samples are in us
        buckets = sorted(h["buckets"])
        count = sum(n for _, n in buckets)
        if count != h["count"] or not buckets:
            bad.append("%s: buckets add up to %d, count says %d" % (name, count, h["count"]))
            continue
        if prefix + "_max" not in samples:
            bad.append("no sample %s_max" % prefix)
            continue
        vmax = samples[prefix + "_max"] * scale
        lo, w = bucket(bits, buckets[-1][0])
        if not lo - 0.5 <= vmax <= lo + w - 1 + 0.5:
            bad.append("%s_max %.3f is not in the last bucket [%d, %d]" % (prefix, vmax, lo, lo + w - 1))
        vmin = samples.get(prefix + "_min")
        if vmin is not None:
            vmin *= scale
            lo, w = bucket(bits, buckets[0][0])
            if not lo - 0.5 <= vmin <= lo + w - 1 + 0.5:
                bad.append("%s_min %.3f is not in the first bucket [%d, %d]" % (prefix, vmin, lo,
                                                                               lo + w - 1))
        pcts = sorted((m[len(prefix) + 2:], v) for m, v in samples.items()
                      if m.startswith(prefix + "_p") and m[len(prefix) + 2:].isdigit())
        if not pcts:
            bad.append("no sample %s_pNN" % prefix)
        for digits, value in pcts:
            p = float(digits) if len(digits) <= 2 else float(digits) / 10 ** (len(digits) - 2)
            k = percentile_bucket(buckets, count, p)
            lo, w = bucket(bits, buckets[k][0])
            rep = min(lo + (w - 1) // 2, vmax)
            top = min(lo + w - 1, vmax)
            if vmin is not None:
                rep = max(rep, vmin)
            got = value * scale
            checked += 1
            if k == 0 and vmin is None:
                ok = rep - 0.5 <= got <= top + 0.5
                want = "between %d and %.3f" % (rep, top)
            else:
                ok = abs(got - rep) <= 0.5
                want = "%.3f" % rep
            if not ok:
                bad.append("%s_p%s (p%g) is %.3f %s, the histogram's is %s (bucket %d of %d, "
                           "rank %d of %d)" % (prefix, digits, p, got, h["unit"], want, buckets[k][0],
                                               len(buckets), max(1, math.ceil(p / 100.0 * count)),
                                               count))
    for b in bad:
        print(b)
    print("checked %d" % checked)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
