"""Parameter sweeps of the fluid models as ONE vectorized batch (numpy, or JAX: jit + vmap + lax.scan).

`sweep(model, grid)` takes the Cartesian product of the grid's value lists and returns a DataFrame
with one row per point: the parameters (unit-suffixed names) followed by the model's outputs.
Models: "dctcp_normalized" (wbar, g[, psi]) -> q_min, q_max, period_rtt, throughput;
"dctcp" (n, rate_bps, rtt_s, k_pkts, g; option until_s) -> q_min_pkts, q_max_pkts, period_s, throughput;
"dctcp_poincare" (wbar, g) -> spectral_radius (scipy, one point at a time); "dx" (n_flows,
rate_bps, r0_s) -> bound_s, stable; "qcn" (rate_bps, n_flows) -> bound_s, delay_margin_s;
"qcn_fluid" (rate_bps, n_flows, delay_s[, qeq_pkts]; options until_s, dt_s, r0_bps, feedback) -> the time-domain
QCN model as ONE batch: q_min_pkts, q_max_pkts, period_s, periodic, q_final_pkts, rate_final_bps, plus the
App. A bound_s and delay_margin_s; "tcp_red" (n_flows, rate_bps, tp_s, min_th_pkts, max_th_pkts[, max_p, w_q])
-> equilibrium w0_pkts, p0, q0_pkts, r0_s and Hollot et al.'s dc_gain, hollot_stable, delay_margin_s,
linear_stable (closed form); "asm" (rate_bps[, w, p, a_plus, a_minus, b_plus, b_minus]: gains as fractions of
C/128, default the §5.1 sliding set) -> ineq. 15's m_minus, m_plus, sliding, marginal and pC/w (closed form);
"asm_fluid" (rate_bps, delay_s[, q0_pkts, w, p, gains as for "asm"]; options x1_pkts, x2_pps, until_tau,
dt_s, settle_fraction) -> eq 26 with App. D's delay as ONE batch: band_pkts, q_offset_final_pkts,
rate_excess_final_pps plus the closed-form columns;
"dcqcn" (rate_bps, n_flows, delay_s[, kmin_bytes, kmax_bytes, pmax, g, r_ai_bps]; options until_s, dt_s, settle_s)
-> the DCQCN fluid model of Zhu et al. (CoNEXT 2016) as ONE batch (all flows at line rate): q_min_pkts,
q_max_pkts, period_s, periodic, q_final_pkts, rate_final_bps, the fixed point q_star_pkts, rc_star_bps, p_star and
the paper's phase margin phase_margin_deg / linear_stable; "timely" (rate_bps, r0_bps, r1_bps[, alpha, beta,
delta_bps, t_low_s, t_high_s, seg_bytes]; options until_s, dt_s, settle_s) -> two TIMELY flows starting at r0, r1
as ONE batch: mean_r0_bps, mean_r1_bps, mean_total_bps, q_mean_pkts, q_min_pkts, q_max_pkts (numpy only).
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ccscope.analysis import limit_cycle as lc
from ccscope.fluid.base import PACKET_BYTES_DEFAULT, check_array, pkts_per_s
from ccscope.fluid.dctcp import (
    PHYSICAL_DDE,
    STEPS_PER_RSTAR,
    DctcpNormalized,
    normalized_limit_cycles,
)
from ccscope.fluid.solver import integrate

MODELS = ("dctcp_normalized", "dctcp", "dctcp_poincare", "dx", "qcn", "qcn_fluid", "tcp_red", "asm", "asm_fluid",
          "dcqcn", "timely")
DCQCN_OPTIONAL = ("kmin_bytes", "kmax_bytes", "pmax", "g", "r_ai_bps")
TIMELY_OPTIONAL = ("alpha", "beta", "delta_bps", "t_low_s", "t_high_s", "seg_bytes")
ASM_OPTIONAL = ("w", "p", "a_plus", "a_minus", "b_plus", "b_minus")


def _product(grid: Mapping[str, Any], required: tuple[str, ...], optional: tuple[str, ...] = ()) -> pd.DataFrame:
    unknown = set(grid) - set(required) - set(optional)
    if unknown:
        raise ValueError(f"grid: unknown parameter(s) {sorted(unknown)}; allowed: {list(required + optional)}")
    missing = [k for k in required if k not in grid]
    if missing:
        raise ValueError(f"grid: missing parameter(s) {missing}")
    keys = [k for k in required + optional if k in grid]
    values = [np.atleast_1d(np.asarray(grid[k], dtype=float)) for k in keys]
    rows = list(itertools.product(*values))
    return pd.DataFrame(rows, columns=keys)


def sweep(model: Any, grid: Mapping[str, Any], *, backend: str = "auto", dtype: str = "float64",
          **options: Any) -> pd.DataFrame:
    """Evaluate `model` on every point of `grid` (name -> values). See the module doc for names.
    A `UserModel` (`ccscope.fluid.user_model`) is swept as one batch by its own `sweep` (options:
    until, x0, dt, settle, history)."""
    from ccscope.fluid.user import UserModel
    if isinstance(model, UserModel):
        return model.sweep(grid, backend=backend, **options)
    if model == "dctcp_normalized":
        df = _product(grid, ("wbar", "g"), ("psi",))
        out = normalized_limit_cycles(df.wbar.values, df.g.values, psi=df.psi.values if "psi" in df else None,
                                             backend=backend, dtype=dtype, **options)
        return df.assign(q_min=out["q_min"], q_max=out["q_max"], period_rtt=out["period"],
                         throughput=out["throughput"], periodic=out["periodic"])
    if model == "dctcp":
        return _sweep_dctcp(_product(grid, ("n", "rate_bps", "rtt_s", "k_pkts", "g")), backend=backend, dtype=dtype,
                            **options)
    if model == "dctcp_poincare":
        df = _product(grid, ("wbar", "g"))
        rho = [DctcpNormalized(w, g).poincare().spectral_radius for w, g in zip(df.wbar, df.g)]
        return df.assign(spectral_radius=rho)
    if model == "dx":
        from ccscope.fluid.dx import equilibrium
        df = _product(grid, ("n_flows", "rate_bps", "r0_s"), ("p",))
        eqs = [equilibrium(r.n_flows, r.rate_bps, r.r0_s, **({"p": r.p} if "p" in df else {}))
               for r in df.itertuples()]
        return df.assign(q0_s=[e.q0_s for e in eqs], bound_s=[e.bound_s for e in eqs], stable=[e.stable for e in eqs],
                         special_state=[e.special_state for e in eqs])
    if model == "qcn":
        from ccscope.fluid.qcn import qcn_bound
        df = _product(grid, ("rate_bps", "n_flows"))
        bs = [qcn_bound(r.rate_bps, r.n_flows) for r in df.itertuples()]
        return df.assign(bound_s=[b.bound_s for b in bs], delay_margin_s=[b.delay_margin_s for b in bs])
    if model == "qcn_fluid":
        from ccscope.fluid.qcn import qcn_fluid, solve_batch
        df = _product(grid, ("rate_bps", "n_flows", "delay_s"), ("qeq_pkts",))
        feedback = options.pop("feedback", "linear")
        models = [qcn_fluid(r.rate_bps, r.n_flows, delay_s=r.delay_s, feedback=feedback,
                            **({"qeq_pkts": r.qeq_pkts} if "qeq_pkts" in df else {})) for r in df.itertuples()]
        out = solve_batch(models, options.pop("until_s", 0.05), backend=backend, dtype=dtype, **options)
        return pd.concat([df, out.drop(columns=["qeq_pkts"] if "qeq_pkts" in df else [])], axis=1).assign(
            bound_s=[m.bound.bound_s for m in models], delay_margin_s=[m.bound.delay_margin_s for m in models])
    if model == "tcp_red":
        from ccscope.fluid.tcp_red import equilibrium as red_equilibrium
        df = _product(grid, ("n_flows", "rate_bps", "tp_s", "min_th_pkts", "max_th_pkts"), ("max_p", "w_q"))
        eqs = [red_equilibrium(r.n_flows, r.rate_bps, r.tp_s, min_th_pkts=r.min_th_pkts, max_th_pkts=r.max_th_pkts,
                               **{k: getattr(r, k) for k in ("max_p", "w_q") if k in df}) for r in df.itertuples()]
        cols = ("w0_pkts", "p0", "q0_pkts", "r0_s", "on_ramp", "dc_gain", "hollot_stable", "delay_margin_s",
                "linear_stable")
        return df.assign(**{c: [getattr(e, c) for e in eqs] for c in cols})
    if model in ("asm", "asm_fluid"):
        from ccscope.fluid.asm import GAINS_S, asm_fluid
        from ccscope.fluid.asm import solve_batch as asm_batch
        df = _product(grid, ("rate_bps",) + (("delay_s",) if model == "asm_fluid" else ()),
                      (("q0_pkts",) if model == "asm_fluid" else ()) + ASM_OPTIONAL)
        models = []
        for r in df.itertuples():
            gains = {k: getattr(r, k) if k in df else GAINS_S[k] for k in GAINS_S}
            kw = {k: getattr(r, k) for k in ("w", "p", "delay_s", "q0_pkts") if k in df}
            models.append(asm_fluid(r.rate_bps, gains=gains, **kw))
        if model == "asm":
            return df.assign(m_minus=[float(m.condition.m_minus) for m in models],
                             m_plus=[float(m.condition.m_plus) for m in models],
                             sliding=[m.condition.satisfied for m in models],
                             marginal=[m.condition.marginal for m in models],
                             sliding_rate_per_s=[m.sliding_rate_per_s for m in models])
        return pd.concat([df, asm_batch(models, backend=backend, dtype=dtype, **options)], axis=1)
    if model == "dcqcn":
        from ccscope.fluid.dcqcn import dcqcn_fluid, phase_margins
        from ccscope.fluid.dcqcn import solve_batch as dcqcn_batch
        df = _product(grid, ("rate_bps", "n_flows", "delay_s"), DCQCN_OPTIONAL)
        models = [dcqcn_fluid(r.rate_bps, r.n_flows, delay_s=r.delay_s,
                              **{k: getattr(r, k) for k in DCQCN_OPTIONAL if k in df}) for r in df.itertuples()]
        out = dcqcn_batch(models, options.pop("until_s", 0.05), backend=backend, dtype=dtype, **options)
        pms = phase_margins(models)
        return pd.concat([df, out], axis=1).assign(phase_margin_deg=[pm.degrees for pm in pms],
                                                   linear_stable=[pm.stable for pm in pms])
    if model == "timely":
        from ccscope.fluid.timely import solve_batch as timely_batch
        from ccscope.fluid.timely import timely_fluid
        if backend == "jax":
            raise ValueError("backend = 'jax': the TIMELY model (state-dependent delays) runs on numpy only")
        df = _product(grid, ("rate_bps", "r0_bps", "r1_bps"), TIMELY_OPTIONAL)
        models = [timely_fluid(r.rate_bps, **{k: getattr(r, k) for k in TIMELY_OPTIONAL if k in df})
                  for r in df.itertuples()]
        out = timely_batch(models, options.pop("until_s", 0.04), rates_bps=df[["r0_bps", "r1_bps"]].to_numpy(),
                           **options)
        return pd.concat([df, out], axis=1)
    raise ValueError(f"model = {model!r}: allowed values are {', '.join(MODELS)}")


def _sweep_dctcp(df: pd.DataFrame, *, backend: str, dtype: str, until_s: float = 0.05,
                 packet_bytes: float = PACKET_BYTES_DEFAULT, settle_fraction: float = 0.5) -> pd.DataFrame:
    """Physical DCTCP (eqs 5-8) over a grid: one batch, common step min(R*)/STEPS_PER_RSTAR."""
    for name in ("n", "rate_bps", "rtt_s"):
        check_array(name, df[name].values)
    check_array("k_pkts", df.k_pkts.values, lo=0.0, lo_open=False)
    check_array("g", df.g.values, hi=1.0)
    c = pkts_per_s(df.rate_bps.values, packet_bytes)
    r_star = df.rtt_s.values + df.k_pkts.values / c
    dt = float(r_star.min()) / STEPS_PER_RSTAR
    wbar = (c * df.rtt_s.values + df.k_pkts.values) / df.n.values
    x0 = np.stack([wbar, np.full(len(df), 0.5), df.k_pkts.values], axis=-1)
    params = {"n_flows": df.n.values[:, None], "rtt_s": df.rtt_s.values[:, None], "c_pps": c, "k_pkts": df.k_pkts.values,
                  "g": df.g.values}
    res = integrate(PHYSICAL_DDE, params, x0, delays=r_star[:, None], history=df.k_pkts.values, dt=dt,
                    until=until_s, settle=settle_fraction * until_s, level=df.k_pkts.values, backend=backend,
                    dtype=dtype)
    out = lc.monitor_arrays(res.monitor)
    return df.assign(wbar=wbar, q_min_pkts=out["q_min"], q_max_pkts=out["q_max"], period_s=out["period"],
                     throughput=out["throughput"], periodic=out["periodic"])
