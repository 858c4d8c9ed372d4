"""Congestion controllers written in Python (docs/extending.md).

Register a class by name, then use the name in a scenario like a built-in (`flows.cc = "mycc"`,
or `cc` of one flow or of a workload)::

    from ccscope import cc

    class MyCC(cc.Controller):
        def on_ack(self, now_s, acked_bytes, ece, rtt_s, flight_bytes, in_recovery, snd_una, snd_nxt):
            self.cwnd_bytes += self.mss * acked_bytes / self.cwnd_bytes

    cc.register_cc("mycc", MyCC)

The engine makes one instance per flow (`MyCC(ctx)`, ctx a `FlowContext`) and calls its hooks
with the GIL, only for the flows that use it. Units: time in seconds, windows and sizes in bytes,
sequence numbers (`snd_una`, `snd_nxt`) in segments. After each hook the window is the number
the hook returned, or else the instance's `cwnd_bytes`; it must be a finite number of bytes > 0.
`ssthresh_bytes` and `alpha`, when the instance has them, are recorded in the traces.
Randomness: only `ctx.rng`, a `random.Random` seeded from the scenario seed and the flow index.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import math
import os
import random
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from ccscope import _native

__all__ = ["Controller", "ControllerError", "FlowContext", "builtin_names", "ensure_plugins", "load_plugin",
           "loaded_plugins", "register_cc", "registered", "source_hash", "used_controllers"]

#: A Python controller failed during a run (a `SimulationError`): the message names the controller,
#: the flow, the simulated time and the hook, and ends with the controller's traceback.
ControllerError = _native.ControllerError
ControllerError.__module__ = __name__

#: The hooks every controller has (`Controller` gives each a default that does nothing).
HOOKS = ("on_ack", "on_dup_ack", "on_congestion", "on_recovery_end")

_REGISTERED: dict[str, type] = {}
#: The plugins `load_plugin` loaded in this process, as another process loads them again (a sweep
#: worker): {"file": absolute path} or {"module": name, "path": the folder its top package is in}.
_PLUGINS: list[dict] = []
_PLUGINS_LOCK = threading.Lock()


@dataclass(frozen=True)
class FlowContext:
    """What a controller is made from: its flow and the flow's TCP settings."""
    #: The flow's index in the run (scenario flows first, then workload flows as they start).
    flow: int
    #: Segment size, bytes.
    mss_bytes: int
    #: Initial window, segments (`tcp.iw_pkts`).
    iw_pkts: int
    #: Duplicate ACKs that trigger fast retransmit (`tcp.dupack_threshold`).
    dupack_threshold: int
    #: Slow-start growth limit per ACK, segments (2 with `tcp.delayed_ack`, RFC 3465; else 1).
    ss_limit_pkts: float
    #: The flow's own random stream (seeded from the scenario seed and the flow index).
    rng: random.Random


class Controller:
    """Base class: the interface with defaults that leave the window alone.

    Class attributes (read once, at `register_cc`):

    - `ecn`: data packets are ECN-capable (ECT). Default False.
    - `ecn_once_per_window`: an ECN-Echo reaches `on_congestion(now_s, "ecn", flight_bytes)` at most
      once per window of data and never in loss recovery (RFC 3168); False: only `on_ack`'s `ece`
      tells. Default True.
    - `dctcp_echo`: the receiver echoes CE exactly, per packet, as DCTCP's receiver does (and
      retransmissions stay ECT unless `tcp.ect_on_retransmissions` is set). Default False.
    """
    ecn = False
    ecn_once_per_window = True
    dctcp_echo = False

    def __init__(self, ctx: FlowContext):
        self.ctx = ctx
        self.mss = float(ctx.mss_bytes)
        #: The congestion window, bytes (the engine reads it after every hook that returns None).
        self.cwnd_bytes = ctx.iw_pkts * self.mss
        #: Slow-start threshold, bytes (recorded in the traces; inf: none yet).
        self.ssthresh_bytes = math.inf

    def on_ack(self, now_s, acked_bytes, ece, rtt_s, flight_bytes, in_recovery, snd_una, snd_nxt):
        """An ACK of new data: `acked_bytes` newly acknowledged, `ece` the ECN-Echo flag, `rtt_s` the
        RTT sample (None under Karn's rule), `flight_bytes` outstanding before it, `in_recovery`
        in fast recovery (a partial ACK), `snd_una`/`snd_nxt` after it (segments)."""

    def on_dup_ack(self, now_s, ece, flight_bytes, in_recovery, snd_una, snd_nxt):
        """A duplicate ACK (nothing new acknowledged)."""

    def on_congestion(self, now_s, kind, flight_bytes):
        """Congestion: `kind` is "fast_retransmit" (the dupack_threshold-th duplicate ACK; fast
        recovery starts), "timeout" (the retransmission timer; go-back-N follows) or "ecn"
        (ECN-Echo, see `ecn_once_per_window`); `flight_bytes` outstanding."""

    def on_recovery_end(self, now_s, flight_bytes):
        """A full ACK ends fast recovery (called before that ACK's `on_ack`)."""


def builtin_names() -> list[str]:
    """The built-in controllers' names."""
    return list(_native.cc_names()[0])


def registered() -> dict[str, type]:
    """Registered Python controllers: name -> class."""
    return dict(_REGISTERED)


def register_cc(name: str, cls: type) -> None:
    """Register controller class `cls` as `name` (registering a name again replaces it).

    `cls(ctx)` makes the controller of one flow (`ctx`: `FlowContext`); it has the hooks of
    `Controller` (subclass it to get the defaults). Raises ValueError for a built-in name or a
    class without the interface."""
    if not isinstance(name, str):
        raise TypeError(f"register_cc: name = {name!r}: must be a string")
    if name in builtin_names():
        raise ValueError(f"register_cc: name = {name!r} is a built-in controller; built-in names "
                         f"({', '.join(builtin_names())}) cannot be registered")
    if not inspect.isclass(cls):
        raise TypeError(f"register_cc({name!r}, ...): {cls!r} is not a class; give the controller class")
    missing = [h for h in HOOKS if not callable(getattr(cls, h, None))]
    if missing:
        raise TypeError(f"register_cc({name!r}, {cls.__name__}): no method {', '.join(missing)} "
                        f"(subclass ccscope.cc.Controller for the defaults)")
    flags = {}
    for attr, default in (("ecn", False), ("ecn_once_per_window", True), ("dctcp_echo", False)):
        v = getattr(cls, attr, default)
        if not isinstance(v, bool):
            raise TypeError(f"register_cc({name!r}, {cls.__name__}): {attr} = {v!r}: must be True or False")
        flags[attr] = v

    def maker(flow, seed, mss_bytes, iw_pkts, dupack_threshold, ss_limit_pkts):
        ctx = FlowContext(flow=flow, mss_bytes=mss_bytes, iw_pkts=iw_pkts, dupack_threshold=dupack_threshold,
                          ss_limit_pkts=ss_limit_pkts, rng=random.Random(seed))
        return cls(ctx)

    _native.register_cc(name, maker, flags["ecn"], flags["ecn_once_per_window"], flags["dctcp_echo"])
    _REGISTERED[name] = cls


def used_controllers(scenario) -> list[str]:
    """The registered Python controllers a scenario (a dict) names, in `flows`, `flow` or `workload`."""
    names: set[str] = set()
    if not isinstance(scenario, dict):
        return []
    sections = [scenario.get("flows")] + list(scenario.get("flow") or []) + list(scenario.get("workload") or [])
    for sec in sections:
        if isinstance(sec, dict):
            v = sec.get("cc")
            names.update(x for x in (v if isinstance(v, list) else [v]) if isinstance(x, str))
    return sorted(names & set(_REGISTERED))


def source_hash(names) -> str:
    """A hash of the source of the registered controllers `names` (their modules' files), for
    cache keys: an edit of a controller changes it."""
    h = hashlib.sha256()
    for name in sorted(set(names)):
        cls = _REGISTERED.get(name)
        if cls is None:
            continue
        h.update(name.encode())
        mod = sys.modules.get(cls.__module__)
        try:
            h.update((inspect.getsource(mod) if mod is not None else inspect.getsource(cls)).encode())
        except (OSError, TypeError):
            h.update(cls.__qualname__.encode())
    return h.hexdigest()


def load_plugin(spec: str) -> None:
    """Import a module that registers controllers: a module name (`mypkg.mycc`) or a `.py` file.
    It is recorded for `loaded_plugins` (sweep workers load the same plugins)."""
    p = Path(spec)
    if spec.endswith(".py") or p.is_file():
        if not p.is_file():
            raise ValueError(f"--plugin {spec!r}: no such file")
        mod_name = f"ccscope_plugin_{hashlib.sha256(str(p.resolve()).encode()).hexdigest()[:12]}"
        s = importlib.util.spec_from_file_location(mod_name, p)
        if s is None or s.loader is None:
            raise ValueError(f"--plugin {spec!r}: cannot load it as a Python file")
        mod = importlib.util.module_from_spec(s)
        sys.modules[mod_name] = mod
        s.loader.exec_module(mod)
        _record({"file": str(p.resolve())})
        return
    try:
        importlib.import_module(spec)
    except ModuleNotFoundError as e:
        if e.name and spec.startswith(e.name):
            raise ValueError(f"--plugin {spec!r}: no module of that name (give an importable module "
                             f"or a .py file)") from None
        raise
    top = sys.modules.get(spec.split(".")[0])
    where = getattr(top, "__file__", None)
    folder = None
    if where:
        folder = str(Path(where).resolve().parent.parent if hasattr(top, "__path__") else Path(where).resolve().parent)
    _record({"module": spec, "path": folder})


def _record(rec: dict) -> None:
    with _PLUGINS_LOCK:
        if rec not in _PLUGINS:
            _PLUGINS.append(rec)


def loaded_plugins() -> list[dict]:
    """The plugins loaded in this process by `load_plugin` (`--plugin`), in order, as records that
    `ensure_plugins` loads in another process."""
    with _PLUGINS_LOCK:
        return [dict(r) for r in _PLUGINS]


def ensure_plugins(plugins) -> None:
    """Load the plugin records of `loaded_plugins()` (from another process) that this process has
    not loaded yet: what a sweep worker does before it runs a point. A module's folder is added to
    `sys.path` when it is not there. Raises ValueError naming the plugin that fails."""
    for rec in plugins or ():
        with _PLUGINS_LOCK:
            if rec in _PLUGINS:
                continue
        spec = rec.get("file") or rec.get("module")
        try:
            if rec.get("file"):
                load_plugin(rec["file"])
            else:
                folder = rec.get("path")
                if folder and folder not in sys.path:
                    sys.path.append(folder)
                load_plugin(rec["module"])
                _record(dict(rec))
        except Exception as e:  # noqa: BLE001 - the plugin's own error, named and chained
            raise ValueError(f"--plugin {spec!r}: loading it in the sweep worker (pid {os.getpid()}) "
                             f"failed: {type(e).__name__}: {e}") from e
