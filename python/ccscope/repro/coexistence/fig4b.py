"""coexistence/fig4b: RED (max_th = 100) -- T_r vs min_th, ~2 at 30 to ~3.5 at 90."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.coexistence._red import RED_CAUSE, cause_values, diagnose, grid, plot_t_r, summarize
from ccscope.repro.coexistence._x0 import SEEDS as SEEDS  # noqa: F401  re-exported: fixed from the pilot (_x0)
from ccscope.repro.coexistence._x0 import PARAMS, share_rows, spearman_row

ID = "coexistence/fig4b"
TITLE = "RED: T_r vs min_th (max_th = 100)"
KIND = "sim"
COST = "7 x 10 runs x 5 s (~70 s); quick 2 x 2 x 1 s (~2 s)"
CLAIM = "T_r rises from ~2 at min_th = 30 to ~3.5 at 90 (max_th = 100)."

CAUSE = {"red": RED_CAUSE + (" By min_th, T_r goes from {v.t_r_lo:.3g} at {v.lo} to {v.t_r_hi:.3g} at {v.hi}: a larger "
                              "min_th lets the standing queue and the total window grow, so p falls and T_r rises.")}


def run(quick: bool) -> Run:
    mins = [30, 90] if quick else [30, 40, 50, 60, 70, 80, 90]
    d = grid([(m, 100) for m in mins], quick=quick)
    return Run(params={**PARAMS, "max_th": 100, "min_th": mins, "red": "p_max 0.1, w_q 0.002, not gentle [NG]"},
               frames={"runs": d}, seeds=sorted(d.seed.unique().tolist()), quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    d = run.frames["runs"]
    share_rows(c, "T_r(min_th=30) ~ 2", d[d.min_th == 30].tcp_share, 1 / 3)
    share_rows(c, "T_r(min_th=90) ~ 3.5", d[d.min_th == 90].tcp_share, 1 / 4.5)
    if d.min_th.nunique() > 2:
        spearman_row(c, "Spearman(min_th, T_r)", d.assign(neg_share=-d.tcp_share), "min_th", "neg_share", 0.8, ">",
                     ">= 0.8, on -share (T_r is monotone in the share)")
    s = summarize(d, "min_th").set_index("min_th")
    g = diagnose(d)
    return verdict(c, {**{f"T_r({k})": float(v) for k, v in s.t_r.items()}, "starved_seeds": g["dead_seeds"]},
                   cause=None if c.verdict == "reproduced" else "red",
                   cause_values={"red": cause_values(g), "t_r_lo": float(s.t_r.iloc[0]), "t_r_hi": float(s.t_r.iloc[-1]),
                                 "lo": int(s.index[0]), "hi": int(s.index[-1])})


def plot(run: Run):
    return plot_t_r(run.frames["runs"], "min_th", ([30, 90], [2, 3.5], "paper: ~2 -> ~3.5"), "RED min_th (pkts), max_th = 100",
                    "RED (ECN): T_r vs min_th (Fig. 4b)")
