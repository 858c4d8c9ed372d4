"""periodic/fig8a-f shared: total window vs time, one trace per buffer (DropTail) or max_th (RED).

total wnd = Σ_i min(cwnd_i, rwnd) every 100 ms (P001 footnote 2); setup P0 via `_p0`. Each
fig8 module names its RTT setting, queue policy and grid; the run, check and plot are here.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import SIMULATOR_MISSES_TOO, Checks, Run, figure, ref_line, verdict
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
        # fig8a: the largest B; fig8b: every B ≥ the computed flattening buffer + 5% (FIGURES.md).
        flat = [s for s in chosen if s >= 1.05 * v["flatten_buffer_pkts"]] if "flatten_buffer_pkts" in v else [chosen[-1]]
        # Random RTTs (fig8b): FIGURES.md's [DER] flattening buffer + 5% and its CV line are inferences, and
        # ns-2, the paper's simulator, run on this setup with the same delays and start times (seed 1, 600-4200 s,
        # docs/models/periodic_ns2.md) misses all three the same way: at B = 601 it drops 9 packets after
        # warm-up with total wnd ≥ 990 during 96.0% of the window, and at B = 86 its CV is 0.060. They are
        # advisory there; the largest B (750 in the full grid) keeps the paper's statement, flat at 1000 once the buffer holds every rwnd, strict.
        ns2 = rtt == "variable"
        for s_ in flat:
            b = f"{s_:g}"
            last = s_ == max(flat)
            basis = SIMULATOR_MISSES_TOO if ns2 and not last else ""
            c.add(f"B = {b}: total wnd ≥ 990 during ≥ 99% of the window", v[b]["frac_ge_990"], v[b]["frac_ge_990"] >= 0.99,
                  "≥ 0.99", "every flow at rwnd" + ("; ns-2 at B = 601: 0.960" if basis else ""), basis=basis)
            c.add(f"B = {b}: no drops after warm-up", v[b]["drops"], v[b]["drops"] == 0, "0",
                  "exact" + ("; ns-2 at B = 601: 9 drops" if basis else ""), basis=basis)
        small = f"{chosen[0]:g}"
        c.add(f"B = {small}: CV(total wnd) ≥ 0.1", v[small]["cv"], v[small]["cv"] >= 0.1, "≥ 0.1",
              "visible sawtooth" + ("; ns-2 at B = 86: 0.060" if ns2 else ""), basis=SIMULATOR_MISSES_TOO if ns2 else "")
        if rtt == "fixed":  # FIGURES.md lists the monotonicity check for fig8a only
            c.add("CV non-increasing in the buffer", ups, ups == 0, "0 rises", "0.005 CV noise")
    else:
        # fig8f (ratiofix, random RTTs): ns-2, the paper's simulator, on this setup (same delays and start times,
        # F&J count spacing as here, seed 1, 600-4200 s) rises twice too: CV 0.088, 0.132, 0.137, 0.063, 0.016 at
        # max_th 15, 50, 250, 750, 1500, so FIGURES.md's monotonicity is advisory there. (fig8d, minfix: ns-2 is
        # monotone, 0.088 -> 0.038, and the check stays strict.)
        ns2 = rtt == "variable" and queue == "ratiofix"
        c.add("CV non-increasing in max_th (one inversion allowed)", ups, ups <= 1, "≤ 1 rise",
              "one seed" + ("; ns-2 on this setup: 2 rises" if ns2 else ""), basis=SIMULATOR_MISSES_TOO if ns2 else "")
        lo, hi = f"{chosen[0]:g}", f"{chosen[-1]:g}"
        c.add(f"CV at {hi} ≤ 0.5 × CV at {lo}", v[hi]["cv"], v[hi]["cv"] <= 0.5 * v[lo]["cv"], f"≤ {0.5 * v[lo]['cv']:.3g}", "oscillation shrinks")
        c.add(f"mean total wnd at {hi} < 950", v[hi]["mean"], v[hi]["mean"] < 950, "< 950", "RED keeps windows below rwnd")
        if "minfix" in v:
            n = sum(v[f"{s:g}"]["cv"] >= v["minfix"][f"{s:g}"] for s in chosen)
            need = min(3, len(chosen))
            c.add(f"ratiofix CV ≥ minfix CV at ≥ {need} of {len(chosen)} max_th", n, n >= need, f"≥ {need}", "minfix smooths earlier")
    return verdict(c, {"cv_by_size": dict(zip((f"{s:g}" for s in chosen), cvs)), **{k: v[k] for k in v if not k[0].isdigit()}},
                   tolerance="FIGURES.md thresholds", notes=CAUSES.get((rtt, queue), _p0.CAUSE) + (QUICK_NOTE if run.quick and "flatten_buffer_pkts" in v else "")
                   + _p0.SETUP_NOTE)


QUICK_NOTE = (" Quick variant: with starts in [0, 30] s and 200 s of warm-up the 50 near-synchronized slow starts have not "
              "settled at the computed flattening buffer (a few drops, total wnd < 990 part of the time); the full run "
              "(starts in [0, 300] s, measured over 600-4200 s) is the reference.")


#: What the full runs (seed 1) and quick runs measure, by (rtt, queue), with Reno timing one segment per RTT (Karn);
#: the disagreements' causes come from these runs (fig4a-d, fig6b for the per-epoch numbers).
CAUSES = {
    ("fixed", "droptail"): (
        "CV(total wnd) by B = 50, 250, 750: 0.115, 0.076, 0 (full; monotone, flat at 750). At B = 50 the start times "
        "decide the depth of the sawtooth: with starts in [0, 300] s 5 flows park at rwnd = 20 and are never dropped "
        "(periodic/fig4a), so 100 of the ≈ 345 pkts of the total window never halve (CV 0.115; seeds 1-12: 0.09-0.12, "
        "lower the more flows park); with the quick starts in [0, 30] s no flow reaches rwnd and the sawtooth is deeper."),
    ("variable", "droptail"): (
        "B = 86: CV(total wnd) 0.067 < 0.1: only ≈ 0.21 of the flows see a drop per epoch (periodic/fig4b), so "
        "the total window dips by ≈ r/2 ≈ 10% per epoch, irregularly (ns-2 with the same delays and start times: 0.19 of the "
        "flows per epoch, CV 0.06 of Σ min(cwnd_, 20)). B = 601 (computed flattening buffer 572 + 5%): 3 drops "
        "after the 600-s warm-up, all at 708 s (the tail of the staggered starts), total wnd ≥ 990 during 97% of the "
        "window; after 1000 s the queue peaks at 590 pkts < 601 and nothing is dropped, so the flattening itself holds "
        "and the warm-up is too short for this buffer. ns-2 (ns-2.35, same delays and start times, "
        "docs/models/periodic_ns2.md) also drops at B = 601 after 600 s (22 packets in 7 epochs) and none at 750. "
        "B = 750: no drops, total wnd ≥ 990 throughout."),
    ("fixed", "minfix"): (
        "CV(total wnd) by max_th 15, 50, 250, 750, 1500: 0.180, 0.178, 0.086, 0.053, 0.048 (full; quick 15/750: 0.178, 0.049): "
        "the oscillation shrinks as max_th grows and the mean total window stays below the 1000-pkt rwnd cap. Before (one RTT "
        "sample per ACK) spurious timeouts dominated max_th = 1500 and the CV did not shrink (0.169 ... 0.176)."),
    ("variable", "minfix"): (
        "CV(total wnd) by max_th 15, 50, 250, 750, 1500: 0.094, 0.098, 0.061, 0.058, 0.052 (full); it shrinks (one rise) but "
        "1500 ends at 0.55 × the max_th-15 value, short of 0.5 × (quick: 750 at 0.064 vs 0.5 × 0.120): random RTTs already "
        "desynchronize max_th = 15 (≈ 0.34 of the flows per epoch, periodic/fig4d), so the oscillation starts small."),
    ("fixed", "ratiofix"): (
        "CV(total wnd) by max_th 15, 50, 250, 750, 1500: 0.180, 0.236, 0.176, 0.122, 0.082 (full): shrinks to < 0.5 × only at "
        "1500, and ratiofix oscillates at least as much as minfix at every max_th (equal at 15, the same run). The quick grid (15, 750) stops at 750, "
        "where the CV (quick 0.124, full 0.122) is still above 0.5 × 0.178, so the quick variant cannot show the trend."),
    ("variable", "ratiofix"): (
        "CV(total wnd) by max_th 15, 50, 250, 750, 1500: 0.094, 0.137, 0.147, 0.099, 0.032 (full): it rises from 15 to 250 "
        "(two rises, the check allows one) before falling to 0.34 × at 1500. The "
        "max_th = 15 run is the timeout-heavy, desynchronized one of periodic/fig4d (25% loss, 66 timeouts per "
        "flow-hour, 0.34 of the flows per epoch), whose total window is small and comparatively smooth; why the "
        "intermediate ratiofix settings (min_th 17-83) oscillate more has not been isolated. Quick: 750 at 0.100 vs "
        "0.5 × 0.120."),
}


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
