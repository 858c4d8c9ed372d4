"""asm/fig6: keeping a small queue (q0 = 5 pkts), 10 sources: ASM vs QCN.

A0 dumbbell [NG: 1 Gb/s, 2 µs per link, sources start at line rate, buffer 128 KB = 87 pkts, 1 s]; QCN
with Qeq = 5 pkts. Statistics after 0.1 s on the 10 µs queue trace.
"""
from __future__ import annotations

import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig6'
TITLE = 'q0=5 pkts, 10 sources: ASM never empties the queue; QCN often does and loses throughput'
KIND = 'sim'
STATUS = "partly"   # full reproduces (see notes); quick's 0.2 s window: QCN empty < 5%
COST = 'full: 2 × 1 s × 1 Gb/s ≈ 0.17 M pkts (~0.1 s); quick 0.3 s'
CLAIM = 'With q0 = 5 pkts ASM never lets the buffer run dry and loses no throughput; QCN often empties it and loses throughput.'
T0 = 0.1
SEEDS_DIAG = [2, 3, 4, 5]


def _stats(algo: str, until: float, seed: int = 1, **cp):
    sc = _a0.scenario(algo, n=10, q0_pkts=5, until_s=until, seed=seed)
    sc["aqm"].update(cp)
    res = _a0.run(sc)
    s = _a0.series(res)
    st = _a0.window_stats(s, T0, None, 1e9)
    if algo == "asm":
        r = res.traces["rate"]
        last = r[r.time_s == r.time_s.max()].rate_bps
        st["flows_at_min_rate"] = int((last <= _a0.MIN_RATE_BPS * 1.0001).sum())
    return st, s


def run(quick: bool) -> Run:
    until = 0.3 if quick else 1.0
    vals, frames = {}, []
    for algo in ("asm", "qcn"):
        vals[algo], s = _stats(algo, until)
        frames.append(s.assign(algo=algo))
    # diagnostics (advisory): other seeds, and ASM under the literal §4.5 reading (memory until another
    # source is sampled)
    vals["other_seeds"] = {str(k): {algo: {m: _stats(algo, until, seed=k)[0][m] for m in ("empty_frac", "util")}
                                    for algo in ("asm", "qcn")} for k in SEEDS_DIAG}
    vals["asm_literal"] = _stats("asm", until, dedup_expiry="never")[0]
    return Run(params={"n": 10, "rate_bps": 1e9, "q0_pkts": 5, "link_delay_s": 2e-6, "buffer_pkts": 87,
                       "start": "line rate", "until_s": until, "from_s": T0, "diagnostic_seeds": SEEDS_DIAG},
               frames={"series": pd.concat(frames, ignore_index=True)}, values=vals, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, a, q = Checks(), run.values["asm"], run.values["qcn"]
    # 1%: q0 = 5 pkts is 60 µs of drain at 1 Gb/s; any rate dip longer than that empties the queue
    c.add("ASM queue-empty fraction", a["empty_frac"], a["empty_frac"] <= 0.01, "≤ 1%", "FIGURES.md")
    c.add("ASM utilization", a["util"], a["util"] >= 0.99, "≥ 99%", "FIGURES.md")
    c.add("QCN queue-empty fraction", q["empty_frac"], q["empty_frac"] >= 0.05, "≥ 5%", "FIGURES.md")
    c.add("QCN utilization ≤ ASM − 1 pt", q["util"], q["util"] <= a["util"] - 0.01, f"≤ {a['util'] - 0.01:.4f}",
          "FIGURES.md")
    os_ = run.values["other_seeds"]
    ae = [os_[k]["asm"]["empty_frac"] for k in os_]
    qe = [os_[k]["qcn"]["empty_frac"] for k in os_]
    gap = [os_[k]["asm"]["util"] - os_[k]["qcn"]["util"] for k in os_]
    ks = ", ".join(os_)
    c.add(f"[diagnostic] seeds {ks}: ASM queue-empty fraction", ae, max(ae) <= 0.01, "≤ 1% each", "same check, other seeds",
          advisory=True)
    c.add(f"[diagnostic] seeds {ks}: QCN queue-empty fraction", qe, min(qe) >= 0.05, "≥ 5% each", "same check, other seeds",
          advisory=True)
    c.add(f"[diagnostic] seeds {ks}: ASM − QCN utilization (pts)", [100 * g for g in gap], min(gap) >= 0.01, "≥ 1 each",
          "same check, other seeds", advisory=True)
    ad = run.values["asm_literal"]
    c.add("[diagnostic] dedup_expiry = never (literal §4.5): ASM queue-empty fraction", ad["empty_frac"],
          ad["empty_frac"] <= 0.01, "≤ 1%", "CP option changed (not the reproduction)", advisory=True)
    variant = ("quick: 0.2 s window" if run.quick else "full: 0.9 s window")
    return verdict(c, {"asm": a, "qcn": q, "other_seeds": os_, "asm_literal": ad},
                   tolerance="FIGURES.md thresholds (1% / 5% empty, 1 pt utilization)",
                   notes=(f"Seed 1 ({variant}): ASM utilization {100 * a['util']:.2f}%, queue empty "
                          f"{100 * a['empty_frac']:.2f}% of the time; QCN empty {100 * q['empty_frac']:.2f}%, utilization "
                          f"{100 * q['util']:.2f}% ({100 * (a['util'] - q['util']):.2f} pts below ASM). With seeds {ks} "
                          f"ASM is empty {', '.join(f'{100 * x:.2f}' for x in ae)}% of the time, QCN "
                          f"{', '.join(f'{100 * x:.1f}' for x in qe)}%, and QCN runs "
                          f"{', '.join(f'{100 * x:.2f}' for x in gap)} pts below ASM: the FIGURES.md thresholds (1% empty, "
                          "1 pt) sit close to the seed-to-seed spread. Why ASM touches "
                          "zero at all: q0 = 5 pkts is only 60 µs of drain at 1 Gb/s, and near q0 (|Qf| + |dQ| < B0 = 16) "
                          "the large approach set is reused, so one feedback moves a source by up to C/8 · Qf/128 + "
                          "C/16 · dQ/128 (≈ 3-12 Mb/s for 3 packets), giving a chattering band of s.d. "
                          f"{a['q_sd']:.1f} pkts around a mean of {a['q_mean']:.1f}. Under the literal §4.5 reading "
                          "(dedup_expiry = never, advisory: a source is not sampled again until another source is) the "
                          f"same seed is empty {100 * ad['empty_frac']:.2f}% of the time (utilization "
                          f"{100 * ad['util']:.2f}%) and {ad.get('flows_at_min_rate', 0)} of 10 flows end at MinRate "
                          f"({_a0.MIN_RATE_BPS / 1e6:g} Mb/s; {a.get('flows_at_min_rate', 0)} with the default). An empty queue here means no frame "
                          "waiting; the link may still be sending the last one (ns-2's queue length counts the same "
                          "way)."))


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
