"""In-band telemetry, NACKs and timeouts reach Python rate controllers on the RDMA transport.

examples/controllers/hpcc.py (`py_hpcc`, HPCC's Algorithm 1 on `on_int`'s hop records) gives
bit-identical engine output to the built-in `hpcc` on a 4-to-1 incast and on a k = 4 fat-tree
under a Poisson web-search workload: every column of every table, the event count and the ledger;
only the flows table's `cc` column differs. The telemetry a controller gets is the port records
in documented units; a controller that does not override `on_int` gets none and the run stamps
none. `on_nack` and `on_timeout` are called once per NACK and per retransmission timeout of the
flow, with the receiver's expected segment (checked against the drops trace and the flows
table)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.equivalence import run_native, table_differences

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "controllers"
TRACES = ["queue", "link", "delivered", "drops", "rate"]


@pytest.fixture(scope="module", autouse=True)
def _controllers():
    from ccscope import cc
    cc.load_plugin(str(EXAMPLES / "hpcc.py"))
    assert cc.registered()["py_hpcc"].__name__ == "Hpcc"


def incast(name: str) -> dict:
    return {"name": "hpcc incast", "seed": 1, "until_s": 0.003, "packet_bytes": 1000, "ack_bytes": 64,
            "topology": {"kind": "dumbbell", "senders": 4, "bottleneck_bps": 25e9, "access_bps": 25e9,
                         "rtt_s": 8e-6, "buffer_pkts": 10000},
            "pfc": {"xoff_bytes": 300000, "xon_bytes": 200000},
            "flows": {"count": 4, "cc": name, "size_bytes": 3000000},
            "record": {"traces": TRACES, "flow_interval_s": 1e-5}}


def fat_tree(name: str) -> dict:
    # tests/test_acceptance19.py's fat-tree at a higher load, lossless on class 0
    return {"name": "hpcc fat-tree", "seed": 1, "until_s": 0.004, "packet_bytes": 1000, "ack_bytes": 64,
            "topology": {"kind": "fat_tree", "k": 4, "link_bps": 10e9, "link_delay_s": 1e-6, "buffer_pkts": 1000},
            "workload": [{"kind": "poisson", "src": "h0..h15", "dst": "h0..h15", "load": 0.5,
                          "reference_bps": 160e9, "size": {"kind": "cdf", "builtin": "websearch"}, "cc": [name]}],
            "pfc": {"classes": [0], "xoff_bytes": 300_000, "xon_bytes": 200_000},
            "record": {"traces": TRACES, "flow_interval_s": 1e-5}}


def _run(s: dict):
    return run_native(s, s["until_s"])


_differences = table_differences


@pytest.mark.parametrize("make", [incast, fat_tree], ids=["incast_4to1", "fat_tree_k4_poisson"])
def test_python_hpcc_is_bit_identical_to_the_built_in(make):
    a = _run(make("hpcc"))
    b = _run(make("py_hpcc"))
    assert a["events"] == b["events"]
    assert json.dumps(a["ledger"], sort_keys=True, default=str) == json.dumps(b["ledger"], sort_keys=True, default=str)
    assert _differences(a, b) == ["flows.cc"]
    assert set(np.asarray(b["tables"]["flows"]["cc"]).tolist()) == {"py_hpcc"}
    # not trivial: the telemetry cut the rates below line rate and they climbed back
    rates = b["tables"]["rate"]
    r, f = np.asarray(rates["rate_bps"]), np.asarray(rates["flow"])
    assert r.min() < 0.6 * r.max()
    ups = sum(int((np.diff(r[f == k]) > 0).sum()) for k in set(f.tolist()))
    downs = sum(int((np.diff(r[f == k]) < 0).sum()) for k in set(f.tolist()))
    assert ups > 5 and downs > 5


def test_on_int_gets_one_record_per_switch_port_in_documented_units():
    """The 4-to-1 incast's path crosses one switch port (sw -> r0): each on_int call carries one
    IntHop whose rate is that link's, whose time is the exact picosecond count in seconds, whose
    byte counter only grows and whose queue is bytes; an RDMA controller that does not override
    on_int is never called with telemetry and its run stamps none (same events as `rdma`)."""
    import ccscope
    from ccscope import cc
    seen = []

    class Probe(cc.RateController):
        rdma = True

        def on_int(self, now_s, ackno, snd_nxt, hops):
            seen.append((self.ctx.flow, now_s, ackno, snd_nxt, hops))

    cc.register_cc("int_probe", Probe)
    s = incast("int_probe")
    s["until_s"] = 0.0005
    ccscope.simulate(s)
    assert len(seen) > 100
    for flow, now_s, ackno, snd_nxt, hops in seen:
        assert isinstance(hops, tuple) and len(hops) == 1
        h = hops[0]
        assert isinstance(h, cc.IntHop) and h == tuple(h)
        assert h.rate_bps == 25_000_000_000 and isinstance(h.rate_bps, int)
        assert h.ts_s == h.ts_ps / 1e12 and 0 < h.ts_s < now_s
        assert isinstance(h.qlen_bytes, int) and 0 <= h.qlen_bytes <= 10000 * 1000
        assert ackno <= snd_nxt
    per_flow = {}
    for flow, _, ackno, _, hops in seen:
        per_flow.setdefault(flow, []).append((ackno, hops[0].tx_bytes, hops[0].ts_ps))
    assert len(per_flow) == 4
    port = sorted((ts, tx) for v in per_flow.values() for _, tx, ts in v)
    assert all(b[1] > a[1] for a, b in zip(port, port[1:]) if b[0] > a[0])  # one port: bytes grow with time

    class Plain(cc.RateController):
        rdma = True
    cc.register_cc("int_plain", Plain)
    for name in ("int_plain", "rdma"):
        s = incast(name)
        s["until_s"] = 0.0005
        seen.clear()
        r = ccscope.simulate(s)
        assert seen == []
        if name == "int_plain":
            plain = r
    assert plain.summary["events"] == r.summary["events"]


def lossy(name: str) -> dict:
    """Two unbounded RDMA flows into a 10 Gb/s drop-tail bottleneck (no PFC): the controller's AIMD
    overflows the buffer now and then; a 1 ms retransmission timeout."""
    return {"seed": 1, "until_s": 0.02, "packet_bytes": 1000, "ack_bytes": 64,
            "topology": {"kind": "dumbbell", "senders": 2, "bottleneck_bps": 10e9, "access_bps": 10e9,
                         "rtt_s": 8e-6, "buffer_pkts": 100},
            "rdma": {"rto_s": 1e-3},
            "flows": {"count": 2, "cc": name},
            "record": {"traces": ["drops"]}}


def test_nacks_and_timeouts_reach_the_controller_with_the_expected_segment():
    import ccscope
    from ccscope import cc
    calls = []

    class LossAimd(cc.RateController):
        rdma = True

        def __init__(self, ctx):
            super().__init__(ctx)
            self.rate_bps = 4e9
            self.acked = 0

        def on_ack(self, now_s, acked_bytes, ackno, rtt_s, ecn, data_seq):
            self.acked = max(self.acked, ackno)
            self.rate_bps = min(self.rate_bps + 1e6, self.ctx.line_rate_bps)

        def on_nack(self, now_s, expected_seq):
            calls.append(("nack", self.ctx.flow, now_s, expected_seq, self.acked))
            self.rate_bps = 3e9

        def on_timeout(self, now_s):
            calls.append(("timeout", self.ctx.flow, now_s, None, self.acked))

    cc.register_cc("loss_aimd", LossAimd)
    r = ccscope.simulate(lossy("loss_aimd"))
    drops = r.traces["drops"]
    nacks = [c for c in calls if c[0] == "nack"]
    assert len(nacks) >= 3 and len(drops) > len(nacks)
    for _, flow, t, expected, acked in nacks:
        # the receiver waits for a segment of this flow that was dropped before the NACK came,
        # at or above every cumulative ACK the source had seen
        lost = drops[(drops.flow == flow) & (drops.seq == expected) & (drops.time_s < t)]
        assert len(lost) >= 1, (flow, t, expected)
        assert expected >= acked
    # one on_timeout per retransmission timeout the flows table counts, per flow
    timeouts = [sum(1 for c in calls if c[0] == "timeout" and c[1] == f) for f in range(2)]
    assert timeouts == r.flows["timeouts"].tolist() and sum(timeouts) >= 1
    assert all(a[2] <= b[2] for a, b in zip(calls, calls[1:]))


def test_a_bad_value_from_on_nack_stops_the_run_naming_the_hook():
    import ccscope
    from ccscope import cc

    class BadNack(cc.RateController):
        rdma = True

        def __init__(self, ctx):
            super().__init__(ctx)
            self.rate_bps = 4e9

        def on_ack(self, now_s, acked_bytes, ackno, rtt_s, ecn, data_seq):
            self.rate_bps = min(self.rate_bps + 1e6, self.ctx.line_rate_bps)

        def on_nack(self, now_s, expected_seq):
            self.rate_bps = float("nan")

    cc.register_cc("bad_nack", BadNack)
    with pytest.raises(cc.ControllerError) as e:
        ccscope.simulate(lossy("bad_nack"))
    first = str(e.value).splitlines()[0]
    assert first.startswith('controller "bad_nack" (flow[') and "in on_nack: rate_bps = nan" in first


def test_an_rdma_class_written_without_the_new_hooks_still_registers_and_runs():
    """on_int, on_nack and on_timeout are optional: a duck-typed RDMA class with only the hooks
    that existed before them (kind="rate", no RateController base) registers and runs as `rdma`."""
    import ccscope
    from ccscope import cc

    class Old:
        rdma = True
        window_bytes = None
        deadline_s = None

        def __init__(self, ctx):
            self.rate_bps = ctx.line_rate_bps

        def on_feedback(self, now_s, kind, cpid, value): ...
        def on_bytes_sent(self, now_s, nbytes): ...
        def on_timer(self, now_s): ...
        def on_cnp(self, now_s): ...
        def on_ack(self, now_s, acked_bytes, ackno, rtt_s, ecn, data_seq): ...

    cc.register_cc("old_rdma_class", Old, kind="rate")
    runs = {}
    for name in ("old_rdma_class", "rdma"):
        s = lossy(name)
        s["until_s"] = 0.002
        runs[name] = ccscope.simulate(s)
    a, b = runs["old_rdma_class"], runs["rdma"]
    assert a.summary["events"] == b.summary["events"]
    assert a.flows.drop(columns="cc").equals(b.flows.drop(columns="cc"))
