"""TCP (Reno/NewReno) over RED: the fluid model of Misra, Gong, Towsley (2000) in the form linearized by
Hollot, Misra, Towsley, Gong, *A control theoretic analysis of RED* (Infocom 2001).

Place in the pipeline: the mean-field counterpart of the packet simulator's NewReno/RED runs (P001's
periodic-behaviour setups, ALGORITHMS.md §3.1-3.2). N long-lived flows, capacity C (pkts/s), round-trip
propagation delay Tp, R(t) = Tp + q(t)/C:
    dW/dt = 1/R(t) - W(t) W(t-R0) p(t-R0) / (2 R(t-R0))      (MGT; loss/mark signals, halving)
    dq/dt = N W(t)/R(t) - C                                  (0 <= q <= buffer)
    dx/dt = K (q - x),  K = -ln(1 - w_q) C                   (RED EWMA sampled per arrival, Hollot eq 3)
    p(t)  = RED ramp of x (ALGORITHMS.md §3.2; P001 App. B: not gentle, 1 above max_th)
[CHOICE] The round-trip delay of the feedback is the equilibrium RTT R0 (constant, as in Hollot's
linearization); the solver has fixed delays. The window is kept in [w_min, w_max] (w_max = rwnd, P001: 20).
Equilibrium: W0 = R0 C/N, p0 = 2/W0^2, q0 from the ramp p(q0) = p0 and R0 = Tp + q0/C (solved together).
Linearized loop (Hollot et al. 2001, eq 12):
    L(s) = L_red (R0 C)^3/(2N)^2 e^{-s R0} / ((s/K + 1)(s/(2N/(R0^2 C)) + 1)(s R0 + 1)),  L_red = max_p/(max_th - min_th)
Proposition 1 (sufficient): stable if L_red (R0 C)^3/(2N)^2 <= sqrt(wg^2/K^2 + 1),
wg = 0.1 min(2N/(R0^2 C), 1/R0). `equilibrium(...)` also gives the exact delay margin of L(s).
Note: the DC gain equals (Tp C + q0)/(2 (q0 - min_th)) on the ramp, so RED stabilizes only queues
longer than the bandwidth-delay product plus twice min_th (a consequence of the formulas above).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ccscope.analysis import limit_cycle as lc
from ccscope.analysis.stability import DelayedRationalLoop
from ccscope.fluid.base import FluidResult, check_positive, check_range, pkts_per_s
from ccscope.fluid.solver import DelayModel, integrate, lag_mean


def brentq(*args, **kwargs):
    """scipy.optimize.brentq, imported on first use (keeps scipy out of `import ccscope.fluid`)."""
    from scipy.optimize import brentq as _brentq

    return _brentq(*args, **kwargs)

#: RED defaults of P001 Appendix B (ALGORITHMS.md §3.2): EWMA weight, max drop probability.
W_Q = 0.002
MAX_P = 0.1
#: P001 packets are 1000 B (ALGORITHMS.md §3.1).
PACKET_BYTES_TCP = 1000
#: Smallest window of the fluid model (one packet).
W_MIN_PKTS = 1.0
#: Hollot et al. 2001 Proposition 1: the gain crossover is placed a decade below the slower TCP pole.
HOLLOT_DECADE = 0.1
#: Steps per R0 of the default integration step.
STEPS_PER_RTT = 40


def red_probability(x, min_th: float, max_th: float, max_p: float, *, gentle: bool = False, xp=np):
    """RED's p_b as a function of the average queue x (ALGORITHMS.md §3.2; count spacing averaged out)."""
    ramp = max_p * (x - min_th) / (max_th - min_th)
    above = (xp.minimum(max_p + (1 - max_p) * (x - max_th) / max_th, 1.0) if gentle
             else xp.ones_like(x * 1.0))
    return xp.where(x < min_th, 0.0, xp.where(x < max_th, ramp, above))


@dataclass
class RedEquilibrium:
    """Equilibrium and Hollot et al. 2001 stability figures. Rates in pkts/s, times in s.

    on_ramp: q0 lies in [min_th, max_th) (else no equilibrium on the RED ramp and no linear analysis);
    dc_gain: L_red (R0 C)^3/(2N)^2; hollot_rhs: sqrt(wg^2/K^2 + 1); hollot_stable: Proposition 1 holds;
    delay_margin_s: exact extra delay the linear loop tolerates at its gain crossover (> 0 stable,
    < 0 unstable; +inf when the DC gain is below 1); linear_stable: delay_margin_s > 0."""

    w0_pkts: float
    p0: float
    q0_pkts: float
    r0_s: float
    on_ramp: bool
    k_per_s: float
    tcp_pole_per_s: float
    dc_gain: float
    hollot_rhs: float
    hollot_stable: bool
    crossover_rad_s: float
    delay_margin_s: float
    linear_stable: bool


def _loop(dc_gain: float, k: float, p_tcp: float, r0: float) -> DelayedRationalLoop:
    return DelayedRationalLoop(gain=dc_gain * k * p_tcp / r0, poles=[-k, -p_tcp, -1.0 / r0], delay_s=r0)


def equilibrium(n_flows: float, rate_bps: float, tp_s: float, *, min_th_pkts: float, max_th_pkts: float,
                max_p: float = MAX_P, w_q: float = W_Q, packet_bytes: float = PACKET_BYTES_TCP) -> RedEquilibrium:
    """(W0, p0, q0, R0) on the RED ramp and the linear stability of Hollot et al. (2001)."""
    n = check_positive("n_flows", n_flows)
    c = pkts_per_s(check_positive("rate_bps", rate_bps), check_positive("packet_bytes", packet_bytes))
    tp = check_positive("tp_s", tp_s)
    lo = check_positive("min_th_pkts", min_th_pkts, allow_zero=True)
    hi = check_range("max_th_pkts", max_th_pkts, lo, math.inf, lo_open=True)
    max_p = check_range("max_p", max_p, 0.0, 1.0, lo_open=True)
    w_q = check_range("w_q", w_q, 0.0, 1.0, lo_open=True, hi_open=True)
    k = -math.log(1 - w_q) * c
    f = lambda q: max_p * (q - lo) / (hi - lo) - 2 * n**2 / (tp * c + q) ** 2
    on_ramp = f(hi) > 0
    q0 = brentq(f, lo, hi, xtol=1e-12) if on_ramp else hi
    r0 = tp + q0 / c
    w0 = r0 * c / n
    p0 = 2 / w0**2
    p_tcp = 2 * n / (r0**2 * c)
    l_red = max_p / (hi - lo)
    gain = l_red * (r0 * c) ** 3 / (2 * n) ** 2
    wg = HOLLOT_DECADE * min(p_tcp, 1 / r0)
    rhs = math.sqrt(wg**2 / k**2 + 1)
    if gain <= 1:
        wc, margin = math.nan, math.inf
    else:
        loop = _loop(gain, k, p_tcp, r0)
        wc = loop.gain_crossover()
        margin = loop.delay_margin()
    return RedEquilibrium(w0_pkts=w0, p0=p0, q0_pkts=q0, r0_s=r0, on_ramp=on_ramp, k_per_s=k, tcp_pole_per_s=p_tcp,
                          dc_gain=gain, hollot_rhs=rhs, hollot_stable=gain <= rhs, crossover_rad_s=wc,
                          delay_margin_s=margin, linear_stable=margin > 0)


class _TcpRedDde(DelayModel):
    """State (W pkts, q pkts, x pkts). Delayed observable: the per-flow signal rate W p(x)/R (pkts/s).
    Params: n, c, tp, min_th, max_th, max_p, gentle, k, buffer, w_min, w_max."""

    state_names = ("window_pkts", "queue_pkts", "avg_queue_pkts")
    native = "tcp_red"
    native_params = ("n", "c", "tp", "min_th", "max_th", "max_p", "gentle", "k", "buffer", "w_min", "w_max")

    @staticmethod
    def _p(xp, x, p):
        ramp = p["max_p"] * (x - p["min_th"]) / (p["max_th"] - p["min_th"])
        gentle = xp.minimum(p["max_p"] + (1 - p["max_p"]) * (x - p["max_th"]) / p["max_th"], 1.0)
        above = xp.where(p["gentle"] > 0, gentle, 1.0)
        return xp.where(x < p["min_th"], 0.0, xp.where(x < p["max_th"], ramp, above))

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        w, q, avg = x[..., 0], x[..., 1], x[..., 2]
        r = p["tp"] + q / p["c"]
        signals = lag_mean(lag_lo[..., 0], lag_hi[..., 0])
        dw = 1.0 / r - w * signals / 2.0
        dw = xp.where(w <= p["w_min"], xp.maximum(dw, 0.0), xp.where(w >= p["w_max"], xp.minimum(dw, 0.0), dw))
        dq = p["n"] * w / r - p["c"]
        dq = xp.where(q <= 0.0, xp.maximum(dq, 0.0), xp.where(q >= p["buffer"], xp.minimum(dq, 0.0), dq))
        return xp.stack([dw, dq, p["k"] * (q - avg)], axis=-1)

    def observable(self, xp, x, p):
        return x[..., 0] * self._p(xp, x[..., 2], p) / (p["tp"] + x[..., 1] / p["c"])

    def project(self, xp, x, p):
        return xp.stack([xp.clip(x[..., 0], p["w_min"], p["w_max"]), xp.clip(x[..., 1], 0.0, p["buffer"]),
                         xp.maximum(x[..., 2], 0.0)], axis=-1)

    def rate(self, xp, x, p):
        q = x[..., 1]
        arrival = p["n"] * x[..., 0] / (p["tp"] + q / p["c"])
        return xp.where(q > 0.0, 1.0, xp.minimum(arrival / p["c"], 1.0))


TCP_RED_DDE = _TcpRedDde()


class TcpRedFluid:
    """N TCP flows over one RED queue (module doc). rate_bps: C; tp_s: round-trip propagation delay;
    RED: min_th_pkts, max_th_pkts, max_p, w_q, gentle; buffer_pkts (default 2 max_th, ALGORITHMS.md E22);
    w_max_pkts: receiver window cap (None: none; P001 uses 20)."""

    def __init__(self, n_flows: float, rate_bps: float, tp_s: float, *, min_th_pkts: float, max_th_pkts: float,
                 max_p: float = MAX_P, w_q: float = W_Q, gentle: bool = False, packet_bytes: float = PACKET_BYTES_TCP,
                 buffer_pkts: float | None = None, w_max_pkts: float | None = None):
        self.eq = equilibrium(n_flows, rate_bps, tp_s, min_th_pkts=min_th_pkts, max_th_pkts=max_th_pkts, max_p=max_p,
                              w_q=w_q, packet_bytes=packet_bytes)
        self.n_flows, self.rate_bps, self.tp_s = float(n_flows), float(rate_bps), float(tp_s)
        self.c_pps = pkts_per_s(rate_bps, packet_bytes)
        self.min_th, self.max_th, self.max_p, self.w_q, self.gentle = (float(min_th_pkts), float(max_th_pkts),
                                                                       float(max_p), float(w_q), bool(gentle))
        self.buffer_pkts = 2 * self.max_th if buffer_pkts is None else check_range(
            "buffer_pkts", buffer_pkts, 0.0, math.inf, lo_open=True, hi_open=True)
        self.w_max_pkts = math.inf if w_max_pkts is None else check_range(
            "w_max_pkts", w_max_pkts, W_MIN_PKTS, math.inf, hi_open=True)

    def _params(self) -> dict:
        return {"n": self.n_flows, "c": self.c_pps, "tp": self.tp_s, "min_th": self.min_th, "max_th": self.max_th,
                "max_p": self.max_p, "gentle": float(self.gentle), "k": self.eq.k_per_s, "buffer": self.buffer_pkts,
                "w_min": W_MIN_PKTS, "w_max": self.w_max_pkts}

    def solve(self, until_s: float, *, dt_s: float | None = None, w0_pkts: float | None = None, q0_pkts: float = 0.0,
              record_every: int = 10, settle_s: float | None = None, backend: str = "auto") -> FluidResult:
        """Integrate from window `w0_pkts` (default: half the equilibrium window), queue and average `q0_pkts`;
        no signals for t < 0. Columns: time_s, window_pkts, queue_pkts, avg_queue_pkts, p (RED probability),
        rtt_s. limit_cycle: whole periods of q around q0 after `settle_s` (default: half the run)."""
        until_s = check_positive("until_s", until_s)
        e = self.eq
        dt_s = e.r0_s / STEPS_PER_RTT if dt_s is None else check_range("dt_s", dt_s, 0.0, e.r0_s, lo_open=True)
        w0 = 0.5 * e.w0_pkts if w0_pkts is None else check_positive("w0_pkts", w0_pkts)
        q0 = check_positive("q0_pkts", q0_pkts, allow_zero=True)
        settle_s = 0.5 * until_s if settle_s is None else settle_s
        params = self._params()
        res = integrate(TCP_RED_DDE, params, [w0, q0, q0], delays=e.r0_s, history=0.0, dt=dt_s, until=until_s,
                        record_every=record_every, settle=settle_s, level=e.q0_pkts, monitor_index=1, backend=backend)
        w, q, x = res.x[:, 0, 0], res.x[:, 0, 1], res.x[:, 0, 2]
        traces = pd.DataFrame({"time_s": res.t, "window_pkts": w, "queue_pkts": q, "avg_queue_pkts": x,
                               "p": red_probability(x, self.min_th, self.max_th, self.max_p, gentle=self.gentle),
                               "rtt_s": self.tp_s + q / self.c_pps})
        ok = bool(np.all(np.isfinite(res.x_final)))
        return FluidResult(traces=traces, success=ok, message="ok" if ok else "non-finite state",
                           limit_cycle=lc.from_monitor(res.monitor)[0],
                           params={"n_flows": self.n_flows, "rate_bps": self.rate_bps, "tp_s": self.tp_s,
                                   "min_th_pkts": self.min_th, "max_th_pkts": self.max_th, "max_p": self.max_p,
                                   "w_q": self.w_q, "gentle": self.gentle, "buffer_pkts": self.buffer_pkts,
                                   "r0_s": e.r0_s, "dt_s": dt_s})


def tcp_red(n_flows: float, rate_bps: float, tp_s: float, *, min_th_pkts: float, max_th_pkts: float,
            **options) -> TcpRedFluid:
    """The TCP/RED fluid model; `.eq` holds the equilibrium and Hollot et al.'s stability figures."""
    return TcpRedFluid(n_flows, rate_bps, tp_s, min_th_pkts=min_th_pkts, max_th_pkts=max_th_pkts, **options)
