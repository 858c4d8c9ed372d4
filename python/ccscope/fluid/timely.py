"""TIMELY fluid model of Zhu, Ghobadi, Misra, Padhye, *ECN or Delay* (CoNEXT 2016, "Z16"), §4.2 Fig. 8, and its
fixed-point analysis (§4.3, Theorems 3-4).

Equation numbers follow the paper's source (github.com/jitupadhye-zz/rdma, conext2016/timely-*.tex). N flows share
one bottleneck of capacity C (queue q in packets of `mtu_bytes`, rates in packets/s):
    dq/dt    = sum_i R_i(t) - C                                                                 (19)
    dR_i/dt  = delta/tau_i*                                  if q(t - tau') < C T_low
             = -beta/tau_i* (1 - C T_high/q(t - tau')) R_i   if q(t - tau') > C T_high
             = delta/tau_i*                                  if g_i <= 0
             = -g_i beta/tau_i* R_i                          if g_i > 0                          (20)
    dg_i/dt  = alpha/tau_i* ( -g_i + (q(t - tau') - q(t - tau' - tau_i*)) / (C D_minRTT) )      (21)
    tau_i*   = max(Seg/R_i, D_minRTT)                                                            (22)
    tau'     = q/C + MTU/C + D_prop                                                              (23)
g_i is the EWMA-filtered RTT gradient normalized by D_minRTT (TIMELY Algorithm 1 lines 1-4 with weight alpha on the
new sample); both delays depend on the state. Hyper-active increase is ignored, as in the paper (§4.2).

Theorem 3 (no fixed point): a fixed point needs dg_i/dt = 0, hence g_i = 0, and then dR_i/dt = delta/tau_i* != 0.
Theorem 4 (infinite fixed points): with the equality moved to the decrease branch (eq 27: increase only if
g_i < 0, `strict=False` here), every state with sum R_i = C, g_i = 0 and C T_low < q < C T_high is a fixed point,
whatever the split of C between the flows. `TimelyFluid.rhs_at` evaluates eqs (19)-(21) at such a state; the
tests check both theorems on it and that two runs that differ only in the starting split end at different
splits with the same total (Fig. 9's experiment).

Parameters and defaults (Z16 §4.2 footnote: TIMELY's recommended values; Seg, delta, D_prop from the authors'
model, fluidmodel/timely/timely2.m):
    | name          | meaning                                          | default  |
    |---------------|--------------------------------------------------|----------|
    | rate_bps C    | bottleneck capacity                              | 10 Gb/s  |
    | alpha         | EWMA weight of the new RTT-difference sample     | 0.875    |
    | beta          | multiplicative decrease factor                   | 0.8      |
    | delta_bps     | additive increase step delta                     | 10 Mb/s  |
    | t_low_s       | low RTT threshold T_low                          | 50 us    |
    | t_high_s      | high RTT threshold T_high (> T_low)              | 500 us   |
    | d_minrtt_s    | minimum RTT used for normalization D_minRTT      | 20 us    |
    | seg_bytes     | burst (segment) size Seg                         | 64 KB    |
    | d_prop_s      | propagation delay D_prop                         | 4 us     |
    | mtu_bytes     | MTU (packet size of the queue unit)              | 1000 B   |
[CHOICES] (ambiguities, see docs/models/dcqcn_timely_fluid.md): the thresholds compare the queue with C T_low and
C T_high (as eq 20 prints them, i.e. the queueing part of the RTT); tau_i* = max(Seg/R_i, D_minRTT) both as the
update interval and as the gradient's lag (eq 22; the authors' script uses Seg/R_i for the former); tau' uses
MTU/C as eq (23) prints (the script uses Seg/C). Rates are capped at the line rate (the script: no increase at
R >= C) and floored at `min_rate_bps`; the queue is capped at 2 C T_high (the script's maxQueue).

The integrator is the solver's method (Heun, delayed values by linear interpolation in a ring buffer of q) with
state-dependent lags, batched over parameter sets (B) and flow slots (M, with weights as in `ccscope.fluid.dcqcn`).
It is numpy only: the shared solver (and its native and JAX backends) has fixed delays.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ccscope.fluid.base import FluidResult, check_positive, check_range, pkts_per_s

RATE_BPS = 10e9
ALPHA = 0.875
BETA = 0.8
DELTA_BPS = 10e6
T_LOW_S = 50e-6
T_HIGH_S = 500e-6
D_MINRTT_S = 20e-6
SEG_BYTES = 64e3
D_PROP_S = 4e-6
MTU_BYTES = 1000
#: Rate floor: keeps tau* = Seg/R bounded (and the history ring finite).
MIN_RATE_BPS = 100e6
#: Queue cap in units of C T_high (the authors' maxQueue = 2 C T_high).
Q_MAX_T_HIGH = 2.0
#: Default step: D_prop/STEPS_PER_DPROP (every lag is >= D_prop); halving it moves the mean rates of a
#: 40 ms two-flow run by < 1e-4 relative.
STEPS_PER_DPROP = 2


@dataclass
class TimelyIntegration:
    """Raw output: t (R,), x (R, B, n) recorded states, x_final (B, n), dt."""

    t: np.ndarray
    x: np.ndarray
    x_final: np.ndarray
    dt: float


def timely_rhs(xp: Any, x: Any, q_d: Any, q_dd: Any, p: dict) -> Any:
    """Eqs (19)-(21) for M slots: x = (q, R[M], g[M]); q_d = q(t - tau') (..., 1), q_dd = q(t - tau' - tau_i*)
    (..., M). Params broadcast as (..., 1) except `w` (..., M)."""
    m = p["w"].shape[-1]
    q, r, g = x[..., 0], x[..., 1:1 + m], x[..., 1 + m:1 + 2 * m]
    tau_s = xp.maximum(p["seg"] / r, p["d_min"])                                   # eq (22)
    inc = p["delta"] / tau_s
    grad_dec = -g * p["beta"] / tau_s * r
    increase = xp.where(p["strict"] > 0, g <= 0, g < 0)                          # eq (20) / eq (27)
    high = p["c"] * p["t_high"]
    dec_high = -p["beta"] / tau_s * (1 - high / xp.maximum(q_d, high)) * r
    d_r = xp.where(q_d < p["c"] * p["t_low"], inc, xp.where(q_d > high, dec_high, xp.where(increase, inc, grad_dec)))
    d_r = xp.where(r >= p["line_rate"], xp.minimum(d_r, 0.0), xp.where(r <= p["min_rate"], xp.maximum(d_r, 0.0), d_r))
    d_g = p["alpha"] / tau_s * (-g + (q_d - q_dd) / (p["c"] * p["d_min"]))       # eq (21)
    dq = xp.sum(p["w"] * r, axis=-1) - p["c"][..., 0]                              # eq (19)
    dq = xp.where(q <= 0, xp.maximum(dq, 0.0), xp.where(q >= p["q_max"][..., 0], xp.minimum(dq, 0.0), dq))
    return xp.concatenate([dq[..., None], d_r, d_g], axis=-1)


def _project(x: np.ndarray, p: dict) -> np.ndarray:
    m = p["w"].shape[-1]
    out = x.copy()
    out[:, 0] = np.clip(x[:, 0], 0.0, p["q_max"][:, 0])
    out[:, 1:1 + m] = np.clip(x[:, 1:1 + m], p["min_rate"], p["line_rate"])
    return out


def _delays(x: np.ndarray, p: dict) -> tuple[np.ndarray, np.ndarray]:
    """(tau' (B, 1), tau' + tau_i* (B, M)) in seconds, eqs (22)-(23)."""
    m = p["w"].shape[-1]
    tp = x[:, :1] / p["c"] + 1.0 / p["c"] + p["d_prop"]
    ts = np.maximum(p["seg"] / x[:, 1:1 + m], p["d_min"])
    return tp, tp + ts


def integrate_timely(p: dict, x0: np.ndarray, *, dt: float, until: float, record_every: int = 10) -> TimelyIntegration:
    """Batched fixed-step Heun integration of eqs (19)-(23) from t = 0 (history: q(t < 0) = q0)."""
    x = _project(np.asarray(x0, dtype=float), p)
    batch = x.shape[0]
    d_max = (p["q_max"][:, 0] + 1) / p["c"][:, 0] + p["d_prop"][:, 0] + np.maximum(
        p["seg"][:, 0] / p["min_rate"][:, 0], p["d_min"][:, 0])
    d_min = float(np.min(p["d_prop"] + 1.0 / p["c"]))
    if not dt <= d_min:
        raise ValueError(f"dt_s = {dt:g}: must not exceed the smallest feedback delay D_prop + MTU/C = {d_min:g}")
    ring_len = int(math.ceil(float(d_max.max()) / dt)) + 3
    ring = np.repeat(x[None, :, 0], ring_len, axis=0)        # (L, B): q at steps n, n-1, ...
    cols = np.arange(batch)
    n_steps = int(math.ceil(until / dt - 1e-9))
    n_rec = n_steps // record_every + 1 if record_every else 0
    rec_x = np.empty((n_rec, batch, x.shape[1]))
    rec_t = np.empty(n_rec)
    if n_rec:
        rec_x[0], rec_t[0] = x, 0.0

    def lag(step: float, delay: np.ndarray) -> np.ndarray:
        pos = step - delay / dt                              # fractional step index of t - delay
        k = np.floor(pos).astype(np.int64)
        f = pos - k
        cc = np.broadcast_to(cols[:, None], k.shape)
        return (1 - f) * ring[k % ring_len, cc] + f * ring[(k + 1) % ring_len, cc]

    def f_at(xs: np.ndarray, step: float) -> np.ndarray:
        d1, d2 = _delays(xs, p)
        return timely_rhs(np, xs, lag(step, d1), lag(step, d2), p)

    for n in range(n_steps):
        k1 = f_at(x, n)
        xe = _project(x + dt * k1, p)
        k2 = f_at(xe, n + 1)
        x = _project(x + 0.5 * dt * (k1 + k2), p)
        ring[(n + 1) % ring_len] = x[:, 0]
        if record_every and (n + 1) % record_every == 0:
            i = (n + 1) // record_every
            rec_x[i], rec_t[i] = x, (n + 1) * dt
    return TimelyIntegration(t=rec_t, x=rec_x, x_final=x, dt=dt)


class TimelyFluid:
    """TIMELY fluid model (module doc) on a link of `rate_bps`. Keyword options (defaults in the module table):
    alpha, beta, delta_bps, t_low_s, t_high_s, d_minrtt_s, seg_bytes, d_prop_s, mtu_bytes, min_rate_bps,
    line_rate_bps (default rate_bps), strict (True: eq 20 as printed, g <= 0 increases; False: eq 27)."""

    def __init__(self, rate_bps: float = RATE_BPS, *, alpha: float = ALPHA, beta: float = BETA,
                 delta_bps: float = DELTA_BPS, t_low_s: float = T_LOW_S, t_high_s: float = T_HIGH_S,
                 d_minrtt_s: float = D_MINRTT_S, seg_bytes: float = SEG_BYTES, d_prop_s: float = D_PROP_S,
                 mtu_bytes: float = MTU_BYTES, min_rate_bps: float = MIN_RATE_BPS, line_rate_bps: float | None = None,
                 strict: bool = True):
        self.rate_bps = check_positive("rate_bps", rate_bps)
        self.alpha = check_range("alpha", alpha, 0.0, 1.0, lo_open=True)
        self.beta = check_range("beta", beta, 0.0, 1.0, lo_open=True)
        self.delta_bps = check_positive("delta_bps", delta_bps)
        self.t_low_s = check_positive("t_low_s", t_low_s, allow_zero=True)
        self.t_high_s = check_positive("t_high_s", t_high_s)
        if not self.t_high_s > self.t_low_s:
            raise ValueError(f"t_low_s = {self.t_low_s:g}: must be < t_high_s ({self.t_high_s:g}); T_low >= T_high "
                             "leaves no gradient region")
        self.d_minrtt_s = check_positive("d_minrtt_s", d_minrtt_s)
        self.seg_bytes = check_positive("seg_bytes", seg_bytes)
        self.d_prop_s = check_positive("d_prop_s", d_prop_s)
        self.mtu_bytes = check_positive("mtu_bytes", mtu_bytes)
        self.line_rate_bps = self.rate_bps if line_rate_bps is None else check_positive("line_rate_bps", line_rate_bps)
        self.min_rate_bps = check_range("min_rate_bps", min_rate_bps, 0.0, self.line_rate_bps, lo_open=True,
                                        hi_open=True)
        self.strict = bool(strict)
        self.c_pps = pkts_per_s(self.rate_bps, self.mtu_bytes)

    def params(self) -> dict:
        c = self.c_pps
        return {"c": c, "alpha": self.alpha, "beta": self.beta, "delta": pkts_per_s(self.delta_bps, self.mtu_bytes),
                "t_low": self.t_low_s, "t_high": self.t_high_s, "d_min": self.d_minrtt_s,
                "seg": self.seg_bytes / self.mtu_bytes, "d_prop": self.d_prop_s,
                "line_rate": pkts_per_s(self.line_rate_bps, self.mtu_bytes),
                "min_rate": pkts_per_s(self.min_rate_bps, self.mtu_bytes), "q_max": Q_MAX_T_HIGH * c * self.t_high_s,
                "strict": float(self.strict)}

    def default_dt_s(self) -> float:
        return self.d_prop_s / STEPS_PER_DPROP

    def rhs_at(self, q_pkts: float, rates_bps: Any, gradients: Any = None, *, q_lag_pkts: float | None = None) -> dict:
        """Eqs (19)-(21) at a state held constant in the past (q(t - tau') = q(t - tau' - tau*) = `q_lag_pkts`,
        default q): returns dq_dt (pkts/s), dr_dt_bps_per_s and dg_dt (per slot). Used to check Theorems 3-4."""
        r = np.atleast_1d(np.asarray(rates_bps, dtype=float))
        gr = np.zeros_like(r) if gradients is None else np.atleast_1d(np.asarray(gradients, dtype=float))
        p = _batch_params([self], np.ones((1, r.size)))
        x = np.concatenate([[q_pkts], pkts_per_s(r, self.mtu_bytes), gr])[None, :]
        ql = q_pkts if q_lag_pkts is None else q_lag_pkts
        d = timely_rhs(np, x, np.array([[ql]]), np.full((1, r.size), ql), p)[0]
        return {"dq_dt": float(d[0]), "dr_dt_bps_per_s": d[1:1 + r.size] * self.mtu_bytes * 8,
                "dg_dt": d[1 + r.size:]}

    def solve(self, until_s: float, rates_bps: Any = None, *, weights: Any = None, q0_bytes: float = 0.0,
              dt_s: float | None = None, record_every: int = 20, settle_s: float | None = None) -> FluidResult:
        """Integrate from `rates_bps` per slot (default: two flows at C/2, Z16 §4.2: "the starting rate for each
        flow is 1/N of the link bandwidth"), gradients 0, queue `q0_bytes`. Columns: time_s, queue_pkts, rtt_s
        (tau' + the queueing-free part), r{j}_bps, g{j} per slot, total_rate_bps. `params` adds the mean rate of
        each slot (mean_r{j}_bps) and the mean and extremes of q over [settle_s, until_s] (default: last half)."""
        return solve_batch([self], until_s, rates_bps=rates_bps, weights=weights, q0_bytes=q0_bytes, dt_s=dt_s,
                           record_every=record_every, settle_s=settle_s, traces=True)[0]


def _batch_params(models: list[TimelyFluid], w: np.ndarray) -> dict:
    plist = [mm.params() for mm in models]
    p = {k: np.array([pp[k] for pp in plist], dtype=float)[:, None] for k in plist[0]}
    p["w"] = np.asarray(w, dtype=float)
    return p


def solve_batch(models: list[TimelyFluid], until_s: float, *, rates_bps: Any = None, weights: Any = None,
                q0_bytes: float = 0.0, dt_s: float | None = None, record_every: int = 20,
                settle_s: float | None = None, traces: bool = False) -> Any:
    """Integrate several TIMELY models as ONE batch. rates_bps: (M,) starting rates shared by all models or
    (B, M) one row per model (default: two slots at C/2 each). weights: flows per slot, (M,) or (B, M) (default 1).
    Returns a DataFrame with one row per model (mean_r{j}_bps, mean_total_bps, q_mean_pkts, q_min_pkts, q_max_pkts
    over [settle_s, until_s], default the last half) or, with traces=True, a list of FluidResult."""
    if not models:
        raise ValueError("models: need at least one TimelyFluid")
    until_s = check_positive("until_s", until_s)
    nb = len(models)
    if rates_bps is None:
        r = np.array([[m.rate_bps / 2, m.rate_bps / 2] for m in models])
    else:
        r = np.asarray(rates_bps, dtype=float)
        if r.ndim == 0:
            r = r[None]
        r = np.broadcast_to(r, (nb, r.shape[-1])).copy() if r.ndim == 1 else r
        if r.shape[0] != nb:
            raise ValueError(f"rates_bps: {r.shape[0]} rows for {nb} models")
    for i, m in enumerate(models):
        for j, v in enumerate(r[i]):
            check_range(f"rates_bps[{j}]", v, m.min_rate_bps, m.line_rate_bps)
    w = np.ones_like(r) if weights is None else np.broadcast_to(np.asarray(weights, dtype=float), r.shape).copy()
    for j, v in enumerate(w.ravel()):
        check_positive(f"weights[{j}]", v)
    dt = min(m.default_dt_s() for m in models) if dt_s is None else check_positive("dt_s", dt_s)
    q0 = check_positive("q0_bytes", q0_bytes, allow_zero=True)
    p = _batch_params(models, w)
    mtu = np.array([m.mtu_bytes for m in models])
    x0 = np.concatenate([(q0 / mtu)[:, None], r / (mtu[:, None] * 8), np.zeros_like(r)], axis=1)
    res = integrate_timely(p, x0, dt=dt, until=until_s, record_every=record_every)
    settle = 0.5 * until_s if settle_s is None else check_range("settle_s", settle_s, 0.0, until_s, hi_open=True)
    keep = res.t >= settle
    k = r.shape[1]
    bits = (mtu * 8)[None, :]
    rates = res.x[keep][:, :, 1:1 + k] * bits[..., None]                    # (R, B, M) b/s
    q = res.x[keep][:, :, 0]
    summary = {f"mean_r{j}_bps": rates[:, :, j].mean(axis=0) for j in range(k)}
    summary["mean_total_bps"] = (rates * w[None]).sum(axis=2).mean(axis=0)
    summary.update({"q_mean_pkts": q.mean(axis=0), "q_min_pkts": q.min(axis=0), "q_max_pkts": q.max(axis=0),
                    "dt_s": dt})
    if not traces:
        return pd.DataFrame(summary)
    out = []
    for i, m in enumerate(models):
        xi = res.x[:, i, :]
        cols: dict[str, Any] = {"time_s": res.t, "queue_pkts": xi[:, 0],
                                "rtt_s": xi[:, 0] / m.c_pps + 1 / m.c_pps + m.d_prop_s}
        for j in range(k):
            cols[f"r{j}_bps"] = xi[:, 1 + j] * bits[0, i]
        for j in range(k):
            cols[f"g{j}"] = xi[:, 1 + k + j]
        cols["total_rate_bps"] = (xi[:, 1:1 + k] * w[i]).sum(axis=1) * bits[0, i]
        ok = bool(np.all(np.isfinite(res.x_final[i])))
        params = {"rate_bps": m.rate_bps, "dt_s": dt, "strict": m.strict, "settle_s": settle,
                  **{kk: float(np.asarray(v)[i]) for kk, v in summary.items() if kk != "dt_s"}}
        out.append(FluidResult(traces=pd.DataFrame(cols), success=ok, message="ok" if ok else "non-finite state",
                               params=params))
    return out


def timely_fluid(rate_bps: float = RATE_BPS, **options) -> TimelyFluid:
    """The TIMELY fluid model of Z16; see `TimelyFluid`."""
    return TimelyFluid(rate_bps, **options)
