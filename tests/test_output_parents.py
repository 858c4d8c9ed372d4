"""Every command's -o/--out creates the missing folders above the path it is given (run, plot, sweep,
sweep plot, fluid, stability, report, repro run/report/site/promote)."""
from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ccscope.cli import app

ROOT = Path(__file__).resolve().parents[1]
SCN = str(ROOT / "scenarios" / "dctcp_dumbbell.toml")


def _ok(*args) -> None:
    r = CliRunner().invoke(app, [str(a) for a in args])
    assert r.exit_code == 0, f"ccscope {' '.join(map(str, args))}: {r.output}"


def test_output_parents_are_created(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    deep = Path("x") / "y"
    _ok("run", SCN, "--until", "2ms", "--out", deep / "run", "-q")
    assert (deep / "run" / "summary.json").is_file()
    cases = [
        (("plot", deep / "run", "-o", "p1/a/fig.png"), "p1/a/fig.png"),
        (("report", deep / "run", "-o", "p2/a/r.html"), "p2/a/r.html"),
        (("sweep", SCN, "--grid", "aqm.k_pkts=10,20", "--until", "1ms", "--out", "p3/a/sw", "-q"),
         "p3/a/sw/summary.parquet"),
        (("sweep", "plot", "p3/a/sw", "--x", "aqm.k_pkts", "--y", "q_mean", "-o", "p4/a/s.png"), "p4/a/s.png"),
        (("sweep", "--fluid", "dctcp", "--grid", "k_pkts=10,20", "--set", "until_s=0.002", "--out", "p5/a/f"),
         "p5/a/f/summary.parquet"),
        (("fluid", "dctcp", "-o", "p6/a/f.png"), "p6/a/f.png"),
        (("stability", "dx", "-o", "p7/a/d.png"), "p7/a/d.png"),
        (("repro", "run", "dx/fig1a", "--quick", "--out", "p8/a/r"), "p8/a/r/dx/fig1a/quick/result.json"),
        (("repro", "report", "--docs", "p9/a/docs"), "p9/a/docs/REPRODUCTIONS.md"),
        (("repro", "site", "-o", "p10/a/site"), "p10/a/site/index.html"),
        (("repro", "promote", "p8/a/r", "--to", "p11/a/ev", "--only", "dx/fig1a", "--allow-dirty"),
         "p11/a/ev/dx/fig1a/quick/result.json"),
    ]
    for args, made in cases:
        _ok(*args)
        assert Path(made).is_file(), f"ccscope {' '.join(map(str, args))}: {made} not written"
