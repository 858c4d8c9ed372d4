"""DCTCP fluid models of Alizadeh, Javanmard, Prabhakar, *Analysis of DCTCP* (P000).

- `dctcp(...)`: the fluid model in physical units, eqs 5-8 (N flows, capacity C, RTT d,
  threshold K), with heterogeneous RTT groups as in eqs 37-38 (group i sees p(t - R*_i)).
- `dctcp_normalized(wbar, g)`: the normalized model, eqs 10-14 (time in R* = d + K/C,
  q~ = (q - K)/(C R*)), optionally with the queue floor of §3.3.2 (psi = K/(Cd)).
  `.limit_cycle()` gives Qmin/Qmax/period/throughput (Figs 7-9), `.poincare()` the fixed point of the
  return map on the switching plane and its Floquet multipliers (Theorem 1, App. A), computed from the
  variational equation (erratum E8: the propagator is the time-ordered fundamental matrix, not
  `expm(int J)`) and cross-checked by finite differences of the map.

Fixed point for wbar <= 2 is (W~, alpha~, q~) = (2, 1, 2/wbar - 1) (E2: the paper prints W = 2/wbar).
Marking is `q > K` (eq 8; E1). ALGORITHMS.md §2.2-2.5, FIGURES.md dctcp-analysis/fig2-fig9.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ccscope.analysis import limit_cycle as lc
from ccscope.analysis import poincare as pc
from ccscope.fluid.base import (
    PACKET_BYTES_DEFAULT,
    FluidResult,
    LimitCycle,
    check_positive,
    check_range,
    pkts_per_s,
)
from ccscope.fluid.solver import DelayModel, fraction_above, integrate

#: Default EWMA gain g = 1/16 (P000 §2.2 and Fig 2; Linux dctcp_shift_g = 4).
DEFAULT_G = 1 / 16
#: Default step of the normalized model, in R*. Halving it changes Qmin/Qmax/period by < 1e-4
#: (tests/fluid/test_solver.py), well inside the +-5e-4 of the ALGORITHMS.md §2.5 checkpoints.
DT_NORMALIZED = 0.01
#: Steps per R* for the physical model (FIGURES.md fig2: dt <= R*/500).
STEPS_PER_RSTAR = 500
#: Settling time of limit-cycle measurements: max(SETTLE_MIN, SETTLE_PER_G / g) R*
#: (ALGORITHMS.md §2.5 checkpoints use 20/g; alpha relaxes at rate ~g per R*).
SETTLE_PER_G = 20.0
SETTLE_MIN = 100.0
#: Measuring window after settling, in R*: max(MEASURE_MIN, MEASURE_PER_SQRT_WBAR * sqrt(wbar));
#: the period grows ~ sqrt(wbar) (Fig 8), so this holds >= 5 periods everywhere in Fig 7's range.
MEASURE_MIN = 60.0
MEASURE_PER_SQRT_WBAR = 8.0
#: The fixed point exists iff wbar <= 2 (P000 §3.1).
WBAR_FIXED_POINT_MAX = 2.0
#: Window of every flow at the fixed point (2 pkts per RTT, all packets marked; E2).
W_FIXED_POINT_PKTS = 2.0
#: ODE tolerances of the return map (scipy DOP853).
MAP_RTOL = 1e-10
MAP_ATOL = 1e-12
#: Longest ODE step of the return map, in R*. The crossings of S are located on DOP853's dense-output
#: interpolant, whose error the step-size control does not bound; on the long orbits of large g and wbar
#: (40-200 R*, alpha ~ 1e-13 below S) the steps grew to several R*, and at the shallow upward crossing
#: (dq~/dt = W~/(wbar(1 + q~)) - 1 ~ 0.006) the interpolant's error in q~ moved the crossing time by ~1e-6,
#: i.e. map errors up to 3e-8 relative and Z1 Z2 errors up to 6e-4 (absolute) against a reference with
#: rtol = 1e-13, max step 0.1. Capping the step at one delay brings both under 2e-9 and 4e-10 over
#: g >= 0.3, wbar >= 200 (tests/fluid/test_dctcp.py::test_return_map_accuracy_on_long_orbits).
MAP_MAX_STEP = 1.0
#: Longest half-period the return map will integrate before declaring no crossing, in R*.
MAP_MAX_HALF_PERIOD = 1e4
#: Simple iterations of the map before Newton (brings a rough guess into Newton's basin).
MAP_PRE_ITERATIONS = 4


def normalized_field(xp: Any, w: Any, alpha: Any, q: Any, u: Any, wbar: Any, g: Any) -> tuple[Any, Any, Any]:
    """Right-hand side of eqs 11-13 with the delayed mark indicator u = p~(t - 1) given."""
    den = 1.0 + q
    return (1.0 - w * alpha * u / 2.0) / den, g * (u - alpha) / den, w / (wbar * den) - 1.0


def normalized_jacobian(w: float, alpha: float, q: float, u: float, wbar: float, g: float) -> np.ndarray:
    """Jacobian of eqs 11-13 in x = (W~, alpha~, q~) at fixed u (J_F of Theorem 1)."""
    den = 1.0 + q
    return np.array([
        [-alpha * u / (2 * den), -w * u / (2 * den), -(1 - w * alpha * u / 2) / den**2],
        [0.0, -g / den, -g * (u - alpha) / den**2],
        [1.0 / (wbar * den), 0.0, -w / (wbar * den**2)],
    ])


class _NormalizedDde(DelayModel):
    """Eqs 11-14 (+ the §3.3.2 floor) for the batched solver. Params: wbar, g, q_floor."""

    state_names = ("window_pkts", "alpha", "queue_norm")
    native = "dctcp_normalized"
    native_params = ("wbar", "g", "q_floor")

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        u = fraction_above(xp, lag_lo[..., 0], lag_hi[..., 0], 0.0)
        dw, da, dq = normalized_field(xp, x[..., 0], x[..., 1], x[..., 2], u, p["wbar"], p["g"])
        dq = xp.where(x[..., 2] <= p["q_floor"], xp.maximum(dq, 0.0), dq)
        return xp.stack([dw, da, dq], axis=-1)

    def observable(self, xp, x, p):
        return x[..., 2]

    def project(self, xp, x, p):
        return xp.concatenate([x[..., :2], xp.maximum(x[..., 2:], p["q_floor"][..., None])], axis=-1)

    def rate(self, xp, x, p):
        return x[..., 0] / (p["wbar"] * (1.0 + x[..., 2]))


class _PhysicalDde(DelayModel):
    """Eqs 5-8 with m RTT groups (eqs 37-38). State (W_1..W_m, alpha_1..alpha_m, q).

    Params: n_flows (.., m), rtt_s (.., m), c_pps, k_pkts, g. Queue floored at 0.
    """

    native = "dctcp_physical"
    native_params = ("n_flows", "rtt_s", "c_pps", "k_pkts", "g")
    native_grouped = True

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        m = p["n_flows"].shape[-1]
        w, a, q = x[..., :m], x[..., m:2 * m], x[..., 2 * m]
        c = p["c_pps"][..., None]
        u = fraction_above(xp, lag_lo, lag_hi, p["k_pkts"][..., None])
        r = p["rtt_s"] + q[..., None] / c
        dw = 1.0 / r - w * a * u / (2.0 * r)
        da = p["g"][..., None] / r * (u - a)
        dq = xp.sum(p["n_flows"] * w / r, axis=-1) - p["c_pps"]
        dq = xp.where(q <= 0.0, xp.maximum(dq, 0.0), dq)
        return xp.concatenate([dw, da, dq[..., None]], axis=-1)

    def observable(self, xp, x, p):
        return x[..., -1]

    def project(self, xp, x, p):
        return xp.concatenate([x[..., :-1], xp.maximum(x[..., -1:], 0.0)], axis=-1)

    def rate(self, xp, x, p):
        m = p["n_flows"].shape[-1]
        q = x[..., -1]
        arrival = xp.sum(p["n_flows"] * x[..., :m] / (p["rtt_s"] + q[..., None] / p["c_pps"][..., None]), axis=-1)
        return xp.where(q > 0.0, 1.0, xp.minimum(arrival / p["c_pps"], 1.0))


NORMALIZED_DDE = _NormalizedDde()
PHYSICAL_DDE = _PhysicalDde()


def settle_time(g: float) -> float:
    """Settling time (R*) before limit-cycle statistics are taken."""
    return max(SETTLE_MIN, SETTLE_PER_G / g)


def measure_time(wbar: float) -> float:
    """Measuring window (R*) after settling."""
    return max(MEASURE_MIN, MEASURE_PER_SQRT_WBAR * math.sqrt(wbar))


def q_floor_of_psi(psi: float | None) -> float:
    """Lowest normalized queue: -psi/(1+psi) (q = 0 in packets, §3.3.2); -1 without a floor."""
    return -1.0 if psi is None or math.isinf(psi) else -psi / (1.0 + psi)


def normalized_limit_cycles(wbar: Any, g: Any, *, psi: Any = None, dt: float = DT_NORMALIZED,
                            settle: float | None = None, measure: float | None = None,
                            backend: str = "auto", dtype: str = "float64") -> dict[str, np.ndarray]:
    """Limit-cycle statistics of eqs 11-14 for a batch of (wbar, g[, psi]) in one integration.

    Returns (B,) arrays q_min, q_max (normalized), period (R*), throughput (cycle average of
    W~/(wbar(1+q~)), §3.3.2), n_periods, periodic. Start: W~ = wbar, alpha~ = sqrt(2/wbar)
    (the Sawtooth estimate, close to the orbit average), q~ = 0, history p = 0.
    """
    wbar, g = np.broadcast_arrays(np.asarray(wbar, float), np.asarray(g, float))
    wbar, g = wbar.ravel(), g.ravel()
    for name, arr in (("wbar", wbar), ("g", g)):
        if np.any(~np.isfinite(arr)) or np.any(arr <= 0):
            raise ValueError(f"{name} = {arr[~(np.isfinite(arr) & (arr > 0))][0]!r}: must be finite and > 0")
    if np.any(g > 1):
        raise ValueError(f"g = {g[g > 1][0]!r}: must lie in (0, 1]")
    psi_arr = np.full(wbar.shape, np.inf) if psi is None else np.broadcast_to(np.asarray(psi, float), wbar.shape)
    if np.any(psi_arr < 0) or np.any(np.isnan(psi_arr)):
        raise ValueError(f"psi = {psi!r}: must be >= 0")
    floor = -psi_arr / (1.0 + np.where(np.isinf(psi_arr), 0.0, psi_arr))
    floor = np.where(np.isinf(psi_arr), -1.0, floor)
    settle = float(np.max([settle_time(x) for x in np.unique(g)])) if settle is None else settle
    measure = float(np.max([measure_time(x) for x in np.unique(wbar)])) if measure is None else measure
    alpha0 = np.minimum(1.0, np.sqrt(2.0 / wbar))
    x0 = np.stack([wbar, alpha0, np.maximum(0.0, floor)], axis=-1)
    res = integrate(NORMALIZED_DDE, {"wbar": wbar, "g": g, "q_floor": floor}, x0, delays=1.0, history=-1.0, dt=dt,
                    until=settle + measure, settle=settle, level=0.0, backend=backend, dtype=dtype)
    out = lc.monitor_arrays(res.monitor)
    # Fixed-point regime (no crossings): report the final queue as both extremes, full throughput.
    fixed = ~out["periodic"]
    xf = res.x_final
    out["q_min"] = np.where(fixed, xf[:, 2], out["q_min"])
    out["q_max"] = np.where(fixed, xf[:, 2], out["q_max"])
    out["throughput"] = np.where(fixed, np.minimum(1.0, xf[:, 0] / (wbar * (1 + xf[:, 2]))), out["throughput"])
    return out


@dataclass
class PoincareResult:
    """Fixed point of the return map on S = {q~ = 0} (downward crossing) and its stability.

    w_star, alpha_star: the fixed point x_a* on S; h_a, h_b: the half-period excesses (the orbit
    spends 1 + h_a below and 1 + h_b above S); period = 2 + h_a + h_b (R*); q_min, q_max: the
    orbit's extremes; monodromy: Z1 Z2 (3x3) from the variational equation (E8); multipliers: its
    two nonzero eigenvalues; multipliers_fd: eigenvalues of a finite-difference Jacobian of the
    2-D map (W~, alpha~) -> (W~, alpha~); multipliers_literal: from the paper's expm(int J) form
    when requested; spectral_radius = max |multipliers|; stable iff < 1 (Theorem 1).
    """

    wbar: float
    g: float
    w_star: float
    alpha_star: float
    h_a: float
    h_b: float
    period: float
    q_min: float
    q_max: float
    monodromy: np.ndarray
    multipliers: np.ndarray
    multipliers_fd: np.ndarray
    multipliers_literal: np.ndarray | None
    spectral_radius: float
    stable: bool
    converged: bool


class DctcpNormalized:
    """The normalized DCTCP model (P000 eqs 11-14): parameters wbar = (Cd+K)/N and g only.

    psi: optional normalized threshold K/(Cd) enabling the queue floor q~ >= -psi/(1+psi) (§3.3.2);
    None means no floor (the plain eqs 11-14 used by Figs 4-8).
    """

    def __init__(self, wbar: float, g: float = DEFAULT_G, *, psi: float | None = None):
        self.wbar = check_positive("wbar", wbar)
        self.g = check_range("g", g, 0.0, 1.0, lo_open=True)
        self.psi = None if psi is None else check_positive("psi", psi, allow_zero=True)
        self.q_floor = q_floor_of_psi(self.psi)

    def __repr__(self) -> str:
        return f"DctcpNormalized(wbar={self.wbar:g}, g={self.g:g}, psi={self.psi})"

    def fixed_point(self) -> dict[str, float] | None:
        """(W~, alpha~, q~) = (2, 1, 2/wbar - 1) when wbar <= 2 (E2), else None (limit cycle)."""
        if self.wbar > WBAR_FIXED_POINT_MAX:
            return None
        return {"window_pkts": W_FIXED_POINT_PKTS, "alpha": 1.0,
                    "queue_norm": max(W_FIXED_POINT_PKTS / self.wbar - 1.0, self.q_floor)}

    def _params(self) -> dict[str, float]:
        return {"wbar": self.wbar, "g": self.g, "q_floor": self.q_floor}

    def solve(self, until: float = 200.0, *, dt: float = DT_NORMALIZED, w0: float | None = None,
              alpha0: float = 0.5, q0: float = 0.0, history_q: float | None = None, record_every: int = 10,
              settle: float | None = None, backend: str = "auto") -> FluidResult:
        """Integrate from (w0, alpha0, q0) with constant history q~ = history_q (default q0) for t < 0.

        Time unit R*. Returns traces with columns time_rtt, window_pkts, alpha, queue_norm and
        the limit cycle measured after `settle` (default: half the horizon).
        """
        check_positive("until", until)
        w0 = self.wbar if w0 is None else check_positive("w0", w0)
        check_range("alpha0", alpha0, 0.0, 1.0)
        settle = 0.5 * until if settle is None else settle
        res = integrate(NORMALIZED_DDE, self._params(), [w0, alpha0, q0], delays=1.0,
                        history=q0 if history_q is None else history_q, dt=dt, until=until,
                        record_every=record_every, settle=settle, backend=backend)
        traces = pd.DataFrame({"time_rtt": res.t, "window_pkts": res.x[:, 0, 0], "alpha": res.x[:, 0, 1],
                               "queue_norm": res.x[:, 0, 2]})
        cycle = lc.from_monitor(res.monitor)[0]
        ok = bool(np.all(np.isfinite(res.x_final)))
        return FluidResult(traces=traces, success=ok, message="ok" if ok else "non-finite state",
                           limit_cycle=cycle, params={"wbar": self.wbar, "g": self.g, "psi": self.psi, "dt": dt})

    def limit_cycle(self, *, dt: float = DT_NORMALIZED, settle: float | None = None, measure: float | None = None,
                    backend: str = "auto") -> LimitCycle:
        """Qmin, Qmax (normalized), period (R*), throughput of the settled orbit (DDE solver)."""
        out = normalized_limit_cycles(self.wbar, self.g, psi=self.psi, dt=dt, settle=settle, measure=measure,
                                      backend=backend)
        return LimitCycle(float(out["q_min"][0]), float(out["q_max"][0]), float(out["period"][0]),
                          float(out["throughput"][0]), int(out["n_periods"][0]), bool(out["periodic"][0]))

    # --- Poincaré map (Theorem 1) -------------------------------------------------------------
    def return_map(self, w: float, alpha: float, *, variational: bool = False, literal: bool = False,
                   rtol: float = MAP_RTOL, atol: float = MAP_ATOL, max_step: float = MAP_MAX_STEP) -> dict[str, Any]:
        """One turn of the return map from x = (w, alpha, 0) on S (downward crossing, p = 1 on [-1, 0]).

        The delayed input is piecewise constant and locked to the crossings: u = 1 on [0, 1),
        0 on [1, t_b + 1), 1 until the next downward crossing T (t_b = 1 + h_a: upward crossing).
        Returns w, alpha at T, t_b, T, q_min, q_max, and with `variational` the monodromy matrix
        Z1 Z2 (and with `literal` the paper's expm(int J) version). rtol, atol, max_step: DOP853's
        tolerances and step cap (defaults MAP_RTOL, MAP_ATOL, MAP_MAX_STEP).
        """
        if self.psi is not None:
            raise ValueError("psi: the return map is defined for the model without the queue floor (psi=None)")
        from scipy.integrate import solve_ivp
        from scipy.linalg import expm

        wbar, g = self.wbar, self.g
        n_aug = (9 if variational else 0) + (9 if literal else 0)

        def fun(u):
            def f(t, y):
                w_, a_, q_ = y[0], y[1], y[2]
                out = list(normalized_field(np, w_, a_, q_, u, wbar, g))
                if n_aug:
                    jac = normalized_jacobian(w_, a_, q_, u, wbar, g)
                    extra = []
                    if variational:
                        extra.append((jac @ y[3:12].reshape(3, 3)).ravel())
                    if literal:
                        extra.append(jac.ravel())
                    return np.concatenate([out, *extra])
                return out
            return f

        def q_cross(t, y):
            return y[2]

        def extremum(t, y):
            return y[0] / (wbar * (1 + y[2])) - 1.0

        extremes: list[float] = []

        def run(y, t0, t1, u, direction, terminal):
            q_cross.terminal, q_cross.direction = terminal, direction
            sol = solve_ivp(fun(u), (t0, t1), y, method="DOP853", rtol=rtol, atol=atol, max_step=max_step,
                            events=[q_cross, extremum])
            extremes.extend(float(e[2]) for e in sol.y_events[1])
            hit = sol.y_events[0]
            return sol.y[:, -1], sol.t[-1], (float(sol.t_events[0][0]) if len(hit) else None), \
                (hit[0] if len(hit) else None)

        y0 = [w, alpha, 0.0]
        if variational:
            y0 += list(np.eye(3).ravel())
        if literal:
            y0 += [0.0] * 9
        y0 = np.array(y0, dtype=float)
        c = np.array([0.0, 0.0, 1.0])
        # (1) u = 1 on [0, 1): must stay below S (h_a > 0 needs no upward crossing yet)
        y, _, t_hit, _ = run(y0, 0.0, 1.0, 1.0, +1, True)
        if t_hit is not None:
            raise ValueError(f"wbar = {wbar:g}, g = {g:g}: orbit returns to S within one delay (h_a <= 0)")
        # (2) u = 0 until the upward crossing t_b
        y, _, t_b, y_b = run(y, 1.0, 1.0 + MAP_MAX_HALF_PERIOD, 0.0, +1, True)
        if t_b is None:
            raise ValueError(f"wbar = {wbar:g}, g = {g:g}: no upward crossing of q~ = 0 (fixed-point regime?)")
        y = y_b.copy()
        y[2] = 0.0
        if variational:
            s_b = pc.saltation_projection(np.array(normalized_field(np, y[0], y[1], 0.0, 0.0, wbar, g)), c)
            y[3:12] = (s_b @ y[3:12].reshape(3, 3)).ravel()
        # (3) u = 0 on [t_b, t_b + 1): must stay above S (h_b > 0)
        y, _, t_hit, _ = run(y, t_b, t_b + 1.0, 0.0, -1, True)
        if t_hit is not None:
            raise ValueError(f"wbar = {wbar:g}, g = {g:g}: orbit leaves S+ within one delay (h_b <= 0)")
        # (4) u = 1 until the downward crossing T
        y, _, t_end, y_a = run(y, t_b + 1.0, t_b + 1.0 + MAP_MAX_HALF_PERIOD, 1.0, -1, True)
        if t_end is None:
            raise ValueError(f"wbar = {wbar:g}, g = {g:g}: no downward crossing of q~ = 0")
        out: dict[str, Any] = {"w": float(y_a[0]), "alpha": float(y_a[1]), "t_b": t_b, "period": t_end,
                                   "q_min": min(extremes + [0.0]), "q_max": max(extremes + [0.0])}
        f_a = np.array(normalized_field(np, y_a[0], y_a[1], 0.0, 1.0, wbar, g))
        if variational:
            out["monodromy"] = pc.saltation_projection(f_a, c) @ y_a[3:12].reshape(3, 3)
        if literal:
            # the paper's literal form: projections times expm of the integrated Jacobian per half
            # (only the whole-period integral is tracked here, so this is the one-propagator variant)
            out["monodromy_literal"] = pc.saltation_projection(f_a, c) @ expm(y_a[-9:].reshape(3, 3))
        return out

    def _map2(self, x: np.ndarray, **tol: float) -> np.ndarray:
        r = self.return_map(float(x[0]), float(x[1]), **tol)
        return np.array([r["w"], r["alpha"]])

    def poincare(self, *, w0: float | None = None, alpha0: float | None = None, literal: bool = False) -> PoincareResult:
        """Fixed point of the return map and its multipliers (Theorem 1, with E8's fundamental matrix).

        Start guess: W~ = 0.9 wbar, alpha~ = sqrt(2/wbar), refined by a few map iterations and
        Newton. Raises ValueError for wbar <= 2 (fixed point, no orbit) or with a queue floor.
        """
        if self.wbar <= WBAR_FIXED_POINT_MAX:
            raise ValueError(f"wbar = {self.wbar:g}: <= 2 has a fixed point (2, 1, 2/wbar - 1), no limit cycle")
        x = np.array([0.9 * self.wbar if w0 is None else w0,
                      min(1.0, math.sqrt(2 / self.wbar)) if alpha0 is None else alpha0])
        for _ in range(MAP_PRE_ITERATIONS):
            x = self._map2(x)
        x, converged = pc.fixed_point(self._map2, x)
        r = self.return_map(x[0], x[1], variational=True, literal=literal)
        ev = pc.multipliers(r["monodromy"])[:2]
        ev_fd = pc.multipliers(pc.fd_jacobian(self._map2, x))
        ev_lit = pc.multipliers(r["monodromy_literal"])[:2] if literal else None
        rho = float(np.max(np.abs(ev)))
        return PoincareResult(wbar=self.wbar, g=self.g, w_star=float(x[0]), alpha_star=float(x[1]),
                              h_a=r["t_b"] - 1.0, h_b=r["period"] - r["t_b"] - 1.0, period=r["period"],
                              q_min=r["q_min"], q_max=r["q_max"], monodromy=r["monodromy"], multipliers=ev,
                              multipliers_fd=ev_fd, multipliers_literal=ev_lit, spectral_radius=rho,
                              stable=rho < 1.0, converged=converged)


def dctcp_normalized(wbar: float, g: float = DEFAULT_G, *, psi: float | None = None) -> DctcpNormalized:
    """The normalized DCTCP model (eqs 11-14); see `DctcpNormalized`."""
    return DctcpNormalized(wbar, g, psi=psi)


class DctcpFluid:
    """DCTCP fluid model in physical units (P000 eqs 5-8; groups: eqs 37-38).

    n: flows (int), or flows per RTT group (sequence, with rtt_s a sequence of the same length).
    rate_bps: bottleneck C; rtt_s: propagation RTT d; k_pkts: marking threshold K; g: EWMA gain.
    """

    def __init__(self, n: int | Sequence[int], rate_bps: float, rtt_s: float | Sequence[float], k_pkts: float, *,
                 g: float = DEFAULT_G, packet_bytes: float = PACKET_BYTES_DEFAULT):
        n_arr = np.atleast_1d(np.asarray(n, dtype=float))
        d_arr = np.atleast_1d(np.asarray(rtt_s, dtype=float))
        if n_arr.shape != d_arr.shape and d_arr.size == 1:
            d_arr = np.full(n_arr.shape, float(d_arr[0]))
        if n_arr.shape != d_arr.shape:
            raise ValueError(f"rtt_s = {rtt_s!r}: needs one RTT per group of n = {n!r}")
        for i, (ni, di) in enumerate(zip(n_arr, d_arr)):
            check_positive("n" if n_arr.size == 1 else f"n[{i}]", ni)
            check_positive("rtt_s" if d_arr.size == 1 else f"rtt_s[{i}]", di)
        self.n, self.rtt_s = n_arr, d_arr
        self.rate_bps = check_positive("rate_bps", rate_bps)
        self.k_pkts = check_positive("k_pkts", k_pkts, allow_zero=True)
        self.g = check_range("g", g, 0.0, 1.0, lo_open=True)
        self.packet_bytes = check_positive("packet_bytes", packet_bytes)
        self.c_pps = pkts_per_s(self.rate_bps, self.packet_bytes)

    @property
    def r_star_s(self) -> np.ndarray:
        """Feedback delay per group, R* = d + K/C (eq 8)."""
        return self.rtt_s + self.k_pkts / self.c_pps

    @property
    def wbar(self) -> float:
        """(Cd + K)/N (eq 14); single group only."""
        self._single("wbar")
        return float((self.c_pps * self.rtt_s[0] + self.k_pkts) / self.n[0])

    def _single(self, what: str) -> None:
        if self.n.size != 1:
            raise ValueError(f"{what}: defined for a single RTT group, got {self.n.size} groups")

    def normalized(self) -> DctcpNormalized:
        """The equivalent normalized model (eq 10), psi = K/(Cd) so the queue floor matches q >= 0."""
        self._single("normalized")
        return DctcpNormalized(self.wbar, self.g, psi=self.k_pkts / (self.c_pps * self.rtt_s[0]))

    def fixed_point(self) -> dict[str, float] | None:
        """(W, alpha, q) = (2, 1, 2N - Cd) pkts when wbar <= 2 (E2), else None."""
        if self.wbar > WBAR_FIXED_POINT_MAX:
            return None
        return {"window_pkts": W_FIXED_POINT_PKTS, "alpha": 1.0,
                    "queue_pkts": W_FIXED_POINT_PKTS * float(self.n[0]) - self.c_pps * float(self.rtt_s[0])}

    def solve(self, until_s: float, *, dt_s: float | None = None, w0_pkts: float | Sequence[float] | None = None,
              alpha0: float = 0.5, q0_pkts: float | None = None, record_every: int = 10, settle_s: float | None = None,
              backend: str = "auto") -> FluidResult:
        """Integrate eqs 5-8 from W = wbar (per group: (Cd_i + K)/N_total), alpha = alpha0, q = K.

        History: q = q0 for t < 0. Limit cycle (q in pkts, period in s, throughput = fraction of C)
        measured after `settle_s` (default: half the horizon) with level K.
        """
        check_positive("until_s", until_s)
        check_range("alpha0", alpha0, 0.0, 1.0)
        m = self.n.size
        dt_s = float(np.min(self.r_star_s)) / STEPS_PER_RSTAR if dt_s is None else check_positive("dt_s", dt_s)
        q0 = self.k_pkts if q0_pkts is None else check_positive("q0_pkts", q0_pkts, allow_zero=True)
        if w0_pkts is None:
            w0 = (self.c_pps * self.rtt_s + self.k_pkts) / self.n.sum()
        else:
            w0 = np.broadcast_to(np.asarray(w0_pkts, dtype=float), (m,))
        x0 = np.concatenate([w0, np.full(m, alpha0), [q0]])
        params = {"n_flows": self.n[None, :], "rtt_s": self.rtt_s[None, :], "c_pps": self.c_pps, "k_pkts": self.k_pkts,
                      "g": self.g}
        settle_s = 0.5 * until_s if settle_s is None else settle_s
        res = integrate(PHYSICAL_DDE, params, x0, delays=self.r_star_s[None, :], history=q0, dt=dt_s, until=until_s,
                        record_every=record_every, settle=settle_s, level=self.k_pkts, backend=backend)
        cols: dict[str, np.ndarray] = {"time_s": res.t}
        for i in range(m):
            sfx = "" if m == 1 else f"_g{i}"
            cols[f"window_pkts{sfx}"] = res.x[:, 0, i]
            cols[f"alpha{sfx}"] = res.x[:, 0, m + i]
        cols["queue_pkts"] = res.x[:, 0, -1]
        cycle = lc.from_monitor(res.monitor)[0]
        ok = bool(np.all(np.isfinite(res.x_final)))
        return FluidResult(traces=pd.DataFrame(cols), success=ok, message="ok" if ok else "non-finite state",
                           limit_cycle=cycle,
                           params={"n": self.n.tolist(), "rate_bps": self.rate_bps, "rtt_s": self.rtt_s.tolist(),
                                       "k_pkts": self.k_pkts, "g": self.g, "packet_bytes": self.packet_bytes, "dt_s": dt_s})


def dctcp(n: int | Sequence[int], rate_bps: float, rtt_s: float | Sequence[float], k_pkts: float, *,
          g: float = DEFAULT_G, packet_bytes: float = PACKET_BYTES_DEFAULT) -> DctcpFluid:
    """The DCTCP fluid model in physical units (eqs 5-8); see `DctcpFluid`."""
    return DctcpFluid(n, rate_bps, rtt_s, k_pkts, g=g, packet_bytes=packet_bytes)
