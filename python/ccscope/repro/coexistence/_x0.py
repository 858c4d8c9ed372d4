"""Common setup X0 of the coexistence paper (FIGURES.md): one NewReno+ECN and one DCTCP flow from two
10 Gb/s hosts into a 1 Gb/s bottleneck, RTT 250 us, buffer 250 pkts, starts U(0, 50 ms) [NG], DCTCP g = 1/16 [NG].
Throughputs and the bottleneck utilization are measured after a 20% warm-up (the last 4 s of a 5 s run, [NG]):
the "link" trace is recorded because SimResult falls back to whole-run utilization without it (and the
"delivered" trace for per-flow throughput likewise). Averages over seeds.

ECN-capable NewReno sends retransmissions ECT too, `TCP["ect_on_retransmissions"] = True`
[NG → ns-2 behaviour: ECT on every data packet]: the paper's simulations are ns-2, whose TcpAgent::output
(ns-2.35 tcp/tcp.cc) sets `hf->ect() = 1` whenever `ecn_` is on, with no test for a retransmission (only the CWR
flag is gated, by SetCWRonRetransmit_). ccscope's default for NewReno is RFC 3168 §6.1.5 (retransmissions
Not-ECT), under which a marking AQM drops a retransmission where it would mark it. The same `TCP` block is used
by every coexistence entry (X0, incast, short flows, back-off counts).

Loss diagnostics per seed (for the causes in the RED/CHOKe entries): NewReno timeouts and fast retransmits over the
run, and after warm-up the NewReno packets the AQM dropped (`tcp_aqm_drops_post`: with ECT retransmissions the
AQM marks rather than drops every NewReno data packet, so any such drop would be a Not-ECT packet, none expected),
overflow drops, and the per-packet mark fraction of each flow.

Tolerance for T_r (FIGURES.md): bands are set on TCP's share s = 1/(1 + T_r), +-0.03 (30 Mb/s on 1 Gb/s):
the ratio itself explodes as TCP starves, while +-0.03 covers the run-to-run spread under probabilistic marking.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc

BOTTLENECK_BPS, ACCESS_BPS, RTT_S, BUFFER_PKTS = 1e9, 10e9, 250e-6, 250
START_MAX_S = 0.05
SHARE_TOL = 0.03
# NewReno + ECN as ns-2 runs it: ECT on every data packet, retransmissions included (see the module docstring)
TCP = {"ecn": True, "ect_on_retransmissions": True}
PARAMS = {"bottleneck_bps": BOTTLENECK_BPS, "access_bps": ACCESS_BPS, "rtt_s": RTT_S, "buffer_pkts": BUFFER_PKTS,
          "start": "U(0, 50 ms) [NG]", "dctcp_g": 1 / 16, "tcp": "NewReno + ECN, ECT on retransmissions [NG → ns-2]", "warmup": "20% [NG]"}


def run_x0(aqm: dict, *, seeds: list[int], until_s: float, series: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, ts = [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        starts = rng.uniform(0, START_MAX_S, 2)
        d = {"name": "coexistence X0", "seed": seed,
             "topology": {"kind": "dumbbell", "bottleneck_bps": BOTTLENECK_BPS, "access_bps": ACCESS_BPS, "senders": 2,
                          "rtt_s": RTT_S, "buffer_pkts": BUFFER_PKTS},
             "aqm": aqm, "tcp": dict(TCP), "dctcp": {"g": 1 / 16},
             "flow": [{"src": "s0", "dst": "r0", "cc": "new_reno", "start_s": float(starts[0])},
                      {"src": "s1", "dst": "r0", "cc": "dctcp", "start_s": float(starts[1])}],
             "record": {"queue_interval_s": 1e-4, "flow_interval_s": 1e-3}}
        res = cc.simulate(d, until_s=until_s, record=["queue", "link", "delivered", "alpha", "drops"])
        f = res.flows.set_index("cc")
        t_tcp, t_dctcp = float(f.loc["new_reno", "throughput_bps"]), float(f.loc["dctcp", "throughput_bps"])
        warm = res.summary["warmup_s"]
        al = res.traces["alpha"]
        al = al[(al.time_s >= warm) & (al.flow == 1)]
        dr = res.traces["drops"]
        dr = dr[(dr.time_s >= warm) & ~dr.is_ack]
        n = dr.groupby(["flow", "event"]).size()
        pkts = {fl: t * (until_s - warm) / (8 * 1500) for fl, t in ((0, t_tcp), (1, t_dctcp))}
        rows.append({"seed": seed, "t_tcp_bps": t_tcp, "t_dctcp_bps": t_dctcp, "t_r": t_dctcp / max(t_tcp, 1.0),
                     "tcp_share": t_tcp / (t_tcp + t_dctcp), "aggregate_frac": res.summary["bottleneck_utilization"],
                     "flow_sum_frac": (t_tcp + t_dctcp) / BOTTLENECK_BPS,
                     "queue_mean_pkts": res.summary["queue_mean_pkts"], "alpha_mean": float(al.alpha.mean()),
                     "marks": res.summary["marks"], "drops": res.summary["drops"],
                     "tcp_timeouts": int(f.loc["new_reno", "timeouts"]),
                     "tcp_fast_retransmits": int(f.loc["new_reno", "fast_retransmits"]),
                     "tcp_aqm_drops_post": int(n.get((0, "drop_aqm"), 0)),
                     "tcp_overflow_drops_post": int(n.get((0, "drop_overflow"), 0)),
                     "tcp_mark_frac": n.get((0, "mark"), 0) / max(pkts[0], 1.0),
                     "dctcp_mark_frac": n.get((1, "mark"), 0) / max(pkts[1], 1.0)})
        if series and seed == seeds[0]:
            dl = res.traces["delivered"]
            for fl, name in ((0, "tcp"), (1, "dctcp")):
                x = dl[dl.flow == fl].sort_values("time_s")
                b = x.iloc[::10]  # 10 ms bins from 1 ms samples
                # arrival-based (received_bytes), as flows.throughput_bps: in-order goodput jumps when a hole fills
                rate = np.diff(b.received_bytes.values) * 8 / np.diff(b.time_s.values)
                ts.append(pd.DataFrame({"time_s": b.time_s.values[1:], "flow": name, "rate_bps": rate}))
    return pd.DataFrame(rows), (pd.concat(ts, ignore_index=True) if ts else pd.DataFrame())


def share_band(t_r: float) -> tuple[float, float]:
    """T_r interval corresponding to TCP share 1/(1+T_r) +- SHARE_TOL."""
    s = 1 / (1 + t_r)
    return (1 / (s + SHARE_TOL) - 1, 1 / (s - SHARE_TOL) - 1)


def dead_seeds(d: pd.DataFrame) -> int:
    """Seeds whose NewReno flow lost a Not-ECT retransmission to the AQM after warm-up (RTO back-off spiral)."""
    return int((d.tcp_aqm_drops_post > 0).sum())


def plot_series(ax, ts: pd.DataFrame, title: str):
    for name, d in ts.groupby("flow"):
        ax.plot(d.time_s, d.rate_bps / 1e6, lw=0.8, label=f"{'TCP NewReno' if name == 'tcp' else 'DCTCP'}")
    ax.axvspan(0, 0.2 * float(ts.time_s.max()), color="0.9", zorder=0, label="warm-up (not measured)")
    ax.set_ylim(0, 1100)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Mb/s, 10 ms bins, arrivals)")
    ax.set_title(title)
