"""Short reprs and Jupyter HTML views of SimResult, FluidResult and SweepTable."""
from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

import ccscope as cc
from ccscope.fluid import dctcp

ROOT = Path(__file__).resolve().parents[1]
SCN = ROOT / "scenarios" / "dctcp_dumbbell.toml"


@pytest.fixture(scope="module")
def res():
    return cc.simulate(SCN, until_s=0.003)


def _png_ok(html: str) -> None:
    uris = re.findall(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", html)
    assert uris, "no inline PNG"
    data = base64.b64decode(uris[0])
    assert data[:4] == b"\x89PNG" and len(data) > 2000


def test_sim_repr_is_short_and_lazy(res):
    assert res._traces is None  # nothing made into DataFrames yet
    text = repr(res)
    assert res._traces is None, "repr made the traces into DataFrames"
    lines = text.splitlines()
    assert 3 <= len(lines) <= 6
    assert lines[0] == "<SimResult 'dctcp_dumbbell': 3 ms simulated, 2 flows>"
    q = len(res.traces["queue"])
    assert f"queue ({q} rows)" in text and "cwnd (" in text
    assert "utilization" in text and "queue mean" in text and "sw->r0" in text
    assert "time_s" not in text  # no table dumped


def test_sim_repr_html(res, tmp_path):
    html = res._repr_html_()
    assert "<table>" in html and "dctcp_dumbbell" in html and "utilization" in html
    _png_ok(html)
    # the same view for a result read back from disk, and one that recorded no queue (cwnd plotted)
    res.save(tmp_path / "r")
    back = cc.load(tmp_path / "r")
    assert repr(back).splitlines()[0] == repr(res).splitlines()[0]
    _png_ok(back._repr_html_())
    only_cwnd = cc.simulate(SCN, until_s=0.002, record=["cwnd"])
    assert "queue (" not in repr(only_cwnd)
    _png_ok(only_cwnd._repr_html_())
    nothing = cc.simulate(SCN, until_s=0.001, record=[])
    assert "traces: none recorded" in repr(nothing)
    assert "<img" not in nothing._repr_html_()


def test_fluid_repr():
    fr = dctcp(n=10, rate_bps=10e9, rtt_s=100e-6, k_pkts=65, g=1 / 16).solve(0.01)
    text = repr(fr)
    lines = text.splitlines()
    assert lines[0].startswith("<FluidResult (ok): 10 ms, ") and len(lines) <= 6
    assert "limit cycle: q " in text and "period" in text and "k_pkts=65" in text
    html = fr._repr_html_()
    assert "<table>" in html and "limit cycle" in html
    _png_ok(html)


def test_sweep_repr_html(tmp_path):
    cc.sweep.sweep(SCN, {"aqm.k_pkts": [10, 40], "flows.count": [2, 3]}, out=tmp_path / "sw", until_s=0.002,
                   record=["queue"], seeds=2, jobs=1)
    t = cc.sweep.load(tmp_path / "sw")
    assert repr(t).startswith("<SweepTable (packet) 8 rows, 4 points over aqm.k_pkts, flows.count, 2 seed(s)")
    html = t._repr_html_()
    assert "bottleneck_utilization_mean" in html and "bottleneck_utilization_ci95" in html
    assert html.count("<tr") >= 5  # the summary rows and one aggregate row per point
    _png_ok(html)


def test_fluid_sweep_html_plots_the_swept_parameter(tmp_path):
    # a fluid sweep's table lists every model parameter (the defaults too): the plot is against the varied one
    cc.sweep.fluid_sweep("dctcp", {"n": [10], "rate_bps": [10e9], "rtt_s": [100e-6], "k_pkts": [10, 40],
                                   "g": [1 / 16]}, out=tmp_path / "f", until_s=0.005)
    t = cc.sweep.load(tmp_path / "f")
    html = t._repr_html_()
    assert "alt='q_max_pkts against k_pkts'" in html
    _png_ok(html)
