"""Fluid models written by the user: Python functions of (state, delayed state, params) run by the
same fixed-step DDE solver, limit-cycle monitor and batched sweeps as the built-in models.

    model = ccscope.fluid.user_model(
        "aimd", state=("window_pkts", "queue_pkts"), rhs=rhs,
        params={"n": 10, "c_pps": 8.3e5, "rtt_s": 1e-4, "b_pkts": 60},
        delay=lambda p: p["rtt_s"], floors={"window_pkts": 1.0, "queue_pkts": 0.0},
        monitor="queue_pkts", level="b_pkts")
    res = model.solve(0.1, x0={"window_pkts": 1.0, "queue_pkts": 0.0})   # FluidResult
    df = model.sweep({"n": [5, 10, 20]}, until=0.1, x0=...)                 # one batch

`rhs(x, xd, p)` gets the state `x` and the delayed state `xd` by name (arrays of the batch shape),
and the parameters `p` by name, and returns one derivative per state component (a sequence in
the order of `state`, or a dict by name). `xd[name]` is the component at t - delay averaged over
the step (midpoint rule); `xd.above(name, threshold)` is the exact fraction of the step during
which it exceeds `threshold` (the step average of an indicator such as 1{q(t - R) > K}), the
rule the built-in models use for marking and loss. See `ccscope.fluid.solver` for the method.

Scope: one feedback delay per trajectory (no per-group delays), the numpy backend (the solver's
reference; the compiled and JAX backends run the built-in models only). A bad model is a
`UserModelError` (a ValueError) naming the model, the quantity and the simulated time.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ccscope.fluid.solver import DelayModel, fraction_above, integrate, lag_mean

#: Steps per feedback delay when `dt` is not given (the physical DCTCP model's default).
STEPS_PER_DELAY = 500


class UserModelError(ValueError):
    """A user fluid model is wrong: names the model, what is wrong and the simulated time."""


class Delayed:
    """The delayed state handed to `rhs`: `xd[name]` (step average) and `xd.above(name, k)`."""

    __slots__ = ("_names", "_lo", "_hi")

    def __init__(self, names: tuple[str, ...], lo: Any, hi: Any):
        self._names, self._lo, self._hi = names, lo, hi

    def _ends(self, name: str) -> tuple[Any, Any]:
        try:
            i = self._names.index(name)
        except ValueError:
            raise KeyError(f"{name!r}: not a delayed component; delayed: {', '.join(self._names)}") from None
        return self._lo[..., i], self._hi[..., i]

    def __getitem__(self, name: str) -> Any:
        return lag_mean(*self._ends(name))

    def above(self, name: str, threshold: Any) -> Any:
        """Fraction of the step during which the delayed `name` is strictly above `threshold`."""
        lo, hi = self._ends(name)
        return fraction_above(np, lo, hi, threshold)

    def keys(self) -> tuple[str, ...]:
        return self._names


def _fmt(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else repr(v)


class _Dde(DelayModel):
    """The solver's view of a `UserModel` (checks every call of the user's functions)."""

    def __init__(self, um: UserModel):
        self.um = um
        self.state_names = um.state
        self.n_observables = len(um.delayed)
        self._obs_idx = [um.state.index(n) for n in um.delayed]
        self._floors = [(um.state.index(n), float(v)) for n, v in um.floors.items()]
        self.dt = 0.0
        self.calls = 0

    def time(self) -> float:
        return (self.calls // 2) * self.dt  # Heun: two calls of rhs per step

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        um = self.um
        t = self.time()
        self.calls += 1
        # one delay: group 0; lags are (B, m) for one delayed component, (B, m, k) for k
        if self.n_observables == 1:
            lo, hi = lag_lo[..., 0][..., None], lag_hi[..., 0][..., None]
        else:
            lo, hi = lag_lo[..., 0, :], lag_hi[..., 0, :]
        xs = {n: x[..., i] for i, n in enumerate(um.state)}
        try:
            out = um.rhs(xs, Delayed(um.delayed, lo, hi), p)
        except Exception as e:  # noqa: BLE001 - the user's error, with its traceback chained
            raise UserModelError(f"fluid model {um.name!r}: rhs raised {type(e).__name__}: {e} "
                                 f"(in the step at t = {t:g})") from e
        if isinstance(out, Mapping):
            missing = [n for n in um.state if n not in out]
            extra = [n for n in out if n not in um.state]
            if missing or extra:
                raise UserModelError(f"fluid model {um.name!r}: rhs returned the keys {sorted(out)!r} at t = {t:g}; "
                                     f"expected one derivative per state: {', '.join(um.state)}")
            out = [out[n] for n in um.state]
        elif not isinstance(out, (list, tuple)):
            raise UserModelError(f"fluid model {um.name!r}: rhs returned {type(out).__name__} at t = {t:g}; "
                                 f"expected a sequence or dict of {len(um.state)} derivatives ({', '.join(um.state)})")
        if len(out) != len(um.state):
            raise UserModelError(f"fluid model {um.name!r}: rhs returned {len(out)} derivatives at t = {t:g}; "
                                 f"expected {len(um.state)} ({', '.join(um.state)})")
        batch = x.shape[:-1]
        cols = []
        for n, v in zip(um.state, out):
            a = np.asarray(v, dtype=float)
            if a.shape != batch:
                try:
                    a = np.broadcast_to(a, batch)
                except ValueError:
                    raise UserModelError(f"fluid model {um.name!r}: d{n}/dt has shape {np.shape(v)} at t = {t:g}; "
                                         f"expected a scalar or the batch shape {batch}") from None
            bad = ~np.isfinite(a)
            if bad.any():
                i = int(np.flatnonzero(bad.ravel())[0])
                raise UserModelError(f"fluid model {um.name!r}: d{n}/dt = {float(a.ravel()[i])!r} at t = {t:g} "
                                     f"(batch point {i}, state {um._point_state(x, i)}); the derivatives must be finite")
            cols.append(a)
        return np.stack(cols, axis=-1)

    def observable(self, xp, x, p):
        idx = self._obs_idx
        return x[..., idx[0]] if len(idx) == 1 else x[..., idx]

    def project(self, xp, x, p):
        if not self._floors:
            return x
        x = x.copy()
        for i, v in self._floors:
            x[..., i] = np.maximum(x[..., i], v)
        return x

    def rate(self, xp, x, p):
        if self.um.rate is None:
            return np.zeros_like(x[..., 0])
        xs = {n: x[..., i] for i, n in enumerate(self.um.state)}
        try:
            r = self.um.rate(xs, p)
        except Exception as e:  # noqa: BLE001
            raise UserModelError(f"fluid model {self.um.name!r}: rate raised {type(e).__name__}: {e} "
                                 f"(at t = {self.time():g})") from e
        return np.broadcast_to(np.asarray(r, dtype=float), x.shape[:-1])


class UserModel:
    """A fluid model from user functions; build it with `user_model(...)` (see the module doc)."""

    def __init__(self, name: str, *, state: Sequence[str], rhs: Callable[..., Any], params: Mapping[str, Any],
                 delay: str | float | Callable[[Mapping[str, Any]], Any], delayed: Sequence[str] | None = None,
                 floors: Mapping[str, float] | None = None, monitor: str | None = None, level: str | float = 0.0,
                 rate: Callable[..., Any] | None = None, time_unit: str = "s"):
        if not isinstance(name, str) or not name:
            raise UserModelError(f"name = {name!r}: a fluid model needs a non-empty name")
        self.name = name
        st = tuple(state) if not isinstance(state, str) else (state,)
        if not st or not all(isinstance(s, str) and s.isidentifier() for s in st) or len(set(st)) != len(st):
            raise UserModelError(f"fluid model {name!r}: state = {st!r}: must be distinct names (identifiers)")
        self.state = st
        if not callable(rhs):
            raise UserModelError(f"fluid model {name!r}: rhs = {rhs!r}: must be a function (x, xd, p)")
        self.rhs, self.rate = rhs, rate
        if rate is not None and not callable(rate):
            raise UserModelError(f"fluid model {name!r}: rate = {rate!r}: must be a function (x, p) or None")
        self.params = {k: self._param(k, v) for k, v in dict(params).items()}
        self.delayed = tuple(delayed) if delayed is not None else st
        self.floors = dict(floors or {})
        for what, names in (("delayed", self.delayed), ("floors", tuple(self.floors))):
            unknown = [n for n in names if n not in st]
            if unknown:
                raise UserModelError(f"fluid model {name!r}: {what} names {unknown[0]!r}, not a state component; "
                                     f"state: {', '.join(st)}")
        if not self.delayed:
            raise UserModelError(f"fluid model {name!r}: delayed = (): at least one component is delayed")
        self.monitor = monitor if monitor is not None else st[-1]
        if self.monitor not in st:
            raise UserModelError(f"fluid model {name!r}: monitor = {monitor!r}: not a state component; "
                                 f"state: {', '.join(st)}")
        if isinstance(level, str) and level not in self.params:
            raise UserModelError(f"fluid model {name!r}: level = {level!r}: not a parameter; "
                                 f"parameters: {', '.join(self.params)}")
        if isinstance(delay, str) and delay not in self.params:
            raise UserModelError(f"fluid model {name!r}: delay = {delay!r}: not a parameter; "
                                 f"parameters: {', '.join(self.params)}")
        self.delay, self.level, self.time_unit = delay, level, time_unit

    def __repr__(self) -> str:
        return f"UserModel({self.name!r}, state={self.state}, params={sorted(self.params)})"

    def _param(self, k: str, v: Any) -> Any:
        a = np.asarray(v, dtype=float) if not isinstance(v, str) else None
        if a is None or not np.all(np.isfinite(a)):
            raise UserModelError(f"fluid model {self.name!r}: parameter {k} = {_fmt(v)}: must be a finite number")
        return v

    def _point_state(self, x: np.ndarray, i: int) -> str:
        row = np.asarray(x).reshape(-1, len(self.state))[i]
        return ", ".join(f"{n}={v:.6g}" for n, v in zip(self.state, row))

    def _resolve(self, overrides: Mapping[str, Any]) -> dict[str, Any]:
        unknown = [k for k in overrides if k not in self.params]
        if unknown:
            raise UserModelError(f"fluid model {self.name!r}: unknown parameter {unknown[0]!r}; "
                                 f"parameters: {', '.join(self.params)}")
        return {**self.params, **{k: self._param(k, v) for k, v in overrides.items()}}

    def _run(self, p: dict[str, Any], batch: int, x0: Any, *, until: float, dt: float | None, record_every: int,
             settle: float, history: Any, backend: str) -> tuple[Any, _Dde, float]:
        if backend not in ("auto", "numpy"):
            raise UserModelError(f"fluid model {self.name!r}: backend = {backend!r}: user models run on the numpy "
                                 "backend ('auto' or 'numpy')")
        pb = {k: np.broadcast_to(np.asarray(v, dtype=float), (batch,)).copy() for k, v in p.items()}
        delay = np.broadcast_to(np.asarray(self._call("delay", self.delay, pb), dtype=float), (batch,))
        if not (np.all(np.isfinite(delay)) and np.all(delay > 0)):
            bad = float(delay[~(np.isfinite(delay) & (delay > 0))][0])
            raise UserModelError(f"fluid model {self.name!r}: delay = {bad!r}: must be finite and > 0")
        dt = float(delay.min()) / STEPS_PER_DELAY if dt is None else dt
        x = self._initial(x0, pb, batch)
        hist = x[:, [self.state.index(n) for n in self.delayed]] if history is None else \
            np.asarray(self._call("history", history, pb), dtype=float)
        if len(self.delayed) == 1 and np.ndim(hist) == 2:
            hist = hist[:, 0]
        level = self._call("level", self.level, pb)
        dde = _Dde(self)
        dde.dt = float(dt) if isinstance(dt, (int, float)) else 0.0
        res = integrate(dde, pb, x, delays=delay, history=hist, dt=dt, until=until, record_every=record_every,
                        settle=settle, level=level, monitor_index=self.state.index(self.monitor), backend="numpy")
        return res, dde, dt

    def _call(self, what: str, v: Any, p: Mapping[str, Any]) -> Any:
        if isinstance(v, str):
            return p[v]
        if callable(v):
            try:
                return v(p)
            except Exception as e:  # noqa: BLE001
                raise UserModelError(f"fluid model {self.name!r}: {what} raised {type(e).__name__}: {e}") from e
        return v

    def _initial(self, x0: Any, p: Mapping[str, Any], batch: int) -> np.ndarray:
        if callable(x0):
            x0 = self._call("x0", x0, p)
        if isinstance(x0, Mapping):
            missing = [n for n in self.state if n not in x0]
            if missing or set(x0) - set(self.state):
                raise UserModelError(f"fluid model {self.name!r}: x0 has keys {sorted(x0)!r}; expected one value "
                                     f"per state: {', '.join(self.state)}")
            x0 = [np.broadcast_to(np.asarray(x0[n], dtype=float), (batch,)) for n in self.state]
            x = np.stack(x0, axis=-1)
        else:
            x = np.asarray(x0, dtype=float)
            if x.shape[-1:] != (len(self.state),):
                raise UserModelError(f"fluid model {self.name!r}: x0 has shape {x.shape}; expected "
                                     f"({len(self.state)},) ({', '.join(self.state)})")
            x = np.broadcast_to(x, (batch, len(self.state))).copy()
        if not np.all(np.isfinite(x)):
            raise UserModelError(f"fluid model {self.name!r}: x0 = {x[0].tolist()!r}: must be finite")
        return x

    def solve(self, until: float, *, x0: Any, dt: float | None = None, record_every: int = 10,
              settle: float | None = None, history: Any = None, backend: str = "auto", **params: Any):
        """Integrate from `x0` (dict by name, sequence, or function of the parameters) to `until`.

        Parameters given as keywords override the model's. `history`: the delayed components'
        value for t < 0 (default: their initial values). Returns a `FluidResult`: traces (time
        column `time_<unit>`, then the state), the limit cycle of `monitor` around `level` after
        `settle` (default half the horizon), the resolved parameters.
        """
        import pandas as pd

        from ccscope.analysis import limit_cycle as lc
        from ccscope.fluid.base import FluidResult, check_positive

        check_positive("until", until)
        p = self._resolve(params)
        settle = 0.5 * until if settle is None else settle
        res, _, dt = self._run(p, 1, x0, until=until, dt=dt, record_every=record_every, settle=settle,
                               history=history, backend=backend)
        cols = {f"time_{self.time_unit}": res.t, **{n: res.x[:, 0, i] for i, n in enumerate(self.state)}}
        ok = bool(np.all(np.isfinite(res.x_final)))
        return FluidResult(traces=pd.DataFrame(cols), success=ok, message="ok" if ok else "non-finite state",
                           limit_cycle=lc.from_monitor(res.monitor)[0], params={**p, "dt": dt})

    def sweep(self, grid: Mapping[str, Any], *, until: float, x0: Any, dt: float | None = None,
              settle: float | None = None, history: Any = None, backend: str = "auto"):
        """Every point of the Cartesian product of `grid` (parameter -> values) as ONE batch.

        Returns a DataFrame: the grid's columns, then q_min, q_max (of `monitor`), period,
        throughput (cycle average of `rate`), periodic, n_periods, and each state's final value
        (`<name>_final`). One step for the whole batch: `dt`, default min(delay)/STEPS_PER_DELAY.
        """
        import itertools

        import pandas as pd

        from ccscope.analysis import limit_cycle as lc
        from ccscope.fluid.base import check_positive

        check_positive("until", until)
        unknown = [k for k in grid if k not in self.params]
        if unknown:
            raise UserModelError(f"fluid model {self.name!r}: grid: unknown parameter {unknown[0]!r}; "
                                 f"parameters: {', '.join(self.params)}")
        keys = list(grid)
        values = [np.atleast_1d(np.asarray(grid[k], dtype=float)) for k in keys]
        for k, v in zip(keys, values):
            if not np.all(np.isfinite(v)):
                raise UserModelError(f"fluid model {self.name!r}: grid {k} = {v.tolist()!r}: must be finite")
        df = pd.DataFrame(list(itertools.product(*values)), columns=keys)
        p = {**self.params, **{k: df[k].to_numpy() for k in keys}}
        settle = 0.5 * until if settle is None else settle
        res, _, _ = self._run(p, len(df), x0, until=until, dt=dt, record_every=0, settle=settle, history=history,
                              backend=backend)
        out = lc.monitor_arrays(res.monitor)
        finals = {f"{n}_final": res.x_final[:, i] for i, n in enumerate(self.state)}
        return df.assign(q_min=out["q_min"], q_max=out["q_max"], period=out["period"],
                         throughput=out["throughput"], periodic=out["periodic"], n_periods=out["n_periods"], **finals)


def user_model(name: str, *, state: Sequence[str], rhs: Callable[..., Any], params: Mapping[str, Any],
               delay: str | float | Callable[[Mapping[str, Any]], Any], delayed: Sequence[str] | None = None,
               floors: Mapping[str, float] | None = None, monitor: str | None = None, level: str | float = 0.0,
               rate: Callable[..., Any] | None = None, time_unit: str = "s") -> UserModel:
    """A fluid model from Python functions, run by the built-in models' solver (module doc).

    name: shown in errors; state: the state components' names; rhs(x, xd, p): one derivative per
    component; params: name -> default value; delay: the feedback delay (a parameter's name, a
    number, or a function of the parameters); delayed: the components read at t - delay (default
    all); floors: lower bounds applied after each solver stage (e.g. queue >= 0); monitor, level:
    the component and level (number or parameter name) whose downward crossings define the limit
    cycle; rate(x, p): the integrand averaged over whole periods (e.g. link utilization);
    time_unit: the suffix of the time column.
    """
    return UserModel(name, state=state, rhs=rhs, params=params, delay=delay, delayed=delayed, floors=floors,
                     monitor=monitor, level=level, rate=rate, time_unit=time_unit)
