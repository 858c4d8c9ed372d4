"""run -> promote -> report -> check-stale on one cheap entry (coexistence/fig1, a closed form) and on hand-made
records: what result.json records, the committed evidence, the report's rows, bases, noise and causes, its
determinism and links, and staleness."""
from __future__ import annotations

import json
import re
import types
from pathlib import Path

import pytest
from ccscope import _outdir
from ccscope.repro import evidence, registry, report, runner
from ccscope.repro._base import Checks, independent, known_inconsistency, verdict

EID = "coexistence/fig1"


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    root = tmp_path_factory.mktemp("out")
    runner.run_entry(EID, quick=False, out_root=root)
    runner.run_entry(EID, quick=True, out_root=root)
    return root


def test_result_records_the_commit_and_nothing_else_that_changes_between_runs(out):
    d = runner.out_dir(out, EID, False)
    rec = json.loads((d / "result.json").read_text())
    assert (d / "figure.png").stat().st_size > 0 and (d / "data.parquet").exists()
    for key in ("id", "claim", "measured", "verdict", "tolerance", "parameters", "errata", "ccscope_version", "seeds",
                "wall_s", "commit", "dirty"):
        assert key in rec
    assert rec["figure"] == "figure.png"
    assert rec["commit"] == "unknown" or re.fullmatch(r"[0-9a-f]{40}", rec["commit"])
    again = runner.run_entry(EID, quick=False, write=False)
    rec.pop("wall_s"), again.pop("wall_s"), rec.pop("figure")
    for k in ("commit", "dirty"):  # other work may be committed or saved meanwhile
        rec.pop(k), again.pop(k)
    assert json.loads(json.dumps(again)) == rec


def test_git_commit_outside_a_checkout_is_unknown(monkeypatch):
    monkeypatch.setattr(registry, "repo_root", lambda: None)
    assert runner.git_commit() == {"commit": "unknown", "dirty": None}


def test_promote_copies_reduced_evidence_atomically_and_refuses_dirty_results(out, tmp_path):
    rec = json.loads((runner.out_dir(out, EID, False) / "result.json").read_text())
    ev = tmp_path / "repro"
    if rec["dirty"]:
        with pytest.raises(ValueError, match="uncommitted"):
            evidence.promote(out, ev, patterns=EID)
        assert not ev.exists()
    res = evidence.promote(out, ev, patterns=EID, allow_dirty=True)
    assert res.written == {"full": [EID], "quick": [EID]}
    assert sorted(p.name for p in (ev / EID / "full").iterdir()) == ["figure.png", "result.json"]
    assert sorted(p.name for p in (ev / EID / "quick").iterdir()) == ["result.json"]
    assert (ev / EID / "full" / "result.json").read_bytes() == (runner.out_dir(out, EID, False) / "result.json").read_bytes()
    from PIL import Image
    with Image.open(ev / EID / "full" / "figure.png") as im:
        assert im.width <= evidence.FIGURE_MAX_WIDTH_PX and im.mode == "P"
    evidence.promote(out, ev, patterns=EID, allow_dirty=True)  # again: replaced in place, nothing left over
    assert not [p for p in ev.rglob("*") if _outdir.is_temp(p.name)]
    assert registry.committed(EID, "full", ev)["verdict"] == rec["verdict"]
    assert registry.verdict(EID, ev) == rec["verdict"] and registry.verdict("dx/fig1a", ev) == "not run"


def _render(ev: Path, docs: Path) -> str:
    return report.render(ev, docs)["REPRODUCTIONS.md"]


def test_report_is_deterministic_relative_and_resolves(out, tmp_path):
    ev = tmp_path / "docs" / "repro"
    evidence.promote(out, ev, patterns=EID, allow_dirty=True)
    docs = tmp_path / "docs"
    report.write(ev, docs)
    first = {n: (docs / n).read_bytes() for n in report.PAGES}
    report.write(ev, docs)
    assert {n: (docs / n).read_bytes() for n in report.PAGES} == first
    md = first["REPRODUCTIONS.md"].decode()
    links = re.findall(r"\]\(([^)\s]+)\)", md) + re.findall(r'(?:href|src)="([^"]+)"', first["gallery.md"].decode())
    assert links and all(not x.startswith("/") and (docs / x).exists() for x in links), links
    assert f"[figure](repro/{EID}/full/figure.png)" in md and f"(gallery/{EID.replace('/', '__')}.png)" in md
    row = next(line for line in md.splitlines() if line.startswith(f"| `{EID}`"))
    first = next(c for c in json.loads((ev / EID / "full" / "result.json").read_text())["checks"] if not c["advisory"])
    assert f"{'✓' if first['passed'] else '✗'} {first['name']}: " in row
    assert report.check_stale(ev, patterns=EID) == {}


def test_check_stale_flags_a_changed_quick_result(out, tmp_path):
    from typer.testing import CliRunner

    from ccscope.cli import app
    ev = tmp_path / "docs" / "repro"
    evidence.promote(out, ev, patterns=EID, allow_dirty=True)
    q = ev / EID / "quick" / "result.json"
    rec = json.loads(q.read_text())
    key = "probe"
    rec["measured"][key] = 1.0
    q.write_text(json.dumps(rec))
    stale = report.check_stale(ev, patterns=EID)
    assert list(stale) == [EID] and key in stale[EID]
    md = report.render(ev, tmp_path / "docs", stale=stale)["REPRODUCTIONS.md"]
    assert "## Stale results" in md and "(stale)" in md
    rec["verdict"] = "partly"
    q.write_text(json.dumps(rec))
    assert "verdict partly committed" in report.check_stale(ev, patterns=EID)[EID]
    r = CliRunner().invoke(app, ["repro", "report", "--evidence", str(ev), "--docs", str(tmp_path / "docs"),
                                 "--check-stale"])
    assert r.exit_code == 1 and "stale" in r.output


def _hand_made(ev: Path, c: Checks, **extra) -> None:
    rec = {"id": EID, "title": "t", "kind": "fluid", "claim": "a claim", "variant": "full", "commit": "0" * 40,
           "dirty": False, **verdict(c, {"x": 1.5}), "wall_s": 1.0, **extra}
    p = ev / EID / "full" / "result.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(rec))


def test_report_shows_bases_noise_and_deciding_rows(tmp_path):
    c = Checks()
    c.add("exact value", 2.0, True, "2")
    c.beyond("ordering", 0.15, 0.1, 0.0, ">")
    c.add("inference", 0.01, False, "≥ 0.02", basis=independent("ns-2 (Agent/TCP/Reno)", 0.86, "seeds 1-3"))
    if registry_known := __import__("ccscope.repro._base", fromlist=["known_items"]).known_items():
        assert registry_known
        c.add("printed number", 3.0, False, "4", basis=known_inconsistency("periodic", 5))
    c.add("[diagnostic] variant", 1.0, False, "2")
    ev = tmp_path / "repro"
    _hand_made(ev, c)
    md = _render(ev, tmp_path)
    row = next(line for line in md.splitlines() if line.startswith(f"| `{EID}`"))
    # the deciding rows: the failed strict row first, then the passing one; advisory rows not among them
    assert row.index("✗ ordering: 0.15") < row.index("✓ exact value: 2") and "inference" not in row
    assert "inside the noise (se 0.1)" in row and "| partly |" in row and "`0000000000`" in row
    assert "failed (inside the noise): **ordering**" in md
    assert "advisory: independent simulator ns-2 (Agent/TCP/Reno) measured 0.86 (seeds 1-3), fails" in md
    assert "diagnostic, fails: **[diagnostic] variant**" in md
    assert "known paper inconsistency" not in md
    if "printed number" in md:
        assert "FIGURES.md known inconsistency, periodic item 5" in md and "| periodic | 5 |" in md


def test_report_flags_a_legacy_advisory_row(tmp_path):
    c = Checks()
    c.add("exact value", 2.0, True, "2")
    ev = tmp_path / "repro"
    _hand_made(ev, c, checks=[*c.as_dicts(), {"name": "old", "measured": 1, "expected": "2", "passed": False,
                                              "tolerance": "", "advisory": True, "basis": "known paper inconsistency"},
                                {"name": "moving", "measured": 1, "expected": "2", "passed": False, "tolerance": "",
                                 "advisory": False, "basis": {"kind": "legacy", "text": ""}}])
    md = _render(ev, tmp_path)
    assert "advisory WITHOUT an allowed basis" in md and "- strict (row 'moving' was written with a pre-policy" in md


def _fake(cause, check_extra, plot=None):
    def run(quick):
        from ccscope.repro._base import Run
        return Run(values={"x": 0.9771}, quick=quick)

    def check(run):
        c = Checks()
        c.add("x high", run.values["x"], run.values["x"] > 0.99, "> 0.99")
        return {**verdict(c, {"x": run.values["x"]}), **check_extra}
    return types.SimpleNamespace(ID=EID, TITLE="t", KIND="fluid", CLAIM="c", COST="0", CAUSE=cause, run=run,
                                 check=check, plot=plot or (lambda run: None))


def test_runner_fills_the_cause_from_the_run(monkeypatch):
    mod = _fake({"low": "x is {m.x:.3g}, {v.drops} drops remain"}, {"cause": "low", "cause_values": {"drops": 3}})
    monkeypatch.setattr(registry, "get", lambda eid: mod)
    rec = runner.run_entry(EID, write=False)
    assert rec["verdict"] == "partly" or rec["verdict"] == "not reproduced"
    assert rec["cause"] == "low" and rec["cause_values"] == {"drops": 3}
    assert rec["notes"] == "x is 0.977, 3 drops remain"
    bad = _fake("{v.missing}", {"cause_values": {"drops": 3}})
    monkeypatch.setattr(registry, "get", lambda eid: bad)
    rec = runner.run_entry(EID, write=False)
    assert rec["verdict"] == "error" and "v.missing" in rec["message"] and EID in rec["message"]


def test_runner_reports_a_module_that_does_not_import(monkeypatch, tmp_path):
    def broken(eid):
        raise AttributeError("module has no attribute 'X'")
    monkeypatch.setattr(registry, "get", broken)
    rec = runner.run_entry(EID, quick=True, out_root=tmp_path)
    assert rec["verdict"] == "error" and "importing the module" in rec["message"]
    assert json.loads((tmp_path / EID / "quick" / "result.json").read_text())["verdict"] == "error"


def test_skip_not_yet_reads_the_committed_verdict(tmp_path, monkeypatch):
    ev = tmp_path / "repro"
    c = Checks()
    _hand_made(ev, c, verdict="not yet")
    registry.set_evidence_root(ev)
    try:
        assert registry.verdict(EID) == "not yet"
        recs = runner.run_many([EID, "dx/fig1a"], quick=True, out_root=tmp_path / "o", skip_not_yet=True)
        assert [r["id"] for r in recs] == ["dx/fig1a"]
    finally:
        registry.set_evidence_root(None)
