"""coexistence/fig4c: RED with min_th = 45 (caption swaps the roles, erratum coexistence-2): T_r vs max_th."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.coexistence._red import RED_CAUSE, cause_values, diagnose, grid, plot_t_r, summarize
from ccscope.repro.coexistence._x0 import SEEDS as SEEDS  # noqa: F401  re-exported: fixed from the pilot (_x0)
from ccscope.repro.coexistence._x0 import PARAMS, increasing_row, share_rows, spearman_row

ID = "coexistence/fig4c"
TITLE = "RED: T_r vs max_th (min_th = 45)"
KIND = "sim"
COST = "6 x 10 runs x 5 s (~60 s); quick 2 x 2 x 1 s (~2 s)"
CLAIM = "T_r falls from 2.7 to ~2.25 as max_th goes 65 -> 200; the mean queue grows."

CAUSE = {"red": RED_CAUSE + (" By max_th, T_r goes from {v.t_r_lo:.3g} at {v.lo} to {v.t_r_hi:.3g} at {v.hi}: a "
                              "gentler slope raises the average queue and the total window, so p falls; the paper's "
                              "'the dominating flow is marked more often' does not hold for RED's flow-blind marks.")}


def run(quick: bool) -> Run:
    maxs = [65, 200] if quick else [65, 80, 100, 125, 150, 200]
    d = grid([(45, m) for m in maxs], quick=quick)
    return Run(params={**PARAMS, "min_th": 45, "max_th": maxs}, frames={"runs": d},
               errata=[{"id": "coexistence-2", "paper": "caption: min_th varied with max_th = 45",
                        "corrected": "min_th = 45, max_th varied (text)"}],
               seeds=sorted(d.seed.unique().tolist()), quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    d = run.frames["runs"]
    share_rows(c, "T_r(max_th=65) ~ 2.7", d[d.max_th == 65].tcp_share, 0.27)
    share_rows(c, "T_r(max_th=200) ~ 2.25", d[d.max_th == 200].tcp_share, 0.308)
    if d.max_th.nunique() > 2:
        spearman_row(c, "Spearman(max_th, T_r)", d.assign(neg_share=-d.tcp_share), "max_th", "neg_share", -0.7, "<",
                     "<= -0.7, on -share (T_r is monotone in the share)")
    increasing_row(c, "mean queue increases with max_th", d, "max_th", "queue_mean_pkts",
                   "gentler slope lets the average grow")
    s = summarize(d, "max_th").set_index("max_th")
    g = diagnose(d)
    return verdict(c, {**{f"T_r({k})": float(v) for k, v in s.t_r.items()}, "starved_seeds": g["dead_seeds"]},
                   cause=None if c.verdict == "reproduced" else "red",
                   cause_values={"red": cause_values(g), "t_r_lo": float(s.t_r.iloc[0]), "t_r_hi": float(s.t_r.iloc[-1]),
                                 "lo": int(s.index[0]), "hi": int(s.index[-1])})


def plot(run: Run):
    return plot_t_r(run.frames["runs"], "max_th", ([65, 200], [2.7, 2.25], "paper: 2.7 -> 2.25"), "RED max_th (pkts), min_th = 45",
                    "RED (ECN): T_r vs max_th (Fig. 4c)")
