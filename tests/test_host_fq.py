"""Per-flow fair queueing at host NIC ports (`aqm.kind = "fq"`, `topology.host_aqm`; docs/engine.md
"Host NICs") from a scenario file and from Python: on a k = 4 fat-tree a one-packet flow started
with 15 windows of other flows at its host leaves after about one packet of each (the drop-tail
FIFO makes it wait for all 225), the dataclass mirror and builder serialize to the engine's table,
and bad values name the field. The mechanism is tested in crates/ccscope-core/tests/host_fq.rs and
aqm/fq.rs."""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

import ccscope as cc
from ccscope.aqm import fq
from ccscope.scenario.model import FatTree, _clean
from tests.host_scenarios import FRAME_S, fat_tree_one_host_toml

def _short_flow_wait(tmp_path: Path, host_aqm: str) -> float:
    p = tmp_path / "fq.toml"
    p.write_text(fat_tree_one_host_toml(topology_extra=host_aqm))
    r = cc.simulate(p)
    f = r.flows
    assert f["fct_s"].notna().all()
    return float(f["fct_s"].iloc[15] - f["ideal_fct_s"].iloc[15])


def test_a_short_flow_waits_one_round_with_fq_and_every_window_with_the_fifo(tmp_path):
    fifo = _short_flow_wait(tmp_path, "")
    fair = _short_flow_wait(tmp_path, 'host_aqm = { kind = "fq" }')
    assert fifo > 200 * FRAME_S, fifo / FRAME_S
    assert fair <= 16 * FRAME_S, fair / FRAME_S


def test_the_builder_and_the_mirror_serialize_to_the_engines_table():
    a = fq(quantum_bytes=3000)
    assert a.KIND == "fq" and asdict(a) == {"quantum_bytes": 3000}
    t = FatTree(k=4, link_bps=100e9, link_delay_s=1e-6, host_aqm=fq())
    assert _clean(t)["host_aqm"] == {"kind": "fq"}
    assert "host_aqm" not in _clean(FatTree(k=4, link_bps=100e9, link_delay_s=1e-6))


@pytest.mark.parametrize("host_aqm,field,allowed", [
    ('host_aqm = { kind = "fq", quantum_bytes = 0 }', "topology.host_aqm.quantum_bytes", "from 1 to 16777216"),
    ('host_aqm = { kind = "fifo" }', "topology.host_aqm", "`fq`"),
    ('host_aqm = { kind = "fq", flows = 4 }', "topology.host_aqm", "flows"),
])
def test_bad_values_name_the_field(tmp_path, host_aqm, field, allowed):
    p = tmp_path / "bad.toml"
    p.write_text(fat_tree_one_host_toml(topology_extra=host_aqm))
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(p)
    assert field in str(e.value) and allowed in str(e.value), str(e.value)


def test_the_htsim_fabric_script_sets_fq_on_ccscopes_host_ports_for_swift_only():
    """bench/peers/htsim_fabric.py --host-fq (docs/validation.md, the Swift fat-tree's third setup)."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "peers"))
    import htsim_fabric as F
    c = dict(F.CASES["incast"], host_aqm={"kind": "fq"})
    assert F.ccscope_scenario(c, "swift")["topology"]["host_aqm"] == {"kind": "fq"}
    assert "host_aqm" not in F.ccscope_scenario(c, "hpcc")["topology"]
    assert "host_aqm" not in F.ccscope_scenario(F.CASES["incast"], "swift")["topology"]


def test_fq_at_a_switch_port_shares_the_bottleneck_equally_whatever_the_rtts():
    """`aqm = fq` is usable at any port: at a 10 Gb/s dumbbell's bottleneck two NewReno flows with
    100 us and 400 us RTTs get equal shares (DRR with one-packet quanta)."""
    from ccscope.scenario.io import as_dict
    d = dict(as_dict(Path(__file__).resolve().parents[1] / "scenarios" / "dctcp_dumbbell.toml"))
    d["until_s"] = 0.1
    d["aqm"] = {"kind": "fq"}
    d["flows"] = {**d["flows"], "cc": "new_reno"}
    topo = {k: v for k, v in d["topology"].items() if k != "rtt_s"}
    d["topology"] = {**topo, "rtt_per_sender_s": [100e-6, 400e-6]}
    thr = cc.simulate(d).flows["throughput_bps"].tolist()
    assert all(abs(t / 5e9 - 1) < 0.05 for t in thr), thr
