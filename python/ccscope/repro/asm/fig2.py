"""asm/fig2: Q/R plane with the regions and a QCN trajectory (the fig5a scenario with QCN).

QCN as A0's baseline (w = 2, Gd = 1/128, byte counter 150 KB, timer 15 ms, R_AI 5 Mb/s, 1 % sampling,
Qeq = q0 = 64 pkts). QCN sources start at line rate (the QCN RP has no initial-rate setting): 3 Gb/s offered.

Fluid side: the QCN time-domain fluid model (`ccscope.fluid.qcn`, the model P002 App. A linearizes) with
the same N, C, Qeq, buffer and start, CNMs only while Fb < 0 (`feedback="negative"`, as 802.1Qau).
[NG] Feedback delay neglected: the loop delay of the scenario (2 links x 2 us = 4 us) is < 1 % of the
loop's fastest time constant 1/gamma = w/(pC) = 2.4 ms and of its delay margin (App. A: ~2.5 ms at
1 Gb/s), and would force a 4-us step (75 k steps). The fluid model has no timer and no HAI (App. A).
"""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, figure, verdict
from ccscope.repro.asm import _a0

ID = 'asm/fig2'
TITLE = "QCN's (q, A) trajectory circles the stable point (q0, C) before settling"
KIND = 'both'
COST = 'full: fig5 scenario with QCN, 0.5 s (< 0.1 s) + QCN fluid (~2 s); quick 0.3 s'
CLAIM = ("QCN's rate change is proportional to |Fb| and vanishes near Λ, so its (q, A) trajectory circles (q0, C), "
         "the queue swinging up and down before it settles.")


FLUID_FEEDBACK = "negative"


def _fluid(until_s: float):
    """QCN fluid trajectory for the fig5 setup; columns as the simulation's Q/R frame (time_s, qf,
    queue_pkts, rate_bps, rate_excess_bps)."""
    from ccscope.fluid.qcn import qcn_fluid

    p = _a0.FIG5_PARAMS
    m = qcn_fluid(p["rate_bps"], p["n"], qeq_pkts=p["q0_pkts"], buffer_pkts=p["buffer_pkts"], feedback=FLUID_FEEDBACK)
    tr = m.solve(until_s, record_every=5).traces
    return m, tr.assign(qf=tr.queue_offset_pkts, rate_bps=tr.aggregate_rate_bps,
                        rate_excess_bps=tr.aggregate_rate_bps - p["rate_bps"])


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
    m, fl = _fluid(until)
    wf, tf0, tf1 = _winding(fl)
    b = m.bound
    return Run(params={**_a0.FIG5_PARAMS, "algo": "qcn", "until_s": until, "qcn_start": "line rate",
                       "fluid_feedback": FLUID_FEEDBACK, "fluid_delay_s": 0.0, "fluid_dt_s": m.default_dt_s()},
               frames={"qcn": qr_q.assign(algo="qcn"), "asm": qr_a.assign(algo="asm"),
                       "fluid": fl[["time_s", "qf", "queue_pkts", "rate_bps", "rate_excess_bps", "target_rate_pps"]]},
               values={"qcn_winding_rad": wq, "from_s": t0, "to_s": t1, "fluid_winding_rad": wf,
                       "fluid_from_s": tf0, "fluid_to_s": tf1, "fluid_q_final_pkts": float(fl.queue_pkts.iloc[-1]),
                       "fluid_rate_final_bps": float(fl.rate_bps.iloc[-1]),
                       "fluid_poles_complex": bool(_closed_loop_complex(b))},
               errata=[{"id": "E33", "paper": "gamma = N a4/a3", "corrected": "gamma = pC/w"}], seeds=[1], quick=quick)


def _closed_loop_complex(b) -> bool:
    """Does 1 + G(s) = 0 at tau = 0 (eq 18, E33) have a complex pair (a spiral around (q0, C))?"""
    roots = np.roots([1, b.beta + b.a3, b.alpha + b.a3 * (b.b + b.gamma), b.a3 * b.b * b.gamma])
    return bool(np.any(np.abs(roots.imag) > 0))

PAPER_NUMBERS = ("802.1Qau",)
CAUSE = ("Fluid model (App. A's QCN model, 802.1Qau negative-only feedback, delay neglected): the linearized loop "
         "has a complex pole pair, so the fluid trajectory spirals into (q0, C), but it is damped strongly enough to "
         "turn only {v.fluid_winding_rad:.2f} rad before settling (diagnostic winding row). The repeated circling of "
         "the packet run comes from what the mean-field model averages out (sampling, quantization, byte-counter and "
         "timer cycles); in the fluid model QCN circles persistently only beyond the App. A delay margin.")


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    c.add("QCN winding around (q0, C) (rad)", v["qcn_winding_rad"], v["qcn_winding_rad"] >= 2 * np.pi, "≥ 2π",
          "at least one full loop (FIGURES.md)")
    if "fluid_winding_rad" in v:
        # advisory: FIGURES.md defines the winding rule for the simulation; the mean-field model is a damped
        # spiral (see below) whose turns before |Qf| < 0.1 q0 depend on the start, so it is only reported
        c.add("[diagnostic] fluid model: QCN winding around (q0, C) until |Qf| < 0.1 q0 (rad)", v["fluid_winding_rad"],
              v["fluid_winding_rad"] >= 2 * np.pi, "≥ 2π", "same rule as the simulation (a second reading)")
        c.add("fluid model: linearized loop (App. A, tau = 0) has a complex pole pair", v["fluid_poles_complex"],
              v["fluid_poles_complex"], "True", "exact (spiral around the stable point)")
        # settles: within 1 % of q0 and of C at the end (the fluid has no sampling noise)
        c.within("fluid model: final queue (pkts)", v["fluid_q_final_pkts"], 0.99 * 64, 1.01 * 64, "q0 ± 1%")
        c.within("fluid model: final aggregate rate (Gb/s)", v["fluid_rate_final_bps"] / 1e9, 0.99, 1.01, "C ± 1%")
    return verdict(c, v, tolerance="≥ one full loop; ASM contrast in fig5b (< π)",
                   cause_values={"fluid_winding_rad": v.get("fluid_winding_rad", float("nan"))})


def plot(run: Run):
    fig, axes = figure(1, 1, width=6.4, height=4.8)
    ax = axes[0, 0]
    _a0.plot_qr(ax, run.frames["qcn"], 1e9, 64, "QCN simulation")
    if "fluid" in run.frames:
        fl = run.frames["fluid"]
        ax.plot(fl.queue_pkts, fl.rate_bps / 1e9, color="tab:green", lw=1.2, label="QCN fluid model (App. A)")
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
