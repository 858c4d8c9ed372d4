"""RED deciding at dequeue (`aqm.mark_at = "dequeue"`, DCQCN's congestion point at egress) from Python: the
dataclass mirror and builder serialize to the engine's table, the default ("enqueue") is today's RED bit for bit,
a DCQCN run marks at its bottleneck's dequeue (the port's classes report the marks), a class of its own may run it,
and bad values name the field. The rule itself is tested on hand-made sequences in aqm/red.rs
(`dequeue_rule_marks_by_the_queue_left_behind_as_dcqcn_cp`) and net/sched.rs."""
from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import pytest

import ccscope as cc
from ccscope.aqm import red
from tests.rdma_scenarios import dcqcn_dumbbell

RED = {"kind": "red", "min_th_pkts": 5, "max_th_pkts": 200, "max_p": 0.01, "w_q": 1.0, "independent_marks": True}


def dcqcn(aqm: dict, n: int = 4, until_s: float = 0.003) -> dict:
    """`n` endless DCQCN flows, no PFC: the drops trace shows every mark."""
    return dcqcn_dumbbell(n=n, aqm=aqm, until_s=until_s, pfc=None, size_bytes=None, traces=["drops"],
                          flow_interval_s=1e-3, name="red-dequeue")


def bottleneck(r):
    return r.ports[r.ports["name"] == "sw->r0"].iloc[0]


def test_the_builder_serializes_mark_at():
    a = red(min_th_pkts=5, max_th_pkts=200, max_p=0.01, w_q=1.0, independent_marks=True, mark_at="dequeue")
    assert a.KIND == "red" and asdict(a)["mark_at"] == "dequeue" and asdict(a)["independent_marks"] is True
    assert asdict(red(min_th_pkts=5, max_th_pkts=15))["mark_at"] == "enqueue"


def test_enqueue_is_the_default_bit_for_bit_and_dequeue_marks_at_the_bottleneck():
    base = cc.simulate(dcqcn(RED))
    explicit = cc.simulate(dcqcn({**RED, "mark_at": "enqueue"}))
    pd.testing.assert_frame_equal(base.ports, explicit.ports)
    pd.testing.assert_frame_equal(base.traces["drops"], explicit.traces["drops"])
    deq = cc.simulate(dcqcn({**RED, "mark_at": "dequeue"}))
    b = bottleneck(deq)
    assert b["marks"] > 0 and b["drops_overflow"] == 0
    # the decision runs in the port's class (the general path): the class counts every mark
    c = deq.classes
    assert list(c.loc[c["name"] == "sw->r0", "marks"]) == [b["marks"]]
    ev = deq.traces["drops"]
    assert set(ev["event"].astype(str).str.lower()) == {"mark"}
    assert not base.traces["drops"].reset_index(drop=True).equals(ev.reset_index(drop=True))


def test_a_class_runs_red_at_dequeue_of_its_own():
    d = dcqcn({"kind": "drop_tail"}, until_s=0.002)
    d["sched"] = {"classes": 2, "scheduler": "drr", "class_buffer_pkts": [5000, 5000],
                  "class_aqm": [{**RED, "mark_at": "dequeue"}, {"kind": "drop_tail"}]}
    d.pop("flows")
    d["flow"] = [{"src": f"s{i}", "dst": "r0", "cc": "dcqcn", "class": i // 2} for i in range(4)]
    r = cc.simulate(d)
    c = r.classes[r.classes["name"] == "sw->r0"].set_index("class")
    assert c.loc[0, "marks"] > 0 and c.loc[1, "marks"] == 0


@pytest.mark.parametrize("extra,field,words", [
    ({"mark_at": "egress"}, "aqm.mark_at", ["egress", "enqueue", "dequeue"]),
    ({"mark_at": "dequeue", "action": "drop"}, "aqm.action", ['"mark"', "dequeue"]),
    ({"mark_at": "dequeue", "ns2_drop_ecn_above_p": 0.1}, "aqm.ns2_drop_ecn_above_p", ["0.1", "dequeue"]),
    ({"mark_at": 1}, "aqm.mark_at", []),
])
def test_bad_values_name_the_field(extra, field, words):
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(dcqcn({**RED, **extra}))
    msg = str(e.value)
    assert field in msg and "Traceback" not in msg, msg
    for w in words:
        assert w in msg, msg


def test_a_step_shaped_red_at_dequeue_marks_exactly_as_the_dequeue_threshold():
    """With w_q = 1, min_th = K and max_th = K + 1, RED at dequeue marks a packet exactly when the queue it leaves
    behind holds more than K packets (on the ramp the queue is K, p = 0: no random draw), which is the rule of
    `threshold_dequeue` with k_pkts = K: the two runs must agree mark for mark."""
    k = 20
    step = cc.simulate(dcqcn({**RED, "min_th_pkts": k, "max_th_pkts": k + 1, "mark_at": "dequeue"}))
    thr = cc.simulate(dcqcn({"kind": "threshold_dequeue", "k_pkts": k}))
    assert bottleneck(step)["marks"] > 100
    pd.testing.assert_frame_equal(step.traces["drops"], thr.traces["drops"])
    pd.testing.assert_frame_equal(step.ports, thr.ports)
    # at enqueue the same step marks by the queue a packet finds: a different run
    enq = cc.simulate(dcqcn({**RED, "min_th_pkts": k, "max_th_pkts": k + 1}))
    assert not enq.traces["drops"].reset_index(drop=True).equals(step.traces["drops"].reset_index(drop=True))
