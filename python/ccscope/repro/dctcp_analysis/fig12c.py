"""dctcp-analysis/fig12c: convergence of two flows (see `_fig12` for the setup, [NG] choices and engine limits)."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dctcp_analysis import _fig12 as f

ID = 'dctcp-analysis/fig12c'
KIND = 'both'
PANEL = 'c'
TITLE = 'g=5/Wmax: 67 ms; α about 2× faster than W'
COST = 'full: 2 × 5 seeds × (1.1 s probe + 1.5 s) × 10 Gb/s (~10 s); quick flow 2 at 50 ms, 0.2 s'
CLAIM = 'With g = 5/Wmax = 0.025 convergence takes ≈ 67 ms, a small increase over (b); α still about 2× faster than W.'

CAUSE = f.CAUSE
SEEDS = f.SEEDS  # fixed from the pilot's spread, see _fig12


def run(quick: bool) -> Run:
    return f.run_panel(PANEL, quick)


def check(run: Run) -> dict:
    c, v, b = Checks(), run.values["this"], run.values["b"]
    # FIGURES.md bands around the hybrid model; seed means, so each edge is cleared by 2 se (docs/VERDICTS.md §3)
    f.band(c, "mean convergence time (s)", v["t_w_mean_s"], v["t_w_se_s"], 0.053, 0.086, "[0.8, 1.3] × 66 ms")
    r = v["t_w_mean_s"] / b["t_w_mean_s"]
    f.band(c, "t_c / t_b", r, f.ratio_se(v["t_w_mean_s"], v["t_w_se_s"], b["t_w_mean_s"], b["t_w_se_s"]), 1.0, 1.5,
           "paper 1.22, [DER] 1.20")
    f.band(c, "α-speed / W-speed (t_W / t_α)", v["alpha_over_w_speed"], v["alpha_over_w_speed_se"], 1.4, 3.0,
           "[DER] 1.95")
    return verdict(c, {k: v[k] for k in ("t_w_mean_s", "t_w_se_s", "t_alpha_mean_s", "alpha_over_w_speed")}
                   | {"t_over_tb": r}, tolerance="FIGURES.md bands",
                   cause=None if c.verdict == "reproduced" else "dctcp", cause_values=f.cause_values(v))


def plot(run: Run):
    return f.plot_panel(run, "DCTCP g = 5/Wmax = 0.025 (Fig. 12c)")
