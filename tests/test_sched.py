"""Traffic classes and schedulers (`[sched]`, docs/engine.md) as a user reaches them from Python and
the CLI: the per-class table, its round trip through `save`/`load` and pickling, the dataclass mirror,
and clear errors for bad values. The mechanisms themselves are tested in
crates/ccscope-core/tests/sched.rs."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import ccscope as cc
from ccscope.scenario import SchedConfig
from ccscope.scenario.io import as_dict

ROOT = Path(__file__).resolve().parents[1]


def _dumbbell(sched: dict | None, **flows) -> dict:
    d = dict(as_dict(ROOT / "scenarios" / "dctcp_dumbbell.toml"))
    d["until_s"] = 0.003
    if sched is not None:
        d["sched"] = sched
    d["flows"] = {**d["flows"], **flows}
    return d


def test_a_two_class_port_reports_its_classes_and_round_trips(tmp_path):
    r = cc.simulate(_dumbbell({"classes": 2, "scheduler": "strict"}, **{"class": 1}))
    t = r.classes
    assert list(t["class"]) == [0, 1] and set(t["name"]) == {"sw->r0"}
    # every data packet of the flows is in class 1; class 0 sees nothing
    assert t["arrivals"].iloc[0] == 0 and t["tx_pkts"].iloc[1] > 0
    assert t["tx_bytes"].sum() == r.ports.set_index("name").loc["sw->r0", "tx_bytes"]
    out = r.save(tmp_path / "run")
    assert (out / "classes.parquet").exists()
    back = cc.load(out)
    assert back.classes.equals(r.classes)
    assert pickle.loads(pickle.dumps(r)).classes.equals(r.classes)


def test_a_run_without_classes_keeps_its_files(tmp_path):
    r = cc.simulate(_dumbbell(None))
    assert r.classes.empty
    out = r.save(tmp_path / "run")
    assert not (out / "classes.parquet").exists()


def test_the_general_path_with_one_class_gives_the_fifo_results():
    fifo = cc.simulate(_dumbbell(None))
    general = cc.simulate(_dumbbell({"path": "general"}))
    assert fifo.flows["delivered_bytes"].tolist() == general.flows["delivered_bytes"].tolist()
    assert fifo.traces["queue"]["queue_pkts"].tolist() == general.traces["queue"]["queue_pkts"].tolist()


def test_the_dataclass_serializes_to_the_sched_table():
    s = SchedConfig(classes=2, scheduler="drr", weights=[1.0, 3.0])
    d = _dumbbell(None)
    d["sched"] = {k: v for k, v in vars(s).items() if v is not None}
    r = cc.simulate(d)
    assert len(r.classes) == 2


@pytest.mark.parametrize("sched,flows,field", [
    ({"classes": 9}, {}, "sched.classes"),
    ({"classes": 2, "scheduler": "drr", "weights": [1, 0]}, {}, "sched.weights[1]"),
    ({"classes": 2, "weights": [1, 2]}, {}, "sched.weights"),
    ({"classes": 2, "class_buffer_pkts": [10]}, {}, "sched.class_buffer_pkts"),
    ({"classes": 2, "scheduler": "fifo"}, {}, "sched.scheduler"),
    (None, {"class": 8}, "flows.class"),
])
def test_bad_values_name_the_field(sched, flows, field):
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(_dumbbell(sched, **flows))
    assert field in str(e.value)


def test_flow_classes_of_a_dataclass_scenario_serialize_and_a_wrong_flow_type_is_named():
    from ccscope.scenario import Dumbbell, FlowSpec, FlowsTemplate, Scenario
    from ccscope.scenario.io import to_engine_json
    sc = Scenario(topology=Dumbbell(senders=2, bottleneck_bps=1e9, rtt_s=1e-4),
                  flows=FlowsTemplate(count=2, class_=1))
    assert '"class": 1' in to_engine_json(sc).replace('"class":1', '"class": 1')
    sc.flow = [FlowSpec(src="s0", dst="r0", class_=2)]
    assert sc.to_dict()["flow"][0]["class"] == 2
    # a value of the wrong type passes through to the engine, which names the field (the fuzzer's
    # case: `flow` given as a number)
    sc.flow = 9223372036854775807
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(sc)
    assert "flow" in str(e.value)


def test_a_workload_dataclass_carries_its_class():
    from ccscope.scenario import Dumbbell, Incast, Scenario
    sc = Scenario(topology=Dumbbell(senders=2, bottleneck_bps=1e9, rtt_s=1e-4), until_s=0.01,
                  workload=[Incast(client="r0", servers=["s0", "s1"], total_bytes=20000, class_=1)],
                  sched=SchedConfig(classes=2))
    assert sc.to_dict()["workload"][0]["class"] == 1
    t = cc.simulate(sc).classes.set_index("class")
    assert t.loc[0, "tx_pkts"] == 0 and t.loc[1, "tx_pkts"] > 0


def _aqm_dumbbell(aqm, *, buffer_pkts: int, until_s: float):
    """4 NewReno flows over 100 Mb/s, RTT 20 ms, with `aqm` at the bottleneck."""
    s = cc.scenario.dumbbell(senders=4, bottleneck_bps=100e6, access_bps=1e9, rtt_s=0.02, buffer_pkts=buffer_pkts,
                             aqm=aqm, start_jitter_s=0.01)
    s.until_s = until_s
    return s


def test_codel_from_python_reports_its_sojourn_and_refuses_a_target_above_the_interval():
    from ccscope.errors import ScenarioError

    def sc(**kw):
        return _aqm_dumbbell(cc.aqm.codel(**kw), buffer_pkts=1000, until_s=10.0)

    r = cc.simulate(sc())
    t = r.classes
    assert list(t["name"]) == ["sw->r0"]
    # the standing queue is held near the 5-ms target (the mean also holds the slow-start overshoot
    # before CoDel's first interval ends), far below the 120 ms of the full drop-tail buffer
    assert 0.005 < t["mean_sojourn_s"].iloc[0] < 0.02
    assert r.ports.set_index("name").loc["sw->r0", "drops_aqm"] > 0
    with pytest.raises(ScenarioError) as e:
        cc.simulate(sc(target_s=0.2))
    assert "aqm.target_s" in str(e.value) and "interval_s" in str(e.value)


def test_fq_codel_from_python_runs_and_names_bad_fields():
    from ccscope.errors import ScenarioError

    def sc(**kw):
        return _aqm_dumbbell(cc.aqm.fq_codel(**kw), buffer_pkts=100, until_s=3.0)

    r = cc.simulate(sc())
    ports = r.ports.set_index("name")
    # slow start overflows the 100-packet buffer: FQ-CoDel drops from the fattest queue, then its
    # CoDels hold the queue; every packet is accounted for (finish() checks conservation)
    assert ports.loc["sw->r0", "drops_overflow"] > 0 and ports.loc["sw->r0", "drops_aqm"] > 0
    assert ports.loc["sw->r0", "max_queue_pkts"] <= 100
    assert r.classes["max_q_pkts"].iloc[0] <= 100
    for kw, field in [({"flows": 0}, "aqm.flows"), ({"drop_batch": 0}, "aqm.drop_batch"),
                      ({"quantum_bytes": 0}, "aqm.quantum_bytes"), ({"target_s": 0.5}, "aqm.target_s")]:
        with pytest.raises(ScenarioError) as e:
            cc.simulate(sc(**kw))
        assert field in str(e.value), (kw, str(e.value))


def test_pfc_from_python_reports_pauses_and_round_trips(tmp_path):
    from dataclasses import asdict

    from ccscope.errors import ScenarioError
    from ccscope.scenario import PfcConfig

    d = dict(as_dict(ROOT / "scenarios" / "incast_dctcp.toml"))
    d["until_s"] = 0.02
    d["topology"] = {**d["topology"], "buffer_pkts": 50}
    # XOFF of 4 packets per ingress: each server's initial window alone exceeds it
    d["pfc"] = asdict(PfcConfig(xoff_bytes=6_000, xon_bytes=3_000))
    r = cc.simulate(d)
    t = r.classes
    assert {"pause_rx", "paused_s"} <= set(t.columns)
    assert t["pause_rx"].sum() > 0 and t["paused_s"].max() > 0
    sw = r.ports[r.ports["name"].str.startswith("sw->")]
    # no switch drops for lack of buffer (the threshold AQM still drops NewReno's non-ECT packets
    # it would mark: PFC makes a class lossless against overflow, not against its AQM)
    assert sw["drops_overflow"].sum() == 0
    back = cc.load(r.save(tmp_path / "run"))
    assert back.classes.equals(r.classes)
    d["pfc"] = asdict(PfcConfig(xoff_bytes=100, xon_bytes=100))
    with pytest.raises(ScenarioError) as e:
        cc.simulate(d)
    assert "pfc.xon_bytes" in str(e.value)


def test_fq_codel_queues_count_in_the_memory_budget():
    from ccscope.errors import ScenarioError

    d = {"seed": 1, "until_s": 0.001,
         "topology": {"kind": "fat_tree", "k": 16, "link_bps": 10e9, "link_delay_s": 1e-6},
         "sched": {"classes": 8},
         "aqm": {"kind": "fq_codel", "flows": 65536},
         "flow": [{"src": "h0", "dst": "h1"}]}
    with pytest.raises(ScenarioError) as e:
        cc.simulate(d, max_memory_bytes=2 << 30)
    assert "aqm.flows" in str(e.value), str(e.value)
