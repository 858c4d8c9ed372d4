"""Python rate controllers (ccscope.cc.RateController): registration by name next to the window
controllers, the hooks and the times they see (feedback, bytes sent, the lazy timer), the errors
of a bad controller (named controller, flow, simulated time and hook; nothing written), and the
seeded random stream. Equivalence with the built-in QCN: test_py_rate_equivalence.py."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import ccscope
from ccscope import cc

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "ccscope"]


def scenario(cc_name: str, until: float = 0.02, aqm: str = "qcn", n: int = 3) -> dict:
    cp = ({"kind": "qcn", "q_eq_bytes": 15000, "sampling_p": 0.05} if aqm == "qcn"
          else {"kind": "asm", "q0_pkts": 10, "sampling_p": 0.05})
    return {"seed": 1, "until_s": until,
            "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 12e-6, "buffer_pkts": 100},
            "aqm": cp, "record": {"traces": ["rate", "feedback", "queue"]},
            "flows": {"count": n, "cc": cc_name}}


class Halver(cc.RateController):
    """Halve on any feedback; back up by 10 % of line rate each 1 ms timer."""
    def __init__(self, ctx):
        super().__init__(ctx)
        self.calls = []

    def on_feedback(self, now_s, kind, cpid, value):
        self.calls.append(("fb", now_s, kind, cpid, value))
        self.rate_bps = max(self.rate_bps / 2, 1e6)
        self.deadline_s = now_s + 1e-3

    def on_timer(self, now_s):
        self.calls.append(("timer", now_s))
        self.rate_bps = min(self.rate_bps + 0.1 * self.ctx.line_rate_bps, self.ctx.line_rate_bps)
        self.deadline_s = None if self.rate_bps >= self.ctx.line_rate_bps else now_s + 1e-3


def test_a_rate_controller_registers_by_name_and_drives_the_source():
    made = []

    class Seen(Halver):
        def __init__(self, ctx):
            super().__init__(ctx)
            made.append(self)
    cc.register_cc("test_halver", Seen)
    assert cc.registered()["test_halver"] is Seen
    assert "test_halver" in ccscope._native.cc_names()[1]
    res = ccscope.simulate(scenario("test_halver"))
    assert res.flows["cc"].tolist() == ["test_halver"] * 3
    assert [m.ctx.flow for m in made] == [0, 1, 2]
    assert made[0].ctx.line_rate_bps == 1e9 and made[0].ctx.packet_bytes == 1500
    fbs = [c for m in made for c in m.calls if c[0] == "fb"]
    timers = [c for m in made for c in m.calls if c[0] == "timer"]
    assert fbs and timers
    assert {c[2] for c in fbs} == {"qcn"} and all(isinstance(c[4], int) and 0 <= c[4] <= 63 for c in fbs)
    # the feedback trace saw the rate each hook left
    fb = res.traces["feedback"]
    fb = fb[fb.rate_before_bps.notna()]  # the frames received at the sources
    assert len(fb) == len(fbs)
    assert (fb.rate_after_bps <= fb.rate_before_bps).all()
    # hooks see the simulated time of their event, in order; a timer fires exactly at its deadline
    for m in made:
        ts = [c[1] for c in m.calls]
        assert ts == sorted(ts)
        for prev, cur in zip(m.calls, m.calls[1:]):
            if cur[0] == "timer":
                assert cur[1] >= prev[1] + 1e-3 - 1e-12
    rates = res.traces["rate"]
    assert rates.target_rate_bps.isna().all()  # no target_rate_bps attribute: NaN


def test_asm_feedback_is_a_pair_and_the_byte_counter_is_per_frame():
    seen = {"fb": [], "bytes": 0, "frames": 0}

    class Counter(cc.RateController):
        def on_feedback(self, now_s, kind, cpid, value):
            seen["fb"].append((kind, value))
            self.rate_bps = 5e8

        def on_bytes_sent(self, now_s, nbytes):
            seen["bytes"] += nbytes
            seen["frames"] += 1
    cc.register_cc("test_counter", Counter)
    res = ccscope.simulate(scenario("test_counter", aqm="asm", until=0.005))
    assert seen["fb"] and all(k == "asm" and isinstance(v, tuple) and len(v) == 2 for k, v in seen["fb"])
    assert seen["frames"] > 100 and seen["bytes"] == 1500 * seen["frames"]
    assert res.meta["ledger"]["sent"] >= seen["frames"]


def test_names_are_shared_with_window_controllers_and_built_ins_are_refused():
    with pytest.raises(ValueError, match="'qcn' is a built-in controller"):
        cc.register_cc("qcn", Halver)
    cc.register_cc("test_kind_rate", Halver)
    with pytest.raises(ValueError, match="'test_kind_rate' is registered as a rate controller"):
        cc.register_cc("test_kind_rate", cc.Controller)
    with pytest.raises(ValueError, match="kind = 'fluid'"):
        cc.register_cc("test_kind_x", Halver, kind="fluid")

    class NoHooks:
        pass
    with pytest.raises(TypeError, match="no method on_feedback, on_bytes_sent, on_timer"):
        cc.register_cc("test_nohooks", NoHooks, kind="rate")
    with pytest.raises(ccscope.ScenarioError) as e:
        ccscope.simulate(scenario("nope_rate"))
    assert "`test_kind_rate`" in str(e.value)


def _fails_with(cls, *needles, name="test_bad_rate", sc=None):
    cc.register_cc(name, cls)
    with pytest.raises(cc.ControllerError) as e:
        ccscope.simulate(sc or scenario(name))
    msg = str(e.value)
    assert isinstance(e.value, ccscope.SimulationError)
    for n in needles:
        assert n in msg, msg
    return msg


@pytest.mark.parametrize("value,needle", [
    (math.nan, "rate_bps = nan: must be a finite number of bits per second > 0"),
    (-1e6, "rate_bps = -1000000.0: must be a finite number of bits per second > 0"),
    (0, "rate_bps = 0: must be a finite number of bits per second > 0"),
    (math.inf, "rate_bps = inf: must be a finite number of bits per second > 0"),
    ("1e9", "rate_bps = '1e9' (str): must be a number of bits per second (int or float)"),
])
def test_a_bad_rate_stops_the_run(value, needle):
    class Bad(Halver):
        def on_feedback(self, now_s, kind, cpid, value_):
            self.rate_bps = value
    _fails_with(Bad, 'controller "test_bad_rate" (flow[', needle, "in on_feedback", "at t = ")


def test_an_exception_a_bad_return_value_and_a_bad_deadline():
    class Raises(Halver):
        def on_timer(self, now_s):
            raise KeyError("boom_in_rate_code")
    msg = _fails_with(Raises, "in on_timer", "boom_in_rate_code", "Traceback (most recent call last)",
                      "test_py_rate.py", name="test_raises_rate")
    assert float(msg.split("at t = ")[1].split(" s")[0]) > 1e-3

    class Returns(Halver):
        def on_feedback(self, now_s, kind, cpid, value):
            return "fast"
    _fails_with(Returns, "in on_feedback: the value on_feedback returned = 'fast' (str): must be a number",
                name="test_returns_rate")

    class Stuck(Halver):
        def on_timer(self, now_s):
            pass  # leaves the deadline where it was: it would fire again at once, forever
    _fails_with(Stuck, "in on_timer: deadline_s = ", "must be None or later than now_s", name="test_stuck_rate")

    class Past(Halver):
        def on_feedback(self, now_s, kind, cpid, value):
            self.deadline_s = now_s / 2
    _fails_with(Past, "in on_feedback: deadline_s = ", "must be None or at or after now_s", name="test_past_rate")

    class Ctor(cc.RateController):
        def __init__(self, ctx):
            super().__init__(ctx)
            self.rate_bps = -5
    cc.register_cc("test_ctor_rate", Ctor)
    with pytest.raises(cc.ControllerError, match=r'controller "test_ctor_rate" \(flow\[0\]\), in __init__: rate_bps = -5'):
        ccscope.Simulation(scenario("test_ctor_rate"))


def test_a_returned_rate_wins_over_the_attribute():
    class Returned(cc.RateController):
        def on_feedback(self, now_s, kind, cpid, value):
            return 2e8
    cc.register_cc("test_returned", Returned)
    res = ccscope.simulate(scenario("test_returned", until=0.005))
    fb = res.traces["feedback"]
    assert set(fb[fb.rate_before_bps.notna()].rate_after_bps) == {2e8}


def test_the_random_stream_is_seeded_per_flow():
    draws = {}

    class Rnd(cc.RateController):
        def __init__(self, ctx):
            super().__init__(ctx)
            draws.setdefault(ctx.flow, []).append(ctx.rng.random())
    cc.register_cc("test_rnd_rate", Rnd)
    ccscope.simulate(scenario("test_rnd_rate", until=0.001))
    ccscope.simulate(scenario("test_rnd_rate", until=0.001))
    assert all(len(set(v)) == 1 for v in draws.values())  # same seed, same draw
    assert len({v[0] for v in draws.values()}) == 3       # each flow its own stream


PLUGIN = """
from ccscope import cc

class Broken(cc.RateController):
    def on_bytes_sent(self, now_s, nbytes):
        if now_s > 0.002:
            self.rate_bps = float("nan")

cc.register_cc("rate_broken", Broken)
"""


def test_cli_a_failing_rate_controller_writes_nothing(tmp_path):
    plug = tmp_path / "rplugin.py"
    plug.write_text(PLUGIN)
    sc = tmp_path / "s.json"
    sc.write_text(json.dumps(scenario("rate_broken", until=0.005)))
    bad = subprocess.run(CLI + ["run", str(sc), "-q", "--plugin", str(plug), "-o", str(tmp_path / "bad")],
                         capture_output=True, text=True)
    assert bad.returncode == 1, bad.stderr
    assert 'controller "rate_broken" (flow[' in bad.stderr
    assert "in on_bytes_sent: rate_bps = nan: must be a finite number of bits per second > 0" in bad.stderr
    assert not (tmp_path / "bad").exists() or not any((tmp_path / "bad").iterdir())


def test_a_batch_on_engine_threads_runs_python_rate_controllers_exactly():
    """simulate_many's Rust threads take the GIL per hook: the same rates as one by one, and a
    failing item is that item's error, naming the controller."""
    from ccscope.many import simulate_many
    cc.register_cc("test_batch_rate", Halver)

    class Fails(Halver):
        def on_timer(self, now_s):
            raise ValueError("batch_item_boom")
    cc.register_cc("test_batch_fail", Fails)
    items = [scenario("test_batch_rate", until=0.01, n=k) for k in (2, 3, 4)]
    one = [ccscope.simulate(s) for s in items]
    many = simulate_many(items, jobs=2)
    for a, b in zip(one, many):
        assert a.traces["rate"].equals(b.traces["rate"]) and a.traces["feedback"].equals(b.traces["feedback"])
    out = simulate_many([items[0], scenario("test_batch_fail", until=0.01)], jobs=2, errors="return")
    assert out[0].traces["rate"].equals(one[0].traces["rate"])
    assert type(out[1]).__name__ == "ItemError" and 'controller "test_batch_fail"' in str(out[1])
    assert "batch_item_boom" in str(out[1])


def test_a_ctrl_c_inside_a_rate_hook_is_an_interrupt_and_the_run_goes_on():
    fired, calls = [], []

    class Interrupts(Halver):
        def on_feedback(self, now_s, kind, cpid, value):
            calls.append(("fb", now_s))
            if now_s > 0.002 and not fired:
                fired.append(now_s)
                raise KeyboardInterrupt
            return super().on_feedback(now_s, kind, cpid, value)
    cc.register_cc("test_sigint_rate", Interrupts)
    sim = ccscope.Simulation(scenario("test_sigint_rate"))
    with pytest.raises(KeyboardInterrupt) as e:
        sim.run_until(0.02)
    assert not isinstance(e.value, cc.ControllerError)
    assert 'controller "test_sigint_rate"' in str(e.value) and "interrupted (Ctrl-C)" in str(e.value)
    assert 0.002 < sim.now_s < 0.02
    sim.run_until(0.02)  # goes on, the controller still called
    res = sim.finish()
    fb = res.traces["feedback"]
    assert (fb[fb.rate_before_bps.notna()].time_s > fired[0]).sum() > 1
    # the controller is still called after the interrupt (its hooks, not only the engine's rows)
    assert [c for c in calls if c[1] > fired[0]]


# ------------------------------------------------------------------ the RDMA transport's hooks

def rdma_scenario(cc_name: str, until: float = 0.004, count: int = 2) -> dict:
    """Line-rate RoCE flows (10 Gb/s access) into a 1 Gb/s port that marks above 5 packets: CE
    marks, CNPs (at most one per flow per 50 us) and ACKs."""
    return {"seed": 1, "until_s": until, "packet_bytes": 1000,
            "topology": {"kind": "dumbbell", "senders": count, "bottleneck_bps": 1e9, "access_bps": 10e9,
                         "rtt_s": 8e-6, "buffer_pkts": 100000},
            "aqm": {"kind": "red", "min_th_pkts": 5, "max_th_pkts": 6, "max_p": 1.0, "w_q": 1.0},
            "flows": {"count": count, "cc": cc_name}, "record": {"traces": ["rate", "queue", "delivered"]}}


class LineRate(cc.RateController):
    """The built-in `rdma` kind in Python: line rate, no window, every hook left at its default."""
    rdma = True


def test_an_rdma_controller_with_the_defaults_is_the_built_in_rdma_kind():
    import numpy as np
    cc.register_cc("test_rdma_line", LineRate)
    a = ccscope.simulate(rdma_scenario("rdma"))
    b = ccscope.simulate(rdma_scenario("test_rdma_line"))
    assert a.meta["ledger"] == b.meta["ledger"] and a.meta["events"] == b.meta["events"]
    for t in a.traces:
        assert a.traces[t].equals(b.traces[t]), t
    pd_cols = [c for c in a.flows.columns if c != "cc"]
    assert a.flows[pd_cols].equals(b.flows[pd_cols])
    assert np.asarray(a.flows.ecn_reductions).sum() > 10  # CNPs arrived (and were ignored by both)


def test_rdma_hooks_see_cnps_and_acks_and_the_window_caps_the_flight():
    seen = {"cnp": [], "ack": []}

    class Watch(cc.RateController):
        rdma = True

        def on_cnp(self, now_s):
            seen["cnp"].append((self.ctx.flow, now_s))
            self.rate_bps = max(self.rate_bps / 2, 1e8)

        def on_ack(self, now_s, acked_bytes, ackno, rtt_s, ecn, data_seq):
            seen["ack"].append((now_s, acked_bytes, ackno, rtt_s, ecn, data_seq))
    cc.register_cc("test_rdma_watch", Watch)
    res = ccscope.simulate(rdma_scenario("test_rdma_watch"))
    assert len(seen["cnp"]) == int(res.flows.ecn_reductions.sum()) > 10
    for f in (0, 1):  # the notification point's interval: at most one CNP per flow per 50 us
        ts = [t for k, t in seen["cnp"] if k == f]
        assert all(b - a >= 50e-6 - 1e-12 for a, b in zip(ts, ts[1:]))
    acks = seen["ack"]
    assert len(acks) > 100 and all(4e-6 < a[3] < 0.004 for a in acks)  # rtt_s: at least the propagation
    assert any(a[4] for a in acks) and sum(a[1] for a in acks) > 0
    assert all(isinstance(a[2], int) and a[5] == a[2] - 1 for a in acks)
    # the rate each hook left paces the flow: halved on CNPs, well below line rate
    r = res.traces["rate"]
    assert r.rate_bps.min() <= 2e8

    class Capped(LineRate):
        window_bytes = 1000  # one 1000-byte segment in flight at most

    cc.register_cc("test_rdma_capped", Capped)
    free = ccscope.simulate(rdma_scenario("test_rdma_line", count=1))
    capped = ccscope.simulate(rdma_scenario("test_rdma_capped", count=1))
    # one segment per round trip (8 us + 8 us serialization at 1 Gb/s, and the ACK): at most
    # 1000 B / 16 us = 0.5 Gb/s, against the 1 Gb/s the uncapped flow gets
    assert capped.flows.delivered_bytes.iloc[0] < 0.55 * free.flows.delivered_bytes.iloc[0]


@pytest.mark.parametrize("value,needle", [
    (0, "window_bytes = 0: must be None or a finite number of bytes >= 1"),
    (math.nan, "window_bytes = nan: must be None or a finite number of bytes >= 1"),
    ("big", "window_bytes = 'big' (str): must be a number of bytes (or None) (int or float)"),
])
def test_a_bad_rdma_window_stops_the_run(value, needle):
    class BadWindow(LineRate):
        def on_cnp(self, now_s):
            self.window_bytes = value
    cc.register_cc("test_rdma_badwin", BadWindow)
    with pytest.raises(cc.ControllerError) as e:
        ccscope.simulate(rdma_scenario("test_rdma_badwin"))
    assert 'controller "test_rdma_badwin" (flow[' in str(e.value) and "in on_cnp: " + needle in str(e.value)
