"""dctcp-analysis/fig4: phase portrait of the normalized DCTCP model (wbar = 10, g = 1/16).

Eqs 11-14 without the queue floor, delay 1 (= R*). Trajectories from several starts are drawn onto
one closed orbit (no fixed point for wbar > 2); a control run at wbar = 1.5 settles on the fixed
point (2, 1, 2/wbar - 1) (erratum E2: the paper prints W = 2/wbar).
"""
from __future__ import annotations

import pandas as pd

from ccscope.fluid import dctcp_normalized
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict

ID = "dctcp-analysis/fig4"
TITLE = "Phase portrait: every start converges to one limit cycle (wbar = 10, g = 1/16)"
KIND = "fluid"
COST = "6 DDE runs x 200 R* (~15 s); quick 3 runs x 120 R* (~4 s)"
CLAIM = ("With wbar > 2 the normalized model has no fixed point; trajectories from all starts converge to "
         "one limit cycle. [DER] cycle: q~min = -0.142, q~max = 0.113, period 7.17 R*.")
WBAR, G = 10.0, 1 / 16
DER = {"q_min": -0.142, "q_max": 0.113, "period": 7.17}


def run(quick: bool) -> Run:
    starts = [(5, -0.1), (10, 0.1), (15, -0.1)] if quick else [(w, q) for w in (5, 10, 15) for q in (-0.1, 0.1)]
    until, dt = (120.0, 0.01) if quick else (200.0, 0.002)
    model = dctcp_normalized(WBAR, G)
    frames, rows = [], []
    for i, (w0, q0) in enumerate(starts):
        # history p = 0 on [-1, 0]: a queue below the threshold before t = 0 (FIGURES.md [NG])
        res = model.solve(until, dt=dt, w0=w0, alpha0=0.3, q0=q0, history_q=-1.0, settle=until - 40.0, record_every=5)
        tr = res.traces.assign(start=i)
        frames.append(tr)
        lc = res.limit_cycle
        rows.append({"start": i, "w0": w0, "q0": q0, "q_min": lc.q_min, "q_max": lc.q_max, "period": lc.period})
    # alpha relaxes at rate g per R*: 300 R* leaves e^(-300/16) ~ 1e-8 of the start error
    ctrl = dctcp_normalized(1.5, G).solve(300.0, dt=0.02, record_every=50)
    last = ctrl.traces.iloc[-1]
    return Run(params={"wbar": WBAR, "g": G, "starts": starts, "alpha0": 0.3, "history": "p = 0 on [-1, 0]",
                       "until_rtt": until, "dt": dt, "measure": "last 40 R*"},
               frames={"trajectories": pd.concat(frames, ignore_index=True), "cycles": pd.DataFrame(rows)},
               values={"control": {"w": float(last.window_pkts), "alpha": float(last.alpha), "q": float(last.queue_norm)}},
               errata=[{"id": "E2", "paper": "fixed point W = 2/wbar", "corrected": "W = 2"}], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    cyc = run.frames["cycles"]
    for col in ("q_min", "q_max", "period"):
        spread = float(cyc[col].max() - cyc[col].min())
        # every start on the same orbit: the integration is deterministic, so only the sampling of
        # the extremes (dt) separates them; 1e-3 (2e-3 on the period, two crossings) is the dt bound
        c.add(f"{col} spread over starts", spread, spread <= (2e-3 if col == "period" else 1e-3), "<= 1e-3",
              "same orbit up to sampling at dt")
        # +-3%: FIGURES.md, integration error < 0.3% plus the dt of the quick variant
        c.rel(f"{col} vs [DER]", float(cyc[col].mean()), DER[col], 0.03, "integration error < 0.3%, dt sampling")
    ctl = run.values["control"]
    c.near("control wbar=1.5: W~", ctl["w"], 2.0, 1e-3, "fixed point (E2)")
    c.near("control wbar=1.5: alpha~", ctl["alpha"], 1.0, 1e-3, "fixed point")
    c.near("control wbar=1.5: q~", ctl["q"], 2 / 1.5 - 1, 1e-3, "fixed point 2/wbar - 1")
    return verdict(c, {"q_min": cyc.q_min.mean(), "q_max": cyc.q_max.mean(), "period_rtt": cyc.period.mean(),
                       "control": ctl})


def plot(run: Run):
    fig, ax = figure(width=6.4, height=4.6)
    ax = ax[0, 0]
    tr = run.frames["trajectories"]
    for i, g in tr.groupby("start"):
        ax.plot(g.window_pkts, g.queue_norm, lw=0.7, label=f"start {i}: W~={g.window_pkts.iloc[0]:g}, q~={g.queue_norm.iloc[0]:g}")
    last = tr[tr.start == 0]
    last = last[last.time_rtt > last.time_rtt.max() - 8]
    ax.plot(last.window_pkts, last.queue_norm, color="k", lw=2.2, label="limit cycle")
    ref_line(ax, DER["q_min"], "[DER] q~min -0.142 / q~max 0.113")
    ref_line(ax, DER["q_max"])
    ax.set_xlabel("normalized window W~ (pkts)")
    ax.set_ylabel("normalized queue q~ = (q - K)/(C R*)")
    ax.set_title("DCTCP normalized model, wbar = 10, g = 1/16 (Fig. 4)")
    ax.legend(fontsize=7, loc="upper right")
    return fig
