"""Fabrics from Python and the CLI: the fat-tree template, leaf-spine oversubscription and
per-packet spraying (docs/scenario.md, "Host, switch and port names")."""
from __future__ import annotations

import subprocess
import sys

import pytest

import ccscope as cc
from ccscope.scenario import FatTree, FlowSpec, LeafSpine, Scenario
from ccscope.scenario.io import expand

CLI = [sys.executable, "-m", "ccscope"]


def fat_tree(k=4, flows=None, **kw):
    return Scenario(topology=FatTree(k=k, link_bps=10e9, link_delay_s=1e-6, **kw),
                    flow=flows or [FlowSpec(src="h0", dst="h1")], seed=3, until_s=0.05)


def graph_of(sc) -> dict:
    return expand(sc)["topology"]


@pytest.mark.parametrize("k,hosts", [(4, 16), (8, 128)])
def test_fat_tree_expands_to_the_published_counts(k, hosts):
    g = graph_of(fat_tree(k))
    kinds = [n["kind"] for n in g["nodes"]]
    assert kinds.count("host") == hosts == k ** 3 // 4
    assert kinds.count("switch") == k * k + (k // 2) ** 2
    assert len(g["links"]) == 6 * hosts
    assert g["ecmp"] is True and "load_balance" not in g


def test_fat_tree_names_and_tier_rates():
    sc = fat_tree(4, host_bps=25e9, agg_core_bps=100e9, edge_agg_delay_s=2e-6)
    links = {(lk["from"], lk["to"]): lk for lk in graph_of(sc)["links"]}
    assert links[("h5", "e1_0")]["rate_bps"] == 25e9      # host 5 = pod 1, edge 0, port 1
    assert links[("e1_0", "h5")]["delay_s"] == 1e-6
    assert links[("e1_0", "a1_1")]["rate_bps"] == 10e9 and links[("e1_0", "a1_1")]["delay_s"] == 2e-6
    assert links[("a1_1", "c3")]["rate_bps"] == 100e9     # a{p}_1 links to c2, c3
    assert ("a1_1", "c1") not in links
    assert links[("h5", "e1_0")]["aqm"]["kind"] == "drop_tail"


def _hops(res, src, dst):
    """Links a flow's data crossed: ports whose tx counters moved in a one-flow run."""
    ports = res.ports
    return int((ports["tx_pkts"] > 0).sum()) // 2  # data one way, ACKs back on as many ports


@pytest.mark.parametrize("dst,hops", [("h1", 2), ("h3", 4), ("h15", 6)])
def test_hop_counts_same_edge_same_pod_across_pods(dst, hops):
    res = cc.simulate(fat_tree(4, flows=[FlowSpec(src="h0", dst=dst, size_bytes=30000)]))
    assert res.flows["fct_s"].notna().all()
    assert _hops(res, "h0", dst) == hops


def _run(lb, flows):
    sc = fat_tree(4, flows=[FlowSpec(src=a, dst=b, cc="dctcp", size_bytes=1_500_000) for a, b in flows],
                  load_balance=lb)
    sc.aqm = cc.aqm.threshold(k_pkts=65)
    return cc.simulate(sc)


def test_ecmp_keeps_a_flow_on_one_core_spraying_uses_all_four():
    down = ["c0->a3_0", "c1->a3_0", "c2->a3_1", "c3->a3_1"]
    used = {}
    for lb in ("ecmp", "spray"):
        res = _run(lb, [("h0", "h15")])
        tx = dict(zip(res.ports["name"], res.ports["tx_pkts"]))
        used[lb] = sum(tx[p] > 0 for p in down)
        assert res.flows["delivered_bytes"].tolist() == [1_500_000]
    assert used == {"ecmp": 1, "spray": 4}


def test_spraying_reorders_packets_but_delivers_all_bytes():
    two = [("h0", "h15"), ("h1", "h14")]
    for lb in ("ecmp", "spray"):
        res = _run(lb, two)
        ledger = res.meta["ledger"]
        assert ledger["dropped"] == 0
        assert ledger["sent"] == ledger["delivered"] + ledger["in_flight"]
        assert res.flows["delivered_bytes"].tolist() == [1_500_000, 1_500_000]
        if lb == "spray":
            assert (res.flows["ooo_segments"] > 50).all()
            assert res.flows["spray_paths"].tolist() == [4, 4]
        else:
            assert "ooo_segments" not in res.flows.columns
            assert res.flows["retransmits"].tolist() == [0, 0]


def test_oversubscription_scales_the_fabric_rate():
    base = dict(leaves=2, spines=2, hosts_per_leaf=4, host_bps=10e9, fabric_bps=20e9, link_delay_s=1e-6)

    def rates(**kw):
        sc = Scenario(topology=LeafSpine(**base, **kw), flow=[FlowSpec(src="h0", dst="h4")])
        return {(lk["from"], lk["to"]): lk["rate_bps"] for lk in graph_of(sc)["links"]}
    assert rates() == rates(oversubscription=1.0)
    r = rates(oversubscription=4.0)
    assert r[("leaf0", "spine1")] == r[("spine0", "leaf1")] == 5e9
    assert r[("h0", "leaf0")] == 10e9
    # host-facing over spine-facing capacity at a leaf
    assert 4 * r[("leaf0", "h0")] / (2 * r[("leaf0", "spine0")]) == 4.0


@pytest.mark.parametrize("topo,field", [
    (dict(kind="fat_tree", k=5, link_bps=1e9, link_delay_s=0), "topology.k = 5: must be an even number"),
    (dict(kind="fat_tree", k=0, link_bps=1e9, link_delay_s=0), "topology.k = 0"),
    (dict(kind="fat_tree", k=4, link_bps=1e9, link_delay_s=0, edge_agg_bps=-1), "topology.edge_agg_bps = -1"),
    (dict(kind="leaf_spine", leaves=2, spines=2, hosts_per_leaf=2, host_bps=1e9, fabric_bps=1e9, link_delay_s=0,
          oversubscription=0), "topology.oversubscription = 0: must be a finite number > 0"),
    (dict(kind="leaf_spine", leaves=2, spines=2, hosts_per_leaf=2, host_bps=1e9, fabric_bps=1e9, link_delay_s=0,
          oversubscription=-3), "topology.oversubscription = -3"),
])
def test_bad_fabric_values_are_one_line_errors(topo, field):
    data = {"topology": topo, "flow": [{"src": "h0", "dst": "h1"}]}
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(data, until_s=0.001)
    assert field in str(e.value) and "\n" not in str(e.value)


def test_cli_expand_prints_the_fat_tree_graph_and_refuses_odd_k(tmp_path):
    f = tmp_path / "ft.toml"
    f.write_text('[topology]\nkind = "fat_tree"\nk = 4\nlink_bps = 10e9\nlink_delay_s = 1e-6\n'
                 'load_balance = "spray"\n[[flow]]\nsrc = "h0"\ndst = "h15"\n')
    out = subprocess.run(CLI + ["scenario", "expand", str(f)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert 'kind = "graph"' in out.stdout and 'load_balance = "spray"' in out.stdout
    assert out.stdout.count("[[topology.links]]") == 96
    assert '"e3_1->a3_0"' in out.stdout  # recorded: the edge uplinks
    f.write_text(f.read_text().replace("k = 4", "k = 7"))
    out = subprocess.run(CLI + ["scenario", "expand", str(f)], capture_output=True, text=True)
    assert out.returncode != 0
    err = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and "topology.k = 7" in err[0], out.stderr
