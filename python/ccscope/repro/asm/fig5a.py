"""asm/fig5a: sliding mode in the NetFPGA setting, simulated: queue and aggregate rate vs time.

A0 dumbbell, 3 ASM sources at 500 Mb/s on 1 Gb/s, 2 µs per link, q0 = 64 pkts, buffer 128 KB (87 pkts),
§5.1 parameters (engine defaults). The hardware trace is not available; the simulator's quantization
noise [NG: ±1 unit on Qf/dQ, ±1% rate jitter] is not applied (the engine has no noise knob), so the
simulated chattering is the noise-free one.
"""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig5a'
TITLE = '3 sources, 1 Gb/s, q0=64: queue and rate converge quickly to (64 pkts, 1 Gb/s)'
KIND = 'sim'
COST = 'full: 0.5 s × 1 Gb/s ≈ 42 k pkts (< 0.1 s); quick 0.3 s'
CLAIM = 'Queue and aggregate rate settle quickly at the stable point (64 pkts, 1 Gb/s) and stay there.'
T_SETTLE = 0.25


def run(quick: bool) -> Run:
    res, qr, until = _a0.fig5_run("asm", quick)
    s = _a0.series(res)
    st = _a0.window_stats(s, T_SETTLE, None, 1e9)
    first = s.time_s[(s.queue_pkts - 64).abs() <= 8]
    t_first = float(first.min()) if len(first) else float("nan")
    after_first = s[s.time_s >= t_first]
    # aggregate source rate in 1 ms bins after settling (mean of the 0.1 ms rate samples in each bin)
    w = qr[qr.time_s > T_SETTLE]
    bins = w.groupby(np.floor(w.time_s / 1e-3)).rate_bps.mean() / 1e9
    vals = {**st, "t_first_within_8_s": t_first, "min_queue_after_first": float(after_first.queue_pkts.min()),
            "drops_total": _a0.drops(res), "drops_after_settle": _a0.drops(res, T_SETTLE),
            "rate_bin_dev_max": float(np.max(np.abs(bins - 1.0))), "until_s": until}
    return Run(params={**_a0.FIG5_PARAMS, "until_s": until, "settle_s": T_SETTLE},
               frames={"series": s, "qr": qr}, values=vals, seeds=[1], quick=quick)

CAUSE = ("{v.drops_total} packets are dropped at the start: the {v.buffer}-pkt buffer overflows while the "
         "{v.start_gbps:g} Gb/s offered at the start overshoots before the first feedbacks act (the paper does not "
         "say whether its run dropped early). No noise model is applied.")


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    # 64 ± 8: one large-parameter step B0/2 of quantized Qf (FIGURES.md)
    c.near("mean queue after 0.25 s (pkts)", v["q_mean"], 64, 8, "B0/2 = 8 pkts")
    # ±2%: rate step per sliding-set adjustment is ≤ 1/32 C but averages out over the ~3 feedbacks per ms
    c.add("aggregate rate in 1 ms bins, max |A/C − 1|", v["rate_bin_dev_max"], v["rate_bin_dev_max"] <= 0.02, "≤ 2%",
          "FIGURES.md")
    c.add("drops after 0.25 s", v["drops_after_settle"], v["drops_after_settle"] == 0, "0", "exact")
    c.add("queue never empties after reaching q0", v["min_queue_after_first"], v["min_queue_after_first"] > 0, "> 0", "exact")
    c.add("|q − 64| ≤ 8 first reached (s)", v["t_first_within_8_s"], v["t_first_within_8_s"] <= 0.2, "≤ 0.2 s",
          "≈ 5 τ_s")
    return verdict(c, v, tolerance="mean queue ±8 pkts (B0/2); rate ±2% in 1 ms bins",
                   cause_values={"drops_total": v["drops_total"], "buffer": 87, "start_gbps": 1.5})


def plot(run: Run):
    fig, axes = figure(2, 1, width=7, height=5, sharex=True)
    s, qr = run.frames["series"], run.frames["qr"]
    axes[0, 0].plot(s.time_s, s.queue_pkts, lw=0.6, label="simulation (10 µs samples)")
    s10 = s[np.isclose(np.mod(s.time_s, 0.01), 0, atol=1e-7)]
    axes[0, 0].plot(s10.time_s, s10.queue_pkts, "o", ms=3, label="read every 10 ms (hardware read-out)")
    ref_line(axes[0, 0], 64, "q0 = 64 pkts")
    axes[0, 0].set_ylabel("queue (pkts)"); axes[0, 0].legend(fontsize=7)
    axes[1, 0].plot(qr.time_s, qr.rate_bps / 1e9, lw=0.6, label="aggregate sending rate")
    ref_line(axes[1, 0], 1.0, "C = 1 Gb/s")
    axes[1, 0].set_ylabel("rate (Gb/s)"); axes[1, 0].set_xlabel("time (s)"); axes[1, 0].legend(fontsize=7)
    axes[0, 0].set_title("ASM, 3 sources, 1 Gb/s, q0 = 64 (Fig. 5a, simulation)", fontsize=9)
    fig.tight_layout()
    return fig
