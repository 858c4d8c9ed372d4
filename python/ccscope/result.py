"""Run results: `SimResult` with trace DataFrames (units in column names), per-flow and
per-port tables, a summary, the expanded scenario and run metadata; `save()` writes Parquet
atomically (temporary directory renamed into place) and `load()` reads it back."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

EVENT_NAMES = {0: "drop_overflow", 1: "drop_aqm", 2: "mark"}
#: Fraction of the run treated as warm-up by the summary (FIGURES.md measurement conventions).
WARMUP_FRACTION = 0.2


@dataclass
class SimResult:
    """What `ccscope.simulate` returns.

    traces:  dict of DataFrames: queue, link, cwnd, alpha, delivered, drops (as recorded)
    flows:   one row per flow (cc, start_s, fct_s, throughput_bps, retransmits, ...)
    ports:   one row per port (rate, bytes sent, drops, marks, mean/max queue, utilization)
    summary: headline metrics (bottleneck_utilization, queue_mean_pkts, queue_p99_pkts, ...)
    scenario: the expanded scenario (plain data);  meta: version, seed, wall time, events/s
    """
    traces: dict[str, pd.DataFrame]
    flows: pd.DataFrame
    ports: pd.DataFrame
    summary: dict[str, Any]
    scenario: dict
    meta: dict[str, Any] = field(default_factory=dict)
    #: completed incast rounds: workload, round, start_s, end_s, completion_s
    rounds: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def success(self) -> bool:
        return True

    def save(self, out_dir: Union[str, Path]) -> Path:
        """Write everything under `out_dir` (replaced if it exists), atomically."""
        out = Path(out_dir)
        parent = out.resolve().parent
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=parent))
        try:
            (tmp / "traces").mkdir()
            for name, df in self.traces.items():
                df.to_parquet(tmp / "traces" / f"{name}.parquet", index=False)
            self.flows.to_parquet(tmp / "flows.parquet", index=False)
            self.ports.to_parquet(tmp / "ports.parquet", index=False)
            self.rounds.to_parquet(tmp / "rounds.parquet", index=False)
            (tmp / "summary.json").write_text(json.dumps(_jsonable(self.summary), indent=2, sort_keys=True) + "\n")
            (tmp / "scenario.json").write_text(json.dumps(self.scenario, indent=2, sort_keys=True) + "\n")
            (tmp / "meta.json").write_text(json.dumps(_jsonable(self.meta), indent=2, sort_keys=True) + "\n")
            if out.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=parent))
                os.rename(out, old / "x")
                os.rename(tmp, out)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, out)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return out


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if np.isfinite(f) else None
    return obj


def load(out_dir: Union[str, Path]) -> SimResult:
    """Read a result written by `SimResult.save` (or `ccscope run --out`)."""
    d = Path(out_dir)
    if not (d / "summary.json").is_file():
        raise FileNotFoundError(f"{d}: not a ccscope result directory (no summary.json)")
    traces = {p.stem: pd.read_parquet(p) for p in sorted((d / "traces").glob("*.parquet"))}
    ports = pd.read_parquet(d / "ports.parquet")
    # Parquet keeps a categorical's categories only where values use them: restore them (an
    # empty table, e.g. no feedback frames, would otherwise come back with none)
    port_cat = pd.CategoricalDtype(list(ports["name"]))
    event_cats = {"drops": [EVENT_NAMES[i] for i in range(3)], "feedback": ["sent", "applied"]}
    for name, df in traces.items():
        if "port" in df:
            df["port"] = df["port"].astype(str).astype(port_cat) if len(df) else pd.Categorical([], dtype=port_cat)
        if name in event_cats and "event" in df:
            cat = pd.CategoricalDtype(event_cats[name])
            df["event"] = df["event"].astype(str).astype(cat) if len(df) else pd.Categorical([], dtype=cat)
    return SimResult(
        traces=traces,
        flows=pd.read_parquet(d / "flows.parquet"),
        ports=ports,
        summary=json.loads((d / "summary.json").read_text()),
        scenario=json.loads((d / "scenario.json").read_text()),
        meta=json.loads((d / "meta.json").read_text()),
        rounds=pd.read_parquet(d / "rounds.parquet") if (d / "rounds.parquet").is_file() else pd.DataFrame(),
    )


def build_result(raw: dict, *, wall_s: float, version: str, partial: bool = False,
                 end_s: Optional[float] = None) -> SimResult:
    """Turn the engine's column dicts into DataFrames and compute the summary.

    partial: the run was interrupted before its end (`end_s`, the scheduled end): the summary
    covers [warm-up, the simulated time reached] like a run asked to stop there, and `meta`
    says so (partial = True, interrupted_at_s, scheduled_end_s).
    """
    tables = raw["tables"]
    ports = pd.DataFrame(tables.pop("ports"))
    ports["recorded"] = ports["recorded"].astype(bool)
    flows = pd.DataFrame(tables.pop("flows"))
    rounds = pd.DataFrame(tables.pop("rounds", {}))
    port_names = list(ports["name"])
    cat = pd.CategoricalDtype(port_names)
    traces: dict[str, pd.DataFrame] = {}
    for name, cols in tables.items():
        df = pd.DataFrame(cols)
        if "port" in df:
            df["port"] = pd.Categorical.from_codes(df["port"].astype(np.int64), dtype=cat)
        if name == "drops":
            df["event"] = pd.Categorical.from_codes(df["event"].astype(np.int64), categories=[EVENT_NAMES[i] for i in range(3)])
            df["is_ack"] = df["is_ack"].astype(bool)
        if name == "feedback":
            df["event"] = pd.Categorical.from_codes(df["event"].astype(np.int64), categories=["sent", "applied"])
        traces[name] = df
    scenario = json.loads(raw["scenario_json"])
    sim_time = float(raw["sim_time_s"])
    warm = WARMUP_FRACTION * sim_time
    flows["throughput_bps"] = _flow_throughput(traces.get("delivered"), flows, warm, sim_time)
    summary = _summary(traces, flows, ports, warm, sim_time, (scenario.get("record") or {}).get("ports") or [])
    summary["events"] = int(raw["events"])
    summary["wall_s"] = wall_s
    summary["events_per_s"] = raw["events"] / wall_s if wall_s > 0 else float("nan")
    meta = {"ccscope_version": version, "seed": scenario.get("seed"), "wall_s": wall_s, "events": int(raw["events"]),
            "events_per_s": summary["events_per_s"], "sim_time_s": sim_time, "ledger": raw["ledger"],
            "partial": bool(partial)}
    if partial:
        meta["interrupted_at_s"] = sim_time
        meta["scheduled_end_s"] = end_s
    return SimResult(traces=traces, flows=flows, ports=ports, summary=summary, scenario=scenario, meta=meta, rounds=rounds)


def _flow_throughput(delivered: Optional[pd.DataFrame], flows: pd.DataFrame, warm: float, end: float) -> np.ndarray:
    """Throughput per flow over [warm-up, end]: distinct bytes that reached the receiver (in
    any order) per second, from the delivered trace's received_bytes (whole run if absent).
    In-order goodput (delivered_bytes) can lag by a whole loss recovery and, over a window,
    exceed the link rate when a hole is filled; arrival-based throughput cannot."""
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


def _summary(traces: dict, flows: pd.DataFrame, ports: pd.DataFrame, warm: float, end: float,
             recorded: list) -> dict:
    s: dict[str, Any] = {"sim_time_s": end, "warmup_s": warm, "flows": int(len(flows))}
    # the bottleneck is the first recorded port, in the scenario's order
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
    q = traces.get("queue")
    if bott is not None and q is not None and not q.empty:
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
