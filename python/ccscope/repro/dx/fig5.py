"""dx/fig5: queueing delay grows with N in the special state (R0 = 80 us) (setup Y0, see `_y0`)."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._sim import MECH, cause_key
from ccscope.repro.dx._util import sweep_plot

ID = "dx/fig5"
TITLE = "queueing delay grows with N in the special state (R0 = 80 us)"
KIND = "sim"
COST = "6 points x 10 seeds x 0.3 s (full ~17 s wall); quick 2 x 3 seeds x 50 ms"
CAUSE = {"partly": MECH + "Over {v.n_seeds} seeds at base RTT {v.r0} us: mean queueing delay {v.q} us at N = {v.ns} "
                           "(Q* = {v.qs} us), slope {v.slope:.3g} us per flow; failed rows: {v.failed}."}
CLAIM = "In the special state utilization is high but the queueing delay rises with every extra flow: Q* = N seg/C - R0 = 1.2 us N - 80 us."


def run(quick: bool) -> Run:
    ns = [80, 120] if quick else [70, 80, 90, 100, 120, 150]
    sd = _y0.seeds(quick)
    runs = _y0.table([(n, 80) for n in ns], until_s=0.05 if quick else 0.3, seeds=sd)
    d = _y0.summary(runs)
    d["q_star_us"] = d.n * 1.2 - 80
    return Run(params={**_y0.PARAMS, "r0_us": 80, "n": ns}, frames={"runs": runs, "sweep": d}, seeds=list(sd), quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].sort_values("n")
    for _, r in d.iterrows():  # +-2.4 us = +-2 pkts (ACK / serialization terms); seed means
        _y0.band(c, f"queueing delay at N = {int(r.n)} (us)", r.queue_delay_us, r.queue_delay_us_se,
                 r.q_star_us - 2.4, r.q_star_us + 2.4, "Q* +-2.4 us")
    slope = float(np.polyfit(d.n, d.queue_delay_us, 1)[0])
    c.rel("slope (us per flow)", slope, 1.2, 0.05, "seg/C = 1.2 us +-5 %")
    failed = [x.name for x in c.items if not x.passed and not x.advisory]
    cv = {"n_seeds": int(d.n_seeds.iloc[0]), "r0": 80, "ns": [int(x) for x in d.n],
          "q": [round(float(x), 2) for x in d.queue_delay_us], "qs": [round(float(x), 2) for x in d.q_star_us],
          "slope": slope, "failed": "; ".join(failed) or "none"}
    return verdict(c, {f"Q(N={int(r.n)})_us": r.queue_delay_us for _, r in d.iterrows()} | {"slope_us": slope},
                   cause=cause_key(c), cause_values=cv)


def plot(run: Run):
    d = run.frames["sweep"]
    return sweep_plot(d, "n", "queue_delay_us", xlabel="number of flows N", ylabel="mean queueing delay (us)",
                      title="DX R0 = 80 us: queueing delay in the special state (Fig. 5)",
                      paper={int(n): q for n, q in zip(d.n, d.q_star_us)})
