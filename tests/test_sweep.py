"""Sweeps: grid expansion, derived seeds, per-point results identical to sequential runs, the
content-addressed cache (reruns and resumes run only unfinished points), failing points, Dask."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ccscope as cc
from ccscope import sweep as sw
from ccscope.scenario.io import apply_set

UNTIL_S = 0.004
GRID = {"flows.count": [2, 3], "aqm.k_pkts": [20, 65]}
CLI = [sys.executable, "-m", "ccscope"]


def base() -> dict:
    return cc.scenario.dumbbell(senders=2, cc="dctcp", bottleneck_bps=10e9, rtt_s=100e-6,
                                aqm=cc.aqm.threshold(k_pkts=65), start_jitter_s=1e-3).to_dict()


def comparable(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns=list(sw.NONDETERMINISTIC_COLUMNS)).reset_index(drop=True)


def test_parse_grid_option_reads_toml_literals_and_keeps_bracketed_commas():
    assert sw.parse_grid_option("flows.count=2,10,100") == ("flows.count", [2, 10, 100])
    assert sw.parse_grid_option("flows.cc=dctcp,new_reno") == ("flows.cc", ["dctcp", "new_reno"])
    assert sw.parse_grid_option("x.y=[1,2],[3]") == ("x.y", [[1, 2], [3]])
    assert sw.parse_grid_option("aqm.g=0.0625, 1e-1") == ("aqm.g", [0.0625, 0.1])
    for bad in ("flows.count", "=1,2", "a..b=1", "a=1,,2"):
        with pytest.raises(cc.ScenarioError, match="--grid"):
            sw.parse_grid_option(bad)


def test_expand_grid_is_the_product_first_key_slowest():
    assert sw.expand_grid({"a": [1, 2], "b": ["x", "y"]}) == [
        {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"}]
    with pytest.raises(cc.ScenarioError, match="empty"):
        sw.expand_grid({"a": []})
    with pytest.raises(cc.ScenarioError, match="list"):
        sw.expand_grid({"a": 3})


def test_seeds_replicate_zero_keeps_the_scenario_seed_and_others_are_derived_and_shared_across_points():
    pts = sw.make_points(dict(base(), seed=5), {"aqm.k_pkts": [20, 65]}, seeds=3)
    assert [(p.params["aqm.k_pkts"], p.replicate) for p in pts] == [(20, 0), (20, 1), (20, 2), (65, 0), (65, 1), (65, 2)]
    assert [p.seed for p in pts[:3]] == [p.seed for p in pts[3:]]
    assert pts[0].seed == 5 and len({p.seed for p in pts[:3]}) == 3
    assert sw.derive_seed(5, 1) == sw.derive_seed(5, 1) != sw.derive_seed(6, 1)
    assert [p.seed for p in sw.make_points(base(), {}, seeds=[11, 12])] == [11, 12]


def test_point_key_changes_with_every_input():
    sc = cc.scenario.validate(base())
    k = sw.point_key(sc, until_s=0.1, record=None, seed=1, version="1")
    assert k == sw.point_key(sc, until_s=0.1, record=None, seed=1, version="1")
    others = [sw.point_key(sc, until_s=0.2, record=None, seed=1, version="1"),
              sw.point_key(sc, until_s=0.1, record=["queue"], seed=1, version="1"),
              sw.point_key(sc, until_s=0.1, record=None, seed=2, version="1"),
              sw.point_key(sc, until_s=0.1, record=None, seed=1, version="2"),
              sw.point_key(dict(sc, packet_bytes=1000), until_s=0.1, record=None, seed=1, version="1")]
    assert len({k, *others}) == 6


def test_sweep_points_equal_sequential_simulate_runs(tmp_path):
    res = sw.sweep(base(), GRID, out=tmp_path / "s", until_s=UNTIL_S, record=["queue", "link"], seeds=2, jobs=2)
    t = res.table
    assert len(t) == 8 and (t["status"] == "ok").all() and not t["cached"].any()
    assert list(t["point"]) == list(range(8))
    assert list(t.columns[:3]) == ["point", "flows.count", "aqm.k_pkts"]
    saved = pd.read_parquet(tmp_path / "s" / "summary.parquet")
    assert saved["key"].tolist() == t["key"].tolist()
    for _, row in t.iloc[[0, 5]].iterrows():
        sc = base()
        apply_set(sc, f"flows.count={row['flows.count']}")
        apply_set(sc, f"aqm.k_pkts={row['aqm.k_pkts']}")
        ref = cc.simulate(sc, until_s=UNTIL_S, record=["queue", "link"], seed=int(row["seed"]))
        got = cc.load(tmp_path / "s" / row["result_dir"])
        for k in ref.traces:
            assert got.traces[k].equals(ref.traces[k]), k
        assert row["marks"] == ref.summary["marks"]
        assert row["queue_mean_pkts"] == ref.summary["queue_mean_pkts"]
        point = json.loads((tmp_path / "s" / row["result_dir"] / "point.json").read_text())
        assert point["key"] == row["key"] and point["params"] == {"flows.count": row["flows.count"],
                                                                  "aqm.k_pkts": row["aqm.k_pkts"]}


def test_rerun_takes_every_point_from_the_cache_and_gives_the_same_table(tmp_path):
    first = sw.sweep(base(), GRID, out=tmp_path / "s", until_s=UNTIL_S, jobs=2)
    again = sw.sweep(base(), GRID, out=tmp_path / "s", until_s=UNTIL_S, jobs=2)
    assert again.ran == [] and sorted(again.cached) == sorted(first.table["key"])
    assert again.table["cached"].all()
    pd.testing.assert_frame_equal(comparable(first.table), comparable(again.table))
    other_until = sw.sweep(base(), GRID, out=tmp_path / "s", until_s=2 * UNTIL_S, jobs=2)
    assert len(other_until.ran) == 4 and other_until.cached == []


def test_interrupted_sweep_resumes_and_runs_only_the_unfinished_points(tmp_path):
    out = tmp_path / "s"

    def stop_after_two(done, total, row):
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sw.sweep(base(), GRID, out=out, until_s=UNTIL_S, jobs=1, progress=stop_after_two)
    finished = {p.name for p in (out / "points").iterdir() if (p / "point.json").is_file()}
    assert len(finished) == 2
    # a run killed while writing leaves only a staging directory, which does not count as finished
    (out / "points" / ".deadbeef.partial-x").mkdir()
    resumed = sw.sweep(base(), GRID, out=out, until_s=UNTIL_S, jobs=2)
    assert len(resumed.cached) == 2 and len(resumed.ran) == 2
    assert {k[:16] for k in resumed.cached} == finished
    assert set(resumed.ran).isdisjoint(resumed.cached)
    fresh = sw.sweep(base(), GRID, out=tmp_path / "fresh", until_s=UNTIL_S, jobs=2)
    pd.testing.assert_frame_equal(comparable(resumed.table), comparable(fresh.table))


def test_grid_with_an_invalid_point_reports_it_with_its_parameters_and_completes_the_rest(tmp_path):
    grid = {"flows.count": [2, -1, 3], "aqm.k_pkts": [65]}
    res = sw.sweep(base(), grid, out=tmp_path / "s", until_s=UNTIL_S, jobs=2)
    t = res.table
    assert t["status"].tolist() == ["ok", "error", "ok"]
    err = res.errors.iloc[0]
    assert err["flows.count"] == -1 and err["aqm.k_pkts"] == 65
    assert err["error"].startswith("ScenarioError:") and "flows.count" in err["error"]
    assert pd.isna(err["marks"]) and t.loc[[0, 2], "marks"].notna().all()
    assert not res.success and len(res.ran) == 2
    # a value of the wrong type: the parameter column mixes kinds, so it is stored as JSON text
    typed = sw.sweep(base(), {"topology.rtt_s": [100e-6, "abc"]}, out=tmp_path / "t", until_s=UNTIL_S, jobs=2)
    assert typed.table["status"].tolist() == ["ok", "error"] and "topology.rtt_s" in typed.table["error"][1]
    assert pd.read_parquet(tmp_path / "t" / "summary.parquet")["topology.rtt_s"].tolist() == ["0.0001", '"abc"']


def test_point_failing_inside_the_run_is_reported_and_the_others_complete(tmp_path, monkeypatch):
    import ccscope.sim
    real = ccscope.sim.simulate

    def flaky(scenario, **kw):
        if scenario["aqm"]["k_pkts"] == 20:
            raise cc.SimulationError("engine stopped: test fault")
        return real(scenario, **kw)

    monkeypatch.setattr(ccscope.sim, "simulate", flaky)
    res = sw.sweep(base(), {"aqm.k_pkts": [20, 65]}, out=tmp_path / "s", until_s=UNTIL_S, jobs=2)
    assert res.table["status"].tolist() == ["error", "ok"]
    assert res.table["error"][0] == "SimulationError: engine stopped: test fault"
    assert not (tmp_path / "s" / "points" / res.table["key"][0][:16]).exists()
    monkeypatch.setattr(ccscope.sim, "simulate", real)
    retry = sw.sweep(base(), {"aqm.k_pkts": [20, 65]}, out=tmp_path / "s", until_s=UNTIL_S, jobs=2)
    assert retry.success and retry.ran == [res.table["key"][0]] and retry.cached == [res.table["key"][1]]


def test_sweep_on_a_local_dask_cluster_gives_the_same_summary_table_as_the_local_run(tmp_path):
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    grid = {"flows.count": [2, -1, 3], "aqm.k_pkts": [20, 65]}
    local = sw.sweep(base(), grid, out=tmp_path / "local", until_s=UNTIL_S, jobs=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        on_dask = sw.sweep(base(), grid, out=tmp_path / "dask", until_s=UNTIL_S, client=client)
    assert len(on_dask.ran) == 4
    pd.testing.assert_frame_equal(comparable(local.table), comparable(on_dask.table))
    pd.testing.assert_frame_equal(comparable(pd.read_parquet(tmp_path / "local" / "summary.parquet")),
                                  comparable(pd.read_parquet(tmp_path / "dask" / "summary.parquet")))


def test_sweep_file_with_a_sweep_table(tmp_path):
    f = tmp_path / "sw.toml"
    f.write_text(f'[sweep]\nbase = "{(Path(__file__).parents[1] / "scenarios" / "dctcp_dumbbell.toml").as_posix()}"\n'
                 'seeds = 2\nuntil_s = 0.003\n[sweep.grid]\n"aqm.k_pkts" = [20, 65]\nflows.count = [2]\n')
    spec = sw.load_sweep_file(f, allow_paths=[Path(__file__).parents[1] / "scenarios"])  # absolute: allowed
    assert spec.grid == {"aqm.k_pkts": [20, 65], "flows.count": [2]} and spec.seeds == 2 and spec.until_s == 0.003
    assert spec.base["name"] == "dctcp_dumbbell"
    f.write_text("[sweep]\ngrids = 1\n")
    with pytest.raises(cc.ScenarioError, match="sweep.grids"):
        sw.load_sweep_file(f)


def test_cli_sweep_writes_the_table_lists_the_failing_point_and_exits_1(tmp_path):
    scen = Path(__file__).parents[1] / "scenarios" / "dctcp_dumbbell.toml"
    cmd = CLI + ["sweep", str(scen), "--grid", "flows.count=2,-4", "--grid", "aqm.k_pkts=65", "--until", "3ms",
                 "--out", str(tmp_path / "o"), "--jobs", "2", "--record", "queue"]
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert p.returncode == 1, p.stderr
    assert "flows.count=-4" in p.stderr and "2 points: 1 run, 0 from the cache, 1 failed" in p.stdout
    t = pd.read_parquet(tmp_path / "o" / "summary.parquet")
    assert t["status"].tolist() == ["ok", "error"]
    p2 = subprocess.run(cmd[:5] + ["--grid", "aqm.k_pkts=65"] + cmd[7:] + ["-q"], capture_output=True, text=True, check=False)
    assert "1 from the cache" in p2.stdout
    bad = subprocess.run(CLI + ["sweep", str(scen), "--grid", "flows.count", "--out", str(tmp_path / "x")],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "--grid" in bad.stderr and "Traceback" not in bad.stderr


def test_fluid_sweep_is_one_batch_cached_by_its_parameters(tmp_path):
    grid = {"wbar": [10.0, 20.0], "g": [1 / 16]}
    df = sw.fluid_sweep("dctcp_normalized", grid, out=tmp_path / "f", backend="numpy")
    assert list(df["wbar"]) == [10.0, 20.0] and df["periodic"].all()
    cached = list((tmp_path / "f" / "fluid").glob("*.parquet"))
    assert len(cached) == 1
    again = sw.fluid_sweep("dctcp_normalized", grid, out=tmp_path / "f", backend="numpy")
    pd.testing.assert_frame_equal(df, again)
    pd.testing.assert_frame_equal(df, pd.read_parquet(tmp_path / "f" / "summary.parquet"))
    assert sw.default_fluid_backend() == "native"    # the compiled solver (tests/fluid/test_native.py)


def test_zip_and_random_designs():
    from ccscope.sweep import expand_design
    from ccscope.errors import ScenarioError
    g = {"a": [1, 2, 3], "b": [10, 20, 30]}
    assert expand_design(g, "zip") == [{"a": 1, "b": 10}, {"a": 2, "b": 20}, {"a": 3, "b": 30}]
    r = expand_design(g, "random", samples=4, seed=7)
    assert len(r) == 4 and r == expand_design(g, "random", samples=4, seed=7)
    assert all(p in expand_design(g, "grid") for p in r) and len({tuple(p.values()) for p in r}) == 4
    with pytest.raises(ScenarioError, match="same length"):
        expand_design({"a": [1], "b": [1, 2]}, "zip")
    with pytest.raises(ScenarioError, match="samples"):
        expand_design(g, "random")
