"""dctcp-analysis/fig6: spectral radius of Z1 Z2 over (wbar, g) (Theorem 1).

For each grid point the limit cycle's return map is found by Newton on the map; Z1 Z2 comes from
the variational equation (the time-ordered fundamental matrix, erratum E8 -- the paper's exp(int J)
is exact only when the Jacobians commute) and is cross-checked by a finite-difference Jacobian.
Grid points whose orbit spends less than one delay on a side of S (h <= 0, near wbar = 2) have no
map of this form and are recorded as such.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.fluid import dctcp_normalized
from ccscope.repro._base import Checks, Run, figure, verdict

ID = "dctcp-analysis/fig6"
TITLE = "Limit-cycle stability: rho(Z1 Z2) < 1 over the (wbar, g) plane"
KIND = "fluid"
STATUS = "reproduced"
COST = "25 x 25 return-map fixed points (~5 min); quick 4 x 4 (~6 s)"
CLAIM = "The spectral radius of Z1 Z2 is < 1 for g in [0.001, 1] and wbar in [2.01, 1000]: the limit cycle is locally stable."


def run(quick: bool) -> Run:
    if quick:
        gs, ws = np.geomspace(0.01, 1, 4), np.geomspace(2.5, 100, 4)
    else:
        gs, ws = np.geomspace(0.001, 1, 25), np.geomspace(2.01, 1000, 25)
    rows = []
    for g in gs:
        for w in ws:
            try:
                p = dctcp_normalized(float(w), float(g)).poincare()
                rho_fd = float(np.max(np.abs(p.multipliers_fd)))
                rows.append({"wbar": w, "g": g, "rho": p.spectral_radius, "rho_fd": rho_fd, "ok": p.converged,
                             "period": p.period, "note": ""})
            except ValueError as e:
                rows.append({"wbar": w, "g": g, "rho": np.nan, "rho_fd": np.nan, "ok": False, "period": np.nan,
                             "note": str(e)[:120]})
    return Run(params={"g_grid": gs.tolist(), "wbar_grid": ws.tolist(), "method": "variational (E8) + FD"},
               frames={"grid": pd.DataFrame(rows)},
               errata=[{"id": "E8", "paper": "propagator exp(int J_F ds)", "corrected": "fundamental matrix of dPhi/dt = J_F Phi"}],
               quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    g = run.frames["grid"]
    ok = g[g.ok]
    c.add("points with a computed map", len(ok), len(ok) >= 0.8 * len(g), f">= 80% of {len(g)}",
          "points with h <= 0 (near wbar = 2) have no map of Theorem 1's form")
    c.add("max rho < 1", float(ok.rho.max()), bool(ok.rho.max() < 1), "< 1", "Theorem 1")
    # +-5%: the FD Jacobian of the map (step 1e-6 relative) vs the variational equation; both converge
    # to the same multipliers up to FD truncation error. Where rho < 1e-3 (g ~ 1, large wbar: the map is
    # nearly constant) the FD error (~1e-6 absolute) dominates, so there the test is |diff| < 1e-4.
    big = ok[ok.rho >= 1e-3]
    rel = ((big.rho - big.rho_fd).abs() / big.rho).max() if len(big) else 0.0
    absd = (ok[ok.rho < 1e-3].rho - ok[ok.rho < 1e-3].rho_fd).abs().max() if (ok.rho < 1e-3).any() else 0.0
    c.add("rho vs FD Jacobian (rho >= 1e-3)", float(rel), bool(rel <= 0.05), "<= 5% relative", "FD truncation")
    c.add("rho vs FD Jacobian (rho < 1e-3)", float(absd), bool(absd <= 1e-4), "<= 1e-4 absolute", "FD noise floor")
    return verdict(c, {"max_rho": ok.rho.max(), "min_rho": ok.rho.min(), "n_points": len(g), "n_map": len(ok)})


def plot(run: Run):
    fig, ax = figure(width=6.4, height=4.8)
    ax = ax[0, 0]
    g = run.frames["grid"]
    piv = g.pivot(index="g", columns="wbar", values="rho")
    im = ax.pcolormesh(piv.columns, piv.index, piv.values, shading="nearest", vmin=0, vmax=1, cmap="viridis")
    ax.set_xscale("log")
    ax.set_yscale("log")
    fig.colorbar(im, ax=ax, label="spectral radius rho(Z1 Z2) (stable < 1)")
    ax.set_xlabel("wbar = (Cd + K)/N")
    ax.set_ylabel("g")
    ax.set_title("Theorem 1: limit-cycle stability (Fig. 6)")
    return fig
