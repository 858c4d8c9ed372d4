"""bench/peers/htsim_fabric.py --cc swift: the ccscope side of the comparison (lossy, [swift] from
htsim swift.cpp's constants, htsim's target on every path), the command line of our htsim driver
(bench/peers/htsim_swift_fabric.cpp) and the reading of its output. htsim itself is built only when
CCSCOPE_HTSIM_SRC names a checkout of its source (the last test)."""
from __future__ import annotations

import math
import os
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
    # htsim's target is 20 us + fs on every path: the route a Swift subflow keeps is a Route::clone,
    # whose hop count is 0, so its h x hops term is 0 (the driver prints the count per flow)
    for switches in (1, 3, 5):
        assert sc["swift"]["base_target_s"] + sc["swift"]["hop_scale_s"] * switches == 20e-6


def test_hpcc_scenario_keeps_pfc():
    sc = F.ccscope_scenario(F.CASES["websearch"], "hpcc")
    assert sc["pfc"] == {"classes": [0], "xoff_bytes": 15 * F.MTU, "xon_bytes": 12 * F.MTU}
    assert "swift" not in sc and "tcp" not in sc


def test_swift_driver_command_takes_sizes_from_the_matrix(tmp_path):
    cm = tmp_path / "flows.cm"
    cmd = F.swift_command(Path("/x/htsim_swift_fabric"), cm, F.CASES["websearch"])
    assert "-flowsize" not in cmd  # each flow's size comes from the matrix
    assert cmd[cmd.index("-tm") + 1] == str(cm) and cmd[cmd.index("-cwnd") + 1] == "15"
    assert cmd[cmd.index("-end") + 1] == "50000" and "-pfc_thresholds" not in cmd


def _fake_driver(tmp_path: Path, text: str) -> Path:
    out = tmp_path / "out.txt"
    out.write_text(text)
    exe = tmp_path / "fake_driver"
    exe.write_text(f"#!/bin/sh\ncat {out}\n")
    exe.chmod(0o755)
    return exe


def test_swift_fcts_reads_the_first_finish_of_each_flow_by_id(tmp_path):
    import pandas as pd

    # htsim's clock prints dots without a newline, a flow may print "finished" more than once, and
    # two flows of the same source, destination and size are told apart by the matrix's id
    exe = _fake_driver(tmp_path, "Loaded 3 connections\n"
                                 ".Flow swift2_1_0 finished at 10.5 total bytes 3000\n"
                                 "Flow swift1_1_0 finished at 20 total bytes 3000\n"
                                 "Flow swift2_1_0 finished at 30 total bytes 3000\n"
                                 "|route 1 links 6 hop_count 0 copy_hop_count 6\n"
                                 "route 2 links 2 hop_count 0 copy_hop_count 2\nDone\n")
    flows = pd.DataFrame({"flow": [0, 1, 2], "start_s": [0.0, 2e-6, 0.0]})
    fct, routes = F.swift_fcts(exe, tmp_path / "flows.cm", F.CASES["websearch"], flows)
    assert fct[0] == pytest.approx(20e-6) and fct[1] == pytest.approx(10.5e-6 - 2e-6)
    assert math.isnan(fct[2])  # flow 2 (id 3) never finished
    assert routes == [(1, 6, 0), (2, 2, 0)]


def test_swift_fcts_reports_a_failed_driver(tmp_path):
    import pandas as pd

    exe = tmp_path / "fail"
    exe.write_text("#!/bin/sh\necho 'htsim_swift_fabric: -tm: bad' >&2\nexit 2\n")
    exe.chmod(0o755)
    with pytest.raises(F.peer.BuildError, match="status 2.*-tm: bad"):
        F.swift_fcts(exe, tmp_path / "flows.cm", F.CASES["websearch"], pd.DataFrame({"flow": [], "start_s": []}))


@pytest.mark.skipif(not os.environ.get("CCSCOPE_HTSIM_SRC"), reason="CCSCOPE_HTSIM_SRC names no htsim checkout")
def test_swift_driver_runs_each_flows_own_size_and_start(tmp_path):
    """Built against a real htsim checkout: every flow ends, with ceil(size / MSS) full packets
    (htsim alone never ends a size that is not a multiple of the MSS), a later start ends later,
    and htsim's Swift route counts no hops."""
    import argparse

    a = argparse.Namespace(htsim=os.environ["CCSCOPE_HTSIM_SRC"], build_dir=tmp_path / "build", jobs=2,
                           cxx="g++", cxxflags=F.peer.DEFAULT_CXXFLAGS)
    a.sim = F.peer.find_sim(a.htsim)
    exe = F.swift_fabric_binary(a)
    cm = tmp_path / "t.cm"
    cm.write_text("Nodes 16\nConnections 4\n4->0 id 1 start 0 size 2000\n1->0 id 2 start 0 size 1\n"
                  "2->3 id 3 start 0 size 3000\n2->3 id 4 start 5000000 size 3000\n")
    out = F.peer.run_checked([str(exe), "-tm", str(cm), "-nodes", "16", "-linkspeed", "100000", "-q", "500",
                              "-mtu", "1500", "-cwnd", "15", "-end", "1000"], "driver")
    import re

    done = {int(m.group(1)): (float(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"Flow swift(\d+)_\d+_\d+ finished at (\S+) total bytes (\d+)", out)}
    assert {k: v[1] for k, v in done.items()} == {1: 3000, 2: 1500, 3: 3000, 4: 3000}
    assert done[4][0] > done[3][0] + 4.9  # started 5 us later
    assert re.findall(r"route 1 links (\d+) hop_count (\d+)", out) == [("6", "0")]


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


def test_fct_sender_option_errors_are_one_line(capsys):
    for argv, want in ((["--fct", "sender", "--htsim-fct", "ack"], "--htsim-fct = ack"),
                       (["--fct", "sender", "--htsim-fct", "raw"], "--htsim-fct = raw"),
                       (["--fct", "sender", "--bench"], "--fct = sender"),
                       (["--fct", "sender", "--cc", "swift", "--diagnose", "2"], "--diagnose = 2")):
        assert F.main(["--htsim", "/nonexistent", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and want in err and "\n" not in err, err
    with pytest.raises(SystemExit) as e:  # argparse's own refusal of an unknown end point
        F.main(["--htsim", "/nonexistent", "--fct", "ack"])
    assert e.value.code == 2
    assert "invalid choice: 'ack'" in capsys.readouterr().err


def test_fct_sender_divides_both_sender_fcts_by_the_ideal_plus_the_acks_return():
    import ccscope

    c = dict(F.CASES["incast"], senders=[4, 1], size_bytes=15_000, until_s=0.001, drain_s=0.001)
    flows = ccscope.simulate(F.ccscope_scenario(c, "hpcc")).flows
    peer = [2e-5, math.nan]
    ours, theirs = F.sender_side(flows, c, "hpcc", peer)
    # h4 -> h0 crosses pods (6 links back), h1 -> h0 shares the rack (2 links back)
    ideal = flows["ideal_fct_s"].to_numpy() + [6 * (1e-6 + 64 * 8 / 100e9), 2 * (1e-6 + 64 * 8 / 100e9)]
    assert ours["fct_s"].tolist() == flows["fct_sender_s"].tolist()
    assert ours["slowdown"].to_numpy() == pytest.approx(flows["fct_sender_s"].to_numpy() / ideal, rel=1e-12)
    assert theirs["slowdown"].iloc[0] == pytest.approx(2e-5 / ideal[0], rel=1e-12)
    assert math.isnan(theirs["slowdown"].iloc[1])
    # near the ideal on this near-empty fabric; ccscope's ACK is 40 bytes, 24 fewer than the
    # ideal's 64 (HPCCAck), so its base return is up to 6 x 1.92 ns shorter: just below 1 is possible
    assert (ours["slowdown"] > 0.998).all() and (ours["slowdown"] < 1.5).all()
    own = flows["fct_sender_s"] / flows["ideal_fct_sender_s"]  # over ccscope's own sender-side ideal
    assert (own >= 1.0 - 1e-9).all()
    # Swift's ACK is 40 bytes in htsim (SwiftAck::ACKSIZE)
    _, sw = F.sender_side(flows, c, "swift", peer)
    assert sw["slowdown"].iloc[0] == pytest.approx(2e-5 / (flows["ideal_fct_s"].iloc[0] + 6 * (1e-6 + 40 * 8 / 100e9)))
