"""dctcp-analysis/fig12b: convergence of two flows (see `_fig12` for the setup, [NG] choices and engine limits)."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dctcp_analysis import _fig12 as f

ID = 'dctcp-analysis/fig12b'
KIND = 'both'
PANEL = 'b'
TITLE = 'g=1/√Wmax: converges in 55 ms; α about 5× faster than W'
COST = 'full: 5 seeds × (1.1 s probe + 1.5 s) × 10 Gb/s (~5 s); quick flow 2 at 50 ms, 0.2 s'
CLAIM = 'With g = 1/√Wmax ≈ 0.0707 the two flows converge in ≈ 55 ms and α converges about 5× faster than the windows.'

CAUSE = f.CAUSE
SEEDS = f.SEEDS  # fixed from the pilot's spread, see _fig12


def run(quick: bool) -> Run:
    return f.run_panel(PANEL, quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values["this"]
    # [0.8, 1.3] × 55 ms: RTT = d vs R* in the hybrid model's RTT count (FIGURES.md); seed means: 2-se rule
    f.band(c, "mean convergence time (s)", v["t_w_mean_s"], v["t_w_se_s"], 0.044, 0.072, "[0.8, 1.3] × 55 ms")
    f.band(c, "α-speed / W-speed (t_W / t_α)", v["alpha_over_w_speed"], v["alpha_over_w_speed_se"], 2.5, 7.0,
           "[DER] 4.4, paper ≈ 5")
    return verdict(c, {k: v[k] for k in ("t_w_mean_s", "t_w_se_s", "t_alpha_mean_s", "alpha_over_w_speed")},
                   tolerance="[0.8, 1.3] × 55 ms; ratio [2.5, 7]", cause=None if c.verdict == "reproduced" else "dctcp",
                   cause_values=f.cause_values(v))


def plot(run: Run):
    return f.plot_panel(run, "DCTCP g = 1/√Wmax ≈ 0.0707 (Fig. 12b)")
