"""dx/fig1c: Theorem 1 delay bound vs base RTT (N = 50, C = 10 Gb/s); stable while bound > R0."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.fluid.dx import max_stable_r0
from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.dx._bound import ERRATA, bound_us

ID = "dx/fig1c"
TITLE = "Theorem 1 delay bound vs base RTT"
KIND = "fluid"
COST = "closed form"
CLAIM = "A large base RTT breaks the condition: bound > R0 only for R0 < ~145 us at N = 50."
DER = {10: 94, 20: 93, 40: 92, 80: 105, 120: 128, 200: 183, 400: 327}


def run(quick: bool) -> Run:
    r0 = np.unique(np.concatenate([np.geomspace(10, 500, 80), list(DER)]))
    return Run(params={"n": 50, "rate_bps": 10e9, "p": 0.95},
               frames={"bound": pd.DataFrame({"r0_us": r0, "bound_us": [bound_us(50, 10e9, x * 1e-6) for x in r0]})},
               values={"max_stable_r0_us": max_stable_r0(50, 10e9) * 1e6}, errata=ERRATA, quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    b = run.frames["bound"].set_index("r0_us").bound_us
    for r, v in DER.items():
        c.rel(f"bound at R0 = {r} us", float(b[float(r)]), v, 0.01, "[DER] +-1%")
    c.near("largest stable R0 (us)", run.values["max_stable_r0_us"], 145, 1.0, "[DER] 145 +-1 us")
    return verdict(c, {"max_stable_r0_us": run.values["max_stable_r0_us"]})


def plot(run: Run):
    d = run.frames["bound"]
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    ax.plot(d.r0_us, d.bound_us, label="corrected eq 17 (E50)")
    ax.plot(d.r0_us, d.r0_us, "--", color="0.3", label="y = R0 (stable above)")
    ax.axvline(145, ls=":", color="C3", label="paper: R0 < 145 us")
    ax.set_xlabel("base RTT R0 (us)")
    ax.set_ylabel("delay bound (us)")
    ax.set_title("DX Theorem 1 bound vs R0, N = 50, 10 Gb/s (Fig. 1c)")
    ax.legend(fontsize=8)
    return fig
