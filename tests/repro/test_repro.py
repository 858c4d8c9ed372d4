"""Reproduction harness against the committed evidence (docs/VERDICTS.md): the list matches FIGURES.md, every
module honours the contract (no STATUS, causes that pass the lint and render against their committed record),
every committed advisory row has an allowed basis, CI's selection (entries whose committed full verdict is
reproduced) reruns each quick variant and finds the committed quick verdict, `repro list`, the report and the
selection agree, and the report rebuilt from docs/repro is the committed docs/REPRODUCTIONS.md byte for byte with
every link resolving. Tests that need committed evidence skip, saying so, while docs/repro is empty."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from ccscope.repro import registry, report
from ccscope.repro._base import basis_problem, cause_lint, render_cause
from ccscope.repro.runner import run_entry

REPO = Path(__file__).resolve().parents[2]
FIGURES = REPO.parent / "shared" / "FIGURES.md"
DOCS = REPO / "docs"
EVIDENCE = registry.evidence_root()


def _figures_ids() -> list[str]:
    if not FIGURES.exists():
        pytest.skip("FIGURES.md not available next to the repository")
    ids = []
    for line in FIGURES.read_text().splitlines():
        m = re.match(r"\| `([a-z-]+/[A-Za-z0-9-]+)` \|", line)
        if m:
            ids.append(m.group(1))
    return ids


ENTRIES = registry.entries()
COMMITTED = {e.id: registry.committed(e.id, "full") for e in ENTRIES}
COMMITTED = {k: v for k, v in COMMITTED.items() if v is not None}
#: CI's selection (docs/VERDICTS.md §5): entries whose committed full verdict is reproduced.
SELECTED = [e.id for e in ENTRIES if registry.verdict(e.id) == "reproduced"]
NO_EVIDENCE = "docs/repro holds no committed result yet (the full rerun is promoted at the end: `make repro`)"


def _need_evidence():
    if not COMMITTED:
        pytest.skip(NO_EVIDENCE)


def test_list_matches_figures_md_ids():
    assert sorted(e.id for e in ENTRIES) == sorted(_figures_ids())


def test_every_module_imports_and_has_cost_and_claim():
    assert not registry.IMPORT_ERRORS, registry.IMPORT_ERRORS
    for e in ENTRIES:
        m = e.load()
        assert m.CLAIM and m.COST and m.TITLE, e.id


def test_no_module_defines_status_or_the_removed_basis():
    bad = [e.id for e in ENTRIES if hasattr(e.load(), "STATUS")]
    assert bad == [], f"hand-written STATUS left in {bad} (docs/VERDICTS.md §5)"
    pkg = REPO / "python" / "ccscope" / "repro"
    uses = sorted(str(p.relative_to(pkg)) for p in pkg.rglob("*.py")
                  if p.name != "_base.py" and "SIMULATOR_MISSES_TOO" in p.read_text())
    assert uses == [], f"SIMULATOR_MISSES_TOO is removed; still used in {uses}"


def test_every_cause_passes_the_lint():
    problems = [p for e in ENTRIES for p in cause_lint(e.load())]
    assert problems == [], "\n".join(problems)


def test_quick_limits_say_why():
    for e in ENTRIES:
        m = e.load()
        if getattr(m, "QUICK_SHOWS_CLAIM", True) is False:
            assert isinstance(getattr(m, "QUICK_NOTE", None), str) and m.QUICK_NOTE.strip(), e.id


def test_every_cause_renders_against_its_committed_record():
    _need_evidence()
    for eid, rec in COMMITTED.items():
        mod = registry.get(eid)
        for rec_v in (rec, registry.committed(eid, "quick")):
            if rec_v is not None and rec_v.get("verdict") not in ("error", "not yet"):
                render_cause(mod, rec_v)  # raises CauseError naming the entry and field
                # notes are the cause filled from the run, never free text written by hand
                assert not rec_v.get("notes") or getattr(mod, "CAUSE", None) is not None, (
                    f"{eid}: free-text notes without a CAUSE template")


def test_every_committed_advisory_row_has_an_allowed_basis():
    _need_evidence()
    problems = []
    for eid in COMMITTED:
        for v in registry.VARIANTS:
            rec = registry.committed(eid, v) or {}
            problems += [f"{eid} ({v}): {p}" for p in
                         (basis_problem(c) for c in rec.get("checks") or []) if p]
    assert problems == [], "\n".join(problems)


def test_every_committed_result_names_its_commit():
    _need_evidence()
    for eid, rec in COMMITTED.items():
        assert re.fullmatch(r"[0-9a-f]{40}", rec.get("commit", "")), (eid, rec.get("commit"))
        assert rec.get("variant") == "full" and rec.get("id") == eid


def test_every_selected_entry_has_a_committed_quick_result_that_shows_the_claim():
    """Without rerunning: each committed reproduced entry has its quick result beside it, reproduced unless the
    module says its quick window cannot show the claim (QUICK_SHOWS_CLAIM = False, with QUICK_NOTE)."""
    _need_evidence()
    problems = []
    for eid in SELECTED:
        q = registry.committed(eid, "quick")
        if q is None:
            problems.append(f"{eid}: no committed quick result")
        elif q["verdict"] != "reproduced" and getattr(registry.get(eid), "QUICK_SHOWS_CLAIM", True) is not False:
            problems.append(f"{eid}: committed quick verdict {q['verdict']}, and QUICK_SHOWS_CLAIM is not False")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("entry_id", SELECTED)
def test_quick_variant_matches_its_committed_quick_result(entry_id):
    """CI: the quick variant of every entry whose committed full verdict is reproduced, rerun at HEAD, has the
    committed quick verdict (and is reproduced, unless its module says the quick window cannot show the claim)."""
    committed = registry.committed(entry_id, "quick")
    assert committed is not None, f"{entry_id}: reproduced, but no docs/repro/{entry_id}/quick/result.json"
    rec = run_entry(entry_id, quick=True, write=False)
    failed = [c["name"] for c in rec.get("checks", []) if not c["passed"] and not c["advisory"]]
    assert rec["verdict"] == committed["verdict"], (rec.get("message"), failed)
    if getattr(registry.get(entry_id), "QUICK_SHOWS_CLAIM", True) is not False:
        assert rec["verdict"] == "reproduced", (rec.get("message"), failed)


def test_list_report_and_selection_agree():
    from typer.testing import CliRunner

    from ccscope.cli import app
    r = CliRunner().invoke(app, ["repro", "list", "--plain"])
    assert r.exit_code == 0, r.output
    listed = {line.split("\t")[0]: line.split("\t")[1] for line in r.output.splitlines() if "\t" in line}
    assert listed == {e.id: registry.verdict(e.id) for e in ENTRIES}
    md = report.render(EVIDENCE, DOCS)["REPRODUCTIONS.md"]
    in_report = {}
    for line in md.split("## Table", 1)[1].splitlines():
        m = re.match(r"\| `([^`]+)` \|", line)
        if m:
            in_report[m.group(1)] = line.split("|")[5].strip().removesuffix(" (stale)")
    assert in_report == listed
    assert sorted(SELECTED) == sorted(k for k, v in in_report.items() if v == "reproduced")


def _links(text: str) -> list[str]:
    found = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'(?:href|src)="([^"]+)"', text)
    return [x for x in found if not re.match(r"[a-z]+:", x) and not x.startswith("#")]


def test_committed_report_is_rebuilt_byte_for_byte_and_its_links_resolve():
    _need_evidence()
    pages = report.render(EVIDENCE, DOCS)
    for name, text in pages.items():
        assert (DOCS / name).read_text(encoding="utf-8") == text, (
            f"docs/{name} is not the report of docs/repro: run `ccscope repro report`")
        dead = [x for x in _links(text) if not (DOCS / x.split("#")[0]).exists()]
        assert dead == [], f"docs/{name}: dead links {dead[:5]}"
