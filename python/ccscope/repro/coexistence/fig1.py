"""coexistence/fig1: AIMD throughput ratio T_r = (1 - beta_tcp)/(1 - beta_dctcp) (eqs 3-4), beta = kept fraction."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.fluid import throughput_ratio
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict

ID = "coexistence/fig1"
TITLE = "AIMD model: throughput ratio vs DCTCP back-off factor"
KIND = "fluid"
COST = "closed form"
CLAIM = "T_r = alpha_d(1-beta_t)/(alpha_t(1-beta_d)) with beta_t = 0.5 equals 1 at beta_d = 0.5 and rises steeply as beta_d -> 1."


def run(quick: bool) -> Run:
    b = np.linspace(0.5, 0.95, 200)
    return Run(params={"beta_tcp": 0.5, "alpha": 1.0},
               frames={"curve": pd.DataFrame({"beta_dctcp": b, "t_r": throughput_ratio(b)})},
               values={str(x): throughput_ratio(x) for x in (0.5, 0.75, 0.9, 0.8925)},
               errata=[{"id": "E64", "paper": "back-off factor 0.215", "corrected": "mean alpha 0.215: beta = 0.8925, T_r = 4.65"}],
               quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    for x, t in (("0.5", 1.0), ("0.75", 2.0), ("0.9", 5.0), ("0.8925", 0.5 / 0.1075)):
        c.near(f"T_r({x})", v[x], t, 1e-12, "exact closed form")
    inc = bool(np.all(np.diff(run.frames["curve"].t_r) > 0))
    c.add("strictly increasing", inc, inc, "monotone", "exact")
    return verdict(c, v)


def plot(run: Run):
    d = run.frames["curve"]
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    ax.plot(d.beta_dctcp, d.t_r, label="eq 4, beta_tcp = 0.5")
    ax.plot([0.8925], [4.65], "o", color="C3", label="alpha = 0.215 -> T_r = 4.65 (§IV.E)")
    ref_line(ax, 1.0, "equal share")
    ax.set_xlabel("DCTCP back-off factor beta_dctcp (fraction of window kept)")
    ax.set_ylabel("throughput ratio T_r = T_dctcp / T_tcp")
    ax.set_title("AIMD coexistence model (Fig. 1)")
    ax.legend(fontsize=8)
    return fig
