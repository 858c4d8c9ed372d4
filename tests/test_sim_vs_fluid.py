"""Cross-check: the packet simulator against the DCTCP fluid model (DCTCP-analysis Fig. 2).

The fluid model averages out per-packet steps and ACK-clock bursts, so the packet queue's
2-98 % band may exceed the fluid band by a few packets; the means must agree within 5 packets
(the issue's bound) and both sit below K."""
from __future__ import annotations

import numpy as np
import pytest

import ccscope as cc


@pytest.mark.parametrize("n", [2, 10])
def test_packet_queue_matches_the_fluid_limit_cycle(n):
    rate, rtt, k, g = 10e9, 100e-6, 65.0, 1 / 16
    fl = cc.fluid.dctcp(n, rate, rtt, k, g=g).solve(until_s=0.03, dt_s=(rtt + k * 12000 / rate) / 100)
    fq = fl.traces
    fq = fq[fq["time_s"] > 0.015]["queue_pkts"].to_numpy()
    sc = cc.scenario.dumbbell(senders=n, cc="dctcp", bottleneck_bps=rate, rtt_s=rtt, aqm=cc.aqm.threshold(k_pkts=k),
                              start_jitter_s=1e-3, record=cc.scenario.RecordConfig(queue_interval_s=1e-6))
    res = cc.simulate(sc, until_s=0.12, record=["queue", "link"])
    q = res.traces["queue"]
    q = q[q["time_s"] > 0.04]["queue_pkts"].to_numpy()
    assert abs(q.mean() - fq.mean()) <= 5.0, (q.mean(), fq.mean())
    assert q.mean() < k and fq.mean() < k
    lo, hi = fq.min(), fq.max()
    assert np.percentile(q, 2) >= lo - 8 and np.percentile(q, 98) <= hi + 8
    assert res.summary["bottleneck_utilization"] >= 0.99


def test_hundred_flows_match_the_fluid_fixed_point():
    rate, rtt, k = 10e9, 100e-6, 65.0
    fp = cc.fluid.dctcp(100, rate, rtt, k).fixed_point()
    assert fp is not None
    res = cc.simulate(cc.scenario.dumbbell(senders=100, cc="dctcp", bottleneck_bps=rate, rtt_s=rtt,
                                           aqm=cc.aqm.threshold(k_pkts=k), start_jitter_s=1e-3),
                      until_s=0.08, record=["queue", "cwnd"])
    q = res.traces["queue"]
    assert abs(q[q["time_s"] > 0.04]["queue_pkts"].mean() - fp["queue_pkts"]) <= 5.0
    w = res.traces["cwnd"]
    assert abs(w[w["time_s"] > 0.04]["cwnd_pkts"].mean() - fp["window_pkts"]) <= 0.1
