"""The per-flow throughput of `build_result` is computed in one vectorised pass (a run of 10^5
flows used to spend minutes in a per-flow groupby loop): it must give exactly the numbers of
the straightforward per-flow definition, on random traces and on real runs."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ccscope as cc
from ccscope.result import _flow_throughput


def reference_throughput(delivered, flows, warm, end):
    """The definition, flow by flow: over the samples at or after the warm-up, (last bytes -
    first bytes) * 8 / (last time - first time), NaN with fewer than two samples or no span."""
    out = np.full(len(flows), np.nan)
    if delivered is None or delivered.empty:
        span = end - flows["start_s"].to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(span > 0, flows["delivered_bytes"].to_numpy() * 8.0 / span, np.nan)
    for f, g in delivered.groupby("flow", sort=True):
        t = g["time_s"].to_numpy()
        b = g["received_bytes"].to_numpy() if "received_bytes" in g else g["delivered_bytes"].to_numpy()
        sel = t >= warm
        if sel.sum() >= 2:
            t0, t1 = t[sel][0], t[sel][-1]
            if t1 > t0:
                out[int(f)] = (b[sel][-1] - b[sel][0]) * 8.0 / (t1 - t0)
    return out


def random_trace(rng, n_flows, rows, *, received=True, dtype=np.uint64):
    flow = rng.integers(0, n_flows, rows).astype(np.uint32)
    # coarse times so that some flows have equal first/last times after the warm-up
    time = np.round(rng.uniform(0, 1, rows), 2)
    time.sort()
    # rows interleaved by time, as the engine writes them; bytes grow per flow
    inc = rng.integers(0, 3000, rows).astype(dtype)
    b = np.zeros(rows, dtype=dtype)
    for f in range(n_flows):
        m = flow == f
        b[m] = np.cumsum(inc[m], dtype=dtype)
    cols = {"time_s": time, "flow": flow, "delivered_bytes": b}
    if received:
        cols["received_bytes"] = b + rng.integers(0, 5, rows).astype(dtype)
    return pd.DataFrame(cols)


def flows_table(n_flows):
    return pd.DataFrame({"flow": np.arange(n_flows), "start_s": np.linspace(0, 0.5, n_flows),
                         "delivered_bytes": np.arange(n_flows, dtype=np.uint64) * 1000})


def same(a, b):
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    # bit-identical numbers, not close ones
    assert np.array_equal(a[~np.isnan(a)], b[~np.isnan(b)])


@pytest.mark.parametrize("seed", range(12))
def test_matches_reference_on_random_traces(seed):
    rng = np.random.default_rng(seed)
    n_flows = int(rng.integers(1, 60))
    rows = int(rng.integers(0, 400))
    received = bool(seed % 3)
    dtype = np.uint64 if seed % 2 else np.int64
    d = random_trace(rng, n_flows, rows, received=received, dtype=dtype)
    if seed % 4 == 0:  # rows in no particular order
        d = d.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    flows = flows_table(n_flows)
    for warm in (0.0, 0.2, 0.5, 0.99, 2.0):
        same(_flow_throughput(d, flows, warm, 1.0), reference_throughput(d, flows, warm, 1.0))


def test_no_trace_and_empty_trace_use_whole_run():
    flows = flows_table(5)
    empty = pd.DataFrame({"time_s": [], "flow": [], "received_bytes": []})
    for d in (None, empty):
        same(_flow_throughput(d, flows, 0.2, 1.0), reference_throughput(d, flows, 0.2, 1.0))


def test_flows_without_samples_after_warmup_are_nan():
    d = pd.DataFrame({"time_s": [0.1, 0.3, 0.4, 0.1, 0.5, 0.6, 0.6], "flow": [0, 0, 0, 1, 1, 2, 2],
                      "received_bytes": np.array([0, 10, 30, 0, 5, 7, 9], dtype=np.uint64)})
    got = _flow_throughput(d, flows_table(4), 0.2, 1.0)
    # flow 0: two samples; flow 1: one; flow 2: two at the same time; flow 3: none
    assert got[0] == pytest.approx((30 - 10) * 8 / 0.1)
    assert np.isnan(got[1:]).all()


RUNS = [
    {"topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4, "buffer_pkts": 60},
     "aqm": {"kind": "drop_tail"}, "flows": {"count": 7, "cc": "new_reno", "start_jitter_s": 2e-3},
     "until_s": 0.02, "seed": 3},
    {"topology": {"kind": "dumbbell", "bottleneck_bps": 10e9, "rtt_s": 1e-4},
     "aqm": {"kind": "threshold", "k_pkts": 65}, "flows": {"count": 3, "cc": "dctcp", "start_jitter_s": 5e-3},
     "until_s": 0.02, "seed": 5},
]


@pytest.mark.parametrize("scenario", RUNS)
def test_real_runs_summary_matches_reference(scenario):
    res = cc.simulate(scenario, record=["delivered", "queue", "link"])
    d = res.traces["delivered"]
    assert d["flow"].nunique() == len(res.flows) and len(d) > len(res.flows)
    warm, end = res.summary["warmup_s"], res.summary["sim_time_s"]
    ref = reference_throughput(d, res.flows, warm, end)
    same(res.flows["throughput_bps"].to_numpy(), ref)
    same(np.array(res.summary["flow_throughput_bps"], dtype=float), ref)
    assert np.isfinite(ref).all()


def test_scenario_json_is_laid_out_for_reading_and_round_trips(tmp_path):
    # save() wrote scenario.json with json.dumps(indent=2), whose pure-Python encoder took seconds
    # at 10^5 flows; dumps_readable keeps the same data with one item per line
    import json

    import ccscope as cc
    from ccscope.result import dumps_readable
    sc = cc.scenario.periodic(clients=40)
    text = dumps_readable(sc)
    assert json.loads(text) == sc
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert any(line.strip().startswith('{"cc": "reno", "dst": "D39"') for line in lines)  # a flow per line
    tricky = {"z": [{"s": "a}, {b"} for _ in range(30)], "a": [], "n": {"k": [1, 2]}}
    assert json.loads(dumps_readable(tricky)) == tricky  # a string holding the item separator
    r = cc.simulate(cc.scenario.dumbbell(senders=2, bottleneck_bps=1e9, rtt_s=100e-6), until_s=0.001)
    r.save(tmp_path / "run")
    assert cc.load(tmp_path / "run").scenario == r.scenario
