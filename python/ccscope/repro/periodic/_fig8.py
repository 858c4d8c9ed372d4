"""periodic/fig8a-f shared: total window vs time, one trace per buffer (DropTail) or max_th (RED).

total wnd = Σ_i min(cwnd_i, rwnd) every 100 ms (P001 footnote 2); setup P0 via `_p0`. Each
fig8 module names its RTT setting, queue policy and grid; the run, check and plot are here.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, se, verdict
from ccscope.repro.periodic import _p0

CV_NOISE = 0.005  # CV change read as a rise or a fall: the CV estimate noise of one run


def _flatten_buffer(rtt: str, seed: int) -> float:
    """[DER] B = C·Q with Q solving Σ_i 20/(RTT_i + Q) = C over `seed`'s 50 RTTs (fig8b)."""
    from scipy.optimize import brentq
    sc = _p0.scenario(rtt, "droptail", 50, False, seed=seed)
    links = {(l["from"], l["to"]): l for l in sc["topology"]["links"]}
    rtts = np.array([2 * (0.65 + links[("M3", f["dst"])]["delay_s"]) for f in sc["flow"]])
    q = brentq(lambda q: np.sum(_p0.RWND / (rtts + q)) - _p0.C_PKTS, 0.0, 100.0)
    return float(_p0.C_PKTS * q)


def sizes(rtt: str, queue: str, grid: list, quick_grid: list, quick: bool) -> list[float]:
    return list(quick_grid if quick else grid)


def _summary(m: dict) -> dict:
    ps = m["per_seed"]
    return {"cv": m["total_wnd_cv"], "cv_by_seed": ps["total_wnd_cv"], "mean": m["total_wnd_mean"],
            "mean_by_seed": ps["total_wnd_mean"], "frac_ge_990": m["total_wnd_frac_ge_990"],
            "frac_ge_990_by_seed": ps["total_wnd_frac_ge_990"], "drops": m["drops_after_warmup"],
            "drops_by_seed": ps["drops_after_warmup"]}


def run(rtt: str, queue: str, grid: list, quick_grid: list, quick: bool) -> Run:
    frames, values = [], {}
    chosen = sizes(rtt, queue, grid, quick_grid, quick)
    seeds = _p0.seeds(quick, sweep=True)
    for size in chosen:
        m = _p0.run(rtt, queue, size, quick, sweep=True)
        s = m["series"][["time_s", "total_wnd_pkts"]].copy()
        s.insert(0, "size_pkts", size)
        frames.append(s)
        values[f"{size:g}"] = _summary(m)
    if queue == "ratiofix":
        values["minfix"] = {f"{s:g}": _summary(_p0.run(rtt, "minfix", s, quick, sweep=True)) for s in chosen}
    if rtt == "variable" and queue == "droptail":
        # fig8b: each seed's own flattening buffer (its own 50 RTTs) + 5%, run with that seed: the rows average
        # the seeds' outcomes at their own computed buffers (FIGURES.md: "for the 50 sampled RTTs").
        comp = [_flatten_buffer(rtt, sd) for sd in seeds]
        bufs = [float(np.ceil(1.05 * b)) for b in comp]
        ms = [_p0.run(rtt, "droptail", b, quick, seed=sd) for b, sd in zip(bufs, seeds)]
        values["flatten"] = {"computed_pkts_by_seed": comp, "buffer_pkts_by_seed": bufs,
                             "frac_ge_990": float(np.mean([m["total_wnd_frac_ge_990"] for m in ms])),
                             "frac_ge_990_by_seed": [m["total_wnd_frac_ge_990"] for m in ms],
                             "drops_by_seed": [m["drops_after_warmup"] for m in ms]}
    return Run(params={"rtt": rtt, "queue": queue, "sizes": chosen, **_p0.setup(quick), "seeds": seeds},
               frames={"total_wnd": pd.concat(frames)}, values=values, seeds=seeds, quick=quick)


def _rises(cur: dict, chosen: list) -> tuple[int, int, list[str]]:
    """Consecutive pairs of sizes: (clear rises, rises inside the noise, descriptions). A pair is a clear fall when
    its CV change is below CV_NOISE by two standard errors, a clear rise when above it by two, else in the noise."""
    clear, unclear, desc = 0, 0, []
    for a, b in zip(chosen, chosen[1:]):
        va, vb = cur[f"{a:g}"], cur[f"{b:g}"]
        d = vb["cv"] - va["cv"]
        s_ = float(np.hypot(np.nan_to_num(se(va["cv_by_seed"])), np.nan_to_num(se(vb["cv_by_seed"]))))
        if CV_NOISE - d >= 2 * s_ and d < CV_NOISE:
            continue
        if d - CV_NOISE >= 2 * s_ and d > CV_NOISE:
            clear += 1
        else:
            unclear += 1
        desc.append(f"{a:g} -> {b:g}: {d:+.3f} (se {s_:.3f})")
    return clear, unclear, desc


def check(rtt: str, queue: str, grid: list, quick_grid: list, run: Run) -> dict:
    c = Checks()
    v = run.values
    chosen = sizes(rtt, queue, grid, quick_grid, run.quick)
    cvs = [v[f"{s:g}"]["cv"] for s in chosen]
    clear, unclear, desc = _rises(v, chosen)
    small, last = f"{chosen[0]:g}", f"{chosen[-1]:g}"
    if queue == "droptail":
        flat_rows = [(f"B = {last}", v[last]["frac_ge_990"], v[last]["frac_ge_990_by_seed"], v[last]["drops_by_seed"])]
        if "flatten" in v and chosen[-1] < max(v["flatten"]["buffer_pkts_by_seed"]):
            flat_rows = []  # fig8b quick: its grid (B = 86) has no size above the computed flattening buffers
        if "flatten" in v:
            f = v["flatten"]
            flat_rows.insert(0, ("B = each seed's computed flattening buffer + 5%", f["frac_ge_990"],
                                 f["frac_ge_990_by_seed"], f["drops_by_seed"]))
        for label, frac, by_seed, drops in flat_rows:
            # FIGURES.md: total wnd ≥ 990 during ≥ 99% of the window (seed mean, two standard errors) and no drops
            # (exact: every seed).
            c.beyond(f"{label}: total wnd ≥ 990 during ≥ 99% of the window", frac, se(by_seed), 0.99, ">", "≥ 0.99",
                     "every flow at rwnd")
            c.add(f"{label}: no drops after warm-up (every seed)", max(drops), max(drops) == 0, "0", "exact")
        c.beyond(f"B = {small}: CV(total wnd) ≥ 0.1", v[small]["cv"], se(v[small]["cv_by_seed"]), 0.1, ">", "≥ 0.1",
                 "visible sawtooth")
        if rtt == "fixed":  # FIGURES.md lists the monotonicity check for fig8a only
            c.add("CV non-increasing in the buffer (no rise)", clear + unclear, clear + unclear == 0, "0 rises",
                  "0.005 CV noise; two standard errors", noise=bool(clear == 0 and unclear > 0))
    else:
        allowed = 1
        c.add("CV non-increasing in max_th (one inversion allowed)", clear + unclear, clear + unclear <= allowed,
              f"≤ {allowed} rise", "0.005 CV noise; two standard errors", noise=bool(clear <= allowed < clear + unclear))
        c.order(f"CV at {last} ≤ 0.5 × CV at {small}", v[last]["cv"], se(v[last]["cv_by_seed"]), 0.5 * v[small]["cv"],
                0.5 * se(v[small]["cv_by_seed"]), "<", "", "oscillation shrinks")
        c.beyond(f"mean total wnd at {last} < 950", v[last]["mean"], se(v[last]["mean_by_seed"]), 950.0, "<", "< 950",
                 "RED keeps windows below rwnd")
        if "minfix" in v:
            # per max_th: ratiofix CV ≥ minfix CV; at 15 both are min_th 5 / max_th 15 (one configuration: equal);
            # elsewhere a clear excess is ≥ two standard errors, an excess under two is inside the noise.
            n_clear, n_noise = 0, 0
            for s_ in chosen:
                a, b = v[f"{s_:g}"], v["minfix"][f"{s_:g}"]
                d = a["cv"] - b["cv"]
                e = float(np.hypot(np.nan_to_num(se(a["cv_by_seed"])), np.nan_to_num(se(b["cv_by_seed"]))))
                if s_ / 3 == 5 or (d > 0 and d >= 2 * e):
                    n_clear += 1
                elif d > 0:
                    n_noise += 1
            need = min(3, len(chosen))
            c.add(f"ratiofix CV ≥ minfix CV at ≥ {need} of {len(chosen)} max_th", n_clear, n_clear >= need, f"≥ {need}",
                  "minfix smooths earlier; two standard errors", noise=bool(n_clear < need <= n_clear + n_noise))
    cv_text = "; ".join(f"{s:g}: {v[f'{s:g}']['cv']:.3f} ({', '.join(f'{x:.3f}' for x in v[f'{s:g}']['cv_by_seed'])})"
                        for s in chosen)
    cvals = {"seeds": ", ".join(map(str, run.seeds)), "cv_by_size": cv_text, "rises": "; ".join(desc) or "none",
             "means": "; ".join(f"{s:g}: {v[f'{s:g}']['mean']:.0f}" for s in chosen),
             "drops": "; ".join(f"{s:g}: {', '.join(f'{x:.0f}' for x in v[f'{s:g}']['drops_by_seed'])}" for s in chosen)}
    if "minfix" in v:
        cvals["minfix_cv"] = "; ".join(f"{s:g}: {v['minfix'][f'{s:g}']['cv']:.3f}" for s in chosen)
    if "flatten" in v:
        f = v["flatten"]
        cvals["flatten"] = {"computed": ", ".join(f"{x:.1f}" for x in f["computed_pkts_by_seed"]),
                            "buffers": ", ".join(f"{x:g}" for x in f["buffer_pkts_by_seed"]),
                            "frac": ", ".join(f"{x:.3f}" for x in f["frac_ge_990_by_seed"]),
                            "drops": ", ".join(f"{x:.0f}" for x in f["drops_by_seed"])}
    key = {"droptail": "droptail", "minfix": "red", "ratiofix": "ratiofix"}[queue]
    if "flatten" in v:
        key = "droptail_flatten"
    return verdict(c, {"cv_by_size": dict(zip((f"{s:g}" for s in chosen), cvs)),
                       **{k: v[k] for k in v if not k[0].isdigit()}},
                   tolerance="FIGURES.md thresholds; two standard errors over the seeds",
                   cause=_p0.failing_cause(c, key), cause_values=cvals)


_CV = "CV(total wnd) by size, mean (per seed): {v.cv_by_size}; rises not clearly below the CV noise: {v.rises}. "
#: Cause templates (docs/VERDICTS.md §5); ns-2's CVs on this setup: docs/models/periodic_ns2.md.
CAUSE = {
    "droptail": (_CV + "Drops after warm-up by size (per seed): {v.drops}; mean total wnd by size: {v.means}. Total wnd "
                 "counts ns-2's cwnd_ (without the fast-recovery inflation)." + _p0.SETUP),
    "droptail_flatten": (_CV + "Each seed's computed flattening buffer (pkts): {v.flatten.computed}; run at "
                         "{v.flatten.buffers}: share of the window with total wnd at or above the line "
                         "{v.flatten.frac}, drops after warm-up {v.flatten.drops}. Drops by grid size (per seed): "
                         "{v.drops}. ns-2 on this setup: docs/models/periodic_ns2.md." + _p0.SETUP),
    "red": (_CV + "Mean total wnd by max_th: {v.means}. ns-2 on this setup: docs/models/periodic_ns2.md." + _p0.SETUP),
    "ratiofix": (_CV + "minfix CV by max_th: {v.minfix_cv}; mean total wnd by max_th: {v.means}. ns-2 on this setup: "
                 "docs/models/periodic_ns2.md." + _p0.SETUP),
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
