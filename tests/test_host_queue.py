"""The per-flow limit on a TCP sender's packets in its host port (`tcp.host_queue_pkts`, Linux TCP
Small Queues, htsim's Swift source: 3; docs/engine.md "Host NICs") from a scenario file and from
Python: on a k = 4 fat-tree a one-packet flow started after 15 windows of other flows at its host
leaves after about 3 packets of each with N = 3 (the unlimited FIFO makes it wait for all 225), every
flow completes; the mirror serializes the field; bad values name the field. The mechanism is tested
in crates/ccscope-core/tests/host_queue.rs."""
from __future__ import annotations

from pathlib import Path

import pytest

import ccscope as cc
from ccscope.scenario.model import TcpConfig, _clean
from tests.host_scenarios import FRAME_S, fat_tree_one_host_toml

def _run(tmp_path: Path, tcp_extra: str):
    p = tmp_path / "hq.toml"
    p.write_text(fat_tree_one_host_toml(tcp_extra=tcp_extra))
    return cc.simulate(p).flows


def test_three_packets_per_flow_interleave_a_hosts_flows(tmp_path):
    unl = _run(tmp_path, "")
    three = _run(tmp_path, "host_queue_pkts = 3")
    for f in (unl, three):
        assert f["fct_s"].notna().all()
    wait = lambda f: float(f["fct_s"].iloc[15] - f["ideal_fct_s"].iloc[15]) / FRAME_S  # noqa: E731
    assert wait(unl) > 200, wait(unl)
    assert 44 <= wait(three) <= 47, wait(three)
    # the host's link stays busy: the long flows finish no later than 1 % after the unlimited run's
    assert three["fct_s"].max() <= unl["fct_s"].max() * 1.01


def test_the_mirror_serializes_the_field_and_leaves_it_out_unset():
    assert _clean(TcpConfig(host_queue_pkts=3))["host_queue_pkts"] == 3
    assert "host_queue_pkts" not in _clean(TcpConfig())


@pytest.mark.parametrize("value", ["-1", "2.5", '"3"', "4294967296"])
def test_bad_values_name_the_field_and_the_value(tmp_path, value):
    p = tmp_path / "bad.toml"
    p.write_text(fat_tree_one_host_toml(tcp_extra=f"host_queue_pkts = {value}"))
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(p)
    assert "tcp.host_queue_pkts" in str(e.value) and value.strip('"') in str(e.value), str(e.value)


def test_the_htsim_fabric_script_sets_the_limit_for_swift_only():
    """bench/peers/htsim_fabric.py --host-queue-pkts N (docs/validation.md, the Swift fat-tree's
    fourth setup)."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "peers"))
    import htsim_fabric as F
    c = dict(F.CASES["incast"], host_queue_pkts=3)
    assert F.ccscope_scenario(c, "swift")["tcp"]["host_queue_pkts"] == 3
    assert "host_queue_pkts" not in F.ccscope_scenario(c, "hpcc").get("tcp", {})
    assert "host_queue_pkts" not in F.ccscope_scenario(F.CASES["incast"], "swift")["tcp"]
