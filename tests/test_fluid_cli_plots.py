"""`ccscope stability qcn|dx|asm -o` and `ccscope fluid qcn|asm|tcp-red`: plots written atomically, one-line errors."""
import os

import pytest
import typer
from ccscope.fluid_cli import register
from typer.testing import CliRunner


@pytest.fixture(scope="module")
def run():
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


@pytest.mark.parametrize("args,needle", [
    (("stability", "qcn", "--rate", "10Gbps", "--flows", "10"), "270.71 us"),
    (("stability", "dx", "--rate", "10Gbps", "--flows", "50", "--rtt", "80us"), "27.70 flows"),
    (("stability", "asm", "--rate", "1Gbps"), "set S: M(a-, b-) = 1"),
])
def test_stability_writes_a_png(run, tmp_path, args, needle):
    out = tmp_path / "fig.png"
    r = run(*args, "-o", str(out))
    assert r.exit_code == 0, r.output
    assert needle in r.output and f"wrote {out}" in r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"]  # no temporary file left behind


def test_stability_asm_compliant_set_is_satisfied(run):
    r = run("stability", "asm")
    # b- = 2 w a- = 0.5 > w a- + 128 p/w = 0.25 + 0.04 (units of C/128, ALGORITHMS.md §5.2)
    assert r.exit_code == 0 and "needs b- > 0.29 (b- = 0.5) -> satisfied" in r.output


def test_fluid_tcp_red_reports_hollot_verdicts(run):
    r = run("fluid", "tcp-red", "--max-th", "1500", "--until", "50s")
    assert r.exit_code == 0, r.output
    assert "q0 = 274.96 pkts" in r.output and "Proposition 1 holds" in r.output


@pytest.mark.parametrize("args,needle", [
    (("stability", "qcn", "-o", "fig.jpgx"), "-o 'fig.jpgx': unknown plot format 'jpgx'"),
    (("stability", "asm", "--p", "2"), "--p '2': must lie in (0, 1)"),
    (("stability", "asm", "--w", "-1"), "--w '-1': must be > 0"),
    (("fluid", "qcn", "--delay", "-5us"), "--delay '-5us': must be >= 0"),
    (("fluid", "qcn", "--feedback", "both"), "--feedback 'both'"),
    (("fluid", "asm", "--gains", "X"), "--gains 'X'"),
    (("fluid", "tcp-red", "--max-th", "3"), "--max-th '3': must be > --min-th"),
    (("fluid", "tcp-red", "--wq", "0"), "--wq '0': must lie in (0, 1)"),
])
def test_bad_input_is_one_line_naming_the_option(run, args, needle):
    r = run(*args)
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], r.output
    assert "Traceback" not in r.output
    assert not os.path.exists("fig.jpgx")


def test_plot_output_creates_missing_folders_and_keeps_other_files(run, tmp_path):
    # -o writes through ccscope._outdir: a missing folder is made, the figure lands atomically
    # (no temporary file left), and an existing file that is not a figure is not overwritten
    out = tmp_path / "new" / "deeper" / "dx.png"
    r = run("stability", "dx", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert out.read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in out.parent.iterdir()) == ["dx.png"]
    r = run("stability", "dx", "-o", str(out))  # our own figure: replaced
    assert r.exit_code == 0, r.output
    notes = tmp_path / "notes.png"
    notes.write_text("not a figure")
    r = run("stability", "dx", "-o", str(notes))
    assert r.exit_code == 2 and "not a figure written by ccscope" in r.output and "--force" in r.output
    assert notes.read_text() == "not a figure"
    (tmp_path / "d.png").mkdir()
    r = run("stability", "dx", "-o", str(tmp_path / "d.png"), "--force")
    assert r.exit_code == 2 and "a directory" in r.output
    r = run("stability", "dx", "-o", str(notes), "--force")
    assert r.exit_code == 0, r.output
    assert notes.read_bytes().startswith(b"\x89PNG")
