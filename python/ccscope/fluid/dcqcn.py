"""DCQCN fluid model of Zhu, Ghobadi, Misra, Padhye, *ECN or Delay: Lessons Learnt from Analysis of DCQCN
and TIMELY* (CoNEXT 2016, "Z16" below), with its fixed point and linear stability (§3.2, App. A).

Equation numbers are those of the paper's source (github.com/jitupadhye-zz/rdma, conext2016/): §3.1 eqs
(1)-(2) are the RP updates, Fig. 1 eqs (3)-(7) the model, §3.2 eqs (8)-(13) the fixed point.

Per flow i (rates in packets/s, queue in packets; exponents count packets, see "units" below):
    p(t)      = 0 (q <= Kmin); Pmax (q - Kmin)/(Kmax - Kmin) (Kmin < q <= Kmax); 1 (q > Kmax)      (3)
    dq/dt     = sum_i R_C^i(t) - C                                                            (4)
    da^i/dt   = g/tau' [ (1 - (1 - p*)^{tau' R_C*}) - a^i ]                                     (5)
    dR_T^i/dt = -(R_T - R_C)/tau (1 - (1 - p*)^{tau R_C*})
                + R_AI R_C* (1 - p*)^{F B} p* / ((1 - p*)^{-B} - 1)
                + R_AI R_C* (1 - p*)^{F T R_C*} p* / ((1 - p*)^{-T R_C*} - 1)                   (6)
    dR_C^i/dt = -R_C a/(2 tau) (1 - (1 - p*)^{tau R_C*})
                + (R_T - R_C)/2 R_C* p* / ((1 - p*)^{-B} - 1)
                + (R_T - R_C)/2 R_C* p* / ((1 - p*)^{-T R_C*} - 1)                              (7)
with p* = p(q(t - tau*)) and R_C* = R_C^i(t - tau*) (the control-loop delay tau*). With the shorthands of
eq (12), a = 1 - (1-p)^{tau R}, b = p/((1-p)^{-B} - 1), c = b (1-p)^{F B}, d = p/((1-p)^{-T R} - 1),
e = d (1-p)^{F T R}: the p -> 0 limits are a = 0, b = c = 1/B, d = e = 1/(T R) (evaluated exactly here).

Fixed point (§3.2, Theorem 1): sum R_C = C (8), R_C^i = C/N for every flow, q* = Kmin + p*/Pmax (Kmax - Kmin)
(9), a* = 1 - (1 - p*)^{tau' C/N} (10), and p* the root of a^2 a*/((b + d)(c + e)) = tau^2 R_AI C/N (11);
the small-p approximation is p* ~ cbrt(R_AI N^2/(tau' C^2) (1/B + N/(T C))^2) (13). `fixed_point` solves (11)
exactly (bisection in log p; its left side is increasing in p, as the proof of Theorem 1 uses) and also
reports (13). R_T* = C/N (1 + (c + e) tau R_AI / a) follows from (6).

Stability (§3.2, App. A): the paper linearizes around the fixed point with Taylor expansions of a..e, forms the
characteristic equation of R_C(s) and plots its phase margin against N for tau* = 0/50/100 us (Fig. 3a).
`phase_margin` evaluates that open loop exactly as the authors' script does (fluidmodel/dcqcn/stability.m:
the coefficients AA..GG, p* from (13)); tests/fluid/test_dcqcn_timely.py checks it against the published
curves (conext2016/figures/pm_rai40_delay{1,50,100}.txt). `jacobian_stable` is an independent check: the
exact linearization of this module's right-hand side (finite differences) and the rightmost root of its
delay characteristic equation det(sI - J0 - J1 e^{-s tau*}) = 0.

Parameters and defaults (Z16 Table 1 and §3.1-3.2, the DCQCN paper's defaults; Zhu et al. SIGCOMM 2015 §5):
    | name          | meaning                                   | default          |
    |---------------|-------------------------------------------|------------------|
    | rate_bps  C   | bottleneck capacity                       | 40 Gb/s          |
    | n_flows   N   | flows at the bottleneck                   | (required)       |
    | delay_s tau*  | control-loop (feedback) delay             | 4 us (§3.2)      |
    | kmin_bytes    | RED Kmin                                  | 5 KB             |
    | kmax_bytes    | RED Kmax                                  | 200 KB           |
    | pmax          | RED Pmax, in (0, 1]                       | 1 %              |
    | g             | alpha gain                                | 1/256            |
    | tau_s         | CNP generation timer tau                  | 50 us            |
    | tau_prime_s   | alpha update interval tau'                | 55 us            |
    | timer_s   T   | rate-increase timer                       | 55 us            |
    | byte_counter_bytes B | rate-increase byte counter         | 10 MB            |
    | f_steps   F   | fast-recovery steps                       | 5                |
    | r_ai_bps      | additive increase step R_AI               | 40 Mb/s          |
    | packet_bytes  | packet size (unit of p's exponents)       | 1000 B           |
Hyper-increase (R_HAI) is not in the model (Z16 §3.3 footnote: "we omit hyper-increase"); PFC is ignored (§3.1).

[CHOICE] Units: the marking probability is per packet, so the exponents tau R_C, B, T R_C count packets; the
authors' stability script uses 1000-byte packets (8e3 bits), their first MATLAB model bits. Rates are capped at
the line rate (the authors' code: no increase once R_C >= C) and floored at `min_rate_bps` (their code stops a
flow at 0; a floor keeps (1 - p)^{T R} defined). Flows start at line rate with a = 1 (Z16 §3.1: "senders start
at line rate"; the authors' code sets a = 1, R_T = C).

Flows are held in "slots" with weights: slot j stands for w_j identical flows (dq/dt = sum_j w_j R_C^j - C), so
the symmetric case is one slot of weight N and a sweep over N batches without changing the state size.
Backends: numpy (the reference) and JAX for any number of slots; the compiled solver (`backend="native"`, Rust,
`ccscope_core::fluid::models::Dcqcn`, the default through "auto") for one slot, tested against numpy to 1e-9.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ccscope.analysis import limit_cycle as lc
from ccscope.fluid.base import FluidResult, check_positive, check_range, pkts_per_s
from ccscope.fluid.solver import DelayModel, integrate, lag_mean

#: Z16 Table 1 / DCQCN (SIGCOMM 2015) defaults.
RATE_BPS = 40e9
DELAY_S = 4e-6
KMIN_BYTES = 5e3
KMAX_BYTES = 200e3
PMAX = 0.01
G = 1 / 256
TAU_S = 50e-6
TAU_PRIME_S = 55e-6
TIMER_S = 55e-6
BYTE_COUNTER_BYTES = 10e6
F_STEPS = 5
R_AI_BPS = 40e6
PACKET_BYTES = 1000
#: Rate floor (see the module doc, [CHOICE]).
MIN_RATE_BPS = 1e6
#: Default step: at most tau*/1 (method of steps) and tau/STEPS_PER_TAU (the fastest loop time constant is tau).
STEPS_PER_TAU = 25
#: Largest p used inside logarithms (p = 1 above Kmax): (1 - p)^x is then 0 for every x >= 1 packet.
P_CLIP = 1.0 - 1e-12


def _check_red(kmin: float, kmax: float, pmax: float, prefix: str = "") -> None:
    kmin = check_positive(f"{prefix}kmin_bytes", kmin, allow_zero=True)
    kmax = check_positive(f"{prefix}kmax_bytes", kmax)
    if not kmax > kmin:
        raise ValueError(f"{prefix}kmax_bytes = {kmax:g}: must be > kmin_bytes ({kmin:g}); Kmin > Kmax (or equal) "
                         "leaves no marking ramp")
    check_range(f"{prefix}pmax", pmax, 0.0, 1.0, lo_open=True)


def marking(xp: Any, q: Any, kmin: Any, kmax: Any, pmax: Any) -> Any:
    """RED marking probability of eq (3) for a queue q (packets)."""
    ramp = pmax * (q - kmin) / (kmax - kmin)
    return xp.where(q <= kmin, 0.0, xp.where(q <= kmax, ramp, 1.0))


def rate_terms(xp: Any, p: Any, r: Any, tau: Any, tau_p: Any, bc: Any, timer: Any, f: Any) -> tuple:
    """(a, b, c, d, e, alpha_target) of eq (12) and (5) at marking probability p and delayed rate r (pkts/s).

    Exact p -> 0 limits: a = alpha_target = 0, b = c = 1/B, d = e = 1/(T r)."""
    pos = p > 0
    ps = xp.where(pos, xp.clip(p, 1e-300, P_CLIP), 0.5)
    lg = xp.log1p(-ps)                      # log(1 - p) < 0
    a = xp.where(pos, -xp.expm1(tau * r * lg), 0.0)
    at = xp.where(pos, -xp.expm1(tau_p * r * lg), 0.0)
    # p/((1-p)^-x - 1) written as p (1-p)^x/(1 - (1-p)^x): no overflow for large x or p
    b = xp.where(pos, ps * xp.exp(bc * lg) / -xp.expm1(bc * lg), 1.0 / bc)
    d = xp.where(pos, ps * xp.exp(timer * r * lg) / -xp.expm1(timer * r * lg), 1.0 / (timer * r))
    c = xp.where(pos, b * xp.exp(f * bc * lg), 1.0 / bc)
    e = xp.where(pos, d * xp.exp(f * timer * r * lg), 1.0 / (timer * r))
    return a, b, c, d, e, at


class DcqcnDde(DelayModel):
    """Eqs (3)-(7) for M flow slots. State (q, R_C[M], R_T[M], alpha[M]); delayed observables (q, R_C[M]).

    Params (per trajectory; `w` is (B, M)): w, c, kmin, kmax, pmax, g, tau, tau_p, bc, timer, f, r_ai, min_rate,
    line_rate, buffer (packets and packets/s)."""

    #: Parameter order of the compiled model (`ccscope_core::fluid::models::Dcqcn`, one slot only).
    NATIVE_PARAMS = ("w", "c", "kmin", "kmax", "pmax", "g", "tau", "tau_p", "bc", "timer", "f", "r_ai", "min_rate",
                     "line_rate", "buffer")

    def __init__(self, slots: int):
        self.slots = int(slots)
        self.n_observables = 1 + self.slots
        # the native solver holds 2 delayed observables: one slot (N identical flows) is compiled, more run on numpy
        self.native = "dcqcn" if self.slots == 1 else None
        self.native_params = self.NATIVE_PARAMS if self.slots == 1 else ()
        m = self.slots
        self.state_names = ("queue_pkts", *(f"rc{j}_pps" for j in range(m)), *(f"rt{j}_pps" for j in range(m)),
                            *(f"alpha{j}" for j in range(m)))

    def __hash__(self) -> int:      # the JAX backend caches compiled programs per model
        return hash(("dcqcn", self.slots))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DcqcnDde) and other.slots == self.slots

    def _split(self, x):
        m = self.slots
        return x[..., 0], x[..., 1:1 + m], x[..., 1 + m:1 + 2 * m], x[..., 1 + 2 * m:1 + 3 * m]

    @staticmethod
    def _pe(p, name):
        v = p[name]
        return v[..., None] if getattr(v, "ndim", 0) >= 1 else v

    def rhs(self, xp, x, lag_lo, lag_hi, p):
        q, rc, rt, al = self._split(x)
        pe = lambda k: self._pe(p, k)   # noqa: E731 - per-trajectory scalars broadcast over the slots
        q_d = lag_mean(lag_lo[..., 0, 0], lag_hi[..., 0, 0])
        rc_d = xp.maximum(lag_mean(lag_lo[..., 0, 1:], lag_hi[..., 0, 1:]), pe("min_rate"))
        mark = marking(xp, q_d, p["kmin"], p["kmax"], p["pmax"])[..., None]
        a, b, c, d, e, at = rate_terms(xp, mark, rc_d, pe("tau"), pe("tau_p"), pe("bc"), pe("timer"), pe("f"))
        d_al = pe("g") / pe("tau_p") * (at - al)                                                   # eq (5)
        d_rt = -(rt - rc) / pe("tau") * a + pe("r_ai") * rc_d * (c + e)                             # eq (6)
        d_rc = -rc * al * a / (2 * pe("tau")) + 0.5 * (rt - rc) * rc_d * (b + d)                    # eq (7)
        line, floor = pe("line_rate"), pe("min_rate")
        d_rc = xp.where(rc >= line, xp.minimum(d_rc, 0.0), xp.where(rc <= floor, xp.maximum(d_rc, 0.0), d_rc))
        d_rt = xp.where(rt >= line, xp.minimum(d_rt, 0.0), xp.where(rt <= floor, xp.maximum(d_rt, 0.0), d_rt))
        dq = xp.sum(p["w"] * rc, axis=-1) - p["c"]                                                  # eq (4)
        dq = xp.where(q <= 0.0, xp.maximum(dq, 0.0), xp.where(q >= p["buffer"], xp.minimum(dq, 0.0), dq))
        return xp.concatenate([dq[..., None], d_rc, d_rt, d_al], axis=-1)

    def observable(self, xp, x, p):
        return x[..., :1 + self.slots]

    def project(self, xp, x, p):
        q, rc, rt, al = self._split(x)
        line, floor = self._pe(p, "line_rate"), self._pe(p, "min_rate")
        return xp.concatenate([xp.clip(q, 0.0, p["buffer"])[..., None], xp.clip(rc, floor, line),
                               xp.clip(rt, floor, line), xp.clip(al, 0.0, 1.0)], axis=-1)

    def rate(self, xp, x, p):
        """Link utilization: 1 while the queue is busy, else the arrival rate over C (capped at 1)."""
        q, rc = x[..., 0], x[..., 1:1 + self.slots]
        arrival = xp.sum(p["w"] * rc, axis=-1)
        return xp.where(q > 0.0, 1.0, xp.minimum(arrival / p["c"], 1.0))


@dataclass
class DcqcnFixedPoint:
    """The unique fixed point of Theorem 1 (packets, packets/s) and the small-p approximation (13).

    on_ramp: p* <= Pmax, so q* lies on the RED ramp (eq 9); otherwise no fixed point with eq (3)'s ramp."""

    p: float
    p_approx: float
    q_pkts: float
    rc_pps: float
    rt_pps: float
    alpha: float
    on_ramp: bool


@dataclass
class PhaseMargin:
    """Phase margin (degrees) of Z16's characteristic loop at the fixed point (App. A, Fig. 3), its gain
    crossover (rad/s) and whether the linear loop is stable (margin > 0)."""

    degrees: float
    crossover_rad_s: float
    stable: bool


class DcqcnFluid:
    """DCQCN fluid model (module doc) for `n_flows` flows on a link of `rate_bps` with control-loop delay `delay_s`.

    Keyword options (defaults in the module table): kmin_bytes, kmax_bytes, pmax, g, tau_s, tau_prime_s, timer_s,
    byte_counter_bytes, f_steps, r_ai_bps, packet_bytes, min_rate_bps, line_rate_bps (default rate_bps),
    buffer_bytes (default: no limit). Invalid values raise ValueError naming the parameter, its value and the
    allowed range, before any integration."""

    def __init__(self, rate_bps: float = RATE_BPS, n_flows: float = 2, *, delay_s: float = DELAY_S,
                 kmin_bytes: float = KMIN_BYTES, kmax_bytes: float = KMAX_BYTES, pmax: float = PMAX, g: float = G,
                 tau_s: float = TAU_S, tau_prime_s: float = TAU_PRIME_S, timer_s: float = TIMER_S,
                 byte_counter_bytes: float = BYTE_COUNTER_BYTES, f_steps: float = F_STEPS, r_ai_bps: float = R_AI_BPS,
                 packet_bytes: float = PACKET_BYTES, min_rate_bps: float = MIN_RATE_BPS,
                 line_rate_bps: float | None = None, buffer_bytes: float | None = None):
        self.rate_bps = check_positive("rate_bps", rate_bps)
        self.n_flows = check_positive("n_flows", n_flows)
        self.delay_s = check_positive("delay_s", delay_s)
        _check_red(kmin_bytes, kmax_bytes, pmax)
        self.g = check_range("g", g, 0.0, 1.0, lo_open=True)
        self.tau_s = check_positive("tau_s", tau_s)
        self.tau_prime_s = check_positive("tau_prime_s", tau_prime_s)
        self.timer_s = check_positive("timer_s", timer_s)
        self.packet_bytes = check_positive("packet_bytes", packet_bytes)
        self.bc_pkts = check_positive("byte_counter_bytes", byte_counter_bytes) / self.packet_bytes
        self.f_steps = check_positive("f_steps", f_steps, allow_zero=True)
        self.r_ai_bps = check_positive("r_ai_bps", r_ai_bps)
        line = self.rate_bps if line_rate_bps is None else check_positive("line_rate_bps", line_rate_bps)
        self.line_rate_bps = line
        self.min_rate_bps = check_range("min_rate_bps", min_rate_bps, 0.0, line, lo_open=True, hi_open=True)
        self.kmin_bytes, self.kmax_bytes, self.pmax = float(kmin_bytes), float(kmax_bytes), float(pmax)
        self.buffer_bytes = math.inf if buffer_bytes is None else check_positive("buffer_bytes", buffer_bytes)
        self.c_pps = pkts_per_s(self.rate_bps, self.packet_bytes)

    # ---------------------------------------------------------------- analysis
    def _pp(self, name: str) -> float:
        return pkts_per_s(getattr(self, name), self.packet_bytes)

    def fixed_point(self) -> DcqcnFixedPoint:
        """Theorem 1: solve eq (11) for p* exactly; q* from (9), alpha* (10), R_T* from (6)."""
        return fixed_points([self])[0]

    def phase_margin(self, delay_s: float | None = None) -> PhaseMargin:
        """Phase margin of the paper's characteristic loop (App. A; the authors' stability.m) at `delay_s`
        (default: this model's tau*)."""
        return phase_margins([self], delay_s=delay_s)[0]

    def params(self) -> dict:
        pk = self.packet_bytes
        return {"c": self.c_pps, "kmin": self.kmin_bytes / pk, "kmax": self.kmax_bytes / pk, "pmax": self.pmax,
                "g": self.g, "tau": self.tau_s, "tau_p": self.tau_prime_s, "bc": self.bc_pkts, "timer": self.timer_s,
                "f": self.f_steps, "r_ai": self._pp("r_ai_bps"), "min_rate": self._pp("min_rate_bps"),
                "line_rate": self._pp("line_rate_bps"), "buffer": self.buffer_bytes / pk}

    def default_dt_s(self) -> float:
        return min(self.delay_s, self.tau_s / STEPS_PER_TAU)

    def solve(self, until_s: float, *, rates_bps: Any = None, weights: Any = None, q0_bytes: float = 0.0,
              dt_s: float | None = None, record_every: int = 20, settle_s: float | None = None,
              backend: str = "auto") -> FluidResult:
        """Integrate from t = 0 to `until_s`.

        rates_bps: the starting R_C (= R_T) of each flow slot (default: one slot at line rate, Z16 §3.1);
        weights: flows per slot (default: N / slots each, so the slots always hold N flows). alpha starts at 1.
        History for t < 0: the start state (no marks before the start). Columns: time_s, queue_pkts, p (eq 3 at
        the current queue), rc{j}_bps, rt{j}_bps, alpha{j} per slot, total_rate_bps. `limit_cycle`: whole
        periods of q around q* after `settle_s` (default: half the run); `params` holds the fixed point."""
        until_s = check_positive("until_s", until_s)
        dt_s = self.default_dt_s() if dt_s is None else check_positive("dt_s", dt_s)
        if dt_s > self.delay_s * (1 + 1e-12):
            raise ValueError(f"dt_s = {dt_s:g}: must not exceed delay_s = {self.delay_s:g} (method of steps)")
        r0, w = _slots(self, rates_bps, weights)
        if backend == "native" and len(r0) > 1:
            raise ValueError(f"backend = 'native': the compiled DCQCN model holds one flow slot (N identical flows); "
                             f"{len(r0)} slots (rates_bps) run on backend='numpy' or 'jax'")
        q0 = check_positive("q0_bytes", q0_bytes, allow_zero=True) / self.packet_bytes
        fp = self.fixed_point()
        res = _integrate([self], r0[None, :], w[None, :], np.array([q0]), until_s=until_s, dt_s=dt_s,
                         record_every=record_every, settle_s=0.5 * until_s if settle_s is None else settle_s,
                         levels=np.array([fp.q_pkts]), backend=backend)
        m = len(r0)
        bits = self.packet_bytes * 8
        x = res.x[:, 0, :]
        cols: dict[str, Any] = {"time_s": res.t, "queue_pkts": x[:, 0]}
        pr = self.params()
        cols["p"] = marking(np, x[:, 0], pr["kmin"], pr["kmax"], pr["pmax"])
        for j in range(m):
            cols[f"rc{j}_bps"] = x[:, 1 + j] * bits
        for j in range(m):
            cols[f"rt{j}_bps"] = x[:, 1 + m + j] * bits
        for j in range(m):
            cols[f"alpha{j}"] = x[:, 1 + 2 * m + j]
        cols["total_rate_bps"] = (x[:, 1:1 + m] * w).sum(axis=1) * bits
        ok = bool(np.all(np.isfinite(res.x_final)))
        return FluidResult(traces=pd.DataFrame(cols), success=ok, message="ok" if ok else "non-finite state",
                           limit_cycle=lc.from_monitor(res.monitor)[0],
                           params={"rate_bps": self.rate_bps, "n_flows": self.n_flows, "delay_s": self.delay_s,
                                   "dt_s": dt_s, "p_star": fp.p, "q_star_pkts": fp.q_pkts,
                                   "rc_star_bps": fp.rc_pps * bits, "alpha_star": fp.alpha})


def _slots(m: DcqcnFluid, rates_bps: Any, weights: Any) -> tuple[np.ndarray, np.ndarray]:
    if rates_bps is None:
        r = np.array([m.line_rate_bps])
    else:
        r = np.atleast_1d(np.asarray(rates_bps, dtype=float))
        if r.ndim != 1 or r.size == 0:
            raise ValueError(f"rates_bps = {rates_bps!r}: must be a number or a list of numbers")
        for j, v in enumerate(r):
            check_range(f"rates_bps[{j}]", v, m.min_rate_bps, m.line_rate_bps)
    if weights is None:
        w = np.full(r.size, m.n_flows / r.size)
    else:
        w = np.atleast_1d(np.asarray(weights, dtype=float))
        if w.shape != r.shape:
            raise ValueError(f"weights = {weights!r}: need one weight per entry of rates_bps ({r.size})")
        for j, v in enumerate(w):
            check_positive(f"weights[{j}]", v)
    return pkts_per_s(r, m.packet_bytes), w


def _integrate(models: list[DcqcnFluid], r0: np.ndarray, w: np.ndarray, q0: np.ndarray, *, until_s: float,
               dt_s: float, record_every: int, settle_s: float, levels: np.ndarray, backend: str):
    plist = [mm.params() for mm in models]
    params = {k: np.array([pp[k] for pp in plist]) for k in plist[0]}
    params["w"] = w
    slots = r0.shape[1]
    model = DcqcnDde(slots)
    x0 = np.concatenate([q0[:, None], r0, r0, np.ones_like(r0)], axis=1)
    hist = np.asarray(model.observable(np, model.project(np, x0, params), params))
    delays = np.array([mm.delay_s for mm in models])
    return integrate(model, params, x0, delays=delays, history=hist, dt=dt_s, until=until_s,
                     record_every=record_every, settle=settle_s, level=levels, monitor_index=0, backend=backend)


def fixed_points(models: list[DcqcnFluid]) -> list[DcqcnFixedPoint]:
    """Theorem 1 for several models at once: p* from eq (11) by bisection in log p (vectorized)."""
    n = np.array([m.n_flows for m in models])
    pr = {k: np.array([m.params()[k] for m in models]) for k in models[0].params()}
    r = pr["c"] / n
    rhs = pr["tau"] ** 2 * pr["r_ai"] * r

    def lhs(p):
        a, b, c, d, e, at = rate_terms(np, p, r, pr["tau"], pr["tau_p"], pr["bc"], pr["timer"], pr["f"])
        return a * a * at / ((b + d) * (c + e))

    lo, hi = np.full(len(models), -60.0), np.full(len(models), math.log(P_CLIP))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        with np.errstate(divide="ignore", invalid="ignore"):   # near p = 1, (b + d)(c + e) -> 0: lhs = inf > rhs
            up = lhs(np.exp(mid)) > rhs
        hi, lo = np.where(up, mid, hi), np.where(up, lo, mid)
    p = np.exp(0.5 * (lo + hi))
    a, b, c, d, e, at = rate_terms(np, p, r, pr["tau"], pr["tau_p"], pr["bc"], pr["timer"], pr["f"])
    rt = r * (1 + (c + e) * pr["tau"] * pr["r_ai"] / a)
    q = pr["kmin"] + p / pr["pmax"] * (pr["kmax"] - pr["kmin"])
    approx = np.cbrt(pr["r_ai"] * n**2 / (pr["tau_p"] * pr["c"] ** 2) * (1 / pr["bc"] + n / (pr["timer"] * pr["c"])) ** 2)
    return [DcqcnFixedPoint(p=float(p[i]), p_approx=float(approx[i]), q_pkts=float(q[i]), rc_pps=float(r[i]),
                            rt_pps=float(rt[i]), alpha=float(at[i]), on_ramp=bool(p[i] <= pr["pmax"][i]))
            for i in range(len(models))]


# ---------------------------------------------------------------- linear stability (App. A)

def loop_polynomials(m: DcqcnFluid) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator (coefficients, highest power first) of the open loop H(s) with
    1 + H(s) e^{-s tau*} = 0 the characteristic equation of App. A, as the authors evaluate it
    (fluidmodel/dcqcn/stability.m): p* from eq (13), Taylor-expanded a..e (A = 1/B + 1/(T R_C*))."""
    pr = m.params()
    n, c, g = m.n_flows, pr["c"], pr["g"]
    tau, tau_p, bc, timer, f, rai = pr["tau"], pr["tau_p"], pr["bc"], pr["timer"], pr["f"], pr["r_ai"]
    kspan = (pr["kmax"] - pr["kmin"]) / pr["pmax"]
    rcs = c / n
    ps = np.float64((rai * n * n / tau_p / c / c * (1 / bc + n / c / timer) ** 2) ** (1 / 3))   # eq (13)
    with np.errstate(over="ignore"):     # (1 - p)^(-B) overflows to inf for large p: c = 0, as in MATLAB
        return _loop_from(n, c, g, tau, tau_p, bc, timer, f, rai, kspan, rcs, ps)


def _loop_from(n, c, g, tau, tau_p, bc, timer, f, rai, kspan, rcs, ps):
    as_ = 1 - (1 - ps) ** (tau * rcs)
    cs = (1 - ps) ** (f * bc) * ps / ((1 - ps) ** (-bc) - 1)
    es = (1 - ps) ** (f * timer * rcs) * ps / ((1 - ps) ** (-timer * rcs) - 1)
    rts = rcs * (1 + (cs + es) * tau * rai / as_)
    alphas = 1 - (1 - ps) ** (tau_p * rcs)
    A = 1 / bc + 1 / timer / rcs
    h = 0.5 + A / 4
    AA = (-0.5 * rcs * rcs * alphas - h * rcs * rts + h * rcs * rcs) * n / kspan
    BB = -0.5 * ps * rcs * alphas - A / 2 * rcs + h * ps * rcs
    CC = -0.5 * ps * rcs * alphas - A / 2 * rcs + A / 2 * rts + h * ps * rcs - h * ps * rts
    DD = -0.5 * ps * rcs * rcs * g * c * n / kspan
    EE = (A / 2 * rcs - h * ps * rcs) * (ps * rcs + A * rai)
    FF = (A / 2 * rcs - h * ps * rcs) * (-ps * rts + ps * rcs + A * rai - (1 + 2 * f + A / 2) * rai * ps)
    GG = (A / 2 * rcs - h * ps * rcs) * (-rcs * rts + rcs * rcs - (1 + 2 * f + A / 2) * rai * rcs) * n / kspan
    P = np.polynomial.polynomial
    s, ng, sp = [0.0, 1.0], [g * c, n], [ps * rcs, 1.0]          # lowest power first here
    ngsp = P.polymul(ng, sp)
    num = P.polyadd(P.polyadd(P.polyadd(P.polymul(ngsp, [AA]), P.polymul(P.polymul(ngsp, s), [BB])),
                              P.polyadd(P.polymul(sp, [DD]), P.polymul(P.polymul(ng, s), [FF]))), P.polymul(ng, [GG]))
    den = P.polyadd(P.polyadd(P.polymul(P.polymul(P.polymul(s, ngsp), s), [-1.0]), P.polymul(P.polymul(ngsp, s), [CC])),
                    P.polymul(P.polymul(s, ng), [EE]))
    return np.asarray(num)[::-1], np.asarray(den)[::-1]


def _margin(num: np.ndarray, den: np.ndarray, delay: float) -> PhaseMargin:
    """Smallest phase margin over all gain crossovers of H(s) e^{-s delay} (as MATLAB's `margin`)."""
    from scipy.optimize import brentq

    def h(w):
        s = 1j * w
        return np.polyval(num, s) / np.polyval(den, s) * np.exp(-s * delay)

    lw = np.linspace(math.log(1e-2), math.log(1e9), 4001)
    mag = np.log(np.abs(h(np.exp(lw))))
    idx = np.flatnonzero(np.sign(mag[:-1]) != np.sign(mag[1:]))
    if len(idx) == 0:
        return PhaseMargin(math.inf, math.nan, bool(mag[0] < 0))
    best = (math.inf, math.nan)
    for i in idx:
        x = brentq(lambda v: math.log(abs(h(math.exp(v)))), lw[i], lw[i + 1], xtol=1e-13)
        wc = math.exp(x)
        pm = (180.0 + math.degrees(np.angle(h(wc)))) % 360.0
        pm = pm - 360.0 if pm > 180.0 else pm
        if pm < best[0]:
            best = (pm, wc)
    return PhaseMargin(float(best[0]), float(best[1]), bool(best[0] > 0))


def phase_margins(models: list[DcqcnFluid], *, delay_s: float | None = None) -> list[PhaseMargin]:
    """`DcqcnFluid.phase_margin` for several models."""
    out = []
    for m in models:
        d = m.delay_s if delay_s is None else check_positive("delay_s", delay_s, allow_zero=True)
        num, den = loop_polynomials(m)
        out.append(_margin(num, den, d))
    return out


def jacobian_stable(m: DcqcnFluid, *, delay_s: float | None = None) -> tuple[bool, complex]:
    """Independent linear check: linearize this module's right-hand side (one slot of N flows) at the exact
    fixed point, x' = J0 x + J1 x(t - tau*), and find the rightmost root of det(sI - J0 - J1 e^{-s tau*}) by
    Newton from the eigenvalues of J0 + J1 and a grid of starts. Returns (stable, rightmost root in 1/s).

    Off the RED ramp (p* > Pmax: q* would lie above Kmax, where eq (3) jumps to 1) there is no fixed point to
    linearize: returns (False, nan)."""
    delay = m.delay_s if delay_s is None else delay_s
    fp = m.fixed_point()
    if not fp.on_ramp:
        return False, complex(math.nan, math.nan)
    pr = {k: np.array([v]) for k, v in m.params().items()}
    pr["w"] = np.array([[m.n_flows]])
    model = DcqcnDde(1)
    x = np.array([[fp.q_pkts, fp.rc_pps, fp.rt_pps, fp.alpha]])
    y = np.asarray(model.observable(np, x, pr))[:, None, :]
    n = x.shape[1]
    scale = np.array([max(1.0, fp.q_pkts), fp.rc_pps, fp.rt_pps, max(fp.alpha, 1e-6)])
    j0, j1 = np.zeros((n, n)), np.zeros((n, n))
    for k in range(n):
        hk = 1e-6 * scale[k]
        xp_, xm_ = x.copy(), x.copy()
        xp_[0, k] += hk
        xm_[0, k] -= hk
        j0[:, k] = (model.rhs(np, xp_, y, y, pr) - model.rhs(np, xm_, y, y, pr))[0] / (2 * hk)
        if k < 2:       # the observables are (q, R_C)
            yp, ym = y.copy(), y.copy()
            yp[0, 0, k] += hk
            ym[0, 0, k] -= hk
            j1[:, k] = (model.rhs(np, x, yp, yp, pr) - model.rhs(np, x, ym, ym, pr))[0] / (2 * hk)
    return _rightmost(j0, j1, delay)


def _rightmost(j0: np.ndarray, j1: np.ndarray, delay: float) -> tuple[bool, complex]:
    n = j0.shape[0]

    def f(s):
        return np.linalg.det(s * np.eye(n) - j0 - j1 * np.exp(-s * delay))

    starts = list(np.linalg.eigvals(j0 + j1))
    wmax = max(1.0, float(np.max(np.abs(starts))))
    for w in np.geomspace(1.0, 50 * wmax + 10 / max(delay, 1e-12), 80):
        starts.append(complex(0.0, w))
    roots = []
    for s in starts:
        s = complex(s)
        for _ in range(100):
            fs = f(s)
            hs = 1e-7 * max(1.0, abs(s))
            der = (f(s + hs) - f(s - hs)) / (2 * hs)
            if der == 0:
                break
            step = fs / der
            s -= step
            if abs(step) < 1e-12 * max(1.0, abs(s)):
                break
        if abs(f(s)) < 1e-6 * max(1.0, abs(f(complex(abs(s) + 1, 0)))):
            roots.append(s)
    best = max(roots, key=lambda z: z.real) if roots else complex(math.nan, 0)
    return bool(best.real < 0), best


def solve_batch(models: list[DcqcnFluid], until_s: float, *, dt_s: float | None = None,
                settle_s: float | None = None, backend: str = "auto", dtype: str = "float64") -> pd.DataFrame:
    """Integrate several DCQCN models as ONE batch (one slot of N flows each, all at line rate, alpha = 1;
    common step: the smallest default step) and summarize after `settle_s` (default: half the run):
    q_min_pkts, q_max_pkts, period_s, periodic (whole periods of q around q*), utilization (over those whole
    periods: 1 while the queue is busy, else arrivals/C), q_final_pkts, rate_final_bps (per flow), and the fixed
    point q_star_pkts, rc_star_bps, p_star. Used by `sweep("dcqcn", ...)`."""
    if not models:
        raise ValueError("models: need at least one DcqcnFluid")
    until_s = check_positive("until_s", until_s)
    dt_s = min(m.default_dt_s() for m in models) if dt_s is None else check_positive("dt_s", dt_s)
    for i, m in enumerate(models):
        if m.delay_s < dt_s * (1 - 1e-12):
            raise ValueError(f"models[{i}].delay_s = {m.delay_s:g}: must not be below dt_s = {dt_s:g}")
    fps = fixed_points(models)
    r0 = np.array([[m._pp("line_rate_bps")] for m in models])
    w = np.array([[m.n_flows] for m in models])
    settle_s = 0.5 * until_s if settle_s is None else settle_s
    res = _integrate(models, r0, w, np.zeros(len(models)), until_s=until_s, dt_s=dt_s, record_every=0,
                     settle_s=settle_s, levels=np.array([f.q_pkts for f in fps]), backend=backend)
    out = lc.monitor_arrays(res.monitor)
    bits = np.array([m.packet_bytes * 8 for m in models])
    return pd.DataFrame({"q_min_pkts": out["q_min"], "q_max_pkts": out["q_max"], "period_s": out["period"],
                         "periodic": out["periodic"], "utilization": out["throughput"],
                         "q_final_pkts": res.x_final[:, 0],
                         "rate_final_bps": res.x_final[:, 1] * bits, "q_star_pkts": [f.q_pkts for f in fps],
                         "rc_star_bps": [f.rc_pps for f in fps] * bits, "p_star": [f.p for f in fps], "dt_s": dt_s})


def dcqcn_fluid(rate_bps: float = RATE_BPS, n_flows: float = 2, *, delay_s: float = DELAY_S, **options) -> DcqcnFluid:
    """The DCQCN fluid model of Z16; see `DcqcnFluid`."""
    return DcqcnFluid(rate_bps, n_flows, delay_s=delay_s, **options)
