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

Rate-based controllers (the reaction point of a paced, window-less source, as the built-in `qcn`
and `asm`) subclass `RateController` and are registered the same way (`register_cc("myrate",
MyRate)`); their hooks are `on_feedback(now_s, kind, cpid, value)`, `on_bytes_sent(now_s, nbytes)`
and `on_timer(now_s)`. After each hook the rate is the number the hook returned, or else the
instance's `rate_bps` (bits per second, finite, > 0), and the timer is the instance's
`deadline_s` (seconds, or None): `on_timer` is called once the simulated time reaches it.
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
from typing import NamedTuple
from pathlib import Path

from ccscope import _native

__all__ = ["Controller", "ControllerError", "FlowContext", "IntHop", "RateContext", "RateController", "builtin_names",
           "ensure_plugins", "load_plugin", "loaded_plugins", "register_cc", "registered", "source_hash",
           "used_controllers"]

#: A Python controller failed during a run (a `SimulationError`): the message names the controller,
#: the flow, the simulated time and the hook, and ends with the controller's traceback.
ControllerError = _native.ControllerError
ControllerError.__module__ = __name__

#: The hooks every controller has (`Controller` gives each a default that does nothing).
HOOKS = ("on_ack", "on_dup_ack", "on_congestion", "on_recovery_end")
#: The hooks every rate controller has (`RateController` gives each a default that does nothing).
RATE_HOOKS = ("on_feedback", "on_bytes_sent", "on_timer")

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
    #: When `on_timer` is wanted, seconds of simulated time, or None: read after every hook, only
    #: for a class that overrides `on_timer` (the same rules as `RateController.deadline_s`).
    deadline_s = None

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

    def on_timer(self, now_s):
        """The simulated time reached `deadline_s`: move it later or set it to None. A class that
        does not override it has no timer (its `deadline_s` is never read)."""


@dataclass(frozen=True)
class RateContext:
    """What a rate controller is made from: its flow and the flow's source."""
    #: The flow's index in the run (scenario flows first, then workload flows as they start).
    flow: int
    #: The source's line rate (the speed of its first link), bits per second.
    line_rate_bps: float
    #: Data frame size, bytes (`packet_bytes`).
    packet_bytes: int
    #: The flow's own random stream (seeded from the scenario seed and the flow index).
    rng: random.Random
    #: The flow's path RTT, seconds (propagation plus one data packet's and one ACK's
    #: serialization per hop, rounded to the picosecond; HPCC's default T); 0.0 if unknown.
    base_rtt_s: float = 0.0


class IntHop(NamedTuple):
    """One hop's in-band telemetry record (HPCC, Li et al. SIGCOMM 2019, section 3.2), as an RDMA
    controller's `on_int` gets it: what a switch egress port stamped into the data packet when it
    started the packet's transmission."""
    #: When the port started transmitting the packet, seconds of simulated time.
    ts_s: float
    #: Bytes the port has put on its link so far, this packet included.
    tx_bytes: int
    #: Bytes waiting in the port's queues once the packet left them.
    qlen_bytes: int
    #: The port's link rate, bits per second.
    rate_bps: int
    #: `ts_s` as an exact integer of picoseconds (the engine's clock): differences of two
    #: records, `(b.ts_ps - a.ts_ps) * 1e-12`, carry no rounding error.
    ts_ps: int


class RateController:
    """Base class of rate-based controllers: the reaction point of a paced source that has no
    window and no ACKs (as the built-in `qcn` and `asm`); the defaults send at line rate.

    The engine reads two attributes after every hook:

    - `rate_bps`: the sending rate, bits per second (a finite number > 0; frames leave
      `packet_bytes * 8 / rate_bps` seconds apart). A hook may instead return the new rate.
    - `deadline_s`: when the controller wants `on_timer`, seconds of simulated time, or None
      for no timer. It must not lie in the past; after `on_timer` it must be later than `now_s`
      (or None). Moving it later is free: the engine calls `on_timer` only once the time has
      reached the deadline it last read.

    `target_rate_bps`, when the instance has it, is recorded in the `rate` trace (NaN without).

    Class attribute (read once, at `register_cc`): `rdma`: the flow runs on the RDMA transport
    (RoCE: go-back-N, ACKs, NACKs, and the DCQCN notification point's CNPs; as `cc = "rdma"` and
    the built-in DCQCN) instead of the paced 802.1Qau source. Default False. An RDMA controller
    also gets `on_cnp`, `on_ack`, `on_int` (in-band telemetry), `on_nack` and `on_timeout` (each
    only if the class overrides it), and the engine reads `window_bytes` after every hook: a cap
    on the bytes in flight (None: paced by the rate alone).
    """
    rdma = False
    #: RDMA controllers: the most bytes in flight (None: no cap), read after every hook.
    window_bytes = None

    def __init__(self, ctx: RateContext):
        self.ctx = ctx
        #: The sending rate, bits/s (starts at line rate).
        self.rate_bps = float(ctx.line_rate_bps)
        #: When `on_timer` is wanted, seconds (None: no timer).
        self.deadline_s = None

    def on_feedback(self, now_s, kind, cpid, value):
        """A feedback frame from a congestion point reached this source. `kind` is "qcn" (a QCN
        congestion notification, `value` the 6-bit quantized |Fb|, an int in 0..63) or "asm"
        (`value` = (qf, dq), ASM's queue offset and queue change in quanta, ints in -127..127);
        `cpid` is the congestion point's id (its port)."""

    def on_bytes_sent(self, now_s, nbytes):
        """The source put a data frame of `nbytes` bytes on the wire (a byte counter's input).
        A class that does not override it is never called for it (no cost per frame)."""

    def on_timer(self, now_s):
        """The time has reached `deadline_s`: move it later or set it to None."""

    def on_cnp(self, now_s):
        """RDMA: a congestion notification packet (DCQCN's CNP) from this flow's receiver arrived
        (its notification point sends at most one per flow per `rdma.cnp_interval_s`)."""

    def on_ack(self, now_s, acked_bytes, ackno, rtt_s, ecn, data_seq):
        """RDMA: an ACK arrived (after the transport processed it): `acked_bytes` newly
        acknowledged (0 for a duplicate), `ackno` the cumulative ACK (next segment expected),
        `rtt_s` the RTT sample of the data packet that caused it, `ecn` that packet arrived
        CE-marked, `data_seq` its segment number."""

    def on_int(self, now_s, ackno, snd_nxt, hops):
        """RDMA: the in-band telemetry of the ACK that `on_ack` just saw: `hops` a tuple of `IntHop`,
        one per telemetry port on the flow's route, in path order; `ackno` the ACK's cumulative
        number, `snd_nxt` the next segment the source would send. Called only when the list is
        complete. A class that overrides it makes the run stamp telemetry (the `[int]` defaults,
        every switch port, when the scenario has no `[int]` table)."""

    def on_nack(self, now_s, expected_seq):
        """RDMA: a NACK arrived: the receiver discarded a segment after a gap at `expected_seq`
        (everything below has arrived); the transport has already gone back to it."""

    def on_timeout(self, now_s):
        """RDMA: the retransmission timer expired with data outstanding (`rdma.rto_s` without an
        ACK advancing); the transport has already gone back to the first unacknowledged segment."""


def builtin_names() -> list[str]:
    """The built-in controllers' names."""
    return list(_native.cc_names()[0])


def registered() -> dict[str, type]:
    """Registered Python controllers: name -> class."""
    return dict(_REGISTERED)


def register_cc(name: str, cls: type, kind: str | None = None) -> None:
    """Register controller class `cls` as `name` (registering a name again replaces it).

    `cls(ctx)` makes the controller of one flow. A window controller (`kind="window"`) has the
    hooks of `Controller` and gets a `FlowContext`; a rate controller (`kind="rate"`) has those
    of `RateController` and gets a `RateContext`. `kind=None` (the default): "rate" for a
    subclass of `RateController`, else "window". Raises ValueError for a built-in name or a name
    registered as the other kind, TypeError for a class without the interface."""
    if not isinstance(name, str):
        raise TypeError(f"register_cc: name = {name!r}: must be a string")
    if name in builtin_names():
        raise ValueError(f"register_cc: name = {name!r} is a built-in controller; built-in names "
                         f"({', '.join(builtin_names())}) cannot be registered")
    if not inspect.isclass(cls):
        raise TypeError(f"register_cc({name!r}, ...): {cls!r} is not a class; give the controller class")
    if kind is None:
        kind = "rate" if issubclass(cls, RateController) else "window"
    if kind not in ("window", "rate"):
        raise ValueError(f"register_cc({name!r}, {cls.__name__}): kind = {kind!r}: must be \"window\", \"rate\" "
                         f"or None (from the base class)")
    old_kind = _KINDS.get(name)
    if old_kind is not None and old_kind != kind:
        raise ValueError(f"register_cc({name!r}, {cls.__name__}): {name!r} is registered as a {old_kind} "
                         f"controller ({_REGISTERED[name].__name__}); a name keeps its kind: choose another name")
    if kind == "rate":
        _register_rate(name, cls)
        return
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

    timer = callable(getattr(cls, "on_timer", None)) and cls.on_timer is not Controller.on_timer
    if timer and not hasattr(cls, "deadline_s"):
        raise TypeError(f"register_cc({name!r}, {cls.__name__}): on_timer but no deadline_s attribute "
                        f"(subclass ccscope.cc.Controller for the default, None)")

    def maker(flow, seed, mss_bytes, iw_pkts, dupack_threshold, ss_limit_pkts):
        ctx = FlowContext(flow=flow, mss_bytes=mss_bytes, iw_pkts=iw_pkts, dupack_threshold=dupack_threshold,
                          ss_limit_pkts=ss_limit_pkts, rng=random.Random(seed))
        return cls(ctx)

    _native.register_cc(name, maker, flags["ecn"], flags["ecn_once_per_window"], flags["dctcp_echo"],
                        timer_hook=timer)
    _REGISTERED[name] = cls
    _KINDS[name] = "window"


#: name -> "window" or "rate", for the registered controllers.
_KINDS: dict[str, str] = {}


def _register_rate(name: str, cls: type) -> None:
    missing = [h for h in RATE_HOOKS if not callable(getattr(cls, h, None))]
    if missing:
        raise TypeError(f"register_cc({name!r}, {cls.__name__}): no method {', '.join(missing)} "
                        f"(subclass ccscope.cc.RateController for the defaults)")
    rdma = getattr(cls, "rdma", False)
    if not isinstance(rdma, bool):
        raise TypeError(f"register_cc({name!r}, {cls.__name__}): rdma = {rdma!r}: must be True or False")

    def overrides(hook: str) -> bool:
        h = getattr(cls, hook, None)
        return callable(h) and h is not getattr(RateController, hook)
    # the hooks an RDMA class must have (on_int, on_nack and on_timeout are optional: a class
    # without them, as one written before they existed, is never called for them)
    for hook in ("on_cnp", "on_ack"):
        if rdma and not callable(getattr(cls, hook, None)):
            raise TypeError(f"register_cc({name!r}, {cls.__name__}): rdma = True but no method {hook} "
                            f"(subclass ccscope.cc.RateController for the defaults)")

    def maker(flow, seed, line_rate_bps, packet_bytes, base_rtt_s):
        ctx = RateContext(flow=flow, line_rate_bps=line_rate_bps, packet_bytes=packet_bytes,
                          rng=random.Random(seed), base_rtt_s=base_rtt_s)
        return cls(ctx)

    _native.register_rate_cc(name, maker, overrides("on_bytes_sent"), rdma and overrides("on_cnp"),
                             rdma and overrides("on_ack"), rdma, nack_hook=rdma and overrides("on_nack"),
                             timeout_hook=rdma and overrides("on_timeout"),
                             int_hop=IntHop if rdma and overrides("on_int") else None)
    _REGISTERED[name] = cls
    _KINDS[name] = "rate"


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


# ------------------------------------------------------------------ the scenario's [plugins] table

_MODULE_NAME = None  # compiled on first use
#: `.py` files a scenario file's [plugins] named and `parse_scenario_text` resolved (real paths): they
#: passed the sandbox against the file's directory, so the absolute path it wrote in is allowed.
_APPROVED_FILES: set[str] = set()
#: such a real path -> the entry as the scenario file wrote it (for error lines)
_WRITTEN_AS: dict[str, str] = {}


def _plugin_entries(data: dict) -> list[tuple[str, str]]:
    """(field path, value) of each plugins.modules entry of scenario data; ScenarioError naming
    the field for a table of the wrong shape."""
    import re

    from ccscope.errors import ScenarioError, shown
    global _MODULE_NAME
    if _MODULE_NAME is None:
        _MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
    if not isinstance(data, dict) or data.get("plugins") is None:
        return []
    t = data["plugins"]
    if not isinstance(t, dict):
        raise ScenarioError(f"plugins = {shown(t)}: must be a table ([plugins] modules = [...])")
    extra = sorted(set(t) - {"modules"})
    if extra:
        raise ScenarioError(f"plugins.{extra[0]}: unknown field, expected `modules`")
    mods = t.get("modules", [])
    if not isinstance(mods, list):
        raise ScenarioError(f"plugins.modules = {shown(mods)}: must be a list of module names or .py file paths")
    out = []
    for i, v in enumerate(mods):
        where = f"plugins.modules[{i}]"
        if not isinstance(v, str) or not v.strip():
            raise ScenarioError(f"{where} = {shown(v)}: must be a module name (mypkg.mycc) or a path to a .py file")
        if not (_is_path(v) or _MODULE_NAME.fullmatch(v)):
            raise ScenarioError(f"{where} = {shown(v)}: not a module name (dotted identifiers, mypkg.mycc) nor a "
                                f"path to a .py file")
        out.append((where, v))
    return out


def _is_path(v: str) -> bool:
    return v.endswith(".py") or "/" in v or os.sep in v


def resolve_scenario_plugins(data: dict, base, *, allow_paths=None) -> None:
    """Rewrite the `.py` paths of a scenario's [plugins] table to real absolute paths, resolved
    against `base` (the scenario file's directory) under the data-file sandbox (a relative path
    must stay under `base`; others need `allow_paths`). Nothing is loaded."""
    from ccscope.scenario.io import resolve_data_path
    entries = _plugin_entries(data)
    if not entries:
        return
    from ccscope.errors import ScenarioError, shown
    mods = data["plugins"]["modules"]
    for i, (where, v) in enumerate(entries):
        if _is_path(v) and not (Path(v).is_absolute() and v in _APPROVED_FILES):
            real = str(resolve_data_path(v, base, allow_paths=allow_paths, field=where))
            if not Path(real).is_file():
                raise ScenarioError(f"{where} = {shown(v)}: no such file (relative paths resolve against the "
                                    f"scenario's directory)")
            _APPROVED_FILES.add(real)
            _WRITTEN_AS.setdefault(real, v)
            mods[i] = real


def _loaded(rec_key: str, value: str) -> bool:
    with _PLUGINS_LOCK:
        return any(r.get(rec_key) == value for r in _PLUGINS)


def load_scenario_plugins(data: dict, base=None, *, allow_paths=None) -> None:
    """Load the controllers a scenario's `[plugins] modules = [...]` names (what `ccscope run`,
    `ccscope sweep`, sweep workers and `ccscope.simulate` do before the engine checks the cc names).

    A module name is imported from the Python path; a `.py` file path, when relative, resolves
    against `base` (default: the current directory; a scenario file's paths were resolved against
    its directory when it was read) under the data-file sandbox. A plugin already loaded in this
    process is not loaded again. Raises ScenarioError naming plugins.modules[i] and the value."""
    from ccscope.errors import ScenarioError, shown
    from ccscope.scenario.io import resolve_data_path
    for where, v in _plugin_entries(data):
        written = _WRITTEN_AS.get(v, v)
        try:
            if _is_path(v):
                if Path(v).is_absolute() and (v in _APPROVED_FILES or _loaded("file", v)):
                    real = v
                else:
                    real = str(resolve_data_path(v, Path.cwd() if base is None else Path(base),
                                                 allow_paths=allow_paths, field=where))
                if _loaded("file", real):
                    continue
                if not Path(real).is_file():
                    raise ScenarioError(f"{where} = {shown(written)}: no such file")
                load_plugin(real)
            else:
                if _loaded("module", v) and v in sys.modules:
                    continue
                load_plugin(v)
        except ScenarioError:
            raise
        except ValueError as e:
            if "no module of that name" in str(e):
                raise ScenarioError(f"{where} = {shown(written)}: no module of that name on the Python path (give an "
                                    f"importable module, mypkg.mycc, or a path to a .py file)") from None
            raise ScenarioError(f"{where} = {shown(written)}: {e}") from e
        except Exception as e:  # noqa: BLE001 - the plugin's own error, named and chained
            import traceback
            frames = traceback.extract_tb(e.__traceback__)
            at = f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""
            raise ScenarioError(f"{where} = {shown(written)}: importing it failed: {type(e).__name__}: {e}{at}") from e
