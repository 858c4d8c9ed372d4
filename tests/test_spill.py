"""Event-driven traces (drops and marks, the every-change queue, feedback frames) spill to disk in
chunks instead of stopping at their row caps: the rows are those of a run held in memory, save()
streams them, a disk cap truncates them with a reason, and the spill directory never outlives its
result (garbage collection, interpreter exit, the next start after a kill -9, --out's cleanup).

The chunk size is forced small through `CCSCOPE_TEST_SPILL_CHUNK_ROWS` and the disk cap through
`CCSCOPE_TEST_SPILL_DISK_BYTES`, test-only knobs of `ccscope.sim`."""
from __future__ import annotations

import gc
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import ccscope as cc
from ccscope import _outdir
from ccscope import sim as sim_module
from ccscope.errors import ResultError
from ccscope.result import Traces, _jsonable, _percentile_from_counts, _queue_moments

from test_outdir import leftovers, run_cli

ROOT = Path(__file__).resolve().parents[1]
CHUNK = sim_module.TEST_CHUNK_ROWS_ENV
DISK = sim_module.TEST_DISK_BYTES_ENV
MiB = 2 ** 20


def newreno(until_s=0.02):
    """A small-buffer NewReno dumbbell: a few thousand queue changes and some drops."""
    return {"until_s": until_s,
            "topology": {"kind": "dumbbell", "senders": 4, "bottleneck_bps": 1e9, "rtt_s": 100e-6, "buffer_pkts": 30},
            "flows": {"count": 4, "cc": "new_reno"},
            "record": {"traces": ["queue", "drops", "link"], "queue_every_change": True}}


def cbr(until_s=0.05, rate_bps=20e9):
    """A CBR flow at twice the bottleneck: about 8.3e5 drops per second of run."""
    return {"until_s": until_s,
            "topology": {"kind": "dumbbell", "senders": 1, "bottleneck_bps": 10e9, "rtt_s": 100e-6},
            "flow": [{"src": "s0", "dst": "r0", "cc": "cbr", "rate_bps": rate_bps}],
            "record": {"traces": ["drops"]}}


def asm():
    sc = cc.scenario.io.load_file(ROOT / "scenarios" / "asm_dumbbell.toml")
    return sc


def same_results(a: cc.SimResult, b: cc.SimResult) -> None:
    assert list(a.traces) == list(b.traces)
    for k in a.traces:
        pd.testing.assert_frame_equal(a.traces[k], b.traces[k])
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.ports, b.ports)
    skip = {"wall_s", "events_per_s"}
    same = [_jsonable({k: v for k, v in r.summary.items() if k not in skip}) for r in (a, b)]  # NaN as None
    assert same[0] == same[1]


@pytest.mark.parametrize("case, series, kw", [
    ("drops", "drops", {}),
    ("queue", "queue", {}),
    ("feedback", "feedback", {"until_s": 0.15, "record": ["feedback", "queue", "rate"]}),
])
def test_a_forced_small_chunk_gives_the_rows_of_an_unspilled_run(monkeypatch, case, series, kw):
    sc = asm() if case == "feedback" else (cbr() if case == "drops" else newreno())
    whole = cc.simulate(sc, spill_dir=False, max_memory_bytes=2 ** 33, **kw)
    assert "truncated" not in whole.traces and len(whole.traces[series]) > 500
    monkeypatch.setenv(CHUNK, "64")
    spilled = cc.simulate(sc, max_memory_bytes=2 ** 33, **kw)
    assert isinstance(spilled.traces, Traces)
    sp = spilled.traces.spilled(series)
    assert sp is not None and len(sp.files) >= 5
    assert all(os.path.getsize(f) == 16 + 64 * sp.row_bytes for f in sp.files[:3])
    # chunk by chunk: never more than a chunk at a time (a queue tail: one per recorded port)
    parts = list(spilled.trace_chunks(series))
    assert max(len(p) for p in parts) <= 64
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole.traces[series])
    same_results(spilled, whole)  # every trace, the tables and the summary (queue mean and p99 per chunk)


def test_a_run_that_fits_one_chunk_writes_nothing_and_is_unchanged():
    sc = newreno(0.002)
    sim = cc.Simulation(sc)
    sim.run()
    res = sim.finish()
    assert not os.path.lexists(sim._spill_dir)  # the engine creates the directory on the first chunk only
    assert type(res.traces) is dict
    same_results(res, cc.simulate(sc, spill_dir=False))


def test_save_streams_a_spilled_trace_and_loads_back_equal(tmp_path, monkeypatch):
    whole = cc.simulate(newreno(), spill_dir=False)
    whole.save(tmp_path / "whole")
    monkeypatch.setenv(CHUNK, "100")
    spilled = cc.simulate(newreno())
    n_segments = len(spilled.traces.spilled("queue").segments)
    spilled.save(tmp_path / "spilled")
    assert pq.ParquetFile(tmp_path / "spilled" / "traces" / "queue.parquet").num_row_groups == n_segments > 10
    a, b = cc.load(tmp_path / "whole"), cc.load(tmp_path / "spilled")
    for k in a.traces:
        pd.testing.assert_frame_equal(a.traces[k], b.traces[k])
    pd.testing.assert_frame_equal(b.traces["queue"], whole.traces["queue"])


def test_past_the_disk_cap_the_trace_stops_and_the_table_says_disk(monkeypatch):
    whole = cc.simulate(cbr(), spill_dir=False)
    full = whole.traces["drops"]
    monkeypatch.setenv(CHUNK, "1000")
    monkeypatch.setenv(DISK, str(5 * (16 + 1000 * 26) + 100))  # room for five chunks
    res = cc.simulate(cbr())
    t = res.traces["truncated"]
    assert list(t["series"]) == ["drops"] and list(t["reason"]) == ["disk"]
    assert "disk cap" in t["detail"][0]
    kept, left = int(t["rows_kept"][0]), int(t["rows_left_out"][0])
    assert kept == 6000  # five chunks on disk and the chunk that did not fit, still in memory
    assert kept + left == len(full)
    # the kept rows are the first ones; the port counters still count every drop
    pd.testing.assert_frame_equal(res.traces["drops"], full.iloc[:kept])
    assert int(res.ports["drops_overflow"].sum()) == kept + left


def test_the_cli_warns_when_the_disk_cap_stops_a_trace(tmp_path, monkeypatch):
    f = tmp_path / "cbr.json"
    f.write_text(json.dumps(cbr()))
    monkeypatch.setenv(CHUNK, "1000")
    monkeypatch.setenv(DISK, "100000")
    r = run_cli("run", f, "--quiet", "--out", tmp_path / "v")
    assert r.returncode == 0, r.stderr
    assert "warning: trace 'drops' stopped after 4,000 rows (disk cap 97.7 KiB of the spill directory reached)" \
        in r.stderr.replace("\n", " ")
    t = cc.load(tmp_path / "v").traces["truncated"]
    assert list(t["reason"]) == ["disk"] and int(t["rows_kept"][0]) == 4000
    assert leftovers(tmp_path, tmp_path / "v") == []


def test_an_io_error_is_a_truncation_in_the_result_never_an_exception(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv(CHUNK, "1000")
    res = cc.simulate(cbr(0.01), spill_dir=blocker / "spill")  # its parent is a file
    t = res.traces["truncated"]
    assert list(t["reason"]) == ["disk"] and t["detail"][0].startswith("cannot create")
    assert len(res.traces["drops"]) == 1000 == int(t["rows_kept"][0])


def test_a_spilled_trace_beyond_the_memory_budget_points_at_trace_chunks(monkeypatch):
    monkeypatch.setenv(CHUNK, "4096")
    res = cc.simulate(cbr(0.3, 30e9), max_memory_bytes=24 * MiB)
    sp = res.traces.spilled("drops")
    assert sp.rows > 24 * MiB / (26 * 3)
    with pytest.raises(ResultError) as e:
        res.traces["drops"]
    msg = str(e.value)
    assert msg.startswith(f"traces['drops']: {sp.rows:,} rows spilled to disk") and "trace_chunks('drops')" in msg
    n = sum(len(c) for c in res.trace_chunks("drops"))
    assert n == sp.rows == int(res.ports["drops_overflow"].sum())


def test_the_private_directory_is_removed_with_the_result(monkeypatch):
    monkeypatch.setenv(CHUNK, "64")
    res = cc.simulate(newreno())
    d = Path(res.traces.spill_dir)
    assert d.is_dir() and d.parent == Path(__import__("tempfile").gettempdir()) and len(os.listdir(d)) > 3
    assert (d.stat().st_mode & 0o777) == 0o700
    del res
    gc.collect()
    assert not d.exists()


def test_a_pickled_spilled_result_carries_its_rows(monkeypatch):
    monkeypatch.setenv(CHUNK, "64")
    res = cc.simulate(newreno())
    back = pickle.loads(pickle.dumps(res))
    assert type(back.traces) is dict
    same_results(back, cc.simulate(newreno(), spill_dir=False))


def test_stale_private_directories_of_dead_processes_are_removed_at_the_next_start(tmp_path, monkeypatch):
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    host = _outdir._host()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f"ccscope-spill-{int(dead.stdout)}-{host}-0badc0de"
    live = tmp_path / f"ccscope-spill-{os.getpid()}-{host}-0badc0de"
    other = tmp_path / f"ccscope-spill-{int(dead.stdout)}-otherhost-0badc0de"
    for d in (stale, live, other):
        d.mkdir()
        (d / "drops-000000.bin").write_bytes(b"x")
    monkeypatch.setattr(sim_module, "_stale_checked", False)
    cc.simulate(newreno(0.001))
    assert not stale.exists() and live.is_dir() and other.is_dir()


def test_kill_9_while_a_cli_run_spills_leaves_only_what_the_next_write_removes(tmp_path):
    sc = tmp_path / "cbr.json"
    sc.write_text(json.dumps(cbr(20.0)))
    v = tmp_path / "v"
    env = dict(os.environ, **{CHUNK: "1000"})
    p = subprocess.Popen([sys.executable, "-m", "ccscope", "run", str(sc), "--quiet", "--out", str(v)], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        spill = []
        while time.monotonic() < deadline:
            spill = [n for n in os.listdir(tmp_path) if n.startswith(".v-spill.tmp-")]
            if spill and len(os.listdir(tmp_path / spill[0])) >= 5:
                break
            time.sleep(0.05)
        assert spill, "the run should be spilling next to --out"
        p.send_signal(signal.SIGKILL)
    finally:
        p.kill()
        p.wait()
    left = leftovers(tmp_path)
    assert left == spill and all(_outdir.is_temp(n) for n in left) and not v.exists()
    r = run_cli("run", ROOT / "scenarios" / "dctcp_dumbbell.toml", "--until", "1ms", "--quiet", "--out", v)
    assert r.returncode == 0, r.stderr
    assert leftovers(tmp_path, v) == [] and sorted(os.listdir(tmp_path)) == ["cbr.json", "v"]


def test_a_cli_run_with_out_spills_inside_an_updated_directory_and_cleans_it(tmp_path, monkeypatch):
    v = tmp_path / "v"
    v.mkdir()
    (v / "notes.txt").write_text("keep\n")  # not a result: written with --force, in place
    f = tmp_path / "s.json"
    f.write_text(json.dumps(newreno()))
    monkeypatch.setenv(CHUNK, "100")
    seen = []
    real = cc.Simulation.__init__

    def spy(self, *a, **k):
        seen.append(k.get("spill_dir"))
        real(self, *a, **k)
    monkeypatch.setattr(cc.Simulation, "__init__", spy)
    r = run_cli("run", f, "--quiet", "--out", v, "--force")
    assert r.returncode == 0, r.stderr
    assert seen[0].parent == v and seen[0].name.startswith(".ccscope-spill.tmp-") and not seen[0].exists()
    assert leftovers(tmp_path, v) == [] and (v / "notes.txt").read_text() == "keep\n"
    pd.testing.assert_frame_equal(cc.load(v).traces["queue"], cc.simulate(newreno(), spill_dir=False).traces["queue"])


def test_spill_dir_must_be_new():
    with pytest.raises(cc.ScenarioError, match="spill_dir = .*must not exist yet"):
        cc.simulate(newreno(0.001), spill_dir=ROOT)


@pytest.mark.parametrize("seed", range(40))
def test_the_p99_from_chunk_counts_is_numpys_percentile(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5000))
    g = rng.integers(0, int(rng.choice([3, 50, 1000])), size=n).astype(np.uint32)
    parts = np.array_split(g, int(rng.integers(1, 7)))
    cnt, total, hist = _queue_moments(iter(parts))
    assert cnt == n and np.float64(total) / n == g.mean()
    assert _percentile_from_counts(hist, n, 99) == float(np.percentile(g, 99))
