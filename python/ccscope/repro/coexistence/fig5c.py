"""coexistence/fig5c: CHOKe -- DCTCP's mean alpha falls with min_th; larger than under RED."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, spearman, verdict
from ccscope.repro.coexistence import _choke as ch

ID = "coexistence/fig5c"
TITLE = "CHOKe: DCTCP alpha falls with min_th"
KIND = "sim"
STATUS = "reproduced"
COST = "reuses fig5a (~80 s full, shared); quick ~3 s, shared"
CLAIM = ("DCTCP's mean alpha falls as min_th rises; (footnote 2) it is larger under CHOKe than under RED, yet T_r "
         "is worse because TCP is penalized more.")


def run(quick: bool) -> Run:
    d = ch.sweep(quick)
    return Run(params={**ch.params(quick), "alpha": "DCTCP alpha trace, 1 ms samples after warm-up [NG]"},
               frames={"runs": d}, errata=list(ch.ERRATA), seeds=sorted(d.seed.unique().tolist()), quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    a = ch.table(run.frames["runs"], "alpha")
    r = spearman(a.index, a.choke)
    c.add("Spearman(min_th, mean alpha CHOKe)", r, r <= -0.7, "<= -0.7", "trend")
    n_hi = int((a.choke > a.red).sum())
    c.add("min_th points with alpha(CHOKe) > alpha(RED)", n_hi, n_hi >= ch.at_least(len(a)),
          f">= {ch.at_least(len(a))} of {len(a)}", "ordering, 5 of 7 (FIGURES.md)")
    return verdict(c, {**{f"alpha CHOKe({k})": float(v) for k, v in a.choke.items()},
                       **{f"alpha RED({k})": float(v) for k, v in a.red.items()}})


def plot(run: Run):
    return ch.plot_vs_min_th(run, "alpha", "DCTCP mean alpha", "CHOKe vs RED: DCTCP alpha vs min_th (Fig. 5c)",
                             aqms=("red", "choke"))
