#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reference values for harness/compare/stats.c, computed here with scipy/numpy.

Writes one JSON document (stdout) of fixed data sets and what scipy 1.10
and numpy say about them; tests/tools/statsref.c recomputes each with
vtbench's code and compares to 1e-6.  The data are literal or drawn from
numpy's legacy RandomState (MT19937), whose streams numpy keeps stable
across versions, so the cases do not change under us.

Conventions (stated in harness/compare/stats.h):
  latency      Welch's t on the logs: scipy.stats.ttest_ind(log x, log base,
               equal_var=False); change and CI from the ratio of geometric
               means, its Welch-Satterthwaite df and scipy.stats.t quantiles
  time         the log of the ratio of means, se by the delta method
               (relative standard errors), Welch-Satterthwaite df, scipy.stats.t
  throughput   the same on 1/x: the ratio of harmonic means
  BH           by its definition (scipy.stats.false_discovery_control is
               scipy >= 1.11; Debian 12 has 1.10)
  percentiles  numpy.percentile, method "linear" (the default)
"""
import json
import math
import sys
import warnings

import numpy as np
from scipy import stats

# scipy warns about exactly constant samples: they are cases on purpose.
warnings.simplefilter("ignore", RuntimeWarning)


def num(v):
    """JSON number, or null for NaN (JSON has no NaN)."""
    v = float(v)
    return None if math.isnan(v) else v


def vec(a):
    return [float(x) for x in a]


def bh(ps):
    """Benjamini-Hochberg q-values by definition; NaN = not tested."""
    ps = np.asarray(ps, dtype=float)
    q = np.full(ps.shape, np.nan)
    idx = np.flatnonzero(~np.isnan(ps))
    m = len(idx)
    if m == 0:
        return q
    order = idx[np.argsort(ps[idx], kind="stable")]
    adj = ps[order] * m / np.arange(1, m + 1)
    adj = np.minimum.accumulate(adj[::-1])[::-1]
    q[order] = np.clip(adj, 0, 1)
    return q


rs = np.random.RandomState(20240607)

bh_sets = [
    ("literal", [0.01, 0.04, 0.03, 0.005, 0.2]),
    ("with_untested", [0.02, float("nan"), 0.01, 0.5, float("nan"), 0.03]),
    ("tied", [0.01, 0.01, 0.04, 0.04, 0.04]),
    ("single", [0.3]),
    ("all_untested", [float("nan"), float("nan")]),
    ("empty", []),
    ("ones_and_zero", [1.0, 1.0, 0.0]),
    ("uniform_50", list(rs.uniform(size=50))),
    ("mostly_small_40", list(rs.beta(0.3, 4, size=40))),
]

pct_sets = [
    ("one", [3.5]),
    ("two", [1.0, 2.0]),
    ("literal", [15, 20, 35, 40, 50]),
    ("ties", [1, 1, 2, 2, 2, 3, 9]),
    ("normal_10", list(rs.randn(10) * 3 + 50)),
    ("normal_37", list(rs.randn(37) * 10 + 200)),
]
pcts = [0, 2.5, 5, 25, 33.3, 50, 75, 95, 97.5, 100]


def summary(v, cls):
    v = np.asarray(v, dtype=float)
    am = float(np.mean(v))
    # one value has no spread: numpy's std(ddof=1) is nan, and so is vtbench's
    sd = float(np.std(v, ddof=1)) if len(v) > 1 else float("nan")
    return {
        "n": len(v),
        "mean": float(stats.hmean(v)) if cls == "throughput"
        else float(stats.gmean(v)) if cls == "latency" else am,
        "amean": am,
        "median": float(np.median(v)),
        "stddev": num(sd),
        "cov": num(sd / abs(am)),
        "min": float(np.min(v)),
        "max": float(np.max(v)),
        "p5": float(np.percentile(v, 5)),
        "p25": float(np.percentile(v, 25)),
        "p75": float(np.percentile(v, 75)),
        "p95": float(np.percentile(v, 95)),
    }


summary_sets = [
    ("rates", "throughput", [1200.0, 1180.5, 1215.2, 1190.0, 1250.7, 1202.3]),
    ("seconds", "time", [2.51, 2.48, 2.60, 2.55, 2.49, 2.53, 2.52]),
    ("latency_us", "latency", [12.0, 15.5, 11.2, 40.3, 12.8, 13.1, 12.2, 12.9, 14.0, 90.1]),
    ("lognormal_latency", "latency", list(rs.lognormal(2, 0.5, 15))),
    ("one_rate", "throughput", [42.0]),
    ("lognormal_rates", "throughput", list(rs.lognormal(6, 0.2, 25))),
]


def compare(cls, b, x, alpha=0.05):
    """change %, p, CI % and df of the row statistic."""
    b, x = np.asarray(b, dtype=float), np.asarray(x, dtype=float)
    if cls == "latency":
        lb, lx = np.log(b), np.log(x)
        d = lx.mean() - lb.mean()
        vb, vx = lb.var(ddof=1) / len(b), lx.var(ddof=1) / len(x)
        p = stats.ttest_ind(lx, lb, equal_var=False).pvalue
    else:
        if cls == "throughput":
            b, x = 1 / b, 1 / x
        mb, mx = b.mean(), x.mean()
        d = math.log(mx / mb) if cls == "time" else math.log(mb / mx)
        vb, vx = b.var(ddof=1) / len(b) / mb**2, x.var(ddof=1) / len(x) / mx**2
        p = None
    se = math.sqrt(vb + vx)
    df = (vb + vx) ** 2 / (vb**2 / (len(b) - 1) + vx**2 / (len(x) - 1))
    if p is None:
        p = 2 * stats.t.sf(abs(d / se), df)
    tc = stats.t.ppf(1 - alpha / 2, df)
    return (math.expm1(d) * 100, p, math.expm1(d - tc * se) * 100,
            math.expm1(d + tc * se) * 100, df)


compare_sets = [
    ("rates_slower", "throughput", 1000 + 20 * rs.randn(10), 900 + 18 * rs.randn(10)),
    ("rates_same", "throughput", 1000 + 20 * rs.randn(10), 1000 + 20 * rs.randn(8)),
    ("rates_skewed", "throughput", rs.lognormal(5, 0.5, 12), rs.lognormal(5.3, 0.5, 12)),
    ("rates_two_each", "throughput", [1000.0, 1040.0], [950.0, 1010.0]),
    ("time_slower", "time", 2.0 + 0.04 * rs.randn(10), 2.2 + 0.04 * rs.randn(10)),
    ("time_few", "time", [2.0, 2.1, 2.05], [2.3, 2.2, 2.25]),
    ("time_literal", "time", [19.1, 20.3, 18.7, 21.0, 19.9], [22.4, 21.8, 23.9, 22.0, 24.1, 22.7]),
    ("time_unequal_sizes", "time", 100 + 0.3 * rs.randn(4), 101 + 3 * rs.randn(17)),
    ("time_one_side_constant", "time", [5.0, 5.0, 5.0, 5.0], [5.5, 6.1, 5.2]),
    ("latency_exact", "latency", 50 + 5 * rs.randn(6), 58 + 5 * rs.randn(7)),
    ("latency_asymptotic", "latency", 50 + 5 * rs.randn(10), 55 + 5 * rs.randn(10)),
    ("latency_ties", "latency", np.round(50 + 5 * rs.randn(10)), np.round(52 + 5 * rs.randn(9))),
    ("latency_two_each", "latency", [1.0, 2.0], [1.5, 3.5]),
]
for i, (na, nb, mb, sa, sb) in enumerate([(3, 3, 1.0, 1, 1), (5, 5, 0.3, 1, 1),
                                           (10, 10, 0.5, 1, 2), (10, 10, 0.0, 1, 1),
                                           (4, 17, 1.0, 0.3, 3), (30, 30, 0.1, 1, 1),
                                           (10, 10, 10.0, 1, 1), (8, 12, 0.9, 2, 0.5)]):
    for cls in ("throughput", "time", "latency"):
        compare_sets.append((f"{cls}_normal_{i}_{na}v{nb}", cls, 100 + sa * rs.randn(na),
                             100 + mb + sb * rs.randn(nb)))
for i in range(4):
    for cls in ("throughput", "time", "latency"):
        compare_sets.append((f"{cls}_lognormal_{i}", cls, rs.lognormal(3, 0.4, 10),
                             rs.lognormal(3.2, 0.4, 9)))



def screen(v, min_pct=5.0, cut=8.0):
    """Indexes set aside (docs/statistics.md "Outlier boots"): the modified
    z-score of Iglewicz and Hoaglin on the log scale (values all > 0),
    beyond `cut` and beyond min_pct from the median; at most n // 5, none
    when more are beyond; a MAD of 0: every value off the median is."""
    v = np.asarray(v, dtype=float)
    n = len(v)
    if n // 5 == 0 or not np.all(np.isfinite(v)):
        return []
    logs = bool(np.all(v > 0))
    u = np.log(v) if logs else v
    med = float(np.median(u))
    mad = float(np.median(np.abs(u - med)))
    far = math.log1p(min_pct / 100) if logs else abs(med) * min_pct / 100
    dev = np.abs(u - med)
    z = 0.6745 * dev / mad if mad > 0 else np.where(dev > 0, np.inf, 0.0)
    out = [int(i) for i in np.flatnonzero((z > cut) & (dev > far))]
    return out if len(out) <= n // 5 else []


def table(rows, alpha=0.05):
    """A compare table: each side screened, the row statistic of the boots
    kept, BH across the rows, the Benjamini-Yekutieli level
    max(R, 1) alpha / m, each row's interval at it."""
    out, ps = [], []
    for cls, b, x in rows:
        sb, sx = screen(b), screen(x)
        kb = [v for i, v in enumerate(b) if i not in sb]
        kx = [v for i, v in enumerate(x) if i not in sx]
        out.append((cls, kb, kx, sb, sx))
        ps.append(compare(cls, kb, kx, alpha)[1])
    q = bh(ps)
    r = int(np.sum(q < alpha))
    level = max(r, 1) * alpha / len(rows)
    res = []
    for (cls, kb, kx, sb, sx), qi in zip(out, q):
        ch, p, lo, hi, df = compare(cls, kb, kx, level)
        res.append({"aside_base": sb, "aside_x": sx, "change_pct": ch, "p": p, "q": float(qi),
                    "ci_low_pct": lo, "ci_high_pct": hi})
    return level, res


def slow_boot(v, i, cls):
    """Boot i three times slower: a rate / 3, a time or latency x 3."""
    v = list(v)
    v[i] = v[i] / 3 if cls == "throughput" else v[i] * 3
    return v


table_sets = []
for t in range(4):
    rows = []
    for k in range(12):
        cls = ("throughput", "time", "latency")[k % 3]
        n = (5, 10, 7)[k % 3]
        b = 100 * np.exp(0.03 * rs.randn(n))
        x = 100 * np.exp((0.1 if k % 2 else 0.0) * (-1 if cls == "throughput" else 1) +
                         0.03 * rs.randn(n))
        if (k + t) % 4 == 0:
            b = slow_boot(b, (k + t) % n, cls)
        if (k + t) % 5 == 0:
            x = slow_boot(x, (k * 3 + t) % n, cls)
        rows.append((cls, list(b), list(x)))
    table_sets.append((f"table_{t}", rows))

doc = {
    "scipy": __import__("scipy").__version__,
    "numpy": np.__version__,
    "bh": [{"name": n, "p": [num(x) for x in p], "q": [num(x) for x in bh(p)]}
           for n, p in bh_sets],
    "percentile": [{"name": n, "data": vec(sorted(d)), "pct": pcts,
                    "want": [float(np.percentile(d, q)) for q in pcts]} for n, d in pct_sets],
    "summary": [{"name": n, "class": c, "data": vec(d), "want": summary(d, c)}
                for n, c, d in summary_sets],
    "compare": [dict(zip(("name", "class", "base", "x", "change_pct", "p", "ci_low_pct",
                          "ci_high_pct", "df"),
                         (n, c, vec(b), vec(x), *map(num, compare(c, b, x)))))
                for n, c, b, x in compare_sets],
    "table": [],
}
for name, rows in table_sets:
    level, res = table(rows)
    doc["table"].append({
        "name": name, "level": level,
        "rows": [{"class": c, "base": vec(b), "x": vec(x),
                  **{k: (num(v) if isinstance(v, float) else v) for k, v in r.items()}}
                 for (c, b, x), r in zip(rows, res)]})
json.dump(doc, sys.stdout, indent=1)
sys.stdout.write("\n")
