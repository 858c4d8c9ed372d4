"""dctcp-analysis/fig12a: convergence of two flows (see `_fig12` for the setup, [NG] choices and engine limits)."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dctcp_analysis import _fig12 as f

ID = 'dctcp-analysis/fig12a'
KIND = 'both'
PANEL = 'a'
TITLE = 'TCP baseline convergence of 2 flows (hybrid: ≈204 RTT ≈ 41–49 ms)'
STATUS = "reproduced"
COST = 'full: 2 × 5 seeds × (1.1 s probe + 1.5 s) × 10 Gb/s (~10 s); quick flow 2 at 50 ms, 0.2 s'
CLAIM = 'TCP baseline for (b)-(d): two NewReno+ECN flows converge in ≈ 204 RTT (41 ms at RTT = d); DCTCP with g from (27) takes up to ~2× that.'


def run(quick: bool) -> Run:
    return f.run_panel(PANEL, quick)


def check(run: Run) -> dict:
    c, t, b = Checks(), run.values["this"]["t_w_mean_s"], run.values["b"]["t_w_mean_s"]
    # [0.8, 1.3] × 41 ms: the hybrid model's 204 RTT at RTT = d (lower) to R* (upper, 49 ms) (FIGURES.md)
    c.within("mean convergence time (s)", t, 0.8 * 0.041, 1.3 * 0.041, "[0.8, 1.3] × 41 ms")
    c.add("≤ fig12b's mean", t, t <= b, f"≤ {b:.4f}", "TCP baseline is the faster one")
    per = [r["t_w_s"] for r in run.values["this"]["per_seed"]]
    join = 1e3 * run.values["this"]["t_join_mean_after_t2_s"]
    return verdict(c, {"t_w_mean_s": t, "fig12b_t_w_mean_s": b, "per_seed_s": per, "dctcp_over_tcp_b": b / t},
                   tolerance="[0.8, 1.3] × the hybrid 41 ms",
                   notes=(f"TCP converges in {1e3 * t:.1f} ms (mean of {len(per)} seeds: "
                          f"{' / '.join(f'{1e3 * x:.1f}' for x in per)} ms; flow 2 joined {join:.1f} ms after t2 on "
                          "average, when flow 1's cwnd reached Wmax - 1), the hybrid model's 204 RTT at RTT = d; "
                          f"DCTCP with g = 1/sqrt(Wmax) takes {b / t:.2f}× as long (§4.3: 'up to about a factor of 2'). "
                          "Flow 2 slow-starts as in ns-2 but meets flow 1's marks in its first RTTs and leaves slow "
                          "start at a few packets. Before the join was tied to flow 1's window, flow 2 started at "
                          "t2 + 0-1 ms, right after one of flow 1's halvings (W1 ≈ 105): its slow start then ran to "
                          "≈ 100 pkts unopposed and TCP converged in 14.7 ms (5 seeds 1.5-18.1 ms), i.e. the "
                          "measurement sampled one phase of flow 1's 22-ms sawtooth (the convergence time ranges "
                          "7-44 ms over that phase, see _fig12). " + f.LIMITS_NOTE))


def plot(run: Run):
    return f.plot_panel(run, "TCP (NewReno + ECN, 0/1 marking at K = 35): flow 2 joins (Fig. 12a)")
