"""dx/text-vary-n: utilization vs N (R0 = 120 us): 94.81 / 96.11 / 98.53 % (setup Y0, see `_y0`)."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._sim import CAUSE_STABLE
from ccscope.repro.dx._util import sweep_plot

ID = "dx/text-vary-n"
TITLE = "utilization vs N (R0 = 120 us): 94.81 / 96.11 / 98.53 %"
KIND = "sim"
STATUS = "partly"
COST = "3 x 0.3 s; quick 2 x 0.1 s"
CLAIM = "Utilization 94.81 %, 96.11 %, 98.53 % at N = 10, 50, 100 (R0 = 120 us), rising with N; predicted threshold N > 42."
PAPER = {10: 94.81, 50: 96.11, 100: 98.53}


def run(quick: bool) -> Run:
    ns = [10, 100] if quick else list(PAPER)
    d = _y0.table([(n, 120) for n in ns], until_s=0.1 if quick else 0.3)
    return Run(params={**_y0.PARAMS, "r0_us": 120}, frames={"sweep": d}, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, u = Checks(), run.frames["sweep"].sort_values("n").set_index("n").utilization * 100
    c.add("strictly increasing in N", list(u.values), bool(np.all(np.diff(u.values) > 0)), "increasing", "exact")
    c.within("util(10) %", u[10], 91, 98, "94.81 +-3 pt")
    c.add("util(100) >= 98 %", u[100], u[100] >= 98, ">= 98", "special-state boundary")
    return verdict(c, {f"util(N={int(k)})": float(v) for k, v in u.items()}, notes=CAUSE_STABLE)


def plot(run: Run):
    return sweep_plot(run.frames["sweep"], "n", "utilization", scale=100, xlabel="number of flows N",
                      ylabel="bottleneck utilization (%)", title="DX R0 = 120 us: utilization vs N (§4.3)", paper=PAPER)
