"""Running the packet engine: `simulate()` for one run, `Simulation` to drive one step by
step. The engine runs with the GIL released; scenarios go to it as JSON."""
from __future__ import annotations

import time
from typing import Callable, Optional, Sequence

from ccscope import _native
from ccscope.errors import ScenarioError
from ccscope.result import SimResult, build_result
from ccscope.scenario.io import ScenarioLike, as_dict, to_engine_json

__all__ = ["simulate", "Simulation"]


def _prepare(scenario: ScenarioLike, record: Optional[Sequence[str]], seed: Optional[int]) -> str:
    data = dict(as_dict(scenario))
    if record is not None:
        if isinstance(record, str):
            record = [record]
        rec = dict(data.get("record") or {})
        rec["traces"] = list(record)
        data["record"] = rec
    if seed is not None:
        data["seed"] = seed
    return to_engine_json(data)


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
                 max_memory_bytes: Optional[int] = None):
        self._native = _native.Simulation(_prepare(scenario, record, seed), _check_until(until_s),
                                          _check_max_memory(max_memory_bytes))
        self._t0 = time.perf_counter()

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
        self._native.run_until(float(t_s))

    def step(self) -> Optional[float]:
        return self._native.step()

    def peek(self) -> Optional[float]:
        return self._native.peek()

    def run(self, *, progress: Optional[Callable[[float, float], None]] = None, chunks: int = 100) -> None:
        """Run to the end; `progress(now_s, end_s)` is called between chunks of simulated time."""
        end = self.end_s
        if progress is None:
            self.run_until(end)
            return
        for k in range(1, chunks + 1):
            self.run_until(end * k / chunks)
            progress(self.now_s, end)

    def finish(self) -> SimResult:
        from ccscope import __version__
        raw = self._native.finish()
        return build_result(raw, wall_s=time.perf_counter() - self._t0, version=__version__)


def simulate(scenario: ScenarioLike, *, until_s: Optional[float] = None, record: Optional[Sequence[str]] = None,
             seed: Optional[int] = None, progress: Optional[Callable[[float, float], None]] = None,
             max_memory_bytes: Optional[int] = None) -> SimResult:
    """Run a scenario (Scenario, dict or file path) to `until_s` (default: the scenario's).

    record: trace names to keep ("queue", "link", "cwnd", "alpha", "delivered", "drops");
    default: the scenario's record.traces (all).
    max_memory_bytes: memory budget; a scenario whose estimated memory exceeds it is refused
    with a ScenarioError naming the fields that drive the estimate (default: half the
    machine's memory). Event-driven traces are capped inside it (see result.traces["truncated"]).
    """
    sim = Simulation(scenario, until_s=until_s, record=record, seed=seed, max_memory_bytes=max_memory_bytes)
    sim.run(progress=progress)
    return sim.finish()
