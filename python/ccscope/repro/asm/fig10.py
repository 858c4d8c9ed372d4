"""asm/fig10: propagation delay at 100 Gb/s, ASM vs QCN.

A0 dumbbell at 100 Gb/s [NG: per-link delay {0.5, 2, 5, 10} µs (RTT = 6 × per link), N = 10, q0 = 64 pkts,
buffer 1000 pkts, 20 ms per run, sources start at line rate]; statistics after 5 ms.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig10'
TITLE = '100 Gb/s, 10 µs/link (RTT 60 µs): QCN unstable and drains the buffer; ASM tolerant'
KIND = 'sim'
COST = 'full: 8 runs × 20 ms × 100 Gb/s ≈ 1.3 M pkts (~0.3 s); quick {0.5, 10} µs × 5 ms'
CAUSE = ("Under §4.5's literal de-duplication, ASM at {v.d_hi} µs per link: queue empty {v.a_hi.empty:.1%} of the "
         "time, utilization {v.a_hi.util:.2%}, mean {v.a_hi.q_mean:.1f} and s.d. {v.a_hi.q_sd:.1f} pkts "
         "({v.a_hi.min_rate} of {v.n} sources end at MinRate, {v.a_hi.line_rate} at line rate); the CP sent "
         "{v.a_hi.fb_per_s:.0f} feedback frames per second, {v.a_hi.fb_top:.0%} to the most-sampled source. At "
         "{v.d_lo} µs: empty {v.a_lo.empty:.1%}, s.d. {v.a_lo.q_sd:.1f} pkts, {v.a_lo.fb_per_s:.0f} feedbacks per "
         "second. QCN is empty {v.q_lo_empty:.0%} / {v.q_hi_empty:.0%} of the time at {v.d_lo} / {v.d_hi} µs (its "
         "aggregate rate is {v.q_agg_t0:.0f} Gb/s after the line-rate start and {v.q_agg_end:.0f} Gb/s at the end: "
         "R_AI steps do not refill the link within the run). Diagnostics at {v.d_hi} µs: the delivered variant is "
         "empty {v.var.empty:.1%} (utilization {v.var.util:.2%}, s.d. {v.var.q_sd:.1f}), no de-duplication "
         "{v.nodedup.empty:.1%} ({v.nodedup.util:.2%}). docs/models/asm.md, \"De-duplication\".")
CLAIM = ('At very small delay both keep the queue oscillation small; at 10 µs per link (RTT 60 µs) QCN turns unstable '
         'and empties the buffer often, while ASM tolerates the delay.')


def _one(algo: str, d: float, until: float, t0: float, **cp):
    sc = _a0.scenario(algo, n=10, rate_bps=100e9, q0_pkts=64, link_delay_s=d, until_s=until, buffer_pkts=1000,
                      sample_s=2e-6)
    sc["aqm"].update(cp)
    sc["record"]["traces"].append("feedback")
    res = _a0.run(sc)
    s = _a0.series(res)
    st = _a0.window_stats(s, t0, None, 100e9)
    r = res.traces["rate"]
    last = r[r.time_s == r.time_s.max()].rate_bps
    st["flows_at_min_rate"] = int((last <= _a0.MIN_RATE_BPS * 1.0001).sum())
    st["flows_at_line_rate"] = int((last >= 100e9 * 0.9999).sum())
    # the queue at the start and at the end of the statistics window (1 ms means): a drift shows as s.d.
    st["q_first_ms"] = float(s[(s.time_s > t0) & (s.time_s <= t0 + 1e-3)].queue_pkts.mean())
    st["q_last_ms"] = float(s[s.time_s > until - 1e-3].queue_pkts.mean())
    st["feedbacks"] = int((res.traces["feedback"].event == "sent").sum())
    st.update(_a0.feedback_stats(res, t0, until))
    agg = _a0.aggregate_rate(res, np.array([t0, until - 1e-4]))
    st["agg_rate_t0_gbps"], st["agg_rate_end_gbps"] = float(agg[0] / 1e9), float(agg[1] / 1e9)
    return st, s


def run(quick: bool) -> Run:
    delays = (0.5e-6, 10e-6) if quick else (0.5e-6, 2e-6, 5e-6, 10e-6)
    until, t0 = (0.005, 0.002) if quick else (0.02, 0.005)
    vals, frames = {}, []
    for d in delays:
        for algo in ("asm", "qcn"):
            vals[f"{algo}@{d * 1e6:g}us"], s = _one(algo, d, until, t0)
            frames.append(s.assign(algo=algo, delay_us=d * 1e6))
    # diagnostics: ASM at 10 µs with the "delivered" variant of §4.5 (memory also ends when the feedback
    # arrives), and without de-duplication
    diag = {"delivered": _one("asm", 10e-6, until, t0, dedup_expiry="delivered")[0],
            "nodedup": _one("asm", 10e-6, until, t0, dedup=False)[0]}
    return Run(params={"rate_bps": 100e9, "n": 10, "q0_pkts": 64, "buffer_pkts": 1000, "delays_us": [d * 1e6 for d in delays],
                       "until_s": until, "from_s": t0, "start": "line rate"},
               frames={"series": pd.concat(frames, ignore_index=True)}, values={**vals, "diag_asm@10us": diag},
               seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    a10, q10, a05, q05 = v["asm@10us"], v["qcn@10us"], v["asm@0.5us"], v["qcn@0.5us"]
    c.add("QCN @10 µs empty fraction", q10["empty_frac"], q10["empty_frac"] >= 0.05, "≥ 5%", "FIGURES.md")
    c.add("QCN @10 µs utilization", q10["util"], q10["util"] < 0.98, "< 98%", "FIGURES.md")
    c.add("ASM @10 µs empty fraction", a10["empty_frac"], a10["empty_frac"] <= 0.01, "≤ 1%", "FIGURES.md")
    c.add("ASM @10 µs utilization", a10["util"], a10["util"] >= 0.99, "≥ 99%", "FIGURES.md")
    c.add("ASM @10 µs s.d. ≤ 2 × @0.5 µs", a10["q_sd"], a10["q_sd"] <= 2 * a05["q_sd"], f"≤ {2 * a05['q_sd']:.3g}",
          "FIGURES.md")
    c.add("ASM @0.5 µs empty fraction", a05["empty_frac"], a05["empty_frac"] <= 0.01, "≤ 1%", "FIGURES.md")
    c.add("QCN @0.5 µs empty fraction", q05["empty_frac"], q05["empty_frac"] <= 0.01, "≤ 1%", "FIGURES.md")
    dg = v["diag_asm@10us"]
    for k, lab in (("delivered", "dedup_expiry = delivered (variant)"), ("nodedup", "dedup = false")):
        x = dg[k]
        c.add(f"[diagnostic] ASM @10 µs, {lab}: empty / util / s.d. (pkts)",
              [x["empty_frac"], x["util"], x["q_sd"]],
              x["empty_frac"] <= 0.01 and x["util"] >= 0.99 and x["q_sd"] <= 2 * a05["q_sd"],
              f"≤ 1% / ≥ 99% / ≤ {2 * a05['q_sd']:.3g}", "CP option changed (not the reproduction)")

    def brief(x):
        return {"empty": x["empty_frac"], "util": x["util"], "q_mean": x["q_mean"], "q_sd": x["q_sd"],
                "min_rate": x["flows_at_min_rate"], "line_rate": x["flows_at_line_rate"], "fb_per_s": x["fb_per_s"],
                "fb_top": x["fb_top_share"]}
    cv = {"d_lo": 0.5, "d_hi": 10, "n": 10, "a_hi": brief(a10), "a_lo": brief(a05), "q_lo_empty": q05["empty_frac"],
          "q_hi_empty": q10["empty_frac"], "q_agg_t0": q05["agg_rate_t0_gbps"], "q_agg_end": q05["agg_rate_end_gbps"],
          "var": brief(dg["delivered"]), "nodedup": brief(dg["nodedup"])}
    return verdict(c, v, tolerance="FIGURES.md thresholds", cause_values=cv)


def plot(run: Run):
    s = run.frames["series"]
    delays = sorted(s.delay_us.unique())
    fig, axes = figure(len(delays), 1, width=7, height=1.8 * len(delays) + 0.6, sharex=True)
    for ax, d in zip(axes[:, 0], delays):
        for algo, g in s[s.delay_us == d].groupby("algo"):
            ax.plot(g.time_s * 1e3, g.queue_pkts, lw=0.5, label=algo.upper())
        ref_line(ax, 64, "q0")
        ax.set_ylabel("queue (pkts)")
        ax.set_title(f"{d:g} µs per link (RTT {6 * d:g} µs)", fontsize=8)
        ax.legend(fontsize=6, loc="upper right")
    axes[-1, 0].set_xlabel("time (ms)")
    fig.tight_layout()
    return fig
