"""bench/peers/ns3_dumbbell.py and ns3_compare.py (the ns-3 peer comparison): bad arguments give one
error line and run nothing; the metrics (congestion events, period, throughput, queueing delay)
read the driver's CSV format as docs/validation.md defines them; the ccscope side's scenarios
are valid and mirror the ns-3 dumbbell. Running ns-3 itself needs the `ns3` pip package and
minutes, so it is not done here (docs/validation.md records those runs)."""
from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path

import pytest

import ccscope

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / "bench" / "peers"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"peers_{name}", PEERS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PEERS / script), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def _one_error_line(p: subprocess.CompletedProcess, prog: str) -> str:
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith(f"bench/peers/{prog}: error: ")
    return lines[0]


@pytest.mark.parametrize("args, needle", [
    (["--tcp", "bbr"], "--tcp = 'bbr': must be one of cubic, new_reno"),
    (["--qdisc", "red"], "--qdisc = 'red': must be one of pfifo, codel, fq_codel, pie"),
    (["--flows", "0"], "--flows = 0: must be an integer >= 1"),
    (["--rtt-s", "-1"], "--rtt-s = -1.0: must be a finite number > 0"),
    (["--bottleneck-delay-s", "0.5"], "--bottleneck-delay-s = 0.5: must be between 0 and rtt/2"),
    (["--buffer-pkts", "0"], "--buffer-pkts = 0: must be an integer >= 1"),
    (["--packet-bytes", "40"], "--packet-bytes = 40: must be between 43 and 65535"),
    (["--start-s", "0"], "--start-s = '0': give 2 times in [0, until)"),
    (["--start-s", "a,b"], "--start-s = 'a,b': give comma-separated numbers"),
    (["--rtt-per-sender-s", "0.01"], "--rtt-per-sender-s = '0.01': give 2 finite round-trip times >= 2 x bottleneck"),
    (["--rtt-per-sender-s", "0.01,0.001"], "--rtt-per-sender-s = '0.01,0.001': give 2 finite round-trip times"),
    (["--rtt-per-sender-s", "a,b"], "--rtt-per-sender-s = 'a,b': give comma-separated numbers"),
    (["--sparse-interval-s", "-1"], "--sparse-interval-s = -1.0: must be a finite number >= 0 (0: no sparse flow)"),
    (["--sparse-interval-s", "0.1", "--sparse-start-s", "99"], "--sparse-start-s = 99.0: must be in [0, until)"),
    (["--sparse-interval-s", "0.1", "--packet-bytes", "41"], "a sparse flow needs at least 42"),
    (["--codel-min-bytes", "-2"], "--codel-min-bytes = -2: must be an integer in [0, 2^32) (-1: ns-3's default)"),
])
def test_driver_bad_arguments_give_one_line_and_write_nothing(tmp_path, args, needle):
    out = tmp_path / "out"
    line = _one_error_line(_run("ns3_dumbbell.py", "--out", str(out), *args), "ns3_dumbbell.py")
    assert needle in line, line
    assert not out.exists()


def test_driver_without_ns3_says_where_to_run_it(tmp_path):
    if importlib.util.find_spec("ns") is not None:
        pytest.skip("ns-3 is importable here")
    out = tmp_path / "out"
    line = _one_error_line(_run("ns3_dumbbell.py", "--out", str(out)), "ns3_dumbbell.py")
    assert "ns-3 is not importable here" in line and "pip install ns3==3.44.post0" in line
    assert not out.exists()


@pytest.mark.parametrize("args, needle", [
    (["cubic"], "--ns3-python"),
    (["tcp", "--ns3-python", sys.executable], "case 'tcp': must be one of cubic, codel"),
    (["cubic", "--ns3-python", "/nonexistent/python"], "--ns3-python = '/nonexistent/python': no such file"),
    (["fq_codel", "--ns3-python", sys.executable, "--ns3-codel-min-bytes", "-1"],
     "--ns3-codel-min-bytes = -1: must be an integer in [0, 2^32)"),
    (["fq_codel", "--ns3-python", sys.executable, "--srtt-step-s", "0"],
     "--srtt-step-s = 0.0: must be between 0.01 and 25 seconds"),
])
def test_compare_bad_arguments_give_one_line(args, needle):
    line = _one_error_line(_run("ns3_compare.py", *args), "ns3_compare.py")
    assert needle in line, line


def test_compare_reuse_without_an_earlier_run_names_the_missing_file(tmp_path):
    p = _run("ns3_compare.py", "cubic", "--ns3-python", "x", "--reuse", "--out", str(tmp_path))
    line = _one_error_line(p, "ns3_compare.py")
    assert "run.json is missing; run once without --reuse" in line


def test_congestion_events_are_entries_into_recovery_merged_within_a_millisecond():
    m = _load("ns3_compare")
    rows = [(1.0, False), (1.5, True), (1.52, True), (1.6, False), (1.6005, True), (1.7, False),
            (3.0, True), (3.1, False), (3.1001, False), (5.0, True)]
    # 1.6005 turns on again 100.5 ms after the edge at 1.5: a new event
    assert m.rising_edges(rows) == [1.5, 1.6005, 3.0, 5.0]
    assert m.rising_edges([(0.0, True), (0.0004, False), (0.0008, True)]) == [0.0]
    assert m.rising_edges([(0.0, False)]) == []


def test_step_means_and_samples():
    m = _load("ns3_compare")
    # 10 until t = 2, then 20: over [1, 3] the mean is 15
    assert m.time_weighted_mean([(0.0, 10.0), (2.0, 20.0)], 1.0, 3.0) == 15.0
    assert m.at([(0.0, 1.0), (1.0, 5.0), (2.0, 9.0)], 1.5) == 5.0
    assert m.at([(1.0, 5.0)], 0.5) == 0.0


def _write_ns3_run(d: Path) -> None:
    """A made-up ns-3 run in the driver's CSV format: 2 flows, 10 s window from 10 to 20 s."""
    d.mkdir()
    cw = ["time_s,flow,cwnd_pkts,ssthresh_pkts,cong_state"]
    for k, times in ((0, [11.0, 13.0, 15.0, 17.0]), (1, [12.0, 16.0])):
        for t in times:
            cw += [f"{t},{k},100,70,1", f"{t + 0.0002},{k},73,70,3", f"{t + 0.03},{k},70,70,0"]
    cw.sort(key=lambda r: float(r.split(",")[0]) if r[0].isdigit() else -1)
    (d / "cwnd.csv").write_text("\n".join(cw) + "\n")
    seg = 1458
    dl = ["time_s,flow,rx_bytes"]
    for t in (10.0, 20.0):
        dl += [f"{t},0,{int((t - 9) * 4000 * seg)}", f"{t},1,{int((t - 9) * 2000 * seg)}"]
    (d / "delivered.csv").write_text("\n".join(dl) + "\n")
    (d / "queue.csv").write_text("time_s,queue_pkts,queue_bytes\n10,10,15000\n15,20,30000\n20,30,45000\n")
    (d / "sojourn.csv").write_text("time_s,sojourn_s\n10.5,0.001\n11,0.003\n12,0.002\n")


def test_ns3_metrics_read_the_drivers_csv_as_validation_md_defines_them(tmp_path):
    m = _load("ns3_compare")
    _write_ns3_run(tmp_path / "run")
    c = dict(m.CASES["cubic"], window=(10.0, 20.0))
    got = m.ns3_metrics(tmp_path / "run", c)
    f0, f1 = got["flows"]
    assert f0["events_in_window"] == 4 and math.isclose(f0["period_s"], 2.0)
    assert f1["events_in_window"] == 2 and math.isclose(f1["period_s"], 4.0)
    assert math.isclose(got["period_s"], 3.0)
    # 4000 segments/s of 1458 bytes counted as 1500-byte wire packets: 48 Mb/s, and 24 Mb/s
    assert math.isclose(f0["throughput_bps"], 48e6) and math.isclose(f1["throughput_bps"], 24e6)
    assert math.isclose(got["throughput_bps"], 36e6)
    # queue 15 000 / 30 000 / 45 000 bytes at 100 Mb/s: median 2.4 ms; per-packet sojourn median 2 ms
    assert math.isclose(got["median_delay_s"], 2.4e-3)
    assert math.isclose(got["median_sojourn_s"], 2e-3)
    assert got["mean_queue_pkts"] == 20.0


@pytest.mark.parametrize("case", ["cubic", "codel"])
def test_ccscope_side_mirrors_the_ns3_dumbbell(case):
    m = _load("ns3_compare")
    c = m.CASES[case]
    aqm = {"kind": "codel"} if case == "codel" else None
    sc = m.ccscope_scenario(c, {"target_rtt": "min_rtt", "ssthresh_from": "cwnd"} if case == "cubic" else None, aqm)
    ex = ccscope.scenario.expand(sc)
    links = {(lk["from"], lk["to"]): lk for lk in ex["topology"]["links"]}
    assert links[("sw", "r0")]["rate_bps"] == 100e6 and links[("sw", "r0")]["delay_s"] == 0.001
    assert links[("s0", "sw")]["rate_bps"] == 1e9 and math.isclose(links[("s0", "sw")]["delay_s"], 0.009)
    assert links[("sw", "r0")]["buffer_pkts"] == c["buffer_pkts"]
    assert ex["ack_bytes"] == 42 and ex["packet_bytes"] == 1500 and ex["tcp"]["iw_pkts"] == 10
    assert [f["cc"] for f in ex["flow"]] == [c["tcp"]] * c["flows"]
    r = ccscope.simulate(sc, until_s=0.3)
    assert len(r.flows) == c["flows"]


def _write_fq_run(d: Path) -> None:
    """A made-up FqCoDel run: the files of _write_ns3_run plus packets.csv, srtt.csv and sparse.csv;
    2 TCP flows (RTT 10 and 40 ms) and a sparse flow (sender 2), window 10-20 s."""
    _write_ns3_run(d)
    (d / "packets.csv").write_text("time_s,flow,sojourn_s,fq_queue\n"
                                   "9,0,0.5,7\n10.1,0,0.001,7\n10.2,0,0.003,7\n11,0,0.002,7\n"
                                   "10.5,1,0.004,9\n21,1,0.5,9\n12,2,0.0001,3\n")
    # flow 0: srtt 12 ms until 15 s, then 20 ms; flow 1: 41 ms throughout
    (d / "srtt.csv").write_text("time_s,flow,srtt_s\n1,0,0.012\n1,1,0.041\n15,0,0.02\n")
    (d / "sparse.csv").write_text("time_s,seq,owd_s\n10.1,0,0.010132\n10.2,1,0.010332\n10.3,2,0.011132\n")


def test_fq_metrics_read_srtt_sojourn_queues_and_sparse_delays(tmp_path):
    m = _load("ns3_compare")
    _write_fq_run(tmp_path / "run")
    c = dict(m.CASES["fq_codel"], flows=2, rtts=[0.01, 0.04], window=(10.0, 20.0),
             srtt_times=[10.0, 12.0, 14.0, 16.0, 18.0])
    got = m.ns3_fq_metrics(tmp_path / "run", c)
    f0, f1 = got["flows"]
    # srtt - rtt at 10, 12, 14 s: 2 ms, at 16, 18 s: 10 ms -> median 2 ms; flow 1: 1 ms
    assert math.isclose(f0["srtt_delay_s"], 0.002) and math.isclose(f1["srtt_delay_s"], 0.001)
    # sojourn medians inside the window only (9 s and 21 s left out)
    assert math.isclose(f0["sojourn_median_s"], 0.002) and math.isclose(f1["sojourn_median_s"], 0.004)
    assert math.isclose(f0["share"], 2 / 3) and math.isclose(f1["share"], 1 / 3)
    assert got["fq_queues"] == {0: [7], 1: [9], 2: [3]} and got["collision"] is False
    # one-way delays over the empty dumbbell's 10.132 ms: 0, 0.2 and 1 ms
    assert [round(x * 1e3, 6) for x in got["sparse_excess_s"]] == [0.0, 0.2, 1.0]
    assert got["sparse_sojourn_s"] == [0.0001]
    pk = tmp_path / "run" / "packets.csv"
    pk.write_text(pk.read_text() + "12.5,2,0.0001,9\n")
    assert m.ns3_fq_metrics(tmp_path / "run", c)["collision"] is True


def test_sparse_flow_times_and_the_empty_network_delay_agree_with_ccscope():
    m = _load("ns3_compare")
    c = dict(m.CASES["fq_codel_sparse"], until_s=6.0)
    times = m.sparse_times(c)
    assert len(times) == 10 and times[0] == 5.0 and times[-1] == 5.9
    # 9 ms + 1500 B at 1 Gb/s + 1 ms + 1500 B at 100 Mb/s
    assert math.isclose(m.empty_owd_s(c), 0.010132)
    sc = m.ccscope_scenario(c, None, {"kind": "fq_codel"}, bulk=False)
    assert [f["size_bytes"] for f in sc["flow"]] == [1500] * 10 and {f["src"] for f in sc["flow"]} == {"s4"}
    r = ccscope.simulate(sc)
    # a one-packet flow on the empty dumbbell takes exactly the ns-3 side's empty one-way delay
    assert all(math.isclose(x, m.empty_owd_s(c), rel_tol=1e-9) for x in r.flows["fct_s"].tolist())


def test_fq_codel_scenario_mirrors_per_sender_rtts():
    m = _load("ns3_compare")
    c = m.CASES["fq_codel"]
    sc = m.ccscope_scenario(c, None, {"kind": "fq_codel"})
    ex = ccscope.scenario.expand(sc)
    links = {(lk["from"], lk["to"]): lk for lk in ex["topology"]["links"]}
    # ns-3: access delay rtt/2 - 1 ms per sender
    for k, rtt in enumerate(c["rtts"]):
        assert math.isclose(links[(f"s{k}", "sw")]["delay_s"], rtt / 2 - 0.001)
    assert ex["aqm"]["kind"] == "fq_codel" and links[("sw", "r0")]["buffer_pkts"] == 1000
    sp = m.ccscope_scenario(m.CASES["fq_codel_sparse"], None, {"kind": "fq_codel"})
    assert len(sp["flow"]) == 4 + 250 and sp["topology"]["senders"] == 5


def _fq(shares, srtt, jain=1.0, agg=100e6):
    return dict(flows=[dict(share=s, srtt_delay_s=d, throughput_bps=s * agg, events_in_window=1,
                            sojourn_median_s=math.nan) for s, d in zip(shares, srtt)],
                jain=jain, aggregate_bps=agg, median_delay_s=0.004, mean_queue_pkts=30.0)


def test_fq_table_verdicts_follow_the_fixed_tolerances():
    m = _load("ns3_compare")
    c = m.CASES["fq_codel"]
    peer = _fq([0.25, 0.25, 0.25, 0.25], [0.006, 0.004, 0.0008, 0.0005])
    # shares 14 % off, srtt 0.95 ms off where 25 % is less (24 % of 6 ms), Jain 0.025 off: all inside
    ok = _fq([0.285, 0.25, 0.25, 0.215], [0.00744, 0.00495, 0.00175, 0.00145], jain=0.975)
    assert m.fq_table(ok, peer, c)[1] is True
    for bad in (_fq([0.29, 0.25, 0.25, 0.21], [0.006, 0.004, 0.0008, 0.0005]),  # share 16 % off
                _fq([0.25] * 4, [0.006, 0.0051, 0.0008, 0.0005]),  # 1.1 ms off, > 25 % of 4 ms
                _fq([0.25] * 4, [0.006, 0.004, 0.0008, 0.0005], jain=0.96),
                _fq([0.25] * 4, [0.006, 0.004, 0.0008, 0.0005], agg=85e6)):
        lines, good = m.fq_table(bad, peer, c)
        assert good is False and any(line.endswith("MISS") for line in lines)


def test_sparse_table_verdicts_follow_the_fixed_bounds():
    m = _load("ns3_compare")
    c = m.CASES["fq_codel_sparse"]

    def side(xs):
        return dict(sparse_excess_s=xs, throughput_bps=[25e6] * 4, median_delay_s=0.003,
                    flows=[dict(throughput_bps=25e6)] * 4, sparse_sojourn_s=[])
    assert m.sparse_table(side([0.0001] * 20), side([0.0003] * 20), c)[1] is True
    # medians 0.3 ms apart
    assert m.sparse_table(side([0.0001] * 20), side([0.0004] * 20), c)[1] is False
    # a 95th percentile of 0.7 ms on one side (2 of 20 packets)
    assert m.sparse_table(side([0.0001] * 18 + [0.0007] * 2), side([0.0001] * 20), c)[1] is False
