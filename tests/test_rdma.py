"""RoCE flows end to end from Python and the CLI: the RDMA transport (cc = "rdma": go-back-N, ACKs, NACKs,
CNPs, `[rdma]`) and DCQCN on it (cc = "dcqcn", `[dcqcn]`); flows/FCT/slowdown tables and the rate trace;
one-line errors for bad values."""
from __future__ import annotations


import pytest
from typer.testing import CliRunner

import ccscope as cc
from ccscope.cli import app

LEAF_SPINE = {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4, "host_bps": 10e9,
              "fabric_bps": 40e9, "link_delay_s": 1e-6, "buffer_pkts": 500}


def scenario(flow, *, until_s=0.01, **extra) -> dict:
    d = {"name": "rdma", "seed": 1, "until_s": until_s, "packet_bytes": 1000, "ack_bytes": 64,
         "topology": dict(LEAF_SPINE), "flow": flow, "record": {"traces": ["rate"]}}
    d.update(extra)
    return d


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def one_line_error(r, *needles):
    assert r.exit_code == 2, r.output
    text = r.output.strip()
    assert text.startswith("error:") and "\n" not in text and "Traceback" not in text, text
    for n in needles:
        assert n in text, text


def test_a_lone_rdma_flow_runs_at_line_rate_from_the_first_packet():
    # no slow start: alone on the fabric, its FCT is the store-and-forward bound (slowdown 1)
    f = cc.simulate(scenario([{"src": "h0", "dst": "h5", "cc": "rdma", "size_bytes": 1_000_000}])).flows
    assert f["delivered_bytes"].iloc[0] == 1_000_000
    assert f["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    assert f["retransmits"].iloc[0] == 0
