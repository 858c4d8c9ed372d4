"""dx/fig3b: utilization vs N (R0 = 80 us): special state beyond N = 67 (setup Y0, see `_y0`)."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._sim import CAUSE_STABLE
from ccscope.repro.dx._util import sweep_plot

ID = "dx/fig3b"
TITLE = "utilization vs N (R0 = 80 us): special state beyond N = 67"
KIND = "sim"
STATUS = "partly"
COST = "10 x 0.3 s (~1 s); quick 2 x 0.1 s"
CLAIM = "Beyond N = 67 (C R0/seg) DX enters the special state: windows cannot fall below 1 seg, the queue never drains and utilization is high."


def run(quick: bool) -> Run:
    ns = [20, 80] if quick else list(range(10, 101, 10))
    d = _y0.table([(n, 80) for n in ns], until_s=0.1 if quick else 0.3)
    return Run(params={**_y0.PARAMS, "r0_us": 80, "n": ns}, frames={"sweep": d}, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].sort_values("n").set_index("n")
    sp = d[d.index >= 70]
    c.add("utilization >= 99.8 % for N >= 70", float(sp.utilization.min()), bool((sp.utilization >= 0.998).all()), ">= 0.998", "special state")
    drop = float(np.max(-np.diff(d.utilization.values), initial=0.0))
    c.add("non-decreasing in N (0.5 pt noise)", drop, drop <= 0.005, "dip <= 0.005", "0.5-pt noise")
    c.add("queue never empty for N >= 70", float(sp.queue_min_pkts.min()), bool((sp.queue_min_pkts > 0).all()), "min queue > 0", "Theorem 2")
    return verdict(c, {f"util(N={k})": float(v) for k, v in d.utilization.items()}, notes=CAUSE_STABLE)


def plot(run: Run):
    return sweep_plot(run.frames["sweep"], "n", "utilization", scale=100, xlabel="number of flows N",
                      ylabel="bottleneck utilization (%)", title="DX R0 = 80 us: utilization vs N (Fig. 3b)",
                      refs=[(66.7, "special state N >= C R0/seg = 66.7", True)])
