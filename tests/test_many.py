"""simulate_many: a batch in parallel gives, in input order, exactly what sequential simulate runs give."""
from __future__ import annotations

import pytest

import ccscope as cc
from ccscope.many import ItemError

UNTIL_S = 0.005
#: Summary entries that measure the wall clock, not the model.
TIMING = {"wall_s", "events_per_s"}


def small(n=2, **kw):
    return cc.scenario.dumbbell(senders=n, cc="dctcp", bottleneck_bps=10e9, rtt_s=100e-6,
                                aqm=cc.aqm.threshold(k_pkts=65), start_jitter_s=1e-3, **kw)


def assert_same_result(a: cc.SimResult, b: cc.SimResult) -> None:
    assert set(a.traces) == set(b.traces)
    for k in a.traces:
        assert a.traces[k].equals(b.traces[k]), k
    assert a.flows.equals(b.flows)
    assert a.ports.equals(b.ports)
    assert {k: v for k, v in a.summary.items() if k not in TIMING} == {k: v for k, v in b.summary.items() if k not in TIMING}
    assert a.scenario == b.scenario


@pytest.mark.parametrize("executor", ["thread", "process"])
def test_simulate_many_in_parallel_equals_sequential_runs_in_input_order(executor):
    scenarios = [small(2), small(3, seed=7), small(4).to_dict(), small(2, seed=3)]
    seq = [cc.simulate(s, until_s=UNTIL_S, record=["queue", "cwnd", "delivered"]) for s in scenarios]
    many = cc.simulate_many(scenarios, until_s=UNTIL_S, record=["queue", "cwnd", "delivered"], jobs=2,
                            executor=executor)
    assert len(many) == len(seq)
    for a, b in zip(seq, many):
        assert_same_result(a, b)
    assert [len(r.flows) for r in many] == [2, 3, 4, 2]


def test_simulate_many_per_item_seeds_match_simulate_with_seed():
    many = cc.simulate_many([small(2), small(2)], until_s=UNTIL_S, seeds=[None, 9], jobs=2)
    assert_same_result(many[0], cc.simulate(small(2), until_s=UNTIL_S))
    assert_same_result(many[1], cc.simulate(small(2), until_s=UNTIL_S, seed=9))


def test_simulate_many_failing_item_raises_its_error_type_naming_the_index():
    bad = small(2).to_dict()
    bad["flows"]["count"] = -1
    with pytest.raises(cc.ScenarioError, match=r"scenarios\[1\]: .*flows\.count"):
        cc.simulate_many([small(2), bad, small(2)], until_s=UNTIL_S, jobs=2)
    with pytest.raises(cc.ScenarioError, match=r"scenarios\[1\]"):
        cc.simulate_many([small(2), bad], until_s=UNTIL_S, jobs=1)


def test_simulate_many_errors_return_keeps_the_other_results():
    bad = small(2).to_dict()
    bad["flows"]["count"] = -1
    out = cc.simulate_many([small(2), bad, small(3)], until_s=UNTIL_S, jobs=2, errors="return")
    assert out[0].success and out[2].success
    assert isinstance(out[1], ItemError) and not out[1].success and out[1].index == 1
    assert isinstance(out[1].error, cc.ScenarioError)
    assert out[1].message.startswith("scenarios[1]: ScenarioError:") and "flows.count" in out[1].message
    assert_same_result(out[2], cc.simulate(small(3), until_s=UNTIL_S))


def test_simulate_many_empty_batch_and_bad_options():
    assert cc.simulate_many([]) == []
    with pytest.raises(ValueError, match="jobs"):
        cc.simulate_many([small(2)], jobs=0)
    with pytest.raises(ValueError, match="executor"):
        cc.simulate_many([small(2)], executor="gpu")
    with pytest.raises(ValueError, match="seeds"):
        cc.simulate_many([small(2)], seeds=[1, 2])
