"""periodic/fig8f: total window vs time, RED ratiofix, variable RTT, one trace per max_th.

total wnd = Σ_i min(cwnd_i, rwnd) every 100 ms (P001 footnote 2); setup P0 via `_p0`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/fig8f"
TITLE = "total window vs time, RED ratiofix, variable RTT"
KIND = "sim"
STATUS = "partly"
COST = 'full: 9 runs × 4200 s (~14 s); quick 2 × 600 s (< 1 s)'
CLAIM = 'RED ratiofix, variable RTT: as fig8e.'
RTT, QUEUE = 'variable', 'ratiofix'
GRID = [15, 50, 250, 750, 1500]  # [NG] sizes (FIGURES.md)
QUICK_GRID = [15, 750]


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
    c.add("CV non-increasing in max_th (one inversion allowed)", ups, ups <= 1, "≤ 1 rise", "one seed")
    lo, hi = f"{sizes[0]:g}", f"{sizes[-1]:g}"
    c.add(f"CV at {hi} ≤ 0.5 × CV at {lo}", v[hi]["cv"], v[hi]["cv"] <= 0.5 * v[lo]["cv"], f"≤ {0.5 * v[lo]['cv']:.3g}", "oscillation shrinks")
    c.add(f"mean total wnd at {hi} < 950", v[hi]["mean"], v[hi]["mean"] < 950, "< 950", "RED keeps windows below rwnd")
    if "minfix" in v:
        n = sum(v[f"{s:g}"]["cv"] >= v["minfix"][f"{s:g}"] for s in sizes)
        need = min(3, len(sizes))
        c.add(f"ratiofix CV ≥ minfix CV at ≥ {need} of {len(sizes)} max_th", n, n >= need, f"≥ {need}", "minfix smooths earlier")
    return verdict(c, {"cv_by_size": dict(zip((f"{s:g}" for s in sizes), cvs)), **{k: v[k] for k in v if not k[0].isdigit()}},
                   tolerance="FIGURES.md thresholds", notes=_p0.CAUSE)


def plot(run: Run):
    d = run.frames["total_wnd"]
    fig, axes = figure(width=7, height=4)
    ax = axes[0, 0]
    for size, g in d.groupby("size_pkts"):
        g = g[g.time_s >= g.time_s.max() - 300]
        ax.plot(g.time_s, g.total_wnd_pkts, lw=0.8, label=f"max_th = {size:g} (CV {run.values[format(size, 'g')]['cv']:.3f})")
    ref_line(ax, 1000, "50 × rwnd = 1000 pkts")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("total wnd Σ min(cwnd, rwnd) (pkts)")
    ax.set_title(ID, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
