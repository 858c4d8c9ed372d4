"""Sweep results: `ccscope.sweep.load(out).agg(...)` (mean, Student-t 95 % interval and n over the seeds of
each swept point), `ccscope sweep plot OUT --x PARAM --y METRIC ...` (one panel per metric, error bars),
clear errors for unknown names, and `sweep --fluid` taking --set and the model's defaults."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ccscope as cc
import ccscope.sweep as sw
from ccscope import _outdir
from ccscope.plot.sweep import plot_sweep

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios" / "dctcp_dumbbell.toml"


def run_cli(*args):
    from typer.testing import CliRunner

    from ccscope.cli import app
    r = CliRunner().invoke(app, [str(a) for a in args])
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r


def hand_table() -> sw.SweepTable:
    """Two K values x three seeds, with known numbers, and one failed run."""
    rows = []
    for k, utils in ((20, [0.90, 0.95, 0.97]), (65, [0.99, 0.98, 1.00])):
        for rep, u in enumerate(utils):
            rows.append({"point": len(rows), "aqm.k_pkts": k, "replicate": rep, "seed": 1 + rep, "status": "ok",
                         "bottleneck_utilization": u, "queue_mean_pkts": k / 2 + rep})
    return sw.SweepTable(pd.DataFrame(rows), ["aqm.k_pkts"])


def test_agg_gives_mean_t_interval_and_n_per_point():
    t = hand_table()
    a = t.agg("bottleneck_utilization", "q_mean")
    assert list(a["aqm.k_pkts"]) == [20, 65]
    for k, utils in ((20, [0.90, 0.95, 0.97]), (65, [0.99, 0.98, 1.00])):
        row = a[a["aqm.k_pkts"] == k].iloc[0]
        v = np.array(utils)
        half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
        assert row["bottleneck_utilization_mean"] == pytest.approx(v.mean())
        assert row["bottleneck_utilization_ci95"] == pytest.approx(half)
        assert row["bottleneck_utilization_n"] == 3
        q = np.array([k / 2, k / 2 + 1, k / 2 + 2])
        assert row["queue_mean_pkts_mean"] == pytest.approx(q.mean())
        assert row["queue_mean_pkts_ci95"] == pytest.approx(stats.t.ppf(0.975, 2) * 1.0 / math.sqrt(3))


def test_agg_with_one_run_per_point_has_no_interval_and_skips_missing_values():
    t = hand_table()
    t.table.loc[0, "bottleneck_utilization"] = np.nan
    a = t.agg("bottleneck_utilization", by="seed")
    assert list(a["seed"]) == [1, 2, 3]
    assert list(a["bottleneck_utilization_n"]) == [1, 2, 2]
    assert math.isnan(a["bottleneck_utilization_ci95"].iloc[0])
    assert a["bottleneck_utilization_mean"].iloc[0] == pytest.approx(0.99)


def test_unknown_names_list_what_exists():
    t = hand_table()
    with pytest.raises(ValueError) as ei:
        t.agg("qmean")
    msg = str(ei.value)
    assert "metric \"qmean\": not a column of this sweep" in msg
    assert "parameters: aqm.k_pkts" in msg and "bottleneck_utilization" in msg and "q_mean (queue_mean_pkts)" in msg


def test_plot_has_one_panel_per_metric_with_the_means_and_intervals():
    t = hand_table()
    fig = plot_sweep(t, "aqm.k_pkts", ["bottleneck_utilization", "q_mean"])
    assert len(fig.axes) == 2
    a = t.agg("bottleneck_utilization")
    line = fig.axes[0].get_lines()[0]
    assert np.allclose(line.get_xdata(), [20, 65])
    assert np.allclose(line.get_ydata(), a["bottleneck_utilization_mean"])
    # the error bars span mean +- ci95
    bars = fig.axes[0].containers[0]
    segs = bars.lines[2][0].get_segments()
    halves = [(s[1][1] - s[0][1]) / 2 for s in segs]
    assert np.allclose(halves, a["bottleneck_utilization_ci95"])
    assert "95 % t-interval over 3 seeds" in fig.axes[0].get_title(loc="left")
    assert fig.axes[1].get_ylabel() == "queue_mean (packets)"


def test_sweep_run_load_agg_and_cli_plot_into_a_missing_folder(tmp_path):
    out = tmp_path / "sweep-out"
    # the README's form keeps working
    r = run_cli("sweep", SCEN, "--grid", "aqm.k_pkts=20,65", "--grid", "flows.count=2,4", "--seeds", "2",
                "--until", "3ms", "--record", "queue", "--out", out, "--quiet", "--jobs", "2")
    assert r.exit_code == 0, r.stderr
    t = cc.sweep.load(out)
    assert t.params == ["aqm.k_pkts", "flows.count"] and len(t.table) == 8
    a = t.agg("bottleneck_utilization")
    assert len(a) == 4 and set(a["bottleneck_utilization_n"]) == {2}
    fig_path = tmp_path / "figs" / "new" / "sweep.png"
    r = run_cli("sweep", "plot", out, "--x", "aqm.k_pkts", "--y", "bottleneck_utilization", "--y", "q_mean",
                "-o", fig_path)
    assert r.exit_code == 0, r.stderr
    assert _outdir.is_our_figure(fig_path)
    fig = plot_sweep(t, "aqm.k_pkts", ["q_mean"])
    assert sorted(fig.axes[0].get_legend_handles_labels()[1]) == ["flows.count=2", "flows.count=4"]


@pytest.mark.parametrize("args, words", [
    (["--x", "aqm.k", "--y", "q_mean"], ["--x \"aqm.k\": not a column of this sweep", "parameters: aqm.k_pkts"]),
    (["--x", "aqm.k_pkts", "--y", "qmean"], ["--y \"qmean\"", "metrics: ", "bottleneck_utilization"]),
    (["--x", "q_mean", "--y", "q_mean"], ["--x 'q_mean': a metric, not a swept parameter"]),
])
def test_cli_unknown_x_or_y_is_one_line_listing_what_exists(tmp_path, args, words):
    out = tmp_path / "s"
    out.mkdir()
    hand_table().table.to_parquet(out / "summary.parquet")
    (out / "sweep.json").write_text(json.dumps({"grid": {"aqm.k_pkts": [20, 65]}}))
    r = run_cli("sweep", "plot", out, *args, "-o", tmp_path / "x.png")
    assert r.exit_code == 2
    line = r.stderr.strip()
    assert len(line.splitlines()) == 1 and line.startswith("error: ")
    for w in words:
        assert w in line, line
    assert not (tmp_path / "x.png").exists()


def test_cli_sweep_plot_of_a_directory_that_is_no_sweep(tmp_path):
    r = run_cli("sweep", "plot", tmp_path, "--x", "a", "--y", "b", "-o", tmp_path / "x.png")
    assert r.exit_code == 2 and "not a sweep output directory" in r.stderr


def test_fluid_grid_fills_defaults_and_takes_set():
    grid, opts = sw.fluid_grid("dctcp", {"k_pkts": [20, 65]}, ["g=0.125", "until_s=0.01"])
    assert grid == {"n": [10], "rate_bps": [10e9], "rtt_s": [100e-6], "k_pkts": [20, 65], "g": [0.125]}
    assert opts == {"until_s": 0.01}
    with pytest.raises(cc.ScenarioError, match="--grid \"k\": not a parameter of the fluid model 'dctcp'"):
        sw.fluid_grid("dctcp", {"k": [1]})
    with pytest.raises(cc.ScenarioError, match="also given by --grid"):
        sw.fluid_grid("dctcp", {"g": [0.1]}, ["g=0.2"])
    with pytest.raises(cc.ScenarioError, match="--set \"g=abc\": g must be a number"):
        sw.fluid_grid("dctcp", {}, ["g=abc"])


def test_cli_fluid_sweep_needs_only_the_swept_parameter(tmp_path):
    # before: every parameter had to be a one-value --grid, and --set was ignored
    out = tmp_path / "f"
    r = run_cli("sweep", "--fluid", "dctcp_normalized", "--grid", "wbar=10,20", "--set", "g=0.125", "--out", out,
                "--quiet")
    assert r.exit_code == 0, r.stderr
    t = sw.load(out)
    assert list(t.table["g"]) == [0.125, 0.125] and list(t.table["wbar"]) == [10, 20]
    assert t.fluid == "dctcp_normalized" and "q_max" in t.metrics
    r = run_cli("sweep", "plot", out, "--x", "wbar", "--y", "q_max", "-o", tmp_path / "f.png")
    assert r.exit_code == 0, r.stderr


def test_cc_sweep_load_works_after_a_plain_import_ccscope(tmp_path):
    import subprocess
    import sys
    out = tmp_path / "s"
    out.mkdir()
    hand_table().table.to_parquet(out / "summary.parquet")
    code = (f"import ccscope as cc; t = cc.sweep.load({str(out)!r}); "
            "print(t.agg('utilization')['bottleneck_utilization_n'].tolist())")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[3, 3]"


def test_plot_a_categorical_parameter_has_one_tick_per_value_and_no_connecting_line():
    rows = [{"flows.cc": cc_name, "seed": s, "bottleneck_utilization": u + 0.01 * s}
            for cc_name, u in (("dctcp", 0.9), ("new_reno", 0.8)) for s in range(3)]
    t = sw.SweepTable(pd.DataFrame(rows), ["flows.cc"])
    fig = plot_sweep(t, "flows.cc", ["utilization"])
    ax = fig.axes[0]
    assert [lab.get_text() for lab in ax.get_xticklabels()] == ["dctcp", "new_reno"]
    line = ax.get_lines()[0]
    assert line.get_linestyle() == "None"
    assert np.allclose(line.get_ydata(), [0.91, 0.81])
