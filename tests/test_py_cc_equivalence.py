"""Python controllers are exact: examples/controllers/new_reno.py and dctcp.py (registered as
py_new_reno and py_dctcp) give bit-identical engine output to the built-in new_reno and dctcp on
the DCTCP dumbbell (scenarios/dctcp_dumbbell.toml, shortened) and the incast
(scenarios/incast_dctcp.toml, DCTCP and NewReno servers): every column of every table, every trace
recorded, the same event count and ledger; only the flows table's `cc` column names differ."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.equivalence import table_differences

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "controllers"
ALL_TRACES = ["queue", "link", "cwnd", "alpha", "delivered", "drops", "rate", "feedback"]


@pytest.fixture(scope="module", autouse=True)
def _controllers():
    from ccscope import cc
    for name in ("new_reno", "dctcp"):
        cc.load_plugin(str(EXAMPLES / f"{name}.py"))
    assert {"py_new_reno", "py_dctcp"} <= set(cc.registered())


def _run(path: str, rename: dict, until: float, edits: dict | None = None):
    from ccscope import _native
    from ccscope.scenario.io import as_dict, to_engine_json
    data = dict(as_dict(ROOT / "scenarios" / path))
    for k, v in (edits or {}).items():
        data[k] = {**(data.get(k) or {}), **v}
    for sec in [data.get("flows") or {}, *(data.get("flow") or []), *(data.get("workload") or [])]:
        if "cc" in sec:
            sec["cc"] = [rename.get(x, x) for x in sec["cc"]] if isinstance(sec["cc"], list) else rename.get(sec["cc"], sec["cc"])
    data["record"] = {**(data.get("record") or {}), "traces": ALL_TRACES}
    sim = _native.Simulation(to_engine_json(data), until, None)
    sim.run_until(until)
    return sim.finish()


_differences = table_differences


CASES = [
    ("dctcp_dumbbell", "dctcp_dumbbell.toml", {"dctcp": "py_dctcp"}, 0.05, None),
    ("incast_dctcp", "incast_dctcp.toml", {"dctcp": "py_dctcp", "new_reno": "py_new_reno"}, 0.3, None),
    # delayed ACKs: slow start grows by up to 2 segments per ACK (ctx.ss_limit_pkts)
    ("incast_dctcp+delack", "incast_dctcp.toml", {"dctcp": "py_dctcp", "new_reno": "py_new_reno"}, 0.3,
     {"tcp": {"delayed_ack": True}}),
]


@pytest.mark.parametrize("case,path,rename,until,edits", CASES, ids=[c[0] for c in CASES])
def test_python_controllers_are_bit_identical_to_the_built_ins(case, path, rename, until, edits):
    a = _run(path, {}, until, edits)
    b = _run(path, rename, until, edits)
    assert a["events"] == b["events"]
    assert json.dumps(a["ledger"], sort_keys=True, default=str) == json.dumps(b["ledger"], sort_keys=True, default=str)
    assert _differences(a, b) == ["flows.cc"]
    names = set(np.asarray(b["tables"]["flows"]["cc"]).tolist())
    assert names == set(rename.values()), names
    # the run is not trivial: marks, ECN cuts, and (incast) losses and timeouts happened
    flows = b["tables"]["flows"]
    assert sum(np.asarray(flows["ecn_reductions"])) > 0
    if path.startswith("incast"):
        assert sum(np.asarray(flows["timeouts"])) + sum(np.asarray(flows["fast_retransmits"])) > 0


def test_a_python_controller_that_differs_gives_a_different_run():
    """The comparison can fail: DCTCP with g = 1/8 is not the built-in."""
    from ccscope import cc
    sys.path.insert(0, str(EXAMPLES))
    from dctcp import Dctcp  # noqa: E402

    class Faster(Dctcp):
        g = 1.0 / 8.0
    cc.register_cc("py_dctcp_g8", Faster)
    a = _run("dctcp_dumbbell.toml", {}, 0.05)
    b = _run("dctcp_dumbbell.toml", {"dctcp": "py_dctcp_g8"}, 0.05)
    assert "flows.final_alpha" in _differences(a, b)
