"""Shared code of dctcp-analysis/fig2-n2, -n10, -n100: the D0 packet simulation side by side with the
fluid model (eqs 5-8). D0: 10 Gb/s, d = 100 us, K = 65, g = 1/16, buffer 1000 pkts, no delayed ACKs,
alpha starts at 1, ns-2 rule (ECN-Echo blocks cwnd growth), starts jittered in [0, 1 ms] [NG].
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.fluid import dctcp
from ccscope.repro.dctcp_analysis._ns2 import TCP as NS2_TCP

C_BPS, D_S, K, G, BUFFER = 10e9, 100e-6, 65, 1 / 16, 1000
PARAMS = {"bottleneck_bps": C_BPS, "rtt_s": D_S, "k_pkts": K, "g": G, "buffer_pkts": BUFFER, "delayed_ack": False,
          "alpha_init": 1.0, "ecn_echo_blocks_growth": True, "start_jitter_s": 1e-3, "seed": 1}


def period_check(c, period_s: float, fluid_period_s: float) -> bool:
    """FIGURES.md's period row (fluid period +-20%), strict: P000 §5 footnote 8 says the fluid model "is very
    accurate when sources have identical RTTs" (FIGURES.md guidance §1). Single run: +-20% covers the FFT bin
    width (1/50 ms = 2% of a 1-ms period) and start jitter. The DCTCP-in-ns-2 cross-check of
    docs/models/dctcp_ns2.md runs a DCTCP port written for ccscope, so it is no basis for an advisory row."""
    return c.rel("sim queue period (FFT peak)", period_s, fluid_period_s, 0.20, "+-20%: FFT resolution and start jitter")


#: Cause of a period miss; every number comes from this run (docs/models/dctcp.md has the longer analysis and
#: the ns-2 / ns-3 cross-checks).
CAUSE = {"period": (
    "The packet queue's period is {v.sim_period_ms:.3g} ms against the fluid limit cycle's {v.fluid_period_ms:.3g} "
    "ms, while the amplitude ({v.sim_amp:.3g} vs {v.fluid_amp:.3g} pkts), the mean queue ({v.sim_q_mean:.3g} vs "
    "{v.fluid_q_mean:.3g} pkts) and the sum of windows agree. Each packet flow cuts once every "
    "{v.cut_interval_ms:.3g} ms on average, by {v.cut_pkts:.3g} pkts ({v.cut_frac:.1%} of its window): the packet "
    "sender applies the eq 4 cut at once on the first marked ACK and then ignores marks for a window, while eq 5 "
    "keeps cutting for the whole time the delayed queue is above K ({v.fluid_marked_frac:.0%} of the fluid cycle), "
    "so one fluid episode removes more than one packet cut and takes longer to regrow. P000 §5 names this "
    "difference (instantaneous versus continuous cut) but its footnote 8 expects it to matter only for "
    "heterogeneous RTTs. Cross-checks with a DCTCP port in ns-2 and with ns-3: docs/models/dctcp.md.")}


def cause_values(run, st: dict, fl_period_s: float, fluid_amp: float) -> dict:
    """Numbers of the period cause, all from this run."""
    return {"sim_period_ms": 1e3 * st["period_s"], "fluid_period_ms": 1e3 * fl_period_s,
            "sim_amp": st["q_p98"] - st["q_p2"], "fluid_amp": fluid_amp, "sim_q_mean": st["q_mean"],
            "fluid_q_mean": run.values["fluid"]["q_mean"], "cut_interval_ms": 1e3 * st["cut_interval_s"],
            "cut_pkts": st["cut_pkts"], "cut_frac": st["cut_frac"],
            "fluid_marked_frac": run.values["fluid"]["marked_frac"]}


def simulate(n: int, until_s: float, *, g: float = G, delivered: bool = False):
    sc = cc.scenario.dumbbell(n, cc="dctcp", bottleneck_bps=C_BPS, rtt_s=D_S, aqm=cc.aqm.threshold(k_pkts=K),
                              buffer_pkts=BUFFER, start_jitter_s=1e-3, seed=1,
                              dctcp=cc.scenario.DctcpConfig(g=g, alpha_init=1.0, ecn_echo_blocks_growth=True),
                              tcp=cc.scenario.TcpConfig(**NS2_TCP),
                              record=cc.scenario.RecordConfig(queue_interval_s=1e-6, flow_interval_s=1e-5))
    return cc.simulate(sc, until_s=until_s, record=["queue", "cwnd", "alpha", "link"] + (["delivered"] if delivered else []))


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
    # window cuts: decreases of a flow's cwnd between consecutive samples (a cut is instantaneous, growth is not)
    cuts, sizes, fracs = 0, [], []
    for _fl, d in cw.groupby("flow"):
        w = d.sort_values("time_s").cwnd_pkts.values.astype(float)
        dw = np.diff(w)
        cut = dw < -0.5
        cuts += int(cut.sum())
        sizes.extend((-dw[cut]).tolist())
        fracs.extend((-dw[cut] / w[:-1][cut]).tolist())
    span = float(cw.time_s.max() - cw.time_s.min())
    n_flows = int(cw.flow.nunique())
    return {"cut_interval_s": span * n_flows / cuts if cuts else float("nan"),
            "cut_pkts": float(np.mean(sizes)) if sizes else float("nan"),
            "cut_frac": float(np.mean(fracs)) if fracs else float("nan"),"q_p2": float(np.percentile(qs, 2)), "q_p98": float(np.percentile(qs, 98)), "q_mean": float(qs.mean()),
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
