"""dx/fig1a: Theorem 1 delay bound vs number of flows (C = 10 Gb/s, R0 = 80 us, p = 0.95)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.dx._bound import ERRATA, bound_us

ID = "dx/fig1a"
TITLE = "Theorem 1 delay bound vs N"
KIND = "fluid"
COST = "closed form, 150 points"
CLAIM = "The bound grows with N; at N = 50, R0 = 80 us it is 105 us; it crosses R0 = 80 us between N = 27 and 28."
DER = {5: 62, 10: 65, 20: 73, 30: 82, 50: 105, 70: 134, 100: 184}


def run(quick: bool) -> Run:
    n = np.arange(1, 151)
    return Run(params={"rate_bps": 10e9, "r0_s": 80e-6, "p": 0.95, "tau": "R0"},
               frames={"bound": pd.DataFrame({"n": n, "bound_us": [bound_us(x, 10e9, 80e-6) for x in n]})},
               errata=ERRATA, quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    b = run.frames["bound"].set_index("n").bound_us
    for n, v in DER.items():
        c.rel(f"bound at N = {n} (us)", float(b[n]), v, 0.01, "[DER] +-1% (rounded to 1 us)")
    c.add("strictly increasing", bool(np.all(np.diff(b.values) > 0)), bool(np.all(np.diff(b.values) > 0)), "monotone", "exact")
    c.add("crosses 80 us between N = 27 and 28", (float(b[27]), float(b[28])), b[27] < 80 < b[28], "b(27) < 80 < b(28)", "exact")
    return verdict(c, {f"N={n}": float(b[n]) for n in DER})


def plot(run: Run):
    d = run.frames["bound"]
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    ax.plot(d.n, d.bound_us, label="corrected eq 17 (E50), tau = R0")
    ref_line(ax, 80, "R0 = 80 us")
    ax.plot(list(DER), list(DER.values()), "x", color="C3", label="[DER] values")
    ax.set_xlabel("number of flows N")
    ax.set_ylabel("delay bound (us)")
    ax.set_title("DX Theorem 1 bound vs N (Fig. 1a)")
    ax.legend(fontsize=8)
    return fig
