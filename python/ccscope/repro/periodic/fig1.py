"""periodic/fig1: one Reno flow alone on the fixed-RTT path oscillates (P001 Fig 1).

Setup [NG → FIGURES.md proposal]: P0's topology with one client, fixed RTT 1340 ms, DropTail B = 50,
rwnd unlimited (losses, not rwnd, set the window), 2000 s (quick 1000 s). TCP as ns-2 of P001's period
(`_p0.NS2_TCP`, see `_p0`'s docstring: initial window 1, initial RTO 6 s, tick estimator): the flow
slow-starts until the buffer overflows, so the first loss episode is the slow-start overshoot, not a
Reno cycle; it is left out of the cycle measurements (decided from the mechanism, before the run),
and the rate's PI is taken from 10 RTTs after that episode.
[DER] Reno's cycle: the window grows by one packet per RTT from half the peak to the peak
BDP + B + 1 = 251 + 50 + 1 = 302 pkts (the packet that overflows the buffer); the RTT is the base
1.34 s while W ≤ BDP and W/C once the queue builds, so one cycle lasts Σ_{W=151}^{301} max(1.34, W/C) s.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.periodic import _p0

ID = "periodic/fig1"
TITLE = "a lone Reno flow produces a periodic sawtooth"
KIND = "sim"
COST = "full: 2000 s × 1 flow × 187.5 pkt/s ≈ 0.38 M pkts (< 1 s); quick 1000 s"
CLAIM = ("A single Reno flow alone on an idle path (fixed RTT 1340 ms, DropTail B = 50) sends at a periodic rate: cwnd peaks "
         "at BDP + B + 1 = 302 pkts, restarts from half of that, and the cycle lasts ≈ Σ RTT over 151 window steps ≈ 210 s.")
BUFFER = 50
EPISODE_GAP_S = 20.0  # [CHOICE] drops > 20 s apart belong to different cycles (recovery lasts a few RTTs)
BASE_RTT_S = 2 * (0.65 + 0.02)  # 1340 ms
BDP = _p0.C_PKTS * BASE_RTT_S  # 251.25 pkts
PEAK = int(np.floor(BDP)) + BUFFER + 1  # 302: BDP + B + 1 (FIGURES.md)


def cycle_s(peak: float = PEAK) -> float:
    """[DER] Σ RTT over the window steps from peak/2 to peak − 1, RTT = max(base, W/C)."""
    w = np.arange(int(peak // 2), int(peak))
    return float(np.sum(np.maximum(BASE_RTT_S, w / _p0.C_PKTS)))


def run(quick: bool) -> Run:
    until = 1000.0 if quick else 2000.0
    sc = cc.scenario.periodic(1, rtt="fixed", aqm=cc.aqm.drop_tail(), buffer_pkts=BUFFER, start_spread_s=0.0,
                              min_rto_s=_p0.MIN_RTO_S, rwnd_pkts=1_000_000)
    sc["tcp"].update(_p0.NS2_TCP)
    res = cc.simulate(sc, until_s=until, record=["queue", "link", "cwnd", "drops"])
    cw = res.traces["cwnd"].sort_values("time_s")
    t, w, ss = cw.time_s.to_numpy(), cw.cwnd_pkts.to_numpy(float), cw.ssthresh_pkts.to_numpy(float)
    dr = res.traces["drops"]
    dt = np.sort(dr[(dr.port == "M2->M3") & (~dr.is_ack)].time_s.to_numpy())
    # loss episodes: drops separated by > EPISODE_GAP_S (a Reno cycle lasts minutes, recovery seconds)
    starts = dt[np.r_[True, np.diff(dt) > EPISODE_GAP_S]] if len(dt) else dt
    ends = dt[np.r_[np.diff(dt) > EPISODE_GAP_S, True]] if len(dt) else dt
    # the first episode ends ns-2's initial slow start (IW 1, 6-s initial RTO), not a Reno cycle
    t_ss = float(ends[0]) + 10 * BASE_RTT_S if len(ends) else 10 * BASE_RTT_S
    starts, ends = starts[1:], ends[1:]
    # peak = cwnd when the episode's first packet is dropped (before fast-recovery inflation)
    peaks = np.array([w[max(np.searchsorted(t, s0, side="right") - 1, 0)] for s0 in starts])
    # restart = ssthresh once the episode is over (where congestion avoidance resumes), 10 RTTs after its last drop
    after = np.array([ss[min(np.searchsorted(t, e0 + 10 * BASE_RTT_S), len(ss) - 1)] for e0 in ends])
    episode_drops = [int(((dt >= s0) & (dt <= e0)).sum()) for s0, e0 in zip(starts, ends)]
    rate = _p0._rate_series(res.traces["link"], "M1->M2", 0.0, until)
    sel = rate.time_s >= t_ss
    x = rate.rate_bps[sel].to_numpy()
    pi = _p0.periodicity_index(x, lag_lo_s=10.0, lag_hi_s=400.0, flat_pkts=_p0.PKT_BPS_BIN)
    pk = _p0.acf_peaks(x, lag_lo_s=10.0, lag_hi_s=400.0)
    cycles = pd.DataFrame({"episode_start_s": starts, "peak_pkts": peaks, "restart_ssthresh_pkts": after,
                           "drops": episode_drops})
    values = {"peaks_pkts": peaks.tolist(), "after_pkts": after.tolist(), "periods_s": np.diff(starts).tolist(),
              "episode_drops": episode_drops, "rate_pi_10_400": pi, "rate_pi_lag_s": pk["pi_lag_s"],
              "cycle_der_s": cycle_s(), "peak_der_pkts": PEAK, "drops": int(len(dt)),
              "timeouts": int(res.flows.timeouts.sum()), "fast_retransmits": int(res.flows.fast_retransmits.sum())}
    series = pd.DataFrame({"time_s": t, "cwnd_pkts": w})
    return Run(params={"clients": 1, "rtt": "fixed 1340 ms", "buffer_pkts": BUFFER, "rwnd_pkts": "unlimited (1e6)",
                       "min_rto_s": _p0.MIN_RTO_S, "until_s": until, "start_s": 0.0, "bin_s": _p0.BIN_S, "seed": _p0.SEED,
                       "pi_lags_s": [10, 400]},
               frames={"cwnd": series, "rate": rate, "cycles": cycles}, values=values, seeds=[_p0.SEED], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    v = run.values
    peaks = np.asarray(v["peaks_pkts"], float)
    n_cyc = len(peaks)
    c.add("≥ 2 loss episodes", n_cyc, n_cyc >= 2, "≥ 2", "enough run time for one period")
    # ±3 pkts: the loss is detected one RTT after the overflow, while cwnd keeps growing by < 1 pkt;
    # plus the 100-ms sampling of cwnd.
    c.near("cwnd peak (mean over cycles, pkts)", float(peaks.mean()) if n_cyc else float("nan"), PEAK, 3.0,
           "BDP + B + 1 = 302 ± 3 (FIGURES.md)")
    ratio = float(np.mean(np.asarray(v["after_pkts"]) / peaks)) if n_cyc else float("nan")
    c.near("restart level (ssthresh after the episode) / peak", ratio, 0.5, 0.05, "Reno halving (±5%: one packet and sampling)")
    per = float(np.mean(v["periods_s"])) if v["periods_s"] else float("nan")
    c.rel("cycle period (s)", per, v["cycle_der_s"], 0.15, "Σ RTT over 151 steps ± 15% (FIGURES.md)")
    c.add("PI of the rate (lags 10-400 s) ≥ 0.5", v["rate_pi_10_400"], v["rate_pi_10_400"] >= 0.5, "≥ 0.5",
          "PI definition, lag range widened for one slow cycle (FIGURES.md)")
    meas = {"peak_mean_pkts": float(peaks.mean()) if n_cyc else None, "period_mean_s": per, "cycle_der_s": v["cycle_der_s"],
            "restart_ratio": ratio, "rate_pi_10_400": v["rate_pi_10_400"], "rate_pi_lag_s": v["rate_pi_lag_s"],
            "episodes": n_cyc, "episode_drops": v["episode_drops"], "timeouts": v["timeouts"],
            "fast_retransmits": v["fast_retransmits"]}
    cv = {"peak": meas["peak_mean_pkts"], "ratio": ratio, "period": per, "cycle": v["cycle_der_s"], "episodes": n_cyc,
          "drops": ", ".join(map(str, v["episode_drops"])), "timeouts": v["timeouts"], "frs": v["fast_retransmits"],
          "pi_lag": v["rate_pi_lag_s"]}
    return verdict(c, meas, tolerance="peak ± 3 pkts, period ± 15%, PI ≥ 0.5 (FIGURES.md)",
                   cause=_p0.failing_cause(c, "cycle"), cause_values=cv)


#: Cause template (docs/VERDICTS.md §5).
CAUSE = {"cycle": (
    "{v.episodes:.0f} loss episodes after the slow-start overshoot: mean peak {v.peak:.1f} pkts, restart at "
    "{v.ratio:.3f} of the peak, cycle {v.period:.1f} s against the derived {v.cycle:.1f} s; drops per episode "
    "{v.drops}; {v.timeouts:.0f} timeouts and {v.frs:.0f} fast retransmits in the run; the rate PI's maximum sits at "
    "lag {v.pi_lag:.3g} s." + _p0.SETUP)}


def plot(run: Run):
    fig, axes = figure(2, 1, width=7, height=5, sharex=True)
    cw, rate = run.frames["cwnd"], run.frames["rate"]
    ax = axes[0, 0]
    ax.plot(cw.time_s, cw.cwnd_pkts, lw=0.8, label="cwnd")
    ref_line(ax, PEAK, f"paper [DER]: peak BDP + B + 1 = {PEAK} pkts")
    ref_line(ax, PEAK / 2, f"paper: restart at {PEAK / 2:g} pkts", color="0.6")
    ax.set_ylabel("cwnd (pkts)")
    ax.set_title(f"{ID}: one Reno flow, RTT 1340 ms, B = {BUFFER}: cycle {np.mean(run.values['periods_s'] or [np.nan]):.0f} s "
                 f"(derived {run.values['cycle_der_s']:.0f} s)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    ax = axes[1, 0]
    ax.plot(rate.time_s, rate.rate_bps.rolling(10, min_periods=1).mean() / 1e6, lw=0.8, label="sending rate (1-s mean)")
    ref_line(ax, 1.5, "line rate 1.5 Mb/s")
    ax.set_ylabel("rate (Mb/s)")
    ax.set_xlabel("time (s)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig
