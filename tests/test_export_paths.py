"""Per-flow path export (`ccscope scenario export-flows --format paths`, ccscope.export): each
flow's switches as the engine forwarded its packets, checked against the packets the ports
actually sent on a k = 4 fat-tree."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

import ccscope as cc
from ccscope.export import ExportError, parse_paths, simulate_with_routes, to_paths
from tests.cli_errors import cli, one_line_error

ROOT = Path(__file__).resolve().parents[1]


def fat_tree(flows, *, seed=7, **topo) -> dict:
    """HPCC flows on a k = 4 fat-tree at 100 Gb/s (RDMA: one ACK per data packet, lossless)."""
    t = {"kind": "fat_tree", "k": 4, "link_bps": 100e9, "link_delay_s": 1e-6, "buffer_pkts": 500}
    t.update(topo)
    return {"name": "paths", "seed": seed, "until_s": 0.01, "packet_bytes": 1500, "topology": t,
            "pfc": {"classes": [0], "xoff_bytes": 15 * 1500, "xon_bytes": 12 * 1500},
            "int": {"ports": "switches"}, "hpcc": {}, "record": {"traces": []},
            "flow": [{"src": f"h{s}", "dst": f"h{d}", "cc": "hpcc", "size_bytes": b, "start_s": 0.0}
                     for s, d, b in flows]}


def random_flows(n=40, seed=3):
    """n flows between random distinct hosts (same rack, same pod and across pods), each with its
    own packet count (3, 4, ..., n + 2 packets), so that no two flows' counts can stand in for each
    other in the per-port sums below."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        s = int(rng.integers(0, 16))
        d = int(rng.integers(0, 15))
        out.append((s, d + (d >= s), 1500 * (3 + i)))
    return out


def expected_tx(res, routes, mirror_acks=False) -> Counter:
    """Packets each port must have sent if every flow's data crossed its exported fwd ports and
    its ACKs (one per data packet) its rev ports."""
    exp: Counter = Counter()
    for r in res.flows.itertuples():
        fwd, rev = routes[r.flow]
        if mirror_acks:  # the ACKs on the data path backwards, which the engine does not do
            rev = ["->".join(reversed(p.split("->"))) for p in reversed(fwd)]
        for p in fwd:
            exp[p] += r.segments_sent
        for p in rev:
            exp[p] += r.segments_sent
    return exp


def test_exported_paths_are_the_ports_the_packets_crossed():
    res, routes = simulate_with_routes(fat_tree(random_flows()))
    f = res.flows
    assert f["fct_s"].notna().all() and (f["retransmits"] == 0).all()
    # every flow's data went out as many packets as it has, and one ACK came back per packet
    assert (f["segments_sent"] == f["size_bytes"] // 1500).all()
    ports = res.ports
    exp = expected_tx(res, routes)
    got = dict(zip(ports["name"], ports["tx_pkts"]))
    assert got == {n: exp.get(n, 0) for n in got}
    assert sum(got.values()) > 0 and len([n for n in got if got[n]]) > 40
    # the check can fail: the ACKs' routes are their own ECMP choice, not the data path mirrored,
    # and the per-port counts see the difference
    mirrored = expected_tx(res, routes, mirror_acks=True)
    assert {n: mirrored.get(n, 0) for n in got} != got
    # the text names the same switches, in order; flows cross 1, 3 or 5 switches
    paths = parse_paths(to_paths(res, routes))
    assert sorted(paths) == [i + 1 for i in range(len(f))]
    for r in f.itertuples():
        src, dst, fwd, rev = paths[r.flow + 1]
        assert (f"h{src}", f"h{dst}") == (r.src, r.dst)
        assert fwd == [p.split("->")[1] for p in routes[r.flow][0][:-1]]
        assert rev == [p.split("->")[1] for p in routes[r.flow][1][:-1]]
        assert len(fwd) in (1, 3, 5) and len(rev) == len(fwd)
        assert fwd[0] == f"e{src // 4}_{src % 4 // 2}" and fwd[-1] == f"e{dst // 4}_{dst % 4 // 2}"
        if len(fwd) == 5:  # the core switch reaches both pods through the aggregation a<pod>_<c / 2>
            core = int(fwd[2][1:])
            assert fwd[1] == f"a{src // 4}_{core // 2}" and fwd[3] == f"a{dst // 4}_{core // 2}"


def test_paths_follow_the_ecmp_seed_and_workload_flows_are_included():
    flows = random_flows(12, seed=5)
    _, a = simulate_with_routes(fat_tree(flows, seed=1))
    _, b = simulate_with_routes(fat_tree(flows, seed=2))
    assert a != b  # the seed salts the per-flow hash: another draw of paths
    # flows a workload creates during the run are there too, in flow id order
    sc = fat_tree([])
    sc["flow"] = []
    sc["until_s"] = 0.001
    sc["workload"] = [{"kind": "poisson", "src": "h0..h15", "dst": "h0..h15", "load": 0.2,
                       "reference_bps": 1.6e12, "size": {"kind": "cdf", "builtin": "websearch"}, "cc": ["hpcc"]}]
    res, routes = simulate_with_routes(sc)
    assert len(res.flows) > 5 and len(routes) == len(res.flows)
    text = to_paths(res, routes)
    assert f"Paths {len(res.flows)}" in text and len(parse_paths(text)) == len(res.flows)


def test_cli_writes_paths_that_join_the_connection_matrix(tmp_path):
    sc = tmp_path / "s.json"
    sc.write_text(json.dumps(fat_tree(random_flows(10))))
    r = cli("scenario", "export-flows", sc, "--format", "paths", "-o", tmp_path / "p.txt")
    assert r.exit_code == 0, r.output
    r2 = cli("scenario", "export-flows", sc, "--format", "htsim-cm")
    assert r2.exit_code == 0, r2.output
    paths = parse_paths((tmp_path / "p.txt").read_text())
    cm = [ln.split() for ln in r2.output.splitlines() if "->" in ln and not ln.startswith("#")]
    assert len(cm) == len(paths) == 10
    for row in cm:  # the same src->dst under the same id
        src, dst = map(int, row[0].split("->"))
        assert paths[int(row[2])][:2] == (src, dst)
    _, routes = simulate_with_routes(fat_tree(random_flows(10)))
    assert [paths[i + 1][2] for i in range(10)] == [[p.split("->")[1] for p in f[:-1]] for f, _ in routes]


def test_paths_refuses_a_result_directory_spraying_and_bad_lines(tmp_path):
    sc = tmp_path / "s.json"
    sc.write_text(json.dumps(fat_tree(random_flows(4))))
    assert cli("run", sc, "-q", "-o", tmp_path / "run").exit_code == 0
    one_line_error(cli("scenario", "export-flows", tmp_path / "run", "--format", "paths"),
                   "--format paths", "result directory", "scenario file")
    sp = tmp_path / "spray.json"
    sp.write_text(json.dumps(fat_tree(random_flows(4), load_balance="spray")))
    one_line_error(cli("scenario", "export-flows", sp, "--format", "paths"), "topology.load_balance", "spray")
    one_line_error(cli("scenario", "export-flows", sc, "--format", "path"), "--format", "paths", "htsim-cm")
    try:
        parse_paths("Paths 1\n0->1 id 1 fwd e0_0\n")
    except ExportError as e:
        assert "paths line 2" in str(e) and "rev" in str(e)
    else:
        raise AssertionError("a line without rev parsed")
    # routes of another run are refused, naming the flow
    res = cc.simulate(fat_tree(random_flows(4)))
    _, other = simulate_with_routes(fat_tree(random_flows(4, seed=9)))
    try:
        to_paths(res, other)
    except ExportError as e:
        assert "flow 0" in str(e) and "same run" in str(e)
    else:
        raise AssertionError("routes of another run were accepted")
