"""A run's result is computed and saved without pandas: the summary from the engine's numpy
columns, the Parquet files straight from them with pyarrow. Both must be what the pandas path
gives: the summary bit for bit (against the DataFrame computation it replaced, kept here as the
reference), and every file byte for byte (against `DataFrame.to_parquet` of the same tables, and
for a spilled trace against the chunk-by-chunk `pa.Table.from_pandas` writer it replaced).
`ccscope run` then loads neither pandas nor matplotlib nor JAX (tests/test_cli_startup.py)."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ccscope as cc
from ccscope import sim as sim_module
from ccscope.result import _arrow_table, _percentile_from_counts, _queue_moments

ROOT = Path(__file__).resolve().parents[1]
MiB = 2 ** 20


def dctcp_all_traces(until_s=0.01):
    return {"seed": 3, "until_s": until_s,
            "topology": {"kind": "dumbbell", "bottleneck_bps": 10e9, "rtt_s": 100e-6, "buffer_pkts": 100},
            "aqm": {"kind": "threshold", "k_pkts": 20}, "flows": {"count": 3, "cc": "dctcp", "start_jitter_s": 1e-4},
            "record": {"traces": ["queue", "link", "cwnd", "alpha", "delivered", "drops"],
                       "queue_interval_s": 1e-5, "flow_interval_s": 1e-5}}


def newreno_drops(until_s=0.02):
    return {"until_s": until_s,
            "topology": {"kind": "dumbbell", "senders": 4, "bottleneck_bps": 1e9, "rtt_s": 100e-6, "buffer_pkts": 30},
            "flows": {"count": 4, "cc": "new_reno"},
            "record": {"traces": ["queue", "drops", "link"], "queue_every_change": True}}


def scenario_file(name, until_s):
    sc = cc.scenario.io.load_file(ROOT / "scenarios" / name)
    sc["until_s"] = until_s
    return sc


CASES = {
    "dctcp, every trace": lambda: cc.simulate(dctcp_all_traces()),
    "newreno, drops and every queue change": lambda: cc.simulate(newreno_drops()),
    "qcn, rate and feedback": lambda: cc.simulate(scenario_file("qcn_dumbbell.toml", 0.01),
                                                  record=["queue", "link", "rate", "drops", "feedback"]),
    "incast rounds": lambda: cc.simulate(scenario_file("incast_dctcp.toml", 0.05)),
    "a trace cut at its cap (truncated table)": lambda: cc.simulate(
        {**newreno_drops(0.1), "record": {"traces": ["queue"], "queue_every_change": True}},
        max_memory_bytes=1 * MiB, spill_dir=False),
    "no recorded traces": lambda: cc.simulate(dctcp_all_traces(), record=[]),
}


def files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*.parquet"))}


def make_all_frames(res) -> None:
    """Turn every table into a DataFrame: save() then writes them with pandas' to_parquet."""
    for name in list(res.traces):
        assert isinstance(res.traces[name], pd.DataFrame)
    for t in (res.flows, res.ports, res.rounds):
        assert isinstance(t, pd.DataFrame)


# ---- the summary as the DataFrame computation had it (the reference) --------------------------

def reference_summary(traces, flows, ports, warm, end, recorded):
    s = {"sim_time_s": end, "warmup_s": warm, "flows": int(len(flows))}
    rec = ports[ports["name"] == recorded[0]] if recorded else ports[ports["recorded"]]
    bott = rec.iloc[0] if len(rec) else None
    s["bottleneck_port"] = None if bott is None else str(bott["name"])
    link = traces.get("link")
    util = float("nan")
    if bott is not None and link is not None and not link.empty:
        g = link[link["port"] == bott["name"]]
        g = g[g["time_s"] >= warm]
        if len(g) >= 2:
            t0, t1 = g["time_s"].iloc[0], g["time_s"].iloc[-1]
            util = float((g["tx_bytes"].iloc[-1] - g["tx_bytes"].iloc[0]) * 8.0 / (bott["rate_bps"] * (t1 - t0)))
    elif bott is not None:
        util = float(bott["utilization"])
    s["bottleneck_utilization"] = util
    sp = traces.spilled("queue") if hasattr(traces, "spilled") else None
    q = None if sp is not None else traces.get("queue")
    if bott is not None and sp is not None:
        code = list(sp.port_names).index(bott["name"])
        n, total, hist = _queue_moments(
            c["queue_pkts"][(c["port"] == code) & (c["time_s"] >= warm)] for c in sp.raw_chunks())
        s["queue_mean_pkts"] = float(np.float64(total) / n) if n else float("nan")
        s["queue_p99_pkts"] = _percentile_from_counts(hist, n, 99) if n else float("nan")
    elif bott is not None and q is not None and not q.empty:
        g = q[(q["port"] == bott["name"]) & (q["time_s"] >= warm)]["queue_pkts"].to_numpy()
        s["queue_mean_pkts"] = float(g.mean()) if len(g) else float("nan")
        s["queue_p99_pkts"] = float(np.percentile(g, 99)) if len(g) else float("nan")
    else:
        s["queue_mean_pkts"] = float(bott["mean_queue_pkts"]) if bott is not None else float("nan")
        s["queue_p99_pkts"] = float("nan")
    s["queue_time_avg_pkts_whole_run"] = float(bott["mean_queue_pkts"]) if bott is not None else float("nan")
    s["drops"] = int(ports["drops_overflow"].sum() + ports["drops_aqm"].sum())
    s["marks"] = int(ports["marks"].sum())
    s["flow_throughput_bps"] = [float(x) for x in flows["throughput_bps"]]
    return s


def same_value(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("case", list(CASES))
def test_saved_files_are_the_bytes_pandas_writes(case, tmp_path, monkeypatch):
    res = CASES[case]()
    assert res._traces is None and res._flows is None  # nothing made into a DataFrame yet
    calls = []
    to_parquet = pd.DataFrame.to_parquet
    monkeypatch.setattr(pd.DataFrame, "to_parquet", lambda df, *a, **k: (calls.append(a[0]), to_parquet(df, *a, **k)))
    res.save(tmp_path / "direct")
    assert calls == []  # every file from the columns
    make_all_frames(res)
    res.save(tmp_path / "pandas")
    assert len(calls) == len(files(tmp_path / "pandas"))  # every file from a DataFrame
    direct, ref = files(tmp_path / "direct"), files(tmp_path / "pandas")
    assert sorted(direct) == sorted(ref)
    for name in ref:
        assert direct[name] == ref[name], name
    for name in ("summary.json", "meta.json", "scenario.json"):
        assert (tmp_path / "direct" / name).read_bytes() == (tmp_path / "pandas" / name).read_bytes()
    # and what load() reads back is the result's tables
    back = cc.load(tmp_path / "direct")
    assert back.flows.equals(res.flows) and back.ports.equals(res.ports)
    for name, df in res.traces.items():
        pd.testing.assert_frame_equal(back.traces[name], df, check_categorical=True)


@pytest.mark.parametrize("case", list(CASES))
def test_summary_from_columns_is_the_dataframe_summary_bit_for_bit(case):
    res = CASES[case]()
    s = dict(res.summary)
    recorded = (res.scenario.get("record") or {}).get("ports") or []
    ref = reference_summary(res.traces, res.flows, res.ports, s["warmup_s"], s["sim_time_s"], recorded)
    for k, v in ref.items():
        assert same_value(s[k], v), (k, s[k], v)
    assert list(s)[:len(ref)] == list(ref)  # same keys in the same order (`--json` prints them so)


def test_a_spilled_trace_streams_the_bytes_of_the_pandas_chunk_writer(tmp_path, monkeypatch):
    monkeypatch.setenv(sim_module.TEST_CHUNK_ROWS_ENV, "1000")
    res = cc.simulate(newreno_drops())
    sp = res.traces.spilled("queue")
    assert sp is not None and len(sp.files) >= 2
    res.save(tmp_path / "direct")
    # the writer this replaced: each chunk's DataFrame through pa.Table.from_pandas
    writer = None
    for df in res.trace_chunks("queue"):
        t = pa.Table.from_pandas(df, preserve_index=False)
        if writer is None:
            writer = pq.ParquetWriter(str(tmp_path / "ref.parquet"), t.schema)
        writer.write_table(t)
    writer.close()
    assert (tmp_path / "direct/traces/queue.parquet").read_bytes() == (tmp_path / "ref.parquet").read_bytes()
    # the in-memory traces of a spilled result are written from their columns too
    make_all_frames(res)
    res.save(tmp_path / "pandas")
    assert files(tmp_path / "direct") == files(tmp_path / "pandas")


def test_columns_pyarrow_cannot_take_as_they_are_go_through_pandas():
    # an empty text column has no type to infer: left to pandas
    assert _arrow_table({"cc": []}, {}) is None
    assert _arrow_table({"x": np.zeros((2, 2))}, {}) is None
    # codes outside the categories: pandas refuses them with its own message
    assert _arrow_table({"port": np.array([0, 3], dtype=np.uint32)}, {"port": ["a", "b"]}) is None
    t = _arrow_table({"port": np.array([1, 0], dtype=np.uint32), "v": np.array([1.0, np.nan])}, {"port": ["a", "b"]})
    assert t.column("port").to_pylist() == ["b", "a"] and t.column("v").to_pylist() == [1.0, None]


def test_truncated_rows_are_the_truncated_table():
    res = CASES["a trace cut at its cap (truncated table)"]()
    rows = res.truncated_rows()
    assert rows and rows[0]["series"] == "queue sw->r0" and rows[0]["rows_left_out"] > 0
    assert res._traces is None  # read from the columns
    assert rows == res.traces["truncated"].to_dict("records")
    assert cc.simulate(newreno_drops()).truncated_rows() == []


def test_tables_are_dataframes_on_first_access_and_keep_their_edits(tmp_path):
    res = cc.simulate(dctcp_all_traces())
    assert "pandas" in sys.modules  # this test file imported it; what matters is the result's behaviour
    flows = res.flows
    assert flows is res.flows and "throughput_bps" in flows and flows["cc"].tolist() == res._column("flows", "cc")
    flows["note"] = 1.0  # an edit made before save() is saved
    res.save(tmp_path / "r")
    assert "note" in cc.load(tmp_path / "r").flows


def test_a_result_pickles_with_its_tables():
    import pickle
    res = cc.simulate(dctcp_all_traces())
    back = pickle.loads(pickle.dumps(res))
    assert back.flows.equals(res.flows) and back.summary == res.summary
    assert sorted(back.traces) == sorted(res.traces)


def test_step_takes_one_event_at_the_time_peek_gives():
    sim = cc.Simulation(dctcp_all_traces(0.002))
    for k in range(1, 400):
        t = sim.peek()
        assert sim.step() == t and sim.events == k and sim.now_s == t
