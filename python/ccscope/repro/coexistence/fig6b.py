"""coexistence/fig6b: modified CHOKe -- DCTCP's alpha is higher at small min_th."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, spearman, verdict
from ccscope.repro.coexistence import _choke as ch

ID = "coexistence/fig6b"
TITLE = "modified CHOKe: DCTCP alpha vs min_th (higher at small min_th)"
KIND = "sim"
STATUS = "partly"
COST = "reuses the fig5a sweep (~90 s full, shared); quick ~1 s"
CLAIM = ("Under modified CHOKe DCTCP's alpha is higher at small min_th (DCTCP is penalized more there, which is what "
         "improves fairness), and at min_th = 30 higher than under plain CHOKe.")


def run(quick: bool) -> Run:
    d = ch.sweep(quick)
    return Run(params=ch.params(quick), frames={"runs": d}, errata=list(ch.ERRATA),
               seeds=sorted(d.seed.unique().tolist()), quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    a = ch.table(run.frames["runs"], "alpha")
    r = spearman(a.index, a.mchoke)
    c.add("Spearman(min_th, mean alpha modified CHOKe)", r, r <= -0.7, "<= -0.7", "trend")
    hi = bool(a.mchoke[30] > a.choke[30])
    c.add("alpha(modified, 30) > alpha(CHOKe, 30)", (float(a.mchoke[30]), float(a.choke[30])), hi, "greater",
          "ordering of seed means")
    d = run.frames["runs"]
    g = d[d.min_th == 30].groupby("aqm").alpha_mean
    se = float(np.sqrt((g.var() / g.count())[["mchoke", "choke"]].sum()))
    diff = float(a.mchoke[30] - a.choke[30])
    # the ordering is only resolved when it exceeds the seed-to-seed noise of the two means
    c.add("alpha difference at 30 / its standard error", diff / se if se > 0 else float("nan"),
          se > 0 and diff >= 2 * se, ">= 2", "2 standard errors of the seed means")
    return verdict(c, {**{f"alpha mCHOKe({k})": float(v) for k, v in a.mchoke.items()},
                       **{f"alpha CHOKe({k})": float(v) for k, v in a.choke.items()}},
                   notes=("At small min_th both CHOKe variants keep the average queue in the RED ramp and DCTCP's "
                          "alpha is set mostly by the RED probability; the extra marks of the m = 7 rule are rare "
                          "(f^7), so the alpha difference between the two at min_th = 30 (~0.001-0.002) is below the seed "
                          "noise (check 3): the FIGURES.md ordering of the means passes, but not resolvably, so the verdict "
                          "stays 'partly'. The fairness gain of modified CHOKe (fig6a) comes mostly from TCP no longer "
                          "being double-marked, not from a visibly higher DCTCP alpha."))


def plot(run: Run):
    return ch.plot_vs_min_th(run, "alpha", "DCTCP mean alpha",
                             "modified CHOKe vs CHOKe: DCTCP alpha vs min_th (Fig. 6b)", aqms=("choke", "mchoke"))
