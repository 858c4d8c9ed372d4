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
        # fig8a: the largest B; fig8b: every B ≥ the computed flattening buffer + 5% (FIGURES.md).
        flat = [s for s in chosen if s >= 1.05 * v["flatten_buffer_pkts"]] if "flatten_buffer_pkts" in v else [chosen[-1]]
        for b in (f"{s:g}" for s in flat):
            c.add(f"B = {b}: total wnd ≥ 990 during ≥ 99% of the window", v[b]["frac_ge_990"], v[b]["frac_ge_990"] >= 0.99,
                  "≥ 0.99", "every flow at rwnd")
            c.add(f"B = {b}: no drops after warm-up", v[b]["drops"], v[b]["drops"] == 0, "0", "exact")
        small = f"{chosen[0]:g}"
        c.add(f"B = {small}: CV(total wnd) ≥ 0.1", v[small]["cv"], v[small]["cv"] >= 0.1, "≥ 0.1", "visible sawtooth")
        if rtt == "fixed":  # FIGURES.md lists the monotonicity check for fig8a only
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
                   tolerance="FIGURES.md thresholds", notes=CAUSES.get((rtt, queue), _p0.CAUSE) + (QUICK_NOTE if run.quick and "flatten_buffer_pkts" in v else "")
                   + _p0.SETUP_NOTE)


QUICK_NOTE = (" Quick variant: with starts in [0, 30] s and 200 s of warm-up the 50 near-synchronized slow starts have not "
              "settled at the computed flattening buffer (a few drops, total wnd < 990 part of the time); the full run "
              "(starts in [0, 300] s, measured over 600-4200 s) is the reference.")


#: Causes of the disagreements, by (rtt, queue), measured on the full runs (seed 1) with the engine that restarts
#: the retransmission timer at fast retransmit.
CAUSES = {
    ("fixed", "droptail"): (
        "CV(total wnd) is not monotone in B: B = 250 (1 BDP) has a larger CV than B = 50 (0.21 vs 0.15, full run; 0 at 750). "
        "With Reno halving, the total window saws between about half and all of BDP + B, a relative swing that does not shrink "
        "with B until the rwnd cap (50 × 20 = 1000 pkts, B ≥ 748.75) stops the growth; at B = 250 the buffer only keeps the "
        "egress nearly busy (loss 0.8%), the window itself still oscillates. P001's Fig 8a image is lost; FIGURES.md's "
        "monotonicity is an inference that the halving mechanism does not support between 50 and 250."),
    ("variable", "droptail"): (
        "B = 86 gives CV(total wnd) ≈ 0.07 < 0.1: with random RTTs only 0.22 of the flows see a drop per epoch (fixed RTT: "
        "0.93, CV 0.15), so the total window dips by ~r/2 ≈ 10% per epoch; the epochs are irregular and the total window has "
        "no clear period (ACF after its first minimum ≈ 0.33). At the computed flattening buffer + 5% (601 pkts) and at 750 "
        "there are no drops after warm-up and total wnd ≥ 990 during ≥ 99% of the window."),
    ("fixed", "minfix"): (
        "CV(total wnd) by max_th 15, 50, 250, 750, 1500: 0.169, 0.199, 0.128, 0.152, 0.176 - it does not shrink. The max_th = 15 "
        "sawtooth (period 10 s) is replaced by a slow aperiodic wander of similar size: with w_q = 0.002 at 187.5 pkt/s the "
        "average queue has a 2.7-s time constant, of the order of the RTT, and the Reno/RED loop moves slowly (mean queue "
        "≈ 120 pkts, CV 0.49, arrival PI 0.15). Timeouts dominate the run at max_th = 1500: 11.5 k drops, 16.8 k fast "
        "retransmits, 8.6 k timeouts and 82 k retransmissions; 77% of the timeouts are spurious (ACKs of the original "
        "transmissions arrive < 1 s after them: per-ACK RTT samples with RFC 6298 gains collapse rttvar, and the 1-s RTO "
        "minimum lies below the RTT), their go-back-N duplicates trigger further fast retransmits, and the windows stay small "
        "(mean total wnd 377) and uneven. So the oscillation changes character without shrinking, unlike the paper's "
        "smooth Fig 8c."),
    ("variable", "minfix"): (
        "CV at max_th 1500 (0.051) just misses half the CV at 15 (0.050): the oscillation does shrink monotonically "
        "(0.099, 0.103, 0.070, 0.061, 0.051) but from a small start, because random RTTs already desynchronize the "
        "max_th = 15 case (~0.3 of the flows per epoch); the residual CV is the slow Reno/RED wander of fig8c."),
    ("fixed", "ratiofix"): (
        "Ratiofix with fixed RTT grows a slow, large oscillation as max_th rises (CV 0.17, 0.19, 0.13, 0.29, 0.35): with "
        "min_th = max_th/3 = 500 the average queue (time constant 2.7 s) swings the drop rate between 0 and bursts, and "
        "the windows move together on a > 60-s scale. The paper's smooth trend (oscillation shrinks) is not reproduced; "
        "ratiofix oscillating more than minfix at equal max_th (3 of 5 values) is."),
    ("variable", "ratiofix"): (
        "Full run reproduced (CV 0.099, 0.146, 0.136, 0.093, 0.031; mean total wnd 921 at max_th 1500). The quick variant "
        "(600 s, starts in [0, 30] s, measured over 200-600 s) does not: at max_th 750 the CV is 0.095 > 0.5 × 0.097, "
        "because RED's average (2.7-s time constant) and the windows are still settling from the near-synchronized start."),
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
