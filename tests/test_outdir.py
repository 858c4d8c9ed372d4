"""Output that never destroys (ccscope._outdir): `run --out`, `demo`, `plot -o`, `repro run --out`,
`repro report --docs`, `sweep --out` and `SimResult.save` refuse what is not theirs, replace only their
own files, keep everything else, and leave no temporary or old copies behind (kill -9 included)."""
from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import ccscope as cc
from ccscope import _outdir

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios" / "dctcp_dumbbell.toml"
CLI = [sys.executable, "-m", "ccscope"]
UNTIL = "3ms"
UNTIL_S = 3e-3


class Ran:
    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_cli(*args, cwd=None) -> Ran:
    """The CLI in this process (fast); `cwd` is entered for the call."""
    from typer.testing import CliRunner

    from ccscope.cli import app
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        r = CliRunner().invoke(app, [str(a) for a in args])
    finally:
        os.chdir(here)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Ran(r.exit_code, r.stdout, r.stderr)


def run_real_cli(*args, cwd=None):
    """The installed command line in a child process."""
    return subprocess.run(CLI + [str(a) for a in args], capture_output=True, text=True, cwd=cwd)


def leftovers(*folders: Path) -> list[str]:
    """Temporary or old copies (this version's names and earlier ones) in the folders."""
    out = []
    for f in folders:
        if f.is_dir():
            out += [n for n in os.listdir(f) if ".tmp-" in n or ".old-" in n or ".partial-" in n]
    return out


def listing(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): (p.read_bytes() if p.is_file() else b"<dir>") for p in sorted(d.rglob("*"))}


@pytest.fixture(scope="module")
def small_result():
    return cc.simulate(cc.scenario.io.load_file(SCEN), until_s=UNTIL_S)


# --------------------------------------------------------------------------- run --out


def test_run_out_refuses_a_directory_of_unrelated_files_and_leaves_it_untouched(tmp_path):
    # the reproduction: mkdir -p v/data && echo keep > v/notes.txt && ccscope run ... --out v
    v = tmp_path / "v"
    (v / "data").mkdir(parents=True)
    (v / "notes.txt").write_text("keep\n")
    before = listing(v)
    p = run_real_cli("run", SCEN, "--until", UNTIL, "--quiet", "--out", v, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    line = p.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "--out" in line and "a non-empty directory that is not a ccscope run result" in line
    assert "contains data/, notes.txt" in line and "--force" in line
    assert listing(v) == before
    assert leftovers(tmp_path, v) == []


def test_run_out_force_writes_the_result_and_keeps_every_other_file(tmp_path):
    v = tmp_path / "v"
    (v / "data").mkdir(parents=True)
    (v / "notes.txt").write_text("keep\n")
    p = run_cli("run", SCEN, "--until", UNTIL, "--quiet", "--out", v, "--force")
    assert p.returncode == 0, p.stderr
    assert (v / "notes.txt").read_text() == "keep\n" and (v / "data").is_dir()
    assert cc.load(v).summary["sim_time_s"] == pytest.approx(UNTIL_S)
    # now a previous result: a second run needs no --force and still keeps the other files
    p = run_cli("run", SCEN, "--until", "2ms", "--quiet", "--out", v)
    assert p.returncode == 0, p.stderr
    assert (v / "notes.txt").read_text() == "keep\n" and (v / "data").is_dir()
    assert cc.load(v).summary["sim_time_s"] == pytest.approx(2e-3)
    assert leftovers(tmp_path, v) == []


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_run_out_never_turns_a_regular_file_into_a_directory(tmp_path, force):
    f = tmp_path / "results"
    f.write_text("my data\n")
    p = run_cli("run", SCEN, "--until", UNTIL, "--quiet", "--out", f, *force)
    assert p.returncode == 2
    assert "an existing file, not a directory" in p.stderr and "Traceback" not in p.stderr
    assert f.read_text() == "my data\n"
    assert leftovers(tmp_path) == []


def test_refusal_comes_before_the_run(tmp_path):
    v = tmp_path / "v"
    v.mkdir()
    (v / "notes.txt").write_text("keep\n")
    # a scenario that would take long: the refusal must not wait for it
    p = run_cli("run", SCEN, "--until", "1000s", "--quiet", "--out", v)
    assert p.returncode == 2 and "not a ccscope run result" in p.stderr


def test_rerun_replaces_only_its_own_files_and_keeps_a_figure_and_the_scenario(tmp_path):
    exp = tmp_path / "exp"
    exp.mkdir()
    scen = exp / "scen.toml"
    scen.write_bytes(SCEN.read_bytes())
    # the experiment folder holds only the scenario being run: accepted, the scenario kept
    p = run_cli("run", scen, "--until", UNTIL, "--quiet", "--out", exp)
    assert p.returncode == 0, p.stderr
    assert scen.read_bytes() == SCEN.read_bytes()
    assert (exp / "traces" / "cwnd.parquet").is_file()
    p = run_cli("plot", exp, "-o", exp / "fig.png")
    assert p.returncode == 0, p.stderr
    fig = (exp / "fig.png").read_bytes()
    (exp / "notes.txt").write_text("keep\n")
    # rerun with fewer traces: the result's files are replaced (a trace no longer recorded is gone),
    # the scenario, the figure and the notes are kept byte for byte
    p = run_cli("run", scen, "--until", "2ms", "--quiet", "--out", exp, "--record", "queue")
    assert p.returncode == 0, p.stderr
    assert scen.read_bytes() == SCEN.read_bytes()
    assert (exp / "fig.png").read_bytes() == fig and (exp / "notes.txt").read_text() == "keep\n"
    assert sorted(p.name for p in (exp / "traces").iterdir()) == ["queue.parquet"]
    assert cc.load(exp).summary["sim_time_s"] == pytest.approx(2e-3)
    assert leftovers(tmp_path, exp) == []


def test_scenario_file_named_like_a_result_file_is_never_replaced(tmp_path):
    q = tmp_path / "q"
    q.mkdir()
    text = json.dumps(cc.scenario.io.load_file(SCEN))
    (q / "scenario.json").write_text(text)
    p = run_cli("run", q / "scenario.json", "--until", UNTIL, "--quiet", "--out", q)
    assert p.returncode == 2, p.stderr
    assert "would replace" in p.stderr and "scenario.json" in p.stderr
    assert (q / "scenario.json").read_text() == text and os.listdir(q) == ["scenario.json"]


def test_out_dot_and_dotdot_update_in_place_without_old_copies(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "scen.toml").write_bytes(SCEN.read_bytes())
    for _ in range(2):  # new, then a previous result
        p = run_cli("run", "scen.toml", "--until", UNTIL, "--quiet", "--out", ".", cwd=work)
        assert p.returncode == 0, p.stderr
    assert (work / "scen.toml").read_bytes() == SCEN.read_bytes()
    assert cc.load(work).summary["sim_time_s"] == pytest.approx(UNTIL_S)
    sub = work / "sub"
    sub.mkdir()
    p = run_cli("run", "../scen.toml", "--until", "2ms", "--quiet", "--out", "..", cwd=sub)
    assert p.returncode == 0, p.stderr
    assert sub.is_dir() and cc.load(work).summary["sim_time_s"] == pytest.approx(2e-3)
    assert leftovers(tmp_path, work, sub) == []
    # --out . in a folder that is not a result: refused, and nothing left in the folder above
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("keep\n")
    p = run_cli("run", SCEN, "--until", UNTIL, "--quiet", "--out", ".", cwd=other)
    assert p.returncode == 2 and "--out '.'" in p.stderr
    assert os.listdir(other) == ["notes.txt"] and leftovers(tmp_path) == []
    p = run_cli("run", SCEN, "--until", UNTIL, "--quiet", "--out", "..", cwd=other)
    assert p.returncode == 2 and leftovers(tmp_path, tmp_path.parent) == []


def test_cwd_inside_an_entry_the_result_would_replace_is_refused(tmp_path, small_result):
    v = tmp_path / "v"
    small_result.save(v)
    p = run_cli("run", SCEN, "--until", UNTIL, "--quiet", "--out", "..", cwd=v / "traces")
    assert p.returncode == 2 and "the current directory" in p.stderr
    assert (v / "traces" / "queue.parquet").is_file()


# --------------------------------------------------------------------------- the Python API


def test_save_refuses_with_a_picklable_file_exists_error(tmp_path, small_result):
    v = tmp_path / "v"
    v.mkdir()
    (v / "notes.txt").write_text("keep\n")
    with pytest.raises(FileExistsError) as ei:
        small_result.save(v)
    e = ei.value
    assert isinstance(e, _outdir.OutputRefused)
    assert "not a ccscope run result" in str(e) and "force=True" in str(e)
    back = pickle.loads(pickle.dumps(e))
    assert str(back) == str(e) and back.cli("--out") == e.cli("--out")
    small_result.save(v, force=True)
    assert (v / "notes.txt").read_text() == "keep\n" and (v / "meta.json").is_file()


def test_save_gives_directories_the_umask_permissions(tmp_path, small_result):
    old = os.umask(0o027)
    try:
        out = small_result.save(tmp_path / "a" / "b")
    finally:
        os.umask(old)
    assert (out.stat().st_mode & 0o777) == 0o750
    assert ((tmp_path / "a").stat().st_mode & 0o777) == 0o750
    assert ((out / "traces").stat().st_mode & 0o777) == 0o750
    old = os.umask(0o022)
    try:
        out = small_result.save(tmp_path / "c")
    finally:
        os.umask(old)
    assert (out.stat().st_mode & 0o777) == 0o755


def test_an_exception_while_writing_leaves_the_previous_result_and_no_copies(tmp_path, small_result, monkeypatch):
    v = tmp_path / "v"
    small_result.save(v)
    before = listing(v)
    import pyarrow.parquet as pq
    real = pq.write_table  # every Parquet file of a result goes through it (from columns or DataFrames)

    def interrupted(table, path, *a, **k):
        if str(path).endswith("ports.parquet"):
            raise KeyboardInterrupt
        return real(table, path, *a, **k)

    monkeypatch.setattr(pq, "write_table", interrupted)
    with pytest.raises(KeyboardInterrupt):
        small_result.save(v)
    assert listing(v) == before and leftovers(tmp_path, v) == []
    (v / "notes.txt").write_text("keep\n")  # the in-place path too
    with pytest.raises(KeyboardInterrupt):
        small_result.save(v)
    assert (v / "notes.txt").read_text() == "keep\n" and leftovers(tmp_path, v) == []
    assert {k: b for k, b in listing(v).items() if k != "notes.txt"} == before


KILL_SCRIPT = r"""
import os, signal, sys
import ccscope as cc
from ccscope import _outdir
res = cc.simulate(cc.scenario.io.load_file(sys.argv[1]), until_s=1e-3)
where = sys.argv[3]
if where == "fill":
    import pyarrow.parquet as pq
    real = pq.write_table
    def die(table, path, *a, **k):
        real(table, path, *a, **k)
        if str(path).endswith("flows.parquet"):
            os.kill(os.getpid(), signal.SIGKILL)
    pq.write_table = die
elif where == "swap":  # between moving the previous result aside and renaming the new one in
    real_rename = os.rename
    def rename(a, b):
        real_rename(a, b)
        if ".old-" in os.path.basename(str(b)):
            os.kill(os.getpid(), signal.SIGKILL)
    os.rename = rename
elif where in ("update-out", "update-in"):  # an update in place: while the old entries move out / the new in
    real_rename = os.rename
    side = ".ccscope.old-" if where == "update-out" else ".ccscope.tmp-"
    def rename(a, b):
        real_rename(a, b)
        if os.path.basename(os.path.dirname(str(b if where == "update-out" else a))).startswith(side):
            os.kill(os.getpid(), signal.SIGKILL)
    os.rename = rename
res.save(sys.argv[2], force=True)
"""


@pytest.mark.parametrize("where", ["fill", "swap"])
def test_copies_left_by_kill_9_are_removed_or_restored_at_the_next_run(tmp_path, small_result, where):
    v = tmp_path / "v"
    small_result.save(v)
    if where == "fill":
        (v / "notes.txt").write_text("keep\n")  # an update in place: the staging copy is inside v
    before = listing(v)
    p = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(SCEN), str(v), where], capture_output=True)
    assert p.returncode == -signal.SIGKILL
    assert leftovers(tmp_path, v), "the kill should have left a copy behind"
    if where == "swap":
        assert not v.exists()  # the previous result sits in .v.old-<pid>-...
    # legacy copies of earlier versions (mkdtemp names, no pid) are removed too
    (tmp_path / ".v.tmp-abcd_123").mkdir()
    (tmp_path / ".v.old-zz99yy88").mkdir()
    p = run_cli("run", SCEN, "--until", "2ms", "--quiet", "--out", v)
    assert p.returncode == 0, p.stderr
    assert leftovers(tmp_path, v) == []
    after = listing(v)
    if where == "fill":
        assert after["notes.txt"] == b"keep\n"
    assert set(before) - {"notes.txt"} >= {"meta.json", "summary.json"} and "meta.json" in after


@pytest.mark.parametrize("where", ["update-out", "update-in"])
def test_an_update_in_place_killed_midway_is_completed_at_the_next_write(tmp_path, small_result, where):
    v = tmp_path / "v"
    small_result.save(v)
    (v / "notes.txt").write_text("keep\n")
    before = listing(v)
    p = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(SCEN), str(v), where], capture_output=True)
    assert p.returncode == -signal.SIGKILL
    assert not (v / "meta.json").exists()  # the markers left first: never taken for a complete result
    _outdir.plan_dir(v, _outdir.RUN)  # not refused: the interrupted update is recovered first
    assert leftovers(tmp_path, v) == []
    if where == "update-out":  # before anything new came in: the previous result is back
        assert listing(v) == before
    else:  # the new entries were coming in: the rest of them are moved in
        assert cc.load(v).summary["sim_time_s"] == pytest.approx(1e-3)
        assert (v / "notes.txt").read_text() == "keep\n"


def test_copies_of_a_live_process_are_left_alone(tmp_path, small_result):
    live = tmp_path / _outdir.temp_name("v")  # this test's own pid: alive
    live.mkdir()
    other_host = tmp_path / f".v.tmp-1-otherhost-{'0' * 8}"
    other_host.mkdir()
    small_result.save(tmp_path / "v")
    assert live.is_dir() and other_host.is_dir()


def test_sigterm_while_writing_in_the_cli_removes_the_staging_copy(tmp_path):
    script = (
        "import os, signal, sys\n"
        "import pyarrow.parquet as pq\n"
        "real = pq.write_table\n"
        "def term(table, path, *a, **k):\n"
        "    real(table, path, *a, **k)\n"
        "    if str(path).endswith('flows.parquet'):\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "pq.write_table = term\n"
        f"sys.argv = ['ccscope', 'run', {str(SCEN)!r}, '--until', '3ms', '--quiet', '--out', {str(tmp_path / 'v')!r}]\n"
        "from ccscope.cli import main\n"
        "main()\n")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    # `ccscope run` handles SIGTERM like Ctrl-C (exit 130); SIGTERM elsewhere exits 143
    assert p.returncode in (130, 128 + signal.SIGTERM), p.stderr
    assert not (tmp_path / "v").exists() and leftovers(tmp_path) == []


# --------------------------------------------------------------------------- demo and plot


def test_plot_o_replaces_a_figure_refuses_other_files_and_directories(tmp_path, small_result):
    r = tmp_path / "r"
    small_result.save(r)
    fig = tmp_path / "fig.png"
    for _ in range(2):  # new, then replacing its own figure
        p = run_cli("plot", r, "-o", fig)
        assert p.returncode == 0, p.stderr
    assert fig.stat().st_size > 10_000 and _outdir.is_our_figure(fig)
    photo = tmp_path / "photo.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\n not ours")
    p = run_cli("plot", r, "-o", photo)
    assert p.returncode == 2 and "not a figure written by ccscope" in p.stderr and "--force" in p.stderr
    assert photo.read_bytes() == b"\x89PNG\r\n\x1a\n not ours"
    p = run_cli("plot", r, "-o", photo, "--force")
    assert p.returncode == 0 and _outdir.is_our_figure(photo)
    p = run_cli("plot", r, "-o", r)
    assert p.returncode == 2 and "a directory" in p.stderr and r.is_dir() and (r / "meta.json").is_file()
    d = tmp_path / "d.png"
    d.mkdir()
    p = run_cli("plot", r, "-o", d, "--force")
    assert p.returncode == 2 and d.is_dir()
    p = run_cli("plot", r, "-o", tmp_path / "x.txt")
    assert p.returncode == 2 and "unknown figure format '.txt'" in p.stderr
    assert leftovers(tmp_path, r) == []


def test_demo_out_follows_the_same_rules(tmp_path):
    v = tmp_path / "v"
    v.mkdir()
    (v / "notes.txt").write_text("keep\n")
    p = run_cli("demo", "--out", v, "--quiet")
    assert p.returncode == 2 and "not a ccscope run result" in p.stderr
    assert os.listdir(v) == ["notes.txt"]


# --------------------------------------------------------------------------- sweep, repro, report


def test_sweep_out_refuses_an_unrelated_directory_and_a_run_result(tmp_path, small_result):
    v = tmp_path / "v"
    v.mkdir()
    (v / "notes.txt").write_text("keep\n")
    args = ["sweep", SCEN, "--grid", "aqm.k_pkts=20", "--until", UNTIL, "--quiet", "--jobs", "1"]
    p = run_cli(*args, "--out", v)
    assert p.returncode == 2 and "not a ccscope sweep output" in p.stderr and os.listdir(v) == ["notes.txt"]
    r = tmp_path / "r"
    small_result.save(r)
    p = run_cli(*args, "--out", r)
    assert p.returncode == 2 and "contains" in p.stderr
    p = run_cli(*args, "--out", v, "--force")
    assert p.returncode == 0, p.stderr
    assert (v / "notes.txt").read_text() == "keep\n" and (v / "summary.parquet").is_file()
    import ccscope.sweep as sw
    with pytest.raises(_outdir.OutputRefused):
        sw.sweep(cc.scenario.io.load_file(SCEN), {"aqm.k_pkts": [20]}, out=r, until_s=UNTIL_S)


def test_repro_run_out_refuses_an_unrelated_directory(tmp_path):
    v = tmp_path / "v"
    v.mkdir()
    (v / "notes.txt").write_text("keep\n")
    p = run_cli("repro", "run", "coexistence/fig1", "--quick", "--out", v)
    assert p.returncode == 2 and "not a ccscope reproduction output" in p.stderr
    assert os.listdir(v) == ["notes.txt"]
    f = tmp_path / "f"
    f.write_text("x")
    p = run_cli("repro", "run", "coexistence/fig1", "--quick", "--out", f)
    assert p.returncode == 2 and f.read_text() == "x"


def test_repro_entry_rerun_replaces_only_its_own_files(tmp_path):
    from ccscope.repro import runner
    root = tmp_path / "out"
    rec = runner.run_entry("coexistence/fig1", quick=True, out_root=root)
    d = runner.out_dir(root, "coexistence/fig1", True)
    assert (d / "result.json").is_file() and (root / _outdir.REPRO_ROOT_MARKER).is_file()
    (d / "notes.txt").write_text("keep\n")
    (d / "data.parquet").write_text("stale")
    rec2 = runner.run_entry("coexistence/fig1", quick=True, out_root=root)
    assert rec2["verdict"] == rec["verdict"]
    assert (d / "notes.txt").read_text() == "keep\n" and (d / "data.parquet").read_bytes() != b"stale"
    assert leftovers(d, d.parent, root) == []
    # a root written before the marker existed (only paper directories) is still recognised
    (root / _outdir.REPRO_ROOT_MARKER).unlink()
    runner.prepare_root(root)
    assert (root / _outdir.REPRO_ROOT_MARKER).is_file()


def test_report_refuses_to_replace_a_page_it_did_not_generate(tmp_path):
    from ccscope.repro import report
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "REPRODUCTIONS.md").write_text("# my own notes\n")
    (docs / "other.md").write_text("keep\n")
    p = run_cli("repro", "report", "--out", tmp_path / "none", "--docs", docs)
    assert p.returncode == 2 and "not generated by `ccscope repro report`" in p.stderr and "--force" in p.stderr
    assert (docs / "REPRODUCTIONS.md").read_text() == "# my own notes\n"
    report.write(tmp_path / "none", docs, force=True)
    assert "ccscope repro report" in (docs / "REPRODUCTIONS.md").read_text()
    report.write(tmp_path / "none", docs)  # its own page now: no force needed
    assert (docs / "other.md").read_text() == "keep\n" and leftovers(docs) == []
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(_outdir.OutputRefused):
        report.write(tmp_path / "none", f)
