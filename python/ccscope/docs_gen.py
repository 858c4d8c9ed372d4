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


#: Hand-written sections appended to a type's generated one: what the schema cannot say (the names the
#: topology templates give their hosts, switches and ports; the CDF file a workload's sizes can come from).
EXTRA = {
    "Topology": """### Host, switch and port names of each template

Flows, workloads (`src`, `dst`, `servers`, `client`) and `record.ports` name nodes; a template names
them as follows (`ccscope scenario expand FILE` prints the explicit graph). A port is named after its
link, `FROM->TO` (the egress queue of FROM toward TO), e.g. `sw->r0`.

| template | hosts | switches | bottleneck / recorded ports |
|---|---|---|---|
| `dumbbell`, `receivers = 1` | senders `s0` .. `s{senders-1}`, receiver `r0` | `sw` | `sw->r0` |
| `dumbbell`, `receivers = R > 1` | senders `s0` .. `s{senders-1}`, receivers `r0` .. `r{R-1}` | `sw0` (senders' side), `sw1` (receivers' side) | `sw0->sw1` |
| `leaf_spine` | `h0` .. `h{leaves*hosts_per_leaf-1}`; host `h{i*hosts_per_leaf+k}` hangs off leaf `i` | leaves `leaf0` .. `leaf{leaves-1}`, spines `spine0` .. `spine{spines-1}` | every `leaf{i}->spine{j}` |
| `fat_tree` | `h0` .. `h{k^3/4-1}`; host `h{p*(k/2)^2 + i*(k/2) + m}` is port `m` of edge switch `i` of pod `p` | edge `e{p}_{i}`, aggregation `a{p}_{i}` (pod `p` < k, `i` < k/2), core `c{j}` (`j` < (k/2)^2; `c{j}` links to `a{p}_{j div (k/2)}` of every pod) | every edge uplink `e{p}_{i}->a{p}_{j}` |
| `graph` | the `nodes` given (`kind = "host"`) | the `nodes` given (`kind = "switch"`) | `record.ports`, else every switch port |

A fat-tree is wired as in Al-Fares et al., SIGCOMM 2008, section 2.3: in each of the k pods, every edge
switch serves k/2 hosts and links to all k/2 aggregation switches of its pod, and aggregation switch `a{p}_{i}`
links to the k/2 core switches `c{i*(k/2)}` .. `c{i*(k/2)+k/2-1}`. Hosts on one edge switch are 2 hops apart
(1 path), hosts in one pod 4 (k/2 equal-cost paths), hosts in different pods 6 ((k/2)^2 paths). The three tiers
(host-edge, edge-aggregation, aggregation-core) take `host_bps`/`host_delay_s`, `edge_agg_bps`/`edge_agg_delay_s`
and `agg_core_bps`/`agg_core_delay_s`, each defaulting to `link_bps`/`link_delay_s`; every port buffers
`buffer_pkts` (default 1000); host ports are drop-tail, switch ports take the scenario's `aqm`.

`oversubscription` on a leaf-spine divides the fabric links' rate: they run at `fabric_bps / oversubscription`.
With `fabric_bps` at full bisection (`spines * fabric_bps = hosts_per_leaf * host_bps`) it is the ratio of a
leaf's host-facing to its spine-facing capacity: `hosts_per_leaf = 16`, `host_bps = 10e9`, `spines = 4`,
`fabric_bps = 40e9`, `oversubscription = 4` gives 10 Gb/s fabric links, 160 Gb/s down for 40 Gb/s up (4:1).

`load_balance` (graph, leaf-spine, fat-tree) chooses how flows use equal-cost shortest paths: `"single"` (one
path per host pair), `"ecmp"` (per flow, the default of the two fabric templates; a graph's `ecmp = true`) or
`"spray"` (per packet: each data packet of a flow takes an equal-cost path drawn on its own, deterministic from
the seed, with the probability it has when every switch on the way picks uniformly among its equal-cost next
hops; ACKs keep the flow's ECMP path). A run with spraying adds two columns to its flows table: `ooo_segments`
(data segments that arrived while an earlier one was still missing: reordering, and the segments behind a
loss) and `spray_paths` (the number of equal-cost paths the flow sprays over). A pair of hosts with more than
4096 equal-cost paths cannot spray (an error names `topology.load_balance`).

With the `[flows]` template on a dumbbell, flow `k` goes from `s{k mod senders}` to `r{k mod receivers}`;
flows listed by hand on a dumbbell must name these hosts (`flow[i].src must name a dumbbell sender s0..s3`).
""",
    "SizeDist": """### Reading a CDF from a file

In a scenario file, a `cdf` size may give `file = "path"` instead of `points` (e.g.
`size = { kind = "cdf", file = "cdf/websearch.csv" }`); the path is relative to the scenario file and
must stay inside its folder or an `--allow-path` folder. The file holds one point per line,
`bytes cumulative_probability`, the two numbers separated by a comma or white space; `#` starts a
comment; blank lines are skipped. Sizes are >= 1 and probabilities in [0, 1], both non-decreasing,
with at least two points and the last probability 1:

```text
# bytes, P(size <= bytes)
6000, 0.15
13000, 0.2
10000000, 1.0
```

Sizes between two points are interpolated linearly. A bad line is one error naming the field, the file
and the line (`workload[0].size.file = 'x.csv' line 3: ...`).

### Published distributions: `builtin`

`size = { kind = "cdf", builtin = "websearch" }` samples a distribution shipped with ccscope, compiled
into the engine from the files of `scenarios/cdf/` (each file's header cites its source; docs/workloads.md):

| builtin | file | source | mean |
|---|---|---|---|
| `"websearch"` | `web_search_dctcp.csv` | Alizadeh et al., DCTCP, SIGCOMM 2010, Fig. 4 (points of the HPCC authors' ns-3 repository) | 1.71 MB |
| `"datamining"` | `data_mining_vl2.csv` | Greenberg et al., VL2, SIGCOMM 2009, Fig. 2 (points of the PIAS ns-2 scripts, packets x 1460 B) | 7.47 MB |
| `"hadoop"` | `hadoop_fb.csv` | Roy et al., SIGCOMM 2015, Facebook Hadoop (points of the HPCC authors' ns-3 repository) | 120 KB |

`cdf/websearch.csv` is the older web-search-like table (the same shape in packets x 1000 B, mean
1.14 MB), kept unchanged for the scenarios that name it.
""",
}


def _enum_values(node: dict) -> list[tuple[str, str]]:
    """(value, meaning) of an enum type: `enum` values, or `oneOf` string constants with their doc."""
    out = [(json.dumps(v), "") for v in node.get("enum", [])]
    for variant in node.get("oneOf", []):
        if "const" in variant and not variant.get("properties"):
            out.append((json.dumps(variant["const"]), (variant.get("description") or "").replace("\n", " ")))
        elif variant.get("enum") and not variant.get("properties"):
            desc = (variant.get("description") or "").replace("\n", " ")
            out += [(json.dumps(v), desc) for v in variant["enum"]]
    return out


def _table(name: str, node: dict) -> str:
    lines = [f"## {name}\n"]
    if node.get("description"):
        lines.append(node["description"].replace("\n", " ") + "\n")
    values = _enum_values(node)
    if values:
        lines.append("| value | meaning |\n|---|---|")
        lines += ["| `" + v + "` | " + d.replace("|", "\\|") + " |" for v, d in values]
        lines.append("")
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
        if name in EXTRA:
            parts.append(EXTRA[name])
    return "\n".join(parts).rstrip() + "\n"


def main() -> None:
    out = Path(__file__).resolve().parents[2] / "docs" / "scenario.md"
    out.write_text(scenario_reference())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
