"""periodic/fig11: invariant rate distribution of the toy model (mean field vs a finite run).

Erratum E24: the caption's Delta t = 0.002 is r C/N = 0.005 for r = 1/4, N = 50, C = 1.
E25: rN = 12.5 is not an integer; each source resets independently with probability r.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.fluid import invariant_density, toy
from ccscope.repro._base import Checks, Run, figure, verdict

ID = "periodic/fig11"
TITLE = "Toy model: geometric rate populations r(1-r)^l at multiples of rC/N"
KIND = "both"
COST = "1000 epochs x 50 sources (< 1 s)"
CLAIM = ("The invariant density is sum_l r(1-r)^l delta(x - l dt), dt = rC/N = 0.005 (caption: 0.002); the aggregate "
         "is dt-periodic between (1-r)C and C. [DER] finite model: time-average of A(t) 0.862, post-reset 0.749.")
N, R, C = 50, 0.25, 1.0


def run(quick: bool) -> Run:
    res = toy(N, R, C, seed=1).run(1000)
    dens = invariant_density(N, R, C)
    return Run(params={"n": N, "r": R, "c": C, "epochs": 1000, "reset": "independent, probability r (E25)",
                       "x0": "uniform on [0, 2C/N]", "seed": 1},
               frames={"density": dens, "epochs": res.epochs, "final_rates": pd.DataFrame({"rate": res.rates})},
               values={"mean_epoch": res.mean_epoch, "mean_a_after_reset": res.mean_a_after_reset,
                       "time_avg_a": res.time_avg_a, "age_fractions": res.age_fractions.tolist()},
               errata=[{"id": "E24", "paper": "dt = r/N = 0.002", "corrected": "dt = rC/N = 0.005"},
                       {"id": "E25", "paper": "rN = 12.5 sources reset", "corrected": "independent resets with probability r"}],
               seeds=[1], quick=quick)


def check(run: Run) -> dict:
    c, v = Checks(), run.values
    for ell, f in enumerate(v["age_fractions"]):
        # +-0.02: binomial error of the pooled age fractions over 500 epochs x 50 sources (s.d. ~ 0.004)
        c.near(f"age fraction l = {ell}", f, R * (1 - R) ** ell, 0.02, "pooled binomial error")
    c.rel("mean epoch", v["mean_epoch"], R * C / N, 0.05, "[DER] 0.00502")
    c.near("mean post-reset aggregate", v["mean_a_after_reset"], 0.75, 0.02, "binomial resets")
    c.near("time-average of A(t)", v["time_avg_a"], 0.862, 0.01, "[DER] 0.862, seed s.d. 0.0014")
    return verdict(c, v)


def plot(run: Run):
    fig, ax = figure(width=6.4, height=4)
    ax = ax[0, 0]
    d = run.frames["density"]
    d = d[d.mass > 1e-4]
    ax.vlines(d.rate, 0, d.mass, color="k", lw=2, label="mean field r(1-r)^l at l rC/N")
    rates = run.frames["final_rates"].rate
    bins = np.arange(-0.0025, max(rates.max(), d.rate.max()) + 0.005, 0.005)
    h, e = np.histogram(rates, bins=bins)
    ax.bar(0.5 * (e[1:] + e[:-1]), h / len(rates), width=0.004, color="0.6", alpha=0.7, label="finite model, after 1000 epochs")
    ax.set_xlabel("source rate (units of C)")
    ax.set_ylabel("fraction of sources")
    ax.set_title("Toy model invariant density, N = 50, r = 1/4 (Fig. 11)")
    ax.legend(fontsize=8)
    return fig
