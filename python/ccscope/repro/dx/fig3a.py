"""dx/fig3a: three regimes vs base RTT (N = 50): utilization (setup Y0, see `_y0`)."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._sim import MECH, cause_key
from ccscope.repro.dx._util import sweep_plot

ID = "dx/fig3a"
TITLE = "three regimes vs base RTT (N = 50): utilization"
KIND = "sim"
COST = "11 points x 10 seeds x 0.3 s (full ~22 s wall); quick 3 x 3 seeds x 0.1 s"
PAPER_NUMBERS = ("99.9 %", "89.1 %")
CAUSE = {"partly": MECH + "Over {v.n_seeds} seeds at N = {v.n}: utilization {v.util} % at base RTT {v.r0s} us (standard "
                           "errors {v.se} pt; paper 99.9 % up to the special-state edge, 89.1 % at the largest base RTT); "
                           "failed rows: {v.failed}."}
CLAIM = "Special stable state for R0 <= 60 us with 99.9 % utilization, then the stable state, then an unstable one as R0 grows (89.1 % at 320 us); the boundary is gradual."
R0S = [20, 40, 60, 80, 100, 120, 145, 200, 260, 320, 400]


def run(quick: bool) -> Run:
    r0s = [20, 120, 320] if quick else R0S
    sd = _y0.seeds(quick)
    d = _y0.table([(50, r) for r in r0s], until_s=0.1 if quick else 0.3, seeds=sd)
    return Run(params={**_y0.PARAMS, "n": 50, "r0_us": r0s}, frames={"runs": d, "sweep": _y0.summary(d)},
               seeds=list(sd), quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].sort_values("r0_us").set_index("r0_us")
    u, s = d.utilization, d.utilization_se
    lo = u[u.index <= 60].idxmin()
    c.beyond(f"utilization > 99.8 % for R0 <= 60 us (lowest: {lo:g} us)", u[lo], s[lo], 0.998, ">",
             tolerance="2 se (special state)")
    c.beyond("utilization(320 us) < 93 %", u[320], s[320], 0.93, "<", tolerance="2 se (paper 89.1 %)")
    above = [r for r in u.index if r >= 60]
    if len(above) > 1:  # the largest rise between neighbouring R0 (the claim: no rise beyond noise)
        rises = [(u[b] - u[a], float(np.hypot(s[a], s[b])), a, b) for a, b in zip(above, above[1:])]
        r, se_r, a, b = max(rises)
        c.beyond(f"largest rise above 60 us ({a:g} -> {b:g} us) < 0.5 pt", r, se_r, 0.005, "<",
                 tolerance="2 se; 0.5 pt: the paper calls the boundary gradual")
    failed = [x.name for x in c.items if not x.passed and not x.advisory]
    cv = {"n_seeds": int(d.n_seeds.iloc[0]), "n": 50, "r0s": [float(x) for x in u.index],
          "util": [round(100 * float(x), 2) for x in u], "se": [round(100 * float(x), 2) for x in s],
          "failed": "; ".join(failed) or "none"}
    return verdict(c, {f"util({int(k)}us)": float(v) for k, v in u.items()}, cause=cause_key(c), cause_values=cv)


def plot(run: Run):
    return sweep_plot(run.frames["sweep"], "r0_us", "utilization", scale=100, xlabel="base RTT R0 (us)",
                      ylabel="bottleneck utilization (%)", title="DX N = 50: utilization vs R0 (Fig. 3a)",
                      paper={20: 99.91, 120: 96.11, 320: 89.1},
                      refs=[(60, "special state for R0 <= 60 us", True), (145, "Theorem 1: R0 < 145 us", True)])
