"""periodic/fig10d: inter-drop times, max_th = 1500, flow level (the `fig9d` run).

Gaps between consecutive drops at the bottleneck M2→M3 of the same flow, after warm-up; log-time histogram.
"""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, se, verdict
from ccscope.repro.periodic import _fig10, _p0

ID = "periodic/fig10d"
TITLE = "inter-drop times, RED max_th = 1500, flow level"
KIND = "sim"
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
    c.order("per-flow median gap > the max_th 15 one", d["median_s"], se(d["median_s_by_seed"]), a["median_s"],
            se(a["median_s_by_seed"]), ">", "", "isolated drops")
    c.order("within-1-RTT fraction < half the max_th 15 one", d["frac_within_rtt"], se(d["frac_within_rtt_by_seed"]),
            0.5 * a["frac_within_rtt"], 0.5 * se(a["frac_within_rtt_by_seed"]), "<", "", "paper")
    return verdict(c, v, tolerance="FIGURES.md thresholds; two standard errors over the seeds",
                   cause=_p0.failing_cause(c, "flow"), cause_values=_fig10.cause_values(v))


SEEDS = _p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
CAUSE = {"flow": ("Per flow: median gap {v.1500.median:.3g} s at the large max_th against {v.15.median:.3g} s at the "
                  "small one; within one base RTT of another drop of the same flow: {v.1500.within:.3f} against "
                  "{v.15.within:.3f}." + _p0.SETUP)}


def plot(run: Run):
    return _fig10.plot(ID, LEVEL, run)
