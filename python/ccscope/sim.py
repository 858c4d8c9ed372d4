"""Running the packet engine: `simulate()` for one run, `Simulation` to drive one step by
step. The engine runs with the GIL released; scenarios go to it as JSON.

Interruption: the engine looks at pending signals every ~50 ms of a run, so Ctrl-C raises
KeyboardInterrupt promptly with the simulation intact at an event boundary. `Simulation.finish()`
then returns what was simulated so far, marked partial; `simulate()` raises `Interrupted`
(a KeyboardInterrupt) carrying that partial result as `.result`.

Spilling: event-driven traces (drops and marks, the every-change queue, feedback frames) are
written to disk in chunks of 2^16 rows instead of stopping at their row caps in memory. The
directory is private (`ccscope-spill-PID-HOST-RAND` under the system's temporary directory),
created by the engine on the first chunk only, and owned by the result: removed when the
result's traces are garbage collected or at interpreter exit; those of killed processes are
removed by the next process that spills. `spill_dir=False` keeps today's caps in memory."""
from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile
import time
import weakref
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

from ccscope import _native
from ccscope.errors import Interrupted, ScenarioError, engine_call, shown
from ccscope.result import SimResult, build_result
from ccscope.scenario.io import AllowPaths, ScenarioLike, as_dict, to_engine_json

__all__ = ["simulate", "Simulation"]

#: Share of the spill directory's free disk space the chunks of one run may use ...
SPILL_DISK_FRACTION = 0.5
#: ... and at most this many bytes (64 GiB: about 2.6e9 drop rows).
MAX_SPILL_DISK_BYTES = 64 << 30
#: Test-only knobs (environment): rows per chunk, and the disk cap in bytes. Not for users: the
#: chunk size trades memory for files, and the default disk cap follows the free space.
TEST_CHUNK_ROWS_ENV = "CCSCOPE_TEST_SPILL_CHUNK_ROWS"
TEST_DISK_BYTES_ENV = "CCSCOPE_TEST_SPILL_DISK_BYTES"
_PRIVATE = re.compile(r"^ccscope-spill-(?P<pid>\d+)-(?P<host>[A-Za-z0-9]+)-[0-9a-f]{8}$")
_stale_checked = False

SpillDir = Union[None, bool, str, "os.PathLike[str]"]


def clean_stale_spill_dirs(folder: Optional[Path] = None) -> list[Path]:
    """Remove private spill directories (`ccscope-spill-PID-HOST-RAND`) in `folder` (default: the
    system's temporary directory) whose process is gone (same host, pid not alive)."""
    from ccscope._outdir import _alive, _host
    folder = Path(folder or tempfile.gettempdir())
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for n in names:
        m = _PRIVATE.match(n)
        if m and m["host"] == _host() and not _alive(int(m["pid"])):
            shutil.rmtree(folder / n, ignore_errors=True)
            removed.append(folder / n)
    return removed


def private_spill_dir() -> Path:
    """A new private spill directory's path (not created: the engine creates it on the first
    chunk). The first call in a process removes those that killed processes left."""
    global _stale_checked
    from ccscope._outdir import _host
    if not _stale_checked:
        _stale_checked = True
        clean_stale_spill_dirs()
    return Path(tempfile.gettempdir()) / f"ccscope-spill-{os.getpid()}-{_host()}-{secrets.token_hex(4)}"


def default_spill_cap(path: Path) -> int:
    """Disk cap of a run's chunks: SPILL_DISK_FRACTION of the free space of the filesystem that
    holds `path` (its nearest existing folder), at most MAX_SPILL_DISK_BYTES."""
    env = os.environ.get(TEST_DISK_BYTES_ENV)
    if env:
        return int(env)
    p = Path(path)
    while not p.exists() and p.parent != p:
        p = p.parent
    try:
        free = shutil.disk_usage(p).free
    except OSError:
        return 0
    return int(min(free * SPILL_DISK_FRACTION, MAX_SPILL_DISK_BYTES))


def _spill_args(spill_dir: SpillDir) -> tuple[Optional[str], Optional[int], Optional[int]]:
    """(directory, disk cap, chunk rows) for the engine; (None, None, None) without spilling."""
    if spill_dir is False:
        return None, None, None
    if spill_dir is None or spill_dir is True:
        path = private_spill_dir()
    elif isinstance(spill_dir, (str, os.PathLike)):
        path = Path(spill_dir)
        if path.exists():
            raise ScenarioError(f"spill_dir = {shown(str(path))}: must not exist yet (the run creates it and "
                                "removes it with the result)")
    else:
        raise ScenarioError(f"spill_dir = {shown(spill_dir)}: must be a path, None (a private temporary "
                            "directory) or False (no spilling)")
    env = os.environ.get(TEST_CHUNK_ROWS_ENV)
    return str(path), default_spill_cap(path), (int(env) if env else None)


def _prepare(scenario: ScenarioLike, record: Optional[Sequence[str]], seed: Optional[int],
             allow_paths: AllowPaths = None) -> str:
    data = dict(as_dict(scenario, allow_paths=allow_paths))
    if record is not None:
        if isinstance(record, str):
            record = [record]
        elif not isinstance(record, (list, tuple)) or not all(isinstance(r, str) for r in record):
            raise ScenarioError(f"record = {shown(record)}: must be a list of trace names "
                                "(queue, link, cwnd, alpha, delivered, drops, rate, feedback, pfc)")
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
                 allow_paths: AllowPaths = None, max_memory_bytes: Optional[int] = None,
                 spill_dir: SpillDir = None):
        # allow_paths: directories a scenario's data files may be read from besides its own
        # (ccscope.scenario.io: the sandbox rules); max_memory_bytes: the memory budget;
        # spill_dir: where event traces spill (module docs): None a private temporary directory,
        # a path that does not exist yet, or False for no spilling (caps in memory)
        text = _prepare(scenario, record, seed, allow_paths)
        until, budget = _check_until(until_s), _check_max_memory(max_memory_bytes)
        self._spill_dir, cap, chunk = _spill_args(spill_dir)
        self._native = engine_call(_native.Simulation, text, until, budget, self._spill_dir, cap, chunk)
        # until finish() hands it to the result, the spill directory is the simulation's
        self._spill_cleanup = weakref.finalize(self, shutil.rmtree, self._spill_dir, True) \
            if self._spill_dir else None
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

    def flow_routes(self) -> list[tuple[list[str], list[str]]]:
        """Each flow's routes as the engine forwards on them (its per-flow ECMP choice): one
        (data route, ACK route) per flow in flow id order, as port names "from->to" in crossing
        order. Flows a workload creates appear once created: call it after the run, before
        `finish()` (`ccscope.export.simulate_with_routes`)."""
        return [(list(f), list(r)) for f, r in self._native.flow_routes()]

    def finish(self) -> SimResult:
        """End the run and return its result. After an interrupted run (KeyboardInterrupt from
        `run`/`run_until`), the result covers the simulated time reached and is marked partial
        (`meta["partial"]`, `meta["interrupted_at_s"]`)."""
        from ccscope import __version__
        end = self._native.end_s
        raw = self._native.finish()
        owner = None
        if self._spill_cleanup is not None:
            self._spill_cleanup.detach()
            if raw.get("spilled"):
                owner = self._spill_dir  # the result's traces own it now
            elif os.path.lexists(self._spill_dir):  # created, then a write failed: nothing to keep
                shutil.rmtree(self._spill_dir, ignore_errors=True)
        return build_result(raw, wall_s=time.perf_counter() - self._t0, version=__version__,
                            partial=self._interrupted, end_s=end, spill_dir=owner)


def simulate(scenario: ScenarioLike, *, until_s: Optional[float] = None, record: Optional[Sequence[str]] = None,
             seed: Optional[int] = None, progress: Optional[Callable[[float, float], None]] = None,
             allow_paths: AllowPaths = None, max_memory_bytes: Optional[int] = None,
             spill_dir: SpillDir = None) -> SimResult:
    """Run a scenario (Scenario, dict or file path) to `until_s` (default: the scenario's).

    record: trace names to keep ("queue", "link", "cwnd", "alpha", "delivered", "drops");
    default: the scenario's record.traces (all).
    allow_paths: directories data files may be read from besides the scenario's (ccscope.scenario.io).
    max_memory_bytes: memory budget; a scenario whose estimated memory exceeds it is refused
    with a ScenarioError naming the fields that drive the estimate (default: half the
    machine's memory).
    spill_dir: event-driven traces (drops, the every-change queue, feedback) spill to disk in
    chunks beyond 2^16 rows: None (default) a private temporary directory owned by the result,
    a path that does not exist yet, or False to cap them in memory inside the budget instead.
    A trace cut by a cap (memory, or the disk cap) is named in result.traces["truncated"].

    Ctrl-C stops the run within ~50 ms and raises `Interrupted` (a KeyboardInterrupt) whose
    `.result` is what was simulated so far, marked partial.
    """
    sim = Simulation(scenario, until_s=until_s, record=record, seed=seed, allow_paths=allow_paths,
                     max_memory_bytes=max_memory_bytes, spill_dir=spill_dir)
    try:
        sim.run(progress=progress)
    except KeyboardInterrupt as e:
        raise Interrupted(sim.finish()) from e
    return sim.finish()
