"""asm/fig2: Q/R plane with the regions and a QCN trajectory (the fig5a scenario with QCN).

QCN as A0's baseline (w = 2, Gd = 1/128, byte counter 150 KB, timer 15 ms, R_AI 5 Mb/s, 1 % sampling,
Qeq = q0 = 64 pkts). QCN sources start at line rate (the QCN RP has no initial-rate setting): 3 Gb/s offered.
"""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig2'
TITLE = "QCN's (q, A) trajectory circles the stable point (q0, C) before settling"
KIND = 'both'
STATUS = "reproduced"
COST = 'full: fig5 scenario with QCN, 0.5 s (< 0.1 s); quick 0.3 s'
CLAIM = ("QCN's rate change is proportional to |Fb| and vanishes near Λ, so its (q, A) trajectory circles (q0, C), "
         "the queue swinging up and down before it settles.")


def _winding(qr):
    t, qf = qr.time_s.to_numpy(), qr.qf.to_numpy()
    k0 = int(np.argmax(qf >= 0))
    small = np.abs(qf) < 0.1 * 64
    k1 = len(t) - 1
    # end: |Qf| < 0.1 q0 held for 50 ms
    run_start = None
    for i in range(k0, len(t)):
        if small[i]:
            run_start = i if run_start is None else run_start
            if t[i] - t[run_start] >= 0.05:
                k1 = run_start
                break
        else:
            run_start = None
    x, y = qf / 64, qr.rate_excess_bps.to_numpy() / 1e9
    return _a0.winding(x[k0:k1 + 1], y[k0:k1 + 1]), float(t[k0]), float(t[k1])


def run(quick: bool) -> Run:
    _, qr_q, until = _a0.fig5_run("qcn", quick)
    _, qr_a, _ = _a0.fig5_run("asm", quick)
    wq, t0, t1 = _winding(qr_q)
    return Run(params={**_a0.FIG5_PARAMS, "algo": "qcn", "until_s": until, "qcn_start": "line rate"},
               frames={"qcn": qr_q.assign(algo="qcn"), "asm": qr_a.assign(algo="asm")},
               values={"qcn_winding_rad": wq, "from_s": t0, "to_s": t1}, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    c.add("QCN winding around (q0, C) (rad)", v["qcn_winding_rad"], v["qcn_winding_rad"] >= 2 * np.pi, "≥ 2π",
          "at least one full loop (FIGURES.md)")
    return verdict(c, v, tolerance="≥ one full loop; ASM contrast in fig5b (< π)")


def plot(run: Run):
    fig, axes = figure(1, 1, width=6.4, height=4.8)
    ax = axes[0, 0]
    _a0.plot_qr(ax, run.frames["qcn"], 1e9, 64, "QCN simulation")
    qs = np.linspace(0, 128, 20)
    c_pps = 1e9 / 12000
    ax.plot(qs, (c_pps - 0.01 * c_pps / 2 * (qs - 64)) * 12000 / 1e9, "r:", lw=0.8, label="QCN Λ (w = 2)")
    for txt, (x, y) in {"I": (96, 1.6), "II": (32, 1.6), "III": (32, 0.4), "IV": (96, 0.4)}.items():
        ax.text(x, y, txt, fontsize=9, color="0.4")
    ax.set_ylim(0, 3.2)
    ax.set_title("Q/R plane and a QCN trajectory (Fig. 2)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
