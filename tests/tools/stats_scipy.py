#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reference values for harness/stats.c, computed here with scipy/numpy.

Writes one JSON document (stdout) of fixed data sets and what scipy 1.10
and numpy say about them; tests/tools/statsref.c recomputes each with
vtbench's code and compares to 1e-6.  The data are literal or drawn from
numpy's legacy RandomState (MT19937), whose streams numpy keeps stable
across versions, so the cases do not change under us.

Conventions (stated in harness/stats.h):
  Welch        scipy.stats.ttest_ind(a, b, equal_var=False), two-sided
  Mann-Whitney scipy.stats.mannwhitneyu(a, b, alternative="two-sided",
               use_continuity=True), method="exact" when both n <= 8 and no
               ties, else method="asymptotic" (tie-corrected normal)
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


def welch(a, b):
    with np.errstate(all="ignore"):
        return stats.ttest_ind(a, b, equal_var=False).pvalue


def mwu_method(a, b):
    ties = len(np.unique(np.concatenate([a, b]))) < len(a) + len(b)
    return "exact" if len(a) <= 8 and len(b) <= 8 and not ties else "asymptotic"


def mwu(a, b):
    m = mwu_method(a, b)
    with np.errstate(all="ignore"):
        p = stats.mannwhitneyu(a, b, alternative="two-sided", use_continuity=True,
                               method=m).pvalue
    return m, p


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

# Welch: literal, random (normal, lognormal, unequal sizes and spreads),
# separated far enough for tiny p, and the degenerate cases.
welch_sets = [
    ("literal", [19.1, 20.3, 18.7, 21.0, 19.9], [22.4, 21.8, 23.9, 22.0, 24.1, 22.7]),
    ("two_each", [1.0, 2.0], [1.5, 3.5]),
    ("constant_equal", [5.0, 5.0, 5.0], [5.0, 5.0, 5.0, 5.0]),
    ("constant_differ", [5.0, 5.0, 5.0], [6.0, 6.0]),
    ("one_constant", [5.0, 5.0, 5.0, 5.0], [5.5, 6.1, 5.2]),
    ("one_value", [1.0], [1.0, 2.0, 3.0]),
]
for i, (na, nb, mb, sa, sb) in enumerate([(3, 3, 1.0, 1, 1), (5, 5, 0.3, 1, 1),
                                           (10, 10, 0.5, 1, 2), (10, 10, 0.0, 1, 1),
                                           (4, 17, 1.0, 0.3, 3), (30, 30, 0.1, 1, 1),
                                           (10, 10, 10.0, 1, 1), (8, 12, 0.9, 2, 0.5)]):
    welch_sets.append((f"normal_{i}_{na}v{nb}", 100 + sa * rs.randn(na),
                       100 + mb + sb * rs.randn(nb)))
for i in range(4):
    welch_sets.append((f"lognormal_{i}", rs.lognormal(3, 0.4, 10), rs.lognormal(3.2, 0.4, 9)))

# Mann-Whitney: exact (small, no ties), asymptotic (large, ties, one side > 8).
mwu_sets = [
    ("literal_exact", [19, 22, 16, 29, 24], [20, 11, 17, 12]),
    ("one_each", [1.0], [2.0]),
    ("separated_8v8", list(range(8)), list(range(10, 18))),
    ("ties_small", [1, 2, 2, 3, 4], [2, 3, 3, 5, 6]),
    ("all_equal", [7.0] * 4, [7.0] * 5),
    ("one_side_9", list(rs.randn(9)), list(rs.randn(3) + 0.5)),
    ("ties_large", list(np.round(rs.randn(15) * 2)), list(np.round(rs.randn(12) * 2 + 1))),
]
for i, (na, nb) in enumerate([(2, 3), (3, 3), (4, 6), (5, 5), (6, 8), (7, 7), (8, 8), (1, 8)]):
    mwu_sets.append((f"exact_{i}_{na}v{nb}", rs.randn(na), rs.randn(nb) + 0.7))
for i, (na, nb) in enumerate([(10, 10), (9, 9), (20, 25), (12, 8), (40, 3)]):
    mwu_sets.append((f"asymptotic_{i}_{na}v{nb}", rs.randn(na), rs.randn(nb) + 0.4))

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
    sd = float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
    return {
        "n": len(v),
        "mean": float(stats.hmean(v)) if cls == "throughput" else am,
        "amean": am,
        "median": float(np.median(v)),
        "stddev": sd,
        "cov": sd / abs(am),
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
    ("one_rate", "throughput", [42.0]),
    ("lognormal_rates", "throughput", list(rs.lognormal(6, 0.2, 25))),
]


def compare(cls, b, x):
    b, x = np.asarray(b, dtype=float), np.asarray(x, dtype=float)
    if cls == "throughput":
        change = (stats.hmean(x) / stats.hmean(b) - 1) * 100
        p = welch(1 / b, 1 / x)
    elif cls == "time":
        change = (np.mean(x) / np.mean(b) - 1) * 100
        p = welch(b, x)
    else:
        change = (np.mean(x) / np.mean(b) - 1) * 100
        p = mwu(b, x)[1]
    return change, p


compare_sets = [
    ("rates_slower", "throughput", 1000 + 20 * rs.randn(10), 900 + 18 * rs.randn(10)),
    ("rates_same", "throughput", 1000 + 20 * rs.randn(10), 1000 + 20 * rs.randn(8)),
    ("rates_skewed", "throughput", rs.lognormal(5, 0.5, 12), rs.lognormal(5.3, 0.5, 12)),
    ("time_slower", "time", 2.0 + 0.04 * rs.randn(10), 2.2 + 0.04 * rs.randn(10)),
    ("time_few", "time", [2.0, 2.1, 2.05], [2.3, 2.2, 2.25]),
    ("latency_exact", "latency", 50 + 5 * rs.randn(6), 58 + 5 * rs.randn(7)),
    ("latency_asymptotic", "latency", 50 + 5 * rs.randn(10), 55 + 5 * rs.randn(10)),
    ("latency_ties", "latency", np.round(50 + 5 * rs.randn(10)), np.round(52 + 5 * rs.randn(9))),
]

doc = {
    "scipy": __import__("scipy").__version__,
    "numpy": np.__version__,
    "welch": [{"name": n, "a": vec(a), "b": vec(b), "p": num(welch(a, b))}
              for n, a, b in welch_sets],
    "mwu": [dict(zip(("name", "a", "b", "method", "p"),
                     (n, vec(a), vec(b), *mwu(np.asarray(a, float), np.asarray(b, float)))))
            for n, a, b in mwu_sets],
    "bh": [{"name": n, "p": [num(x) for x in p], "q": [num(x) for x in bh(p)]}
           for n, p in bh_sets],
    "percentile": [{"name": n, "data": vec(sorted(d)), "pct": pcts,
                    "want": [float(np.percentile(d, q)) for q in pcts]} for n, d in pct_sets],
    "summary": [{"name": n, "class": c, "data": vec(d), "want": summary(d, c)}
                for n, c, d in summary_sets],
    "compare": [dict(zip(("name", "class", "base", "x", "change_pct", "p"),
                         (n, c, vec(b), vec(x), *map(num, compare(c, b, x)))))
                for n, c, b, x in compare_sets],
}
for c in doc["mwu"]:
    c["p"] = num(c["p"])
json.dump(doc, sys.stdout, indent=1)
sys.stdout.write("\n")
