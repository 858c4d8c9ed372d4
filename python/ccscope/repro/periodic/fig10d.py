"""periodic/fig10d: inter-drop times, max_th = 1500, flow level (the `fig9d` run).

Gaps between consecutive drops at the bottleneck M2→M3 of the same flow, after warm-up; log-time histogram.
"""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.periodic import _fig10, _p0

ID = "periodic/fig10d"
TITLE = "inter-drop times, RED max_th = 1500, flow level"
KIND = "sim"
STATUS = "reproduced"
COST = "reuses the fig9c / fig9d runs (full ~2 s each)"
CLAIM = 'max_th = 1500, per flow: drops are isolated, so flows are not pushed into cwnd = 1 together, which removes the aggregate periodicity.'
LEVEL = 'flow'
SIZES = (15, 1500)


def run(quick: bool) -> Run:
    return _fig10.run(LEVEL, SIZES, quick)


def check(run: Run) -> dict:
    c = Checks()
    v = run.values
    d, a = v["1500"], v["15"]
    c.add("per-flow median gap > the max_th 15 one", d["median_s"], d["median_s"] > a["median_s"], f"> {a['median_s']:.3g}", "isolated drops")
    c.add("within-1-RTT fraction < half the max_th 15 one", d["frac_within_rtt"], d["frac_within_rtt"] < a["frac_within_rtt"] / 2,
          f"< {a['frac_within_rtt'] / 2:.3g}", "paper")
    return verdict(c, v, tolerance="FIGURES.md thresholds", notes=_p0.CAUSE)


def plot(run: Run):
    return _fig10.plot(ID, LEVEL, run)
