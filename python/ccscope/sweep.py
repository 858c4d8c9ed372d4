"""Sweeps: a base scenario and a grid of overrides -> many runs -> one summary DataFrame.

Place in the pipeline: above `simulate` (one run) and `simulate_many` (one batch). A sweep
  1. expands a grid (dotted scenario path -> list of values, Cartesian product, first key
     slowest) times a list of seeds (`seeds=3`: the scenario's seed and two derived from it;
     replicate j uses the same seed at every grid point: common random numbers);
  2. gives every point a content address: sha256 of the canonical resolved scenario (every
     default filled in by the engine), `until_s`, `record`, the seed and the ccscope version;
  3. skips points whose address is already finished under `out/points/`, runs the others
     in a local thread pool (`jobs`) or on Dask (`scheduler=` address, or `dask_local=N`
     workers on a LocalCluster bound to 127.0.0.1), each point writing its own result
     directory `out/points/<address[:16]>/` (SimResult.save + point.json, renamed into
     place only when complete, so an interrupted sweep resumes where it stopped). point.json,
     written last, records the size and sha256 of every file of the point and a digest of
     itself: a point is reused only when all of them still match (`check_point`), otherwise it
     is recomputed and the reason reported; `verify_sweep` checks a whole directory;
  4. writes `out/summary.parquet`: one row per point, in point order: the parameters,
     seed, address, status/error, and the run's headline metrics.
Ctrl-C stops a sweep within a fraction of a second whatever `jobs`: points on worker threads
run in slices of simulated time and look at a stop flag between them (signals reach only the
main thread); on Dask a `distributed.Event` plays that flag. Finished points stay, stopped ones
leave nothing, and `SweepInterrupted` says how many are done; the same call again resumes.
`dask_local` runs its LocalCluster in a process of its own session (`ccscope._dask_host`): a
terminal's Ctrl-C reaches the sweep alone, which kills the cluster's processes and returns only
once they are gone (so no point runs on after it); killed itself, its cluster ends too.
A failing point (invalid value, engine error) becomes a row with status "error" and the
message; the other points run on. Library code never prints: progress goes to a callback.

Fluid-model sweeps (`fluid_sweep`) evaluate `ccscope.fluid.sweep` as one vectorized batch,
on the compiled native backend by default, cached the same way (the whole batch is one
address: the DCTCP fluid batch shares one time step, so a point's numbers depend on its batch).

Dask runs need the output directory on a filesystem the workers share (always true for
`dask_local`); Dask is the optional extra `ccscope[dask]`.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import itertools
import json
import math
import os
import shutil
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ccscope import _outdir
from ccscope.errors import ScenarioError, shown
from ccscope.scenario.io import (AllowPaths, ScenarioLike, apply_set, as_dict, load_file, parse_scenario_text,
                                 read_data_file, resolve_data_path)

__all__ = [
    "NONDETERMINISTIC_COLUMNS",
    "SweepPoint",
    "PointCheck",
    "SweepResult",
    "SweepInterrupted",
    "DaskClusterError",
    "SweepSpec",
    "SweepTable",
    "check_point",
    "derive_seed",
    "expand_grid",
    "fluid_grid",
    "fluid_sweep",
    "load",
    "load_sweep_file",
    "make_points",
    "parse_grid_option",
    "point_key",
    "run_point",
    "sweep",
    "verify_sweep",
]

#: Summary columns that legitimately differ between two runs of the same sweep (wall clock, cache hits).
NONDETERMINISTIC_COLUMNS = ("wall_s", "events_per_s", "cached")
#: Scalar entries of `SimResult.summary` copied into the summary table.
SUMMARY_METRICS = ("sim_time_s", "flows", "bottleneck_utilization", "queue_mean_pkts", "queue_p99_pkts",
                   "queue_time_avg_pkts_whole_run", "drops", "marks", "events")
#: Name of the per-point record written inside each point's result directory.
POINT_FILE = "point.json"
#: Characters of the sha256 address used for a point's directory name (64 bits).
DIR_KEY_CHARS = 16
#: Seeds derived for replicates are kept below 2**32 so they read well in tables and every engine accepts them.
SEED_MODULUS = 2 ** 32


# --------------------------------------------------------------------------- grid and seeds

def parse_grid_option(text: str) -> tuple[str, list]:
    """`--grid 'flows.count=2,10,100'` -> ("flows.count", [2, 10, 100]).

    Values are TOML literals (numbers, true/false, "strings", [arrays]); a bare word is a
    string; commas inside brackets or quotes do not split.
    """
    path, sep, rest = text.partition("=")
    path = path.strip()
    if not sep or not path or any(not k.strip() for k in path.split(".")):
        raise ScenarioError(f"--grid {text!r}: expected PATH=V1,V2,..., e.g. --grid flows.count=2,10,100")
    parts, depth, quote, cur = [], 0, None, []
    for ch in rest:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    parts = [p.strip() for p in parts]
    if any(not p for p in parts):
        raise ScenarioError(f"--grid {text!r}: empty value in the list; expected PATH=V1,V2,...")
    return path, [apply_set({}, f"v={p}")["v"] for p in parts]


def expand_grid(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Cartesian product of `grid` (dotted path -> values) as a list of {path: value}, first key slowest."""
    keys = list(grid)
    values = []
    for k in keys:
        v = grid[k]
        if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
            raise ScenarioError(f"grid[{k!r}] = {v!r}: must be a list of values")
        v = list(v)
        if not v:
            raise ScenarioError(f"grid[{k!r}]: the list of values is empty")
        values.append(v)
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


DESIGNS = ("grid", "zip", "random")


def expand_design(grid: Mapping[str, Sequence[Any]], design: str = "grid", *, samples: int | None = None,
                  seed: int = 0) -> list[dict[str, Any]]:
    """Points of a design over `grid` (dotted path -> values):
    - "grid": the Cartesian product (first key slowest);
    - "zip": the i-th values of every key together (all lists the same length);
    - "random": `samples` points drawn without replacement from the Cartesian product, with a
      generator seeded by `seed` (the same call always gives the same points)."""
    if design not in DESIGNS:
        raise ScenarioError(f"design = {design!r}: must be one of {', '.join(DESIGNS)}")
    if design == "zip":
        lengths = {k: len(v) for k, v in grid.items()}
        if len(set(lengths.values())) > 1:
            raise ScenarioError(f"design = 'zip': every value list must have the same length, got {lengths}")
        keys = list(grid)
        return [{k: grid[k][i] for k in keys} for i in range(next(iter(lengths.values()), 0))]
    full = expand_grid(grid)
    if design == "grid":
        return full
    if samples is None or isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ScenarioError(f"samples = {samples!r}: the random design needs an integer >= 1")
    import random
    rng = random.Random(seed)
    idx = sorted(rng.sample(range(len(full)), min(samples, len(full))))
    return [full[i] for i in idx]


def derive_seed(base_seed: int, replicate: int) -> int:
    """The seed of replicate `replicate` (0 keeps `base_seed`; others are sha256-derived, < 2**32)."""
    if replicate == 0:
        return int(base_seed)
    h = hashlib.sha256(f"ccscope-sweep-seed:{int(base_seed)}:{int(replicate)}".encode()).digest()
    return int.from_bytes(h[:8], "big") % SEED_MODULUS


def _set_path(data: dict, path: str, value: Any) -> None:
    keys = [k.strip() for k in path.split(".")]
    if any(not k for k in keys):
        raise ScenarioError(f"grid path {path!r}: must be dotted field names, e.g. aqm.k_pkts")
    node = data
    for i, k in enumerate(keys[:-1]):
        nxt = node.get(k)
        if nxt is None:
            nxt = node[k] = {}
        if not isinstance(nxt, dict):
            raise ScenarioError(f"grid path {path!r}: {'.'.join(keys[:i + 1])} is not a table")
        node = nxt
    node[keys[-1]] = copy.deepcopy(value)


@dataclass
class SweepPoint:
    """One run of a sweep: its position, parameter values, replicate and seed, and the scenario."""
    index: int
    params: dict[str, Any]
    replicate: int
    seed: int
    scenario: dict
    key: str | None = None
    error: str | None = None

    @property
    def dir_name(self) -> str:
        return self.key[:DIR_KEY_CHARS] if self.key else ""


def make_points(base: ScenarioLike, grid: Mapping[str, Sequence[Any]], *,
                seeds: int | Sequence[int] = 1, design: str = "grid", samples: int | None = None) -> list[SweepPoint]:
    """Design x seeds -> points (design order, then replicate). Overrides are applied to a copy of `base`."""
    base_data = copy.deepcopy(dict(as_dict(base)))
    for path in grid:
        if path in RESERVED_COLUMNS:
            raise ScenarioError(f"grid path {path!r}: the summary table has a column of that name already; "
                                f"sweep a field under it (e.g. {path}.count) or another field ('seed' is allowed)")
    combos = expand_design(grid, design, samples=samples, seed=int(base_data.get("seed", 1) or 0)) if grid else [{}]
    if isinstance(seeds, bool):
        raise ScenarioError(f"seeds = {seeds!r}: an integer count >= 1 or a list of seeds")
    if isinstance(seeds, int):
        if seeds < 1:
            raise ScenarioError(f"seeds = {seeds}: must be >= 1 (replicates per grid point)")
        if seeds > 1 and "seed" in grid:
            raise ScenarioError(f"seeds = {seeds}: replicates derive their own seeds, and the grid already sets "
                                "'seed': give either a grid over seed (one run per seed) or seeds = N, not both")
        replicates = list(range(seeds))
        explicit = None
    else:
        explicit = [int(s) for s in seeds]
        if not explicit:
            raise ScenarioError("seeds: the list is empty")
        if "seed" in grid:
            raise ScenarioError(f"seeds = {list(seeds)!r}: a list of seeds and a grid over 'seed' at once; "
                                "give the seeds in one of the two")
        replicates = list(range(len(explicit)))
    points = []
    for params in combos:
        for j in replicates:
            data = copy.deepcopy(base_data)
            err = None
            try:
                for path, value in params.items():
                    _set_path(data, path, value)
            except ScenarioError as e:
                err = f"ScenarioError: {e}"
            base_seed = data.get("seed", 1)
            try:
                seed = explicit[j] if explicit is not None else derive_seed(int(base_seed), j)
            except (TypeError, ValueError):
                seed, err = 0, err or f"ScenarioError: seed = {base_seed!r}: must be an integer"
            data["seed"] = seed
            points.append(SweepPoint(index=len(points), params=dict(params), replicate=j, seed=seed, scenario=data,
                                     error=err))
    return points


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False, ensure_ascii=True)


def point_key(resolved_scenario: Mapping, *, until_s: float | None, record: Sequence[str] | None,
              seed: int, version: str | None = None) -> str:
    """Content address (sha256 hex) of one run: resolved scenario, run options, seed, ccscope version,
    and the source of the Python controllers it uses."""
    if version is None:
        from ccscope import __version__ as version
    doc = {"scenario": resolved_scenario, "until_s": None if until_s is None else float(until_s),
           "record": None if record is None else sorted(record), "seed": int(seed), "ccscope_version": version}
    from ccscope import cc
    used = cc.used_controllers(resolved_scenario)
    if used:  # Python controllers: an edit of their source is a new point (built-in-only keys unchanged)
        doc["controllers"] = cc.source_hash(used)
    return hashlib.sha256(_canonical(doc).encode()).hexdigest()


def _resolve_key(point: SweepPoint, until_s: float | None, record: list | None) -> None:
    """Fill `point.key` (or `point.error` if the engine refuses the scenario)."""
    # the key needs the resolved scenario only: building it (io.validate) would build every
    # point's simulation once more, serially, in this process; a point the build refuses fails
    # when it runs, with the same error
    from ccscope.scenario.io import resolve
    if point.error:
        point.key = hashlib.sha256(repr((point.params, point.seed)).encode()).hexdigest()
        return
    try:
        resolved = resolve(point.scenario)
        eff_until = until_s if until_s is not None else resolved.get("until_s")
        point.key = point_key(resolved, until_s=eff_until, record=record, seed=point.seed)
    except (ScenarioError, ValueError, TypeError) as e:
        point.error = f"{type(e).__name__}: {e}"
        point.key = hashlib.sha256(repr((sorted(point.params.items(), key=str), point.seed)).encode()).hexdigest()


# --------------------------------------------------------------------------- running one point

class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by Ctrl-C (SIGINT; in the CLI also SIGTERM). The points finished before it
    are complete and verified under `out/points/`; the interrupted ones left nothing behind, so
    calling `sweep` again with the same arguments runs exactly the unfinished points.

    done: points with a finished result (from the cache or run now);  failed: points whose run
    failed (they run again on the next call);  total: points of the sweep.
    A KeyboardInterrupt, so code that does not know it stops as before."""

    def __init__(self, done: int = 0, total: int = 0, failed: int = 0):
        super().__init__(done, total, failed)
        self.done, self.total, self.failed = done, total, failed

    def __str__(self) -> str:
        return f"sweep interrupted: {self.done} of {self.total} points done"


class _Stopped(BaseException):
    """A point's run ended early because the sweep is stopping (not an error of the point)."""


#: Wall time aimed at for one slice of a point's run between two looks at the sweep's stop flag.
SLICE_TARGET_S = 0.02
#: A slice covers at most this fraction of the run's simulated time (a quiet start cannot make
#: the first busy slice long).
SLICE_MAX_FRACTION = 1e-3


#: Seconds between two looks of a point running on Dask at its sweep's stop event (a scheduler round trip).
DASK_STOP_POLL_S = 0.2


class _DaskStop:
    """The stop flag of a sweep on Dask, seen from a task: the `distributed.Event` the sweep sets
    on Ctrl-C, looked at no more often than every DASK_STOP_POLL_S. A scheduler that cannot be
    asked (no client here, a lost connection) reads as "not set": the point runs on."""

    def __init__(self, name: str):
        self.name = name
        self._event = None
        self._next = 0.0
        self._set = False

    def is_set(self) -> bool:
        now = time.monotonic()
        if self._set or now < self._next:
            return self._set
        self._next = now + DASK_STOP_POLL_S
        try:
            if self._event is None:
                from distributed import Event
                self._event = Event(self.name)
            self._set = bool(self._event.is_set())
        except Exception:  # noqa: BLE001 - see the class docstring
            self._set = False
        return self._set


def _original_simulate():
    from ccscope.sim import simulate
    return simulate


#: `ccscope.sim.simulate` as ccscope defines it (see `_simulate`).
_SIMULATE = _original_simulate()


def _simulate(scenario: Any, until_s: float | None, record: Sequence[str] | None, seed: int,
              stop: threading.Event | None = None):
    """`simulate(...)` that also ends (raising `_Stopped`) soon after `stop` is set, from any thread.

    Signals reach only the main thread, so a point run on a worker thread cannot see Ctrl-C: it
    runs in slices of simulated time sized to take about SLICE_TARGET_S of wall time each and
    looks at `stop` between them. Running to the end in slices gives the same events and traces
    as one `run_until` (the engine stops and resumes at event boundaries)."""
    from ccscope import sim as sim_module
    if stop is None or sim_module.simulate is not _SIMULATE:
        # Dask, or `ccscope.sim.simulate` wrapped (instrumentation, a fault injected by a test):
        # the point runs through it, and only Ctrl-C in the main thread stops it
        return sim_module.simulate(scenario, until_s=until_s, record=record, seed=seed)
    sim = sim_module.Simulation(scenario, until_s=until_s, record=record, seed=seed)
    end = sim.end_s
    step = max_step = end * SLICE_MAX_FRACTION
    t = sim.now_s
    while t < end:
        if stop.is_set():
            raise _Stopped
        t = end if t + step >= end else t + step
        w0 = time.perf_counter()
        sim.run_until(t)
        took = time.perf_counter() - w0
        if took < SLICE_TARGET_S / 2:
            step = min(step * 2, max_step)
        elif took > SLICE_TARGET_S * 2:
            step /= 2
    if stop.is_set():
        raise _Stopped
    return sim.finish()


def _jsonable(obj: Any) -> Any:
    from ccscope.result import _jsonable as j
    return j(obj)


def _metrics(res) -> dict[str, Any]:
    s = res.summary
    m: dict[str, Any] = {}
    for k in SUMMARY_METRICS:
        v = s.get(k)
        m[k] = float("nan") if v is None else v
    tput = np.asarray(s.get("flow_throughput_bps") or [], dtype=float)
    tput = tput[np.isfinite(tput)]
    m["throughput_mean_bps"] = float(tput.mean()) if len(tput) else float("nan")
    m["throughput_min_bps"] = float(tput.min()) if len(tput) else float("nan")
    m["throughput_max_bps"] = float(tput.max()) if len(tput) else float("nan")
    sq = float((tput ** 2).sum())
    m["jain_fairness"] = float(tput.sum() ** 2 / (len(tput) * sq)) if len(tput) and sq > 0 else float("nan")
    fct = res.flows["fct_s"].to_numpy(dtype=float) if "fct_s" in res.flows else np.array([])
    fct = fct[np.isfinite(fct)]
    m["flows_completed"] = len(fct)
    m["fct_mean_s"] = float(fct.mean()) if len(fct) else float("nan")
    m["wall_s"] = float(s.get("wall_s", float("nan")))
    m["events_per_s"] = float(s.get("events_per_s", float("nan")))
    return m


def _row_base(point: SweepPoint) -> dict[str, Any]:
    row: dict[str, Any] = {"point": point.index}
    row.update(point.params)
    row.update({"replicate": point.replicate, "seed": point.seed, "key": point.key})
    return row


#: Bytes read at a time when hashing a point's files.
HASH_CHUNK_BYTES = 1 << 20


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(HASH_CHUNK_BYTES), b""):
            h.update(chunk)
    return h.hexdigest()


def _point_files(d: Path) -> list[str]:
    """The files of a point directory (relative POSIX paths), point.json and staging copies excluded."""
    out = []
    for p in d.rglob("*"):
        rel = p.relative_to(d)
        if any(_outdir.is_temp(part) for part in rel.parts) or rel.as_posix() == POINT_FILE:
            continue
        if p.is_file() or p.is_symlink():
            out.append(rel.as_posix())
    return sorted(out)


def _record_digest(rec: Mapping) -> str:
    body = {k: v for k, v in rec.items() if k != "digest"}
    return hashlib.sha256(_canonical(json.loads(json.dumps(body))).encode()).hexdigest()


def write_point_record(d: Path, rec: dict) -> None:
    """Write `d/point.json` last and atomically: `rec` plus the size and sha256 of every file in `d`
    ("files") and the sha256 of the record itself ("digest")."""
    rec = _jsonable(dict(rec))
    rec["files"] = {rel: {"bytes": (d / rel).stat().st_size, "sha256": _sha256(d / rel)} for rel in _point_files(d)}
    rec["digest"] = _record_digest(rec)
    tmp = d / _outdir.temp_name(POINT_FILE)
    tmp.write_text(json.dumps(rec, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, d / POINT_FILE)


def check_point(d: Path, key: str | None = None) -> tuple[dict | None, str | None]:
    """Verify a finished point directory against its point.json: (the record, None) when every file
    has the size and sha256 recorded and point.json its digest; (None, what is wrong) otherwise;
    (None, None) when the directory does not exist. `key`: the full address it must hold (else the
    directory name must be its prefix)."""
    d = Path(d)
    if not d.is_dir():
        return None, None
    f = d / POINT_FILE
    if not f.is_file():
        return None, f"{POINT_FILE} is missing"
    try:
        rec = json.loads(f.read_text())
    except (OSError, ValueError) as e:
        return None, f"{POINT_FILE} is unreadable ({type(e).__name__})"
    if not isinstance(rec, dict) or not isinstance(rec.get("key"), str) or not isinstance(rec.get("row"), dict):
        return None, f"{POINT_FILE} is damaged (no key or row)"
    if (rec["key"] != key) if key is not None else not rec["key"].startswith(d.name):
        return None, f"{POINT_FILE} belongs to another point ({rec['key'][:DIR_KEY_CHARS]})"
    if rec.get("status") != "ok":
        return None, f"{POINT_FILE} has status {str(rec.get('status'))[:20]!r}"
    files = rec.get("files")
    if not isinstance(files, dict) or not isinstance(rec.get("digest"), str):
        return None, f"{POINT_FILE} has no content hashes (written by an earlier ccscope)"
    if _record_digest(rec) != rec["digest"]:
        return None, f"{POINT_FILE} changed since it was written"
    problems = []
    for rel, want in sorted(files.items()):
        p = d / rel
        if not p.is_file():
            problems.append(f"{rel} is missing")
        elif not isinstance(want, dict) or p.stat().st_size != want.get("bytes") or _sha256(p) != want.get("sha256"):
            problems.append(f"{rel} changed since it was written")
    problems += [f"{rel} was added since it was written" for rel in _point_files(d) if rel not in files]
    if problems:
        more = f" and {len(problems) - 3} more" if len(problems) > 3 else ""
        return None, ", ".join(problems[:3]) + more
    return rec, None


def read_done(points_dir: Path, key: str) -> dict | None:
    """The finished row of address `key` under `points_dir`, or None if that point has not finished
    or its files no longer match what its point.json recorded (see `check_point`)."""
    rec, _problem = check_point(Path(points_dir) / key[:DIR_KEY_CHARS], key)
    return rec["row"] if rec is not None else None


def run_point(task: dict, stop: threading.Event | None = None) -> dict:
    """Run one point and write its result directory; returns its summary row (never raises
    for a failing run: the row then has status "error" and the message). Picklable for Dask.

    stop: set by the sweep on Ctrl-C; the run then ends within about SLICE_TARGET_S and raises
    `_Stopped` (a BaseException) leaving nothing behind; a point already writing its files
    finishes them. In the main thread Ctrl-C itself raises KeyboardInterrupt, the same way."""
    from ccscope import __version__
    if stop is None and task.get("stop_event"):
        stop = _DaskStop(task["stop_event"])
    row = dict(task["row"])
    points_dir = Path(task["points_dir"])
    key = row["key"]
    t0 = time.perf_counter()
    try:
        if task.get("plugins"):  # a worker process (Dask) loads the sweep's controller plugins once
            from ccscope import cc
            cc.ensure_plugins(task["plugins"])
        res = _simulate(task["scenario"], task["until_s"], task["record"], row["seed"], stop)
        row.update(_metrics(res))
        row.update(status="ok", error=None, cached=False, result_dir=f"points/{key[:DIR_KEY_CHARS]}")
        final = points_dir / key[:DIR_KEY_CHARS]
        points_dir.mkdir(parents=True, exist_ok=True)
        stage = _outdir.mkdir_temp(points_dir, key[:DIR_KEY_CHARS])
        try:
            res.save(stage / "r")
            rec = {"key": key, "status": "ok", "ccscope_version": __version__, "params": row_base_params(task),
                   "seed": row["seed"], "until_s": task["until_s"], "record": task["record"], "row": row}
            write_point_record(stage / "r", rec)
            if os.path.lexists(final):  # a damaged, stale or concurrent copy: replace it (same address)
                old = points_dir / _outdir.temp_name(key[:DIR_KEY_CHARS], "old")
                os.rename(final, old)
                try:
                    os.rename(stage / "r", final)
                except BaseException:
                    os.rename(old, final)
                    raise
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(stage / "r", final)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
    except Exception as e:  # noqa: BLE001 - a failing point is reported in its row, the sweep goes on
        row.update(status="error", error=f"{type(e).__name__}: {e}", cached=False, result_dir=None,
                   wall_s=time.perf_counter() - t0)
    except _Stopped:
        if not task.get("stop_event"):
            raise
        # on Dask the task ends normally (its result is dropped: the sweep has stopped)
        row.update(status="error", error="stopped: the sweep was interrupted", cached=False, result_dir=None,
                   wall_s=time.perf_counter() - t0)
    return row


def row_base_params(task: dict) -> dict:
    return {k: task["row"][k] for k in task.get("param_names", ())}


# --------------------------------------------------------------------------- executors

ProgressFn = Callable[[int, int, dict], None]


#: Seconds between two looks at finished points while the main thread waits (it also wakes on Ctrl-C).
WAIT_SLICE_S = 0.25


def _run_local(tasks: list[dict], jobs: int, on_row: Callable[[dict], None]) -> None:
    """Run `tasks` on `jobs` threads (1: in this thread), `on_row(row)` as each finishes.

    Ctrl-C (KeyboardInterrupt in the main thread) sets the stop flag every running point looks
    at between slices of its run: the points not started are dropped, running ones end within
    about SLICE_TARGET_S and leave nothing behind, points already writing their files finish
    them (and are reported); then the KeyboardInterrupt goes on."""
    stop = threading.Event()
    if jobs <= 1:
        for t in tasks:
            on_row(run_point(t, stop))
        return
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="ccscope-sweep")
    pending: set = set()
    try:
        pending = {pool.submit(run_point, t, stop) for t in tasks}
        while pending:
            done, pending = wait(pending, timeout=WAIT_SLICE_S, return_when=FIRST_COMPLETED)
            for f in done:
                on_row(f.result())
    except BaseException:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        for f in pending:  # finished while the others stopped: complete points, report them
            if f.done() and not f.cancelled() and f.exception() is None:
                on_row(f.result())
        raise
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


def _run_dask(tasks: list[dict], client, on_row: Callable[[dict], None]) -> None:
    """Run `tasks` on a Dask cluster, `on_row(row)` as each finishes. Ctrl-C sets the sweep's stop
    event (running points end within about DASK_STOP_POLL_S and write nothing) and cancels the
    points; then the KeyboardInterrupt goes on. (A running task that is cancelled before it has
    seen the event may run on, its worker's client gone: on the cluster of `dask_local` the
    workers are killed next; on a cluster of `scheduler=` it may finish and write its point.)"""
    import uuid

    from distributed import Event, as_completed
    stop_name = f"ccscope-sweep-stop-{uuid.uuid4().hex}"
    tasks = [dict(t, stop_event=stop_name) for t in tasks]
    futures = client.map(run_point, tasks, pure=False, key=[f"ccscope-point-{t['row']['key']}" for t in tasks])
    by_key = {f.key: t for f, t in zip(futures, tasks)}
    try:
        for fut in as_completed(futures, loop=client.loop):
            t = by_key[fut.key]
            try:
                row = fut.result()
            except Exception as e:  # noqa: BLE001 - the worker itself failed (killed, out of memory, ...)
                row = dict(t["row"], status="error", error=f"dask: {type(e).__name__}: {e}", cached=False,
                           result_dir=None)
            on_row(row)
    except KeyboardInterrupt:
        try:
            Event(stop_name, client=client).set()
        except Exception:  # noqa: BLE001 - the scheduler is gone: nothing runs there any more
            pass
        raise
    finally:
        client.cancel([f for f in futures if not f.done()])


#: Seconds the local Dask cluster of `dask_local` may take to start (a hang guard: 2 workers start
#: in a few seconds).
DASK_START_TIMEOUT_S = 180.0
#: Seconds its host process may take to close the cluster and end once told to stop (it closes
#: gracefully for at most `_dask_host.CLOSE_TIMEOUT_S`, then kills); past it the sweep kills them.
DASK_STOP_TIMEOUT_S = 30.0
#: Seconds left to multiprocessing's resource tracker to end by itself after the host has ended.
DASK_TRACKER_WAIT_S = 5.0


class DaskClusterError(ValueError):
    """The local Dask cluster of `sweep(dask_local=N)` did not start. The message says why: the
    error of the process that starts it (and the first of its chain), and the first error line of
    the cluster's log when that says more."""


def _log_tail(log: Path) -> str:
    """The cluster log's first error line (`SomeError: ...`), else its last line, cut to 200 characters."""
    import re
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    errors = [ln for ln in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b", ln)]
    line = errors[0] if errors else (lines or [""])[-1]
    return line if len(line) <= 200 else line[:197] + "..."


def _read_address(proc, log: Path, n: int) -> str:
    """The scheduler address the host process prints, or DaskClusterError with its error and log."""
    import selectors
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + DASK_START_TIMEOUT_S
    buf = b""
    try:
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                problem = f"it did not start within {DASK_START_TIMEOUT_S:g} s"
                break
            if not sel.select(timeout=min(left, 1.0)):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
        else:
            problem = None
    finally:
        sel.close()
    if not buf.endswith(b"\n") and problem is None:
        proc.wait()
        problem = f"its process ended (exit status {proc.returncode})"
    if buf.endswith(b"\n"):
        try:
            reply = json.loads(buf)
        except ValueError:
            reply = {"error": f"unexpected reply {buf[:80]!r}"}
        if isinstance(reply, dict) and isinstance(reply.get("address"), str):
            return reply["address"]
        problem = str(reply.get("error") if isinstance(reply, dict) else reply)
    tail = _log_tail(log)
    raise DaskClusterError(f"dask_local = {n}: the local Dask cluster did not start ({problem})"
                           + (f"; its log says: {tail}" if tail and tail not in problem else ""))


def _stop_host(proc, *, kill: bool) -> None:
    """Tell the cluster's host process to stop and wait until it and every process of its session
    are gone (killing them past DASK_STOP_TIMEOUT_S, or at once on a second Ctrl-C). `kill`: the
    sweep is interrupted: no graceful close, the host kills its workers at once."""
    import signal
    import subprocess

    from ccscope import _dask_host
    try:
        proc.stdin.write(b"kill\n" if kill else b"stop\n")
        proc.stdin.close()
    except OSError:  # it has ended already
        pass
    deadline = time.monotonic() + DASK_STOP_TIMEOUT_S
    while True:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            break
        except (subprocess.TimeoutExpired, KeyboardInterrupt):  # a hang, or Ctrl-C again: kill them now
            deadline = time.monotonic() + DASK_STOP_TIMEOUT_S
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    # the host kills the rest of its session before it ends; multiprocessing's resource tracker
    # ends by itself once the host is gone (it removes what the killed processes left)
    deadline = time.monotonic() + DASK_TRACKER_WAIT_S
    while True:
        try:
            while _dask_host.session_processes(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            _dask_host.kill_session(proc.pid, spare_tracker=False)
            break
        except KeyboardInterrupt:
            deadline = 0.0


#: Seconds a connection to the local cluster that Ctrl-C interrupted may take to finish, so that
#: the client can be closed before the cluster is killed (a hang guard).
DASK_CONNECT_WAIT_S = 30.0


def _connect(address: str):
    """`Client(address)`, made in a thread of its own: Ctrl-C meanwhile waits for it to connect (or
    fail) and closes it, instead of leaving a half-made client that retries against the stopped
    cluster and logs a traceback when the interpreter exits."""
    from distributed import Client
    box: dict = {}

    def make() -> None:
        try:
            box["client"] = Client(address, set_as_default=False)
        except BaseException as e:  # noqa: BLE001 - raised in the caller's thread
            box["error"] = e
    t = threading.Thread(target=make, name="ccscope-dask-connect", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.1)
    except KeyboardInterrupt:
        t.join(DASK_CONNECT_WAIT_S)
        if "client" in box:
            box["client"].close()
        raise
    if "error" in box:
        raise box["error"]
    return box["client"]


@contextlib.contextmanager
def _local_dask_cluster(n: int, out_dir: Path):
    """A LocalCluster of `n` worker processes, run by `python -m ccscope._dask_host` in a session of
    its own (a terminal's Ctrl-C reaches this process only, which stops the cluster); yields the
    scheduler address. The cluster's output goes to a log in a staging directory of `out_dir`,
    quoted when it does not start and removed with it. On leaving, the cluster's processes are
    killed (after a graceful close of a few seconds) and gone before this returns, so no point
    runs on after it; if this process is killed, the host sees its stdin closed and does the same."""
    import subprocess
    import sys

    import ccscope
    stage = _outdir.mkdir_temp(out_dir, "dask")
    proc = None
    interrupted = True
    try:
        log = stage / "cluster.log"
        root = str(Path(ccscope.__file__).resolve().parents[1])
        # the host and its workers import ccscope as this process does (spawned workers get the host's sys.path)
        boot = ("import sys; sys.path.append(sys.argv.pop(1)); from ccscope._dask_host import main; "
                "sys.exit(main(sys.argv))")
        with open(log, "wb") as fh:
            proc = subprocess.Popen([sys.executable, "-c", boot, root, str(n), str(stage / "work")],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=fh, cwd=stage,
                                    start_new_session=True, close_fds=True)
        yield _read_address(proc, log, n)
        interrupted = False
    finally:
        if proc is not None:
            _stop_host(proc, kill=interrupted)
            proc.stdout.close()
        shutil.rmtree(stage, ignore_errors=True)
        # a point its worker was killed in while it saved left a staging copy: its process is gone now
        _outdir.clean_stale(out_dir / "points")


# --------------------------------------------------------------------------- the sweep

@dataclass
class SweepResult:
    """What `sweep` returns.

    table:   one row per point, in point order (parameters, replicate, seed, key, status, error,
             cached, result_dir, metrics); also written to `out/summary.parquet`
    out_dir: the output directory;  ran / cached: addresses run now / taken from the cache
    recomputed: point index -> why its cached copy was not reused (a file missing or changed)
    """
    table: pd.DataFrame
    out_dir: Path
    ran: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    recomputed: dict[int, str] = field(default_factory=dict)

    @property
    def errors(self) -> pd.DataFrame:
        """The rows of failing points."""
        return self.table[self.table["status"] != "ok"]

    @property
    def success(self) -> bool:
        return bool((self.table["status"] == "ok").all())


def sweep(base: ScenarioLike, grid: Mapping[str, Sequence[Any]], *, out: str | Path,
          until_s: float | None = None, record: Sequence[str] | None = None,
          seeds: int | Sequence[int] = 1, jobs: int | None = None, scheduler: str | None = None,
          dask_local: int | None = None, client: Any = None, cache: bool = True,
          progress: ProgressFn | None = None, design: str = "grid", samples: int | None = None,
          force: bool = False, on_notice: Callable[[str], None] | None = None,
          plugins: Sequence[dict] | None = None) -> SweepResult:
    """Run `base` at every point of `grid` x `seeds`; write per-point results and `out/summary.parquet`.

    grid:     dotted scenario path -> list of values, e.g. {"flows.count": [2, 10], "aqm.k_pkts": [20, 65]}
    design:   "grid" (Cartesian product), "zip" (i-th values together) or "random" (`samples` points
              drawn from the product with the scenario's seed)
    seeds:    replicates per grid point (int; replicate 0 is the scenario's own seed) or a list of seeds
    jobs:     parallel local runs (threads; default: the CPUs available)
    scheduler / dask_local / client: run on Dask: a scheduler address ("tcp://host:8786"), N workers
              on a LocalCluster bound to 127.0.0.1 (processes, one thread each), or a ready Client
    cache:    skip points already finished under `out/points/` (False: run them all again)
    progress: `progress(done, total, row)` once before the runs (done = 0, row = {}) and after each point
              run now (cached points are not counted in `total`)
    force:    write into a non-empty `out` that is not a sweep output (its other files are kept); without
              it such a directory raises `OutputRefused` (a FileExistsError), as does a file at `out`
    on_notice: `on_notice(line)` for each finished point whose files no longer match its point.json
              ("point 3: flows.parquet changed since it was written; recomputing"), before the runs
    plugins:  controller plugins each worker process loads before its first point (records of
              `ccscope.cc.loaded_plugins()`; default: every plugin loaded here, i.e. `--plugin`), so
              Python controllers run on Dask workers as they do on local threads; a worker that
              cannot load one reports it in the point's error

    Ctrl-C raises `SweepInterrupted` (a KeyboardInterrupt) within about SLICE_TARGET_S whatever
    `jobs`: finished points stay complete and verified, interrupted ones leave nothing (their
    staging directories are removed), summary.parquet is not written; calling again with the same
    arguments runs exactly the unfinished points. With `dask_local`, the cluster's processes are
    killed and gone before this raises (its start-up failing raises `DaskClusterError`, a
    ValueError); on a cluster of `scheduler=` or `client=`, points are cancelled (a task already
    running on a worker may still finish and write its complete point).
    """
    from ccscope.many import default_jobs
    out_dir = Path(out)
    points_dir = out_dir / "points"
    if sum(x is not None for x in (scheduler, dask_local, client)) > 1:
        raise ValueError("give at most one of scheduler, dask_local and client")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs = {jobs!r}: must be an integer >= 1")
    if dask_local is not None and (isinstance(dask_local, bool) or not isinstance(dask_local, int) or dask_local < 1):
        raise ValueError(f"dask_local = {dask_local!r}: must be an integer >= 1 (workers)")
    rec = [record] if isinstance(record, str) else (None if record is None else list(record))
    if until_s is not None and not (isinstance(until_s, (int, float)) and math.isfinite(until_s) and until_s > 0):
        raise ScenarioError(f"until_s = {until_s!r}: must be a finite number of seconds > 0")

    points = make_points(base, grid, seeds=seeds, design=design, samples=samples)
    for p in points:
        _resolve_key(p, until_s, rec)
    param_names = list(grid)

    _outdir.ensure_dir(out_dir, _outdir.SWEEP, force=force)
    _outdir.clean_stale(points_dir, legacy_names="*")
    rows: dict[int, dict] = {}
    cached_keys, todo_by_key, recomputed = [], {}, {}
    for p in points:
        base_row = _row_base(p)
        if p.error:
            rows[p.index] = dict(base_row, status="error", error=p.error, cached=False, result_dir=None)
            continue
        prev, problem = check_point(points_dir / p.dir_name, p.key) if cache else (None, None)
        if prev is not None:
            rows[p.index] = dict(prev["row"], **base_row, cached=True)
            cached_keys.append(p.key)
        else:
            if problem is not None and p.key not in todo_by_key:
                recomputed[p.index] = problem
                if on_notice is not None:
                    on_notice(f"point {p.index}: {problem}; recomputing")
            todo_by_key.setdefault(p.key, []).append(p)

    _write_json_atomic(out_dir / "sweep.json", {
        "base": as_dict(base), "grid": {k: list(v) for k, v in grid.items()}, "seeds": seeds if isinstance(seeds, int)
        else list(seeds), "until_s": until_s, "record": rec})

    if plugins is None:
        from ccscope import cc
        plugins = cc.loaded_plugins()
    plugin_list = [dict(r) for r in plugins]
    tasks = []
    for ps in todo_by_key.values():
        p = ps[0]
        tasks.append({"row": _row_base(p), "scenario": p.scenario, "until_s": until_s, "record": rec,
                      "points_dir": str(points_dir.resolve()), "param_names": param_names,
                      "plugins": plugin_list})
    total, done_n = len(tasks), 0
    ran: list[str] = []

    def on_row(row: dict) -> None:
        nonlocal done_n
        done_n += 1
        for p in todo_by_key[row["key"]]:
            rows[p.index] = dict(row, **_row_base(p))
        if row.get("status") == "ok":
            ran.append(row["key"])
        if progress is not None:
            progress(done_n, total, row)

    if progress is not None:
        progress(0, total, {})
    try:
        if not tasks:
            pass
        elif client is not None:
            _run_dask(tasks, client, on_row)
        elif scheduler is not None or dask_local is not None:
            from distributed import Client
            if scheduler is not None:
                with Client(scheduler) as c:
                    _run_dask(tasks, c, on_row)
            else:
                with _local_dask_cluster(dask_local, out_dir) as address, _connect(address) as c:
                    _run_dask(tasks, c, on_row)
        else:
            _run_local(tasks, jobs if jobs is not None else default_jobs(), on_row)
    except KeyboardInterrupt as e:  # summary.parquet is left as it was: it is written for a whole sweep
        status = [rows[p.index].get("status") for p in points if p.index in rows]
        raise SweepInterrupted(done=status.count("ok"), total=len(points),
                               failed=sum(s != "ok" for s in status)) from e

    table = _table([rows[p.index] for p in points], param_names)
    _write_parquet_atomic(table, out_dir / "summary.parquet")
    return SweepResult(table=table, out_dir=out_dir, ran=ran, cached=cached_keys, recomputed=recomputed)


@dataclass
class PointCheck:
    """One finished point of a sweep directory, as `verify_sweep` found it."""
    dir: str                 #: "points/<address[:16]>"
    point: int | None        #: its index in the last sweep's summary table (None if not listed)
    problem: str | None      #: what is wrong, None when every file matches point.json

    @property
    def ok(self) -> bool:
        return self.problem is None


def verify_sweep(out: str | Path) -> list[PointCheck]:
    """Check every point directory under `out/points/` against its point.json (sizes, sha256 of each
    file, the record's own digest), that every finished row of `out/summary.parquet` still has its
    directory, and every cached fluid batch `out/fluid/*.parquet` against its hash; in point order.
    Raises FileNotFoundError when `out` is not a sweep output directory."""
    out_dir = Path(out)
    points_dir = out_dir / "points"
    if not out_dir.is_dir() or not ((out_dir / "sweep.json").is_file() or points_dir.is_dir()
                                    or (out_dir / "fluid").is_dir()):
        raise FileNotFoundError(f"{str(out_dir)!r}: not a sweep output directory (no sweep.json, points/ or fluid/)")
    index: dict[str, int] = {}
    checks: list[PointCheck] = []
    summary = out_dir / "summary.parquet"
    if summary.is_file():
        try:
            t = pd.read_parquet(summary)
        except Exception as e:  # noqa: BLE001 - any damage to the table is reported, not raised
            checks.append(PointCheck("summary.parquet", None, f"summary.parquet is unreadable ({type(e).__name__})"))
        else:  # a fluid sweep's summary has no point rows
            cols = ("point", "status", "result_dir")
            rows = zip(*(t[c] for c in cols)) if all(c in t.columns for c in cols) else ()
            for pt, status, rd in rows:
                if status == "ok" and isinstance(rd, str):
                    index.setdefault(rd, int(pt))
    seen = set()
    if points_dir.is_dir():
        for d in sorted(points_dir.iterdir()):
            if not d.is_dir() or d.name.startswith("."):
                continue
            rel = f"points/{d.name}"
            seen.add(rel)
            rec, problem = check_point(d)
            if rec is None and problem is None:
                problem = "unreadable"
            pt = index.get(rel)
            if pt is None and rec is not None and isinstance(rec["row"].get("point"), int):
                pt = rec["row"]["point"]
            checks.append(PointCheck(rel, pt, problem))
    for rel, pt in sorted(index.items(), key=lambda kv: kv[1]):
        if rel not in seen:
            checks.append(PointCheck(rel, pt, f"{rel} is missing"))
    fluid = out_dir / "fluid"
    if fluid.is_dir():
        for f in sorted(fluid.glob("*.parquet")):
            if not f.name.startswith("."):
                checks.append(PointCheck(f"fluid/{f.name}", None, _check_fluid(f)))
    return sorted(checks, key=lambda c: (c.point is None, c.point or 0, c.dir))


_FRONT = ("point",)
_INT_METRICS = ("flows", "drops", "marks", "events", "flows_completed")
#: Metric columns of the summary table, in order (SUMMARY_METRICS, then flow aggregates, then timing).
METRIC_COLUMNS = (*SUMMARY_METRICS, "throughput_mean_bps", "throughput_min_bps", "throughput_max_bps", "jain_fairness",
                  "flows_completed", "fct_mean_s", "wall_s", "events_per_s")
_AFTER_PARAMS = ("replicate", "seed", "key", "status", "error", "cached", "result_dir")
#: Summary columns a grid path may not be named (they would hide the sweep's own columns). `seed`
#: is not among them: a grid over `seed` is one run per seed, and its column is the seed column.
RESERVED_COLUMNS = frozenset({"point", *_AFTER_PARAMS, *METRIC_COLUMNS} - {"seed"})


def _table(rows: list[dict], param_names: list[str]) -> pd.DataFrame:
    """Rows -> the summary table with a fixed column order and dtypes (same whatever executor or cache)."""
    df = pd.DataFrame(rows)
    for c in METRIC_COLUMNS:
        if c not in df:
            df[c] = None
    for c in ("error", "result_dir"):
        if c not in df:
            df[c] = None
    extra = [c for c in df.columns if c not in _FRONT and c not in param_names and c not in _AFTER_PARAMS
             and c not in METRIC_COLUMNS]
    # a grid over `seed` is both a parameter and the seed column: one column, among the parameters
    cols = list(dict.fromkeys(c for c in (*_FRONT, *param_names, *_AFTER_PARAMS) if c in df.columns))
    cols += list(METRIC_COLUMNS) + extra
    df = df[cols].copy()
    for c in param_names:
        df[c] = _param_column(list(df[c]))
    for c in ("status", "error", "result_dir", "key"):
        df[c] = pd.Series([v if isinstance(v, str) else None for v in df[c]], dtype=object, index=df.index)
    df["cached"] = df["cached"].astype(bool)
    for c in METRIC_COLUMNS:
        vals = [None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in df[c]]
        if c in _INT_METRICS:  # counts stay integers next to failed points' missing values
            df[c] = pd.array([None if v is None else int(v) for v in vals], dtype="Int64")
        else:
            df[c] = np.array([np.nan if v is None else float(v) for v in vals], dtype=np.float64)
    return df.reset_index(drop=True)


def _param_column(values: list) -> list:
    """A parameter column as Parquet can store it: numbers, booleans or strings as they are; a
    column mixing kinds (or holding lists/tables) as the JSON text of each value."""
    def kind(v: Any) -> str:
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, (int, float, np.integer, np.floating)):
            return "number"
        return "str" if isinstance(v, str) else "other"
    kinds = {kind(v) for v in values}
    if len(kinds) == 1 and kinds != {"other"}:
        return values
    return [json.dumps(_jsonable(v), sort_keys=True) for v in values]


def _write_json_atomic(path: Path, obj: Any) -> None:
    tmp = path.with_name(_outdir.temp_name(path.name))
    tmp.write_text(json.dumps(_jsonable(obj), indent=2, sort_keys=True, default=str) + "\n")
    os.replace(tmp, path)


# --------------------------------------------------------------------------- sweep files

@dataclass
class SweepSpec:
    """A sweep read from a file: base scenario data, grid, seeds, until_s, record, fluid model."""
    base: dict
    grid: dict[str, list]
    seeds: int | list[int] = 1
    until_s: float | None = None
    record: list[str] | None = None
    fluid: str | None = None
    options: dict = field(default_factory=dict)


def load_sweep_file(path: str | Path, *, allow_paths: AllowPaths = None) -> SweepSpec:
    """A scenario file, optionally with a `[sweep]` table:

        [sweep]
        base = "dctcp_dumbbell.toml"   # optional: else the rest of this file is the base scenario
        seeds = 3                      # or a list of seeds
        until_s = 0.1
        record = ["queue"]
        fluid = "dctcp"                # optional: a fluid-model sweep (then no base scenario)
        [sweep.grid]
        "flows.count" = [2, 10, 100]
        "aqm.k_pkts" = [20, 65]
        [sweep.options]                # fluid-model options, e.g. until_s of the DDE

    Files it names are read in the data-file sandbox (ccscope.scenario.io): `base` relative to
    this file's directory and staying under it, a regular file of at most MAX_DATA_FILE_BYTES;
    an absolute path or a `..` escape only under a directory of `allow_paths` (`--allow-path`).
    CDF files named by either file resolve the same way, relative to the file naming them.
    """
    p = Path(path)
    data = load_file(p, allow_paths=allow_paths)
    spec = data.pop("sweep", None) or {}
    if not isinstance(spec, dict):
        raise ScenarioError(f"{p}: sweep must be a table")
    unknown = set(spec) - {"base", "seeds", "until_s", "record", "fluid", "grid", "options"}
    if unknown:
        raise ScenarioError(f"{p}: sweep.{min(unknown)}: unknown field; allowed: base, seeds, until_s, record, "
                            "fluid, grid, options")
    grid = spec.get("grid") or {}
    if not isinstance(grid, dict):
        raise ScenarioError(f"{p}: sweep.grid must be a table of PATH = [values]")
    flat: dict[str, list] = {}

    def walk(prefix: str, node: dict) -> None:  # TOML may nest dotted keys: aqm.k_pkts = [...] -> {"aqm": {...}}
        for k, v in node.items():
            path_k = f"{prefix}.{k}" if prefix else k
            if isinstance(v, dict):
                walk(path_k, v)
            elif isinstance(v, list):
                flat[path_k] = v
            else:
                raise ScenarioError(f"{p}: sweep.grid.{path_k} = {v!r}: must be a list of values")
    walk("", grid)
    base = data
    if "base" in spec:
        real = resolve_data_path(spec["base"], p.resolve().parent, allow_paths=allow_paths, field="sweep.base")
        # the same checks as a data file's (regular file, size limit, never blocks) before it is parsed
        text = read_data_file(real, field="sweep.base", shown_as=shown(spec["base"]))
        base = parse_scenario_text(text, real, allow_paths=allow_paths)
    return SweepSpec(base=base, grid=flat, seeds=spec.get("seeds", 1), until_s=spec.get("until_s"),
                     record=spec.get("record"), fluid=spec.get("fluid"), options=dict(spec.get("options") or {}))


# --------------------------------------------------------------------------- fluid-model sweeps

def default_fluid_backend() -> str:
    """"native": the compiled fluid solver (ccscope.fluid.solver), faster than JAX on CPUs and
    tested against the numpy reference to 1e-9."""
    return "native"


def _check_fluid(path: Path) -> str | None:
    """What is wrong with a cached fluid batch `fluid/<key>.parquet` against its `<key>.json` (size and
    sha256 written after it), or None."""
    side = path.with_suffix(".json")
    try:
        rec = json.loads(side.read_text())
    except FileNotFoundError:
        return f"{path.name} has no content hash (written by an earlier ccscope)"
    except (OSError, ValueError) as e:
        return f"{side.name} is unreadable ({type(e).__name__})"
    if not path.is_file():
        return f"{path.name} is missing"
    if not isinstance(rec, dict) or path.stat().st_size != rec.get("bytes") or _sha256(path) != rec.get("sha256"):
        return f"{path.name} changed since it was written"
    return None


def fluid_sweep(model: str, grid: Mapping[str, Sequence[Any]], *, out: str | Path | None = None,
                backend: str | None = None, cache: bool = True, force: bool = False,
                on_notice: Callable[[str], None] | None = None, **options: Any) -> pd.DataFrame:
    """`ccscope.fluid.sweep(model, grid, ...)` as one batch (native backend by default), cached under
    `out/fluid/<address[:16]>.parquet` (with the size and sha256 of that file in `<address[:16]>.json`:
    a batch that no longer matches is computed again, and `on_notice` told why) and written to
    `out/summary.parquet` when `out` is given."""
    from ccscope import __version__
    backend = backend or default_fluid_backend()
    doc = {"model": model, "grid": {k: [float(x) for x in np.atleast_1d(np.asarray(v, dtype=float))]
                                    for k, v in grid.items()},
           "options": options, "backend": backend, "ccscope_version": __version__}
    key = hashlib.sha256(_canonical(_jsonable(doc)).encode()).hexdigest()
    cached = None
    if out is not None:
        _outdir.ensure_dir(out, _outdir.SWEEP, force=force)
        cached = Path(out) / "fluid" / f"{key[:DIR_KEY_CHARS]}.parquet"
        if cache and cached.is_file():
            problem = _check_fluid(cached)
            if problem is None:
                df = pd.read_parquet(cached)
                _write_parquet_atomic(df, Path(out) / "summary.parquet")
                return df
            if on_notice is not None:
                on_notice(f"fluid batch {key[:DIR_KEY_CHARS]}: {problem}; recomputing")
    from ccscope.fluid import sweep as fsweep  # after the cache check: it loads scipy (and JAX)
    df = fsweep(model, dict(grid), backend=backend, **options)
    if out is not None and cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        _write_parquet_atomic(df, cached)
        _write_json_atomic(cached.with_suffix(".json"), {"file": cached.name, "bytes": cached.stat().st_size,
                                                         "sha256": _sha256(cached)})
        _write_parquet_atomic(df, Path(out) / "summary.parquet")
        _write_json_atomic(Path(out) / "sweep.json", dict(doc, key=key))
    return df


def _write_parquet_atomic(df: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(_outdir.temp_name(path.name))
    try:
        df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


# --------------------------------------------------------------------------- fluid sweeps: defaults and --set

#: Values a fluid sweep uses for the model's parameters that neither --grid nor --set gives, as the
#: packet sweep takes them from its base scenario: the defaults of `ccscope fluid ...` / `ccscope stability
#: ...` (DCTCP: N = 10, 10 Gb/s, 100 us, K = 65, g = 1/16; the normalized models at that setting's
#: wbar = (C d + K) / N with 1500-byte packets; DX: `stability dx`'s 50 flows, 80 us; TCP/RED: Misra et
#: al.'s 50 flows on 1.5 Mb/s, Tp = 1.34 s, RED 5/15; ASM and QCN: `fluid asm` / `fluid qcn`; DCQCN and TIMELY:
#: Zhu et al. (CoNEXT 2016): 2 flows on 40 Gb/s with tau* = 4 us, and two TIMELY flows starting at 7 and 3 Gb/s).
_DCTCP_WBAR = (10e9 / (8 * 1500) * 100e-6 + 65) / 10
FLUID_DEFAULTS: dict[str, dict[str, float]] = {
    "dctcp": {"n": 10, "rate_bps": 10e9, "rtt_s": 100e-6, "k_pkts": 65, "g": 1 / 16},
    "dctcp_normalized": {"wbar": _DCTCP_WBAR, "g": 1 / 16},
    "dctcp_poincare": {"wbar": _DCTCP_WBAR, "g": 1 / 16},
    "dx": {"n_flows": 50, "rate_bps": 10e9, "r0_s": 80e-6},
    "qcn": {"rate_bps": 10e9, "n_flows": 10},
    "qcn_fluid": {"rate_bps": 10e9, "n_flows": 10, "delay_s": 0.0},
    "tcp_red": {"n_flows": 50, "rate_bps": 1.5e6, "tp_s": 1.34, "min_th_pkts": 5, "max_th_pkts": 15},
    "asm": {"rate_bps": 100e9},
    "asm_fluid": {"rate_bps": 100e9, "delay_s": 0.0},
    "dcqcn": {"rate_bps": 40e9, "n_flows": 2, "delay_s": 4e-6},
    "timely": {"rate_bps": 10e9, "r0_bps": 7e9, "r1_bps": 3e9},
}
_ASM_GAINS = ("w", "p", "a_plus", "a_minus", "b_plus", "b_minus")
#: Parameters of each model that have no default here (the model's own default applies unless given).
FLUID_OPTIONAL: dict[str, tuple[str, ...]] = {
    "dctcp_normalized": ("psi",), "dx": ("p",), "qcn_fluid": ("qeq_pkts",), "tcp_red": ("max_p", "w_q"),
    "asm": _ASM_GAINS, "asm_fluid": ("q0_pkts", *_ASM_GAINS),
    "dcqcn": ("kmin_bytes", "kmax_bytes", "pmax", "g", "r_ai_bps"),
    "timely": ("alpha", "beta", "delta_bps", "t_low_s", "t_high_s", "seg_bytes"),
}


def fluid_parameters(model: str) -> list[str]:
    """The grid parameters of a fluid model (those with a default first)."""
    if model not in FLUID_DEFAULTS:
        raise ScenarioError(f"--fluid {shown(model)}: unknown model; allowed: {', '.join(FLUID_DEFAULTS)}")
    return [*FLUID_DEFAULTS[model], *FLUID_OPTIONAL.get(model, ())]


def fluid_grid(model: str, grid: Mapping[str, Sequence[Any]], sets: Sequence[str] = ()) -> tuple[dict, dict]:
    """The full grid and the options of a fluid sweep: `grid` (--grid), each `NAME=VALUE` of `sets`
    (--set: one value of a parameter, or a model option such as until_s), and FLUID_DEFAULTS for the
    parameters left. Raises ScenarioError naming the option for an unknown parameter, a --set that a
    --grid also gives, or a value that is not a number."""
    params = fluid_parameters(model)
    full: dict[str, list] = {}
    for k, v in grid.items():
        if k not in params:
            raise ScenarioError(f"--grid {shown(k)}: not a parameter of the fluid model {model!r}; allowed: "
                                f"{', '.join(params)} (model options such as until_s go in --set)")
        full[k] = list(v)
    options: dict[str, Any] = {}
    for s in sets:
        name, sep, text = s.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ScenarioError(f"--set {shown(s)}: expected NAME=VALUE, e.g. --set g=0.0625")
        value = apply_set({}, f"v={text.strip()}")["v"] if text.strip() else text
        if name in params:
            if name in full:
                raise ScenarioError(f"--set {shown(s)}: {name} is also given by --grid; give it once")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ScenarioError(f"--set {shown(s)}: {name} must be a number")
            full[name] = [value]
        else:
            options[name] = value
    for k, v in FLUID_DEFAULTS[model].items():
        full.setdefault(k, [v])
    # the grid's order: the parameters in the model's order, so the table reads the same whatever was given
    return {k: full[k] for k in params if k in full}, options


# --------------------------------------------------------------------------- sweep results: load and aggregate

#: Short names `SweepTable.column` accepts for the summary's metric columns.
METRIC_ALIASES = {"q_mean": "queue_mean_pkts", "q_p99": "queue_p99_pkts", "utilization": "bottleneck_utilization",
                  "throughput": "throughput_mean_bps", "fct_mean": "fct_mean_s", "fairness": "jain_fairness"}
#: Columns of a packet sweep's table that are neither parameters nor results.
_BOOKKEEPING = frozenset({"point", "replicate", "seed", "key", "status", "error", "cached", "result_dir", "wall_s",
                          "events_per_s"})
#: Confidence level of the interval `SweepTable.agg` reports.
CI_LEVEL = 0.95


class SweepTable:
    """A sweep's summary table (`load(out)`): one row per run, with the swept parameters known.

    table:   the rows that ran (failed points left out; `failed` counts them)
    params:  the swept parameters (grid paths, e.g. "aqm.k_pkts"; a fluid model's parameters)
    metrics: the numeric result columns `agg` and `ccscope sweep plot` accept
    """

    def __init__(self, table: pd.DataFrame, params: list[str], *, out_dir: Path | None = None, failed: int = 0,
                 fluid: str | None = None):
        self.table = table.reset_index(drop=True)
        self.params = list(params)
        self.out_dir = out_dir
        self.failed = failed
        self.fluid = fluid
        skip = set(self.params) | _BOOKKEEPING
        self.metrics = [c for c in self.table.columns if c not in skip and _numeric(self.table[c])]

    def __repr__(self) -> str:
        kind = f"fluid {self.fluid}" if self.fluid else "packet"
        seeds = ""
        if "seed" in self.table and "seed" not in self.params:
            seeds = f", {self.table['seed'].nunique()} seed(s)"
        return (f"<SweepTable ({kind}) {len(self.table)} rows, {len(self.points())} points over "
                f"{', '.join(self.params) or 'no parameter'}{seeds}; {len(self.metrics)} metrics>")

    def _repr_html_(self) -> str:  # Jupyter: what was swept, the first metric's mean and interval, a small plot
        from ccscope._repr import sweep_html
        return sweep_html(self)

    def points(self) -> pd.DataFrame:
        """The distinct swept points (one row per parameter combination)."""
        return self.table[self.params].drop_duplicates().reset_index(drop=True)

    def column(self, name: str, option: str = "column") -> str:
        """The table column `name` stands for (a column, or an alias of METRIC_ALIASES); ValueError listing
        the parameters and metrics there are otherwise."""
        if name in self.table.columns and (name in self.params or name in self.metrics):
            return name
        alias = METRIC_ALIASES.get(name)
        if alias is not None and alias in self.metrics:
            return alias
        aliases = [f"{a} ({c})" for a, c in METRIC_ALIASES.items() if c in self.metrics]
        raise ValueError(f"{option} {shown(name)}: not a column of this sweep; parameters: "
                         f"{', '.join(self.params) or '(none)'}; metrics: {', '.join(self.metrics)}"
                         + (f"; short names: {', '.join(aliases)}" if aliases else ""))

    def agg(self, *metrics: str, by: str | Sequence[str] | None = None, level: float = CI_LEVEL) -> pd.DataFrame:
        """Mean and confidence interval over the runs (seeds) of each swept point.

        metrics: columns or short names (default: every metric); by: the parameters to group by (default:
        all swept parameters). Returns one row per group: the parameters, then per metric `<m>_mean`,
        `<m>_ci95` (half-width of the Student-t interval at `level`: t_{(1+level)/2, n-1} s / sqrt(n);
        NaN when n < 2) and `<m>_n` (runs with a value)."""
        from scipy import stats
        if not 0 < level < 1:
            raise ValueError(f"level = {level!r}: must be in (0, 1), e.g. 0.95")
        cols = [self.column(m, "metric") for m in metrics] if metrics else list(self.metrics)
        keys = self.params if by is None else ([by] if isinstance(by, str) else list(by))
        keys = [k if k in self.table.columns else self.column(k, "by") for k in keys]
        suffix = f"ci{round(level * 100):d}"
        data = self.table[keys + cols].copy()
        for c in cols:
            data[c] = pd.to_numeric(data[c], errors="coerce").astype(float)
        groups = data.groupby(keys, sort=True, dropna=False) if keys else [((), data)]
        rows = []
        for key, g in groups:
            key = key if isinstance(key, tuple) else (key,)
            row = dict(zip(keys, key))
            for c in cols:
                v = g[c].to_numpy(dtype=float)
                v = v[np.isfinite(v)]
                n = len(v)
                mean = float(v.mean()) if n else float("nan")
                half = float(stats.t.ppf((1 + level) / 2, n - 1) * v.std(ddof=1) / math.sqrt(n)) if n >= 2 \
                    else float("nan")
                row.update({f"{c}_mean": mean, f"{c}_{suffix}": half, f"{c}_n": n})
            rows.append(row)
        return pd.DataFrame(rows)


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def load(out: str | Path) -> SweepTable:
    """The results of `ccscope sweep --out OUT` (or `sweep(..., out=OUT)`, `fluid_sweep`) as a SweepTable.
    Raises FileNotFoundError when OUT holds no sweep summary."""
    out_dir = Path(out)
    summary = out_dir / "summary.parquet"
    if not summary.is_file():
        raise FileNotFoundError(f"{shown(str(out_dir))}: not a sweep output directory (no summary.parquet; "
                                "write one with ccscope sweep ... --out DIR)")
    table = pd.read_parquet(summary)
    try:
        doc = json.loads((out_dir / "sweep.json").read_text())
    except (OSError, ValueError):
        doc = {}
    grid = doc.get("grid") if isinstance(doc, dict) else None
    model = doc.get("model") if isinstance(doc, dict) else None
    if isinstance(grid, dict):
        params = [k for k in grid if k in table.columns]
    elif "replicate" in table.columns:  # a packet sweep's parameters sit between point and replicate
        cols = list(table.columns)
        params = cols[cols.index("point") + 1:cols.index("replicate")] if "point" in cols else []
    else:
        params = []
    failed = 0
    if "status" in table.columns:
        ok = table["status"] == "ok"
        failed = int((~ok).sum())
        table = table[ok]
    return SweepTable(table, params, out_dir=out_dir, failed=failed, fluid=model if isinstance(model, str) else None)
