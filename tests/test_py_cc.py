"""Python congestion controllers (ccscope.cc): registration, selection by name, the errors of a
bad controller (named controller, flow, simulated time, hook, and the user's traceback; nothing
written), the seeded random stream, and `--plugin` on `ccscope run` and `ccscope sweep`.
Equivalence with the built-ins: test_py_cc_equivalence.py."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ccscope
from ccscope import cc

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "ccscope"]


def scenario(cc_name: str, until: float = 0.01, **flows) -> dict:
    return {"seed": 1, "until_s": until,
            "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4, "buffer_pkts": 50},
            "flows": {"count": 2, "cc": cc_name, **flows}}


class Aimd(cc.Controller):
    """+1 MSS per window, halve on any congestion."""
    def on_ack(self, now_s, acked_bytes, ece, rtt_s, flight_bytes, in_recovery, snd_una, snd_nxt):
        self.cwnd_bytes += self.mss * acked_bytes / self.cwnd_bytes

    def on_congestion(self, now_s, kind, flight_bytes):
        self.cwnd_bytes = max(self.cwnd_bytes / 2, self.mss)


def test_a_registered_class_runs_by_name_and_per_flow():
    cc.register_cc("test_aimd", Aimd)
    res = ccscope.simulate(scenario("test_aimd"))
    assert list(res.flows["cc"]) == ["test_aimd", "test_aimd"]
    assert (res.flows["throughput_bps"] > 0).all()
    # one flow of each, listed per flow
    sc = scenario("new_reno")
    del sc["flows"]
    sc["topology"]["senders"] = 2
    sc["flow"] = [{"src": "s0", "dst": "r0", "cc": "test_aimd"}, {"src": "s1", "dst": "r0", "cc": "new_reno"}]
    res = ccscope.simulate(sc)
    assert list(res.flows["cc"]) == ["test_aimd", "new_reno"]


def test_built_in_names_cannot_be_registered_and_unknown_names_list_both():
    with pytest.raises(ValueError, match="'dctcp' is a built-in controller"):
        cc.register_cc("dctcp", Aimd)
    with pytest.raises(TypeError, match="not a class"):
        cc.register_cc("x_inst", Aimd.__new__(Aimd))

    class NoHooks:
        pass
    with pytest.raises(TypeError, match="no method on_ack, on_dup_ack, on_congestion, on_recovery_end"):
        cc.register_cc("x_nohooks", NoHooks)

    class BadFlag(cc.Controller):
        ecn = "yes"
    with pytest.raises(TypeError, match="ecn = 'yes': must be True or False"):
        cc.register_cc("x_badflag", BadFlag)
    cc.register_cc("test_aimd", Aimd)
    with pytest.raises(ccscope.ScenarioError) as e:
        ccscope.simulate(scenario("bbr"))
    msg = str(e.value)
    assert msg.startswith("flows.cc: unknown variant `bbr`, expected one of `new_reno`")
    assert "registered controllers:" in msg and "`test_aimd`" in msg


def _fails_with(cls, *needles, name="test_bad"):
    cc.register_cc(name, cls)
    with pytest.raises(cc.ControllerError) as e:
        ccscope.simulate(scenario(name))
    msg = str(e.value)
    assert isinstance(e.value, ccscope.SimulationError)
    for n in needles:
        assert n in msg, msg
    return msg


def test_an_exception_in_a_hook_names_controller_flow_time_and_traceback():
    class Raises(Aimd):
        def on_ack(self, now_s, acked_bytes, ece, rtt_s, flight_bytes, in_recovery, snd_una, snd_nxt):
            if now_s > 0.002:
                raise KeyError("boom_in_user_code")
            super().on_ack(now_s, acked_bytes, ece, rtt_s, flight_bytes, in_recovery, snd_una, snd_nxt)
    msg = _fails_with(Raises, 'controller "test_bad" (flow[', "in on_ack", "boom_in_user_code",
                      "Traceback (most recent call last)", "test_py_cc.py")
    t = float(msg.split("at t = ")[1].split(" s")[0])
    assert 0.002 < t < 0.0025


@pytest.mark.parametrize("value,needle", [
    (math.nan, "cwnd_bytes = nan: must be a finite number of bytes > 0"),
    (-3000.0, "cwnd_bytes = -3000.0: must be a finite number of bytes > 0"),
    (0, "cwnd_bytes = 0: must be a finite number of bytes > 0"),
    ("12", "cwnd_bytes = '12' (str): must be a number of bytes (int or float)"),
    (True, "cwnd_bytes = True (bool): must be a number of bytes (int or float)"),
])
def test_a_bad_window_stops_the_run(value, needle):
    class Bad(Aimd):
        def on_ack(self, now_s, *rest):
            self.cwnd_bytes = value if now_s > 0.001 else self.cwnd_bytes
    _fails_with(Bad, needle, "in on_ack", "at t = 0.001")


def test_a_bad_return_value_and_a_failing_constructor():
    class Returns(Aimd):
        def on_congestion(self, now_s, kind, flight_bytes):
            return [kind]
    sc = scenario("test_ret")
    sc["topology"]["buffer_pkts"] = 5  # losses: on_congestion is called
    cc.register_cc("test_ret", Returns)
    with pytest.raises(cc.ControllerError, match=r"in on_congestion: the value on_congestion returned = \['fast_retransmit'\]"):
        ccscope.simulate(sc)

    class Ctor(cc.Controller):
        def __init__(self, ctx):
            raise RuntimeError("no ctor today")
    cc.register_cc("test_ctor", Ctor)
    with pytest.raises(cc.ControllerError, match=r'controller "test_ctor" \(flow\[0\]\), in __init__: (.|\n)*no ctor today'):
        ccscope.Simulation(scenario("test_ctor"))


def test_the_random_stream_is_seeded_per_flow():
    draws: dict[int, list[float]] = {}

    class Noisy(Aimd):
        def __init__(self, ctx):
            super().__init__(ctx)
            draws.setdefault(ctx.flow, []).append(ctx.rng.random())

        def on_ack(self, now_s, acked_bytes, *rest):
            self.cwnd_bytes += self.mss * acked_bytes / self.cwnd_bytes * (0.5 + self.ctx.rng.random())
    cc.register_cc("test_noisy", Noisy)
    a = ccscope.simulate(scenario("test_noisy"))
    b = ccscope.simulate(scenario("test_noisy"))
    assert a.flows["final_cwnd_pkts"].tolist() == b.flows["final_cwnd_pkts"].tolist()
    assert draws[0][0] == draws[0][1] and draws[0][0] != draws[1][0]
    sc = scenario("test_noisy")
    sc["seed"] = 2
    c = ccscope.simulate(sc)
    assert c.flows["final_cwnd_pkts"].tolist() != a.flows["final_cwnd_pkts"].tolist()


PLUGIN = textwrap.dedent("""
    from ccscope import cc

    class Broken(cc.Controller):
        def on_ack(self, now_s, *rest):
            if now_s > 0.003:
                return float("nan")

    cc.register_cc("plugin_broken", Broken)
    """)


def test_cli_plugin_run_and_a_failing_controller_writes_nothing(tmp_path):
    plug = tmp_path / "myplugin.py"
    plug.write_text(PLUGIN)
    sc = tmp_path / "s.json"
    sc.write_text(json.dumps(scenario("py_dctcp", until=0.005)))
    ok = subprocess.run(CLI + ["run", str(sc), "-q", "--plugin", str(ROOT / "examples/controllers/dctcp.py"),
                               "-o", str(tmp_path / "ok")], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "ok" / "flows.parquet").exists() or any((tmp_path / "ok").iterdir())
    sc.write_text(json.dumps(scenario("plugin_broken", until=0.005)))
    bad = subprocess.run(CLI + ["run", str(sc), "-q", "--plugin", str(plug), "-o", str(tmp_path / "bad")],
                         capture_output=True, text=True)
    assert bad.returncode == 1, bad.stderr
    assert 'controller "plugin_broken" (flow[' in bad.stderr and "in on_ack: the value on_ack returned = nan" in bad.stderr
    assert not (tmp_path / "bad").exists() or not any((tmp_path / "bad").iterdir())
    missing = subprocess.run(CLI + ["run", str(sc), "-q"], capture_output=True, text=True)
    assert missing.returncode == 2 and "unknown variant `plugin_broken`" in missing.stderr
    assert "Traceback" not in missing.stderr
    for cmd in (["scenario", "validate"], ["scenario", "expand"]):
        r = subprocess.run(CLI + cmd + [str(sc), "--plugin", str(plug)], capture_output=True, text=True)
        assert r.returncode == 0, (cmd, r.stderr)
    crash = tmp_path / "crash.py"
    crash.write_text("raise ImportError('plugin cannot start')\n")
    r = subprocess.run(CLI + ["run", str(sc), "-q", "--plugin", str(crash)], capture_output=True, text=True)
    assert r.returncode == 2 and f"--plugin {str(crash)!r}: importing it failed" in r.stderr
    assert "plugin cannot start" in r.stderr


def test_cli_sweep_plugin(tmp_path):
    sc = tmp_path / "s.json"
    sc.write_text(json.dumps(scenario("py_new_reno", until=0.005)))
    r = subprocess.run(CLI + ["sweep", str(sc), "--grid", "topology.buffer_pkts=20,40", "-q", "-j", "2",
                              "--plugin", str(ROOT / "examples/controllers/new_reno.py"), "-o", str(tmp_path / "sw")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "sw" / "summary.parquet").exists()


def test_sweep_keys_follow_the_controller_source(tmp_path):
    """A point that runs a Python controller is keyed by the controller's source too: an edit of
    the controller is a new point; built-in-only keys are unchanged."""
    from ccscope.sweep import point_key
    sc = scenario("built_in_free")
    plain = point_key(scenario("dctcp"), until_s=0.01, record=None, seed=1)
    assert plain == point_key(scenario("dctcp"), until_s=0.01, record=None, seed=1)
    keys = []
    for k, body in enumerate(["self.cwnd_bytes += 1", "self.cwnd_bytes += 2"]):
        f = tmp_path / f"v{k}" / "ctl.py"
        f.parent.mkdir()
        f.write_text("from ccscope import cc\n\nclass C(cc.Controller):\n"
                     f"    def on_ack(self, *a):\n        {body}\n\ncc.register_cc('built_in_free', C)\n")
        cc.load_plugin(str(f))
        keys.append(point_key(sc, until_s=0.01, record=None, seed=1))
    assert keys[0] != keys[1]
    assert cc.used_controllers(sc) == ["built_in_free"] and cc.used_controllers(scenario("dctcp")) == []


def test_every_hook_sees_the_simulated_time_of_its_event():
    """ECN-Echo cuts and the end of recovery carry the time of the ACK that triggered them (the
    transport once passed time zero for an ECN cut)."""
    seen: list[tuple[str, float]] = []

    class Log(Aimd):
        ecn = True

        def on_ack(self, now_s, *rest):
            seen.append(("ack", now_s))
            return super().on_ack(now_s, *rest)

        def on_congestion(self, now_s, kind, flight_bytes):
            seen.append((kind, now_s))
            return super().on_congestion(now_s, kind, flight_bytes)

        def on_recovery_end(self, now_s, flight_bytes):
            seen.append(("end", now_s))
    cc.register_cc("test_log", Log)
    sc = scenario("test_log", until=0.02)
    sc["aqm"] = {"kind": "threshold", "k_pkts": 10}
    ccscope.simulate(sc)
    kinds = {k for k, _ in seen}
    assert "ecn" in kinds, kinds
    assert all(t > 0 for k, t in seen if k != "ack")
    times = [t for _, t in seen]
    assert times == sorted(times)


def test_a_ctrl_c_inside_a_hook_is_an_interrupt_not_a_controller_error():
    """A Ctrl-C lands in the Python hook that is running (most of a Python-controller run is
    spent there): the run stops as at any Ctrl-C (KeyboardInterrupt, the simulation at an event
    boundary, resumable), not with a ControllerError."""
    fired = []

    class Interrupts(Aimd):
        def on_ack(self, now_s, *rest):
            if now_s > 0.002 and not fired:
                fired.append(now_s)
                raise KeyboardInterrupt
            return super().on_ack(now_s, *rest)
    cc.register_cc("test_sigint", Interrupts)
    sim = ccscope.Simulation(scenario("test_sigint"))
    with pytest.raises(KeyboardInterrupt) as e:
        sim.run_until(0.01)
    assert not isinstance(e.value, cc.ControllerError)
    assert 'controller "test_sigint"' in str(e.value) and "interrupted (Ctrl-C)" in str(e.value)
    assert 0.002 < sim.now_s < 0.01
    sim.run_until(0.01)  # goes on
    res = sim.finish()
    assert (res.flows["throughput_bps"] > 0).all()
