"""dx/fig1b: Theorem 1 delay bound vs bandwidth (N = 50, R0 = 80 us)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.dx._bound import ERRATA, bound_us

ID = "dx/fig1b"
TITLE = "Theorem 1 delay bound vs bandwidth"
KIND = "fluid"
COST = "closed form"
CLAIM = "The bound falls as C grows. [DER] 941 / 184 / 105 / 77 / 67 / 62 us at 1 / 5 / 10 / 20 / 40 / 100 Gb/s."
DER = {1: 941, 5: 184, 10: 105, 20: 77, 40: 67, 100: 62}


def run(quick: bool) -> Run:
    c = np.unique(np.concatenate([np.geomspace(1, 100, 60), list(DER)]))
    return Run(params={"n": 50, "r0_s": 80e-6, "p": 0.95},
               frames={"bound": pd.DataFrame({"rate_gbps": c, "bound_us": [bound_us(50, x * 1e9, 80e-6) for x in c]})},
               errata=ERRATA, quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    b = run.frames["bound"].set_index("rate_gbps").bound_us
    for g, v in DER.items():
        c.rel(f"bound at {g} Gb/s (us)", float(b[float(g)]), v, 0.01, "[DER] +-1%")
    c.add("strictly decreasing", bool(np.all(np.diff(b.values) < 0)), bool(np.all(np.diff(b.values) < 0)), "monotone", "exact")
    return verdict(c, {f"{g}G": float(b[float(g)]) for g in DER})


def plot(run: Run):
    d = run.frames["bound"]
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    ax.loglog(d.rate_gbps, d.bound_us, label="corrected eq 17 (E50)")
    ref_line(ax, 80, "R0 = 80 us")
    ax.plot(list(DER), list(DER.values()), "x", color="C3", label="[DER] values")
    ax.set_xlabel("bottleneck bandwidth C (Gb/s)")
    ax.set_ylabel("delay bound (us)")
    ax.set_title("DX Theorem 1 bound vs bandwidth, N = 50 (Fig. 1b)")
    ax.legend(fontsize=8)
    return fig
