"""Reproduction harness: the list matches FIGURES.md, every module honours the contract, and every
quick variant whose status is `reproduced` still passes its check (FIGURES.md quick budgets)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ccscope.repro import registry
from ccscope.repro.runner import run_entry

FIGURES = Path(__file__).resolve().parents[3] / "shared" / "FIGURES.md"


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
REPRODUCED = [e.id for e in ENTRIES if registry.verdict(e.id) == "reproduced"]
NOT_YET = [e.id for e in ENTRIES if registry.verdict(e.id) == "not yet"]


def test_list_matches_figures_md_ids():
    assert sorted(e.id for e in ENTRIES) == sorted(_figures_ids())


def test_every_module_has_cost_and_claim():
    for e in ENTRIES:
        m = e.load()
        assert m.CLAIM and m.COST and m.TITLE, e.id


def test_glob_selects_a_paper():
    assert {e.id.split("/")[0] for e in registry.select("dx/*")} == {"dx"}
    with pytest.raises(KeyError):
        registry.select("no-such-paper/*")


def test_not_yet_entry_reports_its_missing_mechanism(tmp_path):
    if not NOT_YET:
        pytest.skip("every entry has a mechanism now")
    eid = NOT_YET[0]
    rec = run_entry(eid, quick=True, out_root=tmp_path)
    assert rec["verdict"] == "not yet" and rec["message"].startswith("needs ")
    assert json.loads((tmp_path / eid / "quick" / "result.json").read_text())["verdict"] == "not yet"


@pytest.mark.parametrize("entry_id", REPRODUCED)
def test_quick_variant_of_reproduced_entry_passes(entry_id, tmp_path):
    rec = run_entry(entry_id, quick=True, out_root=tmp_path, write=(entry_id == REPRODUCED[0]))
    failed = [c for c in rec.get("checks", []) if not c["passed"] and not c["advisory"]]
    assert rec["verdict"] == "reproduced", (rec.get("message"), failed)


def test_first_entry_writes_figure_data_and_result(tmp_path):
    rec = run_entry("coexistence/fig1", quick=True, out_root=tmp_path)
    d = tmp_path / "coexistence/fig1/quick"
    assert (d / "figure.png").stat().st_size > 0 and (d / "result.json").exists() and (d / "data.parquet").exists()
    for key in ("id", "claim", "measured", "verdict", "tolerance", "parameters", "errata", "ccscope_version", "seeds",
                "wall_s"):
        assert key in rec
