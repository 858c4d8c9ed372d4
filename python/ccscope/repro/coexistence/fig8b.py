"""coexistence/fig8b: as fig8a with modified CHOKe (m = 7) -- same trend, fairer AFCTs than RED at high min_th."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, spearman, verdict
from ccscope.repro.coexistence import _short as sh

ID = "coexistence/fig8b"
TITLE = "short flows, modified CHOKe: fairer AFCTs at high min_th"
KIND = "sim"
STATUS = "partly"
COST = "2 AQMs x 4 min_th x 3 seeds x 10 s (~40 s); quick 2 x 2 x 3 x 1 s (~1.5 s)"
CLAIM = ("With modified CHOKe the AFCT again falls with min_th, and at high min_th the DCTCP and TCP short flows' "
         "AFCTs are closer to each other than under RED.")


def run(quick: bool) -> Run:
    d = sh.sweep(("red", "mchoke"), quick)
    return Run(params={**sh.PARAMS, "aqm": "modified CHOKe (m = 7) and RED", "min_th": sh.min_ths(quick)},
               frames={"flows": d}, seeds=list(sh.SEEDS), quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    a = sh.afct(run.frames["flows"])
    m = a[a.aqm == "mchoke"]
    out = {}
    for ccn, g in m.groupby("cc"):
        r = spearman(g.min_th, g.afct_s)
        c.add(f"Spearman(min_th, AFCT {ccn}), modified CHOKe", r, r >= 0.8, ">= 0.8", "queueing delay tracks min_th")
        out.update({f"mCHOKe AFCT {ccn} min_th={k} (ms)": 1e3 * float(v) for k, v in zip(g.min_th, g.afct_s)})
    p = a[a.min_th == 90].pivot(index="aqm", columns="cc", values="afct_s")
    gap = np.abs(np.log(p.new_reno / p.dctcp))
    c.add("|log(AFCT_TCP/AFCT_DCTCP)| at min_th = 90: modified CHOKe <= RED", gap.to_dict(),
          bool(gap["mchoke"] <= gap["red"]), "mchoke <= red", "ordering")
    out.update({f"|log AFCT ratio| {k} (90)": float(v) for k, v in gap.items()})
    return verdict(c, out, notes=(
        "The AFCT trend with min_th reproduces for both protocols. The fairness comparison does not resolve: in "
        "ccscope the DCTCP and TCP short flows' AFCTs differ by only ~0.1-7% under both AQMs (10-50 KB flows "
        "finish mostly in slow start and see the same queue); single seeds invert the ordering (seeds 2, 4 at 1 s "
        "make RED fairer). Pooled over 3 seeds the check passes (quick: 1.3% vs 1.9% gap) but the margin is within "
        "that noise, so the status stays 'partly' (not a reliable reproduction of 'fairer')."))


def plot(run: Run):
    return sh.plot(run.frames["flows"], ("red", "mchoke"), "Short flows, modified CHOKe vs RED (Fig. 8b)")
