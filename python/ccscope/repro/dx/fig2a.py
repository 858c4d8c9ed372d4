"""dx/fig2a: model vs simulation, N = 50, R0 = 20 us (special state): queue ~33-35 pkts.

Setup Y0 (`_y0`); fluid eqs 3-4 with the W >= seg clamp, p = 0.95, tau = R0 (`cc.fluid.dx`)."""
from __future__ import annotations


import ccscope as cc
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict
from ccscope.repro.dx import _y0

ID = "dx/fig2a"
TITLE = "N=50, R0=20 µs (special state): model and sim queue ≈ 33–35 pkts"
KIND = "both"
COST = "0.3 s x 10 Gb/s (~0.2 s wall); quick 50 ms"
CLAIM = ("N = 50, R0 = 20 us is in the special state (N >= C R0/seg = 16.7): the model's queue is close to the "
         "simulation's, ~33-35 pkts (Theorem 2: N - C R0/seg = 33.3 pkts, Q* = 40 us).")
N, R0_US = 50, 20.0


def fluid(n: int, r0_us: float, quick: bool):
    """Eqs 3-4 from 1.2 W0 and an empty queue; dt = tau/20 (the default tau/200 costs 10x for a change
    < 0.1 % in the settled queue); 10 ms quick / 50 ms full; statistics over the second half."""
    r0 = r0_us * 1e-6
    return cc.fluid.dx(n, 10e9, r0).solve(0.01 if quick else 0.05, dt_s=r0 / 20)


def run(quick: bool) -> Run:
    until = 0.05 if quick else 0.3
    st, q = _y0.run_y0(N, R0_US, until_s=until)
    fl = fluid(N, R0_US, quick)
    tr = fl.traces
    tr = tr[tr.time_s >= tr.time_s.iloc[-1] / 2]
    fq = tr.queue_delay_s * 10e9 / (_y0.SEG * 8)
    return Run(params={**_y0.PARAMS, "n": N, "r0_us": R0_US, "until_s": until, "fluid": "p = 0.95, tau = R0, W >= seg, dt = tau/20, stats over 2nd half"},
               frames={"sim_queue": q, "fluid": fl.traces.assign(queue_pkts=fl.traces.queue_delay_s * 10e9 / (_y0.SEG * 8))},
               values={"sim": st, "fluid_q_mean": float(fq.mean()), "fluid_w_last": float(fl.traces.window_bytes.iloc[-1] / _y0.SEG),
                       "q_star": N - _y0.special_threshold(R0_US)}, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, s, qs = Checks(), run.values["sim"], run.values["q_star"]
    # +-2 pkts: with W pinned at 1 seg the queue is N minus the packets in flight; ACK and serialization terms
    c.near("sim mean queue (pkts)", s["queue_mean_pkts"], qs, 2.0, "Theorem 2 +-2 pkts")
    # +-5 %: the fluid keeps a (1 - p) seg/RTT growth term, so it settles at W = 1.03 seg, 34.6 pkts [DER]
    c.rel("fluid mean queue vs sim (pkts)", run.values["fluid_q_mean"], s["queue_mean_pkts"], 0.05, "+-5 % (fixed-p growth term)")
    c.add("utilization", s["utilization"], s["utilization"] >= 0.998, ">= 99.8 %", "queue never empties")
    return verdict(c, {"sim_queue_pkts": s["queue_mean_pkts"], "fluid_queue_pkts": run.values["fluid_q_mean"],
                       "fluid_w_seg": run.values["fluid_w_last"], "utilization": s["utilization"], "q_star_pkts": qs})


def plot(run: Run):
    fig, ax = figure(width=7, height=4)
    ax = ax[0, 0]
    q, f = run.frames["sim_queue"], run.frames["fluid"]
    ax.plot(q.time_s * 1e3, q.queue_pkts, lw=0.6, label="ccscope packet sim")
    ax.plot(f.time_s * 1e3, f.queue_pkts, lw=1.2, label="fluid eqs 3-4 (p = 0.95, tau = R0, W >= 1 seg)")
    ref_line(ax, run.values["q_star"], "Theorem 2: N - C R0/seg = 33.3 pkts")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("queue length (pkts)")
    ax.set_title("DX N = 50, R0 = 20 us: model vs simulation (Fig. 2a)")
    ax.legend(fontsize=8)
    return fig
