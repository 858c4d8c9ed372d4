"""DX latency-based window control: fluid model and stability, Jiang et al. (P004).

- Fluid model (eqs 3-4): W (bytes) and queueing delay Q (s) with the feedback delay tau and the
  constant decrease probability p (0.95, the representative value of Table 1); W >= seg clamp
  (needed for the special state of Theorem 2, §3.3; eqs 3-4 omit it).
- Equilibrium (eqs 5-8), linearization (eqs 9-11), loop G(s) (eq 12), crossover (eq 16).
- Theorem 1 bound (eq 17) with the phase-sign fix of erratum E50:
    tau < [pi/2 + atan(wc/a1) - atan(wc b2/(a1 b2 - a2 b1))] / wc  (printed "+ atan(...)": negative)
  evaluated with tau = R0 (E53: reproduces the paper's 42 / 140 flows and 145 us).
- Special stable state (Theorem 2): N >= C R0/seg gives W* = seg, Q* = (N seg - C R0)/C (E52 for
  the reversed inequality of §4.2).
ALGORITHMS.md §6.2, FIGURES.md dx/fig1a-c, text-stability-thresholds, text-equilibrium.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ccscope.analysis import limit_cycle as lc
from ccscope.analysis.stability import DelayedRationalLoop
from ccscope.fluid.base import (
    BITS_PER_BYTE,
    PACKET_BYTES_DEFAULT,
    FluidResult,
    check_positive,
    check_range,
)
from ccscope.fluid.solver import DelayModel, integrate, lag_mean


def brentq(*args, **kwargs):
    """scipy.optimize.brentq, imported on first use (keeps scipy out of `import ccscope.fluid`)."""
    from scipy.optimize import brentq as _brentq

    return _brentq(*args, **kwargs)

#: Probability that a per-RTT update is a decrease (P004 §3.1; mean of Table 1's 80-us row).
P_DECREASE = 0.95
#: Steps per feedback delay for the fluid model.
STEPS_PER_DELAY = 200
#: Search brackets for the stability thresholds (flows; seconds).
N_BRACKET = (1.0, 1e5)
R0_BRACKET_S = (1e-7, 1e-1)


@dataclass
class DxEquilibrium:
    """(W0 bytes, Q0 s), linearization a1, a2, b1, b2 (eq 11), crossover wc (rad/s, eq 16),
    corrected bound (s, E50), printed bound (s, eq 17 literally: negative), tau used, stable flag,
    special_state (Theorem 2 applies), special_threshold_flows = C R0/seg."""

    n_flows: float
    rate_bps: float
    r0_s: float
    q0_s: float
    w0_bytes: float
    a1: float
    a2: float
    b1: float
    b2: float
    crossover_rad_s: float
    bound_s: float
    bound_printed_s: float
    tau_s: float
    stable: bool
    special_state: bool
    special_threshold_flows: float
    special_queue_s: float


def _c_bytes(rate_bps: float) -> float:
    return rate_bps / BITS_PER_BYTE


def equilibrium(n_flows: float, rate_bps: float, r0_s: float, *, p: float = P_DECREASE,
                seg_bytes: float = PACKET_BYTES_DEFAULT, tau_s: float | None = None) -> DxEquilibrium:
    """Equilibrium, linearization and the corrected Theorem 1 bound (tau defaults to R0, E53)."""
    n = check_positive("n_flows", n_flows)
    c = _c_bytes(check_positive("rate_bps", rate_bps))
    r0 = check_positive("r0_s", r0_s)
    p = check_range("p", p, 0.0, 1.0, lo_open=True, hi_open=True)
    seg = check_positive("seg_bytes", seg_bytes)
    tau = r0 if tau_s is None else check_positive("tau_s", tau_s)
    delta = (c * p * r0 - p * n * seg) ** 2 + 4 * c * p * n * r0 * seg * (1 - p)          # (8)
    q0 = (p * (n * seg - c * r0) + math.sqrt(delta)) / (2 * c * p)                        # (7)
    w0 = c * (r0 + q0) / n                                                                # (6)
    a1 = -q0 * p / (r0 * (r0 + q0))                                                       # (11)
    a2 = (2 * p * seg - p * w0 - seg) / (q0 + r0) ** 2
    b1 = n / (c * (r0 + q0))
    b2 = -n * w0 / (c * (r0 + q0) ** 2)
    det = a1 * b2 - a2 * b1
    wc = math.sqrt((b2**2 - a1**2 + math.sqrt((a1**2 - b2**2) ** 2 + 4 * det**2)) / 2)     # (16)
    bound = (math.pi / 2 + math.atan(wc / a1) - math.atan(wc * b2 / det)) / wc            # (17) with E50
    printed = (math.pi / 2 + math.atan(wc / a1) + math.atan(wc * b2 / det)) / wc
    thr = c * r0 / seg
    return DxEquilibrium(n_flows=n, rate_bps=rate_bps, r0_s=r0, q0_s=q0, w0_bytes=w0, a1=a1, a2=a2, b1=b1, b2=b2,
                         crossover_rad_s=wc, bound_s=bound, bound_printed_s=printed, tau_s=tau, stable=tau < bound,
                         special_state=n >= thr, special_threshold_flows=thr,
                         special_queue_s=max(0.0, (n * seg - c * r0) / c))


def loop(eq: DxEquilibrium, *, delay_s: float | None = None) -> DelayedRationalLoop:
    """G(s) = e^{-s tau} (a1 b2 - a2 b1 - b2 s)/(s (s - a1)) (eq 12) as a rational loop (gain -b2 > 0)."""
    det = eq.a1 * eq.b2 - eq.a2 * eq.b1
    return DelayedRationalLoop(gain=-eq.b2, zeros=[det / eq.b2], poles=[0.0, eq.a1],
                               delay_s=eq.tau_s if delay_s is None else delay_s)


def min_stable_flows(rate_bps: float, r0_s: float, **kw) -> float:
    """Smallest (real) N with bound(N) = tau = R0 (above it Theorem 1 holds)."""
    f = lambda n: equilibrium(n, rate_bps, r0_s, **kw).bound_s - r0_s
    return brentq(f, *N_BRACKET, xtol=1e-10)


def max_stable_r0(n_flows: float, rate_bps: float, **kw) -> float:
    """Largest R0 (s) with bound(R0) = R0 at N flows (tau = R0)."""
    f = lambda r0: equilibrium(n_flows, rate_bps, r0, **kw).bound_s - r0
    lo, hi = R0_BRACKET_S
    grid = np.geomspace(lo, hi, 400)
    vals = np.array([f(x) for x in grid])
    idx = np.flatnonzero((vals[:-1] > 0) & (vals[1:] <= 0))
    if len(idx) == 0:
        raise ValueError(f"n_flows = {n_flows!r}: no R0 in {R0_BRACKET_S} s where the bound equals R0")
    i = int(idx[-1])
    return brentq(f, grid[i], grid[i + 1], xtol=1e-15)


class _DxDde(DelayModel):
    """Eqs 3-4. State (W bytes, Q s). Params: n, c_bytes, r0_s, p, seg. Lag observable Q."""

    state_names = ("window_bytes", "queue_delay_s")
    native = "dx"
    native_params = ("n", "c_bytes", "r0_s", "p", "seg")

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        w, q = x[..., 0], x[..., 1]
        qd = lag_mean(lag_lo[..., 0], lag_hi[..., 0])
        r = p["r0_s"] + qd
        dw = p["seg"] * (1 - p["p"]) / r - p["p"] * qd * (w - p["seg"]) / (p["r0_s"] * r)
        dq = p["n"] * w / (p["c_bytes"] * r) - 1.0
        dq = xp.where(q <= 0.0, xp.maximum(dq, 0.0), dq)
        dw = xp.where(w <= p["seg"], xp.maximum(dw, 0.0), dw)
        return xp.stack([dw, dq], axis=-1)

    def observable(self, xp, x, p):
        return x[..., 1]

    def project(self, xp, x, p):
        return xp.stack([xp.maximum(x[..., 0], p["seg"]), xp.maximum(x[..., 1], 0.0)], axis=-1)

    def rate(self, xp, x, p):
        # link utilization: 1 while the queue is busy, else arrival/C
        arrival = p["n"] * x[..., 0] / (p["c_bytes"] * p["r0_s"])
        return xp.where(x[..., 1] > 0.0, 1.0, xp.minimum(arrival, 1.0))


DX_DDE = _DxDde()


class DxFluid:
    """DX fluid model (eqs 3-4) for N flows at `rate_bps` with base RTT `r0_s`."""

    def __init__(self, n_flows: float, rate_bps: float, r0_s: float, *, p: float = P_DECREASE,
                 seg_bytes: float = PACKET_BYTES_DEFAULT, tau_s: float | None = None):
        self.eq = equilibrium(n_flows, rate_bps, r0_s, p=p, seg_bytes=seg_bytes, tau_s=tau_s)
        self.p, self.seg = p, seg_bytes

    def solve(self, until_s: float, *, dt_s: float | None = None, w0_bytes: float | None = None,
              q0_s: float = 0.0, record_every: int = 10, settle_s: float | None = None,
              backend: str = "auto") -> FluidResult:
        """Integrate from (w0, q0) (default: 1.2 W0, empty queue). Columns time_s, window_bytes, queue_delay_s."""
        e = self.eq
        check_positive("until_s", until_s)
        dt_s = e.tau_s / STEPS_PER_DELAY if dt_s is None else check_positive("dt_s", dt_s)
        w0 = 1.2 * e.w0_bytes if w0_bytes is None else check_positive("w0_bytes", w0_bytes)
        params = {"n": e.n_flows, "c_bytes": _c_bytes(e.rate_bps), "r0_s": e.r0_s, "p": self.p, "seg": self.seg}
        settle_s = 0.5 * until_s if settle_s is None else settle_s
        res = integrate(DX_DDE, params, [w0, q0_s], delays=e.tau_s, history=q0_s, dt=dt_s, until=until_s,
                        record_every=record_every, settle=settle_s, level=e.q0_s, backend=backend)
        traces = pd.DataFrame({"time_s": res.t, "window_bytes": res.x[:, 0, 0], "queue_delay_s": res.x[:, 0, 1]})
        ok = bool(np.all(np.isfinite(res.x_final)))
        return FluidResult(traces=traces, success=ok, message="ok" if ok else "non-finite state",
                           limit_cycle=lc.from_monitor(res.monitor)[0],
                           params={"n_flows": e.n_flows, "rate_bps": e.rate_bps, "r0_s": e.r0_s, "p": self.p, "tau_s": e.tau_s})


def dx(n_flows: float, rate_bps: float, r0_s: float, *, p: float = P_DECREASE, seg_bytes: float = PACKET_BYTES_DEFAULT,
       tau_s: float | None = None) -> DxFluid:
    """The DX fluid model; `.eq` holds the equilibrium and Theorem 1 bound. See `DxFluid`."""
    return DxFluid(n_flows, rate_bps, r0_s, p=p, seg_bytes=seg_bytes, tau_s=tau_s)
