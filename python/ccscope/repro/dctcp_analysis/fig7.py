"""dctcp-analysis/fig7: limit-cycle undershoot Qmin and overshoot Qmax vs wbar, one curve per g.

Normalized eqs 11-14 (no floor), batched DDE solver. Erratum E9 (FIGURES.md known inconsistency 9):
the paper says the worst undershoot is at wbar ~ 12-16; the model gives 10-14.
"""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.dctcp_analysis._cycles import sweep

ID = "dctcp-analysis/fig7"
TITLE = "Queue undershoot/overshoot of the limit cycle vs wbar"
KIND = "fluid"
COST = "5 g x 30 wbar DDE runs (~4 min); quick 2 g x 6 wbar (~4 s)"
CLAIM = ("Qmax hardly depends on g and grows as wbar shrinks; the undershoot is worst near wbar ~ 12-16 and deepens "
         "with g; for small g, Qmin >~ -0.15, hence K ~ 0.17 C d. [DER] min Qmin: -0.131 (g = 0.01), -0.153 (g = 0.1).")


def run(quick: bool) -> Run:
    if quick:
        gs, ws, dt = [0.01, 0.1], [4, 8, 12, 16, 30, 100], 0.02
    else:
        gs, ws, dt = [0.001, 0.01, 0.05, 0.1, 0.2], np.geomspace(2.01, 1000, 30).tolist(), 0.01
    df = sweep(gs, ws, dt=dt)
    return Run(params={"g": gs, "wbar": ws, "dt": dt, "run_rtt": "max(300, 8/g)", "measure": "last 30%"},
               frames={"cycles": df}, quick=quick,
               errata=[{"id": "dctcp-9", "paper": "worst undershoot at wbar ~ 12-16", "corrected": "model: 10-14"}])


def check(run: Run) -> dict:
    c = Checks()
    df = run.frames["cycles"]
    small = df[df.g <= 0.1]
    worst = {}
    for g, d in small.groupby("g"):
        i = d.q_min.idxmin()
        worst[g] = (float(d.q_min[i]), float(d.wbar[i]))
        # [-0.16, -0.12]: FIGURES.md; the DER values -0.130 ... -0.153 with dt error < 1e-3
        c.within(f"min Qmin (g={g:g})", worst[g][0], -0.16, -0.12, "[DER] -0.130..-0.153")
        # arg-min in [8, 20]: the curve is flat near its minimum; grid spacing sets this band
        c.within(f"arg-min wbar (g={g:g})", worst[g][1], 8, 20, "flat minimum, grid spacing")
    piv_min = df.pivot(index="wbar", columns="g", values="q_min")
    piv_max = df.pivot(index="wbar", columns="g", values="q_max")
    small_cols = [g for g in piv_max.columns if g <= 0.1]
    spread_max = ((piv_max[small_cols].max(axis=1) - piv_max[small_cols].min(axis=1)) / piv_max[small_cols].min(axis=1)).max()
    c.add("Qmax relative spread across g <= 0.1", float(spread_max), bool(spread_max < 0.15), "< 15%",
          "[DER] peak 12% (overshoot insensitive to g)")
    # §3.3.1 (i)/(iii): the overshoot "is not sensitive to g" while the undershoot "increases as g increases".
    # FIGURES.md's row: over the whole g set, Qmax's relative spread (max - min)/min is < 1/2 of Qmin's (of |Qmin|)
    # at every wbar ([DER] wbar = 12, g = 0.001 vs 0.2: 16% vs 44%). Deterministic fluid runs: no standard error;
    # the integration error (< 1e-3 absolute) is far below the spreads compared.
    sp_max = (piv_max.max(axis=1) - piv_max.min(axis=1)) / piv_max.min(axis=1)
    amin = piv_min.abs()
    sp_min = (amin.max(axis=1) - amin.min(axis=1)) / amin.min(axis=1)
    ratio = sp_max / sp_min
    worst_w = float(ratio.idxmax())
    c.add("Qmax spread < 1/2 Qmin spread across g, every wbar (worst ratio)", float(ratio.max()),
          bool(np.all(ratio < 0.5)), "< 0.5 at every wbar", f"worst at wbar = {worst_w:.3g}")
    mono = bool(np.all(np.diff(piv_min.values, axis=1) <= 1e-4))
    c.add("Qmin deepens with g at every wbar", mono, mono, "monotone", "1e-4 integration noise")
    if {0.001, 0.01} <= set(piv_min.columns):
        d = float((piv_min[0.001] - piv_min[0.01]).abs().max())
        c.add("g=0.001 vs 0.01 curves", d, d < 0.01, "< 0.01 abs", "small-g limit")
    return verdict(c, {"worst_qmin": {str(k): v[0] for k, v in worst.items()},
                       "argmin_wbar": {str(k): v[1] for k, v in worst.items()}, "qmax_spread": spread_max,
                       "spread_ratio_max": float(ratio.max()), "spread_ratio_worst_wbar": worst_w})


def plot(run: Run):
    fig, ax = figure(width=6.8, height=4.6)
    ax = ax[0, 0]
    df = run.frames["cycles"]
    for i, (g, d) in enumerate(df.groupby("g")):
        ax.semilogx(d.wbar, d.q_max, "-o", ms=3, color=f"C{i}", label=f"Qmax, g = {g:g}")
        ax.semilogx(d.wbar, d.q_min, "--s", ms=3, color=f"C{i}", label=f"Qmin, g = {g:g}")
    ref_line(ax, -0.15, "paper: Qmin >~ -0.15 (small g)")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("wbar = (Cd + K)/N")
    ax.set_ylabel("normalized queue extremes (q - K)/(C R*)")
    ax.set_title("Limit-cycle overshoot and undershoot (Fig. 7)")
    ax.legend(fontsize=7, ncol=2)
    return fig
