"""Datacenter workloads and the FCT-slowdown figure: the published flow-size CDFs (files and
builtins), Poisson patterns (random, all_to_all, permutation), start jitter, the per-flow ideal
FCT and slowdown, the slowdown bins and queue CDF, `plot --kind slowdown` and the htsim
connection-matrix export (docs/workloads.md)."""
from __future__ import annotations

import copy
import re
from pathlib import Path

import numpy as np
import pytest

import ccscope as cc
from ccscope.analysis import builtin_cdf, cdf_quantile, queue_cdf, slowdown_bin_edges, slowdown_stats
from ccscope.scenario.io import load_cdf
from ccscope.scenario.model import CdfSize, Poisson
from tests.cli_errors import cli, one_line_error

ROOT = Path(__file__).resolve().parents[1]
CDF_DIR = ROOT / "scenarios" / "cdf"

LEAF_SPINE = {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4, "host_bps": 10e9,
              "fabric_bps": 40e9, "link_delay_s": 1e-6, "buffer_pkts": 500}


def scenario(workload=None, flow=None, *, until_s=0.02, seed=1, **extra) -> dict:
    d = {"name": "w19", "seed": seed, "until_s": until_s, "topology": dict(LEAF_SPINE),
         "tcp": {"min_rto_s": 0.001}, "record": {"traces": []}}
    if workload is not None:
        d["workload"] = workload
    if flow is not None:
        d["flow"] = flow
    d.update(extra)
    return d


def poisson(**kw) -> dict:
    w = {"kind": "poisson", "src": "h0..h7", "dst": "h0..h7", "load": 0.3, "reference_bps": 80e9,
         "size": {"kind": "cdf", "builtin": "websearch"}, "cc": ["dctcp"]}
    w.update(kw)
    return w


# --------------------------------------------------------------------------- flow-size CDFs

# (builtin, file, published mean in bytes, relative tolerance, where the mean comes from)
PUBLISHED = [
    # DCTCP web search: ~1.6 MB in the literature (PIAS ns-2 scripts: 1138 x 1460 B = 1.66 MB); the
    # HPCC repository's points (the file) give 1.71 MB: within 10 % of 1.6 MB
    ("websearch", "web_search_dctcp.csv", 1.6e6, 0.10),
    # VL2 data mining: the PIAS scripts' meanFlowSize = 5117 x 1460 B
    ("datamining", "data_mining_vl2.csv", 5117 * 1460, 0.001),
    # Facebook Hadoop: the HPCC repository's generator (CustomRand.getAvg) gives 120,420.75 B
    ("hadoop", "hadoop_fb.csv", 120_420.75, 0.001),
]


def cdf_mean(points) -> float:
    p = np.asarray(points, dtype=float)
    return float(p[0, 0] * p[0, 1] + np.sum(np.diff(p[:, 1]) * (p[1:, 0] + p[:-1, 0]) / 2))


@pytest.mark.parametrize("name,file,mean,tol", [p[:4] for p in PUBLISHED])
def test_cdf_files_parse_cite_their_source_and_match_the_published_mean(name, file, mean, tol):
    path = CDF_DIR / file
    pts = load_cdf(file, base=CDF_DIR)
    assert pts[-1][1] == 1.0
    assert abs(cdf_mean(pts) - mean) / mean < tol, cdf_mean(pts)
    header = [ln for ln in path.read_text().splitlines() if ln.startswith("#")]
    assert any("SIGCOMM" in ln for ln in header) and any("github.com" in ln for ln in header)
    # the engine's builtin is the same table
    assert builtin_cdf(name) == pts


def test_old_websearch_file_keeps_its_numbers():
    # leaf_spine_websearch.toml (engine identity, benchmarks) still reads the old points
    pts = load_cdf("websearch.csv", base=CDF_DIR)
    assert pts[0] == [6000.0, 0.15] and pts[-1] == [20000000.0, 1.0] and len(pts) == 11
    assert 'file = "cdf/websearch.csv"' in (ROOT / "scenarios" / "leaf_spine_websearch.toml").read_text()


def test_builtin_and_file_give_the_same_run(tmp_path):
    import json
    by_name = scenario([poisson()])
    by_file = scenario([poisson(size={"kind": "cdf", "file": str(CDF_DIR / "web_search_dctcp.csv")})])
    p = tmp_path / "s.json"
    p.write_text(json.dumps(by_file))
    a = cc.simulate(by_name).flows
    b = cc.simulate(p, allow_paths=[CDF_DIR]).flows
    assert len(a) > 20
    assert a[["src", "dst", "start_s", "size_bytes", "fct_s"]].equals(b[["src", "dst", "start_s", "size_bytes", "fct_s"]])


def test_sampled_sizes_follow_the_builtin_quantiles():
    res = cc.simulate(scenario([poisson(size={"kind": "cdf", "builtin": "hadoop"}, load=0.3)], until_s=0.2))
    sizes = res.flows["size_bytes"].to_numpy()
    assert len(sizes) > 2000
    med = cdf_quantile(builtin_cdf("hadoop"), [0.5])[0]
    assert med == 700.0
    assert abs(np.mean(sizes <= med) - 0.5) < 0.05


@pytest.mark.parametrize("content,needle", [
    ("10 0.5\n5 0.7\n20 1\n", "non-decreasing"),
    ("10 0.5\n20 0.9\n", "must end at probability 1"),
])
def test_bad_cdf_files_give_one_line_errors(tmp_path, content, needle):
    (tmp_path / "bad.csv").write_text(content)
    sc = tmp_path / "s.toml"
    sc.write_text(TOML_POISSON.replace('builtin = "websearch"', 'file = "bad.csv"'))
    one_line_error(cli("run", sc, "-q"), "workload[0].size.file", needle)


def test_missing_cdf_file_and_unknown_builtin_name_the_field(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text(TOML_POISSON.replace('builtin = "websearch"', 'file = "nope.csv"'))
    one_line_error(cli("run", sc, "-q"), "workload[0].size.file", "nope.csv", "cannot read")
    sc.write_text(TOML_POISSON.replace('builtin = "websearch"', 'builtin = "webserch"'))
    one_line_error(cli("run", sc, "-q"), "workload[0].size.builtin", "websearch", "datamining", "hadoop")
    sc.write_text(TOML_POISSON.replace('builtin = "websearch"', 'builtin = "hadoop", points = [[1, 1]]'))
    one_line_error(cli("run", sc, "-q"), "workload[0].size.points", "not both")


TOML_POISSON = """
name = "p"
seed = 1
until_s = 0.005
[topology]
kind = "leaf_spine"
leaves = 2
spines = 2
hosts_per_leaf = 4
host_bps = 10e9
fabric_bps = 40e9
link_delay_s = 1e-6
buffer_pkts = 500
[[workload]]
kind = "poisson"
src = "h0..h7"
dst = "h0..h7"
load = 0.3
reference_bps = 80e9
size = { kind = "cdf", builtin = "websearch" }
"""


# --------------------------------------------------------------------------- patterns and load

def test_permutation_each_host_sends_to_one_and_receives_from_one():
    for seed in (1, 2, 3):
        f = cc.simulate(scenario([poisson(pattern="permutation", size={"kind": "fixed", "bytes": 2000})],
                                 until_s=0.01, seed=seed)).flows
        assert len(f) > 100
        assert (f["src"] != f["dst"]).all()
        assert f.groupby("src")["dst"].nunique().eq(1).all()
        assert f.groupby("dst")["src"].nunique().eq(1).all()
        assert f["src"].nunique() == 8 and f["dst"].nunique() == 8
        pairs = dict(zip(f["src"], f["dst"]))
        assert sorted(pairs.values()) == sorted(pairs)  # a permutation of the hosts


def test_permutation_changes_with_the_seed():
    maps = set()
    for seed in range(1, 6):
        f = cc.simulate(scenario([poisson(pattern="permutation", size={"kind": "fixed", "bytes": 2000})],
                                 until_s=0.005, seed=seed)).flows
        maps.add(tuple(sorted(zip(f["src"], f["dst"]))))
    assert len(maps) > 1


def test_all_to_all_uses_every_ordered_pair_and_never_skips_an_arrival():
    w = poisson(pattern="all_to_all", size={"kind": "fixed", "bytes": 1000}, load=0.5)
    f = cc.simulate(scenario([w], until_s=0.02)).flows
    counts = f.groupby(["src", "dst"]).size()
    assert len(counts) == 8 * 7
    n = len(f)
    expected = n / 56
    assert (abs(counts - expected) < 5 * np.sqrt(expected)).all()


@pytest.mark.parametrize("pattern", ["random", "all_to_all", "permutation"])
def test_offered_load_matches_the_target_within_statistical_bounds(pattern):
    # fixed sizes: the flow count over T is Poisson(lambda T), relative sd 1/sqrt(lambda T)
    size, load, ref, until = 10_000, 0.4, 80e9, 0.05
    f = cc.simulate(scenario([poisson(pattern=pattern, size={"kind": "fixed", "bytes": size}, load=load,
                                      reference_bps=ref)], until_s=until)).flows
    lam_t = load * ref / (8 * size) * until  # 20,000 arrivals
    offered = f["size_bytes"].sum() * 8 / until / ref
    assert abs(offered - load) / load < 4 / np.sqrt(lam_t), offered


def test_heavy_tailed_load_is_met_over_a_long_window():
    # web search over 2 s of arrivals at 20 % of 8 x 10 Gb/s: the mean size is 1.71 MB, so the
    # offered load has relative sd ~ sqrt(E[S^2]) / (E[S] sqrt(lambda T)) ~ 8 %; 3 sd allowed
    f = cc.simulate(scenario([poisson(load=0.2, reference_bps=80e9)], until_s=2.0,
                             topology=dict(LEAF_SPINE, hosts_per_leaf=4)), until_s=2.0).flows
    offered = f["size_bytes"].sum() * 8 / 2.0 / 80e9
    assert abs(offered - 0.2) / 0.2 < 0.25, offered


def test_incast_mixed_with_poisson_runs_both():
    inc = {"kind": "incast", "client": "h0", "servers": "h1..h7", "block_bytes": 20_000, "rounds": 3, "gap_s": 1e-3}
    res = cc.simulate(scenario([poisson(load=0.2), inc], until_s=0.03))
    f = res.flows
    assert set(f["workload"].dropna().astype(int)) == {0, 1}
    assert len(res.rounds) == 3
    assert f[f["workload"] == 1]["fct_s"].notna().all()


# --------------------------------------------------------------------------- start jitter

INCAST = {"kind": "incast", "client": "h0", "servers": "h1..h7", "block_bytes": 30_000, "rounds": 4,
          "gap_s": 2e-4, "cc": ["dctcp"]}


def test_jitter_zero_is_the_run_without_the_field():
    for w in (INCAST, poisson()):
        a = cc.simulate(scenario([w], until_s=0.01)).flows
        b = cc.simulate(scenario([dict(w, jitter_s=0.0)], until_s=0.01)).flows
        assert a.equals(b)


def test_incast_rounds_are_identical_across_seeds_without_jitter_and_differ_with_it():
    def rounds(seed, jitter):
        w = dict(INCAST, jitter_s=jitter) if jitter else INCAST
        return cc.simulate(scenario([w], until_s=0.02, seed=seed)).rounds["completion_s"].tolist()
    assert rounds(1, 0) == rounds(2, 0)  # nothing random in an incast without jitter
    assert rounds(1, 20e-6) != rounds(2, 20e-6)
    assert rounds(1, 20e-6) == rounds(1, 20e-6)  # the same seed gives the same run


def test_jittered_responses_start_within_the_jitter_after_the_request():
    jit = 50e-6
    res = cc.simulate(scenario([dict(INCAST, jitter_s=jit)], until_s=0.02, seed=3))
    f, r = res.flows, res.rounds
    for _, row in r.iterrows():
        st = f[f["round"] == row["round"]]["start_s"].to_numpy()
        d = st - row["start_s"]
        assert (d >= 0).all() and (d < jit).all() and len(np.unique(d)) == len(d)


def test_poisson_jitter_delays_each_flow_within_the_jitter():
    a = cc.simulate(scenario([poisson()], until_s=0.01)).flows
    b = cc.simulate(scenario([poisson(jitter_s=1e-4)], until_s=0.01)).flows
    assert len(a) == len(b) and (a["size_bytes"].to_numpy() == b["size_bytes"].to_numpy()).all()
    d = b["start_s"].to_numpy() - a["start_s"].to_numpy()
    assert (d >= 0).all() and (d < 1e-4).all() and d.max() > 0


# --------------------------------------------------------------------------- ideal FCT and slowdown

def test_a_lone_line_rate_flow_has_slowdown_exactly_one():
    for size in (1, 1000, 1500, 1501, 1_000_000):
        f = cc.simulate(scenario(flow=[{"src": "h0", "dst": "h5", "cc": "cbr", "size_bytes": size}])).flows
        assert f["slowdown"].iloc[0] == 1.0, (size, f[["fct_s", "ideal_fct_s"]])


def test_ideal_fct_is_the_store_and_forward_bound_by_hand():
    # h0 -> leaf0 -> spine -> leaf1 -> h5: 10, 40, 40, 10 Gb/s, 1 us each; 3001 bytes = 1500 + 1500 + 1
    f = cc.simulate(scenario(flow=[{"src": "h0", "dst": "h5", "cc": "cbr", "size_bytes": 3001}])).flows
    t = lambda b, r: b * 8 / r  # noqa: E731
    # max over the hop j that serializes the whole flow: the first packet (1500 B) at the hops
    # before j, the last (1 B) at the hops after; j = 3 (the last 10 Gb/s hop) is the largest
    rates = [10e9, 40e9, 40e9, 10e9]
    want = 4e-6 + max(sum(t(1500, r) for r in rates[:j]) + t(3001, rates[j]) + sum(t(1, r) for r in rates[j + 1:])
                      for j in range(4))
    assert want == pytest.approx(4e-6 + t(1500, 10e9) + 2 * t(1500, 40e9) + t(3001, 10e9))
    assert f["ideal_fct_s"].iloc[0] == pytest.approx(want, abs=1e-12)


def test_a_small_tcp_flow_alone_has_slowdown_one_and_every_flow_at_least_one():
    f = cc.simulate(scenario(flow=[{"src": "h0", "dst": "h5", "cc": "new_reno", "size_bytes": 2000}])).flows
    assert f["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    # an uncongested run (1 % load) and a congested one (70 %): FCT >= ideal for every completed flow
    for load in (0.01, 0.7):
        f = cc.simulate(scenario([poisson(load=load, pattern="all_to_all", size={"kind": "cdf", "builtin": "hadoop"})],
                                 until_s=0.05)).flows
        done = f[f["fct_s"].notna()]
        assert len(done) > 5
        assert (done["slowdown"] >= 1.0).all(), done["slowdown"].min()
        assert done["ideal_fct_s"].gt(0).all()


def test_slowdown_bins_are_workload_deciles_with_percentiles():
    res = cc.simulate(scenario([poisson(load=0.5, pattern="all_to_all")], until_s=0.05))
    edges = slowdown_bin_edges(res)
    assert len(edges) == 11
    assert np.allclose(edges, cdf_quantile(builtin_cdf("websearch"), np.linspace(0, 1, 11)))
    tab = res.slowdown()
    assert list(tab["bin"]) == list(range(10))
    assert {"lo_bytes", "hi_bytes", "flows", "completed", "mean", "p50", "p95", "p99"} <= set(tab.columns)
    ok = tab.dropna(subset=["p50"])
    assert (ok["p50"] <= ok["p95"]).all() and (ok["p95"] <= ok["p99"]).all() and (ok["p50"] >= 1).all()
    assert tab["flows"].sum() == res.flows["size_bytes"].notna().sum()
    # the same numbers from the function on the flows table with the same edges
    assert slowdown_stats(res.flows, edges_bytes=edges).equals(tab)
    # data mining: its atom at 1 packet (50 % of flows) merges bins
    assert len(slowdown_bin_edges(res, size_cdf=builtin_cdf("datamining"))) < 11


def test_queue_cdf_is_time_weighted_and_ends_at_one():
    res = cc.simulate(scenario([poisson(load=0.6, pattern="all_to_all")], until_s=0.02,
                               record={"traces": ["queue"], "ports": ["leaf0->h0"], "queue_every_change": True}))
    q = queue_cdf(res)
    assert q["fraction"].iloc[-1] == pytest.approx(1.0)
    assert (np.diff(q["fraction"]) > 0).all() and (np.diff(q["queue_pkts"]) > 0).all()
    assert res.queue_cdf(unit="bytes")["fraction"].iloc[-1] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="unit"):
        queue_cdf(res, unit="kg")


# --------------------------------------------------------------------------- plot, export, Python mirror

def test_plot_slowdown_draws_several_runs(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text(TOML_POISSON.replace("until_s = 0.005", "until_s = 0.02"))
    for name, cc_ in (("a", "dctcp"), ("b", "new_reno")):
        r = cli("run", sc, "-q", "-o", tmp_path / name, "--set", f'workload[0].cc=["{cc_}"]')
        assert r.exit_code == 0, r.output
    out = tmp_path / "sd.png"
    r = cli("plot", tmp_path / "a", tmp_path / "b", "--kind", "slowdown", "--label", "DCTCP", "--label", "NewReno",
            "-o", out)
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_export_flows_writes_htsim_connection_matrix(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text(TOML_POISSON)
    r = cli("scenario", "export-flows", sc, "--format", "htsim-cm", "-o", tmp_path / "f.cm")
    assert r.exit_code == 0, r.output
    text = (tmp_path / "f.cm").read_text().splitlines()
    res = cc.simulate(sc)
    head = [ln for ln in text if not re.match(r"\d+->", ln)]
    body = [ln for ln in text if re.match(r"\d+->", ln)]
    assert "Nodes 8" in head and f"Connections {len(res.flows)}" in head
    assert all(ln.startswith("#") for ln in head if not ln.startswith(("Nodes", "Connections")))
    # htsim's parser: src->dst, then key value pairs; id >= 1, start in ps, size in bytes
    for ln, row in zip(body, res.flows.itertuples()):
        m = re.fullmatch(r"(\d+)->(\d+) id (\d+) start (\d+) size (\d+)", ln)
        assert m, ln
        assert int(m[1]) == int(row.src[1:]) and int(m[2]) == int(row.dst[1:])
        assert int(m[3]) == row.flow + 1
        assert int(m[4]) == round(row.start_s * 1e12) and int(m[5]) == row.size_bytes
    # a saved result gives the same file; a long-lived flow cannot be exported
    assert cli("run", sc, "-q", "-o", tmp_path / "run").exit_code == 0
    r = cli("scenario", "export-flows", tmp_path / "run")
    assert r.exit_code == 0 and r.output.splitlines() == text
    one_line_error(cli("scenario", "export-flows", ROOT / "scenarios" / "dctcp_dumbbell.toml", "--until", "1ms"),
                   "has no size")
    one_line_error(cli("scenario", "export-flows", sc, "--format", "ns3"), "--format", "htsim-cm")


def test_python_mirror_takes_pattern_jitter_and_builtin():
    from ccscope.scenario.model import LeafSpine, Scenario
    sc = Scenario(topology=LeafSpine(**{k: v for k, v in LEAF_SPINE.items() if k != "kind"}), until_s=0.005)
    sc.workload = [Poisson(src="h0..h7", dst="h0..h7", load=0.3, reference_bps=80e9,
                           size=CdfSize(builtin="hadoop"), cc=["dctcp"], pattern="permutation", jitter_s=1e-5)]
    w = sc.to_dict()["workload"][0]
    assert w["size"] == {"kind": "cdf", "builtin": "hadoop"} and w["pattern"] == "permutation"
    f = cc.simulate(sc).flows
    assert len(f) > 10 and f.groupby("src")["dst"].nunique().eq(1).all()


# --------------------------------------------------------------------------- bad values

@pytest.mark.parametrize("edit,needles", [
    ({"load": 0}, ["workload[0].load", "(0, 1]"]),
    ({"load": 1.5}, ["workload[0].load", "(0, 1]", "reference_bps"]),
    ({"load": 10.5}, ["workload[0].load", "(0, 1]"]),
    ({"jitter_s": -1e-6}, ["workload[0].jitter_s"]),
    ({"pattern": "ring"}, ["workload[0].pattern", "all_to_all", "permutation"]),
    ({"pattern": "permutation", "dst": "h0..h3"}, ["workload[0].pattern", "as many destinations"]),
    ({"pattern": "permutation", "src": ["h0"], "dst": ["h0"]}, ["workload[0]"]),
])
def test_bad_workload_values_give_one_line_errors(tmp_path, edit, needles):
    import json
    d = scenario([poisson(**edit)])
    p = tmp_path / "s.json"
    p.write_text(json.dumps(d))
    one_line_error(cli("run", p, "-q"), *needles)


def test_bad_incast_jitter_names_the_field(tmp_path):
    import json
    p = tmp_path / "s.json"
    p.write_text(json.dumps(scenario([dict(copy.deepcopy(INCAST), jitter_s=float(2e9))])))
    one_line_error(cli("run", p, "-q"), "workload[0].jitter_s")


def test_reference_bps_is_a_fabric_rate_above_one_links_limit():
    """reference_bps sums many links: 50 % of 1024 x 100 Gb/s (102.4 Tb/s, above a link's 1e14 cap)
    is accepted; past 1e17 it is refused naming the field."""
    from ccscope.errors import ScenarioError
    from ccscope.scenario.io import resolve
    resolve(scenario([poisson(reference_bps=102.4e12, load=0.5)], until_s=1e-4))
    with pytest.raises(ScenarioError, match=r"workload\[0\]\.reference_bps = 1e\+?18: must be between 1 and 1e17"):
        resolve(scenario([poisson(reference_bps=1e18)], until_s=1e-4))
