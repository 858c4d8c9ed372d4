"""dx/text-equilibrium: equilibrium (eqs 5-8), linearization (9-11), loop (12), crossover (16), bound (17, E50)."""
from __future__ import annotations

import numpy as np

from ccscope.fluid.dx import equilibrium, loop
from ccscope.repro._base import Checks, Run, figure, known_inconsistency, verdict
from ccscope.repro.dx._bound import ERRATA

ID = "dx/text-equilibrium"
TITLE = "DX equilibrium, linearization, transfer function and crossover are self-consistent"
KIND = "fluid"
COST = "closed form"
CLAIM = "Eqs 5-8 give Q0; eqs 9-11 linearize eqs 3-4; |G(j w_c)| = 1; at tau* (corrected eq 17) G(j w_c) = -1. [DER] N = 50, R0 = 80 us: Q0 = 8.8 us, W0 = 2220 B, tau* = 105.05 us."
N, C, R0, P, SEG = 50, 10e9, 80e-6, 0.95, 1500.0


def _field(w, q, qd):
    c = C / 8
    r = R0 + qd
    return np.array([SEG * (1 - P) / r - P * qd * (w - SEG) / (R0 * r), N * w / (c * r) - 1.0])


def run(quick: bool) -> Run:
    e = equilibrium(N, C, R0)
    # eq 9: d/dt (dW, dQ) = [[a1, a2],[b1, b2]] (dW, dQ(t - tau)) -- a1 on W, a2 on the delayed Q, and
    # dQ/dt depends on W and Q through R = R0 + Q
    h = 1e-6
    _ = C / 8
    fw = (_field(e.w0_bytes * (1 + h), e.q0_s, e.q0_s) - _field(e.w0_bytes * (1 - h), e.q0_s, e.q0_s)) / (2 * h * e.w0_bytes)
    fq = (_field(e.w0_bytes, e.q0_s, e.q0_s * (1 + h)) - _field(e.w0_bytes, e.q0_s, e.q0_s * (1 - h))) / (2 * h * e.q0_s)
    g = loop(e)
    resp = complex(g.response(e.crossover_rad_s))
    g_star = loop(e, delay_s=e.bound_s)
    resp_star = complex(g_star.response(e.crossover_rad_s))
    return Run(params={"n": N, "rate_bps": C, "r0_s": R0, "p": P},
               values={"q0_us": e.q0_s * 1e6, "w0_bytes": e.w0_bytes, "bound_us": e.bound_s * 1e6,
                       "bound_printed_us": e.bound_printed_s * 1e6, "eq5": float(_field(e.w0_bytes, e.q0_s, e.q0_s)[0]),
                       "eq6": float(_field(e.w0_bytes, e.q0_s, e.q0_s)[1]),
                       "a1_fd": float(fw[0]), "a1": e.a1, "a2_fd": float(fq[0]), "a2": e.a2,
                       "b1_fd": float(fw[1]), "b1": e.b1, "b2_fd": float(fq[1]), "b2": e.b2,
                       "abs_g_wc": abs(resp), "g_at_bound": [resp_star.real, resp_star.imag]},
               errata=ERRATA, quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    c.add("eq 5 residual (dW/dt at equilibrium)", abs(v["eq5"]), abs(v["eq5"]) < 1e-12 * 1e7, "~ 0 (1e-12 rel)", "float")
    c.add("eq 6 residual (dQ/dt)", abs(v["eq6"]), abs(v["eq6"]) < 1e-12, "< 1e-12", "float")
    for k in ("a1", "a2", "b1", "b2"):
        rel = abs(v[f"{k}_fd"] - v[k]) / abs(v[k])
        # 1e-6: central difference with step 1e-6 relative has truncation error ~1e-12 and rounding ~1e-10
        c.add(f"{k}: finite difference vs eq 11", rel, rel < 1e-6, "< 1e-6 relative", "central difference")
    c.near("|G(j w_c)|", v["abs_g_wc"], 1.0, 1e-9, "eq 16 definition")
    c.near("Re G(j w_c) at tau*", v["g_at_bound"][0], -1.0, 1e-9, "E50 sign fix")
    c.near("Im G(j w_c) at tau*", v["g_at_bound"][1], 0.0, 1e-9, "E50 sign fix")
    c.near("Q0 (us)", v["q0_us"], 8.8, 0.05, "[DER]")
    c.near("W0 (B)", v["w0_bytes"], 2220, 5, "[DER]")
    c.near("tau* (us)", v["bound_us"], 105.05, 0.01, "[DER]")
    c.add("printed eq 17 is negative", v["bound_printed_us"], v["bound_printed_us"] < 0, "< 0", "erratum E50",
          advisory=True, basis=known_inconsistency("dx", 2))
    return verdict(c, {k: v[k] for k in ("q0_us", "w0_bytes", "bound_us", "bound_printed_us", "abs_g_wc")})


def plot(run: Run):
    from ccscope.fluid.dx import equilibrium, loop
    e = equilibrium(N, C, R0)
    g = loop(e, delay_s=e.bound_s)
    w = np.geomspace(e.crossover_rad_s / 100, e.crossover_rad_s * 100, 400)
    r = g.response(w)
    fig, axes = figure(2, 1, width=6, height=5.5, sharex=True)
    axes[0, 0].loglog(w, np.abs(r), label="|G(jw)|, tau = tau*")
    axes[0, 0].axhline(1, ls="--", color="0.3", label="|G| = 1")
    axes[0, 0].axvline(e.crossover_rad_s, ls=":", color="C3", label="w_c (eq 16)")
    axes[0, 0].set_ylabel("gain")
    axes[0, 0].legend(fontsize=8)
    axes[0, 0].set_title("DX loop at the corrected bound tau* = 105.05 us (N = 50, R0 = 80 us)")
    axes[1, 0].semilogx(w, np.degrees(np.unwrap(np.angle(r))), label="phase")
    axes[1, 0].axhline(-180, ls="--", color="0.3", label="-180 deg")
    axes[1, 0].axvline(e.crossover_rad_s, ls=":", color="C3")
    axes[1, 0].set_xlabel("frequency (rad/s)")
    axes[1, 0].set_ylabel("phase (deg)")
    axes[1, 0].legend(fontsize=8)
    return fig
