"""One validator: every check `run` performs is in `scenario validate` / `ccscope.scenario.validate`
(hosts named by workloads, routes, congestion points), so a scenario validate accepts is one run
can start, and both refuse with the same line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import ccscope as cc

ROOT = Path(__file__).resolve().parents[1]
DUMBBELL = {"name": "v", "until_s": 0.001,
            "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4, "senders": 2}}


def with_(base: dict, **kw) -> dict:
    return {**json.loads(json.dumps(base)), **kw}


# scenarios the schema accepts but the build refuses: (name, scenario, field path, words)
REFUSED_AT_BUILD = [
    ("unknown poisson host", with_(DUMBBELL, workload=[{"kind": "poisson", "src": ["nohost"], "dst": ["r0"], "load": 0.5,
                                                        "reference_bps": 1e9, "size": {"kind": "fixed", "bytes": 10000}}]),
     "workload[0].src[0]", "must name a host"),
    ("unknown incast client", with_(DUMBBELL, workload=[{"kind": "incast", "client": "zz", "servers": ["s0"],
                                                         "block_bytes": 1000}]),
     "workload[0].client", "must name a host"),
    ("no route", {"name": "v", "until_s": 0.001,
                  "topology": {"kind": "graph",
                               "nodes": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"},
                                         {"name": "sw", "kind": "switch"}],
                               # b -> sw only: nothing reaches b
                               "links": [{"from": "a", "to": "sw", "rate_bps": 1e9, "delay_s": 1e-6, "duplex": True},
                                         {"from": "b", "to": "sw", "rate_bps": 1e9, "delay_s": 1e-6}]},
                  "flow": [{"src": "a", "dst": "b"}]},
     "flow[0].dst", "no route"),
    ("missing congestion point", with_(DUMBBELL, flows={"count": 2, "cc": "qcn"}),
     "flow[0].cc", "congestion point"),
]
IDS = [c[0] for c in REFUSED_AT_BUILD]


@pytest.mark.parametrize("name,sc,field,words", REFUSED_AT_BUILD, ids=IDS)
def test_validate_refuses_what_run_refuses_with_the_same_message(name, sc, field, words):
    with pytest.raises(cc.ScenarioError) as v:
        cc.scenario.validate(sc)
    with pytest.raises(cc.ScenarioError) as r:
        cc.simulate(sc)
    assert str(v.value) == str(r.value)
    assert str(v.value).startswith(field) and words in str(v.value), str(v.value)


@pytest.mark.parametrize("name,sc,field,words", REFUSED_AT_BUILD, ids=IDS)
def test_cli_validate_and_run_agree(tmp_path, name, sc, field, words):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(sc))
    outs = []
    for cmd in (["scenario", "validate", str(f)], ["run", str(f), "--quiet", "--out", str(tmp_path / "o")]):
        r = subprocess.run([sys.executable, "-m", "ccscope", *cmd], capture_output=True, text=True, timeout=120,
                           cwd=tmp_path)
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        assert "ok" not in r.stdout
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {field}") and words in lines[0], r.stderr
        outs.append(lines[0])
    assert outs[0] == outs[1]
    assert not (tmp_path / "o").exists()


def test_every_shipped_scenario_still_validates():
    for p in sorted((ROOT / "scenarios").glob("*.toml")):
        assert cc.scenario.validate(p)["name"] is not None, p


def test_validate_returns_the_resolved_scenario_and_sweep_keys_still_resolve(tmp_path):
    sc = with_(DUMBBELL, flows={"count": 2, "cc": "dctcp"})
    out = cc.scenario.validate(sc)
    assert out["flows"]["count"] == 2 and "tcp" in out  # defaults filled in
    assert cc.scenario.validate(out) == out  # idempotent


def test_a_positive_time_below_the_engines_resolution_is_refused():
    # found by `make fuzz` (api:1:5145): tcp.initial_rto_s = 1e-300 rounded to a 0-ps timer that
    # backed off to 0 again and fired without end (a hang); a positive time must be >= 1 ps
    sc = cc.scenario.dumbbell(senders=1, bottleneck_bps=1e9, rtt_s=100e-6).to_dict()
    sc["tcp"] = {"initial_rto_s": 1e-300}
    with pytest.raises(cc.ScenarioError, match=r"tcp\.initial_rto_s = .*must be >= 1e-12 s"):
        cc.scenario.validate(sc)
    sc["tcp"] = {"initial_rto_s": 1e-12}
    cc.scenario.validate(sc)
