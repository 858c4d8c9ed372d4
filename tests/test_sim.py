"""Python front: simulate(), results, save/load, CLI, errors, schema mirror."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ccscope as cc
from ccscope import _native
from ccscope.scenario.model import SCHEMA_MIRROR

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios" / "dctcp_dumbbell.toml"
CLI = [sys.executable, "-m", "ccscope"]


def small(n=2, **kw):
    return cc.scenario.dumbbell(senders=n, cc="dctcp", bottleneck_bps=10e9, rtt_s=100e-6,
                                aqm=cc.aqm.threshold(k_pkts=65), start_jitter_s=1e-3, **kw)


def test_simulate_returns_named_traces_with_units_and_a_summary():
    res = cc.simulate(small(), until_s=0.03, record=["queue", "cwnd", "alpha", "link"])
    q = res.traces["queue"]
    assert list(q.columns) == ["time_s", "port", "queue_pkts", "queue_bytes"]
    assert (q["queue_bytes"] == q["queue_pkts"] * 1500).all()
    assert set(res.traces) == {"queue", "cwnd", "alpha", "link"}
    assert 0.99 <= res.summary["bottleneck_utilization"] <= 1.0 + 1e-6
    assert res.meta["ledger"]["sent"] == res.meta["ledger"]["delivered"] + res.meta["ledger"]["dropped"] + res.meta["ledger"]["in_flight"]
    assert len(res.flows) == 2 and res.flows["cc"].tolist() == ["dctcp", "dctcp"]


def test_save_and_load_round_trip(tmp_path):
    res = cc.simulate(small(), until_s=0.01)
    res.save(tmp_path / "out")
    back = cc.load(tmp_path / "out")
    for k in res.traces:
        assert res.traces[k].equals(back.traces[k])
    assert back.summary["marks"] == res.summary["marks"]


def test_same_seed_same_bytes_other_seed_differs(tmp_path):
    a = cc.simulate(small(4), until_s=0.01)
    b = cc.simulate(small(4), until_s=0.01)
    c = cc.simulate(small(4), until_s=0.01, seed=9)
    assert a.traces["queue"].equals(b.traces["queue"])
    assert not np.array_equal(a.traces["queue"]["queue_pkts"], c.traces["queue"]["queue_pkts"])
    a.save(tmp_path / "a")
    b.save(tmp_path / "b")
    assert (tmp_path / "a/traces/queue.parquet").read_bytes() == (tmp_path / "b/traces/queue.parquet").read_bytes()


def test_step_peek_and_run_until():
    sim = cc.Simulation(small(), until_s=0.001)
    assert sim.peek() == 0.0
    assert sim.step() == 0.0
    sim.run_until(0.0005)
    assert sim.now_s == pytest.approx(0.0005)
    sim.run_until(sim.end_s)
    n = sim.events
    res = sim.finish()
    assert res.meta["events"] == n > 0


def test_a_run_in_steps_and_pieces_equals_one_call():
    """Stepping, then `run_until` in uneven pieces, gives the tables of one `simulate` call. Without the
    drop trace the engine takes single-feeder hops ahead of time, never beyond the current `run_until`
    target (and never under `step`), so the pieces take fewer hops ahead (more events) and the same results."""
    rec = ["queue", "link", "cwnd", "alpha", "delivered"]
    whole = cc.simulate(small(3), until_s=0.004, record=rec)
    sim = cc.Simulation(small(3), until_s=0.004, record=rec)
    for _ in range(500):
        sim.step()
    for t in (0.0007, 0.00071, 0.0013, 0.0029, 0.0031):
        sim.run_until(t)
    sim.run_until(sim.end_s)
    pieces = sim.finish()
    for k in rec:
        assert pieces.traces[k].equals(whole.traces[k]), k
    assert pieces.flows.equals(whole.flows) and pieces.ports.equals(whole.ports)
    assert pieces.meta["events"] > whole.meta["events"]  # the pieces took fewer hops ahead


def _schema_props(schema: dict, cls, name: str) -> set[str]:
    defs = schema.get("$defs", {})
    if name == "Scenario":
        return set(schema["properties"])
    if name in defs:
        return set(defs[name].get("properties", {}))
    # newtype variants of tagged enums are inlined: find the variant by its `kind` tag
    for node in defs.values():
        for v in node.get("oneOf", []):
            kind = v.get("properties", {}).get("kind", {})
            if kind.get("const") == getattr(cls, "KIND", None):
                return set(v["properties"]) - {"kind"}
    raise KeyError(name)


def test_python_dataclasses_have_exactly_the_rust_schema_fields():
    schema = json.loads(_native.schema())
    for cls, rust_name in SCHEMA_MIRROR.items():
        py = {f.name.rstrip("_") for f in dataclasses.fields(cls)}
        rust = _schema_props(schema, cls, rust_name)
        assert py == rust, f"{cls.__name__} vs {rust_name}: only Python {py - rust}, only Rust {rust - py}"


@pytest.mark.parametrize("mutate, expect", [
    (lambda s: s.topology.__setattr__("bottleneck_bps", -5.0), "topology.bottleneck_bps = -5: must be"),
    (lambda s: s.flows.__setattr__("count", 0), "flows.count = 0: must be >= 1"),
    (lambda s: s.flows.__setattr__("cc", "bbr"), "unknown variant `bbr`"),
    (lambda s: s.aqm.__setattr__("k_pkts", 5000), "aqm.k_pkts = 5000: must be < topology.buffer_pkts"),
    (lambda s: s.topology.__setattr__("rtt_s", float("nan")), "topology.rtt_s = nan: must be a finite number"),
])
def test_api_errors_name_field_value_and_rule(mutate, expect):
    sc = small()
    mutate(sc)
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(sc, until_s=0.001)
    assert expect in str(e.value)
    assert isinstance(e.value, ValueError)


def test_api_until_and_unknown_field_errors():
    with pytest.raises(cc.ScenarioError, match="until_s"):
        cc.simulate(small(), until_s=0)
    d = small().to_dict()
    d["topology"]["bogus"] = 1
    with pytest.raises(cc.ScenarioError, match="unknown field `bogus`"):
        cc.simulate(d, until_s=0.001)


def run_cli(*args, cwd=None):
    return subprocess.run(CLI + list(args), capture_output=True, text=True, cwd=cwd)


def test_cli_run_writes_results_and_set_overrides(tmp_path):
    out = tmp_path / "out"
    p = run_cli("run", str(SCEN), "--until", "5ms", "--out", str(out), "--quiet", "--set", "flows.count=3", "--set", "aqm.k_pkts=40")
    assert p.returncode == 0, p.stderr
    res = cc.load(out)
    assert len(res.flows) == 3
    assert res.scenario["aqm"]["k_pkts"] == 40


@pytest.mark.parametrize("args, expect", [
    (["--until", "0s"], "--until"),
    (["--until", "abc"], "--until"),
    (["--set", "topology.bottleneck_bps=-5"], "topology.bottleneck_bps = -5"),
    (["--set", "aqm.k_pkts=5000"], "aqm.k_pkts = 5000"),
    (["--set", "flows.count=0"], "flows.count = 0"),
    (["--set", "flows.cc=\"vegas\""], "unknown variant `vegas`"),
    (["--set", "nonsense=1"], "unknown field `nonsense`"),
])
def test_cli_errors_are_one_clear_line_and_write_nothing(tmp_path, args, expect):
    out = tmp_path / "out"
    p = run_cli("run", str(SCEN), "--out", str(out), "--quiet", *args)
    assert p.returncode == 2
    assert expect in p.stderr
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_cli_unreadable_and_malformed_files(tmp_path):
    p = run_cli("run", str(tmp_path / "missing.toml"), "--quiet")
    assert p.returncode == 2 and "cannot read" in p.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[topology\nkind = ")
    p = run_cli("run", str(bad), "--quiet")
    assert p.returncode == 2 and "invalid TOML" in p.stderr and "Traceback" not in p.stderr


def test_cli_expand_and_plot(tmp_path):
    p = run_cli("scenario", "expand", str(SCEN))
    assert p.returncode == 0, p.stderr
    assert 'kind = "graph"' in p.stdout and "[[flow]]" in p.stdout
    out = tmp_path / "o"
    assert run_cli("run", str(SCEN), "--until", "3ms", "--out", str(out), "--quiet").returncode == 0
    fig = tmp_path / "fig.png"
    p = run_cli("plot", str(out), "--queue", "--cwnd", "-o", str(fig))
    assert p.returncode == 0, p.stderr
    assert fig.stat().st_size > 10_000


def test_docs_scenario_reference_is_current():
    from ccscope.docs_gen import scenario_reference
    text = (ROOT / "docs" / "scenario.md").read_text()
    assert text == scenario_reference(), "docs/scenario.md is stale: run `python -m ccscope.docs_gen`"
