"""coexistence/fig5c: CHOKe -- DCTCP's mean alpha falls with min_th; larger than under RED."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.coexistence import _choke as ch
from ccscope.repro.coexistence._x0 import SEEDS as SEEDS  # noqa: F401  re-exported: fixed from the pilot (_x0)
from ccscope.repro.coexistence._x0 import trend_row

ID = "coexistence/fig5c"
TITLE = "CHOKe: DCTCP alpha falls with min_th"
KIND = "sim"
COST = "reuses fig5a (~80 s full, shared); quick ~3 s, shared"
CLAIM = ("DCTCP's mean alpha falls as min_th rises; (footnote 2) it is larger under CHOKe than under RED, yet T_r "
         "is worse because TCP is penalized more.")


def run(quick: bool) -> Run:
    d = ch.sweep(quick)
    return Run(params={**ch.params(quick), "alpha": "DCTCP alpha trace, 1 ms samples after warm-up [NG]"},
               frames={"runs": d}, errata=list(ch.ERRATA), seeds=sorted(d.seed.unique().tolist()), quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    d = run.frames["runs"]
    a = ch.table(d, "alpha")
    trend_row(c, "Spearman(min_th, mean alpha CHOKe)", d[d.aqm == "choke"], "min_th", "alpha_mean", -0.7, "<",
              "<= -0.7 (falling)")
    o = ch.point_orders(d, "alpha_mean", "choke", "red")
    n_hi = int(o.resolved_gt.sum())
    c.add("min_th points with alpha(CHOKe) > alpha(RED), each by >= 2 se", n_hi, n_hi >= ch.at_least(len(o)),
          f">= {ch.at_least(len(o))} of {len(o)}", "ordering, 5 of 7 (FIGURES.md)")
    return verdict(c, {**{f"alpha CHOKe({k})": float(v) for k, v in a.choke.items()},
                       **{f"alpha RED({k})": float(v) for k, v in a.red.items()}})


def plot(run: Run):
    return ch.plot_vs_min_th(run, "alpha", "DCTCP mean alpha", "CHOKe vs RED: DCTCP alpha vs min_th (Fig. 5c)",
                             aqms=("red", "choke"))
