"""The sender-side end point of a flow (docs/workloads.md, "Sender-side FCT"): `fct_sender_s` ends
when an ACK first acknowledges the last byte at the sender, as htsim and the HPCC authors' ns-3 end
a flow; `ideal_fct_sender_s` adds one ACK's trip back to the receiver-side ideal."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import ccscope as cc

# h0 -> leaf0 -> spine -> leaf1 -> h5 and back: 10, 40, 40, 10 Gb/s, 1 us per link
LEAF_SPINE = {"kind": "leaf_spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 4, "host_bps": 10e9,
              "fabric_bps": 40e9, "link_delay_s": 1e-6, "buffer_pkts": 500}
ACK_BYTES = 64
# one 64-byte ACK from h5 back to h0 on the empty fabric: 4 x 1 us + 64 B at 10, 40, 40, 10 Gb/s
# = 4 us + 51.2 + 12.8 + 12.8 + 51.2 ns (all whole picoseconds, so exact)
ACK_TRIP_S = 4e-6 + 2 * ACK_BYTES * 8 / 10e9 + 2 * ACK_BYTES * 8 / 40e9


def scenario(flow, *, until_s=0.01) -> dict:
    return {"name": "fct_sender", "seed": 1, "until_s": until_s, "packet_bytes": 1000, "ack_bytes": ACK_BYTES,
            "topology": dict(LEAF_SPINE), "flow": flow}


@pytest.mark.parametrize("kind,size", [("rdma", 1_000_000), ("rdma", 1), ("new_reno", 2000)])
def test_a_lone_flow_ends_at_its_sender_one_ack_trip_after_its_receiver(kind, size):
    f = cc.simulate(scenario([{"src": "h0", "dst": "h5", "cc": kind, "size_bytes": size}])).flows.iloc[0]
    # alone on the empty fabric the receiver-side FCT is its ideal (slowdown 1) ...
    assert f["fct_s"] == pytest.approx(f["ideal_fct_s"], abs=1e-12)
    # ... and the last ACK, sent when the last packet arrives, crosses the empty reverse path
    assert f["fct_sender_s"] - f["fct_s"] == pytest.approx(ACK_TRIP_S, abs=1e-12)
    assert f["ideal_fct_sender_s"] - f["ideal_fct_s"] == pytest.approx(ACK_TRIP_S, abs=1e-12)
    assert f["slowdown_sender"] == pytest.approx(1.0, abs=1e-9)


def test_the_rdma_values_by_hand():
    # 1000 packets of 1000 B: the first at 10 and 40 and 40 Gb/s, all 1000 at the last 10 Gb/s
    # hop (the bottleneck j = 3), then the ACK back
    f = cc.simulate(scenario([{"src": "h0", "dst": "h5", "cc": "rdma", "size_bytes": 1_000_000}])).flows.iloc[0]
    fwd = 4e-6 + 8000 / 10e9 + 2 * 8000 / 40e9 + 8e6 / 10e9
    assert f["fct_s"] == pytest.approx(fwd, abs=1e-12)
    assert f["fct_sender_s"] == pytest.approx(fwd + ACK_TRIP_S, abs=1e-12)
    assert f["ideal_fct_sender_s"] == pytest.approx(fwd + ACK_TRIP_S, abs=1e-12)


def test_unsized_unfinished_and_ackless_flows_have_no_sender_side_fct():
    flows = [{"src": "h0", "dst": "h5", "cc": "new_reno"},  # long-lived: no size
             {"src": "h1", "dst": "h6", "cc": "rdma", "size_bytes": 50_000_000},  # does not finish in 1 ms
             {"src": "h2", "dst": "h7", "cc": "cbr", "size_bytes": 10_000},  # rate-based: takes no ACKs
             {"src": "h3", "dst": "h4", "cc": "new_reno", "size_bytes": 10_000}]
    f = cc.simulate(scenario(flows, until_s=1e-3)).flows
    s = f["fct_sender_s"].tolist()
    assert math.isnan(s[0]) and math.isnan(s[1]) and math.isnan(s[2]), s
    assert np.isfinite(f["fct_s"].iloc[2]) and np.isnan(f["slowdown_sender"].iloc[2])
    assert s[3] > f["fct_s"].iloc[3] > 0
    assert math.isnan(f["ideal_fct_sender_s"].iloc[0]) and f["ideal_fct_sender_s"].iloc[1] > 0


def test_a_run_saved_before_the_column_existed_still_loads(tmp_path):
    res = cc.simulate(scenario([{"src": "h0", "dst": "h5", "cc": "rdma", "size_bytes": 10_000}]))
    out = tmp_path / "run"
    res.save(out)
    assert cc.load(out).flows["fct_sender_s"].iloc[0] == res.flows["fct_sender_s"].iloc[0]
    # the flows table as an older ccscope wrote it: no sender-side columns
    p = out / "flows.parquet"
    old = pd.read_parquet(p).drop(columns=["fct_sender_s", "ideal_fct_sender_s", "slowdown_sender"])
    old.to_parquet(p)
    back = cc.load(out)
    assert "fct_sender_s" not in back.flows
    assert back.flows["fct_s"].iloc[0] == res.flows["fct_s"].iloc[0]
    assert back.slowdown() is not None
