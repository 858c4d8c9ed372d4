"""coexistence/fig5b: CHOKe -- the mean queue rises with min_th."""
from __future__ import annotations

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.coexistence import _choke as ch
from ccscope.repro.coexistence._x0 import SEEDS as SEEDS  # noqa: F401  re-exported: fixed from the pilot (_x0)
from ccscope.repro.coexistence._x0 import trend_row

ID = "coexistence/fig5b"
TITLE = "CHOKe: mean queue rises with min_th"
KIND = "sim"
COST = "reuses fig5a (~80 s full, shared); quick ~3 s, shared"
CLAIM = "Under CHOKe the average queue grows with min_th (marking starts later, so the standing queue is longer)."


def run(quick: bool) -> Run:
    d = ch.sweep(quick)
    return Run(params=ch.params(quick), frames={"runs": d}, errata=list(ch.ERRATA),
               seeds=sorted(d.seed.unique().tolist()), quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    d = run.frames["runs"]
    q = ch.table(d, "queue").choke
    # the EWMA average settles between min_th and max_th, so the mean queue follows min_th almost one for one
    trend_row(c, "Spearman(min_th, mean queue CHOKe)", d[d.aqm == "choke"], "min_th", "queue_mean_pkts", 0.9, ">",
              ">= 0.9: queue is pinned near min_th by marking")
    return verdict(c, {f"queue CHOKe({k}) pkts": float(v) for k, v in q.items()})


def plot(run: Run):
    return ch.plot_vs_min_th(run, "queue", "mean queue (pkts)", "CHOKe: mean queue vs min_th (Fig. 5b)",
                             aqms=("choke",))
