"""`ccscope compare MODEL`: the fluid model and the packet run at the same parameters in one figure.

Tolerances of the DCTCP N = 2 agreement come from the reproduction that pairs the same two models at
the same defaults (repro/dctcp_analysis/fig2_n2.py and docs/models/dctcp.md): mean queue +-5 pkts,
sum of windows +-10 %, amplitude +-30 % for packet granularity (here +-35 %: the run is 60 ms, not
100 ms, so fewer cycles are averaged), and the packet period is known to be shorter than the fluid
one (the eq 4 cut at once against eq 5's continuous cut, fig2's CAUSE), so only its range is checked.
"""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ccscope.cli import app
from ccscope.compare import MODELS, compare, parse_sets, queue_cycle
from ccscope.errors import ScenarioError


def _cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def dctcp_n2():
    return compare("dctcp")


def test_dctcp_n2_defaults_fluid_and_packet_agree_loosely(dctcp_n2):
    num = dctcp_n2.numbers.set_index("quantity")
    fl, pk = num["fluid"], num["packet"]
    assert abs(pk["queue mean (pkts)"] - fl["queue mean (pkts)"]) <= 5.0
    assert pk["window (pkts), mean per flow"] == pytest.approx(fl["window (pkts), mean per flow"], rel=0.10)
    assert pk["queue amplitude p98-p2 (pkts)"] == pytest.approx(fl["queue amplitude p98-p2 (pkts)"], rel=0.35)
    assert pk["alpha, mean per flow"] == pytest.approx(fl["alpha, mean per flow"], rel=0.25)
    # the fluid limit cycle of [DER]: q in [51.5, 67.2], period 2.14 ms (fig2-n2's claim)
    assert fl["queue p2 (pkts)"] == pytest.approx(51.5, abs=1.0)
    assert fl["queue period (ms)"] == pytest.approx(2.14, rel=0.05)
    assert 0.4 <= pk["queue period (ms)"] / fl["queue period (ms)"] <= 1.2
    assert pk["bottleneck utilization"] >= 0.98 and fl["bottleneck utilization"] == 1.0


def test_figure_holds_both_series_and_the_numbers(dctcp_n2):
    fig = dctcp_n2.plot()
    queue_ax = fig.axes[0]
    labels = [ln.get_label() for ln in queue_ax.get_lines()] + [c.get_label() for c in queue_ax.collections]
    assert "fluid model" in labels and "packet simulation" in labels
    fluid_line = next(ln for ln in queue_ax.get_lines() if ln.get_label() == "fluid model")
    assert len(fluid_line.get_xdata()) > 100
    # one panel per per-flow quantity, each with the fluid series and packet flows
    for ax, (label, *_rest) in zip(fig.axes[1:3], MODELS["dctcp"].flow):
        assert ax.get_ylabel() == label
        got = [ln.get_label() for ln in ax.get_lines()]
        assert "fluid" in got and "packet flow 0" in got
    table_text = [c.get_text().get_text() for c in fig.axes[-1].tables[0].get_celld().values()]
    assert "queue period (ms)" in table_text and "packet/fluid" in table_text


def test_set_applies_to_both_sides():
    p, until = parse_sets("dctcp", ["k_pkts=40", "n=4", "until_s=20ms"])
    assert p["k_pkts"] == 40 and p["n"] == 4 and until == pytest.approx(0.02)
    sc = MODELS["dctcp"].scenario(p).to_dict()
    assert sc["aqm"]["k_pkts"] == 40 and sc["flows"]["count"] == 4 and sc["topology"]["senders"] == 4


@pytest.mark.parametrize("model, sets, msg", [
    ("dctcp", ["K=40"], "'K' is not a parameter of dctcp; allowed: n, rate_bps, rtt_s, k_pkts, g, until_s"),
    ("dctcp", ["k_pkts=abc"], "'abc' is not a number"),
    ("dctcp", ["k_pkts"], "expected NAME=VALUE"),
    ("dctcp", ["n=2.5"], "whole number of flows"),
    ("dctcp", ["g=-1"], "must be a finite number > 0"),
    ("cubic", [], "MODEL \"cubic\": unknown model; allowed: dctcp, dx, qcn, tcp_red, asm"),
    ("dctcp_normalized", [], "(dctcp_normalized: normalized units"),
])
def test_bad_model_or_set_is_one_clear_error(model, sets, msg):
    with pytest.raises(ScenarioError, match=None) as e:
        parse_sets(model, sets)
    assert msg in str(e.value)


def test_cli_bad_set_key_exits_2_without_a_figure(tmp_path):
    out = tmp_path / "x.png"
    r = _cli("compare", "dctcp", "--set", "K=40", "-o", out)
    assert r.exit_code == 2
    assert "error: --set \"K=40\": 'K' is not a parameter of dctcp" in r.output
    assert "Traceback" not in r.output and not out.exists()


def test_cli_writes_the_figure_into_a_missing_folder(tmp_path):
    out = tmp_path / "new" / "dir" / "dx.png"
    r = _cli("compare", "dx", "--set", "n_flows=4", "--set", "until_s=20ms", "-o", out)
    assert r.exit_code == 0, r.output
    assert out.stat().st_size > 10_000
    assert "queue amplitude p98-p2 (pkts)" in r.output and "window (pkts), mean per flow" in r.output


def test_queue_cycle_period_of_a_known_square_wave():
    import numpy as np
    t = np.arange(0, 0.1, 1e-5)
    q = 50 + 10 * (np.sin(2 * np.pi * t / 2e-3) > 0)
    c = queue_cycle(t, q, 0.0)
    assert c["period_s"] == pytest.approx(2e-3, rel=0.02)
    assert c["amplitude_pkts"] == pytest.approx(10)
    flat = queue_cycle(t, np.full_like(t, 3.0), 0.0)
    assert flat["amplitude_pkts"] == 0 and flat["period_s"] != flat["period_s"]


@pytest.mark.parametrize("model, until", [("dx", "20ms"), ("qcn", "20ms"), ("tcp_red", "1s"), ("asm", "20ms")])
def test_every_model_with_a_packet_counterpart_draws_both_series(model, until):
    c = compare(model, [f"until_s={until}"])
    num = c.numbers.set_index("quantity")
    assert num.loc["queue mean (pkts)"].notna().all()
    flow_label = MODELS[model].flow[0][0]
    assert num.loc[f"{flow_label}, mean per flow"].notna().all()
    fig = c.plot()
    assert "fluid model" in [ln.get_label() for ln in fig.axes[0].get_lines()]
    assert "fluid" in [ln.get_label() for ln in fig.axes[1].get_lines()]
    assert any(ln.get_label() == "packet flow 0" for ln in fig.axes[1].get_lines())
    # the scenario field of every parameter is named (docs/workbench.md lists the same mapping)
    assert set(MODELS[model].mapping) == set(MODELS[model].defaults)
