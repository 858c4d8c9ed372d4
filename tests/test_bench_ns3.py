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
