"""Python rate controllers are exact: examples/controllers/qcn.py (registered as py_qcn) gives
bit-identical engine output to the built-in qcn on the ASM paper's QCN baseline (FIGURES.md A0,
python/ccscope/repro/asm/_a0.py: fig 6's ten sources with Qeq = 5 packets, and fig 2's three
sources with Qeq = 64 packets): every column of every table (rates, feedback, queue, link,
delivered, drops, flows, ports), the event count, the ledger and the summary; only the flows
table's `cc` column differs."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "controllers"
TRACES = ["queue", "link", "delivered", "drops", "rate", "feedback"]


@pytest.fixture(scope="module", autouse=True)
def _controllers():
    from ccscope import cc
    cc.load_plugin(str(EXAMPLES / "qcn.py"))
    assert cc.registered()["py_qcn"].__name__ == "Qcn"


def _scenario(cc_name: str, n: int, q0: float, until: float, seed: int) -> dict:
    from ccscope.repro.asm import _a0
    s = _a0.scenario("qcn", n=n, q0_pkts=q0, until_s=until, seed=seed)
    s["flows"]["cc"] = cc_name
    s["record"]["traces"] = TRACES
    return s


def _run(s: dict, until: float):
    from ccscope import _native
    from ccscope.scenario.io import to_engine_json
    sim = _native.Simulation(to_engine_json(s), until, None)
    sim.run_until(until)
    return sim.finish()


def _differences(a: dict, b: dict) -> list[str]:
    out = []
    assert a["tables"].keys() == b["tables"].keys()
    for table, cols in a["tables"].items():
        assert cols.keys() == b["tables"][table].keys(), table
        for name, col in cols.items():
            x, y = np.asarray(col), np.asarray(b["tables"][table][name])
            same = (x.tolist() == y.tolist()) if x.dtype == object else (x.dtype == y.dtype and x.shape == y.shape
                                                                            and x.tobytes() == y.tobytes())
            if not same:
                out.append(f"{table}.{name}")
    return out


CASES = [("fig6_n10_q5", 10, 5, 0.12, 2), ("fig2_n3_q64", 3, 64, 0.1, 1)]


@pytest.mark.parametrize("case,n,q0,until,seed", CASES, ids=[c[0] for c in CASES])
def test_python_qcn_is_bit_identical_to_the_built_in(case, n, q0, until, seed):
    a = _run(_scenario("qcn", n, q0, until, seed), until)
    b = _run(_scenario("py_qcn", n, q0, until, seed), until)
    assert a["events"] == b["events"]
    assert json.dumps(a["ledger"], sort_keys=True, default=str) == json.dumps(b["ledger"], sort_keys=True, default=str)
    assert _differences(a, b) == ["flows.cc"]
    assert set(np.asarray(b["tables"]["flows"]["cc"]).tolist()) == {"py_qcn"}
    # not trivial: CNMs arrived, and the rate went both down (eq 6) and up again (byte counter, timer)
    fb = b["tables"]["feedback"]
    before, after = np.asarray(fb["rate_before_bps"]), np.asarray(fb["rate_after_bps"])
    got = np.isfinite(before)  # the rows of frames received at the source (sent rows: NaN)
    before, after = before[got], after[got]
    assert len(before) > 20 and (after <= before).all() and (after < before).sum() > 20
    rates = b["tables"]["rate"]
    r, f = np.asarray(rates["rate_bps"]), np.asarray(rates["flow"])
    ups = sum(int((np.diff(r[f == k]) > 0).sum()) for k in set(f.tolist()))
    assert ups > 10
    target = np.asarray(rates["target_rate_bps"])
    assert np.isfinite(target).all() and (target >= r).all()


def test_the_summary_of_a_result_is_identical():
    import ccscope
    until = 0.05
    a = ccscope.simulate(_scenario("qcn", 4, 16, until, 3), until_s=until)
    b = ccscope.simulate(_scenario("py_qcn", 4, 16, until, 3), until_s=until)
    def simulated(summary):  # the wall-clock entries aside
        return json.dumps({k: v for k, v in summary.items() if k not in ("wall_s", "events_per_s")},
                          sort_keys=True, default=str)
    assert "wall_s" in a.summary and simulated(a.summary) == simulated(b.summary)
    assert a.traces["rate"].equals(b.traces["rate"])
    assert a.flows.drop(columns="cc").equals(b.flows.drop(columns="cc"))
