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


def test_fat_tree_route_lengths_and_the_acks_base_return():
    # k = 4: 2 hosts a rack, 4 a pod; k = 8: 4 a rack, 16 a pod
    assert [F.fat_tree_links(0, d, 4) for d in (1, 2, 3, 4, 15)] == [2, 4, 4, 6, 6]
    assert [F.fat_tree_links(0, d, 8) for d in (3, 4, 15, 16, 127)] == [2, 4, 4, 6, 6]
    c = F.CASES["websearch"]
    # across pods: 6 links of 1 us, each serializing a 64-byte ACK at 100 Gb/s (5.12 ns)
    assert F.ack_return_s(0, 15, c) == pytest.approx(6 * (1e-6 + 64 * 8 / 100e9), rel=1e-12)
    assert F.ack_return_s(0, 1, c) == pytest.approx(2 * (1e-6 + 5.12e-9), rel=1e-12)


def test_bench_batch_covers_every_k8_host_and_bad_options_are_one_line(capsys):
    c = dict(F.CASES["websearch"], k=8, per_host=2)
    flows = F.batch_flows(c)
    assert len(flows) == 256 and {s for s, _, _ in flows} == set(range(128))
    assert all(0 <= d < 128 and d != s and b >= 1 for s, d, b in flows)
    assert F.ccscope_scenario(c, "hpcc")["topology"]["k"] == 8
    cmd = F.htsim_command(Path("htsim_hpcc"), Path("f.cm"), c, "hpcc")
    assert cmd[cmd.index("-nodes") + 1] == "128"
    for argv, want in ((["--k", "8"], "--k = 8"), (["--bench", "--cc", "swift"], "--cc = swift"),
                       (["--bench", "--bench-ms", "0"], "--bench-ms = 0")):
        assert F.main(["--htsim", "/nonexistent", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and want in err and "\n" not in err, err
