"""Workload ergonomics: host ranges, --set on list items, the incast builder, summaries that fit the
workload and the metrics reachable from ccscope.analysis."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import ccscope as cc
import ccscope.analysis
from ccscope.cli import app
from ccscope.errors import ScenarioError
from ccscope.scenario.io import apply_set
from ccscope.scenario.model import Incast, Poisson, expand_hosts

INCAST_TOML = """
name = "incast_range"
seed = 1
until_s = 0.2
[topology]
kind = "dumbbell"
senders = 16
bottleneck_bps = 1e9
access_bps = 1e9
rtt_s = 250e-6
buffer_pkts = 250
[aqm]
kind = "threshold"
k_pkts = 20
[tcp]
min_rto_s = 0.01
[[workload]]
kind = "incast"
client = "r0"
servers = "s0..s15"
total_bytes = 1000000
rounds = 3
cc = ["dctcp", "new_reno"]
"""


def _cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_host_range_expands_in_the_engine_both_ends_included(tmp_path):
    f = tmp_path / "inc.toml"
    f.write_text(INCAST_TOML)
    res = cc.simulate(f)
    assert res.scenario["workload"][0]["servers"] == [f"s{i}" for i in range(16)]
    assert res.summary["rounds_completed"] == 3


@pytest.mark.parametrize("value, msg", [
    ('"s39..s0"', 'host range "s39..s0": the start 39 is after the end 0'),
    ('"s0.."', 'host range "s0..": both ends need a number'),
    ('"s0..r3"', "prefixes"),
])
def test_bad_host_range_is_one_error_naming_the_field(tmp_path, value, msg):
    f = tmp_path / "inc.toml"
    f.write_text(INCAST_TOML.replace('"s0..s15"', value))
    r = _cli("run", f, "-q")
    assert r.exit_code == 2
    assert "workload[0].servers" in r.output and msg in r.output and "Traceback" not in r.output


def test_python_mirror_expands_ranges_and_refuses_the_same_ones():
    assert expand_hosts(["s0..s2", "x"], "servers") == ["s0", "s1", "s2", "x"]
    assert Incast(client="r0", servers="s0..s3", block_bytes=1).servers == ["s0", "s1", "s2", "s3"]
    p = Poisson(src="h0..h1", dst=["r0..r1"], load=0.2, reference_bps=1e9, size=cc.scenario.FixedSize(bytes=1000))
    assert p.src == ["h0", "h1"] and p.dst == ["r0", "r1"]
    for bad, msg in (("s39..s0", "start 39 is after the end 0"), ("s0..", "both ends need a number"),
                     ("s0..s999999", "expected at most")):
        with pytest.raises(ScenarioError, match="workload.servers") as e:
            Incast(client="r0", servers=bad, block_bytes=1)
        assert msg in str(e.value)


def test_set_on_list_items_and_on_the_only_workload():
    data = {"workload": [{"kind": "incast", "rounds": 10}]}
    apply_set(data, "workload[0].rounds=50")
    assert data["workload"][0]["rounds"] == 50
    apply_set(data, "workload.rounds=7")  # exactly one workload: that one
    assert data["workload"][0]["rounds"] == 7
    data2 = {"workload": [{"rounds": 1}, {"rounds": 2}]}
    with pytest.raises(ScenarioError, match=r"workload is a list of 2 tables; name one by index, workload\[0\] .. "
                                            r"workload\[1\], e.g. --set workload\[0\].rounds=5"):
        apply_set(data2, "workload.rounds=5")
    with pytest.raises(ScenarioError, match=r"workload\[2\]: index out of range; workload has 2 item"):
        apply_set(data2, "workload[2].rounds=5")
    with pytest.raises(ScenarioError, match=r"aqm = .* is not a list"):
        apply_set({"aqm": {"k_pkts": 1}}, "aqm[0].k_pkts=5")
    with pytest.raises(ScenarioError, match="not a field name or name"):
        apply_set(data2, "workload[x].rounds=5")
    with pytest.raises(ScenarioError, match=r"the scenario has no workload, so workload\[0\] names nothing"):
        apply_set({"aqm": {}}, "workload[0].rounds=5")
    lst = {"flow": [{"src": "a"}]}
    apply_set(lst, "flow[0].src=b")
    assert lst == {"flow": [{"src": "b"}]}


def test_cli_set_workload_rounds_as_the_issue_wrote_it(tmp_path):
    f = tmp_path / "inc.toml"
    f.write_text(INCAST_TOML)
    out = tmp_path / "o"
    r = _cli("run", f, "--set", "workload.rounds=5", "--out", out)
    assert r.exit_code == 0, r.output
    assert json.loads((out / "scenario.json").read_text())["workload"][0]["rounds"] == 5
    assert "(5 rounds)" in r.output
    r = _cli("run", f, "--set", "workload[0].rounds=2", "-q")
    assert r.exit_code == 0, r.output


def test_incast_builder_names_hosts_and_summary_reports_completion_times():
    sc = cc.scenario.incast(40, total_bytes=1_000_000, rounds=3, bottleneck_bps=1e9, rtt_s=250e-6, buffer_pkts=250,
                            min_rto_s=0.01, aqm=cc.aqm.threshold(k_pkts=20), until_s=0.2)
    w = sc.workload[0]
    assert w.servers == [f"s{i}" for i in range(40)] and w.client == "r0" and sc.flows is None
    res = cc.simulate(sc)
    s = res.summary
    # before: the fixed 20 % warm-up (40 ms) came after the last round (about 30 ms): 0 % utilization,
    # every flow's throughput NaN. Now the window starts at the workload's start.
    assert s["warmup_s"] == 0.0 and s["bottleneck_utilization"] > 0.05
    assert s["flows_sized"] == 120 and s["flows_completed"] == 120
    assert s["rounds_completed"] == 3 and 0 < s["qct_mean_s"] <= s["qct_p99_s"] < 0.2
    assert 0 < s["fct_p50_s"] <= s["fct_p99_s"] <= s["qct_p99_s"] + 1e-12


def test_cli_summary_of_short_flows_has_no_nan_throughput(tmp_path):
    f = tmp_path / "inc.toml"
    f.write_text(INCAST_TOML)
    r = _cli("run", f)
    assert r.exit_code == 0, r.output
    assert "nan" not in r.output.lower()
    assert "FCT mean / p50 / p99" in r.output and "query completion mean / p99" in r.output
    assert "flows completed" in r.output and "48 of 48" in r.output


def test_poisson_run_summary_has_fct_and_a_workload_warmup(tmp_path):
    sc = cc.scenario.dumbbell(4, bottleneck_bps=1e9, rtt_s=100e-6, buffer_pkts=100)
    sc.flows = None
    sc.until_s = 0.05
    sc.workload = [Poisson(src="s0..s3", dst=["r0"], load=0.3, reference_bps=1e9, start_s=0.005,
                           size=cc.scenario.UniformSize(min_bytes=10_000, max_bytes=50_000))]
    s = cc.simulate(sc).summary
    assert s["warmup_s"] == pytest.approx(0.005)
    assert s["flows_completed"] > 10 and s["fct_mean_s"] > 0
    assert "qct_mean_s" not in s


def test_long_lived_flows_keep_the_20_percent_warmup():
    sc = cc.scenario.dumbbell(2, cc="dctcp", bottleneck_bps=10e9, rtt_s=100e-6, aqm=cc.aqm.threshold(k_pkts=65),
                              buffer_pkts=1000)
    s = cc.simulate(sc, until_s=0.01).summary
    assert s["warmup_s"] == pytest.approx(0.002)
    assert "flows_sized" not in s and "fct_mean_s" not in s


def test_tour_metrics_are_reachable_from_ccscope_analysis_with_docstrings():
    for name in ("utilization", "loss_of_utilization", "jain_index", "throughput_ratio", "fct_stats", "afct",
                 "drop_bursts", "periodicity_index", "qr_trajectory", "limit_cycle_from_trace"):
        obj = getattr(ccscope.analysis, name)
        assert name in ccscope.analysis.__all__
        assert obj.__doc__ and len(obj.__doc__) > 40, name
    assert "fct_stats" in ccscope.analysis.__doc__
    # `import ccscope as cc` is enough (a fresh interpreter: no earlier import of ccscope.analysis)
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", "import ccscope as cc; print(cc.analysis.fct_stats.__name__)"],
                       capture_output=True, text=True)
    assert p.stdout.strip() == "fct_stats", p.stderr
