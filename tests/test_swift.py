"""Swift (Kumar et al., SIGCOMM 2020) end to end: flows with cc = "swift" hold the bottleneck's
queueing delay near the delay target, share it fairly, move the queue with the per-hop target,
pace below one packet per RTT in a many-flow incast, take their parameters from [swift] (the
Python mirror and a scenario file too) and refuse bad values with one line naming the field.

The bands were written from Swift's mechanism before the first run:
- 10 Gb/s dumbbell, 20 us propagation RTT; 1500-byte packets add 1.2 us of serialization per
  link (2 links) and the ACK ~0.1 us, so the no-queue RTT is ~22.5 us. With the target 50 us
  (no hop or flow scaling) Swift's fixed point has the RTT at the target: a queueing delay of
  ~27.5 us (~23 packets). AI adds 1 packet per flow per RTT; an MD at most once per RTT cuts by
  beta (delay - target)/delay, a few percent near the target, so the queue never drains and
  never runs away: mean queueing delay in [0.6, 1.15] x 27.5 us, p99 below 42.5 us, link
  utilization > 0.97, no loss with a 1000-packet buffer.
- Both flows see the same delay, add the same ai per RTT, and cut in proportion to their window:
  AIMD converges to equal shares; Jain's index over 10-50 ms > 0.98.
- hop_scale_s = 10 us on the dumbbell's one switch raises the target by 10 us: the mean queueing
  delay rises by 10 us +- 4 us.
- 100 flows into one 10 Gb/s port: the target's ~42 packets of window shared by 100 flows gives
  ~0.4 packet per flow, so every flow runs below one packet, paced at srtt/cwnd; the queue stays
  near the target (mean queueing delay below 2 x 27.5 us) and no timeouts fire.
  Amended after the first run, which missed "every flow below one packet" with flow scaling off
  (hop and flow scaling were off in every run): the mean window was 0.61 but the per-flow means
  spread from 0.02 to 1.4 packets (Jain 0.69), the unfairness at small windows that the paper's
  flow-based scaling (§3.5) exists to remove. With flow scaling on (its defaults), measured
  next: every flow 0.91-0.97 packets, Jain 1.00, mean queueing delay 77 us against the 66 us
  that the target at that window predicts. The test now runs both: flow scaling on (every flow
  below one packet, Jain > 0.95, queueing delay within 30 % of the target at the mean window)
  and off (mean window below one packet, queue below twice the target's, Jain < 0.9).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import ccscope
from ccscope.errors import ScenarioError
from ccscope.scenario import SwiftConfig, dumbbell

RATE = 10e9
BASE_RTT = 20e-6 + 2 * 1500 * 8 / RATE + 0.1e-6  # ~22.5 us
TARGET = 50e-6


def _run(n: int = 2, until_s: float = 0.05, **swift):
    sc = dumbbell(n, cc="swift", bottleneck_bps=RATE, rtt_s=20e-6, buffer_pkts=1000)
    sc.until_s = until_s
    sc.swift = SwiftConfig(base_target_s=TARGET, hop_scale_s=0.0, fs_range_s=0.0)
    for k, v in swift.items():
        setattr(sc.swift, k, v)
    sc.record.traces = ["queue", "link", "delivered", "cwnd"]
    return ccscope.simulate(sc)


def _qdelay(r, t0=0.01):
    q = r.traces["queue"]
    q = q[q["time_s"] >= t0]
    return q["queue_bytes"].to_numpy() * 8 / RATE


def _shares(r, t0=0.01, t1=0.05):
    d = r.traces["delivered"]
    out = []
    for f in sorted(d["flow"].unique()):
        x = d[d["flow"] == f]
        a = x[x["time_s"] <= t0]["delivered_bytes"].iloc[-1]
        b = x[x["time_s"] <= t1]["delivered_bytes"].iloc[-1]
        out.append((b - a) * 8 / (t1 - t0))
    return np.array(out)


def test_two_swift_flows_hold_the_delay_target_and_share_fairly():
    r = _run()
    qd = _qdelay(r)
    want = TARGET - BASE_RTT
    assert 0.6 * want <= qd.mean() <= 1.15 * want, (qd.mean(), want)
    assert np.percentile(qd, 99) < want + 15e-6, np.percentile(qd, 99)
    thr = _shares(r)
    assert thr.sum() / RATE > 0.97, thr
    jain = thr.sum() ** 2 / (len(thr) * (thr ** 2).sum())
    assert jain > 0.98, thr
    assert (r.flows["retransmits"] == 0).all()
    assert (r.flows["timeouts"] == 0).all()


def test_the_per_hop_target_moves_the_queue_by_h_per_switch():
    flat = _qdelay(_run()).mean()
    hop = _qdelay(_run(hop_scale_s=10e-6)).mean()
    assert abs((hop - flat) - 10e-6) < 4e-6, (flat, hop)


def test_an_incast_runs_below_one_packet_paced_and_flow_scaling_makes_it_fair():
    # flow scaling on (the defaults: fs_range 125 us, fs_min_cwnd 0.1, fs_max_cwnd 100)
    r = _run(n=100, until_s=0.03, fs_range_s=125e-6)
    cw = r.traces["cwnd"]
    per_flow = cw[cw["time_s"] >= 0.01].groupby("flow")["cwnd_pkts"].mean()
    assert (per_flow < 1.0).all(), per_flow.describe()
    thr = _shares(r, 0.01, 0.03)
    assert thr.sum() / RATE > 0.9, thr.sum()
    assert thr.sum() ** 2 / (len(thr) * (thr ** 2).sum()) > 0.95, thr
    # the queue sits near the target at the flows' window: base + fs(w), fs = a/sqrt(w) + b
    a = 125e-6 / (1 / math.sqrt(0.1) - 1 / math.sqrt(100.0))
    w = per_flow.mean()
    want = TARGET + a / math.sqrt(w) - a / math.sqrt(100.0) - BASE_RTT
    qd = _qdelay(r)
    assert 0.7 * want < qd.mean() < 1.3 * want, (qd.mean(), want, w)
    assert (r.flows["timeouts"] == 0).all()
    # without flow scaling the windows still run below one packet on average and the queue stays
    # below twice the target's, but the shares spread (the paper's reason for flow scaling)
    r0 = _run(n=100, until_s=0.03)
    cw0 = r0.traces["cwnd"]
    pf0 = cw0[cw0["time_s"] >= 0.01].groupby("flow")["cwnd_pkts"].mean()
    assert pf0.mean() < 1.0
    assert _qdelay(r0).mean() < 2 * (TARGET - BASE_RTT)
    t0 = _shares(r0, 0.01, 0.03)
    assert t0.sum() ** 2 / (len(t0) * (t0 ** 2).sum()) < 0.9, t0


def test_swift_runs_from_a_scenario_file(tmp_path):
    p = tmp_path / "swift.toml"
    p.write_text("""
until_s = 0.005
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 20e-6
buffer_pkts = 1000
[flows]
count = 2
cc = "swift"
[swift]
base_target_s = 50e-6
ai = 2.0
""")
    r = ccscope.simulate(str(p), record=["delivered"])
    assert (r.flows["cc"] == "swift").all()
    assert (r.flows["delivered_bytes"] > 0).all()


@pytest.mark.parametrize("field, value, want", [
    ("beta", 1.0, "swift.beta = 1: must be strictly between 0 and 1 (default 0.8)"),
    ("max_mdf", 0.0, "swift.max_mdf = 0: must be strictly between 0 and 1 (default 0.5)"),
    ("ai", -1.0, "swift.ai = -1: must be > 0 and at most 1000 packets per RTT"),
    ("base_target_s", 0.0, "swift.base_target_s = 0: must be > 0 and at most 1 second"),
    ("fs_min_cwnd", 100.0, "swift.fs_min_cwnd = 100: must be < swift.fs_max_cwnd (100)"),
    ("min_cwnd", 2000.0, "swift.min_cwnd = 2000: must be <= swift.max_cwnd (1000)"),
    ("retx_reset_threshold", 0, "swift.retx_reset_threshold = 0: must be >= 1"),
    ("hop_scale_s", math.inf, "swift.hop_scale_s = inf: must be"),
])
def test_bad_swift_values_name_the_field(field, value, want):
    sc = dumbbell(2, cc="swift", bottleneck_bps=10e9, rtt_s=20e-6)
    setattr(sc.swift, field, value)
    with pytest.raises(ScenarioError) as e:
        ccscope.simulate(sc, until_s=0.001)
    msg = str(e.value)
    assert msg.startswith(want), msg
    assert len(msg.splitlines()) == 1


def test_losses_are_recovered_when_the_target_exceeds_the_buffer():
    # written before running: a 10-packet buffer under a 200 us target (a ~150-packet queue
    # wanted) overflows; Swift's fast-recovery cut (1 - max_mdf, once per RTT) and AI of 1 packet
    # per RTT per flow keep the windows between ~15 and ~29 packets (BDP ~19 + buffer 10): the
    # link stays > 85 % busy, both flows see fast retransmits and keep > 30 % each
    sc = dumbbell(2, cc="swift", bottleneck_bps=RATE, rtt_s=20e-6, buffer_pkts=10)
    sc.until_s = 0.05
    sc.swift = SwiftConfig(base_target_s=200e-6, hop_scale_s=0.0, fs_range_s=0.0)
    sc.record.traces = ["delivered"]
    r = ccscope.simulate(sc)
    thr = _shares(r)
    assert thr.sum() / RATE > 0.85, thr
    assert (thr / thr.sum() > 0.3).all(), thr
    assert (r.flows["fast_retransmits"] > 0).all()
    assert (r.flows["timeouts"] <= r.flows["fast_retransmits"]).all()


def test_sized_swift_flows_complete():
    sc = dumbbell(8, cc="swift", bottleneck_bps=RATE, rtt_s=20e-6, buffer_pkts=100, size_bytes=200_000)
    sc.until_s = 0.05
    sc.swift = SwiftConfig(base_target_s=50e-6, hop_scale_s=0.0)
    sc.record.traces = []
    r = ccscope.simulate(sc)
    assert r.flows["fct_s"].notna().all(), r.flows[["flow", "fct_s", "delivered_bytes"]]
    assert (r.flows["delivered_bytes"] == 200_000).all()
