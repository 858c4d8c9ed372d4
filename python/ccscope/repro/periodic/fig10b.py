"""periodic/fig10b: inter-drop times, max_th = 15, flow level (the `fig9c` run).

Gaps between consecutive drops at the bottleneck M2→M3 of the same flow, after warm-up; log-time histogram.
"""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, se, verdict
from ccscope.repro.periodic import _fig10, _p0

ID = "periodic/fig10b"
TITLE = "inter-drop times, RED max_th = 15, flow level"
KIND = "sim"
COST = "reuses the fig9c / fig9d runs (full ~2 s each)"
CLAIM = 'max_th = 15, per flow: the same two islands; a flow often loses several packets in one burst (for Reno usually a timeout, cwnd = 1).'
LEVEL = 'flow'
SIZES = (15,)


def run(quick: bool) -> Run:
    return _fig10.run(LEVEL, SIZES, quick)


def check(run: Run) -> dict:
    c = Checks()
    v = run.values
    d = v["15"]
    c.beyond("per-flow fraction of drops within 1 RTT ≥ 0.3", d["frac_within_rtt"], se(d["frac_within_rtt_by_seed"]), 0.3,
             ">", "≥ 0.3", "several losses per burst")
    return verdict(c, v, tolerance="FIGURES.md thresholds; two standard errors over the seeds",
                   cause=_p0.failing_cause(c, "flow"), cause_values=_fig10.cause_values(v))


SEEDS = _p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
CAUSE = {"flow": ("Per flow: {v.15.within:.3f} of a flow's drops lie within one base RTT of another drop of the same "
                  "flow (seed mean); median per-flow gap {v.15.median:.3g} s (seeds: {v.15.median_by_seed})." + _p0.SETUP)}


def plot(run: Run):
    return _fig10.plot(ID, LEVEL, run)
