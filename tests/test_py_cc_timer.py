"""A window controller's own timer: `deadline_s` and `on_timer`, as a rate controller's.

A class that overrides `on_timer` has its `deadline_s` read after every hook; the engine calls
`on_timer(now_s)` once the simulated time reaches the deadline it read last (a deadline moved
later cancels the earlier one), then sends what the new window allows. A class that does not
override it pays nothing and its run is unchanged: NewReno with a timer that is never armed is
bit-identical to the built-in."""
from __future__ import annotations

from pathlib import Path

import pytest

import ccscope
from ccscope import cc

ROOT = Path(__file__).resolve().parents[1]

BASE = {"seed": 1, "until_s": 0.02, "packet_bytes": 1500,
        "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 100e-6, "buffer_pkts": 30},
        "flows": {"count": 2, "cc": "new_reno"}}


def test_on_timer_runs_at_each_deadline_and_its_window_is_used():
    """A periodic timer every 1 ms (rounded to the engine's picosecond clock): each flow's on_timer
    runs exactly at its deadlines, in order, whether or not ACKs arrive; the window it sets there is
    the one the sender uses (the flow whose timer halves the window delivers less)."""
    calls = []

    class Ticker(cc.Controller):
        period_s = 1e-3
        cut = False

        def __init__(self, ctx):
            super().__init__(ctx)
            self.deadline_s = self.period_s

        def on_ack(self, now_s, acked_bytes, ece, rtt_s, flight_bytes, in_recovery, snd_una, snd_nxt):
            self.cwnd_bytes += self.mss * acked_bytes / self.cwnd_bytes

        def on_congestion(self, now_s, kind, flight_bytes):
            self.cwnd_bytes = max(self.cwnd_bytes / 2, self.mss)

        def on_timer(self, now_s):
            calls.append((self.ctx.flow, now_s, self.deadline_s))
            if self.cut:
                self.cwnd_bytes = max(self.cwnd_bytes / 2, self.mss)
            self.deadline_s = now_s + self.period_s

    class Cutter(Ticker):
        cut = True

    cc.register_cc("timer_ticker", Ticker)
    cc.register_cc("timer_cutter", Cutter)
    s = {**BASE, "topology": {**BASE["topology"], "senders": 2}, "flow": [
        {"src": "s0", "dst": "r0", "cc": "timer_ticker"}, {"src": "s1", "dst": "r0", "cc": "timer_cutter"}]}
    del s["flows"]
    r = ccscope.simulate(s)
    for f in (0, 1):
        mine = [(t, d) for g, t, d in calls if g == f]
        assert len(mine) == 20  # 1, 2, ..., 20 ms: events at until_s run
        for k, (t, d) in enumerate(mine, start=1):
            assert abs(t - d) < 1e-12 and abs(t - k * 1e-3) < 1e-9 * k
    assert all(a[1] <= b[1] for a, b in zip(calls, calls[1:]))
    got = r.flows["delivered_bytes"].tolist()
    assert got[1] < 0.8 * got[0], got


def test_a_timer_never_armed_leaves_the_run_bit_identical():
    """py_new_reno with an on_timer whose deadline stays None: every table equals the built-in's."""
    cc.load_plugin(str(ROOT / "examples" / "controllers" / "new_reno.py"))
    Reno = cc.registered()["py_new_reno"]

    class Idle(Reno):
        def on_timer(self, now_s):
            raise AssertionError("never called")

    cc.register_cc("timer_idle_reno", Idle)
    rec = ["cwnd", "queue", "delivered", "drops"]
    a = ccscope.simulate(BASE, record=rec)
    b = ccscope.simulate({**BASE, "flows": {"count": 2, "cc": "timer_idle_reno"}}, record=rec)
    for name in ("cwnd", "queue", "delivered", "drops"):
        assert a.traces[name].equals(b.traces[name]), name
    assert a.flows.drop(columns="cc").equals(b.flows.drop(columns="cc"))
    assert a.summary["events"] == b.summary["events"]


@pytest.mark.parametrize("where, deadline, needle", [
    ("timer", "same", "in on_timer: deadline_s = "),
    ("ack", "past", "in on_ack: deadline_s = "),
    ("ack", "nan", "in on_ack: deadline_s = nan"),
])
def test_a_bad_deadline_stops_the_run_naming_the_hook(where, deadline, needle):
    class Bad(cc.Controller):
        def __init__(self, ctx):
            super().__init__(ctx)
            self.deadline_s = 1e-3

        def _set(self, now_s):
            self.deadline_s = {"same": now_s, "past": now_s - 1e-3, "nan": float("nan")}[deadline]

        def on_ack(self, now_s, acked_bytes, ece, rtt_s, flight_bytes, in_recovery, snd_una, snd_nxt):
            if where == "ack" and now_s > 2e-3:
                self._set(now_s)

        def on_timer(self, now_s):
            if where == "timer":
                self._set(now_s)
            else:
                self.deadline_s = now_s + 1e-3

    name = f"timer_bad_{where}_{deadline}"
    cc.register_cc(name, Bad)
    with pytest.raises(cc.ControllerError) as e:
        ccscope.simulate({**BASE, "flows": {"count": 2, "cc": name}})
    first = str(e.value).splitlines()[0]
    assert first.startswith(f'controller "{name}" (flow[') and needle in first, first


def test_on_timer_without_deadline_s_is_refused_at_registration():
    class NoDeadline:
        def on_ack(self, *a): ...
        def on_dup_ack(self, *a): ...
        def on_congestion(self, *a): ...
        def on_recovery_end(self, *a): ...
        def on_timer(self, now_s): ...

    with pytest.raises(TypeError, match="on_timer but no deadline_s"):
        cc.register_cc("timer_no_deadline", NoDeadline, kind="window")
    assert "timer_no_deadline" not in cc.registered()
