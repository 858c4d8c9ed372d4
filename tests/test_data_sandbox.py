"""Data files named in scenarios (a Poisson workload's `size = {kind = "cdf", file = ...}`) are read
in a sandbox: relative to the scenario file, no absolute path or `..`/symlink escape without
--allow-path / allow_paths=, only regular files of at most MAX_DATA_FILE_BYTES, opened so that a
FIFO cannot hang, and error lines quote at most a short excerpt of the offending token."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ccscope as cc
from ccscope.scenario import io
from tests.sandbox_scenarios import cdf_scenario_toml, cdf_tree, cli_with_secret

ROOT = Path(__file__).resolve().parents[1]
#: Secrets a data file error line must never show.
SECRET = "CCSCOPE_SANDBOX_SECRET_VALUE_4242"


@pytest.fixture
def tree(tmp_path):
    """tmp/sc/ (the scenario's directory, with sc/data/ok.csv) and tmp/outside/ok.csv."""
    return cdf_tree(tmp_path)


def scenario_file(tree: Path, file: str) -> Path:
    p = tree / "sc" / "s.toml"
    p.write_text(cdf_scenario_toml("sandbox", file))
    return p


def cli(*args, cwd=None, timeout=60):
    return cli_with_secret(SECRET, *args, cwd=cwd, timeout=timeout)


def points_of(data: dict) -> list:
    return data["workload"][0]["size"]["points"]


def test_a_relative_path_resolves_against_the_scenario_file_not_the_cwd(tree, monkeypatch):
    monkeypatch.chdir(tree / "outside")
    data = io.load_file(scenario_file(tree, "data/ok.csv"))
    assert points_of(data) == [[100.0, 0.5], [10000.0, 1.0]]
    # a path inside the directory with a harmless '..' stays allowed
    assert points_of(io.load_file(scenario_file(tree, "data/../data/ok.csv"))) == [[100.0, 0.5], [10000.0, 1.0]]


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "symlink", "symlinked_dir"])
def test_paths_leaving_the_scenario_directory_are_refused_unless_allowed(tree, kind):
    outside = tree / "outside" / "ok.csv"
    if kind == "absolute":
        file = str(outside)
    elif kind == "dotdot":
        file = "../outside/ok.csv"
    elif kind == "symlink":
        (tree / "sc" / "link.csv").symlink_to(outside)
        file = "link.csv"
    else:
        (tree / "sc" / "ext").symlink_to(tree / "outside", target_is_directory=True)
        file = "ext/ok.csv"
    p = scenario_file(tree, file)
    with pytest.raises(cc.ScenarioError, match=r"workload\[0\]\.size\.file = .*--allow-path"):
        io.load_file(p)
    # allowed explicitly: the same file is read
    assert points_of(io.load_file(p, allow_paths=[tree / "outside"])) == [[100.0, 0.5], [10000.0, 1.0]]
    # an allowed directory elsewhere does not open this one
    other = tree / "elsewhere"
    other.mkdir()
    with pytest.raises(cc.ScenarioError, match="allow-path"):
        io.load_file(p, allow_paths=[other])


def test_cli_refuses_an_escape_and_allow_path_admits_it(tree):
    p = scenario_file(tree, "../outside/ok.csv")
    for cmd in (["scenario", "validate"], ["scenario", "expand"], ["run", "--until", "1ms", "--quiet"]):
        r = cli(*cmd, p)
        assert r.returncode == 2, (cmd, r.stderr)
        assert r.stderr.count("\n") == 1 and "workload[0].size.file" in r.stderr and "--allow-path" in r.stderr
        assert "Traceback" not in r.stderr
        ok = cli(*cmd, p, "--allow-path", tree / "outside")
        assert ok.returncode == 0, (cmd, ok.stderr)
    r = cli("scenario", "validate", p, "--allow-path", tree / "outside", "--allow-path", tree / "sc")
    assert r.returncode == 0 and r.stdout.strip() == "ok"


def test_a_set_override_naming_a_file_follows_the_same_rules(tree):
    p = scenario_file(tree, "data/ok.csv")
    new = ('workload=[{kind="poisson", src=["s0"], dst=["r0"], load=0.3, reference_bps=1e9, '
           'size={kind="cdf", file="/etc/hostname"}}]')
    r = cli("scenario", "validate", p, "--set", new)
    assert r.returncode == 2 and "an absolute path" in r.stderr, r.stderr


def test_proc_environ_and_passwd_never_show_their_contents(tree):
    for f, words in (("/proc/self/environ", "binary file"), ("/etc/passwd", "line 1")):
        if not Path(f).is_file():
            continue
        p = scenario_file(tree, f)
        refused = cli("scenario", "validate", p)
        assert refused.returncode == 2 and "an absolute path" in refused.stderr
        r = cli("scenario", "validate", p, "--allow-path", "/")
        assert r.returncode == 2, r.stderr
        line = r.stderr.strip()
        assert words in line, line
        assert SECRET not in line and "PATH=" not in line
        # at most a short excerpt (MAX_EXCERPT_CHARS) of the offending token, nothing of the next lines
        assert "/bin/bash" not in line and "daemon" not in line and "nologin" not in line
        assert len(line) < 300, line


def test_an_offending_token_is_quoted_short(tree):
    (tree / "sc" / "long.csv").write_text("100 0.5\n" + "x" * 5000 + " 1.0\nsecond line " + SECRET + "\n")
    with pytest.raises(cc.ScenarioError) as ei:
        io.load_file(scenario_file(tree, "long.csv"))
    msg = str(ei.value)
    assert "line 2" in msg and "x" * io.MAX_EXCERPT_CHARS in msg and "x" * (io.MAX_EXCERPT_CHARS + 1) not in msg
    assert SECRET not in msg and len(msg) < 250


@pytest.mark.parametrize("special", ["fifo", "dev_zero", "dev_stdin", "directory"])
def test_special_files_are_refused_without_reading_or_blocking(tree, special):
    sc = tree / "sc"
    if special == "fifo":
        os.mkfifo(sc / "f.csv")
        file = "f.csv"
    elif special == "dev_zero":
        file = "/dev/zero"
    elif special == "dev_stdin":
        file = "/dev/stdin"
    else:
        (sc / "d.csv").mkdir()
        file = "d.csv"
    p = scenario_file(tree, file)
    # allowed everywhere ("/"): the file kind alone refuses it. A subprocess with a timeout: a hang or an endless read fails the test instead of stalling it
    r = subprocess.run([sys.executable, "-m", "ccscope", "scenario", "validate", str(p), "--allow-path", "/"],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.PIPE)
    assert r.returncode == 2, r.stderr
    assert "not a regular file" in r.stderr or "cannot read" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_files_over_the_size_limit_are_refused(tree, monkeypatch):
    monkeypatch.setattr(io, "MAX_DATA_FILE_BYTES", 64)
    (tree / "sc" / "big.csv").write_text("1 0.0\n" * 20 + "2 1.0\n")
    with pytest.raises(cc.ScenarioError, match=r"at most 64 bytes"):
        io.load_file(scenario_file(tree, "big.csv"))
    assert io.MAX_DATA_FILE_BYTES == 64  # the limit is one named constant


def test_the_documented_limit_is_16_mib():
    assert io.MAX_DATA_FILE_BYTES == 16 * 2**20


def test_binary_and_non_utf8_files_are_refused_without_quoting_them(tree):
    (tree / "sc" / "bin.csv").write_bytes(b"100 0.5\n\x00" + SECRET.encode())
    (tree / "sc" / "latin.csv").write_bytes(b"100 0.5\n\xe9" + SECRET.encode())
    for name, words in (("bin.csv", "NUL byte"), ("latin.csv", "not UTF-8")):
        with pytest.raises(cc.ScenarioError, match=words) as ei:
            io.load_file(scenario_file(tree, name))
        assert SECRET not in str(ei.value)


def test_dicts_and_scenario_objects_resolve_against_the_cwd_with_the_same_rules(tree, monkeypatch):
    data = io.load_file(scenario_file(tree, "data/ok.csv"))
    data["workload"][0]["size"] = {"kind": "cdf", "file": "data/ok.csv"}
    monkeypatch.chdir(tree / "sc")
    assert cc.scenario.validate(data)["workload"][0]["size"]["points"] == [[100.0, 0.5], [10000.0, 1.0]]
    res = cc.simulate(data, until_s=1e-4)
    assert res.summary["sim_time_s"] > 0
    data["workload"][0]["size"] = {"kind": "cdf", "file": "../outside/ok.csv"}
    for call in (cc.scenario.validate, cc.scenario.expand, lambda d: cc.simulate(d, until_s=1e-4),
                 lambda d: cc.Simulation(d, until_s=1e-4)):
        with pytest.raises(cc.ScenarioError, match="leaves the scenario's directory"):
            call(data)
    cc.scenario.validate(data, allow_paths=[tree / "outside"])
    assert cc.simulate(data, until_s=1e-4, allow_paths=[tree / "outside"]).summary["sim_time_s"] > 0
    many = cc.simulate_many([data], until_s=1e-4, allow_paths=[tree / "outside"], jobs=1)
    assert many[0].summary["sim_time_s"] > 0


def test_the_shipped_scenario_with_a_cdf_file_still_loads():
    data = io.load_file(ROOT / "scenarios" / "leaf_spine_websearch.toml")
    assert len(points_of(data)) >= 2
