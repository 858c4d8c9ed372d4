"""Interruptible runs: Ctrl-C (SIGINT), and SIGTERM in the CLI, stop a run at an event boundary and
keep what was simulated as a result marked partial; the CLI writes it through the atomic save and
exits 130; batches cancel every item; a run interrupted and resumed equals an uninterrupted one.

Nothing here asserts timing: processes are signalled once their CPU time shows they are simulating
(not after a fixed sleep), and timeouts only keep a broken build from hanging the suite.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import typer

import ccscope as cc
from ccscope import cli

ROOT = Path(__file__).resolve().parents[1]
LONG = ROOT / "scenarios" / "dctcp_dumbbell.toml"
CLI = [sys.executable, "-m", "ccscope"]
#: Upper bound for anything to happen (a hang guard, not a speed requirement).
HANG_S = 180.0
#: CPU seconds a child must have spent past its start-up before it is signalled: it is simulating.
SIMULATING_CPU_S = 1.0


def _default_sigint():
    # a child started from a background job inherits SIGINT ignored; Python then keeps ignoring it
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process, all threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_cpu_s(args: list[str]) -> float:
    """CPU seconds of a whole run of `args` (start-up, build, a tiny run, exit)."""
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    assert p.returncode == 0, p.stderr.read().decode()
    return ru.ru_utime + ru.ru_stime


def wait_cpu(p: subprocess.Popen, at_least_s: float) -> None:
    """Wait until `p` has used `at_least_s` CPU seconds (fails if it exits first)."""
    t0 = time.monotonic()
    while cpu_s(p.pid) < at_least_s:
        if p.poll() is not None:
            out, err = p.communicate()
            pytest.fail(f"exited {p.returncode} before it was signalled:\n{out}\n{err}")
        assert time.monotonic() - t0 < HANG_S, "the child never got to simulating"
        time.sleep(0.02)


def wait_line(p: subprocess.Popen, want: str) -> None:
    line = p.stdout.readline()
    assert line.strip() == want, f"{line!r}\n{p.stderr.read() if p.poll() is not None else ''}"


@pytest.fixture(scope="module")
def cli_startup_cpu_s() -> float:
    """What a complete tiny `ccscope run` costs: past it, a long run is simulating."""
    return child_cpu_s(CLI + ["run", str(LONG), "--until", "1ms", "--quiet"])


def start_cli(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen(CLI + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=_default_sigint)


def leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if ".tmp-" in p.name or ".old-" in p.name)


@pytest.mark.parametrize("sig, quiet", [(signal.SIGINT, True), (signal.SIGTERM, True), (signal.SIGINT, False)],
                         ids=["sigint-quiet", "sigterm-quiet", "sigint-progress"])
def test_cli_run_stopped_by_a_signal_writes_a_partial_result_and_exits_130(tmp_path, cli_startup_cpu_s, sig, quiet):
    out = tmp_path / "v"
    p = start_cli(["run", str(LONG), "--until", "100s", "--out", str(out)] + (["--quiet"] if quiet else []))
    wait_cpu(p, cli_startup_cpu_s + SIMULATING_CPU_S)
    p.send_signal(sig)
    _, err = p.communicate(timeout=HANG_S)
    assert p.returncode == 130, err
    meta = json.loads((out / "meta.json").read_text())
    assert meta["partial"] is True
    at = meta["interrupted_at_s"]
    assert 0 < at < 100 and meta["scheduled_end_s"] == 100
    assert meta["sim_time_s"] == at
    assert f"interrupted at {at:.3g} s of 100 s simulated; partial results written to {out}/" in err
    assert "(meta.json: partial = true)" in err and "Traceback" not in err
    assert leftovers(tmp_path) == []
    res = cc.load(out)
    assert res.summary["sim_time_s"] == at and res.summary["warmup_s"] == pytest.approx(0.2 * at)
    q = res.traces["queue"]
    assert len(q) > 0 and q["time_s"].max() <= at
    led = meta["ledger"]
    assert led["sent"] == led["delivered"] + led["dropped"] + led["in_flight"]


def test_cli_run_without_out_interrupted_writes_nothing(tmp_path, cli_startup_cpu_s):
    p = subprocess.Popen(CLI + ["run", str(LONG), "--until", "100s", "--quiet"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=tmp_path, preexec_fn=_default_sigint)
    wait_cpu(p, cli_startup_cpu_s + SIMULATING_CPU_S)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=HANG_S)
    assert p.returncode == 130, err
    assert "s of 100 s simulated; nothing written (no --out)" in err
    assert list(tmp_path.iterdir()) == []


PY_CHILD = textwrap.dedent("""
    import json, sys
    import ccscope as cc
    cc.simulate, cc.Simulation  # load them now (names load on first use): "start" means simulating next
    path, how = sys.argv[1], sys.argv[2]
    if how == "simulate":
        print("start", flush=True)
        try:
            cc.simulate(path, until_s=100.0)
        except cc.Interrupted as e:
            res = e.result
            print(json.dumps({"kind": type(e).__name__, "keyboard": isinstance(e, KeyboardInterrupt),
                              "message": str(e), "meta": res.meta, "summary_sim_time_s": res.summary["sim_time_s"]}))
    else:
        sim = cc.Simulation(path, until_s=100.0)
        print("start", flush=True)
        try:
            sim.run()
        except KeyboardInterrupt as e:
            now = sim.now_s
            sim.run_until(now + 1e-3)  # intact: it goes on from where it stopped
            assert abs(sim.now_s - (now + 1e-3)) < 1e-11
            sim.run_until(now + 2e-3)
            res = sim.finish()
            print(json.dumps({"kind": type(e).__name__, "now": now, "meta": res.meta}))
""")


def test_simulate_interrupted_raises_interrupted_with_the_partial_result():
    p = subprocess.Popen([sys.executable, "-c", PY_CHILD, str(LONG), "simulate"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=_default_sigint)
    wait_line(p, "start")
    wait_cpu(p, cpu_s(p.pid) + SIMULATING_CPU_S)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=HANG_S)
    assert p.returncode == 0, err
    got = json.loads(out)
    assert got["kind"] == "Interrupted" and got["keyboard"] is True
    meta = got["meta"]
    assert meta["partial"] is True and 0 < meta["interrupted_at_s"] < 100 and meta["scheduled_end_s"] == 100
    assert got["summary_sim_time_s"] == meta["interrupted_at_s"] == meta["sim_time_s"]
    assert got["message"] == f"interrupted at {meta['interrupted_at_s']:.3g} s of 100 s simulated"


def test_simulation_interrupted_stays_intact_and_goes_on():
    p = subprocess.Popen([sys.executable, "-c", PY_CHILD, str(LONG), "simulation"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=_default_sigint)
    wait_line(p, "start")
    wait_cpu(p, cpu_s(p.pid) + SIMULATING_CPU_S)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=HANG_S)
    assert p.returncode == 0, err
    got = json.loads(out)
    assert got["kind"] == "KeyboardInterrupt" and got["now"] > 0
    # resumed to its own target: a complete (not partial) result of that time
    assert got["meta"]["partial"] is False
    assert got["meta"]["sim_time_s"] == pytest.approx(got["now"] + 2e-3)


class _Alarm:
    """SIGALRM every `period_s` of wall time raises KeyboardInterrupt, as Ctrl-C would, but only
    while armed (so it can never land outside the code under test)."""

    def __init__(self, period_s: float):
        self.period_s = period_s
        self.armed = False

    def _fire(self, signum, frame):
        if self.armed:
            raise KeyboardInterrupt

    def __enter__(self):
        self.previous = signal.signal(signal.SIGALRM, self._fire)
        signal.setitimer(signal.ITIMER_REAL, self.period_s, self.period_s)
        return self

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, self.previous)


def _interrupted_run(scenario, until_s: float, record: list[str], targets: list[float]):
    """Run to each target in turn, interrupted again and again; resume after each interrupt."""
    sim = cc.Simulation(scenario, until_s=until_s, record=record)
    stops = []
    with _Alarm(0.01) as alarm:
        for t in targets:
            while True:
                alarm.armed = True
                try:
                    sim.run_until(t)
                    alarm.armed = False
                    break
                except KeyboardInterrupt:
                    alarm.armed = False
                    stops.append(sim.now_s)
    return sim, stops


def _scenario(record_drops: bool):
    # access links slower than the bottleneck with two receivers: the receivers' ports queue and
    # are fed ahead of time (lookahead) when no drop trace is kept
    return cc.scenario.dumbbell(senders=4, receivers=2, cc="dctcp", bottleneck_bps=10e9, access_bps=4e9,
                                rtt_s=100e-6, buffer_pkts=100 if record_drops else 1000,
                                aqm=cc.aqm.threshold(k_pkts=65), start_jitter_s=1e-4, seed=4)


@pytest.mark.parametrize("drops", [False, True], ids=["lookahead", "drop-trace"])
def test_a_run_interrupted_at_arbitrary_event_boundaries_and_resumed_equals_one_run(drops):
    rec = ["queue", "link", "cwnd", "alpha", "delivered"] + (["drops"] if drops else [])
    until = 1.0
    whole = cc.simulate(_scenario(drops), until_s=until, record=rec)
    sim, stops = _interrupted_run(_scenario(drops), until, rec, [until])
    assert len(stops) >= 3, "the run was interrupted several times"
    assert all(0 < a <= b <= until for a, b in zip(stops, stops[1:])), stops
    events = sim.events
    pieces = sim.finish()
    assert pieces.meta["partial"] is False
    for k in rec:
        assert pieces.traces[k].equals(whole.traces[k]), k
    assert pieces.flows.equals(whole.flows) and pieces.ports.equals(whole.ports)
    # the same events, in the same order: interruption only pauses the run
    assert events == whole.meta["events"]


def test_an_interrupted_run_finished_early_is_partial_and_consistent():
    rec = ["queue", "link", "cwnd"]
    sim = cc.Simulation(_scenario(False), until_s=10.0, record=rec)
    with _Alarm(0.05) as alarm:
        alarm.armed = True
        with pytest.raises(KeyboardInterrupt):
            sim.run()
        alarm.armed = False
    now = sim.now_s
    res = sim.finish()
    assert res.meta["partial"] is True and res.meta["interrupted_at_s"] == now == res.meta["sim_time_s"]
    assert res.meta["scheduled_end_s"] == 10.0 and 0 < now < 10.0
    assert res.summary["sim_time_s"] == now
    assert res.traces["queue"]["time_s"].max() <= now
    assert (res.ports["mean_queue_pkts"] <= 1000).all() and (res.ports["mean_queue_pkts"] >= 0).all()


def test_interrupted_pickles_with_its_result():
    import pickle
    sim = cc.Simulation(_scenario(False), until_s=0.002, record=["queue"])
    sim.run_until(0.001)
    sim._interrupted = True  # as after a KeyboardInterrupt in run()
    e = cc.Interrupted(sim.finish())
    back = pickle.loads(pickle.dumps(e))
    assert isinstance(back, KeyboardInterrupt) and str(back) == str(e) == "interrupted at 0.001 s of 0.002 s simulated"
    assert back.result.meta["partial"] is True and back.result.traces["queue"].equals(e.result.traces["queue"])


def test_a_second_interrupt_while_writing_leaves_out_as_it_was(tmp_path, monkeypatch, capsys):
    """Ctrl-C again during the save of a partial result: --out keeps the previous result, whole,
    and no temporary directory is left."""
    import pyarrow.parquet as pq
    out = tmp_path / "v"
    cc.simulate(_scenario(False), until_s=0.001, record=["queue"]).save(out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    sim = cc.Simulation(_scenario(False), until_s=10.0, record=["queue", "link"])
    with _Alarm(0.05) as alarm:
        alarm.armed = True
        with pytest.raises(KeyboardInterrupt):
            sim.run()
        alarm.armed = False
    calls = []
    real = pq.write_table  # every Parquet file of a result goes through it (from columns or DataFrames)

    def second_ctrl_c(*a, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(pq, "write_table", second_ctrl_c)
    with pytest.raises(typer.Exit) as ex:
        cli._finish_interrupted(sim, out)
    assert ex.value.exit_code == 130
    assert "interrupted again while writing: nothing written" in capsys.readouterr().err
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert leftovers(tmp_path) == []


MANY_CHILD = textwrap.dedent("""
    import json, os, sys, time
    import ccscope as cc
    path, executor = sys.argv[1], sys.argv[2]
    print("start", flush=True)
    caught = None
    try:
        cc.simulate_many([path] * 4, until_s=100.0, jobs=2, executor=executor)
    except KeyboardInterrupt as e:
        caught = type(e).__name__
    def comm(t):
        # a thread may end between the listing and the read
        try:
            return open(f"/proc/self/task/{t}/comm").read()
        except FileNotFoundError:
            return ""
    def sim_threads():
        return [t for t in os.listdir("/proc/self/task") if comm(t).startswith("ccscope-sim")]
    import multiprocessing
    t0 = time.monotonic()
    while (sim_threads() or multiprocessing.active_children()) and time.monotonic() - t0 < 60:
        time.sleep(0.05)
    print(json.dumps({"caught": caught, "threads": len(sim_threads()),
                      "children": len(multiprocessing.active_children())}))
""")


@pytest.mark.parametrize("executor", ["thread", "process"])
def test_simulate_many_interrupted_cancels_every_item_and_leaves_no_worker(executor):
    p = subprocess.Popen([sys.executable, "-c", MANY_CHILD, str(LONG), executor], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=_default_sigint,
                         start_new_session=True)
    wait_line(p, "start")
    if executor == "thread":
        wait_cpu(p, cpu_s(p.pid) + 2 * SIMULATING_CPU_S)
        p.send_signal(signal.SIGINT)
    else:
        # the workers are separate processes: wait until they simulate, then Ctrl-C the group,
        # as a terminal does
        time.sleep(0.1)
        t0 = time.monotonic()
        while True:
            kids = [int(k) for k in Path(f"/proc/{p.pid}/task/{p.pid}/children").read_text().split()]
            busy = [k for k in kids if _cpu_or_zero(k) > 2 * SIMULATING_CPU_S]
            if len(busy) >= 1:
                break
            assert p.poll() is None and time.monotonic() - t0 < HANG_S
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=HANG_S)
    assert p.returncode == 0, err
    got = json.loads(out.strip().splitlines()[-1])
    assert got["caught"] in ("KeyboardInterrupt", "Interrupted")
    assert got["threads"] == 0 and got["children"] == 0


def _cpu_or_zero(pid: int) -> float:
    """cpu_s of a process that is not ours and may be gone by the time it is read."""
    try:
        return cpu_s(pid) if _alive(pid) else 0.0
    except OSError:
        return 0.0


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("after_cpu_s", [0.0, 0.1, 0.3, 0.6])
def test_ctrl_c_while_the_cli_starts_ends_quietly(after_cpu_s):
    # a Ctrl-C while the command line loads its libraries printed a KeyboardInterrupt traceback;
    # it now ends with "interrupted" and status 130 (or, if the command finished first, 0)
    p = subprocess.Popen(CLI + ["scenario", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=ROOT, preexec_fn=_default_sigint)
    t0 = time.monotonic()
    while p.poll() is None and cpu_s(p.pid) < after_cpu_s and time.monotonic() - t0 < HANG_S:
        time.sleep(0.005)
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=HANG_S)
    assert "Traceback" not in err, err
    # -SIGINT: the signal came before the interpreter installed its handler (nothing printed)
    assert p.returncode in (0, 130, -signal.SIGINT), (p.returncode, err)
    if p.returncode == 130 and err.strip():  # (empty: the signal came as the interpreter exited)
        assert err.strip().endswith("interrupted"), err


def test_import_ccscope_loads_no_heavy_library():
    # names load on first use: `import ccscope` (and the CLI's first instant) pulls in no numpy,
    # pandas, matplotlib or jax
    code = ("import sys, ccscope; heavy = [m for m in ('numpy', 'pandas', 'matplotlib', 'jax', 'scipy') "
            "if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "", out.stdout
    code = "import ccscope as cc; print(cc.simulate.__module__, cc.ScenarioError.__module__, cc.fluid.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["ccscope.sim", "ccscope.errors", "ccscope.fluid"]
