"""The datacenter algorithms and fabrics as a new user meets them: each congestion control kind runs
from a scenario file (`python -m ccscope run FILE --out DIR`) and from Python (`ccscope.simulate`)
on a k = 4 fat-tree under a Poisson web-search workload (RDMA kinds lossless on class 0 with
[pfc]), and each bad value is refused with one error line naming the field, the value and what is
allowed, exit status 2, no traceback and nothing written to --out."""
from __future__ import annotations

import copy
import subprocess
import sys

import pytest
import tomli_w

import ccscope as cc

CLI = [sys.executable, "-m", "ccscope"]

# RDMA transports run lossless on class 0; the window kinds run over the same RED marking port
RDMA_KINDS = ["dcqcn", "timely", "hpcc"]
KINDS = RDMA_KINDS + ["swift", "cubic"]


def scenario(kind: str = "cubic", until_s: float = 0.005) -> dict:
    d = {"name": f"acceptance {kind}", "seed": 1, "until_s": until_s, "packet_bytes": 1000, "ack_bytes": 64,
         "topology": {"kind": "fat_tree", "k": 4, "link_bps": 10e9, "link_delay_s": 1e-6, "buffer_pkts": 1000},
         "aqm": {"kind": "red", "min_th_pkts": 5, "max_th_pkts": 200, "max_p": 0.01, "w_q": 1.0,
                 "independent_marks": True},
         "workload": [{"kind": "poisson", "src": "h0..h15", "dst": "h0..h15", "load": 0.3,
                       "reference_bps": 160e9, "size": {"kind": "cdf", "builtin": "websearch"}, "cc": [kind]}],
         "record": {"traces": []}}
    if kind in RDMA_KINDS:
        d["pfc"] = {"classes": [0], "xoff_bytes": 300_000, "xon_bytes": 200_000}
    return d


def run_cli(tmp_path, d: dict):
    sc = tmp_path / "s.toml"
    sc.write_text(tomli_w.dumps(d))
    out = tmp_path / "out"
    r = subprocess.run([*CLI, "run", str(sc), "--out", str(out), "-q"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    return r, out


def check_flows(f, kind):
    assert len(f) > 5
    assert set(f["cc"]) == {kind}
    done = f[f["fct_s"].notna()]
    assert len(done) >= 3, f
    assert (done["fct_s"] > 0).all()
    assert (done["slowdown"] >= 1.0 - 1e-9).all()
    assert (done["ideal_fct_s"] > 0).all()


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_runs_on_a_fat_tree_from_a_file_and_from_python(tmp_path, kind):
    d = scenario(kind)
    r, out = run_cli(tmp_path, d)
    assert r.returncode == 0, r.stderr
    f_cli = cc.load(out).flows
    check_flows(f_cli, kind)
    f_py = cc.simulate(copy.deepcopy(d)).flows
    check_flows(f_py, kind)
    cols = ["src", "dst", "start_s", "size_bytes", "fct_s", "slowdown"]
    assert f_cli[cols].equals(f_py[cols])


def _set(path: str, value):
    """An edit of the base scenario: a dotted path into it (list items by index) set to value."""
    def edit(d):
        keys = path.split(".")
        node = d
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node.setdefault(k, {})
        node[keys[-1]] = value
        return d
    return edit


def _leaf_spine(over):
    def edit(d):
        d["topology"] = {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 8, "host_bps": 10e9,
                         "fabric_bps": 40e9, "link_delay_s": 1e-6, "oversubscription": over}
        return d
    return edit


def _cdf_file(content):
    def edit(d, tmp_path):
        if content is not None:
            (tmp_path / "sizes.csv").write_text(content)
        d["workload"][0]["size"] = {"kind": "cdf", "file": "sizes.csv"}
        return d
    return edit


# (id, kind, edit, needles in the error line: the field, the value, what is allowed)
BAD = [
    ("fat_tree_k_odd", "cubic", _set("topology.k", 5), ["topology.k = 5", "even"]),
    ("fat_tree_k_0", "cubic", _set("topology.k", 0), ["topology.k = 0", "even", "[2, 64]"]),
    ("fat_tree_k_neg", "cubic", _set("topology.k", -2), ["topology.k = -2", "whole number from 0"]),
    ("oversub_0", "cubic", _leaf_spine(0), ["topology.oversubscription = 0", "> 0"]),
    ("oversub_neg", "cubic", _leaf_spine(-3), ["topology.oversubscription = -3", "> 0"]),
    ("load_0", "cubic", _set("workload.0.load", 0), ["workload[0].load = 0", "(0, "]),
    ("load_neg", "cubic", _set("workload.0.load", -0.5), ["workload[0].load = -0.5", "(0, "]),
    ("load_high", "cubic", _set("workload.0.load", 1.01), ["workload[0].load = 1.01", "(0, 1]"]),
    ("kmin_gt_kmax", "dcqcn", _set("aqm.min_th_pkts", 300), ["aqm", "300", "200", "min_th"]),
    ("pmax_0", "dcqcn", _set("aqm.max_p", 0), ["aqm.max_p = 0", "1"]),
    ("pmax_high", "dcqcn", _set("aqm.max_p", 1.5), ["aqm.max_p = 1.5", "1"]),
    ("timely_tlow_eq_thigh", "timely", _set("timely.t_low_s", 5e-4), ["timely.t_low_s", "0.0005", "t_high_s"]),
    ("timely_tlow_gt_thigh", "timely", _set("timely.t_high_s", 1e-5), ["timely.t_low_s = 5e-5", "timely.t_high_s (1e-5)"]),
    ("cnp_interval_0", "dcqcn", _set("rdma.cnp_interval_s", 0), ["rdma.cnp_interval_s = 0", "> 0"]),
    ("cnp_interval_neg", "dcqcn", _set("rdma.cnp_interval_s", -5e-5), ["rdma.cnp_interval_s = -5e-5", "> 0"]),
    ("hpcc_eta_0", "hpcc", _set("hpcc.eta", 0), ["hpcc.eta = 0", "(0, 1]"]),
    ("hpcc_eta_high", "hpcc", _set("hpcc.eta", 1.2), ["hpcc.eta = 1.2", "(0, 1]"]),
    # two class policies and sched.classes left at its default 1: the line names both fields
    ("class_aqm_without_classes", "dcqcn", _set("sched.class_aqm", [{"kind": "drop_tail"}, {"kind": "drop_tail"}]),
     ["sched.class_aqm = 2 tables", "one queue policy per class (1) of sched.classes"]),
    ("cdf_missing", "cubic", _cdf_file(None), ["workload[0].size.file", "sizes.csv", "cannot read"]),
    ("cdf_unsorted", "cubic", _cdf_file("1000 0.5\n500 0.7\n20000 1\n"),
     ["workload[0].size.file", "non-decreasing"]),
    ("cdf_not_ending_at_1", "cubic", _cdf_file("1000 0.5\n20000 0.9\n"),
     ["workload[0].size.file", "must end at probability 1"]),
]


def _apply(edit, d, tmp_path):
    try:
        return edit(d, tmp_path)
    except TypeError:
        return edit(d)


@pytest.mark.parametrize("kind,edit,needles", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_each_bad_value_gives_one_error_line_exit_2_and_no_output(tmp_path, monkeypatch, kind, edit, needles):
    d = _apply(edit, scenario(kind), tmp_path)
    r, out = run_cli(tmp_path, d)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    text = (r.stdout + r.stderr).strip()
    assert text.startswith("error:") and "\n" not in text and "Traceback" not in text, text
    for n in needles:
        assert n in text, text
    assert not out.exists()
    # from Python: the same line as a ScenarioError (a relative CDF file resolves against the
    # current directory)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(cc.ScenarioError) as e:
        cc.simulate(d)
    msg = str(e.value)
    assert "\n" not in msg
    for n in needles:
        assert n in msg, msg
