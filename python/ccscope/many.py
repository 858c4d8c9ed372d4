"""Batches on one machine: `simulate_many()` runs many scenarios in parallel and returns their
results in input order, each identical to what `simulate()` gives for the same scenario.

Place in the pipeline: between the scenario layer and the engine, beside `sim.simulate`
(which it calls per item). The engine releases the GIL in `Simulation.run_until`, so a pool
of threads runs the engine parts truly in parallel; turning the engine's columns into
DataFrames (`finish()`) holds the GIL and is the serial remainder. `executor="process"`
runs each item in its own process instead (no shared GIL at all, but each result is pickled
back); see BENCHMARKS.md for the measured speed-ups of both.

Determinism: every item carries its own seed and the engine has no global state, so the
schedule of the pool cannot change any trace (wall-time fields in `summary`/`meta` differ,
as they do between two sequential runs).
"""
from __future__ import annotations

import os
from concurrent.futures import FIRST_EXCEPTION, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from collections.abc import Iterable, Sequence

from ccscope.result import SimResult
from ccscope.scenario.io import ScenarioLike
from ccscope.sim import simulate

__all__ = ["ItemError", "default_jobs", "simulate_many"]

#: Executors `simulate_many` can use, chosen by name.
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
    """The same kind of error, its message prefixed with the item's position."""
    msg = f"scenarios[{index}]: {err}"
    try:
        new = type(err)(msg)
    except Exception:  # noqa: BLE001 - an exception type with an unusual constructor: keep it as it is
        return err
    new.__cause__ = err
    return new


def _run_one(scenario: ScenarioLike, until_s: float | None, record: Sequence[str] | None,
             seed: int | None) -> SimResult:
    return simulate(scenario, until_s=until_s, record=record, seed=seed)


def simulate_many(scenarios: Iterable[ScenarioLike], *, until_s: float | None = None,
                  record: Sequence[str] | None = None, seeds: Sequence[int | None] | None = None,
                  jobs: int | None = None, executor: str = "thread",
                  errors: str = "raise") -> list[SimResult | ItemError]:
    """Run every scenario (Scenario, dict or file path) and return the results in input order.

    until_s, record: as for `simulate`, applied to every item.
    seeds:   optional per-item seed overrides (same length as `scenarios`; None keeps an item's own).
    jobs:    parallel runs (default: the CPUs available; 1 runs them one by one in this thread).
    executor: "thread" (default; the engine runs with the GIL released) or "process".
    errors:  "raise" (default): the first failing item, in input order, raises its own error type
             (ScenarioError, SimulationError, ...) with the message prefixed by `scenarios[i]: `,
             and items not yet started are cancelled. "return": every item runs, and a failing
             item's slot holds an `ItemError` (index, error) instead of a SimResult.
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

    out: list[SimResult | ItemError | None] = [None] * len(items)
    if jobs == 1:
        for i, sc in enumerate(items):
            try:
                out[i] = _run_one(sc, until_s, rec, seeds[i])
            except Exception as e:
                if errors == "raise":
                    raise _with_index(i, e) from e
                out[i] = ItemError(i, e)
        return out  # type: ignore[return-value]

    pool: Executor = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="ccscope-sim") if executor == "thread" \
        else ProcessPoolExecutor(max_workers=jobs)
    with pool:
        futures: list[Future] = [pool.submit(_run_one, sc, until_s, rec, seeds[i]) for i, sc in enumerate(items)]
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
                out[i] = ItemError(i, err)
    return out  # type: ignore[return-value]
