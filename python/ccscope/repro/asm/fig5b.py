"""asm/fig5b: the fig5a run in the Q/R plane: straight approach, then chattering around (q0, C).

Approach = until |Qf| + |ΔQ| < B0 first holds, with ΔQ the queue change over the mean gap between two
feedbacks at 1 Gb/s (1/p = 100 pkts ≈ 1.2 ms). Fb = −(Qf + w/(pC)(A − C)) in the plane (eq 27).
"""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig5b'
TITLE = 'same run in the Q/R plane: straight approach, then chattering at the stable point'
KIND = 'sim'
COST = 'full: reuses fig5a (< 0.1 s); quick reuses quick fig5a'
CLAIM = 'The path heads straight for the stable point and then chatters around it, as ideal sliding mode does.'
GAP_S = 100 * 12000 / 1e9


def _analyse(qr):
    t, qf = qr.time_s.to_numpy(), qr.qf.to_numpy()
    q_prev = np.interp(t - GAP_S, t, qr.queue_pkts.to_numpy(), left=0.0)
    dq = qr.queue_pkts.to_numpy() - q_prev
    near = (np.abs(qf) + np.abs(dq) < _a0.B0) & (t > GAP_S)
    k_end = int(np.argmax(near)) if near.any() else len(t) - 1
    x, y = qf / 64, qr.rate_excess_bps.to_numpy() / 1e9
    wind = _a0.winding(x[: k_end + 1], y[: k_end + 1])
    fb = _a0.fb_plane(qr, 1e9)
    k_lam = int(np.argmax(np.sign(fb[1:]) != np.sign(fb[:-1]))) + 1  # first crossing of Λ
    frac = float(np.mean(np.abs(fb[k_lam:]) <= _a0.B_F))
    return {"approach_end_s": float(t[k_end]), "approach_winding_rad": wind, "lambda_first_s": float(t[k_lam]),
            "frac_fb_within_bf": frac}


def run(quick: bool) -> Run:
    res, qr, until = _a0.fig5_run("asm", quick)
    return Run(params={**_a0.FIG5_PARAMS, "until_s": until, "dq_gap_s": GAP_S}, frames={"qr": qr},
               values=_analyse(qr), seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    c.add("approach winding around (q0, C) (rad)", v["approach_winding_rad"], v["approach_winding_rad"] < np.pi, "< π",
          "straight approach (FIGURES.md)")
    # 80%: chattering crosses Λ each feedback; |Fb| ≤ B_F is the sliding set's own band
    c.add("share of samples with |Fb| ≤ B_F after Λ", v["frac_fb_within_bf"], v["frac_fb_within_bf"] >= 0.8, "≥ 0.8",
          "FIGURES.md")
    return verdict(c, v, tolerance="winding < π; ≥ 80% in the B_F band")


def plot(run: Run):
    fig, axes = figure(1, 1, width=6, height=4.5)
    _a0.plot_qr(axes[0, 0], run.frames["qr"], 1e9, 64, "ASM simulation")
    axes[0, 0].set_title("ASM in the Q/R plane (Fig. 5b)", fontsize=9)
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig
