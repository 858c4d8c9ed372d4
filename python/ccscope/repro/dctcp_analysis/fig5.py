"""dctcp-analysis/fig5: the Poincaré return map on S = {q~ = 0} (schematic).

The map takes one downward crossing of S to the next (history p = 1 on [-1, 0]); it is computed by
integrating eqs 11-14 with DOP853 (`DctcpNormalized.return_map`). Its iterates from a start 1e-3 off
the fixed point contract by a ratio that must match the spectral radius of Theorem 1 (fig6).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.fluid import dctcp_normalized
from ccscope.repro._base import Checks, Run, figure, verdict

ID = "dctcp-analysis/fig5"
TITLE = "Poincaré map on the switching plane q~ = 0 is well defined and contracts"
KIND = "fluid (schematic)"
COST = "one limit cycle + a few map iterations (~2 s)"
CLAIM = ("The return map P on q~ = 0 is well defined; its fixed point is x_alpha*; both half-periods exceed "
         "one delay (h_alpha, h_beta > 0); iterates converge to x_alpha*.")
WBAR, G = 10.0, 1 / 16


def run(quick: bool) -> Run:
    model = dctcp_normalized(WBAR, G)
    p = model.poincare()
    n_iter = 6 if quick else 12
    x = np.array([p.w_star + 1e-3, p.alpha_star + 1e-3])
    rows = []
    for i in range(n_iter):
        r = model.return_map(float(x[0]), float(x[1]))
        xn = np.array([r["w"], r["alpha"]])
        d0 = np.linalg.norm(x - [p.w_star, p.alpha_star])
        d1 = np.linalg.norm(xn - [p.w_star, p.alpha_star])
        rows.append({"i": i, "w": x[0], "alpha": x[1], "dist": d0, "ratio": d1 / d0})
        x = xn
    orbit = model.solve(60.0, dt=0.005, w0=p.w_star, alpha0=p.alpha_star, q0=0.0, history_q=1.0, record_every=2).traces
    return Run(params={"wbar": WBAR, "g": G, "start_offset": 1e-3, "iterations": n_iter},
               frames={"iterates": pd.DataFrame(rows), "orbit": orbit},
               values={"w_star": p.w_star, "alpha_star": p.alpha_star, "h_a": p.h_a, "h_b": p.h_b,
                       "rho": p.spectral_radius, "period": p.period}, quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    c.add("h_alpha > 0", v["h_a"], v["h_a"] > 0, "> 0", "Theorem 1 premise")
    c.add("h_beta > 0", v["h_b"], v["h_b"] > 0, "> 0", "Theorem 1 premise")
    it = run.frames["iterates"]
    ratio = float(it.ratio.iloc[-3:].mean())
    # +-10%: the contraction ratio of the norm tends to rho only asymptotically (two multipliers,
    # the subdominant one still contributes after a few iterations)
    c.rel("contraction ratio vs rho (fig6)", ratio, v["rho"], 0.10, "asymptotic ratio, subdominant multiplier")
    c.add("ratio < 1", ratio, ratio < 1, "< 1", "iterates converge")
    return verdict(c, {"contraction_ratio": ratio, **v})


def plot(run: Run):
    fig, axes = figure(1, 2, width=10, height=4.2)
    o = run.frames["orbit"]
    ax = axes[0, 0]
    ax.plot(o.window_pkts, o.queue_norm, lw=1, label="limit cycle")
    ax.axhline(0, color="k", lw=0.8)
    ax.plot([run.values["w_star"]], [0], "o", color="C3", label="x_alpha* (S+ -> S-)")
    ax.set_xlabel("normalized window W~ (pkts)")
    ax.set_ylabel("normalized queue q~")
    ax.set_title("switching plane S = {q~ = 0}")
    ax.legend(fontsize=8)
    it = run.frames["iterates"]
    ax = axes[0, 1]
    ax.semilogy(it.i, it.dist, "o-", label="|x_i - x*|")
    ax.semilogy(it.i, it.dist.iloc[0] * run.values["rho"] ** it.i, "--", color="0.3", label=f"rho^i (rho = {run.values['rho']:.3f}, fig6)")
    ax.set_xlabel("crossing index i")
    ax.set_ylabel("distance to fixed point")
    ax.set_title("Poincaré iterates (Fig. 5)")
    ax.legend(fontsize=8)
    return fig
