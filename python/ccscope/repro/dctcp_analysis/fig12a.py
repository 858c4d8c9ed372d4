"""dctcp-analysis/fig12a: convergence of two flows (see `_fig12` for the setup, [NG] choices and engine limits)."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dctcp_analysis import _fig12 as f

ID = 'dctcp-analysis/fig12a'
KIND = 'both'
PANEL = 'a'
TITLE = 'TCP baseline convergence of 2 flows (hybrid: ≈204 RTT ≈ 41–49 ms)'
COST = 'full: 2 × 5 seeds × (1.1 s probe + 1.5 s) × 10 Gb/s (~10 s); quick flow 2 at 50 ms, 0.2 s'
CLAIM = 'TCP baseline for (b)-(d): two NewReno+ECN flows converge in ≈ 204 RTT (41 ms at RTT = d); DCTCP with g from (27) takes up to ~2× that.'

CAUSE = f.CAUSE
SEEDS = f.SEEDS  # fixed from the pilot's spread, see _fig12


def run(quick: bool) -> Run:
    return f.run_panel(PANEL, quick)


def check(run: Run) -> dict:
    c, v, b = Checks(), run.values["this"], run.values["b"]
    t, tb = v["t_w_mean_s"], b["t_w_mean_s"]
    # [0.8, 1.3] × 41 ms: the hybrid model's 204 RTT at RTT = d (lower) to R* (upper, 49 ms) (FIGURES.md); a mean
    # over seeds, so each edge must be cleared by 2 standard errors (docs/VERDICTS.md §3)
    f.band(c, "mean convergence time (s)", t, v["t_w_se_s"], 0.8 * 0.041, 1.3 * 0.041, "[0.8, 1.3] × 41 ms")
    c.order("TCP mean ≤ fig12b's mean (s)", t, v["t_w_se_s"], tb, b["t_w_se_s"], "<",
            tolerance="§4.3: DCTCP takes up to about 2× TCP's time")
    per = [r["t_w_s"] for r in v["per_seed"]]
    return verdict(c, {"t_w_mean_s": t, "t_w_se_s": v["t_w_se_s"], "fig12b_t_w_mean_s": tb, "per_seed_s": per,
                       "dctcp_over_tcp_b": tb / t},
                   tolerance="[0.8, 1.3] × the hybrid 41 ms", cause=None if c.verdict == "reproduced" else "tcp",
                   cause_values=f.cause_values(v))


def plot(run: Run):
    return f.plot_panel(run, "TCP (NewReno + ECN, 0/1 marking at K = 35): flow 2 joins (Fig. 12a)")
