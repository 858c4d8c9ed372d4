"""Sweep files read in the data-file sandbox: `[sweep] base = ...` and CDF files (in the sweep
file, in its base, or named by a `--set`) resolve relative to the file naming them, may not leave
its directory without `--allow-path` / `allow_paths=`, and only regular files of at most
MAX_DATA_FILE_BYTES are read (`base = "/dev/zero"` used to read until memory ran out).
A grid over `seed` is one run per seed (it used to fail with "Duplicate column names")."""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

import ccscope as cc
from ccscope import sweep as sw
from ccscope.scenario import io
from tests.sandbox_scenarios import cdf_scenario_toml, cdf_tree, cli_with_secret

ROOT = Path(__file__).resolve().parents[1]
GRID = '[sweep.grid]\n"topology.rtt_s" = [1e-4]\n'
WORKLOAD = ('workload=[{{kind="poisson", src=["s0", "s1"], dst=["r0"], load=0.3, reference_bps=1e9, '
            'size={{kind="cdf", file="{file}"}}}}]')
SECRET = "CCSCOPE_SWEEP_SANDBOX_SECRET_77"


@pytest.fixture
def tree(tmp_path):
    """tmp/sc/ (the sweep's directory: data/ok.csv, base.toml) and tmp/outside/ (ok.csv, base.toml)."""
    cdf_tree(tmp_path)
    (tmp_path / "sc" / "base.toml").write_text(base_toml("data/ok.csv"))
    (tmp_path / "outside" / "base.toml").write_text(base_toml("ok.csv"))
    return tmp_path


def sweep_file(tree: Path, text: str) -> Path:
    p = tree / "sc" / "sw.toml"
    p.write_text(text)
    return p


def cli(*args, cwd=None, timeout=60):
    return cli_with_secret(SECRET, *args, cwd=cwd, timeout=timeout)


def base_toml(file: str) -> str:
    """The sweep's base scenario, its CDF read from `file`."""
    return cdf_scenario_toml("sweep-sandbox", file)


def test_a_relative_base_and_its_cdf_resolve_against_their_files_not_the_cwd(tree, monkeypatch):
    monkeypatch.chdir(tree / "outside")  # a base.toml here too: must not be the one read
    spec = sw.load_sweep_file(sweep_file(tree, '[sweep]\nbase = "base.toml"\n' + GRID))
    assert spec.base["name"] == "sweep-sandbox"
    assert spec.base["workload"][0]["size"]["points"] == [[100.0, 0.5], [10000.0, 1.0]]


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "symlink"])
def test_a_base_leaving_the_sweep_directory_is_refused_unless_allowed(tree, kind):
    outside = tree / "outside" / "base.toml"
    if kind == "absolute":
        name = str(outside)
    elif kind == "dotdot":
        name = "../outside/base.toml"
    else:
        (tree / "sc" / "link.toml").symlink_to(outside)
        name = "link.toml"
    f = sweep_file(tree, f'[sweep]\nbase = "{name}"\n' + GRID)
    with pytest.raises(cc.ScenarioError, match=r"^sweep\.base = .*--allow-path"):
        sw.load_sweep_file(f)
    spec = sw.load_sweep_file(f, allow_paths=[tree / "outside"])
    assert spec.base["workload"][0]["size"]["points"][-1] == [10000.0, 1.0]


def test_allow_paths_reaches_the_cdf_files_of_the_sweep_file_itself(tree):
    f = sweep_file(tree, base_toml(str(tree / "outside" / "ok.csv")) + GRID)
    with pytest.raises(cc.ScenarioError, match=r"^workload\[0\]\.size\.file = .*absolute path"):
        sw.load_sweep_file(f)
    assert sw.load_sweep_file(f, allow_paths=[tree / "outside"]).base["workload"][0]["size"]["points"]


def test_allow_paths_reaches_the_cdf_files_of_the_base(tree):
    (tree / "sc" / "base.toml").write_text(base_toml(str(tree / "outside" / "ok.csv")))
    f = sweep_file(tree, '[sweep]\nbase = "base.toml"\n' + GRID)
    with pytest.raises(cc.ScenarioError, match=r"^workload\[0\]\.size\.file = "):
        sw.load_sweep_file(f)
    assert sw.load_sweep_file(f, allow_paths=[tree / "outside"]).base["workload"][0]["size"]["points"]


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/stdin", "fifo", "dir"])
def test_a_base_that_is_not_a_regular_file_is_refused_without_reading(tree, special):
    if special == "fifo":
        os.mkfifo(tree / "sc" / "f.toml")
        name = "f.toml"
    elif special == "dir":
        (tree / "sc" / "d.toml").mkdir()
        name = "d.toml"
    else:
        name = special
    f = sweep_file(tree, f'[sweep]\nbase = "{name}"\n' + GRID)
    with pytest.raises(cc.ScenarioError, match=r"^sweep\.base = .*(regular file|absolute path)"):
        sw.load_sweep_file(f, allow_paths=["/dev"])
    with pytest.raises(cc.ScenarioError, match=r"^sweep\.base = "):
        sw.load_sweep_file(f)


def test_a_base_over_the_size_limit_is_refused(tree, monkeypatch):
    monkeypatch.setattr(io, "MAX_DATA_FILE_BYTES", 64)
    (tree / "sc" / "big.toml").write_text("# " + "x" * 100 + "\n")
    with pytest.raises(cc.ScenarioError, match=r"^sweep\.base = \"big\.toml\": 10[0-9] bytes; .*at most 64"):
        sw.load_sweep_file(sweep_file(tree, '[sweep]\nbase = "big.toml"\n' + GRID))


@pytest.mark.parametrize("bad", ['""', "3", "true"])
def test_a_base_that_is_not_a_path_names_the_field(tree, bad):
    with pytest.raises(cc.ScenarioError, match=r"^sweep\.base = .*must be a path"):
        sw.load_sweep_file(sweep_file(tree, f"[sweep]\nbase = {bad}\n" + GRID))


def test_cli_sweep_refuses_dev_zero_and_proc_environ_in_one_line(tree):
    for name in ("/dev/zero", "/proc/self/environ"):
        f = sweep_file(tree, f'[sweep]\nbase = "{name}"\n' + GRID)
        p = cli("sweep", f, "--out", tree / "o", "-q", "--allow-path", "/dev", "--allow-path", "/proc", timeout=60)
        assert p.returncode == 2, p.stderr
        assert "sweep.base" in p.stderr and "Traceback" not in p.stderr and SECRET not in p.stderr + p.stdout
        assert not (tree / "o").exists()


def test_cli_sweep_allow_path_admits_an_outside_base(tree):
    f = sweep_file(tree, '[sweep]\nbase = "../outside/base.toml"\n' + GRID)
    refused = cli("sweep", f, "--out", tree / "o", "-q", "--until", "1ms")
    assert refused.returncode == 2 and "sweep.base" in refused.stderr and "--allow-path" in refused.stderr
    ok = cli("sweep", f, "--out", tree / "o", "-q", "--until", "1ms", "--allow-path", tree / "outside")
    assert ok.returncode == 0, ok.stderr
    assert pd.read_parquet(tree / "o" / "summary.parquet")["status"].tolist() == ["ok"]


def test_cli_sweep_set_naming_a_file_resolves_relative_to_the_sweep_file(tree):
    f = sweep_file(tree, base_toml("data/ok.csv") + GRID)
    escape = cli("sweep", f, "--out", tree / "o", "-q", "--until", "1ms",
                 "--set", WORKLOAD.format(file="../outside/ok.csv"))
    assert escape.returncode == 2 and "workload[0].size.file" in escape.stderr and "--allow-path" in escape.stderr
    assert "Traceback" not in escape.stderr and not (tree / "o").exists()
    ok = cli("sweep", f, "--out", tree / "o", "-q", "--until", "1ms",
             "--set", WORKLOAD.format(file="data/ok.csv"), cwd=tree / "outside")
    assert ok.returncode == 0, ok.stderr


# --------------------------------------------------------------------------- a grid over seed

def test_a_grid_over_seed_is_one_run_per_seed_with_one_seed_column(tmp_path):
    scen = ROOT / "scenarios" / "dctcp_dumbbell.toml"
    res = sw.sweep(scen, {"seed": [1, 2]}, out=tmp_path / "o", until_s=0.001, jobs=1)
    t = res.table
    assert list(t.columns).count("seed") == 1
    assert t["seed"].tolist() == [1, 2] and t["status"].tolist() == ["ok", "ok"]
    assert pd.read_parquet(tmp_path / "o" / "summary.parquet")["seed"].tolist() == [1, 2]
    again = sw.sweep(scen, {"seed": [1, 2]}, out=tmp_path / "o", until_s=0.001, jobs=1)
    assert len(again.cached) == 2


def test_cli_sweep_grid_seed_works(tmp_path):
    p = cli("sweep", ROOT / "scenarios" / "dctcp_dumbbell.toml", "--grid", "seed=1,2", "--until", "1ms",
            "--out", tmp_path / "o")
    assert p.returncode == 0, p.stderr
    assert "Duplicate column" not in p.stderr and "2 points: 2 run" in p.stdout
    header = next(line for line in p.stdout.splitlines() if line.split()[:1] == ["point"])
    assert header.split().count("seed") == 1


def test_a_grid_over_seed_with_replicates_says_to_choose_one(tmp_path):
    scen = ROOT / "scenarios" / "dctcp_dumbbell.toml"
    with pytest.raises(cc.ScenarioError, match=r"^seeds = 2: .*grid over seed"):
        sw.make_points(scen, {"seed": [1, 2]}, seeds=2)
    with pytest.raises(cc.ScenarioError, match=r"^seeds = \[5, 6\]: .*grid over 'seed'"):
        sw.make_points(scen, {"seed": [1, 2]}, seeds=[5, 6])


@pytest.mark.parametrize("name", ["point", "status", "replicate", "flows"])
def test_a_grid_path_naming_a_summary_column_is_refused(name):
    with pytest.raises(cc.ScenarioError, match=rf"^grid path '{name}': the summary table has a column"):
        sw.make_points(ROOT / "scenarios" / "dctcp_dumbbell.toml", {name: [1, 2]})
