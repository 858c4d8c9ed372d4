"""Shared body of periodic/fig10a-d: inter-drop times of the RED minfix runs (`fig9c`, max_th = 15, and
`fig9d`, max_th = 1500), at the link (any flow) or per flow, after warm-up; log-time histogram."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Run, figure, ref_line
from ccscope.repro.periodic import _p0

QUICK_SIM = {15: None, 1500: 1200.0}  # as fig9c / fig9d


def _stats(g: np.ndarray) -> dict:
    return {"median_s": float(np.median(g)) if len(g) else float("nan"),
            "frac_lt_0_1": float((g < 0.1).mean()) if len(g) else float("nan"),
            "frac_gt_1": float((g > 1.0).mean()) if len(g) else float("nan")}


def run(level: str, sizes: tuple[int, ...], quick: bool) -> Run:
    frames, values = [], {}
    seeds = _p0.seeds(quick)
    for size in sizes:
        sim = QUICK_SIM[size] if quick else None
        key = "gaps_link_s" if level == "link" else "gaps_flow_s"
        per = [_p0.run("fixed", "minfix", size, quick, sim_s=sim, seed=s) for s in seeds]
        g = np.concatenate([m[key] for m in per])
        frames.append(pd.DataFrame({"max_th": size, "gap_s": g}))
        st = [_stats(m[key]) for m in per]
        d = {"n": int(len(g)), "seeds": seeds}
        for k in ("median_s", "frac_lt_0_1", "frac_gt_1"):
            d[k] = float(np.nanmean([x[k] for x in st]))
            d[f"{k}_by_seed"] = [x[k] for x in st]
        d["frac_within_rtt_by_seed"] = [float(m["flow_drops_near_frac"]) for m in per]
        d["frac_within_rtt"] = float(np.nanmean(d["frac_within_rtt_by_seed"]))
        d["modes"] = modes(g)
        values[str(size)] = d
    return Run(params={"queue": "RED minfix", "rtt": "fixed", "level": level, "sizes": list(sizes), "seeds": seeds,
                       **_p0.setup(quick)}, frames={"gaps": pd.concat(frames)}, values=values, seeds=seeds, quick=quick)


#: Bimodality of a log-time histogram (fig10a's "two islands"), decided before the full runs: log10 of the gaps
#: in the figure's bins, 8 per decade over 1e-4..1e3 s, smoothed by a 3-bin moving average, with gaps shorter
#: than one packet time at the line rate (1000 B at 1.5 Mb/s, 5.33 ms: back-to-back drops, including several at
#: one instant) put at that floor -- below it the gaps are a comb of simultaneous drops, not an island (a first
#: version without the floor found its "two peaks" at 0 and 5 ms, inside one burst). P001's islands are "one for
#: the back-to-back packet drops, the other for the packet drops belonging to neighboring bursts", so the lower
#: peak is one below 0.1 s and the upper one a peak above the 1-s epoch separation (E23): the between-burst gaps
#: must form an island of their own, not a thin tail;
#: peaks are local maxima of at least PEAK_MIN of the highest; two islands = two peaks >= 1 decade apart with a
#: valley between them no higher than VALLEY_MAX of the lower peak. A unimodal histogram with a long tail, or two
#: humps joined by a plateau, fails.
BINS_PER_DECADE, PEAK_MIN, VALLEY_MAX = 8, 0.05, 0.5
PKT_S = 1000 * 8 / 1.5e6


def modes(g: np.ndarray) -> dict:
    """The two-island test on pooled gaps: the best pair of peaks (centres in s, separation in decades) and the
    valley-to-lower-peak ratio (nan when there are fewer than two peaks)."""
    out = {"lo_s": float("nan"), "hi_s": float("nan"), "decades": 0.0, "valley_ratio": float("nan"), "bimodal": False}
    g = np.asarray(g, float)
    if len(g) < 10:
        return out
    edges = np.linspace(-4, 3, 7 * BINS_PER_DECADE + 1)
    h, _ = np.histogram(np.log10(np.clip(g, PKT_S, None)), bins=edges)
    hs = np.convolve(h, np.ones(3) / 3, mode="same")
    centres = (edges[:-1] + edges[1:]) / 2
    top = hs.max()
    peaks = [i for i in range(len(hs)) if hs[i] >= PEAK_MIN * top and hs[i] > 0
             and (i == 0 or hs[i] >= hs[i - 1]) and (i == len(hs) - 1 or hs[i] > hs[i + 1])]
    best = None
    for a in range(len(peaks)):
        for b in range(a + 1, len(peaks)):
            i, j = peaks[a], peaks[b]
            if j - i < BINS_PER_DECADE or not (10 ** centres[i] < 0.1 and 10 ** centres[j] > 1.0):
                continue
            ratio = float(hs[i:j + 1].min() / min(hs[i], hs[j]))
            if best is None or ratio < best[2]:
                best = (i, j, ratio)
    if best:
        i, j, ratio = best
        out.update(lo_s=float(10 ** centres[i]), hi_s=float(10 ** centres[j]), decades=float((j - i) / BINS_PER_DECADE),
                   valley_ratio=ratio, bimodal=bool(ratio <= VALLEY_MAX))
    return out


def cause_values(v: dict) -> dict:
    out = {}
    for k, d in v.items():
        out[k] = {"median": d["median_s"], "median_by_seed": ", ".join(f"{x:.3g}" for x in d["median_s_by_seed"]),
                  "lt": d["frac_lt_0_1"], "gt": d["frac_gt_1"], "within": d["frac_within_rtt"], "n": d["n"],
                  "lo_s": d["modes"]["lo_s"], "hi_s": d["modes"]["hi_s"], "decades": d["modes"]["decades"],
                  "valley": d["modes"]["valley_ratio"]}
        out["seeds"] = ", ".join(map(str, d["seeds"]))
    return out


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
