"""QCN: time-domain fluid model with feedback delay, and the delay-stability bound of P002 Appendix A,
Proposition 1 (eq 17), corrected per erratum E33.

Time-domain model (`qcn_fluid`, `QcnFluid`): the fluid model that App. A linearizes (P002 ref [10];
ALGORITHMS.md §4.2-4.4). Per flow, rates in frames/s, queue in frames, sampling probability p:
    dq/dt   = N R_C(t) - C                                                   (eq 1; q >= 0)
    dR_C/dt = -Gd F(t-tau) R_C(t) p_r R_C(t-tau) + (R_T(t) - R_C(t))/2 eta(p_r) R_C(t-tau)   (eqs 6, 7)
    dR_T/dt = -(R_T(t) - R_C(t)) p_r R_C(t-tau) + R_AI zeta(p_r) R_C(t-tau)                  (eqs 6, 8)
    F(t)    = -Fb(t) = q - Qeq + (w/(pC)) dq/dt                               (eqs 4-5: congestion measure)
Each sampled frame of a flow (rate p_r R_C(t-tau) at the source, tau after the queue was seen) sets
R_T <- R_C and cuts R_C by Gd F; byte-counter cycles of 100 frames free of feedback (rate eta R_C)
move R_C half-way to R_T (Fast Recovery); those after 5 such cycles (rate zeta R_C) also raise R_T by
R_AI (Active Increase). Linearizing at (q, R_C) = (Qeq, C/N) with constant p_r = p gives exactly eq 18
with gamma = pC/w (E33) -- the check that this is the model of App. A. Choices (config fields):
`feedback="linear"` (default) keeps p_r = p for every sample, so negative F raises the rate: the
model App. A linearizes. `feedback="negative"` is 802.1Qau (CNMs only while F > 0, eq 4's Fb < 0):
p_r = p 1{F(t-tau) > 0}, with eta, zeta -> 1/100 when no CNM can come. The cut Gd F is capped at
MinDecFac = 1/2 (|F| <= 1/(2 Gd) = 64 frames, the 6-bit saturation of §4.1); R_C, R_T stay within
[MinRate, line rate]. Hyper-Active Increase and the 15 ms timer are not modelled (App. A omits them).

Linearized QCN loop (eq 18, with the missing e^{-s tau}):
    G(s) = e^{-s tau} a3 (s + b)(s + gamma) / (s (s^2 + beta s + alpha))
with Rc = C/N, b = p Rc, a1 = eta Rc/2 + eta zeta R_AI/(2p), a2 = eta Rc/2, a3 = Gd w Rc,
alpha = b (a1 - a2), beta = b + a1, gamma = p C / w (E33: the printed gamma is dimensionless),
eta(p) = p/((1-p)^-100 - 1), zeta(p) = eta(p) (1-p)^500 (100-frame byte-counter cycle, 5 FR cycles).
QCN is unstable if tau >= [atan(w*/b) + atan(w*/gamma) - atan(wbar/beta - alpha/(beta wbar))]/wbar
(eq 17 with w* from a3^4/4, E33). Rates in frames/s. ALGORITHMS.md §4.4; FIGURES.md asm/text-qcn-delay-bound.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ccscope.analysis import limit_cycle as lc
from ccscope.analysis.stability import DelayedRationalLoop
from ccscope.fluid.base import (
    PACKET_BYTES_DEFAULT,
    FluidResult,
    check_positive,
    check_range,
    pkts_per_s,
)
from ccscope.fluid.solver import DelayModel, fraction_above, integrate, lag_mean

#: Sampling probability p (P002 App. A p_s = 1%; 802.1Qau base 150 KB ~ 1% of 1500-B frames).
SAMPLING_P = 0.01
#: Feedback weight w (P002 App. A; 802.1Qau MIB cpFeedbackWeight).
W_FEEDBACK = 2.0
#: Decrease gain Gd = 1/128 (P002 eq 6; MIB rpgGd 7 -> 2^-7).
GD = 1 / 128
#: Additive increase step R_AI = 5 Mb/s (P002 §2.3.1).
R_AI_BPS = 5e6
#: Frames per byte-counter cycle and byte-counter cycles to leave Fast Recovery (the 100 and 500 in eta, zeta).
BC_CYCLE_FRAMES = 100
FR_CYCLES = 5


@dataclass
class QcnBound:
    """All intermediate quantities of Proposition 1 (frames/s, rad/s) and the two delay figures (s).

    bound_s: eq 17 (sufficient condition for instability); delay_margin_s: the exact delay margin
    of the same linear loop (phase margin / gain crossover), which lies below the bound.
    """

    rate_bps: float
    n_flows: float
    a1: float
    a2: float
    a3: float
    b: float
    gamma: float
    alpha: float
    beta: float
    eta: float
    zeta: float
    omega_star: float
    omega_bar: float
    bound_s: float
    crossover_rad_s: float
    delay_margin_s: float


def eta_zeta(p: float) -> tuple[float, float]:
    """eta(p) and zeta(p) of App. A."""
    eta = p / ((1 - p) ** (-BC_CYCLE_FRAMES) - 1)
    return eta, eta * (1 - p) ** (BC_CYCLE_FRAMES * FR_CYCLES)


def qcn_bound(rate_bps: float, n_flows: float, *, p: float = SAMPLING_P, w: float = W_FEEDBACK, gd: float = GD,
              r_ai_bps: float = R_AI_BPS, frame_bytes: float = PACKET_BYTES_DEFAULT) -> QcnBound:
    """Corrected Proposition 1 bound (E33) and the exact delay margin for N flows at `rate_bps`."""
    c = pkts_per_s(check_positive("rate_bps", rate_bps), check_positive("frame_bytes", frame_bytes))
    n = check_positive("n_flows", n_flows)
    p = check_range("p", p, 0.0, 1.0, lo_open=True, hi_open=True)
    w = check_positive("w", w)
    gd = check_positive("gd", gd)
    r_ai = pkts_per_s(check_positive("r_ai_bps", r_ai_bps, allow_zero=True), frame_bytes)
    rc = c / n
    eta, zeta = eta_zeta(p)
    b = p * rc
    a1 = eta * rc / 2 + eta * zeta * r_ai / (2 * p)
    a2 = eta * rc / 2
    a3 = gd * w * rc
    alpha = b * (a1 - a2)
    beta = b + a1
    gamma = p * c / w                                                    # E33
    omega_star = math.sqrt(a3**2 / 2 + math.sqrt(a3**4 / 4 + gamma**2 * a3**2))   # E33: a3^4/4
    x = a3**2 + 2 * alpha - beta**2
    omega_bar = math.sqrt((x + math.sqrt(x**2 + 4 * (a3**2 * gamma**2 - alpha**2))) / 2)
    bound = (math.atan(omega_star / b) + math.atan(omega_star / gamma)
             - math.atan(omega_bar / beta - alpha / (beta * omega_bar))) / omega_bar
    disc = complex(beta**2 - 4 * alpha) ** 0.5
    loop = DelayedRationalLoop(gain=a3, zeros=[-b, -gamma], poles=[0.0, (-beta + disc) / 2, (-beta - disc) / 2])
    wc = loop.gain_crossover()
    return QcnBound(rate_bps=rate_bps, n_flows=n, a1=a1, a2=a2, a3=a3, b=b, gamma=gamma, alpha=alpha, beta=beta,
                    eta=eta, zeta=zeta, omega_star=omega_star, omega_bar=omega_bar, bound_s=bound,
                    crossover_rad_s=wc, delay_margin_s=loop.delay_margin())


def qcn_loop(bound: QcnBound, *, delay_s: float = 0.0) -> DelayedRationalLoop:
    """The corrected loop G(s) of a computed bound, with a chosen delay (for Bode/Nyquist plots)."""
    disc = complex(bound.beta**2 - 4 * bound.alpha) ** 0.5
    return DelayedRationalLoop(gain=bound.a3, zeros=[-bound.b, -bound.gamma],
                               poles=[0.0, (-bound.beta + disc) / 2, (-bound.beta - disc) / 2], delay_s=delay_s)


# --- time-domain fluid model -------------------------------------------------------------------------

#: Queue set point Qeq = 26 KB (802.1Qau MIB cpQueueSizeSetPoint 26000; ALGORITHMS.md §4.2), in bytes.
QEQ_BYTES = 26_000
#: Largest multiplicative cut per CNM (MinDecFac 50%, P002 §2.3.1: Gd |Fb_max| = 1/2).
MIN_DEC_FAC = 0.5
#: MinRate of the reaction point (802.1Qau MIB; ALGORITHMS.md §4.2), b/s.
MIN_RATE_BPS = 5e6
#: Steps per feedback delay (and per fastest loop time constant) of the default integration step.
STEPS_PER_DELAY = 40
#: Allowed values of `feedback`.
FEEDBACK_MODES = ("linear", "negative")


class _QcnDde(DelayModel):
    """State (q frames, R_C, R_T frames/s per flow). Delayed observables (F, R_C): n_observables = 2.

    Params: n, c, qeq, buffer, w, p, gd, r_ai, f_max, min_rate, line_rate, eta_p, zeta_p, eta_0, zeta_0,
    instant (1: no delay, read the current state), negative (1: CNMs only while F > 0).
    """

    state_names = ("queue_pkts", "rate_pps", "target_rate_pps")
    n_observables = 2
    native = "qcn"
    native_params = ("n", "c", "qeq", "buffer", "w", "p", "gd", "r_ai", "f_max", "min_rate", "line_rate", "eta_p",
                     "zeta_p", "eta_0", "zeta_0", "instant", "negative")

    @staticmethod
    def _dq(xp, x, p):
        dq = p["n"] * x[..., 1] - p["c"]
        dq = xp.where(x[..., 0] >= p["buffer"], xp.minimum(dq, 0.0), dq)   # full buffer: the excess is dropped
        return xp.where(x[..., 0] <= 0.0, xp.maximum(dq, 0.0), dq)

    def _congestion(self, xp, x, p):
        """F = -Fb (eq 4), with the measured queue change (eq 5: 0 while the queue is empty and draining)."""
        return x[..., 0] - p["qeq"] + p["w"] / (p["p"] * p["c"]) * self._dq(xp, x, p)

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        rc, rt = x[..., 1], x[..., 2]
        f_now = self._congestion(xp, x, p)
        inst = p["instant"] > 0
        f_lo = xp.where(inst, f_now, lag_lo[..., 0, 0])
        f_hi = xp.where(inst, f_now, lag_hi[..., 0, 0])
        rc_d = xp.where(inst, rc, lag_mean(lag_lo[..., 0, 1], lag_hi[..., 0, 1]))
        f = xp.clip(lag_mean(f_lo, f_hi), -p["f_max"], p["f_max"])
        # u: fraction of the step during which CNMs are sent (always 1 in the "linear" reading)
        above = xp.where(inst, xp.where(f_now > 0, 1.0, 0.0), fraction_above(xp, f_lo, f_hi, 0.0))
        u = xp.where(p["negative"] > 0, above, 1.0)
        f = xp.where(p["negative"] > 0, xp.maximum(f, 0.0), f)
        eta = u * p["eta_p"] + (1 - u) * p["eta_0"]
        zeta = u * p["zeta_p"] + (1 - u) * p["zeta_0"]
        d_rc = -p["gd"] * f * rc * p["p"] * rc_d + 0.5 * (rt - rc) * eta * rc_d
        d_rt = -(rt - rc) * u * p["p"] * rc_d + p["r_ai"] * zeta * rc_d
        d_rc = xp.where(rc <= p["min_rate"], xp.maximum(d_rc, 0.0), d_rc)
        d_rc = xp.where(rc >= p["line_rate"], xp.minimum(d_rc, 0.0), d_rc)
        d_rt = xp.where(rt >= p["line_rate"], xp.minimum(d_rt, 0.0), d_rt)
        return xp.stack([self._dq(xp, x, p), d_rc, d_rt], axis=-1)

    def observable(self, xp, x, p):
        return xp.stack([self._congestion(xp, x, p), x[..., 1]], axis=-1)

    def project(self, xp, x, p):
        return xp.stack([xp.clip(x[..., 0], 0.0, p["buffer"]), xp.clip(x[..., 1], p["min_rate"], p["line_rate"]),
                         xp.clip(x[..., 2], p["min_rate"], p["line_rate"])], axis=-1)


QCN_DDE = _QcnDde()


class QcnFluid:
    """QCN fluid model (module doc) for `n_flows` flows sharing a link of `rate_bps` with feedback delay `delay_s`.

    Defaults are ALGORITHMS.md §4.2 / P002 App. A: p = 1%, w = 2, Gd = 1/128, R_AI = 5 Mb/s, 1500-B frames,
    Qeq = 26 KB; `qeq_pkts` overrides Qeq in frames (P002 runs use q0 = 5 or 64). `buffer_pkts` caps the
    queue (arrivals beyond it are dropped; default: no limit). `bound` is Proposition 1 for the same
    parameters (E33).
    """

    def __init__(self, rate_bps: float, n_flows: float, *, delay_s: float = 0.0, qeq_pkts: float | None = None,
                 p: float = SAMPLING_P, w: float = W_FEEDBACK, gd: float = GD, r_ai_bps: float = R_AI_BPS,
                 frame_bytes: float = PACKET_BYTES_DEFAULT, min_rate_bps: float = MIN_RATE_BPS,
                 line_rate_bps: float | None = None, feedback: str = "linear", buffer_pkts: float | None = None):
        self.bound = qcn_bound(rate_bps, n_flows, p=p, w=w, gd=gd, r_ai_bps=r_ai_bps, frame_bytes=frame_bytes)
        self.rate_bps, self.n_flows, self.frame_bytes = float(rate_bps), float(n_flows), float(frame_bytes)
        self.delay_s = check_positive("delay_s", delay_s, allow_zero=True)
        self.c_pps = pkts_per_s(rate_bps, frame_bytes)
        self.qeq_pkts = (QEQ_BYTES / frame_bytes if qeq_pkts is None
                         else check_positive("qeq_pkts", qeq_pkts, allow_zero=True))
        self.p, self.w, self.gd = float(p), float(w), float(gd)
        self.r_ai_pps = pkts_per_s(r_ai_bps, frame_bytes)
        line = rate_bps if line_rate_bps is None else check_positive("line_rate_bps", line_rate_bps)
        self.line_rate_pps = pkts_per_s(line, frame_bytes)
        self.min_rate_pps = pkts_per_s(check_range("min_rate_bps", min_rate_bps, 0.0, line), frame_bytes)
        if feedback not in FEEDBACK_MODES:
            raise ValueError(f"feedback = {feedback!r}: allowed values are 'linear' and 'negative'")
        self.feedback = feedback
        self.buffer_pkts = math.inf if buffer_pkts is None else check_positive("buffer_pkts", buffer_pkts)

    @property
    def fair_rate_pps(self) -> float:
        """C/N, the per-flow rate at the stable point (Qeq, C)."""
        return self.c_pps / self.n_flows

    def default_dt_s(self) -> float:
        """min(delay, fastest loop time constant 1/max(a3, b, gamma, beta) / STEPS_PER_DELAY): the method of
        steps needs dt <= delay; the loop needs STEPS_PER_DELAY steps per time constant."""
        b = self.bound
        dt = 1.0 / max(b.a3, b.b, b.gamma, b.beta) / STEPS_PER_DELAY
        return min(self.delay_s, dt) if self.delay_s > 0 else dt

    def _params(self) -> dict:
        eta_p, zeta_p = eta_zeta(self.p)
        return {"n": self.n_flows, "c": self.c_pps, "qeq": self.qeq_pkts, "buffer": self.buffer_pkts, "w": self.w, "p": self.p, "gd": self.gd,
                "r_ai": self.r_ai_pps, "f_max": MIN_DEC_FAC / self.gd, "min_rate": self.min_rate_pps,
                "line_rate": self.line_rate_pps, "eta_p": eta_p, "zeta_p": zeta_p, "eta_0": 1.0 / BC_CYCLE_FRAMES,
                "zeta_0": 1.0 / BC_CYCLE_FRAMES, "instant": float(self.delay_s == 0),
                "negative": float(self.feedback == "negative")}

    def solve(self, until_s: float, *, dt_s: float | None = None, q0_pkts: float = 0.0, r0_bps: float | None = None,
              record_every: int = 10, settle_s: float | None = None, backend: str = "auto") -> FluidResult:
        """Integrate from queue `q0_pkts` with every flow at R_C = R_T = `r0_bps` (default: line rate, as a
        802.1Qau reaction point starts). History for t < 0: the start state. Columns: time_s, queue_pkts,
        rate_pps, target_rate_pps (per flow), aggregate_rate_bps, fb_pkts (eq 4's sign: < 0 = congested),
        and the Q/R-plane coordinates queue_offset_pkts = q - Qeq, rate_excess_pps = N R_C - C.
        `limit_cycle`: whole periods of q around Qeq after `settle_s` (default half the run)."""
        until_s = check_positive("until_s", until_s)
        dt_s = self.default_dt_s() if dt_s is None else check_positive("dt_s", dt_s)
        if self.delay_s > 0 and dt_s > self.delay_s:
            raise ValueError(f"dt_s = {dt_s:g}: must not exceed delay_s = {self.delay_s:g}")
        q0 = check_positive("q0_pkts", q0_pkts, allow_zero=True)
        r0 = self.line_rate_pps if r0_bps is None else pkts_per_s(
            check_range("r0_bps", r0_bps, self.min_rate_pps * self.frame_bytes * 8, self.line_rate_pps * self.frame_bytes * 8),
            self.frame_bytes)
        params = self._params()
        x0 = np.array([q0, r0, r0])
        hist = np.asarray(QCN_DDE.observable(np, QCN_DDE.project(np, x0[None, :], params), params))[0]
        settle_s = 0.5 * until_s if settle_s is None else settle_s
        res = integrate(QCN_DDE, params, x0, delays=max(self.delay_s, dt_s), history=hist, dt=dt_s, until=until_s,
                        record_every=record_every, settle=settle_s, level=self.qeq_pkts, monitor_index=0,
                        backend=backend)
        q, rc, rt = res.x[:, 0, 0], res.x[:, 0, 1], res.x[:, 0, 2]
        fb = -np.asarray(QCN_DDE.observable(np, res.x[:, 0, :], params))[:, 0]
        bits = self.frame_bytes * 8
        traces = pd.DataFrame({"traj": 0, "time_s": res.t, "queue_pkts": q, "rate_pps": rc, "target_rate_pps": rt,
                               "aggregate_rate_bps": self.n_flows * rc * bits, "fb_pkts": fb,
                               "queue_offset_pkts": q - self.qeq_pkts, "rate_excess_pps": self.n_flows * rc - self.c_pps})
        ok = bool(np.all(np.isfinite(res.x_final)))
        return FluidResult(traces=traces, success=ok, message="ok" if ok else "non-finite state",
                           limit_cycle=lc.from_monitor(res.monitor)[0],
                           params={"rate_bps": self.rate_bps, "n_flows": self.n_flows, "delay_s": self.delay_s,
                                   "qeq_pkts": self.qeq_pkts, "p": self.p, "w": self.w, "gd": self.gd,
                                   "r_ai_pps": self.r_ai_pps, "feedback": self.feedback, "dt_s": dt_s,
                                   "bound_s": self.bound.bound_s, "delay_margin_s": self.bound.delay_margin_s})


def qcn_fluid(rate_bps: float, n_flows: float, *, delay_s: float = 0.0, **options) -> QcnFluid:
    """The QCN time-domain fluid model; see `QcnFluid` (options: qeq_pkts, p, w, gd, r_ai_bps, frame_bytes,
    min_rate_bps, line_rate_bps, feedback, buffer_pkts)."""
    return QcnFluid(rate_bps, n_flows, delay_s=delay_s, **options)


def solve_batch(models: list[QcnFluid], until_s: float, *, dt_s: float | None = None, q0_pkts: float = 0.0,
                r0_bps: float | None = None, settle_s: float | None = None, backend: str = "auto",
                dtype: str = "float64") -> pd.DataFrame:
    """Integrate several QCN fluid models as ONE batch (common step: the smallest default step) and
    summarize each after `settle_s` (default half the run): q_min_pkts, q_max_pkts (extremes after
    settling), period_s and periodic (whole periods of q around Qeq), q_final_pkts, rate_final_bps
    (aggregate N R_C at the end). Used by `sweep("qcn_fluid", ...)` and the tests."""
    if not models:
        raise ValueError("models: need at least one QcnFluid")
    until_s = check_positive("until_s", until_s)
    dt_s = min(m.default_dt_s() for m in models) if dt_s is None else check_positive("dt_s", dt_s)
    for i, m in enumerate(models):
        if 0 < m.delay_s < dt_s:
            raise ValueError(f"models[{i}].delay_s = {m.delay_s:g}: must not be below dt_s = {dt_s:g}")
    delays = np.array([max(m.delay_s, dt_s) for m in models])
    plist = [m._params() for m in models]
    params = {k: np.array([pp[k] for pp in plist]) for k in plist[0]}
    r0 = np.array([m.line_rate_pps if r0_bps is None else pkts_per_s(r0_bps, m.frame_bytes) for m in models])
    x0 = np.stack([np.full(len(models), float(q0_pkts)), r0, r0], axis=-1)
    hist = np.asarray(QCN_DDE.observable(np, QCN_DDE.project(np, x0, params), params))
    settle_s = 0.5 * until_s if settle_s is None else settle_s
    res = integrate(QCN_DDE, params, x0, delays=delays, history=hist, dt=dt_s, until=until_s, settle=settle_s,
                    level=params["qeq"], monitor_index=0, backend=backend, dtype=dtype)
    out = lc.monitor_arrays(res.monitor)
    return pd.DataFrame({"q_min_pkts": out["q_min"], "q_max_pkts": out["q_max"], "period_s": out["period"],
                         "periodic": out["periodic"], "q_final_pkts": res.x_final[:, 0],
                         "rate_final_bps": params["n"] * res.x_final[:, 1] * np.array([m.frame_bytes * 8 for m in models]),
                         "qeq_pkts": params["qeq"], "dt_s": dt_s})
