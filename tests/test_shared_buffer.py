"""Shared-buffer switches (`[shared_buffer]`, docs/engine.md) as a user reaches them from Python and
the CLI: a dumbbell template selects the pool, the ports table's pool columns and their round trip
through `save`/`load`, the dataclass mirror, and clear errors for bad values. The dynamic-threshold
mechanism itself (Choudhury-Hahne steady states, bursts, reservations) is tested in
crates/ccscope-core/tests/shared_buffer.rs."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ccscope as cc
from ccscope.scenario import Scenario, SharedBufferConfig
from ccscope.scenario.io import as_dict

ROOT = Path(__file__).resolve().parents[1]
B = 150_000


def _dumbbell(shared: dict | None) -> dict:
    d = dict(as_dict(ROOT / "scenarios" / "newreno_droptail.toml"))
    d["until_s"] = 0.05
    d["flows"] = {**d["flows"], "count": 4}
    if shared is not None:
        d["shared_buffer"] = shared
    return d


def test_a_dumbbell_with_a_pool_holds_its_bottleneck_at_the_dynamic_threshold(tmp_path):
    r = cc.simulate(_dumbbell({"bytes": B, "alpha": 1.0}))
    p = r.ports.set_index("name")
    # the port's own 250-packet buffer is replaced: one congested queue stops at alpha/(1+alpha) B
    assert p.loc["sw->r0", "max_queue_pkts"] * 1500 == pytest.approx(B / 2, abs=1500)
    assert p.loc["sw->r0", "pool_drops"] > 0
    assert p.loc["sw->r0", "pool_drops"] == p.loc["sw->r0", "drops_overflow"]
    assert 0 < p.loc["sw->r0", "pool_max_bytes"] <= B
    # host NICs keep their own buffer and report no pool
    assert (p.loc[[n for n in p.index if n.startswith("s") and n.endswith("->sw")], "pool_max_bytes"] == 0).all()
    led = r.meta["ledger"]
    assert led["sent"] == led["delivered"] + led["dropped"] + led["in_flight"]
    back = cc.load(r.save(tmp_path / "run"))
    assert back.ports["pool_max_bytes"].tolist() == r.ports["pool_max_bytes"].tolist()


def test_a_run_without_the_table_has_no_pool_columns():
    r = cc.simulate(_dumbbell(None))
    assert "pool_max_bytes" not in r.ports.columns and "pool_drops" not in r.ports.columns


def test_the_dataclass_serializes_to_the_table():
    sc = Scenario(topology=cc.scenario.Dumbbell(bottleneck_bps=1e9, rtt_s=250e-6, buffer_pkts=250),
                  shared_buffer=SharedBufferConfig(bytes=B, alpha=[0.5, 2.0], reserve_bytes=3000))
    d = sc.to_dict()
    assert d["shared_buffer"] == {"bytes": B, "alpha": [0.5, 2.0], "reserve_bytes": 3000}
    d["flows"] = {"count": 2, "cc": "new_reno"}
    r = cc.simulate(d, until_s=0.01)
    assert "pool_max_bytes" in r.ports.columns


@pytest.mark.parametrize("table, expect", [
    ({"bytes": 0}, "shared_buffer.bytes = 0: must be from 1 to 2^40 bytes"),
    ({"bytes": B, "alpha": 0}, "shared_buffer.alpha = 0: must be a finite number > 0"),
    ({"bytes": B, "alpha": [1.0, -1.0]}, "shared_buffer.alpha[1] = -1: must be a finite number > 0"),
    ({"bytes": B, "reserve_bytes": B}, f"shared_buffer.reserve_bytes = {B}: must be below bytes"),
])
def test_bad_values_name_the_field(table, expect):
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(_dumbbell(table), until_s=0.001)
    assert expect in str(e.value)


def test_the_cli_prints_one_line_for_a_bad_alpha(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text((ROOT / "scenarios" / "newreno_droptail.toml").read_text()
                 + "\n[shared_buffer]\nbytes = 150000\nalpha = -1\n")
    p = subprocess.run([sys.executable, "-m", "ccscope", "run", str(f)], capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"})
    assert p.returncode != 0
    assert "shared_buffer.alpha = -1: must be a finite number > 0" in p.stderr
    assert "Traceback" not in p.stderr


def test_a_leaf_spine_fabric_gets_one_pool_per_switch():
    d = dict(as_dict(ROOT / "scenarios" / "leaf_spine_websearch.toml"))
    d["shared_buffer"] = {"bytes": 200_000, "alpha": [2.0]}
    r = cc.simulate(d, until_s=0.01)
    p = r.ports
    switch_ports = p[~p["from"].str.startswith("h")]
    assert len(switch_ports) > 0 and (p[p["from"].str.startswith("h")]["pool_max_bytes"] == 0).all()
    # every port of one switch reports the same pool, each within B, and the switches differ
    per_switch = switch_ports.groupby("from")["pool_max_bytes"].nunique()
    assert (per_switch == 1).all()
    assert (switch_ports["pool_max_bytes"] <= 200_000).all() and switch_ports["pool_max_bytes"].max() > 0
    assert switch_ports.groupby("from")["pool_max_bytes"].first().nunique() > 1
    led = r.meta["ledger"]
    assert led["sent"] == led["delivered"] + led["dropped"] + led["in_flight"]
