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
STATUS = "partly"
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
    # FIGURES.md: at 5 random grid points rho matches a finite-difference Jacobian of the return map within
    # +-5%. The 5 points are drawn with a fixed seed (1) among the points with a map. +-5%: the FD Jacobian
    # (step 1e-6 relative) vs the variational equation differ by FD truncation; where rho < 1e-3 (g ~ 1,
    # large wbar: the map is nearly constant) the FD error dominates, so there the test is |diff| < 1e-4.
    pick = ok.iloc[np.sort(np.random.default_rng(1).choice(len(ok), size=min(5, len(ok)), replace=False))]
    big, small = pick[pick.rho >= 1e-3], pick[pick.rho < 1e-3]
    rel = float(((big.rho - big.rho_fd).abs() / big.rho).max()) if len(big) else 0.0
    absd = float((small.rho - small.rho_fd).abs().max()) if len(small) else 0.0
    c.add("rho vs FD Jacobian at 5 random points (rho >= 1e-3)", rel, bool(rel <= 0.05), "<= 5% relative", "FD truncation")
    c.add("rho vs FD Jacobian at 5 random points (rho < 1e-3)", absd, bool(absd <= 1e-4), "<= 1e-4 absolute", "FD noise floor")
    # Every point (advisory): in the corner g >= 0.4, wbar >= 350 the orbit lasts 70-110 R* and rho from the
    # variational equation is 1e-10 .. 2e-3, while the FD Jacobian reads up to 0.08 (crossing-time error of the
    # FD return map); both are < 1, so the stability claim is unaffected.
    big, small = ok[ok.rho >= 1e-3], ok[ok.rho < 1e-3]
    rel_all = float(((big.rho - big.rho_fd).abs() / big.rho).max()) if len(big) else 0.0
    abs_all = float((small.rho - small.rho_fd).abs().max()) if len(small) else 0.0
    c.add("rho vs FD Jacobian, every point (rho >= 1e-3)", rel_all, bool(rel_all <= 0.05), "<= 5% relative",
          "FD truncation", advisory=True)
    c.add("rho vs FD Jacobian, every point (rho < 1e-3)", abs_all, bool(abs_all <= 1e-4), "<= 1e-4 absolute",
          "FD noise floor", advisory=True)
    return verdict(c, {"max_rho": ok.rho.max(), "min_rho": ok.rho.min(), "n_points": len(g), "n_map": len(ok)},
                   notes=("The claim holds on the full 25 x 25 grid: rho from the variational equation is < 1 at all "
                          "620 points with a map (max 0.988 at g = 0.001, wbar = 5.7), and where rho >= 1e-3 the FD "
                          "Jacobian agrees to 3e-7 relative. The FD cross-check fails only where the map is almost "
                          "constant (g >= 0.4, wbar >= 160: orbits of 40-110 R*, rho 1e-10 .. 2e-3 from the variational "
                          "equation, 1e-6 .. 0.08 from FD): 55 of 620 points, and one of the 5 seeded random points "
                          "(wbar = 163, g = 0.75: 1.7e-6 vs 8.9e-4). The FD of a return map found to a finite crossing "
                          "tolerance cannot resolve multipliers that small, so the 1e-4 floor is not met there; "
                          "which of the two is right at rho << 1e-3 was not settled. Quick (4 x 4) passes."))


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
