"""Fixed-step method-of-steps solver for the delay-differential fluid models, batched.

Place in the pipeline: every DDE model in `ccscope.fluid` (DCTCP eqs 5-8 and 11-14, DX eqs 3-4,
ASM eq 26 with delay) describes itself as a `DelayModel` and calls `integrate`; the limit-cycle
statistics it accumulates on the fly feed `ccscope.analysis.limit_cycle` and the sweeps.

Backends (one interface): `native` (the default through `backend="auto"`): the same method
compiled, in `ccscope_core::fluid` (Rust), one trajectory per task on all cores; `numpy`: the
reference, always available, that the native backend is tested against (tests/fluid/test_native.py:
1e-9 relative, in practice bit-identical); `jax` (optional): jit + vmap + lax.scan, for GPUs.
`auto` picks `native` for every model that names a native implementation (`DelayModel.native`)
and `numpy` for the others (a user-defined model).

Method:
- The state is `x` with shape (B, n): B independent parameter sets integrated in lock-step.
- The delayed input of every model is a function of ONE scalar observable y(x) (the queue), read
  at m delays per trajectory (one per RTT group). y is stored every step in a ring buffer of
  length L = max(ceil(tau/dt)) + 2; y(t - tau) is linear interpolation between stored steps.
- Each step is Heun (explicit trapezoid, order 2). The delayed observable is handed to the model
  as its values at both ends of the step, (y(t_n - tau), y(t_n + dt - tau)); the model freezes
  its delayed input at the *step average*: the mean of the two for a continuous lag (midpoint
  rule, order 2) and the exact fraction of the step the interpolated lag spends above a threshold
  for an indicator such as 1{q(t - R*) > K} (`fraction_above`). This keeps order 2 across the
  marking discontinuities and makes the solution continuous in the parameters (smooth maps).
- State constraints (queue floor q >= 0, window floors) are projections applied after each stage.
- A monitor follows one scalar z(x) (the queue) after a settling time: running min/max, the
  downward crossings of a level (linear interpolation) and the integral of a rate r(x) between
  the first and last crossing, so whole periods give Qmin/Qmax/period/throughput without storing
  traces (that is what makes 10^6-point sweeps fit in memory).

Why not a library: diffrax has no delays; the Python DDE packages (ddeint, jitcdde) integrate one
trajectory at a time and do not handle the indicator switching; none batches on a GPU.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Largest ring buffer (entries per trajectory x batch) the numpy backend will allocate.
MAX_RING_ENTRIES = 2_000_000_000
#: Values of `integrate(..., backend=)`.
BACKENDS = ("auto", "native", "numpy", "jax")
#: Most delay groups (RTT groups of the physical DCTCP model) the native solver holds
#: (`ccscope_core::fluid::models::MAX_GROUPS`); `backend="auto"` runs larger ones on numpy.
NATIVE_MAX_GROUPS = 32
#: Order of the monitor fields returned by the native solver (`ccscope_core::fluid::MONITOR_KEYS`).
NATIVE_MONITOR_KEYS = ("min", "max", "t_first", "t_last", "n_cross", "int_first", "int_last")


def fraction_above(xp: Any, y_lo: Any, y_hi: Any, threshold: Any) -> Any:
    """Fraction of a step during which a linearly interpolated signal is strictly above `threshold`.

    `y_lo`, `y_hi` are the signal at the start and end of the step. This is the exact step average
    of the indicator 1{y > threshold} for the interpolated signal (used for p(t - R*)).
    """
    a = y_lo - threshold
    b = y_hi - threshold
    both_up = (a > 0) & (b > 0)
    cross = (a > 0) != (b > 0)
    span = xp.abs(a) + xp.abs(b)
    safe = xp.where(span > 0, span, 1.0)
    frac_cross = xp.where(a > 0, a, b) / safe
    return xp.where(both_up, 1.0, xp.where(cross, xp.clip(frac_cross, 0.0, 1.0), 0.0))


def lag_mean(y_lo: Any, y_hi: Any) -> Any:
    """Step average of a continuous delayed signal (midpoint rule)."""
    return 0.5 * (y_lo + y_hi)


class DelayModel:
    """What a DDE model tells the solver. Subclasses implement the four methods with `xp`
    (numpy or jax.numpy) so one definition serves both backends.

    Shapes: `x` is (..., n_state); every parameter is (...,) or (..., m) for per-group values;
    `lag_lo`, `lag_hi` are (..., m). The leading `...` is (B,) for numpy and () under JAX's vmap.
    """

    state_names: tuple[str, ...] = ()
    #: Name of the compiled implementation of this model in `ccscope_core::fluid::models` (None:
    #: numpy/JAX only) and its parameter names in the order the native solver reads them.
    native: str | None = None
    native_params: tuple[str, ...] = ()
    #: Whether the native model reads one lag per group (physical DCTCP); the others read group 0.
    native_grouped: bool = False
    #: Number of delayed observables k. With k = 1 (default) `observable` returns (...,) and the lags
    #: are (..., m); with k > 1 it returns (..., k) and the lags are (..., m, k) (e.g. QCN reads Fb and
    #: the current rate at t - tau), and `history` is (k,) or (B, k).
    n_observables: int = 1

    def rhs(self, xp: Any, x: Any, lag_lo: Any, lag_hi: Any, p: Mapping[str, Any]) -> Any:
        """dx/dt given the delayed observable at both ends of the step."""
        raise NotImplementedError

    def observable(self, xp: Any, x: Any, p: Mapping[str, Any]) -> Any:
        """The scalar y(x) whose delayed values drive the model (shape (...,))."""
        raise NotImplementedError

    def project(self, xp: Any, x: Any, p: Mapping[str, Any]) -> Any:
        """Apply floors/constraints after a stage (default: none)."""
        return x

    def rate(self, xp: Any, x: Any, p: Mapping[str, Any]) -> Any:
        """Integrand averaged over whole periods by the monitor (e.g. normalized throughput)."""
        return xp.zeros_like(x[..., 0])


@dataclass
class Integration:
    """Raw output of `integrate` (numpy arrays whatever the backend).

    `t_s`: (R,) recorded times; `x`: (R, B, n) recorded states (R = 0 when not recorded);
    `x_final`: (B, n); `monitor`: dict of (B,) arrays (see `integrate`); `dt`, `n_steps`.
    """

    t: np.ndarray
    x: np.ndarray
    x_final: np.ndarray
    monitor: dict[str, np.ndarray]
    dt: float
    n_steps: int


def _as_batch(params: Mapping[str, Any], batch: int) -> dict[str, np.ndarray]:
    out = {}
    for k, v in params.items():
        a = np.asarray(v, dtype=float)
        if a.ndim == 0:
            a = np.full(batch, float(a))
        out[k] = a
    return out


def validate_step(dt: float, delays: np.ndarray, until: float) -> None:
    """Raise ValueError naming the offending quantity if the step cannot resolve the delays."""
    if not (isinstance(dt, (int, float)) and math.isfinite(dt) and dt > 0):
        raise ValueError(f"dt = {dt!r}: must be a finite number > 0")
    if not (math.isfinite(until) and until > 0):
        raise ValueError(f"until = {until!r}: must be a finite number > 0")
    dmin = float(np.min(delays))
    if not np.all(np.isfinite(delays)) or dmin <= 0:
        raise ValueError(f"delay = {dmin!r}: every feedback delay must be finite and > 0")
    if dt > dmin * (1 + 1e-12):
        raise ValueError(f"dt = {dt!r}: the step must not exceed the smallest delay ({dmin!r}); "
                         "method of steps needs dt <= delay")


def integrate(
    model: DelayModel,
    params: Mapping[str, Any],
    x0: Any,
    *,
    delays: Any,
    history: Any,
    dt: float,
    until: float,
    record_every: int = 0,
    settle: float = 0.0,
    level: Any = 0.0,
    monitor_index: int = -1,
    backend: str = "auto",
    dtype: str = "float64",
) -> Integration:
    """Integrate a batch of DDE problems with fixed step `dt` from t = 0 to `until`.

    params: name -> scalar or (B,) / (B, m) arrays. x0: (B, n) or (n,). delays: (B, m), (B,) or
    scalar, in the model's time unit. history: constant value of the observable for t < 0, (B,)
    or scalar ((k,) or (B, k) for a model with k = `n_observables` > 1). record_every: store the state every that many steps (0: only the final state).
    settle: the monitor starts at this time. level: crossing level of the monitored component
    `x[..., monitor_index]`. Monitor keys: `min`, `max`, `t_first`, `t_last`, `n_cross`,
    `int_first`, `int_last` (integral of `model.rate` from `settle` up to the first/last
    downward crossing). backend: "auto" (default: "native" when the model has a compiled
    implementation, else "numpy"), "native", "numpy" or "jax"; dtype ("float64"/"float32") is
    used by JAX only (numpy and native compute in float64).
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend = {backend!r}: allowed values are {', '.join(repr(b) for b in BACKENDS)}")
    explicit = backend == "native"
    if backend == "auto":
        backend = "native" if model.native is not None else "numpy"
    elif backend == "native" and model.native is None:
        raise ValueError(f"backend = 'native': {type(model).__name__} has no compiled implementation; "
                         "use backend='numpy'")
    x0 = np.atleast_2d(np.asarray(x0, dtype=float))
    delays_arr = np.asarray(delays, dtype=float)
    batch = max(x0.shape[0], delays_arr.shape[0] if delays_arr.ndim else 1,
                *(np.shape(v)[0] for v in params.values() if np.ndim(v) >= 1))
    if x0.shape[0] == 1 and batch > 1:
        x0 = np.repeat(x0, batch, axis=0)
    if delays_arr.ndim == 0:
        delays_arr = np.full((batch, 1), float(delays_arr))
    elif delays_arr.ndim == 1:
        delays_arr = np.broadcast_to(delays_arr[:, None], (batch, 1)).copy() if delays_arr.shape[0] == batch \
            else np.broadcast_to(delays_arr[None, :], (batch, delays_arr.shape[0])).copy()
    validate_step(dt, delays_arr, until)
    if backend == "native" and model.native_grouped and delays_arr.shape[1] > NATIVE_MAX_GROUPS:
        if explicit:
            raise ValueError(f"delays: {delays_arr.shape[1]} groups; backend='native' holds at most "
                             f"{NATIVE_MAX_GROUPS} (backend='numpy' has no limit)")
        backend = "numpy"
    p = _as_batch(params, batch)
    n_obs = int(getattr(model, "n_observables", 1))
    hist_shape = (batch,) if n_obs == 1 else (batch, n_obs)
    hist = np.broadcast_to(np.asarray(history, dtype=float), hist_shape).copy()
    lvl = np.broadcast_to(np.asarray(level, dtype=float), (batch,)).copy()
    n_steps = math.ceil(until / dt - 1e-9)
    settle_steps = round(settle / dt)
    steps_delay = delays_arr / dt
    k_lag = np.floor(steps_delay + 1e-9).astype(np.int64)
    f_lag = np.clip(steps_delay - k_lag, 0.0, 1.0)
    ring_len = int(k_lag.max()) + 2
    if ring_len * batch > MAX_RING_ENTRIES:
        raise ValueError(f"delay/dt = {ring_len} steps x batch {batch}: history ring too large; increase dt")
    args = {"model": model, "p": p, "x0": x0, "k_lag": k_lag, "f_lag": f_lag, "hist": hist, "level": lvl, "dt": float(dt),
                "n_steps": n_steps, "record_every": int(record_every), "settle_steps": settle_steps,
                "ring_len": ring_len, "monitor_index": monitor_index}
    if backend == "native":
        return _integrate_native(**args)
    if backend == "numpy":
        return _integrate_numpy(**args)
    from ccscope.fluid import _jax_backend

    return _jax_backend.integrate_jax(dtype=dtype, **args)


def monitor_init(xp: Any, z0: Any) -> dict[str, Any]:
    """Empty monitor state for a batch whose monitored value is `z0`."""
    inf = xp.full_like(z0, np.inf)
    nan = xp.full_like(z0, np.nan)
    zero = xp.zeros_like(z0)
    return {"min": inf, "max": -inf, "t_first": nan, "t_last": nan, "n_cross": zero, "int_first": nan,
                "int_last": nan, "int_cum": zero}


def monitor_update(xp: Any, mon: dict[str, Any], z0: Any, z1: Any, r0: Any, r1: Any, t0: Any, dt: float,
                   level: Any, active: Any) -> dict[str, Any]:
    """Advance the limit-cycle monitor over one step [t0, t0+dt] (pure function, both backends)."""
    int_new = mon["int_cum"] + xp.where(active, 0.5 * dt * (r0 + r1), 0.0)
    down = active & (z0 > level) & (z1 <= level)
    frac = xp.where(down, (z0 - level) / xp.where(down, z0 - z1, 1.0), 0.0)
    t_c = t0 + frac * dt
    int_c = mon["int_cum"] + frac * (int_new - mon["int_cum"])
    first = down & (mon["n_cross"] == 0)
    return {
        "min": xp.where(active, xp.minimum(mon["min"], z1), mon["min"]),
        "max": xp.where(active, xp.maximum(mon["max"], z1), mon["max"]),
        "t_first": xp.where(first, t_c, mon["t_first"]),
        "int_first": xp.where(first, int_c, mon["int_first"]),
        "t_last": xp.where(down, t_c, mon["t_last"]),
        "int_last": xp.where(down, int_c, mon["int_last"]),
        "n_cross": mon["n_cross"] + xp.where(down, 1.0, 0.0),
        "int_cum": int_new,
    }


def heun_step(xp: Any, model: DelayModel, x: Any, lag_lo: Any, lag_hi: Any, p: Mapping[str, Any], dt: float) -> Any:
    """One Heun step with the delayed input frozen at its step average (see module doc)."""
    k1 = model.rhs(xp, x, lag_lo, lag_hi, p)
    xe = model.project(xp, x + dt * k1, p)
    k2 = model.rhs(xp, xe, lag_lo, lag_hi, p)
    return model.project(xp, x + 0.5 * dt * (k1 + k2), p)


def _integrate_numpy(*, model, p, x0, k_lag, f_lag, hist, level, dt, n_steps, record_every, settle_steps,
                     ring_len, monitor_index) -> Integration:
    xp = np
    batch = x0.shape[0]
    ring = np.repeat(hist[None, ...], ring_len, axis=0)      # (L, B) or (L, B, k)
    x = model.project(xp, x0.copy(), p)
    ring[0] = model.observable(xp, x, p)
    cols = np.arange(batch)[:, None]
    uniform = bool(np.all(k_lag == k_lag.flat[0]) and np.all(f_lag == f_lag.flat[0]))
    n_rec = n_steps // record_every + 1 if record_every else 0
    rec_x = np.empty((n_rec, batch, x.shape[1])) if n_rec else np.empty((0, batch, x.shape[1]))
    rec_t = np.empty(n_rec)
    if n_rec:
        rec_x[0], rec_t[0] = x, 0.0
    z = x[:, monitor_index]
    r = model.rate(xp, x, p)
    mon = monitor_init(xp, z)
    k0, f0 = int(k_lag.flat[0]), float(f_lag.flat[0])
    for n in range(n_steps):
        if uniform:
            y_new, y_mid, y_old = ring[(n + 1 - k0) % ring_len], ring[(n - k0) % ring_len], ring[(n - k0 - 1) % ring_len]
            lag_lo = ((1 - f0) * y_mid + f0 * y_old)[:, None]
            lag_hi = ((1 - f0) * y_new + f0 * y_mid)[:, None]
            m = k_lag.shape[1]
            if m > 1:
                lag_lo = np.repeat(lag_lo, m, axis=1)
                lag_hi = np.repeat(lag_hi, m, axis=1)
        else:
            y_new = ring[(n + 1 - k_lag) % ring_len, cols]
            y_mid = ring[(n - k_lag) % ring_len, cols]
            y_old = ring[(n - k_lag - 1) % ring_len, cols]
            fl = f_lag if ring.ndim == 2 else f_lag[..., None]
            lag_lo = (1 - fl) * y_mid + fl * y_old
            lag_hi = (1 - fl) * y_new + fl * y_mid
        x = heun_step(xp, model, x, lag_lo, lag_hi, p, dt)
        ring[(n + 1) % ring_len] = model.observable(xp, x, p)
        z1 = x[:, monitor_index]
        r1 = model.rate(xp, x, p)
        mon = monitor_update(xp, mon, z, z1, r, r1, n * dt, dt, level, (n + 1) > settle_steps)
        z, r = z1, r1
        if record_every and (n + 1) % record_every == 0:
            i = (n + 1) // record_every
            rec_x[i], rec_t[i] = x, (n + 1) * dt
    mon.pop("int_cum")
    return Integration(t=rec_t, x=rec_x, x_final=x, monitor=mon, dt=dt, n_steps=n_steps)


def _integrate_native(*, model, p, x0, k_lag, f_lag, hist, level, dt, n_steps, record_every, settle_steps,
                      ring_len, monitor_index) -> Integration:
    from ccscope import _native

    batch, n = x0.shape
    if not -n <= monitor_index < n:
        raise ValueError(f"monitor_index = {monitor_index}: the state has {n} components")
    if not model.native_grouped:       # the model reads the lag of group 0 only
        k_lag, f_lag = k_lag[:, :1], f_lag[:, :1]
    m = k_lag.shape[1]
    cols = []
    for name in model.native_params:
        a = np.asarray(p[name], dtype=float)
        a = np.broadcast_to(a, (batch,) + a.shape[1:]) if a.ndim else np.full(batch, float(a))
        cols.append(a.reshape(batch, -1))
    params = np.ascontiguousarray(np.concatenate(cols, axis=1), dtype=float)
    hist2 = hist.reshape(batch, -1)
    x_final, rec_x, mon = _native.fluid_integrate(
        model.native, m, params, np.ascontiguousarray(x0, dtype=float),
        np.ascontiguousarray(k_lag, dtype=np.int64), np.ascontiguousarray(f_lag, dtype=float),
        np.ascontiguousarray(hist2, dtype=float), np.ascontiguousarray(level, dtype=float), float(dt), int(n_steps),
        int(record_every), int(settle_steps), int(ring_len), int(monitor_index) % n)
    n_rec = rec_x.shape[0]
    rec_t = (np.arange(n_rec) * record_every) * dt if n_rec else np.empty(0)
    monitor = {key: np.ascontiguousarray(mon[:, i]) for i, key in enumerate(NATIVE_MONITOR_KEYS)}
    return Integration(t=rec_t, x=rec_x, x_final=x_final, monitor=monitor, dt=dt, n_steps=n_steps)


ParamGrid = Mapping[str, Any]
RhsFn = Callable[..., Any]
