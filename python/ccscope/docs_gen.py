"""Generate docs/scenario.md from the engine's JSON Schema (field, type, unit, default, doc).

`python -m ccscope.docs_gen` rewrites the file; a test checks it is current."""
from __future__ import annotations

import json
from pathlib import Path

from ccscope import _native

HEADER = """# Scenario reference

Generated from the engine's schema (`ccscope scenario schema`) by `python -m ccscope.docs_gen`;
a test fails when this page and the schema disagree. Units are in field names (`_s` seconds,
`_bps` bits/s, `_pkts` packets, `_bytes` bytes). Unknown fields are errors.

"""


def _type(p: dict) -> str:
    if "$ref" in p:
        return p["$ref"].split("/")[-1]
    if "enum" in p:
        return " | ".join(json.dumps(v) for v in p["enum"])
    t = p.get("type")
    if isinstance(t, list):
        t = " or ".join(x for x in t)
    if t == "array":
        return f"list of {_type(p.get('items', {}))}"
    if "anyOf" in p:
        return " or ".join(_type(x) for x in p["anyOf"])
    if "oneOf" in p:
        return " | ".join(_type(x) for x in p["oneOf"])
    return str(t)


def _table(name: str, node: dict) -> str:
    lines = [f"## {name}\n"]
    if node.get("description"):
        lines.append(node["description"].replace("\n", " ") + "\n")
    props = node.get("properties", {})
    if props:
        lines.append("| field | type | default | meaning |\n|---|---|---|---|")
        req = set(node.get("required", []))
        for k, p in props.items():
            default = "required" if k in req else json.dumps(p["default"]) if "default" in p else "—"
            desc = (p.get("description") or "").replace("\n", " ").replace("|", "\\|")
            lines.append(f"| `{k}` | {_type(p).replace('|', '/')} | {default} | {desc} |")
        lines.append("")
    for variant in node.get("oneOf", []):
        kind = variant.get("properties", {}).get("kind", {})
        tag = kind.get("const") or (kind.get("enum") or [None])[0]
        if tag is None:
            tag = (variant.get("enum") or [None])[0]
        if tag is not None:
            sub = dict(variant)
            lines.append(_table(f"{name}: `{tag}`", sub))
    return "\n".join(lines)


def scenario_reference() -> str:
    schema = json.loads(_native.schema())
    parts = [HEADER, _table("Scenario (top level)", schema)]
    for name, node in sorted(schema.get("$defs", {}).items()):
        parts.append(_table(name, node))
    return "\n".join(parts).rstrip() + "\n"


def main() -> None:
    out = Path(__file__).resolve().parents[2] / "docs" / "scenario.md"
    out.write_text(scenario_reference())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
