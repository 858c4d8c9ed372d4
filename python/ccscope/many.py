"""Batches on one machine: `simulate_many()` runs many scenarios in parallel and returns their
results in input order, each identical to what `simulate()` gives for the same scenario.

Place in the pipeline: between the scenario layer and the engine, beside `sim.simulate`.
The default executor hands the whole batch to the engine (`_native.run_many`): a pool of
Rust threads (rayon) parses, builds and runs every item with the GIL released, and only the
conversion of each item's columns into DataFrames runs in Python, in input order (the
serial remainder). `executor="process"` runs each item through `simulate` in its own process
instead (each result is pickled back); see BENCHMARKS.md for the measured speed-ups of both.

Determinism: every item carries its own seed and the engine has no global state, so the
schedule of the pool cannot change any trace (wall-time fields in `summary`/`meta` differ,
as they do between two sequential runs).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from collections.abc import Iterable, Sequence

from ccscope import _native
from ccscope.errors import ScenarioError, cut_message
from ccscope.result import SimResult, build_result
from ccscope.scenario.io import AllowPaths, ScenarioLike
from ccscope.sim import _check_max_memory, _check_until, _prepare, simulate

__all__ = ["ItemError", "default_jobs", "simulate_many"]

#: Executors `simulate_many` can use, chosen by name: "thread" = the engine's Rust threads.
EXECUTORS = ("thread", "process")


def default_jobs() -> int:
    """The CPUs this process may run on (affinity-aware), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


class ItemError:
    """Stands in a batch's result list for an item that failed (with `errors="return"`).

    index: position in the input;  error: the exception raised by `simulate` for that item.
    `success` is False, mirroring `SimResult.success`.
    """

    success = False

    def __init__(self, index: int, error: BaseException):
        self.index = index
        self.error = error

    @property
    def message(self) -> str:
        return f"scenarios[{self.index}]: {type(self.error).__name__}: {self.error}"

    def __repr__(self) -> str:
        return f"ItemError({self.message!r})"


def _with_index(index: int, err: BaseException) -> BaseException:
    """The same kind of error, its message prefixed with the item's position (long values cut)."""
    msg = f"scenarios[{index}]: {cut_message(str(err))}"
    try:
        new = type(err)(msg)
    except Exception:  # noqa: BLE001 - an exception type with an unusual constructor: keep it as it is
        return err
    new.__cause__ = err
    return new


def _short(err: BaseException) -> BaseException:
    """A ScenarioError whose message holds a long value comes back with the value cut."""
    if isinstance(err, ScenarioError):
        msg = cut_message(str(err))
        if msg != str(err):
            new = ScenarioError(msg)
            new.__cause__ = err
            return new
    return err


@contextmanager
def _stop_workers_on_interrupt(pool: ProcessPoolExecutor):
    """Ctrl-C in a process batch: cancel the pending items and end the running ones at once
    (their worker processes are terminated), so leaving the pool does not wait for them."""
    try:
        yield
    except KeyboardInterrupt:
        workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown() forgets them
        pool.shutdown(wait=False, cancel_futures=True)
        for p in workers:
            try:
                p.terminate()
            except (OSError, ValueError):  # already gone
                pass
        raise


def _run_one(scenario: ScenarioLike, until_s: float | None, record: Sequence[str] | None,
             seed: int | None, allow_paths: AllowPaths = None, max_memory_bytes: int | None = None) -> SimResult:
    return simulate(scenario, until_s=until_s, record=record, seed=seed, allow_paths=allow_paths,
                    max_memory_bytes=max_memory_bytes)


def _run_native(items: list, until_s: float | None, rec: list[str] | None, seeds: list,
                jobs: int, errors: str, allow_paths: AllowPaths = None,
                max_memory_bytes: int | None = None) -> list[SimResult | ItemError]:
    """The batch on the engine's Rust threads; Python only prepares JSON and builds DataFrames."""
    from ccscope import __version__
    out: list[SimResult | ItemError | None] = [None] * len(items)
    batch: list[tuple[str, float | None]] = []
    where: list[int] = []
    for i, sc in enumerate(items):
        try:
            batch.append((_prepare(sc, rec, seeds[i], allow_paths), _check_until(until_s)))
        except Exception as e:
            if errors == "raise":
                raise _with_index(i, e) from e
            out[i] = ItemError(i, _short(e))
            continue
        where.append(i)
    ran = _native.run_many(batch, jobs, errors == "raise", max_memory_bytes)
    for i, (raw, err) in zip(where, ran):
        if raw is not None:
            out[i] = build_result(raw, wall_s=raw.pop("wall_s"), version=__version__)
        elif err is not None:
            if errors == "raise":
                raise _with_index(i, err) from err
            out[i] = ItemError(i, _short(err))
    return out  # type: ignore[return-value]


def simulate_many(scenarios: Iterable[ScenarioLike], *, until_s: float | None = None,
                  record: Sequence[str] | None = None, seeds: Sequence[int | None] | None = None,
                  jobs: int | None = None, executor: str = "thread",
                  errors: str = "raise", allow_paths: AllowPaths = None,
                  max_memory_bytes: int | None = None) -> list[SimResult | ItemError]:
    """Run every scenario (Scenario, dict or file path) and return the results in input order.

    until_s, record: as for `simulate`, applied to every item.
    seeds:   optional per-item seed overrides (same length as `scenarios`; None keeps an item's own).
    jobs:    parallel runs (default: the CPUs available; 1 runs them one by one in this thread).
    executor: "thread" (default; Rust threads in the engine, GIL released) or "process".
    errors:  "raise" (default): the first failure found, in input order, raises its own error type
             (ScenarioError, SimulationError, ...) with the message prefixed by `scenarios[i]: `,
             and items not yet started when an item fails are skipped. "return": every item runs, and a failing
             item's slot holds an `ItemError` (index, error) instead of a SimResult.
    allow_paths: directories data files named in scenario files may be read from besides each
             file's own directory (ccscope.scenario.io: the sandbox rules).
    max_memory_bytes: the memory budget of each item, as for `simulate` (default: half the
             machine's memory): an item estimated above it fails with a ScenarioError naming the
             fields that drive the estimate. Up to `jobs` items run at the same time, each with
             this budget, so the whole batch may use up to `jobs` times it: divide a total by
             `jobs` (or lower `jobs`) to bound the batch.
    Errors are picklable, so a process executor passes each item's own error back unchanged.

    Ctrl-C cancels every running and pending item (threads within one chunk of events, worker
    processes terminated) and raises KeyboardInterrupt; no worker outlives the call.
    """
    items = list(scenarios)
    if errors not in ("raise", "return"):
        raise ValueError(f"errors = {errors!r}: allowed values are 'raise', 'return'")
    if executor not in EXECUTORS:
        raise ValueError(f"executor = {executor!r}: allowed values are {', '.join(map(repr, EXECUTORS))}")
    if seeds is None:
        seeds = [None] * len(items)
    else:
        seeds = list(seeds)
        if len(seeds) != len(items):
            raise ValueError(f"seeds: {len(seeds)} given for {len(items)} scenarios; give one per scenario (or None)")
    if jobs is None:
        jobs = default_jobs()
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs = {jobs!r}: must be an integer >= 1 (parallel runs)")
    rec = [record] if isinstance(record, str) else (None if record is None else list(record))
    jobs = min(jobs, max(1, len(items)))
    max_memory_bytes = _check_max_memory(max_memory_bytes)

    if executor == "thread":
        return _run_native(items, until_s, rec, seeds, jobs, errors, allow_paths, max_memory_bytes)
    out: list[SimResult | ItemError | None] = [None] * len(items)
    if jobs == 1:
        for i, sc in enumerate(items):
            try:
                out[i] = _run_one(sc, until_s, rec, seeds[i], allow_paths, max_memory_bytes)
            except Exception as e:
                if errors == "raise":
                    raise _with_index(i, e) from e
                out[i] = ItemError(i, _short(e))
        return out  # type: ignore[return-value]

    with ProcessPoolExecutor(max_workers=jobs) as pool, _stop_workers_on_interrupt(pool):
        futures: list[Future] = [pool.submit(_run_one, sc, until_s, rec, seeds[i], allow_paths, max_memory_bytes)
                                 for i, sc in enumerate(items)]
        if errors == "raise":
            wait(futures, return_when=FIRST_EXCEPTION)
            if any(f.done() and f.exception() is not None for f in futures):
                for f in futures:
                    f.cancel()
        for i, f in enumerate(futures):
            if f.cancelled():
                continue
            err = f.exception()
            if err is None:
                out[i] = f.result()
            elif errors == "raise":
                for g in futures:
                    g.cancel()
                raise _with_index(i, err) from err
            else:
                out[i] = ItemError(i, _short(err))
    return out  # type: ignore[return-value]
