"""periodic/fig8a: total window vs time, DropTail, fixed RTT, one trace per B.

total wnd = Σ_i min(cwnd_i, rwnd) every 100 ms (P001 footnote 2); setup P0 via `_p0`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/fig8a"
TITLE = "total window vs time, DropTail, fixed RTT"
KIND = "sim"
STATUS = "partly"
COST = 'full: 3 runs × 4200 s (~5 s); quick 2 × 600 s (< 1 s)'
CLAIM = 'DropTail, fixed RTT: as the buffer grows the total window becomes constant at 50 × 20 = 1000 pkts (every flow at rwnd, the buffer absorbs the excess).'
RTT, QUEUE = 'fixed', 'droptail'
GRID = [50, 250, 750]  # [NG] sizes (FIGURES.md)
QUICK_GRID = [50, 750]


def _flatten_buffer() -> float:
    """[DER] B = C·Q with Q solving Σ_i 20/(RTT_i + Q) = C over this seed's 50 RTTs (fig8b)."""
    from scipy.optimize import brentq
    sc = _p0.scenario(RTT, "droptail", 50, False)
    links = {(l["from"], l["to"]): l for l in sc["topology"]["links"]}
    rtts = np.array([2 * (0.65 + links[("M3", f["dst"])]["delay_s"]) for f in sc["flow"]])
    q = brentq(lambda q: np.sum(_p0.RWND / (rtts + q)) - _p0.C_PKTS, 0.0, 100.0)
    return float(_p0.C_PKTS * q)


def _sizes(quick: bool) -> list[float]:
    sizes = list(QUICK_GRID if quick else GRID)
    if RTT == "variable" and QUEUE == "droptail":
        sizes = sorted(set(sizes) | {float(np.ceil(1.05 * _flatten_buffer()))})
    return sizes


def run(quick: bool) -> Run:
    frames, values = [], {}
    for size in _sizes(quick):
        m = _p0.run(RTT, QUEUE, size, quick)
        s = m["series"][["time_s", "total_wnd_pkts"]].copy()
        s.insert(0, "size_pkts", size)
        frames.append(s)
        values[f"{size:g}"] = {"cv": m["total_wnd_cv"], "mean": m["total_wnd_mean"], "frac_ge_990": m["total_wnd_frac_ge_990"],
                             "drops": m["drops_after_warmup"]}
    if QUEUE == "ratiofix":
        values["minfix"] = {f"{s:g}": _p0.run(RTT, "minfix", s, quick)["total_wnd_cv"] for s in _sizes(quick)}
    if RTT == "variable" and QUEUE == "droptail":
        values["flatten_buffer_pkts"] = _flatten_buffer()
    return Run(params={"rtt": RTT, "queue": QUEUE, "sizes": _sizes(quick), **_p0.setup(quick), "seed": _p0.SEED},
               frames={"total_wnd": pd.concat(frames)}, values=values, seeds=[_p0.SEED], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    v = run.values
    sizes = [s for s in _sizes(run.quick)]
    cvs = [v[f"{s:g}"]["cv"] for s in sizes]
    ups = int(sum(b > a + 0.005 for a, b in zip(cvs, cvs[1:])))  # 0.005: CV estimate noise of one seed
    big = f"{sizes[-1]:g}"
    c.add(f"B = {big}: total wnd ≥ 990 during ≥ 99% of the window", v[big]["frac_ge_990"], v[big]["frac_ge_990"] >= 0.99,
          "≥ 0.99", "every flow at rwnd")
    c.add(f"B = {big}: no drops after warm-up", v[big]["drops"], v[big]["drops"] == 0, "0", "exact")
    small = f"{sizes[0]:g}"
    c.add(f"B = {small}: CV(total wnd) ≥ 0.1", v[small]["cv"], v[small]["cv"] >= 0.1, "≥ 0.1", "visible sawtooth")
    c.add("CV non-increasing in the buffer", ups, ups == 0, "0 rises", "0.005 CV noise")
    return verdict(c, {"cv_by_size": dict(zip((f"{s:g}" for s in sizes), cvs)), **{k: v[k] for k in v if not k[0].isdigit()}},
                   tolerance="FIGURES.md thresholds", notes=_p0.CAUSE)


def plot(run: Run):
    d = run.frames["total_wnd"]
    fig, axes = figure(width=7, height=4)
    ax = axes[0, 0]
    for size, g in d.groupby("size_pkts"):
        g = g[g.time_s >= g.time_s.max() - 300]
        ax.plot(g.time_s, g.total_wnd_pkts, lw=0.8, label=f"B = {size:g} (CV {run.values[format(size, 'g')]['cv']:.3f})")
    ref_line(ax, 1000, "50 × rwnd = 1000 pkts")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("total wnd Σ min(cwnd, rwnd) (pkts)")
    ax.set_title(ID, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
