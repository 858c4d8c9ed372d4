"""bench/peers/htsim_fabric.py --cc swift: the ccscope side of the comparison (lossy, [swift] from
htsim swift.cpp's constants, the same Swift target on every path) and htsim's main_swift command
(one -flowsize; the web-search case refused with its cause). htsim itself is not built here."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "peers"))

import htsim_fabric as F  # noqa: E402


def test_swift_scenario_is_lossy_with_htsims_constants():
    sc = F.ccscope_scenario(F.CASES["incast"], "swift")
    assert "pfc" not in sc  # main_swift runs lossy queues
    assert sc["swift"]["beta"] == 0.8 and sc["swift"]["max_mdf"] == 0.5 and sc["swift"]["fs_range_s"] == 100e-6
    assert sc["tcp"] == {"iw_pkts": 15, "initial_rto_s": 1e-3, "min_rto_s": 100e-6}
    h = 20e-6 / 6.55
    # htsim: 20 us + h x links; ccscope: base + h x switches, and a route has one link more than switches
    for switches in (1, 3, 5):
        ours = sc["swift"]["base_target_s"] + sc["swift"]["hop_scale_s"] * switches
        assert ours == pytest.approx(20e-6 + h * (switches + 1), rel=1e-12)


def test_hpcc_scenario_keeps_pfc():
    sc = F.ccscope_scenario(F.CASES["websearch"], "hpcc")
    assert sc["pfc"] == {"classes": [0], "xoff_bytes": 15 * F.MTU, "xon_bytes": 12 * F.MTU}
    assert "swift" not in sc and "tcp" not in sc


def test_main_swift_command_and_the_case_it_cannot_run(tmp_path):
    cm = tmp_path / "flows.cm"
    cmd = F.htsim_command(Path("htsim_swift"), cm, F.CASES["incast"], "swift")
    assert cmd[cmd.index("-flowsize") + 1] == str(math.ceil(1_000_000 / F.MTU))
    assert cmd[cmd.index("-cwnd") + 1] == "15" and "-pfc_thresholds" not in cmd
    with pytest.raises(F.NotRunnable, match="ignores the connection matrix's flow sizes"):
        F.htsim_command(Path("htsim_swift"), cm, F.CASES["websearch"], "swift")


def test_swift_incast_scenario_runs_in_ccscope():
    import ccscope

    c = dict(F.CASES["incast"], senders=[4, 8], size_bytes=150_000, until_s=0.001, drain_s=0.001)
    res = ccscope.simulate(F.ccscope_scenario(c, "swift"))
    assert res.flows["fct_s"].notna().all()
