"""ASM (Adaptive Sliding Mode) fluid model and sliding condition, Jiang et al. (P002 §4.2, App. B-C).

Q/R plane: x1 = q - q0 (pkts), x2 = A - C (pkts/s) (eq 25 corrected, E37). Fluid model (eq 26) in
per-feedback gains (a: pkts/s per pkt of Qf, b: 1/s per pkt of dQ; the aggregate feedback rate is pC):
    dx1/dt = x2,     dx2/dt = -pC a x1 - b x2
(i.e. eq 26 with N alpha = pC a, N beta/(pC) = b; E38: eqs 13 and 29 drop the N). Fb = -x1 - (w/(pC)) x2
(eq 27). Gains switch by region (E34, ALGORITHMS.md §5.1): spiral set (a+, b+) where Qf and Fb have
opposite signs (regions I-IV) or a tie, parabola set (a-, b-) where they have the same sign (V, VI).
Sliding condition (eq 15 via eq 28): M(a, b) = 1 + (w/(pC)) (w a - b); need M(a-, b-) < 0 and
M(a+, b+) > 0, i.e. b- > w a- + pC/w (E39: "b- != 0 is sufficient" is false). On the line Lambda
the queue decays as exp(-pC t / w) (eq 16).

Feedback delay (§4.4, App. D, Prop 2; ALGORITHMS.md §5.3): with `delay_s` = tau > 0 the reaction point
acts on Qf and dQ measured tau earlier, in the same per-feedback gains:
    dx1/dt = x2,     dx2/dt = -pC a x1(t - tau) - b dQ(t - tau),   region from (x1, Fb)(t - tau)
where dQ is the measured queue change (= x2 while the queue is busy). Optional floors (`q0_pkts` given):
q >= 0 (x1 >= -q0) and A >= 0 (x2 >= -C). Prop 2: the delay tilts Lambda (eq 37), drifts the gains
(eqs 43-44) and adds a bounded disturbance E1 = A eps1 + K B eps2 (eq 42), eps_i = x_i(t - tau) - x_i(t);
sliding survives outside H0 = {|q - q0| <= D} (eq 46), `quasi_sliding_width` evaluates D. With
delay_s = 0 and no floors the model is exactly the undelayed one (same class, same steps).

Default gains (§5.1): fractions of C/128 per quantization unit; they give w a- - b- = 0 exactly, so
the defaults sit ON the boundary: M(a-, b-) = 1, not satisfied (marginal). Evaluated with Fractions.
ALGORITHMS.md §5.2; FIGURES.md asm/fig3, asm/text-sliding-condition.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ccscope.fluid.base import (
    PACKET_BYTES_DEFAULT,
    FluidResult,
    check_positive,
    pkts_per_s,
)
from ccscope.fluid.solver import DelayModel, integrate, lag_mean

#: ASM defaults (P002 §5.1): feedback weight w, sampling probability p.
W_ASM = 32
P_ASM = Fraction(1, 100)
#: Gain scale: each gain is a fraction of C per 8-bit quantization range (C/128 per unit), §5.1 [DER].
GAIN_SCALE_DIVISOR = 128
#: Default gain fractions (P002 §5.1): approach set A and sliding set S.
GAINS_A = {"a_plus": Fraction(1, 8), "a_minus": Fraction(1, 64), "b_plus": Fraction(1, 16), "b_minus": Fraction(1, 2)}
GAINS_S = {"a_plus": Fraction(1, 16), "a_minus": Fraction(1, 128), "b_plus": Fraction(1, 32), "b_minus": Fraction(1, 4)}
#: Fluid integration: steps per sliding time constant w/(pC).
STEPS_PER_TAU = 2000


@dataclass
class SlidingCondition:
    """Inequality 15 for one gain set. `gain_part_minus` = w a- - b- (exact when inputs are rational),
    m_minus = M(a-, b-), m_plus = M(a+, b+); satisfied iff m_minus < 0 < m_plus; marginal when the
    gain part vanishes (defaults). Gains in units of C/128 per quantization unit."""

    gain_part_minus: Any
    gain_part_plus: Any
    m_minus: Any
    m_plus: Any
    satisfied: bool
    marginal: bool
    b_minus_required: Any


def sliding_condition(a_plus, a_minus, b_plus, b_minus, *, w=W_ASM, p=P_ASM, rate_bps: float = 1e9,
                      packet_bytes: float = PACKET_BYTES_DEFAULT, gain_unit: str = "fraction") -> SlidingCondition:
    """Evaluate ineq. 15 in per-feedback units (independent of N).

    gain_unit "fraction": gains are fractions of C/128 (as in §5.1), so a = frac * C/128;
    "absolute": gains already in pkts/s per pkt (a) and 1/s per pkt (b)... per feedback.
    """
    c = Fraction(pkts_per_s(check_positive("rate_bps", rate_bps), check_positive("packet_bytes", packet_bytes))).limit_denominator(10**9)
    scale = c / GAIN_SCALE_DIVISOR if gain_unit == "fraction" else Fraction(1)
    if gain_unit not in ("fraction", "absolute"):
        raise ValueError(f"gain_unit = {gain_unit!r}: allowed values are 'fraction' and 'absolute'")
    to_q = lambda v: v if isinstance(v, Fraction) else Fraction(v).limit_denominator(10**12)
    w, p = to_q(w), to_q(p)
    gm = w * to_q(a_minus) - to_q(b_minus)       # in gain units
    gp = w * to_q(a_plus) - to_q(b_plus)
    k = w / (p * c) * scale
    m_minus, m_plus = 1 + k * gm, 1 + k * gp
    b_req = w * to_q(a_minus) + p * c / (w * scale)
    return SlidingCondition(gain_part_minus=gm, gain_part_plus=gp, m_minus=m_minus, m_plus=m_plus,
                            satisfied=bool(m_minus < 0 < m_plus), marginal=gm == 0, b_minus_required=b_req)


def characteristic_roots(a: float, b: float, *, p: float, c_pps: float) -> np.ndarray:
    """Roots of lambda^2 + b lambda + pC a = 0 (eq 29 with N alpha, E38), per-feedback gains."""
    return np.roots([1.0, b, p * c_pps * a])


class _AsmFluid(DelayModel):
    """Eq 26 with the region switch of eq 12 (E34). State (x1 pkts, x2 pkts/s). No delay (lag unused)."""

    state_names = ("queue_offset_pkts", "rate_excess_pps")
    native = "asm"
    native_params = ("w", "pc", "a_plus", "a_minus", "b_plus", "b_minus")

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        x1, x2 = x[..., 0], x[..., 1]
        fb = -x1 - p["w"] / p["pc"] * x2
        parabola = (x1 * fb) > 0
        a = xp.where(parabola, p["a_minus"], p["a_plus"])
        b = xp.where(parabola, p["b_minus"], p["b_plus"])
        return xp.stack([x2, -p["pc"] * a * x1 - b * x2], axis=-1)

    def observable(self, xp, x, p):
        return x[..., 0]


ASM_FLUID = _AsmFluid()


class _AsmFluidDelayed(DelayModel):
    """Eq 26 with feedback delay (App. D) and optional floors. State (x1, x2); delayed observables
    (x1, measured dQ rate) -> n_observables = 2. Params: w, pc, c, gains, x1_floor, instant."""

    state_names = ("queue_offset_pkts", "rate_excess_pps")
    n_observables = 2
    native = "asm_delayed"
    native_params = ("w", "pc", "c", "a_plus", "a_minus", "b_plus", "b_minus", "x1_floor", "instant")

    @staticmethod
    def _dq(xp, x, p):
        return xp.where(x[..., 0] <= p["x1_floor"], xp.maximum(x[..., 1], 0.0), x[..., 1])

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        inst = p["instant"] > 0
        dq_now = self._dq(xp, x, p)
        x1d = xp.where(inst, x[..., 0], lag_mean(lag_lo[..., 0, 0], lag_hi[..., 0, 0]))
        dqd = xp.where(inst, dq_now, lag_mean(lag_lo[..., 0, 1], lag_hi[..., 0, 1]))
        fb = -x1d - p["w"] / p["pc"] * dqd
        parabola = (x1d * fb) > 0
        a = xp.where(parabola, p["a_minus"], p["a_plus"])
        b = xp.where(parabola, p["b_minus"], p["b_plus"])
        dx2 = -p["pc"] * a * x1d - b * dqd
        dx2 = xp.where(x[..., 1] <= -p["c"], xp.maximum(dx2, 0.0), dx2)
        return xp.stack([dq_now, dx2], axis=-1)

    def observable(self, xp, x, p):
        return xp.stack([x[..., 0], self._dq(xp, x, p)], axis=-1)

    def project(self, xp, x, p):
        return xp.stack([xp.maximum(x[..., 0], p["x1_floor"]), xp.maximum(x[..., 1], -p["c"])], axis=-1)


ASM_FLUID_DELAYED = _AsmFluidDelayed()


def quasi_sliding_width(condition: SlidingCondition, e1, *, w: float, p: float, c_pps: float):
    """Width D of H0 (eq 46) for a disturbance E1 (pkts/s^2, scalar or array): w^2 |E1| / (p^2 C^2 min |M|)
    (eq 45's denominators |w^2 N a - w N b + p^2 C^2| = p^2 C^2 |M(a, b)| in per-feedback gains)."""
    m = min(abs(float(condition.m_minus)), abs(float(condition.m_plus)))
    return w**2 * np.abs(np.asarray(e1, dtype=float)) / ((p * c_pps) ** 2 * m)


def asm_fluid(rate_bps: float, *, gains: dict | None = None, w: float = W_ASM, p: float = float(P_ASM),
              packet_bytes: float = PACKET_BYTES_DEFAULT, delay_s: float = 0.0, q0_pkts: float | None = None) -> AsmFluid:
    """ASM fluid model at `rate_bps` with gain fractions (default: the sliding set S of §5.1); optional
    feedback delay `delay_s` (App. D) and, with `q0_pkts`, the floors q >= 0 and A >= 0."""
    return AsmFluid(rate_bps, gains=gains, w=w, p=p, packet_bytes=packet_bytes, delay_s=delay_s, q0_pkts=q0_pkts)


class AsmFluid:
    """Eq 26 in the Q/R plane. gains: a_plus, a_minus, b_plus, b_minus as fractions of C/128.
    delay_s: feedback delay tau (App. D; 0 = the ideal model); q0_pkts: target queue, which turns on
    the floors q >= 0, A >= 0 (None: the unconstrained plane of §4.2)."""

    def __init__(self, rate_bps: float, *, gains: dict | None = None, w: float = W_ASM, p: float = float(P_ASM),
                 packet_bytes: float = PACKET_BYTES_DEFAULT, delay_s: float = 0.0, q0_pkts: float | None = None):
        self.delay_s = check_positive("delay_s", delay_s, allow_zero=True)
        self.q0_pkts = None if q0_pkts is None else check_positive("q0_pkts", q0_pkts)
        self.c_pps = pkts_per_s(check_positive("rate_bps", rate_bps), check_positive("packet_bytes", packet_bytes))
        self.rate_bps = rate_bps
        self.w = check_positive("w", w)
        self.p = check_positive("p", p)
        g = dict(GAINS_S if gains is None else gains)
        for k in ("a_plus", "a_minus", "b_plus", "b_minus"):
            if k not in g:
                raise ValueError(f"gains: missing {k!r}; need a_plus, a_minus, b_plus, b_minus")
            check_positive(f"gains[{k!r}]", g[k], allow_zero=True)
        self.gains = {k: float(v) * self.c_pps / GAIN_SCALE_DIVISOR for k, v in g.items()}
        self.condition = sliding_condition(g["a_plus"], g["a_minus"], g["b_plus"], g["b_minus"], w=w, p=p,
                                           rate_bps=rate_bps, packet_bytes=packet_bytes)

    @property
    def sliding_rate_per_s(self) -> float:
        """pC/w: decay rate of q - q0 on Lambda (eq 16)."""
        return self.p * self.c_pps / self.w

    def _delayed_params(self) -> dict[str, float]:
        """Parameters of ASM_FLUID_DELAYED for this model (also one row of `solve_batch`)."""
        return dict(w=self.w, pc=self.p * self.c_pps, **self.gains, c=self.c_pps, instant=float(self.delay_s == 0),
                    x1_floor=-np.inf if self.q0_pkts is None else -self.q0_pkts)

    def solve(self, x1_pkts, x2_pps, *, until_s: float | None = None, dt_s: float | None = None,
              record_every: int = 10, backend: str = "auto") -> FluidResult:
        """Integrate a batch of starts (x1 = q - q0, x2 = A - C). Columns: time_s, queue_offset_pkts,
        rate_excess_pps, fb_pkts (one trajectory) or `traj` index for several."""
        x0 = np.stack(np.broadcast_arrays(np.atleast_1d(np.asarray(x1_pkts, float)),
                                          np.atleast_1d(np.asarray(x2_pps, float))), axis=-1)
        tau = 1.0 / self.sliding_rate_per_s
        until_s = 10 * tau if until_s is None else check_positive("until_s", until_s)
        dt_s = tau / STEPS_PER_TAU if dt_s is None else check_positive("dt_s", dt_s)
        if self.delay_s == 0 and self.q0_pkts is None:
            params = dict(w=self.w, pc=self.p * self.c_pps, **self.gains)
            res = integrate(ASM_FLUID, params, x0, delays=dt_s, history=0.0, dt=dt_s, until=until_s,
                            record_every=record_every, backend=backend)
        else:
            if self.delay_s > 0 and dt_s > self.delay_s:
                raise ValueError(f"dt_s = {dt_s:g}: must not exceed delay_s = {self.delay_s:g}")
            params = self._delayed_params()
            x0 = np.asarray(ASM_FLUID_DELAYED.project(np, x0, params))
            hist = np.asarray(ASM_FLUID_DELAYED.observable(np, x0, params))   # the start state for t < 0
            res = integrate(ASM_FLUID_DELAYED, params, x0, delays=max(self.delay_s, dt_s), history=hist, dt=dt_s,
                            until=until_s, record_every=record_every, backend=backend)
        frames = []
        for i in range(x0.shape[0]):
            x1, x2 = res.x[:, i, 0], res.x[:, i, 1]
            frames.append(pd.DataFrame({"traj": i, "time_s": res.t, "queue_offset_pkts": x1, "rate_excess_pps": x2,
                                        "fb_pkts": -x1 - self.w / (self.p * self.c_pps) * x2}))
        ok = bool(np.all(np.isfinite(res.x_final)))
        return FluidResult(traces=pd.concat(frames, ignore_index=True), success=ok, message="ok" if ok else "non-finite",
                           params=dict(rate_bps=self.rate_bps, w=self.w, p=self.p, delay_s=self.delay_s,
                                       q0_pkts=self.q0_pkts, **self.gains))


def solve_batch(models: list[AsmFluid], *, x1_pkts: float = 0.0, x2_pps: float | None = None,
                until_tau: float = 10.0, dt_s: float | None = None, settle_fraction: float = 0.5,
                backend: str = "auto", dtype: str = "float64") -> pd.DataFrame:
    """Integrate several ASM fluid models (eq 26, App. D delay, floors when `q0_pkts` is set) as ONE batch.

    Every point starts at (x1, x2) = (x1_pkts, x2_pps) (default x2: -C/2, the rate half the line rate
    below C) and runs `until_tau` sliding time constants of the slowest point; the step is the smallest
    point's tau / STEPS_PER_TAU (so batch points of one rate: mixing rates costs the fastest one's
    step for all). Per point, after `settle_fraction` of the run: band_pkts = max |q - q0|,
    q_offset_final_pkts, rate_excess_final_pps, and the closed-form sliding_rate_per_s (pC/w, eq 16),
    m_minus, m_plus and sliding (ineq. 15). Used by `sweep("asm_fluid", ...)`.
    """
    if not models:
        raise ValueError("models: need at least one AsmFluid")
    check_positive("until_tau", until_tau)
    if not 0.0 <= settle_fraction < 1.0:
        raise ValueError(f"settle_fraction = {settle_fraction!r}: must be in [0, 1)")
    taus = np.array([1.0 / m.sliding_rate_per_s for m in models])
    dt_s = float(taus.min()) / STEPS_PER_TAU if dt_s is None else check_positive("dt_s", dt_s)
    for i, m in enumerate(models):
        if 0 < m.delay_s < dt_s:
            raise ValueError(f"models[{i}].delay_s = {m.delay_s:g}: must not be below dt_s = {dt_s:g}")
    until_s = until_tau * float(taus.max())
    rows = [m._delayed_params() for m in models]
    params = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
    c = params["c"]
    x2 = -0.5 * c if x2_pps is None else np.full(len(models), float(x2_pps))
    x0 = np.stack([np.full(len(models), float(x1_pkts)), x2], axis=-1)
    x0 = np.asarray(ASM_FLUID_DELAYED.project(np, x0, params))
    hist = np.asarray(ASM_FLUID_DELAYED.observable(np, x0, params))
    delays = np.array([max(m.delay_s, dt_s) for m in models])
    res = integrate(ASM_FLUID_DELAYED, params, x0, delays=delays, history=hist, dt=dt_s, until=until_s,
                    settle=settle_fraction * until_s, monitor_index=0, backend=backend, dtype=dtype)
    band = np.maximum(np.abs(res.monitor["min"]), np.abs(res.monitor["max"]))
    return pd.DataFrame({"band_pkts": band, "q_offset_final_pkts": res.x_final[:, 0],
                         "rate_excess_final_pps": res.x_final[:, 1],
                         "sliding_rate_per_s": [m.sliding_rate_per_s for m in models],
                         "m_minus": [float(m.condition.m_minus) for m in models],
                         "m_plus": [float(m.condition.m_plus) for m in models],
                         "sliding": [m.condition.satisfied for m in models], "dt_s": dt_s, "until_s": until_s})
