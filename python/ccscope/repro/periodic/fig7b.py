"""periodic/fig7b: loss of utilization vs buffer, short fixed RTT (40 ms).

DropTail (x = B), RED minfix (min_th 5, x = max_th) and RED ratiofix (min_th = max_th/3); ingress and
egress loss of utilization (P001 §II.C, footnote 5). Setup P0 via `_p0`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/fig7b"
TITLE = "loss of utilization vs buffer / max_th, short fixed RTT (40 ms)"
KIND = "sim"
STATUS = "reproduced"
COST = 'full: 28 runs × 4200 s (~40 s); quick 4 × 300 s (~1 s)'
CLAIM = 'Short fixed RTT (shorter than the time to send one 20-packet window): RED needs far more buffer than DropTail to reach 100% utilization.'
RTT = 'fixed'
SERVER_DELAY_S = 0.0  # [NG] short RTT: 20 ms one way on D_i-M3, ~0 on the server side (E21)
GRID = [15, 25, 50, 100, 150, 251, 375, 500, 750, 1000]  # [NG] B and max_th grid (FIGURES.md)
QUICK = {'droptail': [25, 100], 'minfix': [25, 100]}
QUICK_SIM_S = 300.0
FULL_LOSS_PCT = 0.5  # 'no loss': half a point covers 100-ms-bin quantization and idle slivers


def run(quick: bool) -> Run:
    plan = QUICK if quick else {q: GRID for q in ("droptail", "minfix", "ratiofix")}
    rows = []
    for q, sizes in plan.items():
        for size in sizes:
            m = _p0.run(RTT, q, size, quick, sim_s=QUICK_SIM_S if quick else None, server_delay_s=SERVER_DELAY_S)
            rows.append({"queue": q, "size_pkts": size, "egress_loss_pct": m["egress_loss_pct"],
                         "ingress_loss_pct": m["ingress_loss_pct"], "drops": m["drops_after_warmup"]})
    df = pd.DataFrame(rows)
    return Run(params={"rtt": RTT, "server_delay_s": SERVER_DELAY_S, "plan": {k: list(v) for k, v in plan.items()},
                       **_p0.setup(quick, sim_s=QUICK_SIM_S if quick else None), "seed": _p0.SEED},
               frames={"sweep": df}, values={"table": df.to_dict("records")}, seeds=[_p0.SEED], quick=quick)


def _smallest_full(df: pd.DataFrame, q: str) -> float:
    d = df[(df.queue == q) & (df.egress_loss_pct <= FULL_LOSS_PCT)]
    return float(d.size_pkts.min()) if len(d) else float("inf")


def check(run: Run) -> dict:
    c = Checks()
    df = run.frames["sweep"]
    meas = {}
    for q, d in df.groupby("queue"):
        d = d.sort_values("size_pkts")
        inc = float(np.diff(d.egress_loss_pct.to_numpy()).max()) if len(d) > 1 else 0.0
        # 0.5-pt noise allowed: one seed, the drop-epoch phase moves the loss by a few tenths.
        c.add(f"{q}: egress loss non-increasing in size (0.5-pt noise)", inc, inc <= 0.5, "max rise ≤ 0.5", "seed noise")
        meas[f"{q}_smallest_full_pkts"] = _smallest_full(df, q)
    # identity ingress = egress - 100·drop rate/line: ingress ≤ egress, equal only without drops.
    bad = df[(df.ingress_loss_pct > df.egress_loss_pct + 0.05) | ((df.drops > 0) & (df.ingress_loss_pct >= df.egress_loss_pct))]
    c.add("ingress ≤ egress in every run (equal only when drop-free)", len(bad), len(bad) == 0, "0 violations",
          "0.05-pt bin rounding")
    red = min(_smallest_full(df, "minfix"), _smallest_full(df, "ratiofix") if "ratiofix" in set(df.queue) else float("inf"))
    dt = _smallest_full(df, "droptail")
    c.add("smallest RED max_th for full ≥ 2 × smallest DropTail B", red, red >= 2 * dt, f"≥ {2 * dt:g}", "paper: RED needs far more buffer")
    return verdict(c, meas | {"table": df.to_dict("records")}, tolerance=f"'full' = egress loss ≤ {FULL_LOSS_PCT}%", notes=_p0.CAUSE)


def plot(run: Run):
    df = run.frames["sweep"]
    fig, axes = figure(1, 2, width=10, height=4, sharey=True)
    for ax, col, lab in ((axes[0, 0], "egress_loss_pct", "egress"), (axes[0, 1], "ingress_loss_pct", "ingress")):
        for q, d in df.groupby("queue"):
            d = d.sort_values("size_pkts")
            ax.plot(d.size_pkts, d[col], "o-", label={"droptail": "DropTail (B)", "minfix": "RED minfix (max_th)",
                                                       "ratiofix": "RED ratiofix (max_th)"}[q])
        ax.axhline(0, color="0.6", lw=0.8)
        ref_line(ax, 8, "BDP 8 pkts", vertical=True)
        ax.set_xscale("log")
        ax.set_xlabel("buffer B or max_th (pkts)")
        ax.set_title(f"{ID}: {lab}", fontsize=9)
        ax.legend(fontsize=7)
    axes[0, 0].set_ylabel("loss of utilization (%)")
    fig.tight_layout()
    return fig
