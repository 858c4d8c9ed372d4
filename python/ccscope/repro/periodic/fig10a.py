"""periodic/fig10a: inter-drop times, max_th = 15, link level (the `fig9c` run).

Gaps between consecutive drops at the bottleneck M2→M3 (any flow), after warm-up; log-time histogram.
"""
from __future__ import annotations


from ccscope.repro._base import Checks, Run, se, verdict
from ccscope.repro.periodic import _fig10, _p0

ID = "periodic/fig10a"
TITLE = "inter-drop times, RED max_th = 15, link level"
KIND = "sim"
COST = "reuses the fig9c / fig9d runs (full ~2 s each)"
CLAIM = 'max_th = 15, link level: two islands of inter-drop times, back-to-back drops inside a burst and the gaps between bursts.'
LEVEL = 'link'
SIZES = (15,)


def run(quick: bool) -> Run:
    return _fig10.run(LEVEL, SIZES, quick)


SEEDS = _p0.SEEDS  # computation: periodic/_p0.py, above SEEDS


def check(run: Run) -> dict:
    c = Checks()
    d = run.values["15"]
    # FIGURES.md's shares, on the seed mean of each seed's share, two standard errors.
    c.beyond("≥ 30% of gaps < 0.1 s", d["frac_lt_0_1"], se(d["frac_lt_0_1_by_seed"]), 0.3, ">", "≥ 0.3", "in-burst island")
    c.beyond("≥ 20% of gaps > 1 s", d["frac_gt_1"], se(d["frac_gt_1_by_seed"]), 0.2, ">", "≥ 0.2", "between-burst island")
    # P001 §II.C: "two distinctive 'islands'" (back-to-back drops; drops of neighbouring bursts). Tested on the pooled
    # histogram itself (`_fig10.modes`, rule fixed before the full runs): a peak below 0.1 s and a peak above 1 s, each
    # at least 5% of the highest bin, with a valley ≤ half the lower peak between them. One pooled histogram of
    # thousands of gaps: no standard error.
    md = d["modes"]
    c.add("two islands: a histogram peak < 0.1 s and one > 1 s, valley between ≤ ½ the lower peak", md["valley_ratio"],
          md["bimodal"] and md["decades"] >= 1, f"≤ {_fig10.VALLEY_MAX:g} (peaks ≥ 1 decade apart)", "P001 two islands")
    return verdict(c, run.values, tolerance="FIGURES.md thresholds; two standard errors over the seeds",
                   cause=_p0.failing_cause(c, "islands"), cause_values=_fig10.cause_values(run.values))


#: Cause template (docs/VERDICTS.md §5). ns-2's shares on this setup: docs/models/periodic_ns2.md.
CAUSE = {"islands": (
    "Seed-mean shares of the link-level gaps: {v.15.lt:.3f} below a tenth of a second, {v.15.gt:.3f} above a second "
    "({v.15.n:.0f} gaps pooled); the histogram's peaks below a tenth of a second and above a second (nan: none "
    "high enough) sit at {v.15.lo_s:.3g} s and {v.15.hi_s:.3g} s, with a valley of {v.15.valley:.2f} of the lower peak. A burst contributes one "
    "between-burst gap and (drops - one) in-burst gaps, so the share above a second is about one over the drops per "
    "burst: RED keeps dropping until the average queue falls below its thresholds (P001 §II.B). ns-2 on this setup: "
    "docs/models/periodic_ns2.md." + _p0.SETUP)}


def plot(run: Run):
    return _fig10.plot(ID, LEVEL, run)
