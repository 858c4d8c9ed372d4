"""Memory budget (docs/scenario.md "Memory budget"): every scenario the schema accepts either
runs or is refused before it allocates, with an error naming the fields that drive the
estimate; event-driven traces stop at a cap inside the budget and say so; set-up is
near-linear in flows. Each test reproduces one resource bomb of the reliability review with a
small budget, so none allocates more than a few hundred MB."""
from __future__ import annotations

import json

import pytest

import ccscope as cc
from ccscope import _native
from ccscope.cli import app

MiB = 2 ** 20


def dumbbell(flows: int, until_s: float = 1.0, **record) -> dict:
    return {"until_s": until_s,
            "topology": {"kind": "dumbbell", "bottleneck_bps": 10e9, "rtt_s": 100e-6},
            "flows": {"count": flows}, "record": record or {"traces": ["queue"]}}


def refused(scenario, budget: int) -> str:
    with pytest.raises(cc.ScenarioError) as e:
        cc.Simulation(scenario, max_memory_bytes=budget)
    msg = str(e.value)
    assert "estimated memory" in msg and "exceeds the budget" in msg and "--max-memory" in msg, msg
    return msg


def test_a_million_flows_is_refused_naming_flows_count_and_the_estimate():
    msg = refused(dumbbell(1_000_000), 256 * MiB)
    assert msg.startswith("flows.count = 1000000: estimated memory ")
    assert "per-flow state of 1000000 flows" in msg
    assert "the budget 256.0 MiB" in msg


def test_a_million_flows_is_refused_by_the_cli_with_one_line(tmp_path, capsys):
    from typer.testing import CliRunner
    f = tmp_path / "big.json"
    f.write_text(json.dumps(dumbbell(1_000_000)))
    r = CliRunner().invoke(app, ["run", str(f), "--quiet", "--max-memory", "256MiB"])
    assert r.exit_code == 2, r.output
    assert "estimated memory" in r.output and "flows.count = 1000000" in r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("bad", ["lots", "-1GiB", "0", "12 parsecs"])
def test_cli_max_memory_must_be_a_size(tmp_path, bad):
    from typer.testing import CliRunner
    f = tmp_path / "s.json"
    f.write_text(json.dumps(dumbbell(2, until_s=0.001)))
    r = CliRunner().invoke(app, ["run", str(f), "--quiet", "--max-memory", bad])
    assert r.exit_code == 2 and "--max-memory" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("bad", [0, -5, "4GiB", True, float("nan")])
def test_api_max_memory_bytes_must_be_a_positive_number(bad):
    with pytest.raises(cc.ScenarioError, match="max_memory_bytes"):
        cc.Simulation(dumbbell(2, until_s=0.001), max_memory_bytes=bad)


@pytest.mark.parametrize("leaves,spines,hosts", [(1000, 8, 1000), (4096, 4096, 4096)])
def test_huge_leaf_spine_is_refused_before_it_is_expanded(leaves, spines, hosts):
    sc = {"until_s": 0.01, "topology": {"kind": "leaf_spine", "leaves": leaves, "spines": spines,
                                        "hosts_per_leaf": hosts, "host_bps": 10e9, "fabric_bps": 40e9,
                                        "link_delay_s": 1e-6},
          "flow": [{"src": "h0", "dst": "h1"}], "record": {"traces": ["link"]}}
    msg = refused(sc, 512 * MiB)
    assert f"topology.leaves x spines x hosts_per_leaf = {leaves} x {spines} x {hosts}" in msg


def test_a_million_node_graph_is_refused_naming_the_recorded_ports_and_the_graph():
    n = 1_000_000
    nodes = ",".join(['{"name":"sw","kind":"switch"}'] + [f'{{"name":"h{i}","kind":"host"}}' for i in range(n - 1)])
    links = ",".join(f'{{"from":"h{i}","to":"sw","rate_bps":1e9,"delay_s":1e-6,"duplex":true}}' for i in range(n - 1))
    text = (f'{{"until_s":0.01,"topology":{{"kind":"graph","nodes":[{nodes}],"links":[{links}]}},'
            f'"flow":[{{"src":"h0","dst":"h1"}}]}}')
    with pytest.raises(cc.ScenarioError) as e:  # 101 MiB of text: refused before it is parsed
        _native.Simulation(text, None, 256 * MiB)
    assert str(e.value).startswith("<scenario> = 100.9 MiB of text: parsing it needs about 1.6 GiB"), str(e.value)
    with pytest.raises(cc.ScenarioError) as e:  # parsed within 2 GiB, then refused by the estimate
        _native.Simulation(text, None, 2048 * MiB)
    msg = str(e.value)
    # every switch port is recorded by default: 999999 series of 1001 queue samples each
    assert msg.startswith("record.queue_interval_s = 1e-5: estimated memory "), msg
    assert "999999 ports x 1001 samples" in msg
    assert "topology.nodes = 1000000 nodes, 999999 links (topology 1000000 nodes, 1999998 ports" in msg


def test_incast_with_a_million_senders_is_refused_naming_the_workload():
    n = 1_000_000
    sc = {"until_s": 0.01,
          "topology": {"kind": "dumbbell", "senders": n, "bottleneck_bps": 10e9, "rtt_s": 100e-6},
          "flow": [{"src": "s0", "dst": "r0"}],
          "workload": [{"kind": "incast", "client": "r0", "servers": [f"s{i}" for i in range(n)],
                        "block_bytes": 10_000, "rounds": 3}],
          "record": {"traces": ["queue"]}}
    msg = refused(sc, 256 * MiB)
    assert "workload[0] = 1000000 servers x 3 rounds" in msg or "topology.senders = 1000000" in msg
    assert "3000000 flows spawned" in msg


def test_ten_thousand_flows_sampled_every_10us_count_every_flow_sample():
    # the old 1e8 cap counted samples per interval (1e5 here), not per flow: 1e9 rows slipped through
    sc = dumbbell(10_000, until_s=1.0, traces=["cwnd"], flow_interval_s=1e-5)
    msg = refused(sc, 4 * 2 ** 30)
    assert msg.startswith("record.flow_interval_s = 1e-5: estimated memory "), msg
    assert "10000 flows x 100001 samples over until_s = 1" in msg


def test_queue_every_change_stops_at_its_cap_and_says_so():
    sc = dumbbell(2, until_s=0.1, traces=["queue"], queue_every_change=True)
    res = cc.simulate(sc, max_memory_bytes=1 * MiB, spill_dir=False)  # no spilling: the cap in memory
    t = res.traces["truncated"]
    assert list(t["series"]) == ["queue sw->r0"]
    kept, cap = int(t["rows_kept"][0]), int(t["cap_rows"][0])
    assert kept == cap == len(res.traces["queue"]) and int(t["rows_left_out"][0]) > 0
    # the kept rows are the first changes, in time order
    assert res.traces["queue"]["time_s"].is_monotonic_increasing
    # with room to spare nothing is cut and the table is absent
    full = cc.simulate(sc, max_memory_bytes=256 * MiB, spill_dir=False)
    assert "truncated" not in full.traces
    assert len(full.traces["queue"]) == kept + int(t["rows_left_out"][0])


def test_a_1e14_bps_cbr_flow_recording_drops_stops_at_the_cap_and_the_cli_warns(tmp_path, monkeypatch):
    from typer.testing import CliRunner
    sc = {"until_s": 1e-4,
          "topology": {"kind": "dumbbell", "senders": 1, "bottleneck_bps": 10e9, "rtt_s": 100e-6},
          "flow": [{"src": "s0", "dst": "r0", "cc": "cbr", "rate_bps": 1e14}],
          "record": {"traces": ["drops"]}}
    res = cc.simulate(sc, max_memory_bytes=4 * MiB, spill_dir=False)  # no spilling: the cap in memory
    t = res.traces["truncated"]
    assert list(t["series"]) == ["drops"] and list(t["reason"]) == ["memory"]
    assert len(res.traces["drops"]) == int(t["cap_rows"][0]) and int(t["rows_left_out"][0]) > 0
    # the port counters still count every drop
    assert int(res.ports["drops_overflow"].sum()) == len(res.traces["drops"]) + int(t["rows_left_out"][0])
    f = tmp_path / "cbr.json"
    f.write_text(json.dumps(sc))
    # the command line spills event traces to disk: here up to a disk cap of 1 MB
    monkeypatch.setenv("CCSCOPE_TEST_SPILL_DISK_BYTES", str(10 ** 6))
    r = CliRunner().invoke(app, ["run", str(f), "--quiet", "--max-memory", "4MiB"])
    assert r.exit_code == 0, r.output
    assert "warning: trace 'drops' stopped after" in r.output and "disk cap 976.6 KiB" in r.output


def test_twenty_thousand_flows_and_a_1024_host_poisson_leaf_spine_build():
    # route search was quadratic (54 s and 49 s); now one tree per source switch
    sim = cc.Simulation(dumbbell(20_000, until_s=1e-6))
    assert sim.end_s == pytest.approx(1e-6)
    hosts = [f"h{i}" for i in range(1024)]
    sc = {"until_s": 1e-6, "topology": {"kind": "leaf_spine", "leaves": 32, "spines": 8, "hosts_per_leaf": 32,
                                         "host_bps": 10e9, "fabric_bps": 40e9, "link_delay_s": 1e-6},
          "record": {"traces": ["link"], "queue_interval_s": 1e-4},
          "workload": [{"kind": "poisson", "src": hosts, "dst": hosts, "load": 0.5, "reference_bps": 1e13,
                        "size": {"kind": "fixed", "bytes": 100_000}}]}
    res = cc.simulate(sc)
    assert res.meta["sim_time_s"] == pytest.approx(1e-6)


def test_routes_of_a_built_scenario_are_unchanged_by_the_faster_search():
    # same scenario, same seed -> same per-port counters as the reference expectations below
    # (multi-receiver dumbbell: two switches, every host behind one port)
    sc = {"until_s": 0.002, "topology": {"kind": "dumbbell", "senders": 3, "receivers": 2,
                                          "bottleneck_bps": 1e9, "rtt_s": 100e-6},
          "flow": [{"src": "s0", "dst": "r1"}, {"src": "s2", "dst": "r0"}], "record": {"traces": []}}
    res = cc.simulate(sc)
    used = res.ports[res.ports["tx_pkts"] > 0]["name"].tolist()
    assert sorted(used) == sorted(["s0->sw0", "sw0->sw1", "sw1->r1", "r1->sw1", "sw1->sw0", "sw0->s0",
                                   "s2->sw0", "sw1->r0", "r0->sw1", "sw0->s2"])


def test_the_default_budget_follows_an_address_space_limit():
    # under `ulimit -v` (3 GiB here) a million senders used to pass the default budget (half the
    # machine's RAM) and then abort in the allocator ("memory allocation failed", exit 134); the
    # default budget now takes the process's address-space limit into account
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
            "import sys; from ccscope.cli import main; sys.argv = ['ccscope'] + sys.argv[1:]; main()")
    p = subprocess.run([sys.executable, "-c", code, "run", str(root / "scenarios" / "newreno_droptail.toml"),
                        "--until", "200us", "--set", "flows.count=1000000", "--quiet"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "exceeds the budget 1.5 GiB" in lines[0] and "flows.count = 1000000" in lines[0], p.stderr


def test_a_scenario_text_too_long_to_parse_in_the_budget_is_refused_before_parsing():
    # found by `make fuzz` (api:1:32931): periodic(clients=785699) wrote a 170 MB explicit graph
    # whose parsing alone (typed structs, names, the expanded copy) aborted the process under a
    # 3 GiB address-space limit before the estimate could run; the text is now checked first
    sc = cc.scenario.periodic(clients=20_000)
    text_mib = len(json.dumps(sc)) / MiB
    with pytest.raises(cc.ScenarioError) as e:
        cc.Simulation(sc, max_memory_bytes=int(text_mib * 8 * MiB))
    msg = str(e.value)
    assert msg.startswith("<scenario> = ") and "of text: parsing it needs about" in msg, msg
    assert "beyond the memory budget" in msg and "--max-memory" in msg
    with pytest.raises(cc.ScenarioError, match="of text: parsing it needs"):
        _native.expand(json.dumps(sc), "json", int(text_mib * 8 * MiB))
    cc.Simulation(sc, max_memory_bytes=int(text_mib * 64 * MiB))  # within the budget it builds


def test_a_poisson_load_whose_arrival_rate_underflows_never_arrives():
    # found by `make fuzz` (api:1:56555): load = 5e-324 made the mean gap infinite, which the
    # seconds -> picoseconds conversion turned into 0: a flow arrived at every instant until a
    # 3 GB allocation aborted the process. An infinite gap is now the end of time.
    sc = {"until_s": 0.01, "topology": {"kind": "dumbbell", "senders": 4, "bottleneck_bps": 1e9, "rtt_s": 250e-6},
          "flows": {"count": 1},
          "workload": [{"kind": "poisson", "src": ["s2", "s3"], "dst": ["r0"], "load": 5e-324,
                        "reference_bps": 1e9, "size": {"kind": "uniform", "min_bytes": 10000, "max_bytes": 50000},
                        "cc": ["dctcp"]}]}
    r = cc.simulate(sc, max_memory_bytes=512 * MiB)
    assert len(r.flows) == 1  # the template flow only: no arrival
