"""Running the packet engine: `simulate()` for one run, `Simulation` to drive one step by
step. The engine runs with the GIL released; scenarios go to it as JSON.

Interruption: the engine looks at pending signals every ~50 ms of a run, so Ctrl-C raises
KeyboardInterrupt promptly with the simulation intact at an event boundary. `Simulation.finish()`
then returns what was simulated so far, marked partial; `simulate()` raises `Interrupted`
(a KeyboardInterrupt) carrying that partial result as `.result`."""
from __future__ import annotations

import time
from typing import Callable, Optional, Sequence

from ccscope import _native
from ccscope.errors import Interrupted, ScenarioError, engine_call, shown
from ccscope.result import SimResult, build_result
from ccscope.scenario.io import AllowPaths, ScenarioLike, as_dict, to_engine_json

__all__ = ["simulate", "Simulation"]


def _prepare(scenario: ScenarioLike, record: Optional[Sequence[str]], seed: Optional[int],
             allow_paths: AllowPaths = None) -> str:
    data = dict(as_dict(scenario, allow_paths=allow_paths))
    if record is not None:
        if isinstance(record, str):
            record = [record]
        elif not isinstance(record, (list, tuple)) or not all(isinstance(r, str) for r in record):
            raise ScenarioError(f"record = {shown(record)}: must be a list of trace names "
                                "(queue, link, cwnd, alpha, delivered, drops, rate, feedback)")
        rec = data.get("record")
        if rec is None:
            rec = {}
        if not isinstance(rec, dict):
            raise ScenarioError(f"record = {shown(rec)}: must be a table ([record])")
        rec = dict(rec)
        rec["traces"] = list(record)
        data["record"] = rec
    if seed is not None:
        data["seed"] = seed
    return to_engine_json(data, allow_paths=allow_paths)


def _check_until(until_s: Optional[float]) -> Optional[float]:
    if until_s is None:
        return None
    try:
        u = float(until_s)
    except (TypeError, ValueError):
        raise ScenarioError(f"until_s = {until_s!r}: must be a number of seconds > 0") from None
    if not (u > 0) or u != u or u == float("inf"):
        raise ScenarioError(f"until_s = {until_s!r}: must be a finite number of seconds > 0")
    return u


def _check_max_memory(max_memory_bytes: Optional[int]) -> Optional[int]:
    """The memory budget in bytes (None: the engine's default, half the machine's memory)."""
    if max_memory_bytes is None:
        return None
    if isinstance(max_memory_bytes, bool) or not isinstance(max_memory_bytes, (int, float)) \
            or not max_memory_bytes == max_memory_bytes or not 1 <= max_memory_bytes < 2 ** 64:
        raise ScenarioError(f"max_memory_bytes = {str(max_memory_bytes)[:80]!r}: must be a number of bytes "
                            f">= 1 (e.g. 4 * 2**30), or None for half the machine's memory")
    return int(max_memory_bytes)


class Simulation:
    """A run in progress: `run_until(t_s)`, `step()`, `peek()`, then `finish()` -> SimResult."""

    def __init__(self, scenario: ScenarioLike, *, until_s: Optional[float] = None,
                 record: Optional[Sequence[str]] = None, seed: Optional[int] = None,
                 allow_paths: AllowPaths = None, max_memory_bytes: Optional[int] = None):
        # allow_paths: directories a scenario's data files may be read from besides its own
        # (ccscope.scenario.io: the sandbox rules); max_memory_bytes: the memory budget
        self._native = engine_call(_native.Simulation, _prepare(scenario, record, seed, allow_paths),
                                   _check_until(until_s), _check_max_memory(max_memory_bytes))
        self._t0 = time.perf_counter()
        #: the last run request was interrupted before its target (finish() gives a partial result)
        self._interrupted = False

    @property
    def now_s(self) -> float:
        return self._native.now_s

    @property
    def end_s(self) -> float:
        return self._native.end_s

    @property
    def events(self) -> int:
        return self._native.events

    def run_until(self, t_s: float) -> None:
        """Run every event up to `t_s`. Ctrl-C raises KeyboardInterrupt within ~50 ms, leaving the
        simulation at an event boundary: call again to go on, or `finish()` for a partial result."""
        try:
            t = float(t_s)
        except (TypeError, ValueError):
            t = float("nan")
        if not (t >= 0 and t != float("inf")):
            raise ScenarioError(f"t_s = {shown(t_s)}: must be a finite number of seconds >= 0")
        try:
            self._native.run_until(t)
        except KeyboardInterrupt:
            self._interrupted = True
            raise
        self._interrupted = False

    def step(self) -> Optional[float]:
        return self._native.step()

    def peek(self) -> Optional[float]:
        return self._native.peek()

    def run(self, *, progress: Optional[Callable[[float, float], None]] = None, chunks: int = 100) -> None:
        """Run to the end; `progress(now_s, end_s)` is called between chunks of simulated time.

        Ctrl-C raises KeyboardInterrupt (also from inside `progress`); `finish()` then returns
        what was simulated so far, marked partial."""
        end = self.end_s
        try:
            if progress is None:
                self.run_until(end)
                return
            for k in range(1, chunks + 1):
                self.run_until(end * k / chunks)
                progress(self.now_s, end)
        except KeyboardInterrupt:
            self._interrupted = True
            raise

    def finish(self) -> SimResult:
        """End the run and return its result. After an interrupted run (KeyboardInterrupt from
        `run`/`run_until`), the result covers the simulated time reached and is marked partial
        (`meta["partial"]`, `meta["interrupted_at_s"]`)."""
        from ccscope import __version__
        end = self._native.end_s
        raw = self._native.finish()
        return build_result(raw, wall_s=time.perf_counter() - self._t0, version=__version__,
                            partial=self._interrupted, end_s=end)


def simulate(scenario: ScenarioLike, *, until_s: Optional[float] = None, record: Optional[Sequence[str]] = None,
             seed: Optional[int] = None, progress: Optional[Callable[[float, float], None]] = None,
             allow_paths: AllowPaths = None, max_memory_bytes: Optional[int] = None) -> SimResult:
    """Run a scenario (Scenario, dict or file path) to `until_s` (default: the scenario's).

    record: trace names to keep ("queue", "link", "cwnd", "alpha", "delivered", "drops");
    default: the scenario's record.traces (all).
    allow_paths: directories data files may be read from besides the scenario's (ccscope.scenario.io).
    max_memory_bytes: memory budget; a scenario whose estimated memory exceeds it is refused
    with a ScenarioError naming the fields that drive the estimate (default: half the
    machine's memory). Event-driven traces are capped inside it (see result.traces["truncated"]).

    Ctrl-C stops the run within ~50 ms and raises `Interrupted` (a KeyboardInterrupt) whose
    `.result` is what was simulated so far, marked partial.
    """
    sim = Simulation(scenario, until_s=until_s, record=record, seed=seed, allow_paths=allow_paths,
                     max_memory_bytes=max_memory_bytes)
    try:
        sim.run(progress=progress)
    except KeyboardInterrupt as e:
        raise Interrupted(sim.finish()) from e
    return sim.finish()
