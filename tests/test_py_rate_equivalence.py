"""Python rate controllers are exact: examples/controllers/qcn.py (registered as py_qcn) gives
bit-identical engine output to the built-in qcn on the ASM paper's QCN baseline (FIGURES.md A0,
python/ccscope/repro/asm/_a0.py: fig 6's ten sources with Qeq = 5 packets, and fig 2's three
sources with Qeq = 64 packets): every column of every table (rates, feedback, queue, link,
delivered, drops, flows, ports), the event count, the ledger and the summary; only the flows
table's `cc` column differs. On the RDMA transport, examples/controllers/timely.py (py_timely,
driven by `on_ack`'s RTT samples) does the same against the built-in timely."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.equivalence import run_native, table_differences
from tests.rdma_scenarios import dcqcn_dumbbell, write_toml

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


_run = run_native


_differences = table_differences


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


@pytest.mark.parametrize("start", [None, 5e9], ids=["line_rate_start", "half_rate_start"])
def test_python_timely_on_the_rdma_transport_is_bit_identical_to_the_built_in(start):
    """examples/controllers/timely.py (rdma = True; on_ack's RTT samples) against the built-in
    timely on tests/test_timely.py's two-flow 10 Gb/s dumbbell, from line rate (the collapse to
    the floor and the climb back) and from C/2 (the limit cycle around T_low)."""
    from ccscope import _native, cc
    from ccscope.scenario import TimelyConfig, dumbbell
    from ccscope.scenario.io import to_engine_json
    cc.load_plugin(str(EXAMPLES / "timely.py"))
    Timely = cc.registered()["py_timely"]

    class Start(Timely):
        initial_rate_bps = start
    cc.register_cc("py_timely_start", Start)
    until = 0.02
    outs = {}
    for name in ("timely", "py_timely_start"):
        sc = dumbbell(2, cc=name, bottleneck_bps=10e9, rtt_s=20e-6, buffer_pkts=2000)
        sc.until_s = until
        sc.timely = TimelyConfig(initial_rate_bps=start)
        sc.record.traces = ["queue", "link", "delivered", "drops", "rate"]
        sim = _native.Simulation(to_engine_json(sc), until, None)
        sim.run_until(until)
        outs[name] = sim.finish()
    a, b = outs["timely"], outs["py_timely_start"]
    assert a["events"] == b["events"]
    assert json.dumps(a["ledger"], sort_keys=True, default=str) == json.dumps(b["ledger"], sort_keys=True, default=str)
    assert _differences(a, b) == ["flows.cc"]
    r = np.asarray(b["tables"]["rate"]["rate_bps"])
    assert (np.diff(r) < 0).any() and (np.diff(r) > 0).any()  # the RTT samples moved the rates both ways


def test_python_dcqcn_on_the_rdma_transport_is_bit_identical_to_the_built_in(tmp_path):
    """examples/controllers/dcqcn.py (rdma = True; on_cnp, on_bytes_sent, on_timer) against the
    built-in dcqcn on the RDMA test's DCQCN pair (two 20 MB messages, 40 Gb/s, RED/ECN, PFC)."""
    from ccscope import _native, cc
    from ccscope.scenario.io import load_file, to_engine_json
    cc.load_plugin(str(EXAMPLES / "dcqcn.py"))
    outs = {}
    for name in ("dcqcn", "py_dcqcn"):
        p = write_toml(tmp_path / f"{name}.toml", dcqcn_dumbbell(
            cc=name, until_s=0.006, traces=["queue", "link", "delivered", "drops", "rate"], flow_interval_s=1e-5))
        sim = _native.Simulation(to_engine_json(load_file(p)), 0.006, None)
        sim.run_until(0.006)
        outs[name] = sim.finish()
    a, b = outs["dcqcn"], outs["py_dcqcn"]
    assert a["events"] == b["events"]
    assert json.dumps(a["ledger"], sort_keys=True, default=str) == json.dumps(b["ledger"], sort_keys=True, default=str)
    assert _differences(a, b) == ["flows.cc"]
    flows = b["tables"]["flows"]
    assert (np.asarray(flows["ecn_reductions"]) > 0).all()  # CNPs cut the rates (on_cnp ran)
    r = np.asarray(b["tables"]["rate"]["rate_bps"])
    assert r.min() < 30e9 and (np.diff(r) > 0).any()      # and the timer / byte counter raised them
