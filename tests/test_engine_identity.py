"""Refactors must not change results: every scenario in scenarios/ (and a few variants that turn
on options the files leave off, and the fabric rows of bench/fabric/) is run for a short, fixed time with every trace recorded, and the
sha256 of each of the engine's output columns, the event count and the ledger are compared with
tests/golden/engine_hashes.json.

A change that is meant to change results regenerates the file and says why in its commit:
    .venv/bin/python tests/test_engine_identity.py --regen
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "engine_hashes.json"
ALL_TRACES = ["queue", "link", "cwnd", "alpha", "delivered", "drops", "rate", "feedback"]
NS2_NEWRENO = {"ns2_partial_window_deflation": True, "ns2_exit_recovery": True, "ns2_limited_transmit": True,
               "ns2_halve_window": True, "ns2_recovery_maxburst": True}
NS2_ALL = {**NS2_NEWRENO, "ns2_timeout_after_ecn": True, "ns2_dupack_action": True, "ns2_ecn_after_timeout": True,
           "ns2_ecn_first": True}

# (case name, scenario file, simulated seconds, edits applied to the scenario table)
CASES = [(p.stem, p.name, None, {}) for p in sorted((ROOT / "scenarios").glob("*.toml"))] + [
    ("dctcp_dumbbell+every_change", "dctcp_dumbbell.toml", None, {"record": {"queue_every_change": True}}),
    ("newreno_droptail+ns2", "newreno_droptail.toml", None, {"tcp": NS2_NEWRENO}),
    ("incast_dctcp+ns2", "incast_dctcp.toml", None, {"tcp": NS2_NEWRENO}),
    ("coexistence_choke+ns2", "coexistence_choke.toml", None, {"tcp": NS2_NEWRENO}),
    ("newreno_droptail+ns2all", "newreno_droptail.toml", None, {"tcp": NS2_ALL}),
    ("incast_dctcp+ns2all", "incast_dctcp.toml", None, {"tcp": NS2_ALL}),
    ("coexistence_choke+ns2all", "coexistence_choke.toml", None, {"tcp": NS2_ALL}),
    ("swift_incast+host_tx", "swift_incast.toml", None,
     {"tcp": {"stamp_at": "host_tx", "host_queue_pkts": 3}, "topology": {"host_aqm": {"kind": "fq"}}}),
    # the 100 Gb/s fabric rows of `make bench` (PFC, RED at dequeue with CNPs, INT), briefly
    ("fat_tree_k8_dctcp_pfc", "bench/fabric/fat_tree_k8_dctcp_pfc.toml", None, {}),
    ("fat_tree_k8_dcqcn_pfc", "bench/fabric/fat_tree_k8_dcqcn_pfc.toml", None, {}),
    ("fat_tree_k8_hpcc", "bench/fabric/fat_tree_k8_hpcc.toml", None, {}),
    ("fat_tree_k16_dctcp_pfc", "bench/fabric/fat_tree_k16_dctcp_pfc.toml", None, {}),
]
# long enough to pass slow start, losses and timeouts on every file; the 4200-s periodic runs
# have 100-ms-scale round trips
UNTIL_S = {"periodic_fixed_rtt": 400.0, "periodic_red_minfix": 400.0, "periodic_variable_rtt": 400.0,
           "newreno_droptail": 1.0, "newreno_droptail+ns2": 1.0, "newreno_droptail+ns2all": 1.0,
           "incast_dctcp": 0.3, "incast_dctcp+ns2": 0.3, "incast_dctcp+ns2all": 0.3, "coexistence_choke+ns2all": 1.0,
           "coexistence_choke": 1.0, "coexistence_choke+ns2": 1.0, "parking_lot_asm": 0.5,
           "fat_tree_k8_dctcp_pfc": 1e-3, "fat_tree_k8_dcqcn_pfc": 1e-3, "fat_tree_k8_hpcc": 1e-3,
           "fat_tree_k16_dctcp_pfc": 2e-4}
DEFAULT_UNTIL_S = 0.1


def _merge(base: dict, edits: dict) -> dict:
    out = dict(base)
    for k, v in edits.items():
        out[k] = _merge(out.get(k) or {}, v) if isinstance(v, dict) else v
    return out


def fingerprint(case: str, path: str, edits: dict) -> dict:
    from ccscope import _native
    from ccscope.scenario.io import as_dict, to_engine_json

    data = _merge(dict(as_dict(ROOT / path if "/" in path else ROOT / "scenarios" / path)), edits)
    rec = dict(data.get("record") or {})
    rec["traces"] = ALL_TRACES
    data["record"] = rec
    until = UNTIL_S.get(case, DEFAULT_UNTIL_S)
    sim = _native.Simulation(to_engine_json(data), until, None)
    sim.run_until(until)
    raw = sim.finish()
    cols = {}
    for table, columns in sorted(raw["tables"].items()):
        for name, col in sorted(columns.items()):
            a = np.asarray(col)
            h = hashlib.sha256(str(a.dtype).encode() + b"|")
            h.update(a.tobytes() if a.dtype != object else json.dumps(a.tolist()).encode())
            cols[f"{table}.{name}"] = f"{len(a)}:{h.hexdigest()[:16]}"
    return {"until_s": until, "events": int(raw["events"]), "sim_time_s": float(raw["sim_time_s"]),
            "ledger": json.loads(json.dumps(raw["ledger"], sort_keys=True, default=str)), "columns": cols}


@pytest.mark.parametrize("case,path,_,edits", CASES, ids=[c[0] for c in CASES])
def test_engine_output_is_identical_to_the_committed_fingerprint(case, path, _, edits):
    golden = json.loads(GOLDEN.read_text())
    assert case in golden, f"{case}: no committed fingerprint (regenerate: python {Path(__file__).name} --regen)"
    got = fingerprint(case, path, edits)
    want = golden[case]
    assert got["events"] == want["events"]
    assert got["ledger"] == want["ledger"]
    diff = {k: (want["columns"].get(k), v) for k, v in got["columns"].items() if want["columns"].get(k) != v}
    missing = sorted(set(want["columns"]) - set(got["columns"]))
    assert not diff and not missing, f"{case}: changed columns {diff}, missing {missing}"
    assert got == want


if __name__ == "__main__" and sys.argv[1:] == ["--add-missing"]:
    # a case added to CASES gets its fingerprint; the committed ones are left as they are
    golden = json.loads(GOLDEN.read_text())
    new = {c[0]: fingerprint(c[0], c[1], c[3]) for c in CASES if c[0] not in golden}
    GOLDEN.write_text(json.dumps({**golden, **new}, indent=1, sort_keys=True) + "\n")
    print(f"added {sorted(new)} to {GOLDEN}")

if __name__ == "__main__" and sys.argv[1:] == ["--regen"]:
    out = {c[0]: fingerprint(c[0], c[1], c[3]) for c in CASES}
    GOLDEN.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN} ({len(out)} cases)")
