"""Common setup Y0 of the DX paper (FIGURES.md): N DX senders -> one switch -> one receiver, every link at C
(10 Gb/s unless stated), switch buffer 256 KB, 1500-B segments.

[NG] choices, recorded in every result's params:
- the propagation RTT is R0 minus the serialization of one data packet and one ACK on the two hops, so that
  the measured base RTT (including serialization) equals R0;
- the sender knows R0 (`dx.base_rtt_s = R0`, FIGURES.md "R0 known to the sender"); with the engine's default
  (R0 = minimum RTT seen) flows that start into a standing queue never see the true R0, overestimate it and
  keep adding a segment, so the special state (W = 1 seg) is never reached;
- all N flows start at t = 0 with W = 1 seg (`iw_pkts = 1`, FIGURES.md Y0) and jitter U(0, 100 us); 0.3 s per run,
  measured over 0.1-0.3 s (quick: shorter runs, measured after the first 20 %). With the engine's default
  initial window of 2 the first round of N >= 120 flows (2N pkts) overflows BDP + buffer (66.7 + 170 pkts at
  80 us): 66 drops at N = 150, and flows that lose a packet before their first RTT sample wait the 1 s initial
  RTO, so 23 of 150 flows sat silent through the whole run (queue 60 instead of Theorem 2's 83 pkts);
- min RTO 10 ms (with W = 1 seg at start no loss occurs in these runs: 256 KB holds every special-state queue up
  to N ~ 240).

Mechanism (docs/VERDICTS.md §4, decided from ns-3's source before these runs): the RTT DX averages into Q is
the RTT ns-3's TCP handed a congestion-control module in P004's period (NPC 2019: ns-3.29, Sep 2018, and
ns-3.30, Aug 2019). In src/internet/model/tcp-socket-base.cc of every release up to ns-3.42,
`TcpSocketBase::EstimateRtt` ends with `m_rtt->Measurement (m); ... m_tcb->m_lastRtt = m_rtt->GetEstimate ();`
and `TcpSocketBase::ReceivedAck` calls `m_congestionControl->PktsAcked (m_tcb, segsAcked, m_tcb->m_lastRtt)`;
the estimator is `RttMeanDeviation` (rtt-estimator.cc: first sample as is, then `IntegerUpdate` with
Alpha = 0.125, i.e. srtt <- srtt + (m - srtt)/8 in integer nanoseconds). ns-3.43 (2024, commit "tcp (fixes
#1043)") is the first release whose `m_lastRtt` is the last sample. So every Y0 run sets
`dx.rtt_input = "srtt"` (crates/ccscope-core/src/cc/dx.rs). Timestamps are taken as off (with ns-3's TS option
`EstimateRtt` would measure whole milliseconds, 0 for these RTTs, and skip zero samples: DX could not run).

Seeds (docs/VERDICTS.md §3), fixed before the full runs from a pilot (seeds 1-5, 0.3 s, rtt_input = srtt, at
(N, R0 us, C Gb/s) = (50, 120, 10), (50, 320, 10), (50, 20, 10), (10, 120, 10), (100, 120, 10), (50, 120, 40),
(50, 120, 1), (50, 80, 10)): the largest per-seed standard deviation of utilization was 1.0 pt (50, 320 us),
0.45 pt at (10, 120 us), 0.5 pt at 40 Gb/s, 0 in the special state. The smallest margin a utilization row
tests is the paper's 94.81 < 96.11 % (1.3 pt), so se <= 1.3/4 = 0.325 pt needs n >= (1.0/0.325)^2 = 9.5:
SEEDS = 10. A run costs 0.05-0.2 s, so every Y0 sweep uses the same 10 seeds. Quick: 3 seeds.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

import ccscope as cc
from ccscope.analysis import metrics

SEG, ACK, BUFFER_BYTES, JITTER_S = 1500, 40, 256000, 1e-4
# 10 ns: absorbs the nanosecond rounding of link delays (an exact-zero test on Q = RTT - R0 otherwise reads
# +1 ns as congestion forever and freezes W); one queued packet is 1.2 us at 10 Gb/s, 120x larger.
Q_EPS_S = 1e-8
PARAMS = {"buffer_bytes": BUFFER_BYTES, "seg_bytes": SEG, "start_jitter_s": JITTER_S, "base_rtt": "known to sender [NG]",
          "rtt": "propagation = R0 - serialization of one data packet and one ACK over 2 hops [NG]",
          "measure": "0.1-0.3 s of 0.3 s (quick: after 20 % warm-up) [NG]", "min_rto_s": 0.01, "iw_pkts": 1,
          "q_eps_s": Q_EPS_S, "rtt_input": "srtt: the RFC 6298 estimate ns-3 <= 3.42 passed to PktsAcked"}
RTT_INPUT = "srtt"
SEEDS = tuple(range(1, 11))
QUICK_SEEDS = (1, 2, 3)
METRICS = ("utilization", "p_decrease", "queue_mean_pkts", "queue_min_pkts", "queue_p01_pkts", "queue_median_pkts",
           "queue_zero_frac", "cwnd_mean_pkts", "queue_delay_us")


def seeds(quick: bool) -> tuple[int, ...]:
    return QUICK_SEEDS if quick else SEEDS


def scenario(n: int, r0_s: float, c_bps: float = 10e9, seed: int = 1, queue_interval_s: float = 1e-5):
    ser = 2 * (SEG + ACK) * 8 / c_bps
    return cc.scenario.dumbbell(senders=n, cc="dx", bottleneck_bps=c_bps, access_bps=c_bps, rtt_s=r0_s - ser,
                                buffer_bytes=BUFFER_BYTES, start_jitter_s=JITTER_S, seed=seed,
                                tcp=cc.scenario.TcpConfig(iw_pkts=1, min_rto_s=0.01), dx=cc.scenario.DxConfig(base_rtt_s=r0_s, q_eps_s=Q_EPS_S, rtt_input=RTT_INPUT),
                                record=cc.scenario.RecordConfig(queue_interval_s=queue_interval_s))


@lru_cache(maxsize=64)
def _run(n: int, r0_us: float, c_gbps: float, until_s: float, seed: int, fine_queue: bool):
    s = scenario(n, r0_us * 1e-6, c_gbps * 1e9, seed, 1e-6 if fine_queue else 1e-5)
    res = cc.simulate(s, until_s=until_s, record=["queue", "cwnd", "link"])
    t0 = 0.1 if until_s >= 0.3 else res.summary["warmup_s"]
    q = res.traces["queue"]
    q = q[q.time_s >= t0]
    cw = res.traces["cwnd"]
    cw = cw[cw.time_s >= t0]
    util = float(metrics.utilization(res, start_s=t0))
    st = {"n": n, "r0_us": r0_us, "c_gbps": c_gbps, "until_s": until_s, "seed": seed, "from_s": t0,
          "utilization": util, "queue_mean_pkts": float(q.queue_pkts.mean()), "queue_min_pkts": float(q.queue_pkts.min()),
          "queue_p01_pkts": float(np.percentile(q.queue_pkts, 1)), "queue_median_pkts": float(q.queue_pkts.median()),
          "queue_zero_frac": float((q.queue_pkts == 0).mean()), "cwnd_mean_pkts": float(cw.cwnd_pkts.mean()),
          "p_decrease": float(res.flows.dx_decrease_fraction.mean()), "timeouts": int(res.flows.timeouts.sum()),
          "drops": int(res.summary["drops"])}
    st["queue_delay_us"] = st["queue_mean_pkts"] * SEG * 8 / (c_gbps * 1e9) * 1e6
    return st, q[["time_s", "queue_pkts"]].reset_index(drop=True)


def run_y0(n: int, r0_us: float, *, c_gbps: float = 10, until_s: float = 0.3, seed: int = 1,
           fine_queue: bool = False) -> tuple[dict, pd.DataFrame]:
    """Stats dict and the post-warm-up queue series of one Y0 run (cached per process)."""
    st, q = _run(int(n), float(r0_us), float(c_gbps), float(until_s), int(seed), bool(fine_queue))
    return dict(st), q


def table(points, *, until_s: float, seeds=(1,), **kw) -> pd.DataFrame:
    """One row of stats per (n, r0_us[, c_gbps]) point and seed."""
    rows = []
    for pt in points:
        n, r0 = pt[0], pt[1]
        c = pt[2] if len(pt) > 2 else 10
        for sd in seeds:
            rows.append(run_y0(n, r0, c_gbps=c, until_s=until_s, seed=sd, **kw)[0])
    return pd.DataFrame(rows)


def summary(d: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error over seeds (`<metric>` and `<metric>_se`) per (n, r0_us, c_gbps)."""
    from ccscope.repro._base import se
    rows = []
    for key, g in d.groupby(["n", "r0_us", "c_gbps"], sort=True):
        r = dict(zip(("n", "r0_us", "c_gbps"), key))
        r["n_seeds"] = len(g)
        for m in METRICS:
            r[m] = float(g[m].mean())
            r[f"{m}_se"] = se(g[m])
        r["queue_min_min_pkts"] = float(g.queue_min_pkts.min())
        rows.append(r)
    return pd.DataFrame(rows)


def band(c, name: str, m: float, s: float, lo: float, hi: float, tolerance: str) -> bool:
    """One row for a band over seed means (docs/VERDICTS.md §3): passes when the mean is inside [lo, hi] by at
    least 2 standard errors from each edge; inside but closer is "inside the noise"."""
    from ccscope.repro._base import Checks
    t = Checks()
    a, b = t.beyond("lo", m, s, lo, ">"), t.beyond("hi", m, s, hi, "<")
    noise = any(x.noise for x in t.items)
    return c.add(name, m, a and b, f"[{lo:.4g}, {hi:.4g}] by ≥ 2 se", tolerance, se=s, noise=noise)


def special_threshold(r0_us: float, c_gbps: float = 10) -> float:
    """C R0 / seg: N at or above which DX sits in the special state (Theorem 2)."""
    return c_gbps * 1e9 * r0_us * 1e-6 / (SEG * 8)
