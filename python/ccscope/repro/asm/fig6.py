"""asm/fig6: keeping a small queue (q0 = 5 pkts), 10 sources: ASM vs QCN.

A0 dumbbell [NG: 1 Gb/s, 2 µs per link, sources start at line rate, buffer 128 KB = 87 pkts, 1 s]; QCN
with Qeq = 5 pkts. Statistics after 0.1 s on the 10 µs queue trace. ASM's CP de-duplicates as §4.5 states
(engine default `dedup_expiry = "never"`); the "delivered" variant is a [diagnostic] row.

Seeds (docs/VERDICTS.md §3), fixed before the full run from the quick pilot (seeds 1-5, 0.3 s): QCN's
empty fraction 0.049-0.092 (mean 0.070, s.d. 0.016) against the 5 % threshold: margin 0.020, se <= 0.005
needs n >= (0.016/0.005)^2 = 10.2; ASM's empty fraction (mean 0.0023, s.d. 0.0028, margin 0.0077 to 1 %)
needs n >= 2.1. SEEDS = 12. The ASM - QCN utilization gap (pilot mean 1.07 pt, s.d. 0.30 pt) sits 0.07 pt
above FIGURES.md's 1 pt: no affordable n resolves that margin, so that row is decided by the two-se rule
as it falls (likely "inside the noise"). Quick: seeds 1-3.
"""
from __future__ import annotations

import pandas as pd


from ccscope.repro._base import Checks, Run, figure, ref_line, se, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig6'
TITLE = 'q0=5 pkts, 10 sources: ASM never empties the queue; QCN often does and loses throughput'
KIND = 'sim'
COST = "full: 12 seeds × 3 runs × 1 s × 1 Gb/s (~5 s wall); quick 3 seeds × 0.3 s"
CLAIM = 'With q0 = 5 pkts ASM never lets the buffer run dry and loses no throughput; QCN often empties it and loses throughput.'
T0 = 0.1
QUICK_SHOWS_CLAIM = False
QUICK_NOTE = ("3 seeds of 0.3 s (a 0.2 s window): the QCN empty-fraction standard error is about a quarter of "
              "the margin to 5 % only with the full run's 12 seeds of 1 s (module docstring).")
SEEDS = tuple(range(1, 13))
QUICK_SEEDS = (1, 2, 3)
CAUSE = ("Over {v.n_seeds} seeds under §4.5's literal de-duplication: ASM's queue is empty {v.asm_empty:.2%} ± "
         "{v.asm_empty_se:.2%} of the time (utilization {v.asm_util:.2%}), QCN's {v.qcn_empty:.2%} ± "
         "{v.qcn_empty_se:.2%}; QCN's utilization is {v.gap:.2f} ± {v.gap_se:.2f} pt below ASM's. ASM's CP sent "
         "{v.fb_per_s:.0f} feedback frames per second ({v.fb_top:.0%} to the most-sampled source) and "
         "{v.at_min:.1f} of {v.n} sources end at MinRate on average. With the delivered variant (diagnostic) ASM is "
         "empty {v.var_empty:.2%}. Why ASM touches zero at q0 = {v.q0} pkts: docs/models/asm.md.")


def _stats(algo: str, until: float, seed: int = 1, **cp):
    sc = _a0.scenario(algo, n=10, q0_pkts=5, until_s=until, seed=seed)
    sc["aqm"].update(cp)
    if algo == "asm":
        sc["record"]["traces"].append("feedback")
    res = _a0.run(sc)
    s = _a0.series(res)
    st = _a0.window_stats(s, T0, None, 1e9)
    if algo == "asm":
        r = res.traces["rate"]
        last = r[r.time_s == r.time_s.max()].rate_bps
        st["flows_at_min_rate"] = int((last <= _a0.MIN_RATE_BPS * 1.0001).sum())
        st.update(_a0.feedback_stats(res, T0))
    return st, s


def run(quick: bool) -> Run:
    until = 0.3 if quick else 1.0
    seeds = QUICK_SEEDS if quick else SEEDS
    rows, frames = [], []
    for k in seeds:
        for algo in ("asm", "qcn"):
            st, s = _stats(algo, until, seed=k)
            rows.append({"seed": k, "algo": algo, **st})
            if k == seeds[0]:  # the figure: the first seed
                frames.append(s.assign(algo=algo))
        # diagnostic: ASM with the "delivered" variant of §4.5 (memory also ends when the feedback arrives)
        st = _stats("asm", until, seed=k, dedup_expiry="delivered")[0]
        rows.append({"seed": k, "algo": "asm_delivered", **st})
    return Run(params={"n": 10, "rate_bps": 1e9, "q0_pkts": 5, "link_delay_s": 2e-6, "buffer_pkts": 87,
                       "start": "line rate", "until_s": until, "from_s": T0},
               frames={"series": pd.concat(frames, ignore_index=True), "runs": pd.DataFrame(rows)},
               seeds=list(seeds), quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["runs"]
    a, q, ad = (d[d.algo == k].sort_values("seed") for k in ("asm", "qcn", "asm_delivered"))
    gap = a.util.to_numpy() - q.util.to_numpy()      # paired by seed
    m = {"asm_empty": float(a.empty_frac.mean()), "asm_empty_se": se(a.empty_frac),
         "asm_util": float(a.util.mean()), "asm_util_se": se(a.util),
         "qcn_empty": float(q.empty_frac.mean()), "qcn_empty_se": se(q.empty_frac),
         "gap": float(100 * gap.mean()), "gap_se": 100 * se(gap)}
    # 1%: q0 = 5 pkts is 60 µs of drain at 1 Gb/s; any rate dip longer than that empties the queue (FIGURES.md)
    c.beyond("ASM queue-empty fraction < 1%", m["asm_empty"], m["asm_empty_se"], 0.01, "<", tolerance="2 se")
    c.beyond("ASM utilization > 99%", m["asm_util"], m["asm_util_se"], 0.99, ">", tolerance="2 se")
    c.beyond("QCN queue-empty fraction > 5%", m["qcn_empty"], m["qcn_empty_se"], 0.05, ">", tolerance="2 se")
    c.beyond("QCN utilization below ASM's by > 1 pt (paired by seed, pts)", m["gap"], m["gap_se"], 1.0, ">",
             tolerance="2 se")
    c.add("[diagnostic] dedup_expiry = delivered (variant): ASM queue-empty fraction (seed mean)",
          float(ad.empty_frac.mean()), float(ad.empty_frac.mean()) <= 0.01, "≤ 1%", "CP option changed")
    cv = {**m, "n_seeds": len(a), "fb_per_s": float(a.fb_per_s.mean()), "fb_top": float(a.fb_top_share.mean()),
          "at_min": float(a.flows_at_min_rate.mean()), "n": 10, "var_empty": float(ad.empty_frac.mean()), "q0": 5}
    return verdict(c, m, tolerance="FIGURES.md thresholds (1% / 5% empty, 1 pt utilization), two standard errors",
                   cause_values=cv)


def plot(run: Run):
    fig, axes = figure(2, 1, width=7, height=5, sharex=True)
    s = run.frames["series"]
    for algo, g in s.groupby("algo"):
        axes[0, 0].plot(g.time_s, g.queue_pkts, lw=0.5, label=algo.upper())
        u = _a0.binned_util(g, 0.01, 1e9)
        axes[1, 0].plot(u.time_s, u.util * 1e3, lw=0.8, label=algo.upper())
    ref_line(axes[0, 0], 5, "q0 = 5 pkts")
    axes[0, 0].set_ylabel("queue (pkts)"); axes[0, 0].legend(fontsize=7)
    axes[1, 0].set_ylabel("throughput (Mb/s, 10 ms)"); axes[1, 0].set_xlabel("time (s)"); axes[1, 0].legend(fontsize=7)
    ref_line(axes[1, 0], 1000, "C")
    axes[0, 0].set_title("q0 = 5 pkts, 10 sources, 1 Gb/s (Fig. 6)", fontsize=9)
    fig.tight_layout()
    return fig
