"""Interrupting a sweep: Ctrl-C (SIGINT) or SIGTERM stops `ccscope sweep` whatever --jobs (points on
worker threads look at a stop flag between slices of their run, since signals reach only the main
thread), keeps the finished points complete and verified, leaves no half-written point and no
temporary directory, says how many points are done and exits 130; rerunning the same command runs
exactly the unfinished points and gives the summary of an uninterrupted sweep.

Nothing here asserts timing: the sweep is signalled once its short points are on disk and its CPU
time shows the long ones are simulating (not after a fixed sleep); timeouts only guard against hangs.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

import ccscope as cc
import ccscope.sweep as sw
from ccscope.scenario.io import load_file

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios" / "dctcp_dumbbell.toml"
CLI = [sys.executable, "-m", "ccscope"]
#: Upper bound for anything to happen (a hang guard, not a speed requirement).
HANG_S = 300.0
#: Coarse recording, so that long points stay small on disk.
LIGHT = ["--set", "record.queue_interval_s=0.01", "--set", "record.flow_interval_s=0.01", "--record", "queue"]
#: Simulated seconds of a long point: seconds of CPU each, far more than it takes to signal it.
LONG_S = 15
#: Two short points, then two long ones: with --jobs 2 the long ones start once the short ones are done.
GRID = ["--grid", f"until_s=0.002,0.003,{LONG_S},{LONG_S + 1}"]
#: CPU seconds the sweep must spend past the short points before it is signalled: the long ones run.
SIMULATING_CPU_S = 0.5


def _default_sigint():
    # a child started from a background job inherits SIGINT ignored; Python then keeps ignoring it
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process, all threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(CLI + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                            preexec_fn=_default_sigint)


def wait_for(p: subprocess.Popen, ready) -> None:
    """Wait until `ready()` (fails if `p` exits first)."""
    t0 = time.monotonic()
    while not ready():
        if p.poll() is not None:
            out, err = p.communicate()
            pytest.fail(f"exited {p.returncode} before it was signalled:\n{out}\n{err}")
        assert time.monotonic() - t0 < HANG_S, "the sweep never got to simulating"
        time.sleep(0.02)


def finished_points(out: Path) -> list[str]:
    d = out / "points"
    return sorted(x.name for x in d.iterdir() if not x.name.startswith(".")) if d.is_dir() else []


def leftovers(out: Path) -> list[str]:
    """Anything a stopped point may have left: temporary or old copies, a point without point.json."""
    bad = [str(p.relative_to(out)) for p in out.rglob("*") if ".tmp-" in p.name or ".old-" in p.name]
    bad += [f"points/{n} (no point.json)" for n in finished_points(out) if not (out / "points" / n / "point.json").is_file()]
    return sorted(bad)


def interrupt(p: subprocess.Popen, sig: int) -> tuple[str, str]:
    p.send_signal(sig)
    try:
        return p.communicate(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        pytest.fail(f"the sweep did not stop after the signal:\n{out}\n{err}")


def comparable(t: pd.DataFrame) -> pd.DataFrame:
    return t.drop(columns=[*sw.NONDETERMINISTIC_COLUMNS]).reset_index(drop=True)


def test_interrupted_sweep_keeps_finished_points_and_a_rerun_completes_it(tmp_path):
    out = tmp_path / "s"
    args = ["sweep", str(SCEN), *GRID, *LIGHT, "--jobs", "2", "--out", str(out), "--quiet"]
    p = start(args, tmp_path)
    wait_for(p, lambda: len(finished_points(out)) == 2)  # the short points are done
    at = cpu_s(p.pid)
    wait_for(p, lambda: cpu_s(p.pid) >= at + SIMULATING_CPU_S)  # the long ones are simulating
    _, err = interrupt(p, signal.SIGINT)
    assert p.returncode == 130, err
    assert "Traceback" not in err
    m = re.search(r"interrupted: rerun the same command to resume: (\d+) of 4 points done", err)
    assert m, err
    done = finished_points(out)
    assert int(m.group(1)) == len(done) == 2, (err, done)
    assert leftovers(out) == []
    assert not (out / "summary.parquet").exists()  # written for a whole sweep only

    v = subprocess.run(CLI + ["sweep", "--verify", str(out)], capture_output=True, text=True, cwd=tmp_path,
                       timeout=HANG_S)
    assert v.returncode == 0 and "2 checked: 2 ok, 0 bad" in v.stdout, v.stdout + v.stderr

    again = subprocess.run(CLI + args, capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S)
    assert again.returncode == 0, again.stderr
    assert "4 points: 2 run, 2 from the cache, 0 failed" in again.stdout, again.stdout
    assert set(done) < set(finished_points(out)) and len(finished_points(out)) == 4

    ref = subprocess.run(CLI + [*args[:-3], "--out", str(tmp_path / "ref"), "--quiet"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=HANG_S)
    assert ref.returncode == 0, ref.stderr
    resumed, whole = pd.read_parquet(out / "summary.parquet"), pd.read_parquet(tmp_path / "ref" / "summary.parquet")
    assert resumed["cached"].tolist() == [True, True, False, False]
    pd.testing.assert_frame_equal(comparable(resumed), comparable(whole))
    for c in ("bottleneck_utilization", "queue_mean_pkts", "throughput_mean_bps", "marks", "events"):
        assert resumed.loc[2:, c].notna().all() and (resumed.loc[2:, c] > 0).all(), c  # whole runs' numbers


@pytest.mark.parametrize("sig, jobs, quiet", [(signal.SIGTERM, 2, True), (signal.SIGINT, 3, False),
                                              (signal.SIGINT, 1, True)],
                         ids=["sigterm-jobs2", "sigint-jobs3-progress", "sigint-jobs1"])
def test_a_signal_stops_running_points_and_leaves_nothing_half_written(tmp_path, sig, jobs, quiet):
    out = tmp_path / "s"
    args = ["sweep", str(SCEN), "--grid", f"until_s={LONG_S},{LONG_S + 1}", *LIGHT, "--jobs", str(jobs),
            "--out", str(out)] + (["--quiet"] if quiet else [])
    p = start(args, tmp_path)
    wait_for(p, lambda: (out / "sweep.json").is_file())  # the points are about to start
    at = cpu_s(p.pid)
    wait_for(p, lambda: cpu_s(p.pid) >= at + SIMULATING_CPU_S)
    _, err = interrupt(p, sig)
    assert p.returncode == 130, err
    assert "Traceback" not in err
    assert "interrupted: rerun the same command to resume: 0 of 2 points done" in err, err
    assert finished_points(out) == [] and leftovers(out) == []


def test_a_sweep_on_a_local_dask_cluster_stops_its_running_points_and_leaves_no_worker(tmp_path):
    """--dask-local: SIGTERM to the sweep alone (`timeout`, a job scheduler) sets the sweep's stop
    event, cancels the points and stops the cluster: exit 130, no worker left."""
    pytest.importorskip("distributed")
    psutil = pytest.importorskip("psutil")
    out = tmp_path / "s"
    p = start(["sweep", str(SCEN), "--grid", f"until_s={LONG_S},{LONG_S + 1}", *LIGHT, "--dask-local", "2",
               "--out", str(out), "--quiet"], tmp_path)
    me = psutil.Process(p.pid)

    def workers_cpu_s() -> float:
        total = 0.0
        for c in me.children(recursive=True):
            try:
                t = c.cpu_times()
                total += t.user + t.system
            except psutil.Error:  # a process that ended meanwhile
                pass
        return total
    wait_for(p, lambda: (out / "sweep.json").is_file() and len(me.children(recursive=True)) >= 2)
    at = workers_cpu_s()
    wait_for(p, lambda: workers_cpu_s() >= at + 2 * SIMULATING_CPU_S)  # the points are simulating
    children = me.children(recursive=True)
    _, err = interrupt(p, signal.SIGTERM)
    assert p.returncode == 130, err
    assert "interrupted: rerun the same command to resume: 0 of 2 points done" in err, err
    assert finished_points(out) == [] and leftovers(out) == []
    gone, alive = psutil.wait_procs(children, timeout=HANG_S)
    assert alive == [], alive


# --------------------------------------------------------------------------- a terminal's Ctrl-C on Dask
# A terminal sends SIGINT to every process of the foreground job. The local Dask cluster runs in a
# session of its own, so only the sweep gets it, and the sweep stops the cluster: no traceback or
# KeyboardInterrupt from Dask's processes, and none of them alive once the sweep has exited.

#: One short point, then two long ones (2 workers: the second long one starts after the short one).
DASK_GRID = ["--grid", f"until_s=0.002,{LONG_S},{LONG_S + 1}"]


def start_job(args: list[str], cwd: Path) -> subprocess.Popen:
    """The sweep as a terminal starts a job: a process group of its own (its id is the sweep's pid)."""
    return subprocess.Popen(CLI + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                            start_new_session=True, preexec_fn=_default_sigint)


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # ended meanwhile
        return None


def live_session(sid: int) -> list[int]:
    """Processes (not zombies) of session `sid`."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None and st[0] != "Z" and int(st[3]) == sid:
                out.append(int(name))
    return out


def cluster_host(sweep_pid: int) -> int | None:
    """The child of the sweep that holds its local cluster (a session leader), or None."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            try:
                cmd = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            if st is not None and int(st[1]) == sweep_pid and b"ccscope._dask_host" in cmd:
                return int(name)
    return None


def workers_cpu_s(host: int) -> float:
    total = 0.0
    for pid in live_session(host):
        if pid != host:
            try:
                total += cpu_s(pid)
            except (OSError, IndexError):
                pass
    return total


@pytest.fixture(scope="module")
def dask_reference(tmp_path_factory) -> pd.DataFrame:
    """The summary of DASK_GRID run whole (local threads: the table is the same whatever executor)."""
    d = tmp_path_factory.mktemp("ref")
    ref = subprocess.run(CLI + ["sweep", str(SCEN), *DASK_GRID, *LIGHT, "--jobs", "2", "--out", str(d / "s"),
                                "--quiet"], capture_output=True, text=True, cwd=d, timeout=HANG_S)
    assert ref.returncode == 0, ref.stderr
    return pd.read_parquet(d / "s" / "summary.parquet")


@pytest.mark.parametrize("moment", ["cluster-starting", "workers-spawned", "points-running"])
def test_a_terminals_ctrl_c_stops_a_dask_sweep_with_no_traceback_and_no_process_left(tmp_path, moment,
                                                                                      dask_reference):
    pytest.importorskip("distributed")
    out = tmp_path / "s"
    args = ["sweep", str(SCEN), *DASK_GRID, *LIGHT, "--dask-local", "2", "--out", str(out), "--quiet"]
    p = start_job(args, tmp_path)
    box: dict = {}

    def host_started() -> bool:
        box["host"] = box.get("host") or cluster_host(p.pid)
        return box["host"] is not None
    wait_for(p, host_started)
    host = box["host"]
    if moment == "workers-spawned":  # a half-started cluster: worker processes, not all of them ready
        wait_for(p, lambda: len(live_session(host)) >= 2)
    elif moment == "points-running":
        wait_for(p, lambda: len(finished_points(out)) == 1)  # the short point is done
        at = workers_cpu_s(host)
        wait_for(p, lambda: workers_cpu_s(host) >= at + 2 * SIMULATING_CPU_S)  # the long ones simulate
    os.killpg(p.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    try:
        _, err = p.communicate(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        pytest.fail(f"the sweep did not stop after Ctrl-C: {p.communicate()}")
    # the sweep has exited: no process of its cluster is left (none can finish a point now)
    assert live_session(host) == [], [Path(f"/proc/{q}/cmdline").read_bytes() for q in live_session(host)]
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    done = 1 if moment == "points-running" else 0
    assert f"interrupted: rerun the same command to resume: {done} of 3 points done" in err, err
    assert len(finished_points(out)) == done
    assert leftovers(out) == [] and [n for n in os.listdir(out) if n.startswith(".")] == []

    again = subprocess.run(CLI + args, capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S)
    assert again.returncode == 0, again.stderr
    assert f"3 points: {3 - done} run, {done} from the cache, 0 failed" in again.stdout, again.stdout
    assert "Traceback" not in again.stderr, again.stderr
    pd.testing.assert_frame_equal(comparable(pd.read_parquet(out / "summary.parquet")), comparable(dask_reference))


#: A sweep on --dask-local 2 that gets Ctrl-C 50 ms after its cluster has said its address (while
#: the client connects): before the client was made in a thread of its own, a half-made client
#: retried against the stopped cluster and logged a traceback at exit (2 runs of 6).
CTRL_C_WHILE_CONNECTING = """
import os, signal, sys, threading, time
import ccscope.sweep as sw
from ccscope.scenario.io import load_file
read = sw._read_address
def read_then_ctrl_c(*a):
    address = read(*a)
    threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
    return address
sw._read_address = read_then_ctrl_c
try:
    sw.sweep(load_file(sys.argv[1]), {"until_s": [15, 16]}, out=sys.argv[2], dask_local=2)
except sw.SweepInterrupted as e:
    print("stopped:", e)
"""


def test_ctrl_c_while_the_client_connects_leaves_no_traceback(tmp_path):
    pytest.importorskip("distributed")
    for i in range(2):
        r = subprocess.run([sys.executable, "-c", CTRL_C_WHILE_CONNECTING, str(SCEN), str(tmp_path / f"s{i}")],
                           capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S, preexec_fn=_default_sigint)
        assert r.returncode == 0 and "stopped: sweep interrupted: 0 of 2 points done" in r.stdout, r.stdout + r.stderr
        assert "Traceback" not in r.stderr and "ERROR" not in r.stderr, r.stderr
        assert leftovers(tmp_path / f"s{i}") == []


def test_a_killed_dask_sweep_leaves_no_process_of_its_cluster(tmp_path):
    """kill -9 of the sweep cannot stop anything itself: its cluster's host sees its stdin closed,
    kills its session and removes the cluster's staging directory; the next run completes the sweep."""
    pytest.importorskip("distributed")
    out = tmp_path / "s"
    args = ["sweep", str(SCEN), *DASK_GRID, *LIGHT, "--dask-local", "2", "--out", str(out), "--quiet"]
    p = start_job(args, tmp_path)
    box: dict = {}

    def host_started() -> bool:
        box["host"] = box.get("host") or cluster_host(p.pid)
        return box["host"] is not None
    wait_for(p, host_started)
    host = box["host"]
    wait_for(p, lambda: len(finished_points(out)) == 1)
    at = workers_cpu_s(host)
    wait_for(p, lambda: workers_cpu_s(host) >= at + 2 * SIMULATING_CPU_S)  # the long points simulate
    assert len(live_session(host)) >= 3  # the host and its two workers
    os.kill(p.pid, signal.SIGKILL)
    p.communicate(timeout=HANG_S)
    t0 = time.monotonic()
    while live_session(host) or [n for n in os.listdir(out) if n.startswith(".dask.")]:
        assert time.monotonic() - t0 < HANG_S, (live_session(host), os.listdir(out))
        time.sleep(0.1)
    again = subprocess.run(CLI + args, capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S)
    assert again.returncode == 0, again.stderr
    assert "3 points:" in again.stdout and "0 failed" in again.stdout, again.stdout
    assert leftovers(out) == [] and len(finished_points(out)) == 3


def test_a_local_dask_cluster_that_does_not_start_is_one_error_line(tmp_path):
    """A start-up error of the cluster (here a Dask setting it cannot use) is one line naming the
    cause, no traceback, no process left, nothing written but the sweep's record."""
    pytest.importorskip("distributed")
    out = tmp_path / "s"
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD="no-such-method")
    r = subprocess.run(CLI + ["sweep", str(SCEN), "--grid", "until_s=0.002", "--dask-local", "2", "--out", str(out),
                              "--quiet"], capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S, env=env)
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("error: dask_local = 2: the local Dask cluster did not start"), lines
    assert "no-such-method" in lines[0], lines
    assert sorted(os.listdir(out)) == ["sweep.json"]


def test_the_cluster_host_makes_a_session_of_its_own_before_it_kills_its_session(tmp_path):
    """Its shutdown kills every other process of its session: started without a session of its
    own (here in the test's), it makes one first, and the test's session is left alone."""
    pytest.importorskip("distributed")
    host = subprocess.Popen([sys.executable, "-m", "ccscope._dask_host", "1", str(tmp_path / "stage" / "work")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        reply = host.stdout.readline()
        assert b'"address": "tcp://127.0.0.1:' in reply, reply
        assert _stat(host.pid)[3] == str(host.pid)  # its session id is its own pid
        assert len(live_session(host.pid)) >= 2  # it and its worker
        host.stdin.write(b"stop\n")
        host.stdin.close()
        assert host.wait(timeout=HANG_S) == 0
        t0 = time.monotonic()  # multiprocessing's resource tracker ends by itself once the host is gone
        while live_session(host.pid):
            assert time.monotonic() - t0 < HANG_S, live_session(host.pid)
            time.sleep(0.05)
    finally:
        if host.poll() is None:
            os.killpg(host.pid, signal.SIGKILL)
            host.wait()


def _long_task(tmp_path: Path, until_s: float) -> dict:
    base = dict(load_file(SCEN), record={"queue_interval_s": 0.01, "flow_interval_s": 0.01})
    pts = sw.make_points(base, {"aqm.k_pkts": [20]})
    sw._resolve_key(pts[0], until_s, ["queue"])
    return {"row": sw._row_base(pts[0]), "scenario": pts[0].scenario, "until_s": until_s, "record": ["queue"],
            "points_dir": str(tmp_path / "points"), "param_names": ["aqm.k_pkts"]}


def test_a_point_running_on_dask_ends_when_its_sweep_sets_the_stop_event(tmp_path):
    distributed = pytest.importorskip("distributed")
    task = dict(_long_task(tmp_path, 1000.0), stop_event="ccscope-sweep-stop-test")  # minutes of CPU if not stopped
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        fut = client.submit(sw.run_point, task, pure=False)
        t0 = time.monotonic()
        while client.processing().get(next(iter(client.scheduler_info()["workers"])), ()) == ():
            assert time.monotonic() - t0 < HANG_S and not fut.done(), fut
            time.sleep(0.02)
        distributed.Event(task["stop_event"], client=client).set()
        row = fut.result(timeout=HANG_S)
    assert row["status"] == "error" and row["error"] == "stopped: the sweep was interrupted"
    assert not (tmp_path / "points").exists() or list((tmp_path / "points").iterdir()) == []


def test_a_point_stopped_by_the_sweep_leaves_nothing(tmp_path):
    """The stop flag ends a point's run (from any thread) without writing its directory."""
    base = load_file(SCEN)
    pts = sw.make_points(base, {"aqm.k_pkts": [20]})
    sw._resolve_key(pts[0], 0.002, None)
    task = {"row": sw._row_base(pts[0]), "scenario": pts[0].scenario, "until_s": 0.002, "record": None,
            "points_dir": str(tmp_path / "points"), "param_names": ["aqm.k_pkts"]}
    stop = threading.Event()
    stop.set()
    box: dict = {}

    def worker():
        try:
            box["row"] = sw.run_point(task, stop)
        except BaseException as e:  # noqa: BLE001 - the test looks at what was raised
            box["raised"] = e
    t = threading.Thread(target=worker)
    t.start()
    t.join(HANG_S)
    assert isinstance(box.get("raised"), sw._Stopped), box
    assert not (tmp_path / "points").exists() or list((tmp_path / "points").iterdir()) == []
    assert sw.run_point(task, threading.Event())["status"] == "ok"  # not set: the point runs


def test_a_point_run_in_slices_equals_one_run():
    """Points on worker threads run in slices of simulated time; the result is the same run."""
    sc = load_file(SCEN)
    whole = cc.simulate(sc, until_s=0.05, seed=7)
    sliced = sw._simulate(sc, 0.05, None, 7, threading.Event())
    pd.testing.assert_frame_equal(whole.flows, sliced.flows)
    for name, tr in whole.traces.items():
        if isinstance(tr, pd.DataFrame):
            pd.testing.assert_frame_equal(tr, sliced.traces[name], obj=name)
    skip = {"wall_s", "events_per_s"}
    assert {k: v for k, v in whole.summary.items() if k not in skip} == \
        {k: v for k, v in sliced.summary.items() if k not in skip}
    assert whole.summary["events"] > 1000  # many slices, not one
