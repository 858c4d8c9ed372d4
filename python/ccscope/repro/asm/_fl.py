"""Shared fluid runs of the ASM Q/R-plane model (eq 26 + the region switch of eq 12, E34/E38) for
`asm/fig3` and `asm/text-sliding-condition`: 8 starts on a circle around (q0, C), the reach time of
the band |Fb| <= 0.05 q0 and the fitted decay of q - q0 afterwards (eq 16: pC/w)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from ccscope.fluid import asm as fa

Q0 = 64.0
RATE = 1e9
#: the §5.1 sliding set S (defaults) and a set that satisfies ineq. 15: b- = 2 w a- (E39: b- must exceed
#: w a- + 128 p / w = 0.29 in C/128 units at any C, so 2 w a- = 0.5 clears it by a margin of 0.21).
DEFAULT = dict(fa.GAINS_S)
COMPLIANT = {**fa.GAINS_S, "b_minus": 2 * fa.W_ASM * fa.GAINS_S["a_minus"]}
VIOLATING = {**fa.GAINS_S, "b_minus": Fraction(0)}


def starts(m: fa.AsmFluid, n: int = 8):
    th = 2 * np.pi * np.arange(n) / n + np.pi / n
    return Q0 * np.cos(th), 0.5 * m.c_pps * np.sin(th)


def run_set(gains: dict, *, n: int = 8, until_tau: float = 8.0):
    m = fa.asm_fluid(RATE, gains=gains)
    x1, x2 = starts(m, n)
    res = m.solve(x1, x2, until_s=until_tau / m.sliding_rate_per_s, record_every=4)
    return m, res.traces


def analyse(m: fa.AsmFluid, tr: pd.DataFrame) -> dict:
    """Per trajectory: reach time of |Fb| <= 0.05 q0, whether it stays there (after a 1-tau grace for
    the chattering switch), crossings of Lambda after reaching, and the fitted decay rate of |q - q0|."""
    out = []
    band = 0.05 * Q0
    tau = 1 / m.sliding_rate_per_s
    for i, g in tr.groupby("traj"):
        t, x1, fb = g.time_s.to_numpy(), g.queue_offset_pkts.to_numpy(), g.fb_pkts.to_numpy()
        inb = np.abs(fb) <= band
        k = int(np.argmax(inb)) if inb.any() else None
        if k is None:
            out.append({"traj": i, "reach_s": np.nan, "stays": False, "decay_per_s": np.nan, "lambda_crossings": 0})
            continue
        stays = bool(inb[k:].all())
        after = slice(k, None)
        # fit over |x1| between 50% and 0.1% of its value at the reach point (the exponential part)
        ax = np.abs(x1[after])
        tt = t[after]
        sel = (ax < 0.5 * ax[0]) & (ax > 1e-3 * ax[0])
        rate = float(-np.polyfit(tt[sel], np.log(ax[sel]), 1)[0]) if sel.sum() > 5 else np.nan
        sgn = np.sign(fb[after])
        sgn = sgn[sgn != 0]
        out.append({"traj": i, "reach_s": float(t[k]), "stays": stays, "decay_per_s": rate,
                    "lambda_crossings": int(np.sum(sgn[1:] != sgn[:-1])), "tau_s": tau})
    return {"per_traj": out, "pc_over_w": m.sliding_rate_per_s}


def roots(m: fa.AsmFluid) -> dict:
    pc = m.p * m.c_pps
    rp = fa.characteristic_roots(m.gains["a_plus"], m.gains["b_plus"], p=m.p, c_pps=m.c_pps)
    rm = fa.characteristic_roots(m.gains["a_minus"], m.gains["b_minus"], p=m.p, c_pps=m.c_pps)
    return {"plus_complex": bool(np.any(np.abs(rp.imag) > 0)), "plus_re_neg": bool(np.all(rp.real < 0)),
            "minus_real_distinct": bool(np.all(np.abs(rm.imag) == 0) and abs(rm[0] - rm[1]) > 1e-9 * abs(rm[0])),
            "minus_neg": bool(np.all(rm.real < 0)), "plus": [complex(r) for r in rp], "minus": [complex(r) for r in rm],
            "pc": pc}


def plot_plane(ax, m: fa.AsmFluid, tr: pd.DataFrame, title: str):
    from ccscope.repro._base import ref_line
    for i, g in tr.groupby("traj"):
        ax.plot(Q0 + g.queue_offset_pkts, (m.c_pps + g.rate_excess_pps) * 12000 / 1e9, lw=0.9)
    qs = np.linspace(0, 2 * Q0, 50)
    lam = m.c_pps - m.p * m.c_pps / m.w * (qs - Q0)
    ax.plot(qs, lam * 12000 / 1e9, "k--", lw=1, label="Λ: Fb = 0")
    ref_line(ax, Q0, "q = q0", vertical=True)
    ref_line(ax, RATE / 1e9, "A = C")
    ax.set_xlabel("queue q (pkts)")
    ax.set_ylabel("aggregate rate A (Gb/s)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
