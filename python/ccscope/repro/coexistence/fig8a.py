"""coexistence/fig8a: 20% short-flow load beside two long flows, RED -- AFCT falls as min_th falls."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.coexistence import _short as sh
from ccscope.repro.coexistence._x0 import SEEDS as SEEDS  # noqa: F401  re-exported: fixed from the pilot (_x0)
from ccscope.repro.coexistence._x0 import trend_row

ID = "coexistence/fig8a"
TITLE = "20% short-flow load, RED: AFCT falls as min_th falls"
KIND = "sim"
COST = "4 min_th x 10 seeds x 10 s (~1.5 min); quick 2 x 3 x 1 s (~1 s)"
QUICK_SHOWS_CLAIM = False
QUICK_NOTE = ("three 1-s seeds at the lowest and highest min_th: with ns-2's NewReno/ECN sender (3fe1e3f) the quick "
              "window orders the two AFCTs the other way, by a difference far below what 1 s of short flows "
              "resolves; ten 10-s seeds over four min_th order them as the paper does")
CLAIM = "With RED, the short flows' AFCT (both protocols) falls as min_th falls, because the average queue shrinks."


def run(quick: bool) -> Run:
    d = sh.sweep(("red",), quick)
    return Run(params={**sh.PARAMS, "aqm": "RED", "min_th": sh.min_ths(quick)}, frames={"flows": d}, seeds=sh.seeds(quick),
               quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    f = run.frames["flows"]
    f = f[f.fct_s.notna()]
    a = sh.afct(run.frames["flows"])
    out = {}
    for ccn, g in a.groupby("cc"):
        # a 10-50 KB flow spends most of its life queued behind the standing queue (~min_th pkts x 12 us);
        # se: bootstrap over the flows pooled from the seeds at each min_th
        trend_row(c, f"Spearman(min_th, AFCT {ccn})", f[f.cc == ccn], "min_th", "fct_s", 0.8, ">",
                  ">= 0.8: queueing delay tracks min_th")
        out.update({f"AFCT {ccn} min_th={m} (ms)": 1e3 * float(v) for m, v in zip(g.min_th, g.afct_s)})
    return verdict(c, out)


def plot(run: Run):
    return sh.plot(run.frames["flows"], ("red",), "Short flows with RED: AFCT vs min_th (Fig. 8a)")
