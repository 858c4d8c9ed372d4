"""PIE (RFC 8033, `aqm.kind = "pie"`) as a user reaches it from Python: the builder, its round trip
through the scenario dict, a run that holds the queueing delay near the reference, and clear errors
for bad values. The mechanisms are tested in crates/ccscope-core/src/aqm/pie.rs and
crates/ccscope-core/tests/pie.rs."""
from __future__ import annotations

import pytest

import ccscope as cc
from ccscope.errors import ScenarioError


def _sc(until_s: float = 10.0, **kw):
    s = cc.scenario.dumbbell(senders=4, bottleneck_bps=100e6, access_bps=1e9, rtt_s=0.02, buffer_pkts=1000,
                             aqm=cc.aqm.pie(**kw), start_jitter_s=0.01)
    s.until_s = until_s
    return s


def test_the_builder_writes_the_rfc_defaults_and_round_trips():
    a = cc.aqm.pie()
    assert (a.target_s, a.t_update_s, a.alpha, a.beta, a.max_burst_s, a.ecn, a.ecn_max_p, a.derandomize) == (
        0.015, 0.015, 0.125, 1.25, 0.15, False, 0.1, False)
    d = _sc(ecn=True, target_s=0.02).to_dict()
    assert d["aqm"]["kind"] == "pie" and d["aqm"]["target_s"] == 0.02 and d["aqm"]["ecn"] is True
    # the engine reads back every field the dataclass wrote, and fills the same defaults
    from ccscope.scenario.io import resolve
    assert resolve(d)["aqm"] == d["aqm"]
    assert resolve({**d, "aqm": {"kind": "pie"}})["aqm"] == {**cc.aqm.pie().__dict__, "kind": "pie"}


def test_pie_holds_the_queue_near_its_reference_on_a_congested_dumbbell():
    s = _sc()
    s.record = cc.scenario.RecordConfig(traces=["drops", "queue"], queue_interval_s=1e-3)
    r = cc.simulate(s)
    q = r.traces["queue"]
    delay = q[q.time_s >= 2.0].queue_bytes.mean() * 8 / 100e6
    assert abs(delay - 0.015) <= 0.2 * 0.015, delay
    # the slow start overflows the buffer before PIE's probability has grown (its first
    # updates are scaled down by 2048, RFC 8033 section 4.2); after it, PIE alone drops
    d = r.traces["drops"]
    assert (d[d.event == "drop_aqm"].time_s > 1.0).sum() > 10
    assert d[d.event == "drop_overflow"].time_s.max() < 0.5


@pytest.mark.parametrize("kw,field", [
    ({"target_s": 0.0}, "aqm.target_s"),
    ({"t_update_s": 1e-9}, "aqm.t_update_s"),
    ({"alpha": -0.1}, "aqm.alpha"),
    ({"beta": float("inf")}, "aqm.beta"),
    ({"max_burst_s": -1.0}, "aqm.max_burst_s"),
    ({"ecn_max_p": 2.0}, "aqm.ecn_max_p"),
])
def test_bad_values_name_the_field(kw, field):
    with pytest.raises(ScenarioError) as e:
        cc.simulate(_sc(until_s=0.1, **kw))
    assert field in str(e.value)
