"""periodic/fig10a: inter-drop times, max_th = 15, link level (the `fig9c` run).

Gaps between consecutive drops at the bottleneck M2→M3 (any flow), after warm-up; log-time histogram.
"""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import SIMULATOR_MISSES_TOO, Checks, Run, verdict
from ccscope.repro.periodic import _fig10, _p0

ID = "periodic/fig10a"
TITLE = "inter-drop times, RED max_th = 15, link level"
KIND = "sim"
STATUS = "reproduced"
COST = "reuses the fig9c / fig9d runs (full ~2 s each)"
CLAIM = 'max_th = 15, link level: two islands of inter-drop times, back-to-back drops inside a burst and the gaps between bursts.'
LEVEL = 'link'
SIZES = (15,)


def run(quick: bool) -> Run:
    return _fig10.run(LEVEL, SIZES, quick)


def check(run: Run) -> dict:
    c = Checks()
    v = run.values
    d = v["15"]
    c.add("≥ 30% of gaps < 0.1 s", d["frac_lt_0_1"], d["frac_lt_0_1"] >= 0.3, "≥ 0.3", "in-burst island")
    # FIGURES.md's 20% share is read off a lost histogram; the paper states only that there are two islands
    # (checked by the other two rows). Advisory: ns-2 on this setup and start times gives 2.3% (tens of drops per
    # burst: the share is ≈ 1/(drops per burst)), docs/models/periodic_ns2.md.
    c.add("≥ 20% of gaps > 1 s", d["frac_gt_1"], d["frac_gt_1"] >= 0.2, "≥ 0.2", "between-burst island; ns-2 on this setup: 0.023",
          basis=SIMULATOR_MISSES_TOO)
    g = run.frames["gaps"].gap_s.to_numpy()
    lo, hi = np.median(g[g < 0.1]) if (g < 0.1).any() else np.nan, np.median(g[g > 1]) if (g > 1).any() else np.nan
    c.add("the two modes ≥ 1 decade apart", float(hi / lo), bool(hi / lo >= 10), "≥ 10", "two islands")
    n_per_burst = 1 / d["frac_gt_1"] if d["frac_gt_1"] else float("nan")
    notes = CAUSE.format(frac=d["frac_gt_1"], n=n_per_burst) if d["frac_gt_1"] < 0.2 else _p0.CAUSE
    return verdict(c, v, tolerance="FIGURES.md thresholds", notes=notes)


CAUSE = ("The two islands are there (modes > 2 decades apart) but only {frac:.1%} of the gaps exceed 1 s: a burst contributes "
         "one between-burst gap and (drops − 1) in-burst gaps, so the fraction > 1 s is ≈ 1/(drops per burst) ≈ 1/{n:.0f}. "
         "FIGURES.md's ≥ 20% needs ≤ 5 drops per burst, but Appendix-B RED drops every arrival while avg > max_th and, with "
         "w_q = 0.002 at 187.5 pkt/s, avg lags the queue by a 2.7-s time constant: avg stays above max_th = 15 for "
         "seconds after the queue drains, and tens of packets per epoch are dropped (P001 §II.B: RED 'drops packets until "
         "the time-averaged queue length falls below both of its thresholds'). The 20% share is an inference from a lost "
         "histogram; the mechanism the paper describes gives far more in-burst gaps. ns-2 (ns-2.35, same setup and start "
         "times, docs/models/periodic_ns2.md): 2.3% of the gaps exceed 1 s with this count spacing, 2.4% with ns-2's "
         "`wait_` spacing." + _p0.SETUP_NOTE)


def plot(run: Run):
    return _fig10.plot(ID, LEVEL, run)
