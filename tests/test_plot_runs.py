"""`ccscope plot RUN...`: several runs in one figure, one colour per run, legends and titles from the
resolved scenarios, time windows, y-ranges that a start-up spike does not set, and bad input as one
line naming the option. The figures are inspected through the matplotlib Figure `plot_runs` returns."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import ccscope as cc
from ccscope import _outdir
from ccscope.plot.runs import PlotInputError, Run, _Series, _set_ylim, load_runs, plot_runs

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios" / "dctcp_dumbbell.toml"
POISSON = ROOT / "scenarios" / "poisson_short_flows.toml"
UNTIL_S = 6e-3


def run_cli(*args):
    from typer.testing import CliRunner

    from ccscope.cli import app
    r = CliRunner().invoke(app, [str(a) for a in args])
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two saved runs of the DCTCP dumbbell as `--set` changes it: K = 20 and K = 65, 3 flows each,
    and one that kept the queue trace only."""
    base = tmp_path_factory.mktemp("runs")
    out = {}
    for name, sets in (("k20", {"aqm.k_pkts": 20, "flows.count": 3}), ("k65", {"aqm.k_pkts": 65, "flows.count": 3})):
        cc.simulate(_scenario_with(sets), until_s=UNTIL_S).save(base / name)
        out[name] = base / name
    cc.simulate(_scenario_with({"record.traces": '["queue"]'}), until_s=UNTIL_S).save(base / "qonly")
    out["qonly"] = base / "qonly"
    return out


def _scenario_with(sets: dict, path: Path = SCEN):
    from ccscope.scenario.io import apply_set, load_file
    data = load_file(path)
    for k, v in sets.items():
        apply_set(data, f"{k}={v}")
    return data


def _labels(ax):
    return [ln.get_label() for ln in ax.get_lines() if not ln.get_label().startswith("_")]


def test_two_runs_in_one_figure_one_colour_each_legend_from_the_differing_field(runs):
    fig = plot_runs(load_runs([runs["k20"], runs["k65"]]), ["queue"])
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    assert "aqm.k_pkts=20" in lines and "aqm.k_pkts=65" in lines
    assert lines["aqm.k_pkts=20"].get_color() != lines["aqm.k_pkts=65"].get_color()
    # each line holds that run's queue trace
    q20 = cc.load(runs["k20"]).traces["queue"]
    assert np.allclose(lines["aqm.k_pkts=20"].get_ydata(), q20["queue_pkts"].to_numpy(dtype=float))
    # the title: what the runs share, from the resolved scenario (3 flows after --set), never the template name
    title = fig._suptitle.get_text()
    assert "dctcp_dumbbell" not in title and "3 flows" in title and "10 Gb/s" in title and "RTT 100 us" in title
    assert "K =" not in title  # K differs: it is in the legend, not the title
    # one dashed K line per run, in its colour
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert sorted(ln.get_ydata()[0] for ln in dashed) == [20, 65]


def test_labels_replace_the_derived_legend_and_per_flow_panels_draw_the_mean(runs):
    fig = plot_runs(load_runs([runs["k20"], runs["k65"]], ["K=20", "K=65"]), ["queue", "cwnd"])
    assert _labels(fig.axes[0])[:2] == ["K=20", "K=65"]
    assert _labels(fig.axes[1]) == ["K=20 (mean of 3 flows)", "K=65 (mean of 3 flows)"]
    # the cwnd panel also holds every flow (faint) of both runs
    assert len([ln for ln in fig.axes[1].get_lines() if len(ln.get_xdata()) > 1]) == 2 * 3 + 2


def test_single_run_keeps_one_colour_per_flow_and_the_title_shows_the_set_values(runs):
    fig = plot_runs(load_runs([runs["k20"]]), ["queue", "cwnd"])
    assert _labels(fig.axes[0]) == ["sw->r0", "K = 20 pkts"]
    assert _labels(fig.axes[1]) == ["flow 0", "flow 1", "flow 2"]
    title = fig._suptitle.get_text()
    assert "K = 20 pkts" in title and "3 flows" in title and "dctcp_dumbbell" not in title


def test_time_window_limits_the_axis_and_the_data(runs):
    fig = plot_runs(load_runs([runs["k20"], runs["k65"]]), ["queue", "throughput"], t_from=2e-3, t_to=4e-3)
    for ax in fig.axes:
        assert ax.get_xlim() == pytest.approx((2.0, 4.0))  # ms
        assert ax.get_xlabel() in ("time (ms)", "")
    for ln in fig.axes[0].get_lines():
        x = np.asarray(ln.get_xdata(), dtype=float)
        if len(x) > 2:
            assert x.min() >= 2.0 and x.max() <= 4.0
    assert "time window 2 ms to 4 ms" in fig._suptitle.get_text()
    goodput = [ln for ln in fig.axes[1].get_lines() if "mean of 3 flows" in ln.get_label()]
    assert len(goodput) == 2 and all(np.nanmean(ln.get_ydata()) > 0.5 for ln in goodput)  # Gb/s, 10 Gb/s / 3


def test_a_start_up_spike_does_not_set_the_y_range_and_the_clipping_is_shown():
    import matplotlib.pyplot as plt
    t = np.linspace(0, 100, 10_001)
    y = 20 + 10 * np.sin(t)
    y[t < 2] = 500.0  # the start-up spike, inside the warm-up
    fig, ax = plt.subplots()
    _set_ylim(ax, [_Series(t, y, "run", warm=20.0)], unit=" pkts", xunit="ms")
    lo, hi = ax.get_ylim()
    assert lo == 0 and 30 <= hi < 60
    assert "clipped above" in ax.get_title(loc="left") and "max 500 pkts" in ax.get_title(loc="left")
    # nothing to clip: the whole range is shown, no note
    fig2, ax2 = plt.subplots()
    _set_ylim(ax2, [_Series(t, 20 + 10 * np.sin(t), "run", warm=20.0)], unit=" pkts")
    assert ax2.get_ylim()[1] >= 30 and ax2.get_title(loc="left") == ""
    plt.close(fig)
    plt.close(fig2)


def test_fct_cdf_compares_runs_with_completed_flows(tmp_path):
    dirs = []
    for name, sets in (("a", {}), ("b", {"aqm.min_th_pkts": 10, "aqm.max_th_pkts": 30})):
        cc.simulate(_scenario_with(sets, POISSON), until_s=0.03).save(tmp_path / name)
        dirs.append(tmp_path / name)
    fig = plot_runs(load_runs(dirs), ["fct-cdf"])
    ax = fig.axes[0]
    labels = _labels(ax)
    assert len(labels) == 2 and all("flows)" in lab for lab in labels) and "aqm.max_th_pkts=90" in labels[0]
    for ln in ax.get_lines():
        y = np.asarray(ln.get_ydata())
        assert y[-1] == pytest.approx(1.0) and np.all(np.diff(y) > 0)
    assert ax.get_xscale() == "log"


# --------------------------------------------------------------------------- the command line


def test_cli_two_runs_writes_one_figure_into_a_missing_folder(runs, tmp_path):
    out = tmp_path / "new" / "sub" / "q.png"
    r = run_cli("plot", runs["k20"], runs["k65"], "--kind", "queue,cwnd", "--from", "1ms", "--to", "5ms",
                "--label", "K=20", "--label", "K=65", "-o", out)
    assert r.exit_code == 0, r.stderr
    assert out.is_file() and _outdir.is_our_figure(out)


def test_cli_single_run_as_today(runs, tmp_path):
    out = tmp_path / "fig.png"
    r = run_cli("plot", runs["k20"], "--queue", "--cwnd", "-o", out)
    assert r.exit_code == 0, r.stderr
    assert _outdir.is_our_figure(out)
    # a run without a cwnd trace: the default panels are the ones it has
    r = run_cli("plot", runs["qonly"], "-o", tmp_path / "q.png")
    assert r.exit_code == 0, r.stderr


@pytest.mark.parametrize("args, words", [
    (["--from", "0.2s", "--to", "0.1s"], ["--from '0.2s' must be before --to '0.1s'"]),
    (["--from", "2ms", "--to", "2ms"], ["--from '2ms' must be before --to '2ms'"]),
    (["--from", "-1ms"], ["--from '-1ms'", "must be a time >= 0"]),
    (["--to", "-5ms"], ["--to '-5ms'", "must be a time >= 0"]),
    (["--from", "soon"], ["--from 'soon'", "e.g. --from 0.1s"]),
    (["--from", "1s"], ["--from 1 s", "at or after the end of every run"]),
    (["--label", "only-one"], ["--label: 1 label for 2 runs", "fewer labels than runs"]),
    (["--kind", "heatmap"], ["--kind 'heatmap': unknown kind", "allowed: queue, cwnd, alpha, rate, throughput, fct-cdf"]),
    (["--kind", "rate"], ["--kind rate", "recorded no 'rate' samples", "qcn"]),
    (["--kind", "fct-cdf"], ["--kind fct-cdf", "no completed flows"]),
    (["--port", "nowhere"], ["--port 'nowhere'", "it recorded: sw->r0"]),
])
def test_cli_bad_input_is_one_line_naming_the_option(runs, tmp_path, args, words):
    out = tmp_path / "x.png"
    r = run_cli("plot", runs["k20"], runs["k65"], *args, "-o", out)
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert not out.exists() and os.listdir(tmp_path) == []


def test_cli_a_kind_the_run_did_not_record_says_which_trace_to_enable(runs, tmp_path):
    r = run_cli("plot", runs["k20"], runs["qonly"], "--kind", "cwnd", "-o", tmp_path / "x.png")
    assert r.exit_code == 2
    line = r.stderr.strip()
    assert f"run {str(runs['qonly'])!r} did not record the 'cwnd' trace" in line
    assert "--record queue,cwnd" in line and "[record] traces" in line


def test_library_errors_are_plot_input_errors(runs):
    with pytest.raises(PlotInputError, match="--kind 'nope'"):
        plot_runs(load_runs([runs["k20"]]), ["nope"])
    with pytest.raises(PlotInputError, match="more labels than runs"):
        load_runs([runs["k20"]], ["a", "b"])
    with pytest.raises(PlotInputError, match="at least one"):
        plot_runs([], ["queue"])
    r = load_runs([runs["k20"]])[0]
    assert isinstance(r, Run) and r.label == ""


def test_runs_of_the_same_scenario_are_labelled_by_directory(runs, tmp_path):
    import shutil
    copy = tmp_path / "again"
    shutil.copytree(runs["k20"], copy)
    fig = plot_runs(load_runs([runs["k20"], copy]), ["queue"])
    assert _labels(fig.axes[0])[:2] == [str(runs["k20"]), str(copy)]


def test_cli_the_issue_reproduction_two_runs_without_options(runs, tmp_path):
    # before: "Got unexpected extra argument(s)"
    r = run_cli("plot", runs["k20"], runs["k65"], "-o", tmp_path / "fig.png")
    assert r.exit_code == 0, r.stderr
    assert _outdir.is_our_figure(tmp_path / "fig.png")


def test_title_of_a_workload_only_run_names_its_cc_and_no_zero_flows():
    """A run whose flows all come from a workload: the title says "incast workload" (not
    "0 flows + incast workload") and names the workload's cc."""
    from ccscope.plot.runs import describe

    class R:
        scenario = {"flow": [], "workload": [{"kind": "incast", "cc": ["dctcp"]}]}
        summary = {}
    text = describe(R())
    assert "0 flows" not in text
    assert text.startswith("dctcp, incast workload"), text


def test_title_of_a_lossless_run_says_pfc_not_drop_tail():
    """A fabric run with PFC on class 0 and no AQM: the title names the lossless class instead of
    "drop-tail" (nothing is dropped there)."""
    from ccscope.plot.runs import describe

    class R:
        scenario = {"flow": [], "workload": [{"kind": "poisson", "cc": ["hpcc"]}], "pfc": {"classes": [0]},
                    "aqm": {"kind": "drop_tail"}}
        summary = {}
    text = describe(R())
    assert "drop-tail" not in text, text
    assert "lossless (PFC) class 0" in text, text
