"""dx/text-vary-c: utilization vs C (N = 50, R0 = 120 us): 99.86 / 96.11 / 86.44 % (setup Y0, see `_y0`)."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._sim import CAUSE_STABLE
from ccscope.repro.dx._util import sweep_plot

ID = "dx/text-vary-c"
TITLE = "utilization vs C (N = 50, R0 = 120 us): 99.86 / 96.11 / 86.44 %"
KIND = "sim"
STATUS = "partly"
COST = "3 runs (~1 s); quick 1 G x 0.2 s + 40 G x 20 ms"
CLAIM = "Utilization 99.86 %, 96.11 %, 86.44 % at 1, 10, 40 Gb/s: more bandwidth destabilizes DX (1 Gb/s is in the special state)."
PAPER = {1: 99.86, 10: 96.11, 40: 86.44}


def run(quick: bool) -> Run:
    import pandas as pd
    pts = [(1, 0.2), (40, 0.02)] if quick else [(1, 0.3), (10, 0.3), (40, 0.3)]
    d = pd.DataFrame([_y0.run_y0(50, 120, c_gbps=c, until_s=t)[0] for c, t in pts])
    return Run(params={**_y0.PARAMS, "n": 50, "r0_us": 120, "runs": pts}, frames={"sweep": d}, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, u = Checks(), run.frames["sweep"].sort_values("c_gbps").set_index("c_gbps").utilization * 100
    c.add("util(1 G) >= 99.8 %", u[1], u[1] >= 99.8, ">= 99.8", "special state")
    c.add("util(40 G) <= 92 %", u[40], u[40] <= 92, "<= 92", "paper 86.44 %")
    c.add("strictly decreasing in C", list(u.values), bool(np.all(np.diff(u.values) < 0)), "decreasing", "exact")
    return verdict(c, {f"util({int(k)}G)": float(v) for k, v in u.items()}, notes=CAUSE_STABLE)


def plot(run: Run):
    return sweep_plot(run.frames["sweep"], "c_gbps", "utilization", scale=100, xlabel="link rate C (Gb/s)",
                      ylabel="bottleneck utilization (%)", title="DX N = 50, R0 = 120 us: utilization vs C (§4.3)", paper=PAPER)
