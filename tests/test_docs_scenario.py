"""docs/scenario.md lists every enum's values, the names each topology template gives its nodes and ports
(checked against the engine's expansion), and the CDF file format of workload sizes."""
from __future__ import annotations

import json
import re
from pathlib import Path

from ccscope import _native
from ccscope.scenario.io import load_cdf

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")


def _section(name: str) -> str:
    """The text of `## name` and of its variants' sections (`## name: ...`)."""
    parts = re.split(r"^## ", DOC, flags=re.M)
    found = [p for p in parts if p.startswith(name + "\n") or p.startswith(name + ": ")]
    assert found, f"no section {name}"
    return "\n".join(found)


def test_every_enum_value_is_listed():
    schema = json.loads(_native.schema())
    enums = 0
    for name, node in schema["$defs"].items():
        values = list(node.get("enum", [])) + [v["const"] for v in node.get("oneOf", [])
                                               if "const" in v and not v.get("properties")]
        if not values:
            continue
        enums += 1
        text = _section(name)
        for v in values:
            assert f"| `{json.dumps(v)}` |" in text, f"{name}: value {v!r} not listed in docs/scenario.md"
    assert enums >= 9
    assert "| `\"dctcp\"` | DCTCP" in _section("CcKind")
    assert "| `\"queue\"` | Queue length" in _section("TraceKind")


def _expand(scn: dict) -> dict:
    return json.loads(_native.expand(json.dumps(scn), "json"))


def test_template_names_match_the_engine():
    text = _section("Topology")
    base = {"until_s": 0.001, "flows": {"count": 3, "cc": "dctcp"}}
    one = _expand({**base, "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4}})
    names = {n["name"] for n in one["topology"]["nodes"]}
    assert names == {"s0", "s1", "s2", "sw", "r0"}
    assert one["record"]["ports"] == ["sw->r0"]
    assert [(f["src"], f["dst"]) for f in one["flow"]] == [("s0", "r0"), ("s1", "r0"), ("s2", "r0")]
    two = _expand({**base, "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4, "receivers": 2}})
    assert {n["name"] for n in two["topology"]["nodes"]} == {"s0", "s1", "s2", "sw0", "sw1", "r0", "r1"}
    assert two["record"]["ports"] == ["sw0->sw1"]
    assert [(f["src"], f["dst"]) for f in two["flow"]] == [("s0", "r0"), ("s1", "r1"), ("s2", "r0")]
    ls = _expand({"until_s": 0.001, "flow": [{"src": "h0", "dst": "h5"}],
                  "topology": {"kind": "leaf_spine", "leaves": 3, "spines": 2, "hosts_per_leaf": 2,
                               "host_bps": 1e9, "fabric_bps": 1e9, "link_delay_s": 1e-6}})
    nodes = {n["name"] for n in ls["topology"]["nodes"]}
    assert nodes == {f"h{i}" for i in range(6)} | {"leaf0", "leaf1", "leaf2", "spine0", "spine1"}
    assert {(lk["from"], lk["to"]) for lk in ls["topology"]["links"]} >= {("leaf1", "h2"), ("leaf1", "h3")}
    assert sorted(ls["record"]["ports"]) == sorted(f"leaf{i}->spine{j}" for i in range(3) for j in range(2))
    for s in ("`s0` .. `s{senders-1}`", "`sw`", "`sw->r0`", "`sw0->sw1`", "`leaf{i}->spine{j}`",
              "`h{i*hosts_per_leaf+k}`", "`spine0`"):
        assert s in text, s


def test_cdf_file_format_is_documented_and_true(tmp_path):
    text = _section("SizeDist")
    assert 'file = "cdf/websearch.csv"' in text
    example = re.search(r"```text\n(.*?)```", text, re.S).group(1)
    f = tmp_path / "x.csv"
    f.write_text(example)
    assert load_cdf("x.csv", base=tmp_path) == [[6000.0, 0.15], [13000.0, 0.2], [10000000.0, 1.0]]
