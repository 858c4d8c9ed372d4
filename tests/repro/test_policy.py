"""The mechanical parts of docs/VERDICTS.md on hand-made rows: advisory bases, the two-standard-error
rule, cause templates and their lint."""
from __future__ import annotations

import math
import types

import pytest
from ccscope.repro import _base
from ccscope.repro._base import (Checks, CauseError, cause_lint, independent, known_inconsistency, render_cause,
                                 se)


@pytest.fixture
def strict(monkeypatch):
    monkeypatch.setattr(_base, "LEGACY_GRACE", False)


def test_se_is_sample_sd_over_sqrt_n():
    assert se([1.0, 2.0, 3.0]) == pytest.approx(1.0 / math.sqrt(3))
    assert math.isnan(se([1.0])) and math.isnan(se([]))


def test_beyond_passes_by_two_se_and_flags_the_noise():
    c = Checks()
    assert c.beyond("clear", 1.0, 0.2, 0.5, ">")             # margin 0.5 >= 2 x 0.2
    assert not c.beyond("noise", 1.0, 0.3, 0.5, ">")         # margin 0.5 < 2 x 0.3, right side
    assert not c.beyond("wrong side", 0.4, 0.01, 0.5, ">")
    assert c.beyond("below", 0.1, 0.1, 0.5, "<")
    assert not c.beyond("nan se", 1.0, float("nan"), 0.5, ">")
    assert c.beyond("single run", 0.51, None, 0.5, ">")
    rows = {r["name"]: r for r in c.as_dicts()}
    assert rows["noise"]["noise"] and rows["noise"]["se"] == 0.3
    assert not rows["wrong side"]["noise"] and not rows["clear"]["noise"]
    assert rows["nan se"]["noise"] and rows["single run"]["se"] is None
    assert c.verdict == "partly"
    with pytest.raises(ValueError):
        c.beyond("bad side", 1.0, 0.1, 0.0, ">=")


def test_inside_the_noise_alone_keeps_an_entry_from_reproduced():
    c = Checks()
    c.add("exact", 1.0, True, "1")
    c.beyond("ordering", 0.15, 0.1, 0.0, ">")
    assert c.verdict == "partly"


def test_order_uses_the_quadrature_of_the_errors():
    c = Checks()
    assert c.order("a > b", 2.0, 0.3, 1.0, 0.4, ">")          # 1.0 >= 2 x 0.5
    assert not c.order("a > b tight", 2.0, 0.3, 1.1, 0.4, ">")  # 0.9 < 1.0
    r = c.as_dicts()
    assert r[0]["se"] == pytest.approx(0.5) and r[0]["operands"] == [2.0, 1.0] and r[0]["measured"] == 1.0
    assert r[1]["noise"]
    assert c.order("a < b", 1.0, None, 2.0, None, "<")


def test_independent_basis_is_recorded_and_refuses_a_port():
    c = Checks()
    c.add("inference", 0.01, False, "≥ 0.02", basis=independent("ns-2 (Agent/TCP/Reno)", 0.010, "B = 700, seed 1"))
    row = c.as_dicts()[0]
    assert row["advisory"] and row["basis"] == {"kind": "independent", "simulator": "ns-2 (Agent/TCP/Reno)",
                                                "measured": 0.01, "setup": "B = 700, seed 1"}
    assert c.verdict == "not reproduced"  # no strict row
    with pytest.raises(ValueError):
        independent("DCTCP port to ns-2 written for ccscope", 1.0, "x")
    with pytest.raises(ValueError):
        independent("ns-2", None, "x")


def test_known_inconsistency_is_checked_against_figures_md():
    if not _base.known_items():
        pytest.skip("FIGURES.md not available next to the repository")
    b = known_inconsistency("periodic", 5).as_dict()
    assert b["kind"] == "known_inconsistency" and b["paper"] == "periodic" and b["item"] == 5 and b["title"]
    assert known_inconsistency("dctcp_analysis", 9).as_dict()["paper"] == "dctcp-analysis"
    with pytest.raises(ValueError):
        known_inconsistency("periodic", 99)
    with pytest.raises(ValueError):
        known_inconsistency("nopaper", 1)


def test_an_advisory_row_needs_a_basis_or_a_diagnostic_name(strict):
    c = Checks()
    c.add("[diagnostic] variant X", 1.0, False, "> 2")
    assert c.items[0].advisory and c.items[0].basis is None
    with pytest.raises(ValueError):
        c.add("threshold", 1.0, False, "> 2", advisory=True)
    with pytest.raises(ValueError):
        c.add("threshold", 1.0, False, "> 2", basis="known paper inconsistency")
    with pytest.raises(ValueError):
        c.near("threshold", 1.0, 2.0, 0.1, advisory=True)
    assert _base.basis_problem({"name": "x", "advisory": True, "basis": {"kind": "legacy", "text": ""}})
    assert _base.basis_problem({"name": "[diagnostic] x", "advisory": True, "basis": None}) is None


def test_a_pre_policy_advisory_row_counts_as_strict_while_modules_move(monkeypatch):
    monkeypatch.setattr(_base, "LEGACY_GRACE", True)
    c = Checks()
    c.add("exact", 1.0, True, "1")
    with pytest.warns(_base.LegacyBasisWarning):
        c.add("old threshold", 1.0, False, "> 2", advisory=True)
    row = c.as_dicts()[1]
    assert not row["advisory"] and row["basis"]["kind"] == "legacy" and c.verdict == "partly"
    assert _base.basis_problem(row)


def test_simulator_misses_too_is_gone():
    assert not hasattr(_base, "SIMULATOR_MISSES_TOO")


def _mod(cause, paper_numbers=(), eid="periodic/fig99"):
    return types.SimpleNamespace(ID=eid, CAUSE=cause, PAPER_NUMBERS=paper_numbers)


def test_render_cause_fills_fields_from_the_record():
    rec = {"measured": {"drops": 12, "util": 0.97712}, "cause_values": {"a": {"b": 3.3012}, "xs": [1.5, 2.5]}}
    m = _mod("seed 1 sits on the {v.a.b:.3g} % cycle; {m.drops} drops, util {m.util:.1%}, first {v.xs[0]}")
    assert render_cause(m, rec) == "seed 1 sits on the 3.3 % cycle; 12 drops, util 97.7%, first 1.5"
    d = _mod({"few": "{m.drops} drops", "none": "no drop"})
    assert render_cause(d, {**rec, "cause": "few"}) == "12 drops"
    assert render_cause(d, rec) == ""  # no cause chosen
    assert render_cause(_mod("x"), {**rec, "cause": None}) == ""
    with pytest.raises(CauseError, match=r"periodic/fig99.*v\.a\.c"):
        render_cause(_mod("{v.a.c}"), rec)
    with pytest.raises(CauseError, match="other"):
        render_cause(d, {**rec, "cause": "other"})
    with pytest.raises(CauseError):
        render_cause(_mod("{x}"), rec)


def test_cause_lint_allows_fields_references_and_paper_numbers_only():
    ok = _mod("ns-2 (P001 §4.5, eq 3, eqs 3-4, Fig 12, Figs 7-8, Table 1, E23, RFC 6298, P0, "
              "docs/models/periodic_ns2.md) gives {v.x:.3g} against 96.11 %", ("96.11 %",))
    assert cause_lint(ok) == []
    assert cause_lint(_mod("the queue near q0, R0 and Z1 Z2, at R0.")) == []
    assert cause_lint(_mod("q05")) and cause_lint(_mod("R0.5")) and cause_lint(_mod("N5"))
    bad = _mod("a few drops remain next to 97.7")
    assert len(cause_lint(bad)) == 1 and "97.7" in cause_lint(bad)[0]
    assert cause_lint(_mod({"a": "fine {v.x}", "b": "seed 1 on the 1.1 % cycle"}))[0].startswith("periodic/fig99: "
                                                                                                 "CAUSE['b']")
    assert cause_lint(_mod("{x} here"))
    assert cause_lint(_mod("12 and 0.1", ("1",))) and cause_lint(_mod("§II.C.2, 3 and 1", ("1",)))
    assert cause_lint(_mod("§II.C.2, 3 and 1", ("1", "3"))) == []
    assert cause_lint(_mod("x", "96.11"))  # PAPER_NUMBERS must be a tuple
    assert cause_lint(types.SimpleNamespace(ID="x")) == []


def test_verdicts_md_lists_exactly_the_entries_whose_quick_window_cannot_show_the_claim():
    import re
    from pathlib import Path

    from ccscope.repro import registry
    text = (Path(__file__).resolve().parents[2] / "docs" / "VERDICTS.md").read_text()
    section = text.split("## Entries whose quick variant cannot show the claim", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- `([^`]+)`", section, flags=re.M)
    modules = [e.id for e in registry.entries() if getattr(e.load(), "QUICK_SHOWS_CLAIM", True) is False]
    assert listed == modules
    for eid in modules:
        assert getattr(registry.get(eid), "QUICK_NOTE", "").strip(), eid
