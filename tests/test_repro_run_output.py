"""`ccscope repro run` prints, under each verdict, the claim and each strict row's measured value against
what was expected, and a progress line on stderr while an entry runs long."""
from __future__ import annotations

import time

from typer.testing import CliRunner

from ccscope import repro_cli
from ccscope.cli import app


def test_run_prints_claim_and_measured(tmp_path):
    r = CliRunner().invoke(app, ["repro", "run", "dx/fig1a", "--quick", "-o", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].split()[:2] == ["reproduced", "dx/fig1a"] and "[quick, " in lines[0]
    assert lines[1].strip().startswith("claim: The bound grows with N")
    assert lines[2].strip().startswith("✓ measured bound at N = 5 (us): ")
    assert "(expected 62 ± 1%)" in lines[2]
    assert any(f"more passing rows: {tmp_path / 'out' / 'dx/fig1a/quick/result.json'}" in ln for ln in lines)


def test_failed_rows_first_and_progress(monkeypatch, tmp_path):
    rec = {"id": "dx/fig1a", "variant": "full", "verdict": "partly", "wall_s": 0.4, "claim": "x [y] " * 80,
           "checks": [{"name": "ok row", "measured": 1.0, "expected": "1 ± 1%", "passed": True},
                      {"name": "bad row", "measured": 2.5, "expected": "< 2", "passed": False},
                      {"name": "side row", "measured": 3, "expected": "3", "passed": False, "advisory": True,
                       "basis": None}]}

    def fake_run_many(patterns, *, on_done, **kw):
        time.sleep(0.5)  # a long entry: the progress line appears meanwhile
        on_done(rec)
        return [rec]

    monkeypatch.setattr("ccscope.repro.runner.run_many", fake_run_many)
    monkeypatch.setattr(repro_cli, "PROGRESS_EVERY_S", 0.1)
    r = CliRunner().invoke(app, ["repro", "run", "dx/fig1a", "-o", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert "dx/fig1a still running (" in r.stderr and "0/1 done" in r.stderr
    out = r.stdout.splitlines()
    assert out[0].split()[:2] == ["partly", "dx/fig1a"] and "[full, 0.4 s]" in out[0]
    claim = out[1].strip()
    assert claim.startswith("claim: x [y] x [y]") and claim.endswith("...")  # markup-like text kept, long claim cut
    assert len(claim) <= len("claim: ") + repro_cli.CLAIM_CHARS
    assert out[2].strip() == "✗ measured bad row: 2.5 (expected < 2)"
    assert out[3].strip() == "✓ measured ok row: 1 (expected 1 ± 1%)"
    assert "+1 advisory rows" in out[4]
