"""scenarios/periodic_*.toml are the builder's output (ccscope.repro.periodic._scenarios), so the files
and `cc.scenario.periodic` cannot drift apart, and each file loads as the P0 setup of FIGURES.md."""
from __future__ import annotations

from pathlib import Path

import pytest

import ccscope as cc
from ccscope.repro.periodic import _scenarios

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("stem", sorted(_scenarios.FAMILIES))
def test_scenario_file_equals_builder_output(stem):
    assert (ROOT / "scenarios" / f"{stem}.toml").read_text() == _scenarios.text(stem)


@pytest.mark.parametrize("stem", sorted(_scenarios.FAMILIES))
def test_scenario_file_is_p0(stem):
    data = cc.scenario.io.load_file(ROOT / "scenarios" / f"{stem}.toml")
    rtt, queue, size, _ = _scenarios.FAMILIES[stem]
    assert len(data["flow"]) == 50 and data["packet_bytes"] == 1000 and data["until_s"] == 4200.0
    # ns-2's timers as P001 ran them (repro/periodic/_p0.py): tick estimator, floor of two 0.1-s ticks
    assert data["tcp"]["rwnd_pkts"] == 20 and data["tcp"]["min_rto_s"] == 0.2
    assert data["tcp"]["rto_estimator"] == "ns2_ticks"
    links = {(lk["from"], lk["to"]): lk for lk in data["topology"]["links"]}
    assert links[("M2", "M3")]["rate_bps"] == 1.5e6
    delays = [links[("M3", f["dst"])]["delay_s"] for f in data["flow"]]
    server = sum(links[k]["delay_s"] for k in (("S", "M1"), ("M1", "M2"), ("M2", "M3")))
    rtts = [2 * (server + d) for d in delays]
    if rtt == "fixed":
        assert all(r == pytest.approx(1.34, abs=1e-3) for r in rtts)  # FIGURES.md fig3: 1340 ms ± 1 ms
    else:
        assert sum(rtts) / len(rtts) == pytest.approx(2.3, rel=0.1)  # mean 2300 ms ± 10%
    assert all(0.0 <= f["start_s"] <= 300.0 for f in data["flow"])
    # DropTail: ns-2's queue-limit B counts the packet on the wire, so B - 1 wait (builder docstring);
    # RED: physical limit 2·max_th [NG], compared with the waiting queue as in ns-2
    expect_buf = size - 1 if queue == "droptail" else 2 * size
    assert links[("M2", "M3")]["buffer_pkts"] == expect_buf
