"""dx/text-stability-thresholds: thresholds from Theorem 1 (tau = R0, E53; sign fix E50).

Erratum E51: the printed "N > 50 at 200 us" does not follow from Theorem 1 (70 with tau = R0, 78 with
tau = R0 + Q0); recorded as an advisory check that is expected to disagree."""
from __future__ import annotations

import pandas as pd

from ccscope.fluid.dx import max_stable_r0, min_stable_flows
from ccscope.repro._base import Checks, Run, figure, known_inconsistency, verdict
from ccscope.repro.dx._bound import ERRATA

ID = "dx/text-stability-thresholds"
TITLE = "Stability thresholds: N > 30/42/50/140 at R0 = 80/120/200/400 us; R0 < 145 us at N = 50"
KIND = "fluid"
COST = "closed form"
CLAIM = "Stable for N > 30, > 42, > 50 and > 140 at R0 = 80, 120, 200 and 400 us; R0 < 145 us at N = 50."
PAPER = {80: 30, 120: 42, 200: 50, 400: 140}
PAPER_NUMBERS = ("N > 50 at 200 us",)
CAUSE = ("The printed 'N > 50 at 200 us' does not follow from Theorem 1, which gives N > {v.n200} (erratum E51; "
         "FIGURES.md known inconsistency dx item 1).")


def run(quick: bool) -> Run:
    rows = []
    for r0, paper in PAPER.items():
        n = min_stable_flows(10e9, r0 * 1e-6)
        rows.append({"r0_us": r0, "paper_n": paper, "smallest_stable_n": int(n) + 1, "crossing_n": n})
    return Run(params={"rate_bps": 10e9, "p": 0.95, "tau": "R0"}, frames={"thresholds": pd.DataFrame(rows)},
               values={"max_r0_us": max_stable_r0(50, 10e9) * 1e6},
               errata=ERRATA + [{"id": "E51", "paper": "N > 50 at 200 us", "corrected": "N > 70 (Theorem 1, tau = R0)"}],
               quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    t = run.frames["thresholds"].set_index("r0_us").smallest_stable_n
    c.within("N at 80 us (paper 30)", t[80], 28, 30, "[DER] 28; the paper rounds")
    c.near("N at 120 us", t[120], 42, 1, "[DER] 42 +-1")
    c.within("N at 400 us (paper 140)", t[400], 139, 140, "[DER] 139")
    c.near("R0 max at N = 50 (us)", run.values["max_r0_us"], 145, 1, "[DER] 145 +-1 us")
    c.near("N at 200 us (paper 50)", t[200], 50, 1, "E51", advisory=True, basis=known_inconsistency("dx", 1))
    return verdict(c, {f"N_min@{k}us": int(v) for k, v in t.items()} | {"max_r0_us": run.values["max_r0_us"]},
                   cause_values={"n200": int(t[200])})


def plot(run: Run):
    t = run.frames["thresholds"]
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    ax.plot(t.r0_us, t.smallest_stable_n, "o-", label="Theorem 1 (tau = R0, E50 sign fix)")
    ax.plot(t.r0_us, t.paper_n, "s--", color="0.3", label="paper's printed thresholds")
    ax.set_xlabel("base RTT R0 (us)")
    ax.set_ylabel("smallest stable number of flows N")
    ax.set_title("DX stability thresholds at 10 Gb/s")
    ax.legend(fontsize=8)
    return fig
