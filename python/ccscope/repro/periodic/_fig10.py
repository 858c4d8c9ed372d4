"""Shared body of periodic/fig10a-d: inter-drop times of the RED minfix runs (`fig9c`, max_th = 15, and
`fig9d`, max_th = 1500), at the link (any flow) or per flow, after warm-up; log-time histogram."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Run, figure, ref_line
from ccscope.repro.periodic import _p0

QUICK_SIM = {15: None, 1500: 1200.0}  # as fig9c / fig9d


def _gaps(level: str, quick: bool, size: int):
    m = _p0.run("fixed", "minfix", size, quick, sim_s=QUICK_SIM[size] if quick else None)
    return (m["gaps_link_s"] if level == "link" else m["gaps_flow_s"]), m["flow_drops_near_frac"]


def run(level: str, sizes: tuple[int, ...], quick: bool) -> Run:
    frames, values = [], {}
    for size in sizes:
        g, near = _gaps(level, quick, size)
        frames.append(pd.DataFrame({"max_th": size, "gap_s": g}))
        values[str(size)] = {"n": int(len(g)), "median_s": float(np.median(g)) if len(g) else float("nan"),
                             "frac_lt_0_1": float((g < 0.1).mean()) if len(g) else float("nan"),
                             "frac_gt_1": float((g > 1.0).mean()) if len(g) else float("nan"), "frac_within_rtt": near}
    return Run(params={"queue": "RED minfix", "rtt": "fixed", "level": level, "sizes": list(sizes), "seeds": _p0.seeds(quick),
                       **_p0.setup(quick)}, frames={"gaps": pd.concat(frames)}, values=values, seeds=_p0.seeds(quick), quick=quick)


def plot(id_: str, level: str, run: Run):
    g = run.frames["gaps"]
    fig, axes = figure(width=6.4, height=4)
    ax = axes[0, 0]
    bins = np.logspace(-4, 3, 57)
    for size, d in g.groupby("max_th"):
        ax.hist(d.gap_s.clip(lower=1e-4), bins=bins, alpha=0.6, label=f"max_th = {size} (median {d.gap_s.median():.2f} s)")
    ax.set_xscale("log")
    ref_line(ax, 2.0, "paper: centre ≈ 2.0 s (max_th 1500)", vertical=True)
    ax.set_xlabel("inter-drop time (s)" + (" between drops of the same flow" if level == "flow" else " at the link"))
    ax.set_ylabel("count")
    ax.set_title(id_, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
