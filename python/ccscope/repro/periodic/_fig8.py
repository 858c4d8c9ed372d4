"""periodic/fig8a-f shared: total window vs time, one trace per buffer (DropTail) or max_th (RED).

total wnd = Σ_i min(cwnd_i, rwnd) every 100 ms (P001 footnote 2); setup P0 via `_p0`. Each
fig8 module names its RTT setting, queue policy and grid; the run, check and plot are here.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0


def _flatten_buffer(rtt: str) -> float:
    """[DER] B = C·Q with Q solving Σ_i 20/(RTT_i + Q) = C over this seed's 50 RTTs (fig8b)."""
    from scipy.optimize import brentq
    sc = _p0.scenario(rtt, "droptail", 50, False)
    links = {(l["from"], l["to"]): l for l in sc["topology"]["links"]}
    rtts = np.array([2 * (0.65 + links[("M3", f["dst"])]["delay_s"]) for f in sc["flow"]])
    q = brentq(lambda q: np.sum(_p0.RWND / (rtts + q)) - _p0.C_PKTS, 0.0, 100.0)
    return float(_p0.C_PKTS * q)


def sizes(rtt: str, queue: str, grid: list, quick_grid: list, quick: bool) -> list[float]:
    out = list(quick_grid if quick else grid)
    if rtt == "variable" and queue == "droptail":
        out = sorted(set(out) | {float(np.ceil(1.05 * _flatten_buffer(rtt)))})
    return out


def run(rtt: str, queue: str, grid: list, quick_grid: list, quick: bool) -> Run:
    frames, values = [], {}
    chosen = sizes(rtt, queue, grid, quick_grid, quick)
    for size in chosen:
        m = _p0.run(rtt, queue, size, quick)
        s = m["series"][["time_s", "total_wnd_pkts"]].copy()
        s.insert(0, "size_pkts", size)
        frames.append(s)
        values[f"{size:g}"] = {"cv": m["total_wnd_cv"], "mean": m["total_wnd_mean"], "frac_ge_990": m["total_wnd_frac_ge_990"],
                             "drops": m["drops_after_warmup"]}
    if queue == "ratiofix":
        values["minfix"] = {f"{s:g}": _p0.run(rtt, "minfix", s, quick)["total_wnd_cv"] for s in chosen}
    if rtt == "variable" and queue == "droptail":
        values["flatten_buffer_pkts"] = _flatten_buffer(rtt)
    return Run(params={"rtt": rtt, "queue": queue, "sizes": chosen, **_p0.setup(quick), "seed": _p0.SEED},
               frames={"total_wnd": pd.concat(frames)}, values=values, seeds=[_p0.SEED], quick=quick)


def check(rtt: str, queue: str, grid: list, quick_grid: list, run: Run) -> dict:
    c = Checks()
    v = run.values
    chosen = sizes(rtt, queue, grid, quick_grid, run.quick)
    cvs = [v[f"{s:g}"]["cv"] for s in chosen]
    ups = int(sum(b > a + 0.005 for a, b in zip(cvs, cvs[1:])))  # 0.005: CV estimate noise of one seed
    if queue == "droptail":
        big = f"{chosen[-1]:g}"
        c.add(f"B = {big}: total wnd ≥ 990 during ≥ 99% of the window", v[big]["frac_ge_990"], v[big]["frac_ge_990"] >= 0.99,
              "≥ 0.99", "every flow at rwnd")
        c.add(f"B = {big}: no drops after warm-up", v[big]["drops"], v[big]["drops"] == 0, "0", "exact")
        small = f"{chosen[0]:g}"
        c.add(f"B = {small}: CV(total wnd) ≥ 0.1", v[small]["cv"], v[small]["cv"] >= 0.1, "≥ 0.1", "visible sawtooth")
        c.add("CV non-increasing in the buffer", ups, ups == 0, "0 rises", "0.005 CV noise")
    else:
        c.add("CV non-increasing in max_th (one inversion allowed)", ups, ups <= 1, "≤ 1 rise", "one seed")
        lo, hi = f"{chosen[0]:g}", f"{chosen[-1]:g}"
        c.add(f"CV at {hi} ≤ 0.5 × CV at {lo}", v[hi]["cv"], v[hi]["cv"] <= 0.5 * v[lo]["cv"], f"≤ {0.5 * v[lo]['cv']:.3g}", "oscillation shrinks")
        c.add(f"mean total wnd at {hi} < 950", v[hi]["mean"], v[hi]["mean"] < 950, "< 950", "RED keeps windows below rwnd")
        if "minfix" in v:
            n = sum(v[f"{s:g}"]["cv"] >= v["minfix"][f"{s:g}"] for s in chosen)
            need = min(3, len(chosen))
            c.add(f"ratiofix CV ≥ minfix CV at ≥ {need} of {len(chosen)} max_th", n, n >= need, f"≥ {need}", "minfix smooths earlier")
    return verdict(c, {"cv_by_size": dict(zip((f"{s:g}" for s in chosen), cvs)), **{k: v[k] for k in v if not k[0].isdigit()}},
                   tolerance="FIGURES.md thresholds", notes=_p0.CAUSE)


def plot(entry_id: str, queue: str, run: Run):
    d = run.frames["total_wnd"]
    fig, axes = figure(width=7, height=4)
    ax = axes[0, 0]
    knob = "B" if queue == "droptail" else "max_th"
    for size, g in d.groupby("size_pkts"):
        g = g[g.time_s >= g.time_s.max() - 300]
        ax.plot(g.time_s, g.total_wnd_pkts, lw=0.8, label=f"{knob} = {size:g} (CV {run.values[format(size, 'g')]['cv']:.3f})")
    ref_line(ax, 1000, "50 × rwnd = 1000 pkts")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("total wnd Σ min(cwnd, rwnd) (pkts)")
    ax.set_title(entry_id, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
