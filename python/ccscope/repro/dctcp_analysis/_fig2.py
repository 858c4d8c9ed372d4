"""Shared code of dctcp-analysis/fig2-n2, -n10, -n100: the D0 packet simulation side by side with the
fluid model (eqs 5-8). D0: 10 Gb/s, d = 100 us, K = 65, g = 1/16, buffer 1000 pkts, no delayed ACKs,
alpha starts at 1, ns-2 rule (ECN-Echo blocks cwnd growth), starts jittered in [0, 1 ms] [NG].
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.fluid import dctcp

C_BPS, D_S, K, G, BUFFER = 10e9, 100e-6, 65, 1 / 16, 1000
PARAMS = {"bottleneck_bps": C_BPS, "rtt_s": D_S, "k_pkts": K, "g": G, "buffer_pkts": BUFFER, "delayed_ack": False,
          "alpha_init": 1.0, "ecn_echo_blocks_growth": True, "start_jitter_s": 1e-3, "seed": 1}


#: P000's own simulator on D0: ns-2.35 with DCTCP added as P000 §2 describes (alpha once per window of data,
#: cwnd x (1 - alpha/2) on the first ECN-Echo of a window, a receiver that echoes each packet's CE; ns-2's RED as a
#: step marker at K, q_weight 1), 100 ms, last 50 ms, seeds 1-3 (docs/models/dctcp_ns2.md). Queue period (FFT peak,
#: ms), 2nd-98th percentile of the queue (pkts), mean queue, sum of windows.
NS2_D0 = {2: {"period_ms": "1.14", "q_band": "55-66", "q_mean": "60.6", "sum_w": "147.7"},
          10: {"period_ms": "0.79-0.81", "q_band": "45-73", "q_mean": "59.1", "sum_w": "150.3-151.0"}}


def period_check(c, n: int, period_s: float, fluid_period_s: float) -> None:
    """FIGURES.md's period row (fluid period +-20%). The period is FIGURES.md's reading of "tracks closely", not a
    number of P000, and P000's own simulator with the packet DCTCP of §2 misses it the same way as ccscope (its cut is
    W alpha/2 at once on the first marked ACK, the fluid's is spread over the whole marked interval, P000 §5): the
    row is advisory with ns-2's number (`SIMULATOR_MISSES_TOO`, as for the periodic entries)."""
    from ccscope.repro._base import SIMULATOR_MISSES_TOO
    c.rel("sim queue period (FFT peak)", period_s, fluid_period_s, 0.20,
          f"+-20%: FFT resolution and jitter; ns-2 (P000's simulator) on D0: {NS2_D0[n]['period_ms']} ms",
          basis=SIMULATOR_MISSES_TOO)


def ns2_note(n: int) -> str:
    x = NS2_D0[n]
    return (f" P000's own simulator agrees with ccscope, not with the fluid period: ns-2.35 with DCTCP added as P000 §2 "
            f"describes (docs/models/dctcp_ns2.md), same D0, seeds 1-3, gives a {x['period_ms']}-ms queue period, queue "
            f"{x['q_band']} pkts (mean {x['q_mean']}) and sum W {x['sum_w']} pkts. The period row is therefore advisory "
            "(a FIGURES.md reading of 'tracks closely' that the paper's simulator misses the same way); the band, mean, "
            "sum W and utilization rows decide the verdict.")


def simulate(n: int, until_s: float, *, g: float = G):
    sc = cc.scenario.dumbbell(n, cc="dctcp", bottleneck_bps=C_BPS, rtt_s=D_S, aqm=cc.aqm.threshold(k_pkts=K),
                              buffer_pkts=BUFFER, start_jitter_s=1e-3, seed=1,
                              dctcp=cc.scenario.DctcpConfig(g=g, alpha_init=1.0, ecn_echo_blocks_growth=True),
                              record=cc.scenario.RecordConfig(queue_interval_s=1e-6, flow_interval_s=1e-5))
    return cc.simulate(sc, until_s=until_s, record=["queue", "cwnd", "alpha", "link"])


def fluid(n: int, until_s: float, *, g: float = G, steps_per_rstar: int = 500):
    m = dctcp(n, C_BPS, D_S, K, g=g)
    dt = float(m.r_star_s[0]) / steps_per_rstar
    return m.solve(until_s, dt_s=dt, alpha0=0.5, settle_s=until_s / 2, record_every=max(1, steps_per_rstar // 25))


def sim_stats(res, t0: float) -> dict:
    q = res.traces["queue"]
    q = q[q.time_s >= t0]
    qs = q.queue_pkts.values.astype(float)
    dt = float(q.time_s.iloc[1] - q.time_s.iloc[0])
    x = qs - qs.mean()
    spec = np.abs(np.fft.rfft(x))
    freqs = np.fft.rfftfreq(len(x), dt)
    k = 1 + int(np.argmax(spec[1:]))
    cw = res.traces["cwnd"]
    cw = cw[cw.time_s >= t0]
    al = res.traces["alpha"]
    al = al[al.time_s >= t0]
    link = res.traces["link"]
    link = link[link.time_s >= t0]
    util = float((link.tx_bytes.iloc[-1] - link.tx_bytes.iloc[0]) * 8 / (C_BPS * (link.time_s.iloc[-1] - link.time_s.iloc[0])))
    per_flow_w = cw.groupby("flow").cwnd_pkts.mean()
    return {"q_p2": float(np.percentile(qs, 2)), "q_p98": float(np.percentile(qs, 98)), "q_mean": float(qs.mean()),
            "period_s": float(1 / freqs[k]), "sum_w": float(per_flow_w.sum()), "mean_w": float(per_flow_w.mean()),
            "alpha_min_flow": float(al.groupby("flow").alpha.mean().min()), "utilization": util}


def frames(res, fl, t0: float) -> dict[str, pd.DataFrame]:
    q = res.traces["queue"]
    cw = res.traces["cwnd"]
    al = res.traces["alpha"]
    keep = lambda d: d[d.time_s >= t0]
    return {"sim_queue": keep(q)[["time_s", "queue_pkts"]].iloc[::10], "sim_cwnd": keep(cw).iloc[::5],
            "sim_alpha": keep(al).iloc[::5], "fluid": fl.traces}


def plot_side_by_side(run, title: str):
    from ccscope.repro._base import figure
    fig, axes = figure(3, 1, width=7.5, height=8, sharex=True)
    f = run.frames["fluid"]
    t0 = run.params["compare_from_s"]
    f = f[f.time_s >= t0]
    q = run.frames["sim_queue"]
    axes[0, 0].plot(1e3 * q.time_s, q.queue_pkts, lw=0.6, label="packet sim")
    axes[0, 0].plot(1e3 * f.time_s, f.queue_pkts, lw=2, color="k", label="fluid model (eqs 5-8)")
    axes[0, 0].axhline(K, ls="--", color="0.4", label=f"K = {K}")
    axes[0, 0].set_ylabel("queue (pkts)")
    axes[0, 0].legend(fontsize=7, loc="upper right")
    axes[0, 0].set_title(title)
    cw, al = run.frames["sim_cwnd"], run.frames["sim_alpha"]
    for i, (fl, d) in enumerate(cw.groupby("flow")):
        if i < 4:
            axes[1, 0].plot(1e3 * d.time_s, d.cwnd_pkts, lw=0.6, label=f"sim flow {fl}" if i < 2 else None)
    axes[1, 0].plot(1e3 * f.time_s, f.window_pkts, lw=2, color="k", label="fluid W(t)")
    axes[1, 0].set_ylabel("cwnd (pkts)")
    axes[1, 0].legend(fontsize=7, loc="upper right")
    for i, (_fl, d) in enumerate(al.groupby("flow")):
        if i < 4:
            axes[2, 0].plot(1e3 * d.time_s, d.alpha, lw=0.6)
    axes[2, 0].plot(1e3 * f.time_s, f.alpha, lw=2, color="k", label="fluid alpha(t)")
    axes[2, 0].set_ylabel("alpha")
    axes[2, 0].set_xlabel("time (ms)")
    axes[2, 0].legend(fontsize=7, loc="upper right")
    return fig
