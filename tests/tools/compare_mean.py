"""The mean vtbench compare shows for a metric, written apart from the C
code (harness/compare/stats.c vtb_metric_class) so the upload checks catch a drift:
the harmonic mean for rates, the geometric mean for latencies, else the
arithmetic mean."""

import re
import statistics

_PERCENTILE = re.compile(r"_p[0-9]+(?=$|[_.])")


def metric_class(metric, unit):
    if unit in ("us", "ns", "ms", "\u00b5s") or "latency" in metric \
            or _PERCENTILE.search(metric) or metric.endswith("_max"):
        return "latency"
    if unit == "s":
        return "time"
    if unit in ("rps", "iops") or unit.lower() == "hz" or unit.endswith("/s"):
        return "throughput"
    return "time"


def compare_mean(metric, unit, values, screen=True):
    """of the boots compare keeps (screened() below; screen=False: the
    values given are those)"""
    if screen:
        values = screened(metric, unit, values)
    k = metric_class(metric, unit)
    if k == "throughput":
        return statistics.harmonic_mean(values)
    if k == "latency":
        return statistics.geometric_mean(values)
    return statistics.mean(values)


_TAIL = re.compile(r"_p(99[0-9]*|99[_.][0-9]+|100)$")


def is_tail(metric):
    """p99 and above, or a max: never screened (docs/statistics.md)."""
    return metric.endswith("_max") or bool(_TAIL.search(metric))


def screened(metric, unit, values, threshold_pct=5.0, cut=8.0):
    """The boots compare keeps (docs/statistics.md "Outlier boots"), written
    apart from the C code: on the log scale when every value is above 0,
    a value whose modified z-score 0.6745 |u - median| / MAD is above
    `cut` (any value off the median when the MAD is 0) and that is
    further than the threshold from the median is set aside; at most
    n // 5 of them, none when more are beyond, none under 5 values, none
    for a tail or for values the statistic cannot take."""
    import math
    k = metric_class(metric, unit)
    n = len(values)
    if n // 5 == 0 or (k == "latency" and is_tail(metric)):
        return list(values)
    if any(not math.isfinite(v) for v in values) or \
            (k != "time" and any(v <= 0 for v in values)):
        return list(values)
    logs = all(v > 0 for v in values)
    u = [math.log(v) if logs else v for v in values]
    med = statistics.median(u)
    mad = statistics.median([abs(x - med) for x in u])
    far = math.log1p(threshold_pct / 100) if logs else abs(med) * threshold_pct / 100

    def out(x):
        d = abs(x - med)
        z = 0.6745 * d / mad if mad > 0 else (math.inf if d > 0 else 0.0)
        return z > cut and d > far
    aside = [i for i, x in enumerate(u) if out(x)]
    if len(aside) > n // 5:
        aside = []
    return [v for i, v in enumerate(values) if i not in aside]
