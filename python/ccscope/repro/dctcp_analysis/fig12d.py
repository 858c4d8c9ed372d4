"""dctcp-analysis/fig12d: convergence of two flows (see `_fig12` for the setup, [NG] choices and engine limits)."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dctcp_analysis import _fig12 as f

ID = 'dctcp-analysis/fig12d'
KIND = 'both'
PANEL = 'd'
TITLE = 'g=1/Wmax: 185 ms; α convergence limits the rate'
COST = 'full: 2 × 5 seeds × (1.1 s probe + 1.5 s) × 10 Gb/s (~10 s); quick flow 2 at 50 ms, 0.35 s'
CLAIM = 'With g = 1/Wmax = 0.005 convergence takes ≈ 185 ms; α and W converge at about the same time, so α is the bottleneck.'

CAUSE = f.CAUSE
SEEDS = f.SEEDS  # fixed from the pilot's spread, see _fig12


def run(quick: bool) -> Run:
    return f.run_panel(PANEL, quick)


def check(run: Run) -> dict:
    c, v, b = Checks(), run.values["this"], run.values["b"]
    # FIGURES.md bands around the hybrid model; seed means, so each edge is cleared by 2 se (docs/VERDICTS.md §3)
    f.band(c, "mean convergence time (s)", v["t_w_mean_s"], v["t_w_se_s"], 0.138, 0.225, "[0.8, 1.3] × 173 ms")
    r = v["t_w_mean_s"] / b["t_w_mean_s"]
    f.band(c, "t_d / t_b", r, f.ratio_se(v["t_w_mean_s"], v["t_w_se_s"], b["t_w_mean_s"], b["t_w_se_s"]), 2.5, 4.0,
           "paper 3.36, [DER] 3.16")
    f.band(c, "α-speed / W-speed (t_W / t_α)", v["alpha_over_w_speed"], v["alpha_over_w_speed_se"], 0.8, 1.5,
           "[DER] 1.1")
    return verdict(c, {k: v[k] for k in ("t_w_mean_s", "t_w_se_s", "t_alpha_mean_s", "alpha_over_w_speed")}
                   | {"t_over_tb": r}, tolerance="FIGURES.md bands",
                   cause=None if c.verdict == "reproduced" else "dctcp", cause_values=f.cause_values(v))


def plot(run: Run):
    return f.plot_panel(run, "DCTCP g = 1/Wmax = 0.005 (Fig. 12d)")
