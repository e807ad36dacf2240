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


def compare_mean(metric, unit, values):
    k = metric_class(metric, unit)
    if k == "throughput":
        return statistics.harmonic_mean(values)
    if k == "latency":
        return statistics.geometric_mean(values)
    return statistics.mean(values)
