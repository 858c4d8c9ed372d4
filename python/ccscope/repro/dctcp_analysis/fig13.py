"""dctcp-analysis/fig13: RTT-fairness. Throughput of group 1 (2 flows, RTT1 = 100 µs) over group 2 (2 flows,
RTT2 ∈ [100 µs, 1 ms]) on a 10 Gb/s dumbbell, for TCP with 0/1 marking, TCP-RED, DCTCP and DCTCP with the
per-ACK rule of eq 36 (`dctcp_per_ack`).

DCTCP K = 35, g = 1/16. TCP 0/1: NewReno + ECN, mark if q > 35. TCP-RED: mark probability 0 -> 10% as the
EWMA queue (w_q = 0.1) goes 30 -> 100 pkts [NG: every packet marked above 100, not gentle]. [NG: RTT2 ∈ {100, 200,
300, 500, 700, 1000} µs; 2 s per run, throughput over the last 1.5 s; 3 seeds]; buffer 1000 pkts, start jitter
1 ms. Quick: DCTCP and Improved only, ratios {1, 5}, 0.12 s per run measured after 20 ms, 1 seed.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.analysis.metrics import mean_flow_throughput
from ccscope.repro._base import Checks, Run, figure, loglog_slope, verdict

ID = 'dctcp-analysis/fig13'
TITLE = 'RTT-fairness: DCTCP between TCP-RED (~1/RTT) and TCP-DropTail (~1/RTT^2); per-ACK DCTCP ~ linear'
KIND = 'sim'
STATUS = "partly"
COST = 'full: 4 series × 6 ratios × 3 seeds × 2 s × 10 Gb/s (~40 s); quick 4 runs × 0.12 s'
CLAIM = ('DCTCP favours short RTTs: fairer than TCP with 0/1 marking (throughput ratio ∝ RTT ratio^~2) but less fair '
         'than TCP-RED (∝ ^1); the per-ACK rule (eq 36) makes it about linear, slightly better than RED.')
C, RTT1, K = 10e9, 100e-6, 35
SERIES = {"tcp_dt": "TCP 0/1 marking", "tcp_red": "TCP-RED", "dctcp": "DCTCP", "improved": "DCTCP per-ACK (eq 36)"}


def _sim(series: str, rtt2: float, until: float, t0: float, seed: int) -> float:
    if series in ("tcp_dt", "tcp_red"):
        kind, kw = "new_reno", {"tcp": cc.scenario.TcpConfig(ecn=True)}
    else:
        kind, kw = ("dctcp" if series == "dctcp" else "dctcp_per_ack"), {"dctcp": cc.scenario.DctcpConfig(g=1 / 16)}
    aqm = (cc.aqm.red(min_th_pkts=30, max_th_pkts=100, max_p=0.1, w_q=0.1, action="mark") if series == "tcp_red"
           else cc.aqm.threshold(k_pkts=K))
    sc = cc.scenario.dumbbell(4, cc=kind, bottleneck_bps=C, rtt_per_sender_s=[RTT1, RTT1, rtt2, rtt2], aqm=aqm,
                              buffer_pkts=1000, start_jitter_s=1e-3, seed=seed, **kw)
    res = cc.simulate(sc, until_s=until, record=["delivered", "link"])
    thr = mean_flow_throughput(res, start_s=t0)
    return float((thr.loc[0] + thr.loc[1]) / (thr.loc[2] + thr.loc[3]))


def run(quick: bool) -> Run:
    if quick:
        series, ratios, until, t0, seeds = ("dctcp", "improved"), (1, 5), 0.12, 0.02, (1,)
    else:
        series, ratios, until, t0, seeds = tuple(SERIES), (1, 2, 3, 5, 7, 10), 2.0, 0.5, (1, 2, 3)
    rows = [{"series": s, "rtt_ratio": r, "seed": sd, "thr_ratio": _sim(s, r * RTT1, until, t0, sd)}
            for s in series for r in ratios for sd in seeds]
    df = pd.DataFrame(rows)
    mean = df.groupby(["series", "rtt_ratio"]).thr_ratio.mean().reset_index()
    theta = {s: loglog_slope(g.rtt_ratio, g.thr_ratio) for s, g in mean.groupby("series")}
    at1 = {s: float(g[g.rtt_ratio == 1].thr_ratio.iloc[0]) for s, g in mean.groupby("series")}
    return Run(params={"rate_bps": C, "rtt1_s": RTT1, "k_pkts": K, "g": 1 / 16, "ratios": list(ratios), "until_s": until,
                       "from_s": t0, "seeds": list(seeds), "red": "30-100 pkts, max_p 0.1, w_q 0.1, mark"},
               frames={"runs": df, "mean": mean}, values={"theta": theta, "at_ratio_1": at1,
                                                          "mean": mean.to_dict("records")}, seeds=list(seeds), quick=quick)


def check(run: Run) -> dict:
    c, th, a1 = Checks(), run.values["theta"], run.values["at_ratio_1"]
    if "tcp_dt" in th:
        # at ratio 10 linear and squared differ 10×, so ±0.3-0.4 on θ still separates them (FIGURES.md)
        c.within("θ TCP 0/1 marking", th["tcp_dt"], 1.6, 2.4, "squared ± 0.4")
        c.within("θ TCP-RED", th["tcp_red"], 0.7, 1.3, "linear ± 0.3")
        c.add("θ_RED < θ_DCTCP < θ_DT", th["dctcp"], th["tcp_red"] < th["dctcp"] < th["tcp_dt"],
              f"({th['tcp_red']:.2f}, {th['tcp_dt']:.2f})", "ordering")
        c.within("θ DCTCP per-ACK", th["improved"], 0.7, 1.2, "linear")
        c.add("θ per-ACK ≤ θ_RED + 0.1", th["improved"], th["improved"] <= th["tcp_red"] + 0.1,
              f"≤ {th['tcp_red'] + 0.1:.2f}", "slightly better than RED")
        for s, v in a1.items():
            c.near(f"{s} ratio at RTT ratio 1", v, 1.0, 0.1, "symmetry ± 10%")
    else:
        c.add("θ per-ACK < θ DCTCP", th["improved"], th["improved"] < th["dctcp"], f"< {th['dctcp']:.2f}", "quick check")
    return verdict(c, {"theta": th, "at_ratio_1": a1}, tolerance="θ bands of FIGURES.md",
                   notes=("Ordering and the per-ACK result reproduce (full run: θ_RED 1.09 < θ_DCTCP 1.10 < θ_DT 1.58; "
                          "per-ACK 0.78, i.e. about linear and slightly fairer than RED). TCP with 0/1 marking gives "
                          "θ = 1.58, just under the 1.6 edge of the 'roughly squared' band: its ratio is 45× at RTT "
                          "ratio 10 (squared would be 100×) but only 5× at ratio 3. DCTCP's curve is not monotone "
                          "(3.7 at ratio 2, 3.0 at 3, 11.2 at 5, 8.3 at 7, 13.9 at 10, mean of 3 seeds): with 4 flows "
                          "and a 1-pkt marking threshold granularity the per-RTT cut timing locks to the RTT ratio, so "
                          "θ is a fit through a scattered curve; the paper's 'a little worse than linear, heading to "
                          "squared' is only loosely visible. Every series is 1 ± 0.1 at equal RTTs."))


def plot(run: Run):
    fig, axes = figure(1, 1, width=6.4, height=4.4)
    ax = axes[0, 0]
    for s, g in run.frames["mean"].groupby("series"):
        ax.loglog(g.rtt_ratio, g.thr_ratio, "o-", label=f"{SERIES[s]} (θ = {run.values['theta'][s]:.2f})")
    x = np.array([1, 10])
    ax.loglog(x, x, "k--", lw=0.8, label="∝ RTT ratio (linear)")
    ax.loglog(x, x ** 2, "k:", lw=0.8, label="∝ RTT ratio² (squared)")
    ax.set_xlabel("RTT2 / RTT1"); ax.set_ylabel("throughput group 1 / group 2")
    ax.set_title("RTT-fairness, 10 Gb/s, K = 35 (Fig. 13)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
