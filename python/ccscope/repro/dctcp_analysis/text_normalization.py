"""dctcp-analysis/text-normalization: only wbar = (Cd+K)/N and g matter (eq 10); a fixed point exists
iff wbar <= 2 (erratum E2: at (W, alpha, q~) = (2, 1, 2/wbar - 1), not W = 2/wbar)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.fluid import dctcp, dctcp_normalized
from ccscope.repro._base import Checks, Run, figure, verdict

ID = "dctcp-analysis/text-normalization"
TITLE = "Two parameters (wbar, g) govern the dynamics; fixed point iff wbar <= 2"
KIND = "fluid"
COST = "4 DDE runs (~3 s)"
CLAIM = ("(C, N, d, K, g) enter only through wbar = (Cd+K)/N and g: two parameter sets with equal wbar give "
         "identical normalized trajectories; wbar = 1.5 converges to the fixed point, wbar = 2.5 keeps oscillating.")


def _normalized(model, until_rstar: float) -> pd.DataFrame:
    rstar = float(model.r_star_s[0])
    res = model.solve(until_rstar * rstar, dt_s=rstar / 100, record_every=10)
    tr = res.traces
    c = model.c_pps
    return pd.DataFrame({"time_rtt": tr.time_s / rstar, "window": tr.window_pkts,
                         "queue_norm": (tr.queue_pkts - model.k_pkts) / (c * rstar), "alpha": tr.alpha})


def run(quick: bool) -> Run:
    until = 60.0 if quick else 100.0
    a = _normalized(dctcp(10, 10e9, 100e-6, 65, g=1 / 16), until)
    b = _normalized(dctcp(10, 40e9, 25e-6, 65, g=1 / 16), until)
    f15 = dctcp_normalized(1.5, 1 / 16).solve(200.0, dt=0.05, record_every=20).traces  # fixed point: exact for any dt
    f25 = dctcp_normalized(2.5, 1 / 16).solve(150.0, dt=0.02, record_every=10).traces  # amplitude after 100 R*
    return Run(params={"set_a": "C=10G d=100us K=65 N=10", "set_b": "C=40G d=25us K=65 N=10", "until_rstar": until},
               frames={"set_a": a, "set_b": b, "wbar_1.5": f15, "wbar_2.5": f25},
               errata=[{"id": "E2", "paper": "fixed point W = 2/wbar", "corrected": "W = 2"}], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    a, b = run.frames["set_a"], run.frames["set_b"]
    n = min(len(a), len(b))
    d = float(np.max(np.abs(a.queue_norm.values[:n] - b.queue_norm.values[:n])))
    dw = float(np.max(np.abs(a.window.values[:n] - b.window.values[:n]) / a.window.values[:n]))
    # 1e-6: both integrate the same normalized equations with the same normalized step (R*/500)
    c.add("normalized q~ difference", d, d < 1e-6, "< 1e-6", "same normalized step")
    c.add("window relative difference", dw, dw < 1e-6, "< 1e-6", "same normalized step")
    last = run.frames["wbar_1.5"].iloc[-1]
    c.near("wbar = 1.5: W~", float(last.window_pkts), 2.0, 1e-3, "fixed point")
    c.near("wbar = 1.5: q~", float(last.queue_norm), 2 / 1.5 - 1, 1e-3, "fixed point 2/wbar - 1 (E2)")
    t = run.frames["wbar_2.5"]
    amp = float(t[t.time_rtt > 100].queue_norm.max() - t[t.time_rtt > 100].queue_norm.min())
    c.add("wbar = 2.5 amplitude", amp, amp > 0.01, "> 0.01", "limit cycle")
    return verdict(c, {"max_dq_norm": d, "amp_wbar_2_5": amp, "fixed_point_q": float(last.queue_norm)})


def plot(run: Run):
    fig, axes = figure(1, 2, width=10, height=4)
    a, b = run.frames["set_a"], run.frames["set_b"]
    ax = axes[0, 0]
    ax.plot(a.time_rtt, a.queue_norm, lw=2.5, label="C = 10 Gb/s, d = 100 us")
    ax.plot(b.time_rtt, b.queue_norm, "--", color="k", lw=1, label="C = 40 Gb/s, d = 25 us")
    ax.set_xlabel("time (units of R*)")
    ax.set_ylabel("normalized queue q~")
    ax.set_title("equal wbar = 14.8, g = 1/16: same normalized trajectory")
    ax.legend(fontsize=8)
    ax = axes[0, 1]
    for k in ("wbar_1.5", "wbar_2.5"):
        t = run.frames[k]
        ax.plot(t.time_rtt, t.queue_norm, label=k.replace("_", " = "))
    ax.axhline(2 / 1.5 - 1, ls="--", color="0.3", label="fixed point 2/wbar - 1 (wbar = 1.5)")
    ax.set_xlabel("time (units of R*)")
    ax.set_ylabel("normalized queue q~")
    ax.set_title("fixed point iff wbar <= 2")
    ax.legend(fontsize=8)
    return fig
