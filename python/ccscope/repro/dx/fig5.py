"""dx/fig5: queueing delay grows with N in the special state (R0 = 80 us) (setup Y0, see `_y0`)."""
from __future__ import annotations

import numpy as np

from ccscope.repro._base import Checks, Run, verdict
from ccscope.repro.dx import _y0
from ccscope.repro.dx._util import sweep_plot

ID = "dx/fig5"
TITLE = "queueing delay grows with N in the special state (R0 = 80 us)"
KIND = "sim"
STATUS = "reproduced"
COST = "6 x 0.3 s (~1 s); quick 2 x 50 ms"
CLAIM = "In the special state utilization is high but the queueing delay rises with every extra flow: Q* = N seg/C - R0 = 1.2 us N - 80 us."


def run(quick: bool) -> Run:
    ns = [80, 120] if quick else [70, 80, 90, 100, 120, 150]
    d = _y0.table([(n, 80) for n in ns], until_s=0.05 if quick else 0.3)
    d["q_star_us"] = d.n * 1.2 - 80
    return Run(params={**_y0.PARAMS, "r0_us": 80, "n": ns}, frames={"sweep": d}, seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, d = Checks(), run.frames["sweep"].sort_values("n")
    for _, r in d.iterrows():  # +-2.4 us = +-2 pkts (ACK / serialization terms)
        c.near(f"queueing delay at N = {int(r.n)} (us)", r.queue_delay_us, r.q_star_us, 2.4, "Q* +-2.4 us")
    slope = float(np.polyfit(d.n, d.queue_delay_us, 1)[0])
    c.rel("slope (us per flow)", slope, 1.2, 0.05, "seg/C = 1.2 us +-5 %")
    return verdict(c, {f"Q(N={int(r.n)})_us": r.queue_delay_us for _, r in d.iterrows()} | {"slope_us": slope},
                   notes=("Q* = N seg/C - R0 holds at every N (70-150). With the engine's default initial window of "
                          "2 seg, N >= 120 overflowed BDP + buffer in the first round (66 drops at N = 150) and flows "
                          "that lost a packet before their first RTT sample waited the 1-s initial RTO (23 of 150 "
                          "silent: 72.4 vs 100 us); Y0 starts every flow at W = 1 seg, which removes this."))


def plot(run: Run):
    d = run.frames["sweep"]
    return sweep_plot(d, "n", "queue_delay_us", xlabel="number of flows N", ylabel="mean queueing delay (us)",
                      title="DX R0 = 80 us: queueing delay in the special state (Fig. 5)",
                      paper={int(n): q for n, q in zip(d.n, d.q_star_us)})
