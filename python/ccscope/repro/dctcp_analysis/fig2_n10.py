"""dctcp-analysis/fig2-n10: fluid model (eqs 5-8) vs packet simulation, N = 10 (limit-cycle regime)."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dctcp_analysis import _fig2 as f2

CAUSE = f2.CAUSE

ID = "dctcp-analysis/fig2-n10"
TITLE = "Fluid model vs packet simulation, N = 10"
KIND = "both"
COST = "0.1 s at 10 Gb/s (~1 s) + 1 DDE run; quick 30 ms"
CLAIM = ("The fluid model tracks the simulation; [DER] fluid limit cycle q in [44.2, 76.5] pkts, period "
         "1.35 ms, 100% throughput.")
N = 10
DER = {"q_min": 44.2, "q_max": 76.5, "period_s": 1.35e-3}


def run(quick: bool) -> Run:
    until = 0.03 if quick else 0.1
    t0 = until / 2
    res = f2.simulate(N, until)
    # quick: R*/200 steps (limit-cycle extremes change < 0.5% vs R*/500)
    fl = f2.fluid(N, 0.03 if quick else 0.06, steps_per_rstar=200 if quick else 500)
    st = f2.sim_stats(res, t0)
    lc = fl.limit_cycle
    ft = fl.traces[fl.traces.time_s >= fl.traces.time_s.max() / 2]
    return Run(params={**f2.PARAMS, "n": N, "until_s": until, "compare_from_s": t0}, frames=f2.frames(res, fl, t0),
               values={"sim": st, "fluid": {"q_min": lc.q_min, "q_max": lc.q_max, "period_s": lc.period,
                                              "q_mean": float(ft.queue_pkts.mean()), "w_mean": float(ft.window_pkts.mean()),
                                              "marked_frac": float((ft.queue_pkts > f2.K).mean())}},
               seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    s, f = run.values["sim"], run.values["fluid"]
    c.rel("fluid q_min vs [DER]", f["q_min"], DER["q_min"], 0.02, "DDE step R*/500")
    c.rel("fluid q_max vs [DER]", f["q_max"], DER["q_max"], 0.02, "DDE step R*/500")
    # +-30%: the fluid model averages out per-packet steps (1 pkt/RTT/flow) and the ACK clock
    c.rel("sim queue amplitude (p98 - p2)", s["q_p98"] - s["q_p2"], DER["q_max"] - DER["q_min"], 0.30, "packet granularity")
    c.near("sim mean queue vs fluid mean", s["q_mean"], f["q_mean"], 5.0, "+-5 pkts")
    period_ok = f2.period_check(c, s["period_s"], DER["period_s"])
    c.rel("sim sum W vs N x fluid mean W", s["sum_w"], N * f["w_mean"], 0.10, "+-10%")
    c.add("utilization", s["utilization"], s["utilization"] >= 0.995, ">= 99.5%", "queue never empties")
    return verdict(c, {"sim": s, "fluid": f}, cause=None if period_ok else "period",
                   cause_values=f2.cause_values(run, s, f["period_s"], f["q_max"] - f["q_min"]))


def plot(run: Run):
    return f2.plot_side_by_side(run, f"DCTCP N = {N}: packet simulation vs fluid model (Fig. 2)")
