"""periodic/fig10b: inter-drop times, max_th = 15, flow level (the `fig9c` run).

Gaps between consecutive drops at the bottleneck M2→M3 of the same flow, after warm-up; log-time histogram.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/fig10b"
TITLE = "inter-drop times, RED max_th = 15, flow level"
KIND = "sim"
STATUS = "reproduced"
COST = "reuses the fig9c / fig9d runs (full ~2 s each)"
CLAIM = 'max_th = 15, per flow: the same two islands; a flow often loses several packets in one burst (for Reno usually a timeout, cwnd = 1).'
LEVEL = 'flow'
QUICK_SIM = {15: None, 1500: 1200.0}  # as fig9c / fig9d


def _gaps(quick: bool, size: int):
    m = _p0.run("fixed", "minfix", size, quick, sim_s=QUICK_SIM[size] if quick else None)
    return (m["gaps_link_s"] if LEVEL == "link" else m["gaps_flow_s"]), m["flow_drops_near_frac"]


def run(quick: bool) -> Run:
    frames, values = [], {}
    for size in (15,):
        g, near = _gaps(quick, size)
        frames.append(pd.DataFrame({"max_th": size, "gap_s": g}))
        values[str(size)] = {"n": int(len(g)), "median_s": float(np.median(g)) if len(g) else float("nan"),
                             "frac_lt_0_1": float((g < 0.1).mean()) if len(g) else float("nan"),
                             "frac_gt_1": float((g > 1.0).mean()) if len(g) else float("nan"), "frac_within_rtt": near}
    return Run(params={"queue": "RED minfix", "rtt": "fixed", "level": LEVEL, "sizes": [15,], "seed": _p0.SEED,
                       **_p0.setup(quick)}, frames={"gaps": pd.concat(frames)}, values=values, seeds=[_p0.SEED], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    v = run.values
    d = v["15"]
    c.add("per-flow fraction of drops within 1 RTT ≥ 0.3", d["frac_within_rtt"], d["frac_within_rtt"] >= 0.3, "≥ 0.3",
          "several losses per burst")
    return verdict(c, v, tolerance="FIGURES.md thresholds", notes=_p0.CAUSE)


def plot(run: Run):
    g = run.frames["gaps"]
    fig, axes = figure(width=6.4, height=4)
    ax = axes[0, 0]
    bins = np.logspace(-4, 3, 57)
    for size, d in g.groupby("max_th"):
        ax.hist(d.gap_s.clip(lower=1e-4), bins=bins, alpha=0.6, label=f"max_th = {size} (median {d.gap_s.median():.2f} s)")
    ax.set_xscale("log")
    ref_line(ax, 2.0, "paper: centre ≈ 2.0 s (max_th 1500)", vertical=True)
    ax.set_xlabel("inter-drop time (s)" + (" between drops of the same flow" if LEVEL == "flow" else " at the link"))
    ax.set_ylabel("count")
    ax.set_title(ID, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
