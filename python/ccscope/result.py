"""Run results: `SimResult` with trace DataFrames (units in column names), per-flow and
per-port tables, a summary, the expanded scenario and run metadata; `save()` writes Parquet
atomically (temporary directory renamed into place) and `load()` reads it back."""
from __future__ import annotations

import json
import os
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

    def save(self, out_dir: Union[str, Path], *, force: bool = False, protect=()) -> Path:
        """Write everything under `out_dir`, staged and renamed into place, under the output rules
        of `ccscope._outdir` (docs/reliability.md):

        - a new or empty directory is written; a previous result (summary.json and meta.json) is
          replaced: only the files a result consists of are replaced or removed, any other file
          in it (the scenario file, a figure, notes) is kept;
        - a non-empty directory that is not a result raises `OutputRefused` (a FileExistsError)
          unless `force=True`, which writes the result's files into it and keeps the others;
        - an existing file at `out_dir` is always refused;
        - `protect`: paths that must survive (e.g. the scenario file): refused if one of them is
          one of the result's own entries.
        Returns the directory written."""
        from ccscope import _outdir

        def fill(tmp: Path) -> None:
            (tmp / "traces").mkdir()
            for name, df in self.traces.items():
                df.to_parquet(tmp / "traces" / f"{name}.parquet", index=False)
            self.flows.to_parquet(tmp / "flows.parquet", index=False)
            self.ports.to_parquet(tmp / "ports.parquet", index=False)
            self.rounds.to_parquet(tmp / "rounds.parquet", index=False)
            (tmp / "summary.json").write_text(json.dumps(_jsonable(self.summary), indent=2, sort_keys=True) + "\n")
            (tmp / "scenario.json").write_text(dumps_readable(self.scenario) + "\n")
            (tmp / "meta.json").write_text(json.dumps(_jsonable(self.meta), indent=2, sort_keys=True) + "\n")

        _outdir.write_dir(out_dir, _outdir.RUN, fill, force=force, protect=protect)
        return Path(out_dir)


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


#: Columns each table of a result must have (those the readers of a result use); a trace not
#: listed needs time_s. `load` refuses a file that lacks one, rather than returning NaN columns.
REQUIRED_COLUMNS = {
    "flows.parquet": ("flow", "cc", "start_s", "fct_s", "delivered_bytes"),
    "ports.parquet": ("name", "rate_bps", "drops_overflow", "drops_aqm", "marks", "mean_queue_pkts"),
    "traces/queue.parquet": ("time_s", "port", "queue_pkts"),
    "traces/link.parquet": ("time_s", "port", "tx_bytes"),
    "traces/cwnd.parquet": ("time_s", "flow", "cwnd_pkts"),
    "traces/alpha.parquet": ("time_s", "flow", "alpha"),
    "traces/delivered.parquet": ("time_s", "flow", "delivered_bytes"),
    "traces/drops.parquet": ("time_s", "port", "event"),
    "traces/rate.parquet": ("time_s", "flow", "rate_bps"),
    "traces/feedback.parquet": ("time_s", "event"),
}
#: Columns of text (names, categories); every other required column must be numeric.
_TEXT_COLUMNS = {"cc", "name", "port", "event"}
#: A value whose compact JSON is at most this long is written on one line by `dumps_readable`.
_ONE_LINE_CHARS = 120
#: A list longer than this is written one item per line without trying it on one line first.
_LONG_LIST = 16


def dumps_readable(obj: Any, indent: int = 2) -> str:
    """JSON of plain data, laid out for reading: tables are indented one key per line, and any value
    whose compact form fits in `_ONE_LINE_CHARS` stays on one line (a flow, a link, a node). Keys
    sorted. Each item of a long list is encoded once by the C encoder, so a 10^5-flow scenario takes
    a fraction of the time of `json.dumps(indent=2)` (whose indented encoder is pure Python)."""
    out: list[str] = []
    encode = json.JSONEncoder(sort_keys=True, separators=(", ", ": ")).encode  # built once: json.dumps
    # with arguments builds an encoder per call, which costs more than encoding a small item

    def big(v: Any) -> bool:  # surely longer than one line: do not encode it whole first
        if isinstance(v, list):
            return len(v) > _LONG_LIST
        return isinstance(v, dict) and any(isinstance(x, (list, dict)) and big(x) for x in v.values())

    def put(v: Any, depth: int) -> None:
        if not big(v):
            compact = encode(v)
            if len(compact) <= _ONE_LINE_CHARS or not isinstance(v, (dict, list)) or not v:
                out.append(compact)
                return
        pad, inner = " " * (indent * depth), " " * (indent * (depth + 1))
        if isinstance(v, dict):
            out.append("{\n")
            for i, k in enumerate(sorted(v)):
                out.append(f"{inner}{json.dumps(str(k))}: ")
                put(v[k], depth + 1)
                out.append(",\n" if i + 1 < len(v) else "\n")
            out.append(pad + "}")
        else:
            if all(isinstance(x, dict) and not any(isinstance(y, (list, dict)) for y in x.values()) for x in v):
                # a long list of flat tables (flows, links, nodes): encoded in one C call and cut
                # between items; a string holding the separator would add a cut, so count them
                text = encode(v)
                if text.count("}, {") == len(v) - 1:
                    out.append("[\n" + inner + text[1:-1].replace("}, {", "},\n" + inner + "{") + "\n" + pad + "]")
                    return
            out.append("[\n")
            for i, x in enumerate(v):
                out.append(inner)
                put(x, depth + 1)
                out.append(",\n" if i + 1 < len(v) else "\n")
            out.append(pad + "]")

    put(obj, 0)
    return "".join(out)


#: Sub-tables of scenario.json that readers of a result look into: each must be a JSON object.
_SCENARIO_TABLES = ("topology", "aqm", "tcp", "record", "flows")


def _regular_file(d: Path, rel: str, *, required: bool = True) -> Optional[Path]:
    """d/rel when it is a regular file; None when absent and optional; ResultError otherwise
    (a directory, FIFO or device is refused, never read: a FIFO would block)."""
    import stat
    from ccscope.errors import ResultError
    p = d / rel
    try:
        st = os.stat(p)
    except FileNotFoundError:
        if required:
            raise ResultError(f"{p}: missing; a result directory (ccscope run --out) has summary.json, "
                              "scenario.json, meta.json, flows.parquet, ports.parquet and traces/") from None
        return None
    except OSError as e:
        raise ResultError(f"{p}: cannot be read ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ResultError(f"{p}: not a regular file")
    return p


def _read_json_object(d: Path, rel: str) -> dict:
    from ccscope.errors import ResultError, shown
    p = _regular_file(d, rel)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ResultError(f"{p}: cannot be read ({e.strerror or e})") from None
    if not raw.strip():
        raise ResultError(f"{p}: empty; expected a JSON object")
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ResultError(f"{p}: not UTF-8 text (byte {e.start}); expected a JSON object") from None
    except json.JSONDecodeError as e:
        raise ResultError(f"{p}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise ResultError(f"{p}: nested too deeply; expected a JSON object") from None
    if not isinstance(obj, dict):
        raise ResultError(f"{p}: {shown(obj, 40)}: expected a JSON object, got {type(obj).__name__}")
    return obj


def _read_table(d: Path, rel: str, *, required: bool = True) -> Optional[pd.DataFrame]:
    """A Parquet table of a result, with its required columns (REQUIRED_COLUMNS) checked."""
    from ccscope.errors import ResultError, cut_message
    p = _regular_file(d, rel, required=required)
    if p is None:
        return None
    try:
        df = pd.read_parquet(p)
    except MemoryError:
        raise
    except Exception as e:  # noqa: BLE001 - pyarrow raises many kinds for a damaged file
        raise ResultError(f"{p}: not a readable Parquet table ({cut_message(str(e).splitlines()[0] if str(e) else type(e).__name__)})") from None
    need = REQUIRED_COLUMNS.get(rel, ("time_s",) if rel.startswith("traces/") else ())
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise ResultError(f"{p}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                          f"(a {Path(rel).stem} table has {', '.join(need)})")
    for c in need:
        if c not in _TEXT_COLUMNS and not (pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c])):
            raise ResultError(f"{p}: column {c} has type {df[c].dtype}; expected numbers")
    return df


def load(out_dir: Union[str, Path]) -> SimResult:
    """Read a result written by `SimResult.save` (or `ccscope run --out`).

    A damaged or incomplete directory raises `ccscope.ResultError` (a ValueError) naming the
    file and what is wrong: a missing or empty file, bytes that are not JSON/Parquet, a JSON
    value that is not an object, a table without its columns (REQUIRED_COLUMNS), a trace naming
    a port or event the result does not have."""
    from ccscope.errors import ResultError, shown
    d = Path(out_dir)
    if not d.is_dir():
        raise ResultError(f"{d}: not a ccscope result directory ({'not a directory' if d.exists() else 'no such directory'})")
    if not (d / "summary.json").exists():
        raise ResultError(f"{d}: not a ccscope result directory (no summary.json)")
    summary = _read_json_object(d, "summary.json")
    scenario = _read_json_object(d, "scenario.json")
    meta = _read_json_object(d, "meta.json")
    for key in _SCENARIO_TABLES:
        if key in scenario and not isinstance(scenario[key], dict):
            raise ResultError(f"{d / 'scenario.json'}: {key} = {shown(scenario[key], 40)}: expected a JSON object")
    tp = summary.get("flow_throughput_bps")
    if tp is not None and not (isinstance(tp, list) and all(x is None or isinstance(x, (int, float)) for x in tp)):
        raise ResultError(f"{d / 'summary.json'}: flow_throughput_bps = {shown(tp, 40)}: expected a list of numbers")
    tdir = d / "traces"
    if not tdir.is_dir():
        raise ResultError(f"{tdir}: missing; a result directory has a traces/ directory (empty when nothing was recorded)")
    traces = {p.stem: _read_table(d, f"traces/{p.name}") for p in sorted(tdir.glob("*.parquet"))}
    ports = _read_table(d, "ports.parquet")
    flows = _read_table(d, "flows.parquet")
    rounds = _read_table(d, "rounds.parquet", required=False)
    names = ports["name"]
    if names.isna().any() or names.duplicated().any():
        raise ResultError(f"{d / 'ports.parquet'}: column name must hold one distinct name per port")
    # Parquet keeps a categorical's categories only where values use them: restore them (an
    # empty table, e.g. no feedback frames, would otherwise come back with none)
    port_cat = pd.CategoricalDtype([str(n) for n in names])
    event_cats = {"drops": [EVENT_NAMES[i] for i in range(3)], "feedback": ["sent", "applied"]}
    for name, df in traces.items():
        cols = [("port", port_cat, d / "ports.parquet")] if "port" in df else []
        if name in event_cats and "event" in df:
            cols.append(("event", pd.CategoricalDtype(event_cats[name]), None))
        for col, cat, where in cols:
            if not len(df):
                df[col] = pd.Categorical([], dtype=cat)
                continue
            values = df[col].astype(str)
            unknown = sorted(set(values.unique()) - set(cat.categories))
            if unknown or df[col].isna().any():
                bad = shown(unknown[0], 40) if unknown else "a missing value"
                allowed = f"a port named in {where}" if where else ", ".join(cat.categories)
                raise ResultError(f"{tdir / (name + '.parquet')}: column {col} holds {bad}; expected {allowed}")
            df[col] = values.astype(cat)
    return SimResult(traces=traces, flows=flows, ports=ports, summary=summary, scenario=scenario, meta=meta,
                     rounds=rounds if rounds is not None else pd.DataFrame())


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
    # one pass over the trace, no per-flow Python loop: the rows at or after the warm-up,
    # stably sorted by flow (each flow's rows keep their order), then each flow's first and
    # last such row
    t = delivered["time_s"].to_numpy()
    col = "received_bytes" if "received_bytes" in delivered else "delivered_bytes"
    sel = np.flatnonzero(t >= warm)
    fl = delivered["flow"].to_numpy()[sel]
    order = np.argsort(fl, kind="stable")
    rows = sel[order]
    fl = fl[order]
    if not len(rows):
        return out
    starts = np.flatnonzero(np.r_[True, fl[1:] != fl[:-1]])
    ends = np.r_[starts[1:], len(rows)] - 1
    keep = ends > starts  # at least two samples after the warm-up
    first, last = rows[starts[keep]], rows[ends[keep]]
    t0, t1 = t[first], t[last]
    span = t1 > t0
    b = delivered[col].to_numpy()
    ids = fl[starts[keep]][span].astype(np.int64)
    out[ids] = (b[last[span]] - b[first[span]]) * 8.0 / (t1[span] - t0[span])
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
