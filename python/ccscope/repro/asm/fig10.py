"""asm/fig10: propagation delay at 100 Gb/s, ASM vs QCN.

A0 dumbbell at 100 Gb/s [NG: per-link delay {0.5, 2, 5, 10} µs (RTT = 6 × per link), N = 10, q0 = 64 pkts,
buffer 1000 pkts, 20 ms per run, sources start at line rate]; statistics after 5 ms.
"""
from __future__ import annotations

import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig10'
TITLE = '100 Gb/s, 10 µs/link (RTT 60 µs): QCN unstable and drains the buffer; ASM tolerant'
KIND = 'sim'
STATUS = "partly"
COST = 'full: 8 runs × 20 ms × 100 Gb/s ≈ 1.3 M pkts (~0.3 s); quick {0.5, 10} µs × 5 ms'
CLAIM = ('At very small delay both keep the queue oscillation small; at 10 µs per link (RTT 60 µs) QCN turns unstable '
         'and empties the buffer often, while ASM tolerates the delay.')


def run(quick: bool) -> Run:
    delays = (0.5e-6, 10e-6) if quick else (0.5e-6, 2e-6, 5e-6, 10e-6)
    until, t0 = (0.005, 0.002) if quick else (0.02, 0.005)
    vals, frames = {}, []
    for d in delays:
        for algo in ("asm", "qcn"):
            res = _a0.run(_a0.scenario(algo, n=10, rate_bps=100e9, q0_pkts=64, link_delay_s=d, until_s=until,
                                       buffer_pkts=1000, sample_s=2e-6))
            s = _a0.series(res)
            st = _a0.window_stats(s, t0, None, 100e9)
            r = res.traces["rate"]
            last = r[r.time_s == r.time_s.max()].rate_bps
            st["flows_at_min_rate"] = int((last <= 5e6 * 1.0001).sum())
            vals[f"{algo}@{d * 1e6:g}us"] = st
            frames.append(s.assign(algo=algo, delay_us=d * 1e6))
    return Run(params={"rate_bps": 100e9, "n": 10, "q0_pkts": 64, "buffer_pkts": 1000, "delays_us": [d * 1e6 for d in delays],
                       "until_s": until, "from_s": t0, "start": "line rate"},
               frames={"series": pd.concat(frames, ignore_index=True)}, values=vals, seeds=[1], quick=quick)


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
    return verdict(c, v, tolerance="FIGURES.md thresholds",
                   notes=("QCN empties the buffer at every delay at 100 Gb/s, not only at 10 µs: after the start at line "
                          "rate its cuts are recovered by R_AI = 5 Mb/s steps, 1/20 000 of C, paced by 150 KB byte-counter "
                          "cycles and a 15 ms timer, so within 20 ms it never refills the link (the paper's 'very small "
                          "delay' QCN run is stable; its QCN increase parameters at 100 Gb/s are not stated). ASM holds "
                          "q0 up to 5 µs per link but at 10 µs it collapses: the overshoot pins "
                          f"{a10['flows_at_min_rate']} of 10 sources at MinRate (5 Mb/s); they then send ≈ 4 pkts/s "
                          "and are hardly ever sampled, and the literal §4.5 de-duplication rule forbids sampling the "
                          "one fast source twice in a row, so feedback nearly stops and the aggregate freezes below C with an "
                          "empty queue. De-duplication is not the whole cause: in a side run (not part of this check) a "
                          "1 ms de-duplication window raised utilization to 95.5% but the queue was still empty 59% of "
                          "the time, and no de-duplication gave 82%. With the §5.1 gains (up to C/8 per adjustment) and "
                          "a 60 µs loop, one feedback round at 100 Gb/s moves ≈ 500 pkts, so ASM in ccscope is not "
                          "delay-tolerant at this operating point; the paper's 100 Gb/s gain scaling and buffer are not "
                          "stated."))


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
