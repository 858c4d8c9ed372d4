"""dctcp-analysis/fig13: RTT-fairness. Throughput of group 1 (2 flows, RTT1 = 100 µs) over group 2 (2 flows,
RTT2 ∈ [100 µs, 1 ms]) on a 10 Gb/s dumbbell, for TCP with 0/1 marking, TCP-RED, DCTCP and DCTCP with the
per-ACK rule of eq 36 (`dctcp_per_ack`).

DCTCP K = 35, g = 1/16. TCP 0/1: NewReno + ECN, mark if q > 35. TCP-RED: mark probability 0 -> 10% as the
EWMA queue (w_q = 0.1) goes 30 -> 100 pkts [NG: every packet marked above 100, not gentle]. [NG: RTT2 ∈ {100, 200,
300, 500, 700, 1000} µs; 3 seeds]; buffer 1000 pkts, start jitter 1 ms. Quick: DCTCP and Improved only, ratios
{1, 5}, 0.12 s per run measured after 20 ms, 1 seed.

Run length: 8 s per run, throughput over [4, 8] s (FIGURES.md's [NG] 2 s / last 1.5 s measured TCP 0/1 before it
had settled). The throughput ratio is a long-run quantity, and TCP with 0/1 marking at RTT ratio 10 locks into one
of two phase-locked states (group-1/group-2 ratio 44.3 or 52.6; 12 seeds: 5 and 7) after switching between them
during the first seconds: in 1-s windows seed 1 reads 43.5, 43.6, 44.7, then 52.6 to 16 s, seed 2 44.0, 50.7,
then 52.7 to 16 s, seed 3 44.3 throughout; at ratio 3 it reads 4.8 in [0.5, 1] s and 5.2 from 1 s on. Every other
series and ratio is stationary from 0.5 s (1-s to 2-s windows within their seed scatter), and over [4, 8] s all 12
seeds at ratio 10 sit in one state (44.3 ± 0.1 or 52.6 ± 0.1).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.analysis.metrics import mean_flow_throughput
from ccscope.repro._base import Checks, Run, figure, loglog_slope, verdict
from ccscope.repro.dctcp_analysis._ns2 import TCP as NS2_TCP

ID = 'dctcp-analysis/fig13'
TITLE = 'RTT-fairness: DCTCP between TCP-RED (~1/RTT) and TCP-DropTail (~1/RTT^2); per-ACK DCTCP ~ linear'
KIND = 'sim'
COST = 'full: 4 series × 6 ratios × 3 seeds × 8 s × 10 Gb/s (~2 min); quick 4 runs × 0.12 s'
CLAIM = ('DCTCP favours short RTTs: fairer than TCP with 0/1 marking (throughput ratio ∝ RTT ratio^~2) but less fair '
         'than TCP-RED (∝ ^1); the per-ACK rule (eq 36) makes it about linear, slightly better than RED.')
C, RTT1, K = 10e9, 100e-6, 35
SERIES = {"tcp_dt": "TCP 0/1 marking", "tcp_red": "TCP-RED", "dctcp": "DCTCP", "improved": "DCTCP per-ACK (eq 36)"}


def _sim(series: str, rtt2: float, until: float, t0: float, seed: int) -> float:
    if series in ("tcp_dt", "tcp_red"):
        kind, kw = "new_reno", {"tcp": cc.scenario.TcpConfig(ecn=True, **NS2_TCP)}
    else:
        kind, kw = (("dctcp" if series == "dctcp" else "dctcp_per_ack"),
                    {"dctcp": cc.scenario.DctcpConfig(g=1 / 16), "tcp": cc.scenario.TcpConfig(**NS2_TCP)})
    # TCP-RED: ns-2's queue/red.cc rules (small-queue guard, wait_ spacing; marking above max_th), see _ns2
    aqm = (cc.aqm.red(min_th_pkts=30, max_th_pkts=100, max_p=0.1, w_q=0.1, action="mark", ns2_small_queue=True,
                      ns2_wait=True) if series == "tcp_red"
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
        series, ratios, until, t0, seeds = tuple(SERIES), (1, 2, 3, 5, 7, 10), 8.0, 4.0, (1, 2, 3)
    rows = [{"series": s, "rtt_ratio": r, "seed": sd, "thr_ratio": _sim(s, r * RTT1, until, t0, sd)}
            for s in series for r in ratios for sd in seeds]
    df = pd.DataFrame(rows)
    mean = df.groupby(["series", "rtt_ratio"]).thr_ratio.mean().reset_index()
    theta = {s: loglog_slope(g.rtt_ratio, g.thr_ratio) for s, g in mean.groupby("series")}
    # spread of the estimator: θ fitted to each seed's curve
    theta_seed = {s: [loglog_slope(h.rtt_ratio, h.thr_ratio) for _, h in g.groupby("seed")]
                  for s, g in df.groupby("series")}
    at1 = {s: float(g[g.rtt_ratio == 1].thr_ratio.iloc[0]) for s, g in mean.groupby("series")}
    return Run(params={"rate_bps": C, "rtt1_s": RTT1, "k_pkts": K, "g": 1 / 16, "ratios": list(ratios), "until_s": until,
                       "from_s": t0, "seeds": list(seeds), "red": "30-100 pkts, max_p 0.1, w_q 0.1, mark"},
               frames={"runs": df, "mean": mean}, values={"theta": theta, "theta_per_seed": theta_seed, "at_ratio_1": at1,
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
    return verdict(c, {"theta": th, "at_ratio_1": a1}, tolerance="θ bands of FIGURES.md", notes=_notes(run))


def _notes(run: Run) -> str:
    th, ps = run.values["theta"], run.values.get("theta_per_seed", {})
    if "tcp_dt" not in th:
        return f"Quick: θ per-ACK {th['improved']:.2f} vs DCTCP {th['dctcp']:.2f} (ratios 1 and 5, one seed)."
    df, m = run.frames["runs"], run.frames["mean"]
    dt = ps["tcp_dt"]
    se = float(np.std(dt, ddof=1) / np.sqrt(len(dt))) if len(dt) > 1 else float("nan")
    r10 = df[(df.series == "tcp_dt") & (df.rtt_ratio == df.rtt_ratio.max())].sort_values("seed").thr_ratio
    curve = lambda s: ", ".join(f"{v:.1f}" for v in m[m.series == s].sort_values("rtt_ratio").thr_ratio)  # noqa: E731
    return (f"θ_RED {th['tcp_red']:.3f}, θ_DCTCP {th['dctcp']:.3f}, θ_DT {th['tcp_dt']:.3f}, per-ACK "
            f"{th['improved']:.3f} (fits to the seed-mean curves). TCP 0/1: per-seed θ "
            f"{' / '.join(f'{v:.3f}' for v in dt)} (standard error of the mean {se:.3f}); its curve is "
            f"{curve('tcp_dt')} at ratios {', '.join(str(int(r)) for r in sorted(m.rtt_ratio.unique()))} (squared "
            "would be 4 .. 100): squared at 2, well under it at 3 and 5. The seed scatter comes from ratio 10, where "
            f"the runs lock into one of two states (this run: {', '.join(f'{v:.1f}' for v in r10)}; 12 seeds: 7 at "
            "52.6, 5 at 44.3); a seed in the 52.6 state fits θ ≈ 1.62, one in the 44.3 state ≈ 1.57, so the expected "
            "θ_DT is ≈ 1.60, on the lower edge of the 'roughly squared' band [1.6, 2.4], and whether a 3-seed run "
            "passes depends on the states its seeds lock into. With FIGURES.md's 2-s runs (last 1.5 s) ratio 10 "
            "was still switching and θ_DT read 1.579 (per seed 1.568 / 1.597 / 1.571). DCTCP's curve is not "
            f"monotone ({curve('dctcp')}): with 4 flows and 0/1 marking the per-RTT cut timing locks to the RTT "
            "ratio, so θ is a fit through a scattered curve and the paper's 'a little worse than linear, heading to "
            "squared' is only loosely visible. Every series is 1 ± 0.1 at equal RTTs.")


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
