"""RoCE flows end to end from Python and the CLI: the RDMA transport (cc = "rdma": go-back-N, ACKs, NACKs,
CNPs, `[rdma]`) and DCQCN on it (cc = "dcqcn", `[dcqcn]`); flows/FCT/slowdown tables and the rate trace;
one-line errors for bad values."""
from __future__ import annotations

import tomllib

import pytest

import ccscope as cc
from tests.rdma_scenarios import RED, dcqcn_dumbbell, write_toml
from tests.cli_errors import cli, one_line_error

LEAF_SPINE = {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4, "host_bps": 10e9,
              "fabric_bps": 40e9, "link_delay_s": 1e-6, "buffer_pkts": 500}


def scenario(flow, *, until_s=0.01, **extra) -> dict:
    d = {"name": "rdma", "seed": 1, "until_s": until_s, "packet_bytes": 1000, "ack_bytes": 64,
         "topology": dict(LEAF_SPINE), "flow": flow, "record": {"traces": ["rate"]}}
    d.update(extra)
    return d


def test_a_lone_rdma_flow_runs_at_line_rate_from_the_first_packet():
    # no slow start: alone on the fabric, its FCT is the store-and-forward bound (slowdown 1)
    f = cc.simulate(scenario([{"src": "h0", "dst": "h5", "cc": "rdma", "size_bytes": 1_000_000}])).flows
    assert f["delivered_bytes"].iloc[0] == 1_000_000
    assert f["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    assert f["retransmits"].iloc[0] == 0


def dcqcn_pair(**tables) -> dict:
    """The DCQCN pair over 20 ms, its rates and queue sampled every 100 us."""
    return dcqcn_dumbbell(until_s=0.02, traces=["rate", "queue"], flow_interval_s=1e-4, **tables)


def test_a_dcqcn_scenario_runs_end_to_end_from_the_cli(tmp_path):
    sc = write_toml(tmp_path / "dcqcn.toml", dcqcn_pair(dcqcn={"r_ai_bps": 40e6}))
    out = tmp_path / "run"
    r = cli("run", sc, "-q", "-o", out)
    assert r.exit_code == 0, r.output
    res = cc.load(out)
    f = res.flows
    assert list(f["cc"]) == ["dcqcn", "dcqcn"]
    # two 20 MB messages over a shared 40 Gb/s port: both complete, nothing is lost (PFC), and the
    # CNPs cut the rates (ecn_reductions counts the CNPs each source received)
    assert (f["delivered_bytes"] == 20_000_000).all()
    assert f["fct_s"].notna().all() and (f["slowdown"] >= 1.0).all()
    assert (f["ecn_reductions"] > 0).all() and (f["retransmits"] == 0).all()
    rate = res.traces["rate"]
    assert set(rate["flow"]) == {0, 1}
    assert rate["rate_bps"].max() == pytest.approx(40e9)
    assert rate["rate_bps"].min() < 30e9, "DCQCN cut its rate below the line rate"
    # the resolved scenario carries the [dcqcn] and [rdma] tables with their defaults
    assert res.scenario["dcqcn"]["g"] == pytest.approx(1 / 256)
    assert res.scenario["rdma"]["cnp_interval_s"] == pytest.approx(50e-6)


def test_dcqcn_from_python_with_the_dataclasses():
    from ccscope.scenario.model import DcqcnConfig, RdmaConfig, _clean
    d = scenario([{"src": "h0", "dst": "h5", "cc": "dcqcn", "size_bytes": 100_000}],
                 dcqcn=_clean(DcqcnConfig(r_ai_bps=20e6)), rdma=_clean(RdmaConfig(ack_every=4)))
    f = cc.simulate(d).flows
    assert f["delivered_bytes"].iloc[0] == 100_000 and f["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("section, body, needle", [
    ("rdma", "cnp_interval_s = 0", "rdma.cnp_interval_s = 0: must be a time > 0 s"),
    ("rdma", "cnp_interval_s = -5e-5", "rdma.cnp_interval_s = -5e-5"),
    ("rdma", "ack_every = 0", "rdma.ack_every = 0: must be between 1"),
    ("rdma", "rto_s = 0", "rdma.rto_s = 0"),
    ("dcqcn", "g = 0", "dcqcn.g = 0: must be in (0, 1]"),
    ("dcqcn", "g = 1.5", "dcqcn.g = 1.5"),
    ("dcqcn", "timer_s = 0", "dcqcn.timer_s = 0"),
    ("dcqcn", "tau_prime_s = -1", "dcqcn.tau_prime_s = -1"),
    ("dcqcn", "r_ai_bps = 0", "dcqcn.r_ai_bps = 0: must be a rate > 0"),
    ("dcqcn", "f_steps = 0", "dcqcn.f_steps = 0"),
    ("dcqcn", "byte_counter_bytes = 0", "dcqcn.byte_counter_bytes = 0"),
    ("dcqcn", "alpha_init = 2", "dcqcn.alpha_init = 2"),
    ("dcqcn", "kmin = 5", "unknown field `kmin`"),
])
def test_bad_values_are_one_line_errors_naming_the_field(tmp_path, section, body, needle):
    sc = write_toml(tmp_path / "bad.toml", dcqcn_pair(**{section: tomllib.loads(body)}))
    one_line_error(cli("run", sc, "-q"), needle)


def test_kmin_above_kmax_is_refused_at_the_congestion_point(tmp_path):
    sc = write_toml(tmp_path / "bad.toml", dcqcn_pair(aqm={**RED, "max_th_pkts": 4}))
    one_line_error(cli("run", sc, "-q"), "aqm.max_th_pkts")
