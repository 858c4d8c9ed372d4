"""JAX backend of `ccscope.fluid.solver.integrate`: one trajectory as `lax.scan`, `vmap` over the
batch, `jit` over the whole thing. Imported only when `backend="jax"` is asked for, so JAX stays an
optional dependency (`pip install ccscope[jax]`).

The step, the lag interpolation and the monitor are the same pure functions as the numpy backend
(`heun_step`, `monitor_update`), called with `xp = jax.numpy`.
"""
from __future__ import annotations

import contextlib
import functools

import numpy as np

from ccscope.fluid.solver import Integration, heun_step, monitor_init, monitor_update

#: Steps fused in one inner scan when no trace is recorded (keeps the outer scan short).
CHUNK_STEPS = 256


def _require_jax():
    try:
        import jax
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("backend='jax' needs JAX: pip install 'ccscope[jax]' (or jax[cpu])") from exc
    return jax


def _x64_context(dtype: str):
    import jax

    if dtype == "float64":
        enable = getattr(jax, "enable_x64", None)
        if enable is None:  # older JAX
            from jax.experimental import enable_x64 as enable
        return enable(True)
    if dtype == "float32":
        return contextlib.nullcontext()
    raise ValueError(f"dtype = {dtype!r}: allowed values are 'float64' and 'float32'")


@functools.lru_cache(maxsize=64)
def _compiled(model, dt: float, n_outer: int, n_inner: int, n_rem: int, ring_len: int, settle_steps: int,
              monitor_index: int, record: bool):
    import jax
    import jax.numpy as jnp
    from jax import lax

    def single(p, x0, k_lag, f_lag, hist, level):
        x = model.project(jnp, x0, p)
        ring = jnp.broadcast_to(hist, (ring_len,) + hist.shape).at[0].set(model.observable(jnp, x, p))
        fl = f_lag if hist.ndim == 0 else f_lag[:, None]      # vector observables: lags are (m, k)
        z = x[monitor_index]
        r = model.rate(jnp, x, p)
        mon = monitor_init(jnp, z)

        def step(carry, _):
            x, ring, n, z, r, mon = carry
            y_new = ring[(n + 1 - k_lag) % ring_len]
            y_mid = ring[(n - k_lag) % ring_len]
            y_old = ring[(n - k_lag - 1) % ring_len]
            lag_lo = (1 - fl) * y_mid + fl * y_old
            lag_hi = (1 - fl) * y_new + fl * y_mid
            x1 = heun_step(jnp, model, x, lag_lo, lag_hi, p, dt)
            ring = ring.at[(n + 1) % ring_len].set(model.observable(jnp, x1, p))
            z1 = x1[monitor_index]
            r1 = model.rate(jnp, x1, p)
            mon = monitor_update(jnp, mon, z, z1, r, r1, n * dt, dt, level, (n + 1) > settle_steps)
            return (x1, ring, n + 1, z1, r1, mon), None

        def chunk(carry, _):
            carry, _ = lax.scan(step, carry, None, length=n_inner)
            return carry, (carry[0] if record else None)

        carry = (x, ring, jnp.asarray(0), z, r, mon)
        carry, rec = lax.scan(chunk, carry, None, length=n_outer)
        if n_rem:
            carry, _ = lax.scan(step, carry, None, length=n_rem)
        mon = dict(carry[5])
        mon.pop("int_cum")
        return carry[0], mon, rec

    return jax.jit(jax.vmap(single))


def integrate_jax(*, model, p, x0, k_lag, f_lag, hist, level, dt, n_steps, record_every, settle_steps, ring_len,
                  monitor_index, dtype: str = "float64") -> Integration:
    """See `ccscope.fluid.solver.integrate` (same steps, same recorded samples as numpy)."""
    _require_jax()
    import jax.numpy as jnp

    record = bool(record_every)
    n_inner = record_every if record else min(CHUNK_STEPS, max(n_steps, 1))
    n_outer, n_rem = divmod(n_steps, n_inner)
    with _x64_context(dtype):
        fdt = jnp.float64 if dtype == "float64" else jnp.float32
        fn = _compiled(model, float(dt), n_outer, n_inner, n_rem, ring_len, settle_steps, monitor_index, record)
        pj = {k: jnp.asarray(v, dtype=fdt) for k, v in p.items()}
        xf, mon, rec = fn(pj, jnp.asarray(x0, dtype=fdt), jnp.asarray(k_lag), jnp.asarray(f_lag, dtype=fdt),
                          jnp.asarray(hist, dtype=fdt), jnp.asarray(level, dtype=fdt))
        xf = np.asarray(xf, dtype=float)
        mon = {k: np.asarray(v, dtype=float) for k, v in mon.items()}
        if record:
            rec_x = np.concatenate([np.asarray(x0, dtype=float)[None], np.swapaxes(np.asarray(rec, dtype=float), 0, 1)])
            rec_t = np.arange(n_outer + 1) * n_inner * dt
        else:
            rec_x, rec_t = np.empty((0,) + xf.shape), np.empty(0)
    return Integration(t=rec_t, x=rec_x, x_final=xf, monitor=mon, dt=dt, n_steps=n_steps)
