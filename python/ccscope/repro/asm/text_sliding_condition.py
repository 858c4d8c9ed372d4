"""asm/text-sliding-condition: ineq. 15 (via eq 28) decides sliding on Lambda; on Lambda q - q0 decays as
exp(-pC t/w) whatever the gains (eq 16).

Fluid model ccscope.fluid.asm (eq 26 with N alpha, E38; region switch of E34). E39: "b- != 0 is sufficient"
is false -- the condition is b- > w a- + pC/w in per-feedback units; the §5.1 defaults sit exactly on
the boundary (w a- - b- = 0).
"""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.asm import _fl

ID = 'asm/text-sliding-condition'
TITLE = 'sliding on Λ iff ineq. (15); along Λ, q−q0 decays as exp(−pC·t/w)'
KIND = 'fluid'
COST = 'full: 3 gain sets × 8 starts fluid (~3 s); quick same'
CLAIM = ('Sliding on Λ requires Fb·dFb/dt ≤ 0 there, i.e. ineq. 15: M(a-, b-) < 0 < M(a+, b+) with '
         'M = 1 + w(wa − b)/(pC); on Λ the queue offset decays as exp(−pC t/w) independent of the gains.')


def _eq28_residual(m) -> float:
    """dFb/dt evaluated from eq 26 at points of Lambda minus the closed form -x2 M(a, b) (eq 28)."""
    k = m.w / (m.p * m.c_pps)
    worst = 0.0
    for a, b in ((m.gains["a_plus"], m.gains["b_plus"]), (m.gains["a_minus"], m.gains["b_minus"])):
        for x2 in np.linspace(-0.5 * m.c_pps, 0.5 * m.c_pps, 11):
            x1 = -k * x2                                  # a point of Lambda
            dx1, dx2 = x2, -m.p * m.c_pps * a * x1 - b * x2
            dfb = -dx1 - k * dx2
            closed = -x2 * (1 + k * (m.w * a - b))
            worst = max(worst, abs(dfb - closed) / max(1.0, abs(x2)))
    return worst


def run(quick: bool) -> Run:
    vals, frames = {}, {}
    for name, g in (("default", _fl.DEFAULT), ("compliant", _fl.COMPLIANT), ("violating", _fl.VIOLATING)):
        m, tr = _fl.run_set(g)
        a = _fl.analyse(m, tr)
        c = m.condition
        vals[name] = {"gains": {k: float(v) for k, v in g.items()}, "satisfied": c.satisfied, "marginal": c.marginal,
                      "m_minus": float(c.m_minus), "m_plus": float(c.m_plus), "b_minus_required": float(c.b_minus_required),
                      "eq28_residual": _eq28_residual(m), "pc_over_w": a["pc_over_w"],
                      "stays": [r["stays"] for r in a["per_traj"]],
                      "crossings": [r["lambda_crossings"] for r in a["per_traj"]],
                      "decay": [r["decay_per_s"] for r in a["per_traj"]]}
        frames[name] = tr.assign(set=name)
    import pandas as pd
    return Run(params={"rate_bps": _fl.RATE, "q0_pkts": _fl.Q0, "w": 32, "p": 0.01, "starts": 8,
                       "start_radius": "(q0, 0.5 C)", "band": "|Fb| <= 0.05 q0"},
               frames={"traj": pd.concat(frames.values(), ignore_index=True)}, values=vals,
               errata=[{"id": "E38", "paper": "eqs 13, 29: alpha", "corrected": "N alpha (eq 26)"},
                       {"id": "E39", "paper": "b- != 0 is sufficient", "corrected": "b- > w a- + pC/w (per feedback)"}],
               quick=quick)

CAUSE = ("The §5.1 default gains sit exactly on the boundary of ineq. 15 (w a- = b-, M(a-, b-) = {v.m:.3g}): "
         "they do not slide; the trajectory follows the slow parabola eigenvector at {v.decay:.1f}/s instead of "
         "pC/w = {v.pcw:.1f}/s (E39; FIGURES.md known inconsistency asm item 6).")


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    # eq 28 is an algebraic identity: only float round-off may remain
    c.add("eq 28 identity (max residual)", max(v[k]["eq28_residual"] for k in v),
          max(v[k]["eq28_residual"] for k in v) < 1e-6, "< 1e-6", "round-off")
    comp, viol, dflt = v["compliant"], v["violating"], v["default"]
    c.add("compliant set satisfies (15)", comp["satisfied"], comp["satisfied"], "True", "exact")
    c.add("compliant: every start stays on Λ", sum(comp["stays"]), all(comp["stays"]), "8 of 8", "band 0.05 q0")
    worst = max(abs(d / comp["pc_over_w"] - 1) for d in comp["decay"])
    # ±5%: eq 16 is exact on Lambda; the residual is the chattering band |Fb| <= 0.05 q0 and the fit window
    c.add("compliant: decay rate / (pC/w) − 1 (worst)", worst, worst <= 0.05, "≤ 5%", "FIGURES.md ±5%")
    c.add("b- = 0 violates (15)", viol["satisfied"], not viol["satisfied"], "False", "exact")
    c.add("b- = 0: trajectories cross Λ repeatedly", min(viol["crossings"]), min(viol["crossings"]) >= 3, "≥ 3 crossings",
          "spiral through Λ")
    c.add("E39: defaults (b- ≠ 0) do not satisfy (15)", dflt["m_minus"], not dflt["satisfied"], "M(a-, b-) ≥ 0",
          "b- ≠ 0 is not sufficient")
    return verdict(c, {k: {kk: v[k][kk] for kk in ("satisfied", "marginal", "m_minus", "m_plus", "b_minus_required")}
                       | {"decay_mean": float(np.nanmean(v[k]["decay"])), "pc_over_w": v[k]["pc_over_w"],
                          "stay_count": int(sum(v[k]["stays"]))} for k in v},
                   tolerance="decay within 5% of pC/w (eq 16)",
                   cause_values={"m": v["default"]["m_minus"], "decay": float(np.nanmean(v["default"]["decay"])),
                                 "pcw": v["default"]["pc_over_w"]})


def plot(run: Run):
    from ccscope.fluid import asm as fa
    fig, axes = figure(1, 3, width=13, height=4)
    tr = run.frames["traj"]
    for ax, name in zip(axes[0], ("compliant", "default", "violating")):
        m = fa.asm_fluid(_fl.RATE, gains={k: v for k, v in run.values[name]["gains"].items()})
        _fl.plot_plane(ax, m, tr[tr.set == name], f"{name}: b- = {run.values[name]['gains']['b_minus']:.3g} C/128, "
                       f"(15) {'holds' if run.values[name]['satisfied'] else 'fails'}")
    fig.tight_layout()
    return fig
