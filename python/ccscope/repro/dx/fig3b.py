"""dx/fig3b: utilization vs N (R0 = 80 us): special state beyond N = 67 (setup Y0, see `_y0`)."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._sim import MECH, cause_key
from ccscope.repro.dx._util import sweep_plot

ID = "dx/fig3b"
TITLE = "utilization vs N (R0 = 80 us): special state beyond N = 67"
KIND = "sim"
COST = "10 points x 10 seeds x 0.3 s (full ~22 s wall); quick 2 x 3 seeds x 0.1 s"
CAUSE = {"partly": MECH + "Over {v.n_seeds} seeds at base RTT {v.r0} us: utilization {v.util} % at N = {v.ns} (standard "
                           "errors {v.se} pt); failed rows: {v.failed}."}
CLAIM = "Beyond N = 67 (C R0/seg) DX enters the special state: windows cannot fall below 1 seg, the queue never drains and utilization is high."


def run(quick: bool) -> Run:
    ns = [20, 80] if quick else list(range(10, 101, 10))
    sd = _y0.seeds(quick)
    d = _y0.table([(n, 80) for n in ns], until_s=0.1 if quick else 0.3, seeds=sd)
    return Run(params={**_y0.PARAMS, "r0_us": 80, "n": ns}, frames={"runs": d, "sweep": _y0.summary(d)},
               seeds=list(sd), quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].sort_values("n").set_index("n")
    u, s = d.utilization, d.utilization_se
    sp = d[d.index >= 70]
    lo = sp.utilization.idxmin()
    c.beyond(f"utilization > 99.8 % for N >= 70 (lowest: N = {lo})", u[lo], s[lo], 0.998, ">",
             tolerance="2 se (special state)")
    ns = list(u.index)
    if len(ns) > 1:  # the largest fall between neighbouring N (the claim: utilization rises toward the special state)
        falls = [(u[a] - u[b], float(np.hypot(s[a], s[b])), a, b) for a, b in zip(ns, ns[1:])]
        f, se_f, a, b = max(falls)
        c.beyond(f"largest fall between neighbouring N ({a} -> {b}) < 0.5 pt", f, se_f, 0.005, "<", tolerance="2 se")
    # Theorem 2: the queue never drains in the special state -- every seed's minimum, exact
    c.add("queue never empty for N >= 70 (every seed)", float(sp.queue_min_min_pkts.min()),
          bool((sp.queue_min_min_pkts > 0).all()), "min queue > 0", "Theorem 2")
    failed = [x.name for x in c.items if not x.passed and not x.advisory]
    cv = {"n_seeds": int(d.n_seeds.iloc[0]), "r0": 80, "ns": ns, "util": [round(100 * float(x), 2) for x in u],
          "se": [round(100 * float(x), 2) for x in s], "failed": "; ".join(failed) or "none"}
    return verdict(c, {f"util(N={k})": float(v) for k, v in u.items()}, cause=cause_key(c), cause_values=cv)


def plot(run: Run):
    return sweep_plot(run.frames["sweep"], "n", "utilization", scale=100, xlabel="number of flows N",
                      ylabel="bottleneck utilization (%)", title="DX R0 = 80 us: utilization vs N (Fig. 3b)",
                      refs=[(66.7, "special state N >= C R0/seg = 66.7", True)])
