"""dctcp-analysis/fig2-n100: N = 100, wbar = 1.48 <= 2 -- the fixed point (W, alpha, q) = (2, 1, 2N - Cd).

Erratum E2: §3.1 prints W = 2/wbar; the fixed point is W = 2. dctcp-8: the ~117-pkt queue needs the ns-2
rule that an ACK carrying ECN-Echo does not grow cwnd (used here: `ecn_echo_blocks_growth = true`).
"""
from __future__ import annotations

from ccscope.analysis.metrics import mean_flow_throughput
from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dctcp_analysis import _fig2 as f2

ID = "dctcp-analysis/fig2-n100"
TITLE = "N = 100: fixed point W = 2, alpha = 1, q ~ 117 pkts"
KIND = "both"
COST = "0.1 s at 10 Gb/s (~2 s); quick 20 ms"
CLAIM = "Every packet is marked, windows sit at 2 pkts, the queue is ~117 pkts (text: ~120) with K = 65; 100 Mb/s per flow."
N = 100
Q_FP = 2 * N - f2.C_BPS / 12000 * f2.D_S


def run(quick: bool) -> Run:
    until = 0.02 if quick else 0.1
    t0 = until / 2
    res = f2.simulate(N, until, delivered=True)
    # the fixed point is exact for any step: R*/50 over 0.1 s lets alpha settle (rate g per R*)
    fl = f2.fluid(N, 0.1, steps_per_rstar=50)
    st = f2.sim_stats(res, t0)
    thr = mean_flow_throughput(res, start_s=t0)
    st.update({"flow_thr_min_bps": float(thr.min()), "flow_thr_max_bps": float(thr.max()), "n_flows": int(len(thr))})
    fl_last = fl.traces.iloc[-1]
    return Run(params={**f2.PARAMS, "n": N, "until_s": until, "compare_from_s": t0}, frames=f2.frames(res, fl, t0),
               values={"sim": st, "fluid_q": float(fl_last.queue_pkts), "fluid_w": float(fl_last.window_pkts)},
               errata=[{"id": "E2", "paper": "W = 2/wbar", "corrected": "W = 2"}], seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, s = Checks(), run.values["sim"]
    c.near("sim mean queue", s["q_mean"], Q_FP, 5.0, "+-5 pkts (ns-2 growth rule)")
    c.add("every flow's alpha", s["alpha_min_flow"], s["alpha_min_flow"] >= 0.95, ">= 0.95", "all packets marked")
    c.near("mean cwnd", s["mean_w"], 2.0, 0.1, "2-pkt floor")
    # §3.1: "each flow gets 100 Mb/s" (C/N); +-5 Mb/s (FIGURES.md) for every flow: the extremes over the N flows
    c.add("every flow's throughput (min, max)", [s["flow_thr_min_bps"], s["flow_thr_max_bps"]],
          95e6 <= s["flow_thr_min_bps"] and s["flow_thr_max_bps"] <= 105e6, "100 ± 5 Mb/s", "C/N, every flow")
    c.add("utilization", s["utilization"], s["utilization"] >= 0.995, ">= 99.5%", "standing queue")
    c.near("fluid fixed-point queue", run.values["fluid_q"], Q_FP, 1.0, "eqs 5-8 settle at 2N - Cd")
    return verdict(c, {"sim": s, "fluid_q": run.values["fluid_q"], "q_fixed_point": Q_FP})


def plot(run: Run):
    from ccscope.repro._base import ref_line
    fig = f2.plot_side_by_side(run, "DCTCP N = 100: fixed point (Fig. 2, N = 100)")
    ref_line(fig.axes[0], Q_FP, f"2N - Cd = {Q_FP:.1f} pkts")
    fig.axes[0].legend(fontsize=7, loc="lower right")
    return fig
