"""A sweep cache that verifies what it reuses: each point's point.json records the size and sha256 of
its files and a digest of itself; a truncated trace, a deleted flows.parquet or an edited metric makes
the point run again (and says so); `ccscope sweep --verify OUT` lists every damaged point."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import ccscope.sweep as sw
from ccscope.cli import app
from ccscope.scenario.io import load_file

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios" / "dctcp_dumbbell.toml"
GRID = {"aqm.k_pkts": [20, 65]}
UNTIL_S = 3e-3
RECORD = ["queue", "link"]


def run(out: Path, notices: list | None = None) -> sw.SweepResult:
    return sw.sweep(load_file(SCEN), GRID, out=out, until_s=UNTIL_S, record=RECORD, jobs=1,
                    on_notice=None if notices is None else notices.append)


def comparable(t: pd.DataFrame) -> pd.DataFrame:
    return t.drop(columns=list(sw.NONDETERMINISTIC_COLUMNS))


@pytest.fixture
def done(tmp_path):
    out = tmp_path / "s"
    first = run(out)
    assert first.success and len(first.ran) == 2
    return out, first


def point_dir(out: Path, first: sw.SweepResult, i: int) -> Path:
    return out / first.table["result_dir"][i]


def test_point_json_records_size_and_sha256_of_every_file(done):
    out, first = done
    d = point_dir(out, first, 0)
    rec = json.loads((d / "point.json").read_text())
    assert set(rec["files"]) == {"flows.parquet", "ports.parquet", "rounds.parquet", "summary.json", "scenario.json",
                                 "meta.json", "traces/queue.parquet", "traces/link.parquet"}
    assert all(len(v["sha256"]) == 64 and v["bytes"] == (d / k).stat().st_size for k, v in rec["files"].items())
    assert sw.check_point(d, first.table["key"][0]) == (rec, None)
    again = run(out)
    assert again.cached == list(first.table["key"]) and again.ran == [] and again.recomputed == {}


@pytest.mark.parametrize("damage, reason", [
    ("truncate_trace", "traces/queue.parquet changed since it was written"),
    ("delete_flows", "flows.parquet is missing"),
    ("edit_metric", "point.json changed since it was written"),
    ("add_trace", "traces/cwnd.parquet was added since it was written"),
    ("old_format", "point.json has no content hashes (written by an earlier ccscope)"),
    ("garbage", "point.json is unreadable (JSONDecodeError)"),
])
def test_a_damaged_point_is_recomputed_and_named(done, damage, reason):
    out, first = done
    d = point_dir(out, first, 1)
    rec = json.loads((d / "point.json").read_text())
    if damage == "truncate_trace":
        q = d / "traces" / "queue.parquet"
        q.write_bytes(q.read_bytes()[: q.stat().st_size // 2])
    elif damage == "delete_flows":
        (d / "flows.parquet").unlink()
    elif damage == "edit_metric":  # the case: an edited metric used to flow into summary.parquet
        rec["row"]["queue_mean_pkts"] = 12345.0
        (d / "point.json").write_text(json.dumps(rec, indent=2, sort_keys=True) + "\n")
    elif damage == "add_trace":
        (d / "traces" / "cwnd.parquet").write_bytes((d / "traces" / "queue.parquet").read_bytes())
    elif damage == "old_format":
        del rec["files"], rec["digest"]
        (d / "point.json").write_text(json.dumps(rec))
    elif damage == "garbage":
        (d / "point.json").write_text("{not json")
    assert sw.read_done(out / "points", first.table["key"][1]) is None
    notices: list[str] = []
    again = run(out, notices)
    assert notices == [f"point 1: {reason}; recomputing"]
    assert again.recomputed == {1: reason}
    assert again.ran == [first.table["key"][1]] and again.cached == [first.table["key"][0]]
    pd.testing.assert_frame_equal(comparable(again.table), comparable(first.table))
    assert 12345.0 not in set(pd.read_parquet(out / "summary.parquet")["queue_mean_pkts"])
    assert sw.check_point(d, first.table["key"][1])[1] is None
    assert [n for n in (out / "points").iterdir() if n.name.startswith(".")] == []


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_cli_resume_says_which_point_is_recomputed_and_why(done):
    out, first = done
    (point_dir(out, first, 0) / "flows.parquet").unlink()
    r = invoke("sweep", SCEN, "--grid", "aqm.k_pkts=20,65", "--until", "3ms", "--record", "queue,link", "--jobs", "1",
               "--quiet", "--out", out)
    assert r.exit_code == 0, r.stderr
    assert "note: point 0: flows.parquet is missing; recomputing" in r.stderr
    assert "2 points: 1 run, 1 from the cache, 0 failed" in r.stdout


def test_cli_verify_lists_each_bad_point_and_exits_1(done):
    out, first = done
    r = invoke("sweep", "--verify", out)
    assert r.exit_code == 0, r.stderr
    assert "2 checked: 2 ok, 0 bad" in r.stdout
    q = point_dir(out, first, 0) / "traces" / "queue.parquet"
    q.write_bytes(q.read_bytes()[:100])
    (point_dir(out, first, 1) / "flows.parquet").unlink()
    r = invoke("sweep", "--verify", out)
    assert r.exit_code == 1
    lines = r.stderr.strip().splitlines()
    assert lines == [f"bad: point 0 ({first.table['result_dir'][0]}): traces/queue.parquet changed since it was written",
                     f"bad: point 1 ({first.table['result_dir'][1]}): flows.parquet is missing"]
    assert "2 checked: 0 ok, 2 bad" in r.stdout
    run(out)  # recomputes both
    assert invoke("sweep", "--verify", out).exit_code == 0
    # a whole point directory removed: the summary still lists it
    import shutil
    shutil.rmtree(point_dir(out, first, 1))
    r = invoke("sweep", "--verify", out)
    assert r.exit_code == 1 and f"point 1 ({first.table['result_dir'][1]}): " in r.stderr and "is missing" in r.stderr


def test_cli_verify_of_a_directory_that_is_not_a_sweep(tmp_path):
    r = invoke("sweep", "--verify", tmp_path)
    assert r.exit_code == 2 and "not a sweep output directory" in r.stderr and "Traceback" not in r.stderr


def test_a_damaged_fluid_batch_is_recomputed_and_reported_by_verify(tmp_path):
    out = tmp_path / "f"
    grid = {"wbar": [10.0, 20.0], "g": [1 / 16]}
    df = sw.fluid_sweep("dctcp_normalized", grid, out=out, backend="numpy")
    (cached,) = (out / "fluid").glob("*.parquet")
    assert json.loads(cached.with_suffix(".json").read_text())["bytes"] == cached.stat().st_size
    assert invoke("sweep", "--verify", out).exit_code == 0
    cached.write_bytes(cached.read_bytes()[:-10])
    r = invoke("sweep", "--verify", out)
    assert r.exit_code == 1 and f"bad: fluid/{cached.name}: {cached.name} changed since it was written" in r.stderr
    notices: list[str] = []
    again = sw.fluid_sweep("dctcp_normalized", grid, out=out, backend="numpy", on_notice=notices.append)
    assert notices == [f"fluid batch {cached.stem}: {cached.name} changed since it was written; recomputing"]
    pd.testing.assert_frame_equal(df, again)
    assert invoke("sweep", "--verify", out).exit_code == 0
