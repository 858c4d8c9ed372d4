"""Dequeue-time threshold marking (`aqm.kind = "threshold_dequeue"`, docs/engine.md "Adding a queue
policy") from Python: the dataclass mirror and builder serialize to the engine's table, a DCTCP run
marks at its bottleneck and reports the port's classes, and bad values name the field. The mechanism
is tested in crates/ccscope-core/tests/threshold_dequeue.rs."""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

import ccscope as cc
from ccscope.aqm import threshold_dequeue
from ccscope.scenario.io import as_dict

ROOT = Path(__file__).resolve().parents[1]


def _dumbbell(aqm: dict) -> dict:
    d = dict(as_dict(ROOT / "scenarios" / "dctcp_dumbbell.toml"))
    d["until_s"] = 0.005
    d["aqm"] = aqm
    return d


def test_the_builder_serializes_and_a_dctcp_run_marks_at_dequeue():
    a = threshold_dequeue(k_pkts=20)
    assert a.KIND == "threshold_dequeue" and asdict(a)["k_pkts"] == 20
    r = cc.simulate(_dumbbell({"kind": a.KIND, **{k: v for k, v in asdict(a).items() if v is not None}}))
    b = r.ports[r.ports["name"] == "sw->r0"].iloc[0]
    assert b["marks"] > 0 and b["drops_overflow"] == 0
    c = r.classes
    assert list(c.loc[c["name"] == "sw->r0", "marks"]) == [b["marks"]]


@pytest.mark.parametrize("aqm,field", [
    ({"kind": "threshold_dequeue"}, "aqm.k_pkts"),
    ({"kind": "threshold_dequeue", "k_pkts": 5, "k_bytes": 9000}, "aqm.k_bytes"),
    ({"kind": "threshold_dequeue", "k_pkts": 5, "bogus": 1}, "bogus"),
])
def test_bad_values_name_the_field(aqm, field):
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(_dumbbell(aqm))
    assert field in str(e.value)


def test_a_queue_policy_per_class_from_the_dataclass():
    """`SchedConfig(class_aqm=[...])`: class 0 marks (threshold), class 1 is drop-tail and never marks."""
    from ccscope.aqm import drop_tail, threshold
    from ccscope.scenario import SchedConfig
    from ccscope.scenario.model import _clean
    sched = SchedConfig(classes=2, scheduler="drr", class_buffer_pkts=[150, 150],
                        class_aqm=[threshold(k_pkts=20), drop_tail()])
    table = _clean(sched)
    assert table["class_aqm"] == [{"kind": "threshold", "k_pkts": 20, "mark_at_or_above": False}, {"kind": "drop_tail"}]
    d = _dumbbell({"kind": "drop_tail"})
    d["until_s"] = 0.01
    d["sched"] = table
    d["flows"] = {**d["flows"], "count": 2}
    d.pop("flows")
    d["topology"] = {**d["topology"], "senders": 4}
    d["flow"] = [{"src": f"s{i}", "dst": "r0", "cc": "dctcp", "class": i // 2, "start_s": i * 1e-4} for i in range(4)]
    r = cc.simulate(d)
    c = r.classes[r.classes["name"] == "sw->r0"].set_index("class")
    assert c.loc[0, "marks"] > 0 and c.loc[1, "marks"] == 0
    with pytest.raises(cc.ScenarioError) as e:
        d["sched"] = {**table, "class_aqm": table["class_aqm"][:1]}
        cc.simulate(d)
    assert "sched.class_aqm" in str(e.value) and "one queue policy per class (2)" in str(e.value)
