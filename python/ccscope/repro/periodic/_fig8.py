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
    return Run(params={"rtt": rtt, "queue": queue, "sizes": chosen, **_p0.setup(quick), "seeds": _p0.seeds(quick)},
               frames={"total_wnd": pd.concat(frames)}, values=values, seeds=_p0.seeds(quick), quick=quick)


def check(rtt: str, queue: str, grid: list, quick_grid: list, run: Run) -> dict:
    c = Checks()
    v = run.values
    chosen = sizes(rtt, queue, grid, quick_grid, run.quick)
    cvs = [v[f"{s:g}"]["cv"] for s in chosen]
    ups = int(sum(b > a + 0.005 for a, b in zip(cvs, cvs[1:])))  # 0.005: CV estimate noise of a run
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
                   tolerance="FIGURES.md thresholds",
                   notes="CV(total wnd) by size: " + ", ".join(f"{k} {x:.3f}" for k, x in zip((f"{s:g}" for s in chosen), cvs))
                   + ". " + CAUSES.get((rtt, queue), _p0.CAUSE) + (QUICK_NOTE if run.quick and "flatten_buffer_pkts" in v else "")
                   + _p0.SETUP_NOTE)


QUICK_NOTE = (" Quick variant: with starts in [0, 30] s and 200 s of warm-up the 50 near-synchronized slow starts have not "
              "settled at the computed flattening buffer (a few drops, total wnd < 990 part of the time); the full run "
              "(starts in [0, 300] s, measured over 600-4200 s) is the reference.")


#: What the full runs (seed 1) and quick runs measure, by (rtt, queue), with Reno timing one segment per RTT (Karn);
#: the disagreements' causes come from these runs (fig4a-d, fig6b for the per-epoch numbers).
CAUSES = {
    ("fixed", "droptail"): (
        "Total wnd is Σ min(cwnd, 20) with cwnd as ns-2's cwnd_, i.e. without the fast-recovery inflation (P001's "
        "simulator; the inflation, ssthresh + 3 + dupacks for one RTT per cut, would fill each dip and lower the CV by "
        "about a fifth). At B = 50 the start times decide the depth of the sawtooth: with starts in [0, 300] s a few "
        "flows park at rwnd = 20 and are never dropped (periodic/fig4a), so their windows never halve; with the quick "
        "starts in [0, 30] s no flow reaches rwnd and the sawtooth is deeper. ns-2 on this setup: CV 0.16 at B = 50, "
        "0.010 at 700, 0 at 750 (docs/models/periodic_ns2.md)."),
    ("variable", "droptail"): (
        "B = 86: few flows see a drop per epoch (≈ 0.2, periodic/fig4b), so the total window dips by ≈ r/2 per epoch, "
        "irregularly, and its CV stays under 0.1 (ns-2 with the same delays and start times: 0.19 of the flows per "
        "epoch, CV 0.060). B = 601 (computed flattening buffer 572 + 5%): a few drops remain after the 600-s warm-up, "
        "as in ns-2 on the same setup (9 packets at 680-945 s, none at 750; docs/models/periodic_ns2.md). B = 750: no "
        "drops, total wnd ≥ 990 throughout."),
    ("fixed", "minfix"): (
        "The oscillation of the total window shrinks as max_th grows and the mean total window stays below the "
        "1000-pkt rwnd cap."),
    ("variable", "minfix"): (
        "Random RTTs already desynchronize max_th = 15 (≈ 0.34 of the flows per epoch, periodic/fig4d), so the "
        "oscillation starts small and shrinks less in proportion (ns-2 on this setup: CV 0.088, 0.075, 0.051, 0.045, "
        "0.038 at max_th 15, 50, 250, 750, 1500)."),
    ("fixed", "ratiofix"): (
        "ratiofix oscillates at least as much as minfix at every max_th (equal at 15, the same run). The quick grid "
        "(15, 750) stops at 750, where the CV is still above half its max_th-15 value, so the quick variant cannot show "
        "the trend."),
    ("variable", "ratiofix"): (
        "The max_th = 15 run is the timeout-heavy, desynchronized one of periodic/fig4d, whose total window is small "
        "and comparatively smooth, and the intermediate ratiofix settings (min_th 17-83) oscillate more before the CV "
        "falls at 750-1500; ns-2 on this setup shows the same rise (CV 0.088, 0.132, 0.137, 0.063, 0.016 at max_th 15, "
        "50, 250, 750, 1500)."),
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
