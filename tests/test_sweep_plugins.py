"""Sweep workers load the controller plugins: `ccscope sweep --plugin FILE` on Dask's local cluster
(worker processes that never imported the plugin) runs a Python controller as the local thread
pool does, with the same numbers; a worker that cannot load a plugin reports it in the point's
row; a fresh process loads the records of `loaded_plugins()` (module or file) and runs the
controller."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import ccscope.sweep as sw
from ccscope import cc

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "ccscope"]
PLUGIN = ROOT / "examples" / "controllers" / "new_reno.py"
#: A hang guard, not a speed requirement.
HANG_S = 300.0
#: Columns that depend on the machine or the executor, not on the run.
VOLATILE = ("wall_s", "events_per_s", "cached", "result_dir")


def scenario(cc_name: str) -> dict:
    return {"seed": 1, "until_s": 0.005,
            "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4, "buffer_pkts": 50},
            "flows": {"count": 2, "cc": cc_name}}


def stable(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=[c for c in VOLATILE if c in df]).reset_index(drop=True)


def test_dask_workers_load_the_plugin_and_match_the_local_sweep(tmp_path):
    pytest.importorskip("distributed")
    sc = tmp_path / "s.json"
    sc.write_text(json.dumps(scenario("py_new_reno")))
    outs = {}
    for name, executor in (("dask", ["--dask-local", "1"]), ("local", ["--jobs", "1"])):
        out = tmp_path / name
        r = subprocess.run(CLI + ["sweep", str(sc), "--grid", "topology.buffer_pkts=20,40", "-q", *executor,
                                  "--plugin", str(PLUGIN), "-o", str(out)],
                           capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S)
        assert r.returncode == 0, r.stderr
        outs[name] = pd.read_parquet(out / "summary.parquet")
    dask = outs["dask"]
    assert dask.status.tolist() == ["ok", "ok"], dask.error.tolist()
    assert (dask.flows_completed >= 0).all() and (dask.throughput_mean_bps > 0).all()
    pd.testing.assert_frame_equal(stable(dask), stable(outs["local"]))


def test_a_plugin_a_worker_cannot_load_is_the_point_error(tmp_path):
    gone = tmp_path / "gone.py"
    res = sw.sweep(scenario("new_reno"), {"topology.buffer_pkts": [20, 40]}, out=tmp_path / "o", jobs=1,
                   plugins=[{"file": str(gone)}])
    s = res.table
    assert s.status.tolist() == ["error", "error"]
    assert all(f"--plugin {str(gone)!r}: loading it in the sweep worker" in e and "no such file" in e
               for e in s.error)


def test_a_fresh_process_loads_the_recorded_plugins_and_runs_the_controller(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ctl.py").write_text(textwrap.dedent("""
        from ccscope import cc

        class Half(cc.Controller):
            def on_congestion(self, now_s, kind, flight_bytes):
                self.cwnd_bytes = max(self.cwnd_bytes / 2, self.mss)

        cc.register_cc("plugin_half", Half)
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        cc.load_plugin("mypkg.ctl")
        cc.load_plugin(str(PLUGIN))
    finally:
        sys.path.remove(str(tmp_path))
    recs = cc.loaded_plugins()
    assert {"module": "mypkg.ctl", "path": str(tmp_path.resolve())} in recs
    assert {"file": str(PLUGIN.resolve())} in recs
    cc.ensure_plugins(recs)  # all loaded here already: nothing happens
    code = textwrap.dedent(f"""
        import json, sys
        import ccscope
        from ccscope import cc
        cc.ensure_plugins(json.loads(sys.argv[1]))
        for name in ("plugin_half", "py_new_reno"):
            res = ccscope.simulate(json.loads({json.dumps(scenario("NAME"))!r}.replace("NAME", name)))
            print(name, len(res.flows) == 2 and res.flows["cc"].tolist() == [name, name])
    """)
    r = subprocess.run([sys.executable, "-c", code, json.dumps(recs)], capture_output=True, text=True,
                       cwd=ROOT, timeout=HANG_S)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["plugin_half", "True", "py_new_reno", "True"]
