"""When a TCP data packet is timestamped for its RTT sample (`tcp.stamp_at`, docs/scenario.md; docs/engine.md "Host
NICs" for the host port): "send" (the default, Linux) on entry to the host port, "host_tx" (htsim's Swift host
scheduler, `BaseScheduler::beginService`) when the host port starts serializing it. From a scenario
file and from Python: sixteen flows of one host on a k = 4 fat-tree, whose host port is the only
queue on their path: with "host_tx" every flow's smoothed RTT is the path's base RTT, with "send" it
holds the wait behind the host's other packets; the mirror serializes the field only when set; bad
values name the field; bench/peers/htsim_fabric.py --stamp-at passes it. The mechanism is tested in
crates/ccscope-core/tests/stamp_at.rs."""
from __future__ import annotations

from pathlib import Path

import pytest

import ccscope as cc
from ccscope.scenario.model import TcpConfig, _clean
from tests.host_scenarios import FRAME_S, fat_tree_one_host_toml


def _srtts(tmp_path: Path, tcp_extra: str):
    p = tmp_path / "st.toml"
    p.write_text(fat_tree_one_host_toml(tcp_extra=tcp_extra))
    f = cc.simulate(p).flows
    assert f["fct_s"].notna().all()
    return f["srtt_s"]


def test_host_tx_samples_leave_out_the_host_queue_and_send_samples_hold_it(tmp_path):
    tx = _srtts(tmp_path, 'stamp_at = "host_tx"')
    send = _srtts(tmp_path, "")
    # the path's base RTT for every flow (same path, nothing queued past the host): 6 links of
    # 1 us each way plus each hop's serialization of the segment (a last, shorter segment is
    # serialized faster) and of its ACK; no frame of host wait
    assert 12e-6 < tx.min() <= tx.max() < 12e-6 + 6 * FRAME_S * 1.1, tx.tolist()
    assert tx.max() - tx.min() < 6 * FRAME_S, tx.tolist()
    # stamped on entry: the windows queued ahead at the host (15 flows x 15 packets at first)
    assert (send > tx.max() + 10 * FRAME_S).all(), send.tolist()


def test_the_mirror_serializes_the_field_only_when_set():
    assert _clean(TcpConfig(stamp_at="host_tx"))["stamp_at"] == "host_tx"
    assert "stamp_at" not in _clean(TcpConfig())


@pytest.mark.parametrize("value", ['"nic"', "1", "true", '"HOST_TX"'])
def test_bad_values_name_the_field_the_value_and_what_is_allowed(tmp_path, value):
    p = tmp_path / "bad.toml"
    p.write_text(fat_tree_one_host_toml(tcp_extra=f"stamp_at = {value}"))
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(p)
    msg = str(e.value)
    assert "tcp.stamp_at" in msg and value.strip('"') in msg, msg
    assert '"send" or "host_tx"' in msg, msg


def test_the_htsim_fabric_script_sets_the_stamp_for_swift_only():
    """bench/peers/htsim_fabric.py --stamp-at host_tx (docs/validation.md, the Swift fat-tree's
    fifth setup)."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "peers"))
    import htsim_fabric as F
    c = dict(F.CASES["incast"], stamp_at="host_tx")
    assert F.ccscope_scenario(c, "swift")["tcp"]["stamp_at"] == "host_tx"
    assert "stamp_at" not in F.ccscope_scenario(c, "hpcc").get("tcp", {})
    assert "stamp_at" not in F.ccscope_scenario(F.CASES["incast"], "swift")["tcp"]
    assert F.main(["--htsim", "/nonexistent", "--cc", "hpcc", "--stamp-at", "host_tx"]) == 2
