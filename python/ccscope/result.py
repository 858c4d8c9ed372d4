"""Run results: `SimResult` with trace DataFrames (units in column names), per-flow and
per-port tables, a summary, the expanded scenario and run metadata; `save()` writes Parquet
atomically (temporary directory renamed into place) and `load()` reads it back.

Event-driven traces (drops, the every-change queue, feedback) may be spilled: the engine wrote
their rows to chunk files (format: `crates/ccscope-core/src/record/mod.rs`) in a directory the
result owns (removed with it). `SimResult.traces` then loads such a trace on first access when it
fits the memory budget, `SimResult.trace_chunks(name)` reads it chunk by chunk, and `save()`
streams it into Parquet one row group per chunk."""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import weakref
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

EVENT_NAMES = {0: "drop_overflow", 1: "drop_aqm", 2: "mark"}
#: Categories of the feedback trace's event column.
FEEDBACK_EVENTS = ["sent", "applied"]
#: Categories of the pfc trace's event column (a PFC frame reaching the port it acts on).
PFC_EVENTS = ["pause", "resume"]
#: Fraction of the run treated as warm-up by the summary (FIGURES.md measurement conventions).
WARMUP_FRACTION = 0.2
#: The tables of a result besides its traces, in the order `save` writes them.
_TABLES = ("flows", "ports", "rounds")
#: tables a run has only for some scenarios (`classes`: ports with traffic classes, `[sched]`); saved when present
_OPTIONAL_TABLES = ("classes",)


class SimResult:
    """What `ccscope.simulate` returns.

    traces:  dict of DataFrames: queue, link, cwnd, alpha, delivered, drops, rate, feedback, pfc (as recorded)
    flows:   one row per flow (cc, start_s, fct_s, throughput_bps, retransmits, ...)
    ports:   one row per port (rate, bytes sent, drops, marks, mean/max queue, utilization)
    summary: headline metrics (bottleneck_utilization, queue_mean_pkts, queue_p99_pkts, ...)
    scenario: the expanded scenario (plain data);  meta: version, seed, wall time, events/s
    rounds:  completed incast rounds: workload, round, start_s, end_s, completion_s

    A result of a run holds the engine's columns and makes each DataFrame on first access
    (pandas is imported then, not before): the summary is computed from the columns, and
    `save()` writes the tables not yet accessed straight from them with pyarrow, into the same
    files as the DataFrames give (tests/test_result_io_direct.py compares them byte for byte).
    """

    def __init__(self, traces: "dict[str, pd.DataFrame]", flows: "pd.DataFrame", ports: "pd.DataFrame",
                 summary: dict[str, Any], scenario: dict, meta: Optional[dict[str, Any]] = None,
                 rounds: "Optional[pd.DataFrame]" = None, classes: "Optional[pd.DataFrame]" = None):
        self._traces = traces
        self._flows = flows
        self._ports = ports
        self._rounds = rounds
        self._classes = classes
        self.summary = summary
        self.scenario = scenario
        self.meta = {} if meta is None else meta
        #: the engine's columns of the tables not made into DataFrames yet ("traces": {name: columns},
        #: "flows", "ports", "rounds", "port_names"), filled by `build_result`
        self._cols: dict[str, Any] = {}

    @classmethod
    def _from_columns(cls, traces: Optional["Traces"], cols: dict, summary: dict, scenario: dict,
                      meta: dict) -> "SimResult":
        res = cls(traces, None, None, summary, scenario, meta, None)  # type: ignore[arg-type]
        res._cols = cols
        return res

    @property
    def traces(self) -> "dict[str, pd.DataFrame]":
        if self._traces is None:
            names = self._cols["port_names"]
            self._traces = {n: _trace_frame(n, c, names) for n, c in self._cols.pop("traces").items()}
        return self._traces

    @traces.setter
    def traces(self, value) -> None:
        self._cols.pop("traces", None)
        self._traces = value

    def _table(self, key: str) -> "pd.DataFrame":
        df = getattr(self, "_" + key)
        if df is None:
            import pandas as pd
            cols = self._cols.pop(key, None)
            df = pd.DataFrame(cols if cols is not None else {})
            setattr(self, "_" + key, df)
        return df

    def _set_table(self, key: str, df) -> None:
        self._cols.pop(key, None)
        setattr(self, "_" + key, df)

    flows = property(lambda self: self._table("flows"), lambda self, v: self._set_table("flows", v))
    ports = property(lambda self: self._table("ports"), lambda self, v: self._set_table("ports", v))
    rounds = property(lambda self: self._table("rounds"), lambda self, v: self._set_table("rounds", v))
    #: per port with traffic classes (`[sched]`) and class: arrivals, tx_pkts, tx_bytes, drops, marks, max_q_pkts
    #: (empty when no port has classes)
    classes = property(lambda self: self._table("classes"), lambda self, v: self._set_table("classes", v))

    def _column(self, table: str, name: str) -> list:
        """Column `name` of table `table` ("flows", "ports" or a trace) as a list, without making
        the DataFrame when it has not been made yet."""
        tables = _TABLES + _OPTIONAL_TABLES
        lazy = self._cols.get(table) if table in tables else (self._cols.get("traces") or {}).get(table)
        if lazy is not None:
            return list(lazy[name])
        if isinstance(self._traces, Traces) and table in self._traces._lazy:
            return list(self._traces._lazy[table][name])
        df = getattr(self, table) if table in tables else self.traces[table]
        return df[name].tolist()

    def _has_trace(self, name: str) -> bool:
        return name in (self._cols["traces"] if self._traces is None else self._traces)

    def truncated_rows(self) -> list[dict]:
        """The rows of `traces["truncated"]` (which event traces stopped early) as dicts; [] when
        none did. Reads the engine's columns when the traces were not made into DataFrames."""
        if not self._has_trace("truncated"):
            return []
        lazy = (self._cols.get("traces") or {}).get("truncated")
        if lazy is None and isinstance(self._traces, Traces):
            lazy = self._traces._lazy.get("truncated")
        if lazy is None:
            return self.traces["truncated"].to_dict("records")
        n = _rows(lazy)
        return [{k: (v[i].item() if isinstance(v, np.ndarray) else v[i]) for k, v in lazy.items()} for i in range(n)]

    def __reduce__(self):  # pickled with every table made (Traces pickles as a plain dict)
        return (SimResult, (self.traces, self.flows, self.ports, self.summary, self.scenario, self.meta,
                            self.rounds, self.classes))

    def __repr__(self) -> str:  # a few lines: scenario, duration, flows, traces with row counts, headline
        from ccscope._repr import sim_text
        return sim_text(self)

    def _repr_html_(self) -> str:  # Jupyter: the headline as a table and a small plot of the queue
        from ccscope._repr import sim_html
        return sim_html(self)

    @property
    def success(self) -> bool:
        return True

    def slowdown(self, *, bins: int = 10, edges_bytes=None, size_cdf=None, percentiles=(50, 95, 99),
                 by: Optional[str] = None) -> "pd.DataFrame":
        """FCT slowdown (fct_s / ideal_fct_s, docs/workloads.md) of the completed flows in flow-size
        bins: 10 bins of equal share of the workload's sizes by default, with p50/p95/p99 per bin
        (`ccscope.analysis.slowdown_stats`, which documents the arguments)."""
        from ccscope.analysis.metrics import slowdown_stats
        return slowdown_stats(self, bins=bins, edges_bytes=edges_bytes, size_cdf=size_cdf,
                              percentiles=percentiles, by=by)

    def queue_cdf(self, *, port: Optional[str] = None, unit: str = "pkts", start_s: Optional[float] = None,
                  end_s: Optional[float] = None) -> "pd.DataFrame":
        """Time-weighted CDF of the queue at `port` (default: the bottleneck) after the warm-up
        (`ccscope.analysis.queue_cdf`)."""
        from ccscope.analysis.metrics import queue_cdf
        return queue_cdf(self, port=port, unit=unit, start_s=start_s, end_s=end_s)

    def trace_chunks(self, name: str) -> "Iterator[pd.DataFrame]":
        """The trace `name` as DataFrames of at most one chunk each (a spilled trace: its chunks
        read one at a time from disk, then the rows kept in memory; any other trace: the whole
        DataFrame once). Concatenated in order, they are `traces[name]`; use this for a spilled
        trace too large to load whole."""
        sp = self.traces.spilled(name) if isinstance(self.traces, Traces) else None
        if sp is None:
            if name not in self.traces:
                from ccscope.errors import ResultError
                raise ResultError(f"traces[{name!r}]: no such trace (this result has {', '.join(self.traces) or 'none'})")
            yield self.traces[name]
            return
        yield from sp.chunks()

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

        Tables not yet made into DataFrames are written from the engine's columns with pyarrow
        (no pandas); the files are the same bytes as the DataFrames' `to_parquet` gives.
        Returns the directory written."""
        from ccscope import _outdir

        def fill(tmp: Path) -> None:
            (tmp / "traces").mkdir()
            names = self._cols.get("port_names")
            if self._traces is None:  # not made into DataFrames: straight from the columns
                for name, cols in self._cols["traces"].items():
                    _write_trace(tmp / "traces" / f"{name}.parquet", name, cols, names)
            else:
                tr = self._traces
                for name in tr:
                    sp = tr.spilled(name) if isinstance(tr, Traces) else None
                    lazy = tr._lazy.get(name) if isinstance(tr, Traces) else None
                    path = tmp / "traces" / f"{name}.parquet"
                    if sp is not None:  # chunk by chunk, one row group each: never the whole series in memory
                        sp.write_parquet(path)
                    elif lazy is not None:
                        _write_trace(path, name, lazy, tr._port_names)
                    else:
                        tr[name].to_parquet(path, index=False)
            for key in _TABLES + _OPTIONAL_TABLES:
                path = tmp / f"{key}.parquet"
                if key in _OPTIONAL_TABLES and not (self._cols.get(key) or (getattr(self, "_" + key) is not None
                                                                            and len(getattr(self, key)))):
                    continue  # a table this run does not have
                if getattr(self, "_" + key) is None:
                    _write_columns(path, self._cols.get(key), {}, lambda key=key: self._table(key))
                else:
                    getattr(self, key).to_parquet(path, index=False)
            (tmp / "summary.json").write_text(json.dumps(_jsonable(self.summary), indent=2, sort_keys=True) + "\n")
            (tmp / "scenario.json").write_text(dumps_readable(self.scenario) + "\n")
            (tmp / "meta.json").write_text(json.dumps(_jsonable(self.meta), indent=2, sort_keys=True) + "\n")

        _outdir.write_dir(out_dir, _outdir.RUN, fill, force=force, protect=protect)
        return Path(out_dir)


def _rows(cols: dict) -> int:
    """Rows of a table given as columns (0 without columns)."""
    return len(next(iter(cols.values()))) if cols else 0


# ------------------------------------------------------------------ Parquet without pandas
#: pandas' codes dtype of a categorical with n categories (`coerce_indexer_dtype`): the first
#: whose maximum exceeds n
_CODE_DTYPES = (np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.int64))


def _codes_dtype(n: int) -> np.dtype:
    for dt in _CODE_DTYPES:
        if n < np.iinfo(dt).max:
            return dt
    return _CODE_DTYPES[-1]


def _pandas_version() -> Optional[str]:
    """pandas' version as `pandas.__version__` says it, without importing pandas (its version
    file); None when it cannot be read that way."""
    pd = sys.modules.get("pandas")
    if pd is not None:
        return pd.__version__
    import importlib.util
    try:
        spec = importlib.util.find_spec("pandas")
        text = (Path(spec.origin).parent / "_version_meson.py").read_text()
    except (ImportError, AttributeError, TypeError, OSError, ValueError):
        return None
    m = re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.M)
    return m.group(1) if m else None


def _bits(mask: np.ndarray):
    """An Arrow bitmap of a boolean array."""
    import pyarrow as pa
    return pa.py_buffer(np.packbits(mask, bitorder="little"))


def _arrow_array(v):
    """A numpy column or a list of str as a pyarrow array, built from buffers: `pa.array` of a
    numpy array or a list imports pandas (0.5-1 s) to check whether it is a pandas object. A
    float NaN is null, as pandas' conversion has it; None for anything else."""
    import pyarrow as pa
    if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind in "biuf":
        n = len(v)
        if v.dtype.kind == "b":
            return pa.Array.from_buffers(pa.bool_(), n, [None, _bits(v)])
        v = np.ascontiguousarray(v, dtype=v.dtype.newbyteorder("="))
        valid = None
        if v.dtype.kind == "f":
            nan = np.isnan(v)
            if nan.any():
                valid = _bits(~nan)
        return pa.Array.from_buffers(pa.from_numpy_dtype(v.dtype), n, [valid, pa.py_buffer(v)])
    if isinstance(v, list) and v and all(type(x) is str for x in v):
        data = [x.encode("utf-8") for x in v]
        offsets = np.zeros(len(data) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in data], out=offsets[1:])
        return pa.Array.from_buffers(pa.large_string(), len(data), [None, pa.py_buffer(offsets),
                                                                    pa.py_buffer(b"".join(data))])
    return None


def _arrow_table(cols: dict, cats: dict):
    """A pyarrow Table of `cols` (numpy arrays, lists of str) equal to what
    `pa.Table.from_pandas(pd.DataFrame(cols) with cats as categoricals, preserve_index=False)`
    gives, pandas metadata included, or None for anything outside what the engine's columns
    hold (the caller then goes through pandas): `cats` maps a column of codes to its categories."""
    import pyarrow as pa
    version = _pandas_version()
    if version is None or not cols:
        return None
    n = _rows(cols)
    arrays, meta = [], []
    for name, v in cols.items():
        if not isinstance(name, str) or len(v) != n:
            return None
        if name in cats:
            categories = [str(c) for c in cats[name]]
            codes = np.asarray(v)
            if codes.dtype.kind not in "ui" or not categories or \
                    (len(codes) and (codes.min() < 0 or codes.max() >= len(categories))):
                return None  # pandas refuses such codes: let it say so
            dt = _codes_dtype(len(categories))
            arr = pa.DictionaryArray.from_arrays(_arrow_array(codes.astype(dt)), _arrow_array(categories))
            info = ("categorical", dt.name, {"num_categories": len(categories), "ordered": False})
        else:
            arr = _arrow_array(v)
            if arr is None:
                return None
            info = ("object", "str", None) if isinstance(v, list) else (v.dtype.name, v.dtype.name, None)
        arrays.append(arr)
        meta.append({"name": name, "field_name": name, "pandas_type": info[0], "numpy_type": info[1],
                     "metadata": info[2]})
    pandas_meta = {"index_columns": [], "column_indexes": [], "columns": meta, "attributes": {},
                   "creator": {"library": "pyarrow", "version": pa.__version__}, "pandas_version": version}
    return pa.Table.from_arrays(arrays, names=list(cols), metadata={b"pandas": json.dumps(pandas_meta).encode("utf8")})


def _write_columns(path: Path, cols: Optional[dict], cats: dict, frame) -> None:
    """Write a table given as columns to Parquet with pyarrow; `frame()` makes its DataFrame for
    what `_arrow_table` leaves to pandas (no columns, an empty text column)."""
    t = _arrow_table(cols, cats) if cols is not None else None
    if t is None:
        frame().to_parquet(path, index=False)
        return
    import pyarrow.parquet as pq
    pq.write_table(t, str(path), compression="snappy")


def _write_trace(path: Path, name: str, cols: dict, port_names: list) -> None:
    cols2, cats = _trace_columns(name, cols, port_names)
    _write_columns(path, cols2, cats, lambda: _trace_frame(name, cols, port_names))


#: numpy dtypes of the chunk storage codes (`Dtype::code` in the engine); "ps" is u64
#: picoseconds, turned into f64 seconds exactly as the engine does (`ps as f64 / 1e12`).
_CHUNK_DTYPES = {"f8": np.dtype("<f8"), "u8": np.dtype("<u8"), "u4": np.dtype("<u4"), "u1": np.dtype("u1"),
                 "ps": np.dtype("<u8")}
_CHUNK_MAGIC = b"CCSPILL1"
_PS_PER_S = np.float64(1e12)
#: Copies of a loaded row the budget check counts (as the engine's estimate: its column, the
#: DataFrame being built, and one temporary).
_LOAD_COPIES = 3


def _trace_columns(name: str, cols: dict, port_names: list) -> tuple[dict, dict]:
    """A trace's columns as its table holds them, and its categoricals ({column: categories}):
    the port (codes into the result's ports) and the event of drops and feedback; the drops'
    is_ack as booleans."""
    cats = {}
    if "port" in cols:
        cats["port"] = port_names
    if name == "drops":
        cats["event"] = [EVENT_NAMES[i] for i in range(3)]
        cols = {**cols, "is_ack": np.asarray(cols["is_ack"]).astype(bool)}
    if name == "feedback":
        cats["event"] = FEEDBACK_EVENTS
    if name == "pfc":
        cats["event"] = PFC_EVENTS
    return cols, cats


def _trace_frame(name: str, cols: dict, port_names: list) -> "pd.DataFrame":
    """A trace table from the engine's columns: ports and events as categoricals."""
    import pandas as pd
    cols, cats = _trace_columns(name, cols, port_names)
    df = pd.DataFrame(cols)
    for col, categories in cats.items():
        df[col] = pd.Categorical.from_codes(df[col].astype(np.int64), dtype=pd.CategoricalDtype(categories))
    return df


def _read_chunk(path: str, columns: list, rows: int) -> dict:
    """The columns of one chunk file, as the engine's in-memory columns would be."""
    from ccscope.errors import ResultError
    width = sum(_CHUNK_DTYPES[c].itemsize for _, c in columns)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ResultError(f"{path}: spilled trace chunk cannot be read ({e.strerror or e}); "
                          "it lives as long as the result that wrote it") from None
    if raw[:8] != _CHUNK_MAGIC or len(raw) != 16 + rows * width \
            or int.from_bytes(raw[8:16], "little") != rows:
        raise ResultError(f"{path}: damaged spilled trace chunk ({len(raw)} bytes; expected {16 + rows * width} "
                          f"for {rows} rows)")
    out, at = {}, 16
    for name, code in columns:
        dt = _CHUNK_DTYPES[code]
        v = np.frombuffer(raw, dtype=dt, count=rows, offset=at)
        at += rows * dt.itemsize
        out[name] = v.astype(np.float64) / _PS_PER_S if code == "ps" else v.astype(dt.newbyteorder("="))
    return out


class SpilledTrace:
    """A trace whose rows are partly in chunk files: its segments in order (files, and slices of
    the rows the engine kept in memory)."""

    def __init__(self, name: str, manifest: dict, tail: dict, port_names: list, budget_bytes: int):
        self.name = name
        self.columns = [tuple(c) for c in manifest["columns"]]
        self.segments = [tuple(s) for s in manifest["segments"]]
        self.rows = int(manifest["rows"])
        self._tail = tail
        self.port_names = list(port_names)
        self.budget_bytes = int(budget_bytes)

    @property
    def row_bytes(self) -> int:
        return sum(8 if c == "ps" else _CHUNK_DTYPES[c].itemsize for _, c in self.columns)

    @property
    def files(self) -> list[str]:
        return [s[1] for s in self.segments if s[0] == "file"]

    def raw_chunks(self) -> Iterator[dict]:
        for kind, where, rows in self.segments:
            if kind == "file":
                yield _read_chunk(where, self.columns, int(rows))
            else:
                yield {c: v[int(where):int(where) + int(rows)] for c, v in self._tail.items()}

    def chunks(self) -> "Iterator[pd.DataFrame]":
        for cols in self.raw_chunks():
            yield _trace_frame(self.name, cols, self.port_names)

    def load(self) -> "pd.DataFrame":
        """The whole trace, when it fits the memory budget; else a ResultError naming it."""
        return _trace_frame(self.name, self.load_columns(), self.port_names)

    def load_columns(self) -> dict:
        """The whole trace as the engine's columns, when it fits the memory budget; else a
        ResultError naming it."""
        from ccscope.errors import ResultError
        need = self.rows * self.row_bytes * _LOAD_COPIES
        if need > self.budget_bytes:
            raise ResultError(
                f"traces[{self.name!r}]: {self.rows:,} rows spilled to disk need about {_fmt_bytes(need)} to load, "
                f"beyond the memory budget {_fmt_bytes(self.budget_bytes)}; read it chunk by chunk with "
                f"result.trace_chunks({self.name!r}), or save() it (streamed to Parquet)")
        parts = list(self.raw_chunks())
        return {c: np.concatenate([p[c] for p in parts]) if parts else self._tail[c][:0] for c in self._tail}

    def write_parquet(self, path: Path) -> None:
        """Stream the trace into one Parquet file, a row group per chunk; the same table as
        `load().to_parquet(path, index=False)` gives. Each chunk goes from its columns to pyarrow
        directly (as `pa.Table.from_pandas` of its DataFrame would give it)."""
        import pyarrow as pa
        import pyarrow.parquet as pq
        writer = None
        try:
            for raw in self.raw_chunks():
                t = _arrow_table(*_trace_columns(self.name, raw, self.port_names))
                if t is None:
                    t = pa.Table.from_pandas(_trace_frame(self.name, raw, self.port_names), preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(str(path), t.schema)
                writer.write_table(t.cast(writer.schema) if t.schema != writer.schema else t)
        finally:
            if writer is not None:
                writer.close()


def _fmt_bytes(b: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or unit == "TiB":
            return f"{b:.1f} {unit}" if unit != "B" else f"{int(b)} B"
        b /= 1024
    return f"{b:.1f} TiB"


def _remove_tree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


class Traces(MutableMapping):
    """`SimResult.traces`: a dict of DataFrames by trace name, where a spilled trace is read from
    its chunks on first access (when it fits the memory budget; else a ResultError pointing at
    `SimResult.trace_chunks`). Owns the spill directory: removed when this mapping is garbage
    collected or at interpreter exit. Pickled (or deep-copied) as a plain dict, every trace loaded."""

    def __init__(self, frames: dict, spilled: Optional[dict] = None, spill_dir: Optional[str] = None,
                 lazy: Optional[dict] = None, port_names: Optional[list] = None):
        # frames[name] is None for a trace not made yet: spilled (read from its chunks) or in
        # `lazy`, the engine's columns (made into a DataFrame with `port_names`)
        self._frames: dict[str, Optional[pd.DataFrame]] = dict(frames)
        self._spilled: dict[str, SpilledTrace] = dict(spilled or {})
        self._lazy: dict[str, dict] = dict(lazy or {})
        self._port_names = list(port_names or [])
        self.spill_dir = spill_dir
        self._cleanup = weakref.finalize(self, _remove_tree, spill_dir) if spill_dir else None

    def spilled(self, name: str) -> Optional[SpilledTrace]:
        """The spill record of trace `name` (None: it is held in memory)."""
        return self._spilled.get(name)

    def __getitem__(self, name: str) -> "pd.DataFrame":
        df = self._frames[name]
        if df is None:
            if name in self._spilled:
                df = self._spilled[name].load()
            else:
                df = _trace_frame(name, self._lazy.pop(name), self._port_names)
            self._frames[name] = df
        return df

    def __setitem__(self, name: str, df: "pd.DataFrame") -> None:
        self._spilled.pop(name, None)
        self._lazy.pop(name, None)
        self._frames[name] = df

    def __delitem__(self, name: str) -> None:
        del self._frames[name]
        self._spilled.pop(name, None)
        self._lazy.pop(name, None)

    def __iter__(self):
        return iter(self._frames)

    def __len__(self) -> int:
        return len(self._frames)

    def __contains__(self, name: object) -> bool:
        return name in self._frames

    def __repr__(self) -> str:
        parts = [f"{n!r}: <{self._spilled[n].rows} rows, spilled>" if self._frames[n] is None and n in self._spilled
                 else f"{n!r}: <{_rows(self._lazy[n]) if n in self._lazy else len(self._frames[n])} rows>"
                 for n in self._frames]
        return "Traces({" + ", ".join(parts) + "})"

    def __reduce__(self):
        return (dict, (dict(self.items()),))

    def close(self) -> None:
        """Remove the spill directory now (spilled traces not loaded become unreadable)."""
        if self._cleanup is not None:
            self._cleanup()


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
    "traces/pfc.parquet": ("time_s", "port", "class", "event", "quanta"),
    # which event traces stopped early (a `reason` and `detail` since spilling; not required)
    "traces/truncated.parquet": ("series", "rows_kept", "rows_left_out", "cap_rows"),
}
#: Columns of text (names, categories); every other required column must be numeric.
_TEXT_COLUMNS = {"cc", "name", "port", "event", "series"}
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


def _read_table(d: Path, rel: str, *, required: bool = True) -> "Optional[pd.DataFrame]":
    """A Parquet table of a result, with its required columns (REQUIRED_COLUMNS) checked."""
    import pandas as pd

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
    import pandas as pd

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
    classes = _read_table(d, "classes.parquet", required=False)
    names = ports["name"]
    if names.isna().any() or names.duplicated().any():
        raise ResultError(f"{d / 'ports.parquet'}: column name must hold one distinct name per port")
    # Parquet keeps a categorical's categories only where values use them: restore them (an
    # empty table, e.g. no feedback frames, would otherwise come back with none)
    port_cat = pd.CategoricalDtype([str(n) for n in names])
    event_cats = {"drops": [EVENT_NAMES[i] for i in range(3)], "feedback": ["sent", "applied"], "pfc": PFC_EVENTS}
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
                     rounds=rounds if rounds is not None else pd.DataFrame(),
                     classes=classes if classes is not None else pd.DataFrame())


def build_result(raw: dict, *, wall_s: float, version: str, partial: bool = False,
                 end_s: Optional[float] = None, spill_dir: Optional[str] = None) -> SimResult:
    """Turn the engine's column dicts into a result and compute the summary (numpy only: the
    DataFrames are made on first access).

    partial: the run was interrupted before its end (`end_s`, the scheduled end): the summary
    covers [warm-up, the simulated time reached] like a run asked to stop there, and `meta`
    says so (partial = True, interrupted_at_s, scheduled_end_s).
    spill_dir: where the engine spilled event traces (`raw["spilled"]`); the result's traces
    own it from here on.
    """
    tables = raw["tables"]
    ports = dict(tables.pop("ports"))
    ports["recorded"] = np.asarray(ports["recorded"]).astype(bool)
    flows = dict(tables.pop("flows"))
    rounds = tables.pop("rounds", None)
    classes = tables.pop("classes", None)
    port_names = list(ports["name"])
    manifests = raw.get("spilled") or {}
    budget = int(raw.get("max_memory_bytes") or 0)
    spilled = {name: SpilledTrace(name, manifests[name], cols, port_names, budget)
               for name, cols in tables.items() if name in manifests}
    memory = {name: cols for name, cols in tables.items() if name not in manifests}
    traces = None
    if spilled:
        traces = Traces(dict.fromkeys(tables), spilled, spill_dir, lazy=memory, port_names=port_names)

    def trace(name: str) -> Optional[dict]:  # a trace's columns, a spilled one loaded (within the budget)
        return spilled[name].load_columns() if name in spilled else memory.get(name)

    scenario = json.loads(raw["scenario_json"])
    sim_time = float(raw["sim_time_s"])
    warm, warm_rule = _warmup(scenario, sim_time)
    flows["throughput_bps"] = _throughput(trace("delivered"), flows["start_s"], flows["delivered_bytes"], warm, sim_time)
    _add_slowdown(flows, raw.get("ideal_fct_s"))
    _add_sender_fct(flows, raw.get("fct_sender_s"), raw.get("ideal_fct_sender_s"))
    queue = spilled.get("queue") or memory.get("queue")
    summary = _summary(trace("link") if "link" in tables else None, queue, flows, ports, port_names, warm, sim_time,
                       (scenario.get("record") or {}).get("ports") or [])
    summary["warmup_rule"] = warm_rule
    summary.update(_completion_summary(flows, rounds))
    summary["events"] = int(raw["events"])
    summary["wall_s"] = wall_s
    summary["events_per_s"] = raw["events"] / wall_s if wall_s > 0 else float("nan")
    meta = {"ccscope_version": version, "seed": scenario.get("seed"), "wall_s": wall_s, "events": int(raw["events"]),
            "events_per_s": summary["events_per_s"], "sim_time_s": sim_time, "ledger": raw["ledger"],
            "partial": bool(partial)}
    if partial:
        meta["interrupted_at_s"] = sim_time
        meta["scheduled_end_s"] = end_s
    cols = {"flows": flows, "ports": ports, "rounds": rounds, "classes": classes, "port_names": port_names}
    if traces is None:
        cols["traces"] = memory
    return SimResult._from_columns(traces, cols, summary, scenario, meta)


def _add_slowdown(flows: dict, ideal: Optional[Any]) -> None:
    """Add `ideal_fct_s` (the engine's ideal FCT of each flow alone on the empty fabric,
    docs/workloads.md) and `slowdown` = fct_s / ideal_fct_s (NaN for a flow that did not
    complete or has no size) to the flows columns."""
    n = len(flows["fct_s"])
    ideal_arr = np.full(n, np.nan) if ideal is None else np.asarray(ideal, dtype=float)
    if len(ideal_arr) != n:  # not from this engine's output: leave the metric out rather than misalign it
        ideal_arr = np.full(n, np.nan)
    fct = np.asarray(flows["fct_s"], dtype=float)
    flows["ideal_fct_s"] = ideal_arr
    with np.errstate(invalid="ignore", divide="ignore"):
        flows["slowdown"] = np.where(ideal_arr > 0, fct / np.where(ideal_arr > 0, ideal_arr, 1.0), np.nan)


def _add_sender_fct(flows: dict, fct: Optional[Any], ideal: Optional[Any]) -> None:
    """Add the sender-side end point (docs/workloads.md, "Sender-side FCT"): `fct_sender_s`
    (from the flow's start until an ACK first acknowledged its last byte at the sender; NaN for
    a flow without a size, one that did not finish, and a rate-based flow that takes no ACKs),
    `ideal_fct_sender_s` (`ideal_fct_s` plus one ACK's trip back over the reverse route) and
    `slowdown_sender` = fct_sender_s / ideal_fct_sender_s."""
    n = len(flows["fct_s"])

    def arr(x: Optional[Any]) -> np.ndarray:
        a = np.full(n, np.nan) if x is None else np.asarray(x, dtype=float)
        return a if len(a) == n else np.full(n, np.nan)  # not this engine's output: leave it out

    fct_arr, ideal_arr = arr(fct), arr(ideal)
    flows["fct_sender_s"] = fct_arr
    flows["ideal_fct_sender_s"] = ideal_arr
    with np.errstate(invalid="ignore", divide="ignore"):
        flows["slowdown_sender"] = np.where(ideal_arr > 0, fct_arr / np.where(ideal_arr > 0, ideal_arr, 1.0), np.nan)


def _long_lived(scenario: dict) -> bool:
    """Whether the scenario has a flow without a size (it runs to the end: a long-lived flow)."""
    tpl = scenario.get("flows") or {}
    if tpl and int(tpl.get("count") or 0) > 0 and tpl.get("size_bytes") is None:
        return True
    return any(f.get("size_bytes") is None for f in scenario.get("flow") or [])


def _warmup(scenario: dict, sim_time: float) -> tuple[float, str]:
    """Start of the summary's window and the rule that chose it.

    Long-lived flows (a flow without a size): the first WARMUP_FRACTION (20 %) of the run, where
    the start-up transient lies (FIGURES.md). Only flows with a size (incast rounds, Poisson
    arrivals, sized flows): the earliest start of a workload or flow, since each flow is measured
    whole (its FCT) and a fixed 20 % would cut off short runs' traffic (an incast of a few ms in a
    200 ms run left the window empty: 0 % utilization, throughput NaN)."""
    if _long_lived(scenario):
        return WARMUP_FRACTION * sim_time, "first 20 % of the run (long-lived flows)"
    starts = [float(w.get("start_s") or 0.0) for w in scenario.get("workload") or []]
    starts += [float(f.get("start_s") or 0.0) for f in scenario.get("flow") or []]
    tpl = scenario.get("flows") or {}
    if tpl and int(tpl.get("count") or 0) > 0:
        starts.append(float(tpl.get("start_s") or 0.0))
    if not starts:
        return WARMUP_FRACTION * sim_time, "first 20 % of the run (no flows)"
    return min(min(starts), sim_time), "the first workload start (flows with a size)"


def _completion_summary(flows: dict, rounds: Optional[dict]) -> dict:
    """Flow and query completion times of flows with a size (empty for long-lived flows only):
    flows_sized, flows_completed, fct_mean_s / fct_p50_s / fct_p99_s over the completed flows,
    and for incast rounds, rounds_completed and qct_mean_s / qct_p99_s (query completion time:
    request to the last response byte of a round)."""
    out: dict[str, Any] = {}
    size = np.asarray(flows.get("size_bytes", ()), dtype=float)
    sized = np.isfinite(size) & (size > 0) if len(size) else np.zeros(0, bool)
    if sized.any():
        fct = np.asarray(flows["fct_s"], dtype=float)[sized]
        done = fct[np.isfinite(fct)]
        out["flows_sized"] = int(sized.sum())
        out["flows_completed"] = int(len(done))
        for key, v in (("fct_mean_s", done.mean() if len(done) else np.nan),
                       ("fct_p50_s", np.percentile(done, 50) if len(done) else np.nan),
                       ("fct_p99_s", np.percentile(done, 99) if len(done) else np.nan)):
            out[key] = float(v)
    if rounds is not None and len(rounds.get("completion_s", ())):
        q = np.asarray(rounds["completion_s"], dtype=float)
        done = q[np.isfinite(q)]
        out["rounds_completed"] = int(len(done))
        out["qct_mean_s"] = float(done.mean()) if len(done) else float("nan")
        out["qct_p99_s"] = float(np.percentile(done, 99)) if len(done) else float("nan")
    return out


def _flow_throughput(delivered: "Optional[pd.DataFrame]", flows: "pd.DataFrame", warm: float, end: float) -> np.ndarray:
    """`_throughput` of DataFrames (the delivered trace, the flows table)."""
    d = None
    if delivered is not None and not delivered.empty:
        d = {c: delivered[c].to_numpy() for c in delivered.columns}
    return _throughput(d, flows["start_s"].to_numpy(), flows["delivered_bytes"].to_numpy(), warm, end)


def _throughput(delivered: Optional[dict], start_s, delivered_bytes, warm: float, end: float) -> np.ndarray:
    """Throughput per flow over [warm-up, end]: distinct bytes that reached the receiver (in
    any order) per second, from the delivered trace's received_bytes (whole run if absent).
    In-order goodput (delivered_bytes) can lag by a whole loss recovery and, over a window,
    exceed the link rate when a hole is filled; arrival-based throughput cannot.

    `delivered`: the trace's columns (None: not recorded); `start_s`, `delivered_bytes`: the
    flows table's columns."""
    start_s, delivered_bytes = np.asarray(start_s), np.asarray(delivered_bytes)
    out = np.full(len(start_s), np.nan)
    if delivered is None or not len(delivered.get("time_s", ())):
        span = end - start_s
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(span > 0, delivered_bytes * 8.0 / span, np.nan)
    # one pass over the trace, no per-flow Python loop: the rows at or after the warm-up,
    # stably sorted by flow (each flow's rows keep their order), then each flow's first and
    # last such row
    t = np.asarray(delivered["time_s"])
    col = "received_bytes" if "received_bytes" in delivered else "delivered_bytes"
    sel = np.flatnonzero(t >= warm)
    fl = np.asarray(delivered["flow"])[sel]
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
    b = np.asarray(delivered[col])
    ids = fl[starts[keep]][span].astype(np.int64)
    out[ids] = (b[last[span]] - b[first[span]]) * 8.0 / (t1[span] - t0[span])
    return out


def _summary(link: Optional[dict], queue, flows: dict, ports: dict, port_names: list, warm: float, end: float,
             recorded: list) -> dict:
    """The headline metrics from the engine's columns: `link` the link trace's (None: not
    recorded), `queue` the queue trace's (None: not recorded; or a SpilledTrace, read chunk by
    chunk), `flows` and `ports` the tables' (flows with throughput_bps)."""
    s: dict[str, Any] = {"sim_time_s": end, "warmup_s": warm, "flows": _rows(flows)}
    # the bottleneck is the first recorded port, in the scenario's order
    names = port_names
    if recorded:
        rec = [i for i, n in enumerate(names) if n == recorded[0]]
    else:
        rec = np.flatnonzero(ports["recorded"]).tolist()
    b = rec[0] if rec else None
    s["bottleneck_port"] = None if b is None else str(names[b])
    util = float("nan")
    if b is not None and link is not None and len(link["time_s"]):
        t = np.asarray(link["time_s"])
        sel = np.flatnonzero((np.asarray(link["port"]) == b) & (t >= warm))
        if len(sel) >= 2:
            tx = np.asarray(link["tx_bytes"])
            t0, t1 = t[sel[0]], t[sel[-1]]
            util = float((tx[sel[-1]] - tx[sel[0]]) * 8.0 / (ports["rate_bps"][b] * (t1 - t0)))
    elif b is not None:
        util = float(ports["utilization"][b])
    s["bottleneck_utilization"] = util
    if b is not None and isinstance(queue, SpilledTrace):  # the every-change queue, on disk: chunk by chunk
        n, total, hist = _queue_moments(
            c["queue_pkts"][(c["port"] == b) & (c["time_s"] >= warm)] for c in queue.raw_chunks())
        s["queue_mean_pkts"] = float(np.float64(total) / n) if n else float("nan")
        s["queue_p99_pkts"] = _percentile_from_counts(hist, n, 99) if n else float("nan")
    elif b is not None and queue is not None and len(queue["time_s"]):
        q = np.asarray(queue["queue_pkts"])
        g = q[(np.asarray(queue["port"]) == b) & (np.asarray(queue["time_s"]) >= warm)]
        s["queue_mean_pkts"] = float(g.mean()) if len(g) else float("nan")
        s["queue_p99_pkts"] = float(np.percentile(g, 99)) if len(g) else float("nan")
    else:
        s["queue_mean_pkts"] = float(ports["mean_queue_pkts"][b]) if b is not None else float("nan")
        s["queue_p99_pkts"] = float("nan")
    s["queue_time_avg_pkts_whole_run"] = float(ports["mean_queue_pkts"][b]) if b is not None else float("nan")
    s["drops"] = int(np.asarray(ports["drops_overflow"]).sum() + np.asarray(ports["drops_aqm"]).sum())
    s["marks"] = int(np.asarray(ports["marks"]).sum())
    s["flow_throughput_bps"] = [float(x) for x in flows["throughput_bps"]]
    return s


def _queue_moments(parts) -> tuple[int, int, np.ndarray]:
    """Count, exact integer sum and histogram of the queue lengths in `parts` (integer arrays)."""
    n, total, hist = 0, 0, np.zeros(0, dtype=np.int64)
    for g in parts:
        if not len(g):
            continue
        n += len(g)
        total += int(g.sum(dtype=np.uint64))
        h = np.bincount(g.astype(np.int64))
        if len(h) > len(hist):
            h[:len(hist)] += hist
            hist = h
        else:
            hist[:len(h)] += h
    return n, total, hist


def _percentile_from_counts(hist: np.ndarray, n: int, pct: float) -> float:
    """`np.percentile(values, pct)` (linear method) of the integer values counted in `hist`: the
    two order statistics around the virtual index, blended by numpy's own rule on a two-value
    array, so the number is the same bit for bit (the mean of integers below 2^53 is exact in
    both ways)."""
    cum = np.cumsum(hist)
    virtual = (n - 1) * (pct / 100.0)
    lo = int(np.floor(virtual))
    hi = min(lo + 1, n - 1)
    a = int(np.searchsorted(cum, lo, side="right"))
    b = int(np.searchsorted(cum, hi, side="right"))
    if a == b:
        return float(a)
    # numpy blends a and b with weight (virtual - lo): take that weight on the two-value array
    gamma = virtual - lo
    diff = np.float64(b - a)
    out = np.float64(a) + diff * gamma
    if gamma >= 0.5:
        out = np.float64(b) - diff * (1 - gamma)
    return float(out)
