"""asm/fig7: convergence as flows join and leave, ASM vs QCN.

A0 dumbbell at 1 Gb/s [NG], 5 sources at line rate: 1-2 start at 0 s, 3 at 0.5 s, 4 at 1.0 s, 5 at 1.5 s; from
2.0 s one source stops every 0.5 s [NG: first started, first stopped; the last stops at 4.0 s]; q0 = 64 pkts
[NG]; throughput in 10 ms bins [NG]. Quick: 2 sources, one leaving at 0.3 s, run to 0.6 s.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig7'
TITLE = 'flows joining and leaving: ASM keeps the link full; QCN loses throughput'
KIND = 'sim'
STATUS = "partly"
COST = 'full: 2 × 4.5 s × 1 Gb/s ≈ 0.75 M pkts (~0.4 s); quick 2 sources, 0.6 s'
CLAIM = ('ASM keeps throughput high through every arrival and departure, converging faster and oscillating less than '
         'QCN, whose throughput sags after departures.')


def _plan(quick: bool):
    if quick:
        return [0.0, 0.0], [0.3, None], 0.6, [0.3], [(0.0, 0.3), (0.3, 0.6)]
    starts, stops = [0.0, 0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5, 4.0]
    return starts, stops, 4.5, [2.0, 2.5, 3.0, 3.5], [(e, e + 0.5) for e in np.arange(0.0, 4.0, 0.5)]


def run(quick: bool) -> Run:
    starts, stops, until, departures, epochs = _plan(quick)
    vals, frames = {}, []
    for algo in ("asm", "qcn"):
        flows = [{"src": f"s{i}", "dst": "r0", "cc": algo, "start_s": st, **({"stop_s": sp} if sp else {})}
                 for i, (st, sp) in enumerate(zip(starts, stops))]
        s = _a0.scenario(algo, n=len(starts), q0_pkts=64, until_s=until, buffer_pkts=87)
        s.pop("flows")
        s["flow"], s["topology"]["senders"] = flows, len(starts)
        ser = _a0.series(_a0.run(s))
        u = _a0.binned_util(ser, 0.01, 1e9)
        vals[algo] = {"epoch_util": [_a0.window_stats(ser, a, b, 1e9)["util"] for a, b in epochs],
                      "after_departure_mean": [float(u[(u.time_s > d) & (u.time_s <= d + 0.25)].util.mean()) for d in departures],
                      "after_departure_min_bin": [float(u[(u.time_s > d) & (u.time_s <= d + 0.25)].util.min()) for d in departures]}
        frames.append(u.assign(algo=algo))
    return Run(params={"rate_bps": 1e9, "q0_pkts": 64, "starts_s": starts, "stops_s": stops, "until_s": until,
                       "bin_s": 0.01, "start_rate": "line rate"},
               frames={"util": pd.concat(frames, ignore_index=True)}, values=vals, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, a, q = Checks(), run.values["asm"], run.values["qcn"]
    c.add("ASM worst epoch utilization", min(a["epoch_util"]), min(a["epoch_util"]) >= 0.98, "≥ 98%", "FIGURES.md")
    c.add("ASM worst 250 ms mean after a departure", min(a["after_departure_mean"]), min(a["after_departure_mean"]) >= 0.95,
          "≥ 95%", "FIGURES.md")
    gap = min(am - qm for am, qm in zip(a["after_departure_min_bin"], q["after_departure_min_bin"]))
    # 5 pts: ASM reacts to dQ < 0 at once; QCN waits for byte-counter / timer cycles of R_AI = 5 Mb/s
    c.add("QCN min 10 ms bin below ASM's after each departure (pts)", 100 * gap, gap >= 0.05, "≥ 5 pts", "FIGURES.md")
    return verdict(c, {"asm": a, "qcn": q}, tolerance="FIGURES.md thresholds",
                   notes=("Full run (5 sources): reproduced -- ASM ≥ 99.99% in every epoch, QCN sags to 55-91% in the "
                          "10 ms bins after departures. Quick variant (2 sources, one leaves): ASM stays at ≈ 52%: "
                          "with a single active source the literal §4.5 de-duplication rule (never sample the source "
                          "that received the previous feedback) stops all feedback, so the survivor never ramps up. "
                          "The paper does not say how de-duplication treats a lone source; ccscope keeps the literal "
                          "rule by default (`dedup_window_s` unset)."))


def plot(run: Run):
    fig, axes = figure(1, 1, width=7.5, height=3.8)
    ax = axes[0, 0]
    for algo, g in run.frames["util"].groupby("algo"):
        ax.plot(g.time_s, g.util * 1000, lw=0.8, label=algo.upper())
    ref_line(ax, 1000, "C = 1 Gb/s")
    for t in run.params["starts_s"] + [x for x in run.params["stops_s"] if x]:
        ax.axvline(t, color="0.85", lw=0.6)
    ax.set_xlabel("time (s)"); ax.set_ylabel("bottleneck throughput (Mb/s, 10 ms bins)")
    ax.set_title("flows joining and leaving (Fig. 7); grey: start/stop times", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
