"""Fuzz cases: every scenario family (each file in scenarios/, the Python builders, small
leaf-spine and random graphs) mutated by type swaps, extreme numbers, array changes, names,
graph changes, deleted and unknown keys, `--set` overrides, text damage and bad API arguments.

A case is a pure function of (kind, seed, index): `make_case("api", 7, 123)` always gives the
same scenario, so a failing case is reproduced from its id alone (`--replay api:7:123`).
"""
from __future__ import annotations

import copy
import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[2]

# ----------------------------------------------------------------------------------- bases


def _leaf_spine_small() -> dict:
    hosts = [f"h{i}" for i in range(8)]
    return {"name": "leaf_spine_small", "seed": 3, "until_s": 0.01,
            "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4, "host_bps": 10e9,
                         "fabric_bps": 40e9, "link_delay_s": 1e-6, "buffer_pkts": 100},
            "aqm": {"kind": "threshold", "k_pkts": 20},
            "flow": [{"src": "h0", "dst": "h5", "cc": "dctcp"}, {"src": "h1", "dst": "h5", "cc": "new_reno", "start_s": 1e-5}],
            "workload": [{"kind": "poisson", "src": hosts, "dst": list(hosts), "load": 0.3, "reference_bps": 80e9,
                          "size": {"kind": "uniform", "min_bytes": 1000, "max_bytes": 20000}, "cc": ["dctcp"]},
                         {"kind": "incast", "client": "h7", "servers": ["h0", "h2", "h4"], "block_bytes": 4000,
                          "rounds": 2, "gap_s": 1e-5}],
            "record": {"traces": ["queue", "link", "drops"], "queue_interval_s": 1e-5, "flow_interval_s": 1e-4}}


def _graph_ecmp() -> dict:
    nodes = [{"name": n, "kind": "host"} for n in ("a", "b", "c")] + [{"name": n, "kind": "switch"} for n in ("x", "y", "z")]
    links = [{"from": f, "to": t, "rate_bps": 1e9, "delay_s": 1e-6, "duplex": True, "buffer_pkts": 50}
             for f, t in (("a", "x"), ("b", "x"), ("x", "y"), ("x", "z"), ("y", "c"), ("z", "c"))]
    links[2]["aqm"] = {"kind": "red", "min_th_pkts": 5, "max_th_pkts": 15}
    return {"name": "graph_ecmp", "until_s": 0.01, "topology": {"kind": "graph", "nodes": nodes, "links": links, "ecmp": True},
            "flow": [{"src": "a", "dst": "c", "cc": "dctcp"}, {"src": "b", "dst": "c", "cc": "new_reno"},
                     {"src": "c", "dst": "a", "cc": "dx", "size_bytes": 30000}],
            "tcp": {"ecn": True}, "record": {"ports": ["x->y"], "queue_every_change": True}}


def _builders() -> dict[str, dict]:
    from ccscope.aqm import AsmCp, Threshold
    from ccscope.scenario import dumbbell, parking_lot, periodic
    return {"builder_dumbbell": dumbbell(3, cc="dctcp", bottleneck_bps=1e9, rtt_s=100e-6, aqm=Threshold(k_pkts=20)).to_dict(),
            "builder_parking_lot": parking_lot(2, flows_per_group=1, aqm=AsmCp()),
            "builder_periodic": periodic(4, start_spread_s=1e-3)}


_BASES: dict[str, dict] | None = None

# Families whose set-up alone is slow (hundreds of hosts): drawn less often, so that a fixed
# budget of cases spreads over all families.
_HEAVY = {"leaf_spine_websearch": 0.15}


def bases() -> dict[str, dict]:
    """Every scenario family as plain data, in a fixed order (CDF files read into points,
    one family keeps a CDF file reference)."""
    global _BASES
    if _BASES is None:
        import tomllib

        from ccscope.scenario import load_file
        out: dict[str, dict] = {}
        for p in sorted((REPO / "scenarios").glob("*.toml")):
            out[p.stem] = load_file(p)
        raw = tomllib.loads((REPO / "scenarios" / "leaf_spine_websearch.toml").read_text())
        for w in raw.get("workload", []):
            if isinstance(w.get("size"), dict) and "file" in w["size"]:
                w["size"]["file"] = str((REPO / "scenarios" / w["size"]["file"]).relative_to(REPO))
        raw["topology"]["hosts_per_leaf"] = 2
        hosts = [f"h{i}" for i in range(16)]
        raw["workload"][0]["src"] = hosts
        raw["workload"][0]["dst"] = hosts
        out["leaf_spine_cdf_file"] = raw
        out["leaf_spine_small"] = _leaf_spine_small()
        out["graph_ecmp"] = _graph_ecmp()
        out.update(_builders())
        _BASES = out
    return _BASES


# ----------------------------------------------------------------------------------- values

BIG_STRING = "a" * 100_000
NAMES = ["", " ", "h0", "s0", "r0", "sw0", "zz_unknown", "S0", "s0 ", "h-1", "sw0->sw1", "ñødé✓", "名前", "\u0000",
         "\ud800", "../../etc/passwd", "a.b", "x" * 1000, BIG_STRING, "new_reno", "dctcp", "DCTCP", "cubic", "reno"]
EXTREMES: list[Any] = [0, -1, 1, 2, 0.0, -0.0, 0.5, 1e-300, 5e-324, 1e-12, 1e-9, 1e308, -1e308, 1.7976931348623157e308,
                       2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -2**63, 10**30, float("nan"), float("inf"),
                       -float("inf"), "nan", "inf", "-inf", "1e999", "NaN", "1e3", "0x10"]
# Numbers that make a valid scenario big: accepted up to documented maxima, refused beyond.
HUGE_COUNTS = [10**3, 10**4, 10**5, 10**6, 10**7, 2**32, 2**63]
COUNT_FIELDS = {"count", "senders", "receivers", "leaves", "spines", "hosts_per_leaf", "rounds", "samples", "iw_pkts",
                "buffer_pkts", "buffer_bytes", "host_buffer_pkts", "delack_count", "dupack_threshold", "rwnd_pkts",
                "fast_recovery_threshold", "packet_bytes", "ack_bytes", "feedback_bytes", "block_bytes", "total_bytes",
                "size_bytes", "bytes", "min_bytes", "max_bytes"}
TINY_INTERVALS = [1e-12, 1e-9, 1e-7, 1e-6, 5e-324]
UNKNOWN_KEYS = ["foo", "until", "flows_count", "Kind", "", "a.b", "ñ", "kind ", "rate", "__class__", BIG_STRING[:500]]
KINDS = {"topology": ["dumbbell", "graph", "leaf_spine", "ring", "", "Dumbbell"],
         "aqm": ["drop_tail", "threshold", "red", "choke", "qcn", "asm", "pie", ""],
         "size": ["fixed", "uniform", "cdf", "pareto"],
         "workload": ["incast", "poisson", "all_to_all"]}


def rand_value(r: random.Random, depth: int = 0) -> Any:
    """A value of any JSON-ish type (and a few that JSON cannot carry)."""
    k = r.randrange(12)
    if k == 0:
        return r.randint(-10, 10**6)
    if k == 1:
        return r.choice([r.random(), -r.random(), r.uniform(-1e6, 1e6)])
    if k == 2:
        return r.choice(NAMES[:14])
    if k == 3:
        return r.choice([True, False])
    if k == 4:
        return [] if depth > 2 else [rand_value(r, depth + 1) for _ in range(r.randrange(4))]
    if k == 5:
        return {} if depth > 2 else {r.choice(UNKNOWN_KEYS[:6] + ["kind", "name", "src"]): rand_value(r, depth + 1)
                                     for _ in range(r.randrange(3))}
    if k == 6:
        return None
    if k == 7:
        return r.choice(EXTREMES)
    if k == 8:
        return {"kind": r.choice(sum(KINDS.values(), []))}
    if k == 9:
        return r.choice([(1, 2), b"bytes", {1, 2}, 1 + 2j, object()])  # not JSON: Python-layer handling
    return r.choice(EXTREMES + NAMES)


# --------------------------------------------------------------------------------- paths

Path_ = tuple


def all_paths(obj: Any, prefix: Path_ = ()) -> list[Path_]:
    out: list[Path_] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(prefix + (k,))
            out.extend(all_paths(v, prefix + (k,)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:64]):
            out.append(prefix + (i,))
            out.extend(all_paths(v, prefix + (i,)))
    return out


def get(obj: Any, path: Path_) -> Any:
    for k in path:
        obj = obj[k]
    return obj


def show(path: Path_) -> str:
    s = ""
    for k in path:
        s += f"[{k}]" if isinstance(k, int) else (f".{k}" if s else str(k))
    return s or "<root>"


def short(v: Any, n: int = 60) -> str:
    t = repr(v)
    return t if len(t) <= n else f"{t[:n]}...({len(t)} chars)"


def host_names(sc: dict) -> list[str]:
    topo = sc.get("topology") if isinstance(sc.get("topology"), dict) else {}
    kind = topo.get("kind")
    if kind == "graph":
        nodes = topo.get("nodes")
        return [n.get("name") for n in (nodes if isinstance(nodes, list) else [])
                if isinstance(n, dict) and n.get("kind") == "host" and isinstance(n.get("name"), str)]
    if kind == "leaf_spine":
        try:
            return [f"h{i}" for i in range(min(int(topo["leaves"]) * int(topo["hosts_per_leaf"]), 64))]
        except Exception:
            return ["h0"]
    return ["s0", "s1", "r0"]


# ----------------------------------------------------------------------------- mutations


def m_type(r, sc, desc):
    p = r.choice(all_paths(sc))
    v = rand_value(r)
    get(sc, p[:-1])[p[-1]] = v
    desc.append(f"type: {show(p)} = {short(v)}")


def m_extreme(r, sc, desc):
    paths = [p for p in all_paths(sc) if isinstance(get(sc, p), (int, float)) and not isinstance(get(sc, p), bool)]
    p = r.choice(paths or all_paths(sc))
    old = get(sc, p)
    if isinstance(p[-1], str) and p[-1] in COUNT_FIELDS and r.random() < 0.4:
        v = r.choice(HUGE_COUNTS)
    elif isinstance(p[-1], str) and p[-1].endswith("interval_s") and r.random() < 0.5:
        v = r.choice(TINY_INTERVALS)
    elif isinstance(old, (int, float)) and not isinstance(old, bool) and r.random() < 0.3:
        v = r.choice([-old, old * 10 ** r.randint(1, 12), old / 10 ** r.randint(1, 12), int(old) if math.isfinite(old) else 0,
                      float(old), old + 1, old - 1])
    else:
        v = r.choice(EXTREMES)
    get(sc, p[:-1])[p[-1]] = v
    desc.append(f"extreme: {show(p)} = {short(v)}")


def m_array(r, sc, desc):
    paths = [p for p in all_paths(sc) if isinstance(get(sc, p), list)]
    if not paths:
        return m_type(r, sc, desc)
    p = r.choice(paths)
    a = get(sc, p)
    k = r.randrange(7)
    if k == 0:
        v: Any = []
    elif k == 1:
        v = [copy.deepcopy(a[0]) if a else 1] * r.choice([2, 100, 10_000])
    elif k == 2:
        v = [a]
    elif k == 3:
        v = a + [rand_value(r)]
    elif k == 4:
        v = a[:-1]
    elif k == 5:
        v = list(reversed(a)) + a
    else:
        v = a[0] if a else None
    get(sc, p[:-1])[p[-1]] = v
    desc.append(f"array: {show(p)} = {short(v)}")


def m_name(r, sc, desc):
    paths = [p for p in all_paths(sc) if isinstance(get(sc, p), str)]
    if not paths:
        return m_type(r, sc, desc)
    p = r.choice(paths)
    hosts = host_names(sc)
    v = r.choice(NAMES + hosts) if r.random() < 0.8 else r.choice(hosts or ["h0"]) + r.choice(["", "x", "0"])
    get(sc, p[:-1])[p[-1]] = v
    desc.append(f"name: {show(p)} = {short(v)}")


def m_delete(r, sc, desc):
    paths = [p for p in all_paths(sc) if isinstance(get(sc, p[:-1]), dict)]
    p = r.choice(paths)
    del get(sc, p[:-1])[p[-1]]
    desc.append(f"delete: {show(p)}")


def m_unknown_key(r, sc, desc):
    tables = [()] + [p for p in all_paths(sc) if isinstance(get(sc, p), dict)]
    p = r.choice(tables)
    k = r.choice(UNKNOWN_KEYS)
    v = rand_value(r)
    get(sc, p)[k] = v
    desc.append(f"unknown key: {show(p + (k,))} = {short(v)}")


def m_kind(r, sc, desc):
    paths = [p for p in all_paths(sc) if isinstance(get(sc, p), dict) and "kind" in get(sc, p)]
    if not paths:
        return m_unknown_key(r, sc, desc)
    p = r.choice(paths)
    v = r.choice(sum(KINDS.values(), []))
    get(sc, p)["kind"] = v
    desc.append(f"kind: {show(p)}.kind = {v!r}")


def _link(r, a, b):
    return {"from": a, "to": b, "rate_bps": r.choice([1e9, 10e9, 1.0, 1e14]), "delay_s": r.choice([1e-6, 0.0, 1e-3]),
            "duplex": r.random() < 0.7}


def m_graph(r, sc, desc):
    topo = sc.get("topology")
    if not (isinstance(topo, dict) and topo.get("kind") == "graph" and isinstance(topo.get("nodes"), list)
            and isinstance(topo.get("links"), list)):
        sc["topology"] = topo = random_graph(r, r.choice([3, 6, 20, 200]))
        sc["flow"] = random_flows(r, host_names(sc), r.randint(1, 6))
        sc.pop("flows", None)
        sc.pop("workload", None)
        rec = sc.get("record")
        if isinstance(rec, dict):
            rec.pop("ports", None)
        desc.append(f"graph: replaced topology by a random graph of {len(topo['nodes'])} nodes")
        return
    names = [n.get("name") for n in topo["nodes"] if isinstance(n, dict)] or ["a"]
    k = r.randrange(8)
    if k == 0:
        n = r.choice(names)
        topo["links"].append(_link(r, n, n))
        desc.append(f"graph: self-loop at {n!r}")
    elif k == 1 and topo["links"]:
        i = r.randrange(len(topo["links"]))
        del topo["links"][i]
        desc.append(f"graph: removed topology.links[{i}] (disconnect)")
    elif k == 2:
        topo["nodes"].append({"name": "iso", "kind": "host"})
        sc.setdefault("flow", []).append({"src": "iso", "dst": r.choice(names)}) if isinstance(sc.get("flow", []), list) else None
        desc.append("graph: isolated host 'iso' with a flow from it")
    elif k == 3:
        topo["nodes"].append(copy.deepcopy(r.choice(topo["nodes"])) if topo["nodes"] else {"name": "a", "kind": "host"})
        desc.append("graph: duplicate node")
    elif k == 4:
        topo["links"].append(_link(r, r.choice(names), "no_such_node"))
        desc.append("graph: link to unknown node")
    elif k == 5:
        n = r.choice([100, 2000, 20_000])
        base = r.choice(names)
        prev = base
        for i in range(n):
            topo["nodes"].append({"name": f"chain{i}", "kind": "switch"})
            topo["links"].append(_link(r, prev, f"chain{i}"))
            prev = f"chain{i}"
        desc.append(f"graph: chain of {n} switches hung on {base!r}")
    elif k == 6 and topo["links"]:
        topo["links"].append(copy.deepcopy(r.choice(topo["links"])))
        desc.append("graph: parallel (duplicate) link")
    else:
        topo["ecmp"] = not topo.get("ecmp", False)
        for _ in range(r.randint(1, 4)):
            topo["links"].append(_link(r, r.choice(names), r.choice(names)))
        desc.append("graph: ecmp flipped and random extra links (cycles)")


def random_graph(r: random.Random, n: int) -> dict:
    nodes = [{"name": f"n{i}", "kind": r.choice(["host", "switch", "switch"])} for i in range(n)]
    links = []
    for i in range(1, n):
        if r.random() < 0.9:  # mostly a tree, sometimes disconnected
            links.append(_link(r, f"n{r.randrange(i)}", f"n{i}"))
    for _ in range(r.randrange(n // 2 + 2)):  # cycles, self-loops, parallels
        links.append(_link(r, f"n{r.randrange(n)}", f"n{r.randrange(n)}"))
    return {"kind": "graph", "nodes": nodes, "links": links, "ecmp": r.random() < 0.5}


def random_flows(r: random.Random, hosts: list, n: int) -> list:
    pool = (hosts or ["n0"]) + ["zz_unknown"]
    out = []
    for _ in range(n):
        f = {"src": r.choice(pool), "dst": r.choice(pool), "cc": r.choice(["new_reno", "dctcp", "dx", "qcn", "asm", "reno", "cubic"])}
        if r.random() < 0.3:
            f["size_bytes"] = r.choice([1, 1500, 10**6, 0])
        if r.random() < 0.2:
            f["start_s"] = r.choice([0.0, -1.0, 1e-6, 1e9])
        if r.random() < 0.2:
            f["stop_s"] = r.choice([0.0, 1e-6, -1.0])
        out.append(f)
    return out


def m_flows(r, sc, desc):
    hosts = host_names(sc)
    k = r.randrange(4)
    if k == 0:
        fl = random_flows(r, hosts, r.randint(1, 5))
        if isinstance(sc.get("flow"), list):
            sc["flow"].extend(fl)
        else:
            sc["flow"] = fl
        desc.append(f"flows: added {short(fl, 120)}")
    elif k == 1:
        w = {"kind": "incast", "client": r.choice(hosts + ["zz_unknown"]),
             "servers": r.choice([[], hosts[:3], hosts[:1] * 3, ["zz_unknown"], hosts]),
             r.choice(["block_bytes", "total_bytes"]): r.choice([1, 1500, 10**6, 0, 10**12]),
             "rounds": r.choice([1, 3, 0, 10**6]), "gap_s": r.choice([0.0, 1e-6, -1.0])}
        sc.setdefault("workload", []) if isinstance(sc.get("workload", []), list) else None
        if isinstance(sc.get("workload"), list):
            sc["workload"].append(w)
        else:
            sc["workload"] = [w]
        desc.append(f"flows: incast {short(w, 120)}")
    elif k == 2:
        size = r.choice([{"kind": "fixed", "bytes": r.choice([1, 1500, 0, 10**9])},
                         {"kind": "uniform", "min_bytes": r.choice([1, 100, 5000]), "max_bytes": r.choice([1, 100, 10**6])},
                         {"kind": "cdf", "points": r.choice([[[1, 0.0], [100, 1.0]], [[1, 1.0]], [], [[100, 0.5], [10, 1.0]],
                                                             [[1, 0.0], [1e12, 1.0]]])},
                         {"kind": "cdf", "file": r.choice(["no_such.csv", ".", "", "scenarios/cdf"])}])
        w = {"kind": "poisson", "src": r.choice([hosts, [], ["zz_unknown"], hosts[:1]]),
             "dst": r.choice([hosts, [], hosts[:1]]), "load": r.choice([0.1, 0.5, 0.0, 1.0, 5.0, -1.0]),
             "reference_bps": r.choice([1e9, 1e12, 1.0, 0.0]), "size": size}
        if isinstance(sc.get("workload"), list):
            sc["workload"].append(w)
        else:
            sc["workload"] = [w]
        desc.append(f"flows: poisson {short(w, 160)}")
    else:
        ft = {"count": r.choice([1, 2, 0, 50, 10**4, 10**6, -1]), "cc": r.choice(["dctcp", "new_reno", "asm", "x"]),
              "start_jitter_s": r.choice([0.0, 1e-3, -1.0])}
        sc["flows"] = ft
        desc.append(f"flows: template {ft}")


def m_record(r, sc, desc):
    rec = sc.get("record")
    if not isinstance(rec, dict):
        sc["record"] = rec = {}
    k = r.randrange(5)
    if k == 0:
        rec["traces"] = r.choice([[], ["queue", "bogus"], ["queue"] * 3, "queue", [1], ["feedback", "rate"]])
        desc.append(f"record: traces = {rec['traces']!r}")
    elif k == 1:
        rec["ports"] = r.choice([[], ["nope"], ["sw0->sw1", "sw0->sw1"], "x", [None]])
        desc.append(f"record: ports = {rec['ports']!r}")
    elif k == 2:
        key = r.choice(["queue_interval_s", "flow_interval_s"])
        rec[key] = r.choice(TINY_INTERVALS + [0.0, -1.0, 1e308])
        desc.append(f"record: {key} = {rec[key]!r}")
    elif k == 3:
        rec["queue_every_change"] = r.choice([True, False, 1, "yes"])
        desc.append(f"record: queue_every_change = {rec['queue_every_change']!r}")
    else:
        sc["record"] = r.choice([5, "queue", [], None, True])
        desc.append(f"record: record = {sc['record']!r}")


CCS = ["new_reno", "dctcp", "dx", "qcn", "asm", "reno", "cubic"]
AQMS = [{"kind": "drop_tail"}, {"kind": "threshold", "k_pkts": 20}, {"kind": "red"}, {"kind": "choke", "samples": 2},
        {"kind": "qcn"}, {"kind": "asm"}, {"kind": "red", "gentle": True, "action": "drop"}]


def m_gentle(r, sc, desc):
    """A change that keeps the scenario plausible (so the run itself is exercised)."""
    paths = all_paths(sc)
    k = r.randrange(4)
    if k == 0:
        nums = [p for p in paths if isinstance(get(sc, p), (int, float)) and not isinstance(get(sc, p), bool)
                and get(sc, p) > 0 and p[-1] not in ("seed",)]
        if nums:
            p = r.choice(nums)
            old = get(sc, p)
            v = old * r.choice([0.1, 0.5, 2, 3, 10])
            v = max(1, int(v)) if isinstance(old, int) else v
            get(sc, p[:-1])[p[-1]] = v
            desc.append(f"gentle: {show(p)} = {short(v)}")
            return
    if k == 1:
        ccs = [p for p in paths if p[-1] == "cc" or (len(p) > 1 and p[-2] == "cc")]
        if ccs:
            p = r.choice(ccs)
            if isinstance(get(sc, p), str):
                v = r.choice(CCS)
                get(sc, p[:-1])[p[-1]] = v
                desc.append(f"gentle: {show(p)} = {v!r}")
                return
    if k == 2:
        bools = [p for p in paths if isinstance(get(sc, p), bool)]
        if bools:
            p = r.choice(bools)
            get(sc, p[:-1])[p[-1]] = not get(sc, p)
            desc.append(f"gentle: {show(p)} flipped")
            return
    v = copy.deepcopy(r.choice(AQMS))
    sc["aqm"] = v
    desc.append(f"gentle: aqm = {v}")


MUTATORS: list[tuple[float, Callable]] = [
    (3, m_type), (4, m_extreme), (2, m_array), (2, m_name), (2, m_delete), (1.5, m_unknown_key), (1, m_kind),
    (1.5, m_graph), (2, m_flows), (1, m_record)]


def mutate(r: random.Random, sc: dict, desc: list[str]) -> None:
    n = 1
    while n < 5 and r.random() < 0.4:
        n += 1
    weights = [w for w, _ in MUTATORS]
    for _ in range(n):
        f = r.choices([f for _, f in MUTATORS], weights)[0]
        if not isinstance(sc, dict) or not all_paths(sc):
            break
        try:
            f(r, sc, desc)
        except (TypeError, KeyError, IndexError, AttributeError, ValueError) as e:
            # an earlier mutation left a shape this one cannot work on: skip it (still deterministic)
            desc.append(f"{f.__name__}: skipped ({type(e).__name__})")


# ---------------------------------------------------------------------------- --set strings

SET_VALUES = ["0", "-1", "1", "1e308", "1e999", "-1e999", "nan", "inf", "9223372036854775808", "18446744073709551616",
              "true", '"str"', "bareword", "[1, 2]", "[", "{a = 1}", "{", '"', "", "0x10", "1_000", "2026-01-01",
              "12:00:00", "'é'", "[[1, 0.5], [10, 1.0]]", '{kind = "red"}', '{kind = "bogus"}', "[]", "{}",
              "'" + "a" * 100_000 + "'", '"h0"', '"zz_unknown"', "1e-12", "5e-324", "1000000"]


def set_strings(r: random.Random, sc: dict) -> list[str]:
    out = []
    dotted = [p for p in all_paths(sc) if all(isinstance(k, str) for k in p)]
    for _ in range(r.randint(1, 3)):
        k = r.randrange(6)
        if k <= 2 and dotted:
            path = ".".join(r.choice(dotted))
        elif k == 3:
            path = r.choice(["a.b.c", "until_s.x", "flows.count.x", "a..b", ".", "", " ", "topology.kind.x",
                             "record.traces", "ñ.ö", "flow", "workload", "aqm"])
        elif k == 4:
            path = r.choice(["flows.count", "topology.senders", "record.queue_interval_s", "until_s", "seed",
                             "topology.leaves", "topology.hosts_per_leaf", "aqm.k_pkts"])
        else:
            out.append(r.choice(["novalue", "=5", "==", "a=b=c", "flows.count", " = 1"]))
            continue
        val = r.choice(SET_VALUES) if r.random() < 0.8 else str(rand_value(r))[:200]
        out.append(f"{path}={val}")
    return out


# ------------------------------------------------------------------------------ file text


def to_text(r: random.Random, sc: Any, suffix: str) -> bytes:
    if suffix == ".toml":
        try:
            import tomli_w
            text = tomli_w.dumps(sc)
        except Exception:  # not TOML-able (None, NaN keys...): JSON text in a .toml file
            text = json.dumps(sc, default=repr)
    else:
        text = json.dumps(sc, default=repr, allow_nan=True)
    data = text.encode("utf-8", "surrogatepass")
    if r.random() < 0.4:
        k = r.randrange(8)
        if k == 0:
            data = data[: r.randrange(len(data) + 1)]
        elif k == 1 and data:
            i = r.randrange(len(data))
            data = data[:i] + bytes([r.randrange(256)]) + data[i + 1:]
        elif k == 2:
            data = b"\xef\xbb\xbf" + data
        elif k == 3:
            data = data + r.choice([b"\n]]]", b"\n[topology]\n", b"\nseed = 2\n", b"\x00", b"{"])
        elif k == 4:
            data = r.choice([b"[" * 100_000 + b"]" * 100_000, b"a = " + b"[" * 50_000, b"{" * 100_000,
                             b'{"a":' * 10_000 + b"1" + b"}" * 10_000])
        elif k == 5:
            data = r.choice([b"", b"\xff\xfe", b"[1, 2]", b"3", b"null", b'"str"', b"\x00" * 100])
        elif k == 6:
            lines = data.split(b"\n")
            i = r.randrange(len(lines))
            lines.insert(i, lines[i])
            data = b"\n".join(lines)
        else:
            data = data.replace(b"=", b":", 1) if suffix == ".toml" else data.replace(b":", b"=", 1)
    return data


# ------------------------------------------------------------------------------- builders


def builder_call(r: random.Random) -> tuple[str, tuple, dict, list[str]]:
    from ccscope.aqm import Red, Threshold
    name = r.choice(["dumbbell", "parking_lot", "periodic", "Scenario"])
    good = {"dumbbell": {"senders": 2, "cc": "dctcp", "bottleneck_bps": 1e9, "rtt_s": 1e-4, "flows": None,
                         "buffer_pkts": 100, "aqm": Threshold(k_pkts=20), "start_jitter_s": 0.0, "size_bytes": None,
                         "rtt_per_sender_s": None, "access_bps": None},
            "parking_lot": {"hops": 2, "flows_per_group": 1, "cc": "asm", "rate_bps": 1e9, "link_delay_s": 1e-6,
                            "buffer_pkts": 100, "aqm": Red(), "long_flows": 1},
            "periodic": {"clients": 3, "rtt": "fixed", "client_delay_s": 0.02, "bottleneck_bps": 1.5e6,
                         "buffer_pkts": 50, "aqm": None, "start_spread_s": 1e-3, "rwnd_pkts": 20, "cc": "reno"},
            "Scenario": {}}[name]
    kwargs = dict(good)
    desc = []
    if name == "Scenario":
        from ccscope.scenario import model as m
        topo_cls = r.choice([m.Dumbbell, m.LeafSpine, m.Graph])
        fields = {"Dumbbell": {"bottleneck_bps": 1e9, "senders": 2, "rtt_s": 1e-4},
                  "LeafSpine": {"leaves": 2, "spines": 1, "hosts_per_leaf": 2, "host_bps": 1e9, "fabric_bps": 1e9,
                                "link_delay_s": 1e-6},
                  "Graph": {}}[topo_cls.__name__]
        for _ in range(r.randint(1, 3)):
            key = r.choice(list(fields) + ["buffer_pkts", "bogus"]) if fields else "nodes"
            fields[key] = rand_value(r) if r.random() < 0.6 else r.choice(EXTREMES)
            desc.append(f"{topo_cls.__name__}.{key} = {short(fields[key])}")
        import dataclasses
        known = {f.name for f in dataclasses.fields(topo_cls)}
        topo = topo_cls(**{k: v for k, v in fields.items() if k in known})
        kw = {"topology": topo, "flows": m.FlowsTemplate(count=2)}
        if r.random() < 0.5:
            attr = r.choice(["seed", "until_s", "packet_bytes", "name", "aqm", "tcp", "record", "flow", "workload"])
            kw[attr] = rand_value(r)
            desc.append(f"Scenario.{attr} = {short(kw[attr])}")
        if r.random() < 0.3:
            kw["flows"] = m.FlowsTemplate(count=rand_value(r), cc=r.choice(["dctcp", 5, None]))
            desc.append(f"FlowsTemplate({short(kw['flows'])})")
        return "Scenario", (), kw, desc
    for _ in range(r.randint(1, 3)):
        key = r.choice(list(kwargs))
        kwargs[key] = rand_value(r) if r.random() < 0.5 else r.choice(EXTREMES + [10**6, 10**4])
        desc.append(f"{name}({key}={short(kwargs[key])})")
    return name, (), kwargs, desc


# ---------------------------------------------------------------------------------- cases


@dataclass
class Case:
    id: str
    family: str
    mode: str
    desc: list[str] = field(default_factory=list)
    payload: dict = field(default_factory=dict)


MODES = [("gentle", 15), ("api", 47), ("set", 10), ("args", 6), ("builder", 7), ("file", 10), ("graph", 5)]


def parse_id(case_id: str) -> tuple[str, int, int]:
    kind, seed, index = case_id.split(":")
    return kind, int(seed), int(index)


def make_case(case_id: str) -> Case:
    kind, seed, index = parse_id(case_id)
    r = random.Random(f"ccscope-fuzz:{kind}:{seed}:{index}")
    bs = bases()
    names = list(bs)
    weights = [_HEAVY.get(n, 1.0) for n in names]
    family = r.choices(names, weights)[0]
    sc = copy.deepcopy(bs[family])
    if kind == "cli":
        desc: list[str] = []
        if r.random() < 0.8:
            mutate(r, sc, desc)
        suffix = r.choice([".toml", ".json"])
        argv = []
        for s in set_strings(r, sc) if r.random() < 0.4 else []:
            argv += ["--set", s]
        if r.random() < 0.15:
            argv += ["--seed", r.choice(["1", "-1", "abc", "99999999999999999999999"])]
        if r.random() < 0.15:
            argv += ["--record", r.choice(["queue", "bogus", "", "queue,link,queue", "drops"])]
        until = "200us" if r.random() < 0.85 else r.choice(["0", "-1ms", "abc", "1e999s", "nan", "10 ms", "1e-30s"])
        desc += [f"argv: {short(argv, 200)}", f"until: {until}"]
        return Case(case_id, family, "cli", desc, {"text": to_text(r, sc, suffix), "suffix": suffix, "argv": argv,
                                                  "until": until, "keys": [k for k in sc if isinstance(k, str)]})
    mode = r.choices([m for m, _ in MODES], [w for _, w in MODES])[0]
    desc = []
    if mode == "api":
        mutate(r, sc, desc)
        return Case(case_id, family, mode, desc, {"scenario": sc})
    if mode == "gentle":
        for _ in range(r.randint(1, 3)):
            m_gentle(r, sc, desc)
        return Case(case_id, family, "api", desc, {"scenario": sc})
    if mode == "graph":
        m_graph(r, sc, desc)
        m_graph(r, sc, desc)
        if r.random() < 0.5:
            mutate(r, sc, desc)
        return Case(case_id, family, "api", desc, {"scenario": sc})
    if mode == "set":
        if r.random() < 0.3:
            mutate(r, sc, desc)
        sets = set_strings(r, sc)
        desc += [f"--set {short(s, 100)}" for s in sets]
        return Case(case_id, family, mode, desc, {"scenario": sc, "sets": sets})
    if mode == "args":
        p: dict = {"scenario": sc}
        for key, pool in (("until_s", [0, -1, float("nan"), float("inf"), "abc", "1ms", None, 1e-9, 2e-4, [1], True, 10**30]),
                          ("record", [5, "queue", [], ["bogus"], [1, 2], None, {"a": 1}, "", ("queue",)]),
                          ("seed", [-1, 2**64, 2**63, "x", 1.5, None, True, 0]),
                          ("run_until", [-1.0, float("nan"), "abc", None, 1e-4, [1], 0])):
            if r.random() < 0.5:
                p[key] = r.choice(pool)
                desc.append(f"{key} = {short(p[key])}")
        if len(p) == 1:
            p["until_s"] = r.choice([0, -1, "abc"])
            desc.append(f"until_s = {p['until_s']!r}")
        return Case(case_id, family, mode, desc, p)
    if mode == "builder":
        name, args, kwargs, d = builder_call(r)
        return Case(case_id, name, mode, d, {"call": name, "args": args, "kwargs": kwargs})
    # file
    if r.random() < 0.7:
        mutate(r, sc, desc)
    suffix = r.choice([".toml", ".json"])
    text = to_text(r, sc, suffix)
    desc.append(f"file: {suffix}, {len(text)} bytes")
    return Case(case_id, family, "file", desc, {"text": text, "suffix": suffix})
