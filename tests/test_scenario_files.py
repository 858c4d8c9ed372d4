"""Every scenario file in scenarios/ validates, runs, and is documented in docs/scenarios.md."""
from __future__ import annotations

from pathlib import Path

import pytest

import ccscope as cc

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "scenarios").glob("*.toml"))


def test_there_is_a_file_per_experiment_family():
    names = {f.stem for f in FILES}
    for family in ("dctcp_dumbbell", "newreno_droptail", "dx_many_to_one", "qcn_dumbbell", "asm_dumbbell",
                   "incast_dctcp", "poisson_short_flows", "coexistence_choke", "parking_lot_asm",
                   "periodic_fixed_rtt", "leaf_spine_websearch"):
        assert family in names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_scenario_file_validates_runs_and_is_documented(path):
    data = cc.scenario.validate(path)
    first = min((f.get("start_s", 0.0) for f in data.get("flow") or []), default=0.0)
    res = cc.simulate(path, until_s=first + 2e-3)
    assert res.success
    led = res.meta["ledger"]
    assert led["sent"] == led["delivered"] + led["dropped"] + led["in_flight"] and led["sent"] > 0
    assert f"`{path.name}`" in (ROOT / "docs" / "scenarios.md").read_text()
