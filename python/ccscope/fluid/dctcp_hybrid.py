"""Hybrid model of DCTCP convergence, P000 §4 eqs 19-27, Theorems 2 and 3.

Time in RTTs; N synchronized flows; Wmax = Cd + K; W* = Wmax/N. Windows grow with slope 1; when
sum W_i = Wmax a congestion event k happens, every flow cuts with its own alpha and marks persist
for one RTT (eqs 19-21). Between events the window of flow i is (1 - alpha_i/2) W_i(T_k) for one
RTT, then grows with slope 1, which reproduces (20) at T_{k+1}. ALGORITHMS.md §2.6 (E6 for the
"1.4x slower than TCP" claim), FIGURES.md fig11, fig12, text-convergence-rate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ccscope.fluid.base import check_positive, check_range


def brentq(*args, **kwargs):
    """scipy.optimize.brentq, imported on first use (keeps scipy out of `import ccscope.fluid`)."""
    from scipy.optimize import brentq as _brentq

    return _brentq(*args, **kwargs)

#: Band around W* for "converged" (P000 Fig 12: within +-10% of the fair share; ALGORITHMS.md §8).
CONVERGENCE_BAND = 0.10
#: Safety cap on congestion events iterated.
MAX_EVENTS = 1_000_000
#: Bracket for alpha* in eq 23 (alpha* in (0, 1]).
ALPHA_STAR_LO = 1e-15


def alpha_star(w_star_pkts: float, g: float) -> float:
    """Unique alpha* in (0, 1] solving eq 23: alpha = exp(-g(1 + W* alpha/2)) (exp(g) - 1 + alpha)."""
    def f(a: float) -> float:
        return math.exp(-g * (1 + w_star_pkts * a / 2)) * (math.expm1(g) + a) - a
    return brentq(f, ALPHA_STAR_LO, 1.0, xtol=1e-15, rtol=1e-15) if f(1.0) < 0 else 1.0


@dataclass
class ConvergenceRate:
    """Theorem 2 quantities: alpha*, gamma (25), beta = min(g, gamma), T_P2, beta_TCP and Theorem 3's
    bounds on alpha* (eq 46). `beta_tcp_ratio` = beta_TCP/beta (1.54 at W* = 100, not <= 1.4: E6)."""

    alpha_star: float
    gamma: float
    beta: float
    t_p2_rtt: float
    beta_tcp: float
    beta_tcp_ratio: float
    alpha_star_lower: float
    alpha_star_upper: float
    g_min_guideline: float


def convergence_rate(w_max_pkts: float, n: int, g: float) -> ConvergenceRate:
    """Rates of Theorem 2 (eqs 23, 25, 26-27) for N flows and Wmax = Cd + K."""
    check_positive("w_max_pkts", w_max_pkts)
    check_positive("n", n)
    check_range("g", g, 0.0, 1.0, lo_open=True)
    w_star = w_max_pkts / n
    a = alpha_star(w_star, g)
    gamma = -math.log(1 - a / 2) / (1 + w_star * a / 2)
    beta = min(g, gamma)
    t_p2 = math.log(2 * w_star / g**6) / g + 2 * (1 + w_star / 2)
    beta_tcp = math.log(2) / (1 + w_star / 2)
    root = math.sqrt(2 / w_star)
    return ConvergenceRate(alpha_star=a, gamma=gamma, beta=beta, t_p2_rtt=t_p2, beta_tcp=beta_tcp,
                           beta_tcp_ratio=beta_tcp / beta, alpha_star_lower=0.5 * root - g,
                           alpha_star_upper=root + g, g_min_guideline=2 * math.log(2) / w_star)


def theorem2_bound(w_max_pkts: float, n: int, g: float, t_rtt: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Right side of eq 24: 2 Wmax (1 + g^6 n^2) exp(-beta (T_n - T_P2)) at events k with times t_rtt."""
    r = convergence_rate(w_max_pkts, n, g)
    return 2 * w_max_pkts * (1 + g**6 * np.asarray(k, float) ** 2) * np.exp(-r.beta * (np.asarray(t_rtt) - r.t_p2_rtt))


@dataclass
class HybridResult:
    """Iterates of eqs 19-21. traces: one row per congestion event (time_rtt, window_pkts_i, alpha_i);
    convergence_time_rtt: first time all windows lie within +-band of W* (NaN if never)."""

    traces: pd.DataFrame
    convergence_time_rtt: float
    w_star_pkts: float
    success: bool
    message: str


class DctcpHybrid:
    """N synchronized DCTCP flows (eqs 19-21). w0_pkts, alpha0: per-flow start values."""

    def __init__(self, w0_pkts, alpha0, *, w_max_pkts: float, g: float):
        self.w0 = np.asarray(w0_pkts, dtype=float)
        self.alpha0 = np.broadcast_to(np.asarray(alpha0, dtype=float), self.w0.shape).copy()
        if self.w0.ndim != 1 or self.w0.size < 1:
            raise ValueError(f"w0_pkts = {w0_pkts!r}: one window per flow")
        for i, (w, a) in enumerate(zip(self.w0, self.alpha0)):
            check_positive(f"w0_pkts[{i}]", w, allow_zero=True)
            check_range(f"alpha0[{i}]", a, 0.0, 1.0)
        self.w_max = check_positive("w_max_pkts", w_max_pkts)
        self.g = check_range("g", g, 0.0, 1.0, lo_open=True)
        self.n = self.w0.size

    def rate(self) -> ConvergenceRate:
        return convergence_rate(self.w_max, self.n, self.g)

    def run(self, *, events: int | None = None, until_rtt: float | None = None,
            band: float = CONVERGENCE_BAND, within_epochs: bool = False) -> HybridResult:
        """Iterate eqs 19-21 until `events` events, time `until_rtt`, or (default) convergence.

        The first event happens when the windows first sum to Wmax (after linear growth).
        Convergence is tested at the events T_k (as Theorem 2 states it; the ALGORITHMS.md §2.6
        checkpoints 274.6/330.7/866.7 RTT); `within_epochs=True` also tests the piecewise-linear
        windows between events (earlier by < 0.5 RTT).
        """
        w, a = self.w0.copy(), self.alpha0.copy()
        w_star = self.w_max / self.n
        lo, hi = (1 - band) * w_star, (1 + band) * w_star
        t = max(0.0, (self.w_max - w.sum()) / self.n)  # grow to the first event
        w = w + t
        rows = [(t, *w, *a)]
        t_conv = t if np.all((w >= lo) & (w <= hi)) else math.nan
        for k in range(MAX_EVENTS):
            if events is not None and k >= events:
                break
            if until_rtt is not None and t >= until_rtt:
                break
            if events is None and until_rtt is None and not math.isnan(t_conv):
                break
            d_t = 1 + float(np.sum(w * a)) / (2 * self.n)                       # (19)
            cut = (1 - a / 2) * w
            if math.isnan(t_conv) and within_epochs:
                t_conv = _first_in_band(cut, t, d_t, lo, hi)
            w = cut + d_t - 1                                                   # (20)
            a = np.exp(-self.g * d_t) * (math.expm1(self.g) + a)                # (21)
            t += d_t
            if math.isnan(t_conv) and np.all((w >= lo) & (w <= hi)):
                t_conv = t
            rows.append((t, *w, *a))
        cols = ["time_rtt"] + [f"window_pkts_{i}" for i in range(self.n)] + [f"alpha_{i}" for i in range(self.n)]
        converged = not math.isnan(t_conv)
        return HybridResult(traces=pd.DataFrame(rows, columns=cols), convergence_time_rtt=t_conv, w_star_pkts=w_star,
                            success=True, message="converged" if converged else "not converged within the horizon")


def _first_in_band(cut: np.ndarray, t_k: float, d_t: float, lo: float, hi: float) -> float:
    """Earliest t in (T_k, T_k + dT] with every window in [lo, hi]: windows are `cut` for one RTT,
    then grow with slope 1 (NaN if none). The pre-cut value at T_k was checked at the previous epoch."""
    if np.all((cut >= lo) & (cut <= hi)):
        return t_k
    start = t_k + 1 + np.maximum(lo - cut, 0.0)
    end = t_k + 1 + (hi - cut)
    t0, t1 = float(np.max(start)), min(float(np.min(end)), t_k + d_t)
    return t0 if t0 <= t1 else math.nan


def dctcp_hybrid(w0_pkts, alpha0, *, w_max_pkts: float, g: float) -> DctcpHybrid:
    """The hybrid model (eqs 19-21); see `DctcpHybrid`."""
    return DctcpHybrid(w0_pkts, alpha0, w_max_pkts=w_max_pkts, g=g)
