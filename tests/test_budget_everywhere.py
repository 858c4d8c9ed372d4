"""The memory budget applies on every path that builds or expands a scenario, not only
`simulate`/`ccscope run`: `simulate_many` (each item, both executors), `scenario.expand` and
`ccscope scenario expand`, `scenario.validate` and `ccscope scenario validate`. Each refusal
is the run's error: the fields that drive the estimate, the estimate and the budget. The
budgets are small, so nothing here allocates more than a few MB."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import ccscope as cc
from ccscope import simulate_many
from ccscope.cli import app
from ccscope.many import ItemError

MiB = 2 ** 20


def dumbbell(flows: int, until_s: float = 0.002) -> dict:
    return {"until_s": until_s, "seed": 2,
            "topology": {"kind": "dumbbell", "bottleneck_bps": 10e9, "rtt_s": 100e-6},
            "flows": {"count": flows}, "record": {"traces": ["queue"]}}


def over_budget(msg: str, budget: str = "8.0 MiB", flows: int = 100_000) -> None:
    assert f"flows.count = {flows}: estimated memory " in msg, msg
    assert f"exceeds the budget {budget}" in msg and "--max-memory" in msg, msg


# --- simulate_many -----------------------------------------------------------------------

@pytest.mark.parametrize("executor", ["thread", "process"])
def test_simulate_many_applies_the_budget_to_each_item(executor):
    small, big = dumbbell(2), dumbbell(100_000)
    out = simulate_many([small, big, small], max_memory_bytes=8 * MiB, errors="return",
                        executor=executor, jobs=2)
    assert out[0].success and out[2].success
    assert isinstance(out[1], ItemError) and isinstance(out[1].error, cc.ScenarioError)
    over_budget(str(out[1].error))
    # the budget does not change what a run that fits computes
    alone = cc.simulate(small, max_memory_bytes=8 * MiB)
    assert out[0].summary["flow_throughput_bps"] == alone.summary["flow_throughput_bps"]
    assert out[0].traces["queue"].equals(alone.traces["queue"])


def test_simulate_many_raises_the_budget_error_with_the_item_index():
    with pytest.raises(cc.ScenarioError) as e:
        simulate_many([dumbbell(2), dumbbell(100_000)], max_memory_bytes=8 * MiB)
    assert str(e.value).startswith("scenarios[1]: flows.count = 100000: estimated memory ")


def test_simulate_many_budget_is_per_item_not_shared():
    # two items that each fit, but not two of them, run together with jobs=2 under the same budget
    budget = 12 * MiB
    cc.Simulation(dumbbell(1000), max_memory_bytes=budget)
    with pytest.raises(cc.ScenarioError, match="exceeds the budget"):
        cc.Simulation(dumbbell(1000), max_memory_bytes=budget // 2)
    out = simulate_many([dumbbell(1000), dumbbell(1000)], max_memory_bytes=budget, jobs=2)
    assert all(r.success for r in out)


@pytest.mark.parametrize("bad", [0, -5, "4GiB", True, float("nan"), 2 ** 64])
def test_simulate_many_max_memory_bytes_is_checked(bad):
    with pytest.raises(cc.ScenarioError, match="max_memory_bytes"):
        simulate_many([dumbbell(2)], max_memory_bytes=bad)


# --- expand --------------------------------------------------------------------------------

def test_expand_refuses_an_expansion_over_the_budget():
    with pytest.raises(cc.ScenarioError) as e:
        cc.scenario.expand(dumbbell(100_000), max_memory_bytes=8 * MiB)
    over_budget(str(e.value))
    # what only a run records is not counted: a fine sampling does not stop the expansion
    fine = dict(dumbbell(100), record={"traces": ["cwnd"], "flow_interval_s": 1e-7})
    with pytest.raises(cc.ScenarioError, match="record.flow_interval_s"):
        cc.Simulation(fine, max_memory_bytes=8 * MiB)
    assert len(cc.scenario.expand(fine, max_memory_bytes=8 * MiB)["flow"]) == 100


def test_expand_refuses_a_huge_leaf_spine_with_the_default_budget():
    # 4096^3 hosts: refused by the estimate before any node is made, whatever the machine
    huge = {"topology": {"kind": "leaf_spine", "leaves": 4096, "spines": 4096, "hosts_per_leaf": 4096,
                         "host_bps": 1e9, "fabric_bps": 1e9, "link_delay_s": 0},
            "flow": [{"src": "h0", "dst": "h1"}]}
    with pytest.raises(cc.ScenarioError, match="topology.leaves x spines x hosts_per_leaf = 4096 x 4096 x 4096"):
        cc.scenario.expand(huge)


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_cli_expand_max_memory(tmp_path, fmt):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(dumbbell(2)))
    r = CliRunner().invoke(app, ["scenario", "expand", str(f), "--format", fmt, "--set", "flows.count=100000",
                                 "--max-memory", "8MiB"])
    assert r.exit_code == 2, r.output
    assert r.output.startswith("error: flows.count = 100000: estimated memory "), r.output
    over_budget(r.output)
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) <= 3
    ok = CliRunner().invoke(app, ["scenario", "expand", str(f), "--format", fmt, "--max-memory", "8MiB"])
    assert ok.exit_code == 0, ok.output
    assert "s0" in ok.output and "s1" in ok.output  # the expanded graph: both senders


def test_cli_expand_and_validate_refuse_a_bad_max_memory(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(dumbbell(2)))
    for cmd in ("expand", "validate"):
        r = CliRunner().invoke(app, ["scenario", cmd, str(f), "--max-memory", "lots"])
        assert r.exit_code == 2 and "--max-memory 'lots'" in r.output and "Traceback" not in r.output


# --- validate ------------------------------------------------------------------------------

def test_validate_uses_the_budget_like_run(tmp_path):
    with pytest.raises(cc.ScenarioError) as e:
        cc.scenario.validate(dumbbell(100_000), max_memory_bytes=8 * MiB)
    over_budget(str(e.value))
    with pytest.raises(cc.ScenarioError, match="max_memory_bytes"):
        cc.scenario.validate(dumbbell(2), max_memory_bytes=0)
    f = tmp_path / "s.json"
    f.write_text(json.dumps(dumbbell(2)))
    r = CliRunner().invoke(app, ["scenario", "validate", str(f), "--set", "flows.count=100000", "--max-memory", "8MiB"])
    assert r.exit_code == 2, r.output
    over_budget(r.output)
    run = CliRunner().invoke(app, ["run", str(f), "--quiet", "--set", "flows.count=100000", "--max-memory", "8MiB"])
    assert run.exit_code == 2 and run.output == r.output  # the very same line as run
    ok = CliRunner().invoke(app, ["scenario", "validate", str(f), "--max-memory", "8MiB"])
    assert ok.exit_code == 0 and ok.output.strip() == "ok", ok.output
