"""PFC as a user reaches it from Python and the CLI (`[pfc]`, docs/engine.md): the "pfc" trace (every
pause and resume frame, kept only when asked for) in `SimResult.traces`, through `save`/`load` and
spilling; the per-port pause summary in the ports table; `headroom_bytes` from the dataclass mirror
and its error; `ccscope plot --kind pfc`. The mechanisms are tested in crates/ccscope-core/tests/pfc.rs."""
from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest

import ccscope as cc
from ccscope import sim as sim_module
from ccscope.scenario import PfcConfig

XOFF, XON = 30_000, 15_000


def two_tier(pfc: PfcConfig | None, traces: list[str], until_s: float = 0.008) -> dict:
    """a0..a3 behind S0 send 8 Gb/s each to r0 behind S1 until 4 ms (40 Gb/s S0 -> S1, 10 Gb/s to r0); a
    victim v behind S0 sends 4 Gb/s to r1 throughout."""
    hosts = [("a0", "S0"), ("a1", "S0"), ("a2", "S0"), ("a3", "S0"), ("v", "S0"), ("r0", "S1"), ("r1", "S1")]
    link = {"rate_bps": 10e9, "delay_s": 2e-6, "buffer_pkts": 200, "duplex": True}
    d = {
        "seed": 1, "until_s": until_s,
        "topology": {
            "kind": "graph",
            "nodes": [{"name": h, "kind": "host"} for h, _ in hosts] + [{"name": s, "kind": "switch"} for s in ("S0", "S1")],
            "links": [{"from": h, "to": s, **link} for h, s in hosts] + [{"from": "S0", "to": "S1", **link, "rate_bps": 40e9}],
        },
        "flow": [{"src": f"a{i}", "dst": "r0", "cc": "cbr", "rate_bps": 8e9, "stop_s": 0.004} for i in range(4)]
        + [{"src": "v", "dst": "r1", "cc": "cbr", "rate_bps": 4e9}],
        "record": {"traces": traces},
    }
    if pfc is not None:
        d["pfc"] = {k: v for k, v in asdict(pfc).items() if v is not None}
    return d


@pytest.fixture(scope="module")
def paused():
    return cc.simulate(two_tier(PfcConfig(xoff_bytes=XOFF, xon_bytes=XON), ["pfc", "drops"]))


def test_the_pfc_trace_names_ports_and_events_and_matches_the_ports_table(paused):
    t = paused.traces["pfc"]
    assert list(t.columns) == ["time_s", "port", "class", "event", "quanta", "sent_s"]
    assert list(t["event"].cat.categories) == ["pause", "resume"]
    # hop by hop: the switch feeding the congested one is paused first, then the hosts behind it
    assert t["port"].iloc[0] == "S0->S1" and t["event"].iloc[0] == "pause"
    hosts = t[t["port"].astype(str).str.endswith("->S0")]
    assert len(hosts) and hosts["sent_s"].min() > t["time_s"].iloc[0]
    assert (t.loc[t["event"] == "pause", "quanta"] == 65535).all()
    assert (t.loc[t["event"] == "resume", "quanta"] == 0).all()
    # the victim's NIC is resumed after the incast stops, for good
    v = t[t["port"] == "v->S0"]
    assert v["event"].iloc[-1] == "resume" and v["time_s"].iloc[-1] > 0.004
    counts = t["port"].astype(str).value_counts()
    ports = paused.ports.set_index("name")
    for name, row in ports.iterrows():
        assert row["pause_rx"] == counts.get(name, 0), name
        assert (row["paused_s"] > 0) == (row["pause_rx"] > 0), name


def test_the_trace_is_kept_only_when_asked_for_and_round_trips(paused, tmp_path):
    r = cc.simulate(two_tier(PfcConfig(xoff_bytes=XOFF, xon_bytes=XON), ["drops"]))
    assert "pfc" not in r.traces and r.ports["pause_rx"].sum() > 0
    back = cc.load(paused.save(tmp_path / "run"))
    assert back.traces["pfc"].equals(paused.traces["pfc"])
    assert back.ports[["pause_rx", "paused_s"]].equals(paused.ports[["pause_rx", "paused_s"]])


def test_a_spilled_pfc_trace_reads_back_equal(paused, monkeypatch):
    monkeypatch.setenv(sim_module.TEST_CHUNK_ROWS_ENV, "16")
    r = cc.simulate(two_tier(PfcConfig(xoff_bytes=XOFF, xon_bytes=XON), ["pfc", "drops"]), spill_dir=None)
    assert r.traces["pfc"].equals(paused.traces["pfc"])


def test_the_trace_gives_the_engines_pause_time(paused):
    from ccscope.plot.runs import pause_time_by_port
    whole = pause_time_by_port(paused).set_index("name")
    window = pause_time_by_port(paused, 0.0, 1.0).set_index("name")
    assert set(whole.index) == set(window.index) and len(whole) >= 6
    for name in whole.index:
        assert window.loc[name, "paused_s"] == pytest.approx(whole.loc[name, "paused_s"], abs=1e-12), name
        assert window.loc[name, "pause_rx"] == whole.loc[name, "pause_rx"]
    # the first millisecond holds less of it
    early = pause_time_by_port(paused, 0.0, 1e-3).set_index("name")
    assert early["paused_s"].sum() < whole["paused_s"].sum()


def test_headroom_from_the_dataclass_and_its_error(tmp_path):
    need = int(2 * 2e-6 * 40e9 / 8) + 2 * 1500 + 64
    r = cc.simulate(two_tier(PfcConfig(xoff_bytes=XOFF, xon_bytes=XON, headroom_bytes=need), ["drops"]))
    c = r.classes
    assert c["headroom_exceeded"].sum() == 0
    assert c["ingress_max_bytes"].max() <= XOFF + need
    # 200 packets of 1500 bytes per switch port: XOFF + headroom must fit
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(two_tier(PfcConfig(xoff_bytes=XOFF, xon_bytes=XON, headroom_bytes=280_000), ["drops"]))
    msg = str(e.value)
    assert "pfc.headroom_bytes" in msg and "280000" in msg and "at most 270000" in msg


def test_cli_run_and_plot_kind_pfc(paused, tmp_path):
    import json

    from typer.testing import CliRunner

    from ccscope.cli import app
    scen = tmp_path / "pfc.json"
    scen.write_text(json.dumps(two_tier(PfcConfig(xoff_bytes=XOFF, xon_bytes=XON), ["pfc"])))
    runner = CliRunner()
    r = runner.invoke(app, ["run", str(scen), "--quiet", "--out", str(tmp_path / "run")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "run" / "traces" / "pfc.parquet").is_file()
    png = tmp_path / "pfc.png"
    r = runner.invoke(app, ["plot", str(tmp_path / "run"), "--kind", "pfc", "-o", str(png)])
    assert r.exit_code == 0, r.output
    assert png.stat().st_size > 10_000
    # a window reads the trace; a run without [pfc] is refused in one line
    r = runner.invoke(app, ["plot", str(tmp_path / "run"), "--kind", "pfc", "--from", "1ms", "--to", "3ms",
                            "-o", str(tmp_path / "w.png")])
    assert r.exit_code == 0, r.output
    scen.write_text(json.dumps(two_tier(None, ["drops"])))
    assert runner.invoke(app, ["run", str(scen), "--quiet", "--out", str(tmp_path / "nopfc")]).exit_code == 0
    r = runner.invoke(app, ["plot", str(tmp_path / "nopfc"), "--kind", "pfc", "-o", str(tmp_path / "x.png")])
    assert r.exit_code != 0 and "--kind pfc" in r.output and "[pfc]" in r.output
    assert "Traceback" not in r.output
    np.testing.assert_array_less(0, paused.ports["paused_s"].max())


def test_the_pfc_panel_draws_each_ports_pause_time_in_its_unit(paused):
    """Bar lengths are the ports table's paused_s in the axis unit (a 3.8-ms pause drawn as 3.8 on a
    ms axis, not 3.8e-6)."""
    import matplotlib.pyplot as plt

    from ccscope.plot.runs import Run, plot_runs
    fig = plot_runs([Run(paused, "pfc", "mem")], ["pfc"])
    try:
        ax = fig.axes[0]
        assert "(ms;" in ax.get_xlabel()
        widths = sorted(p.get_width() for p in ax.patches)
        want = sorted(paused.ports.loc[paused.ports["paused_s"] > 0, "paused_s"] * 1e3)
        assert widths == pytest.approx(want, rel=1e-9)
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert "S0->S1" in labels and "v->S0" in labels
    finally:
        plt.close(fig)
