"""periodic/text-toy-convergence: Theorem 2 of Appendix A -- the initial mass decays as (1-r)^n."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.fluid import toy
from ccscope.fluid.toy import mean_field_iterate
from ccscope.repro._base import Checks, Run, figure, verdict

ID = "periodic/text-toy-convergence"
TITLE = "Toy model: initial-condition mass decays as (1-r)^n; epochs settle at rC/N"
KIND = "fluid"
COST = "trivial"
CLAIM = "After n resets the density is the invariant sum plus (1-r)^n times the shifted initial density; epochs 2... last rC/N."
N, R, C = 50, 0.25, 1.0


def run(quick: bool) -> Run:
    x0 = np.linspace(0, 2 * C / N, 21)
    m0 = np.full(x0.size, 1 / x0.size)
    _, _, lengths, rem = mean_field_iterate(x0, m0, n=N, r=R, c=C, epochs=30)
    remaining = []
    for n in range(1, 31):
        remaining.append(mean_field_iterate(x0, m0, n=N, r=R, c=C, epochs=n)[3])
    fin = toy(N, R, C, seed=3).run(10)
    return Run(params={"n": N, "r": R, "c": C, "initial": "uniform on [0, 2C/N] (21 point masses)", "seed": 3},
               frames={"mean_field": pd.DataFrame({"epoch": range(1, 31), "remaining": remaining, "length": lengths}),
                       "finite": pd.DataFrame({"epoch": range(1, 11), "never_reset": fin.never_reset})},
               seeds=[3], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    mf = run.frames["mean_field"]
    err = float(np.max(np.abs(mf.remaining - (1 - R) ** mf.epoch)))
    c.add("remaining initial mass = (1-r)^n", err, err < 1e-12, "< 1e-12", "float rounding")
    e2 = float(np.max(np.abs(mf.length.iloc[1:] - R * C / N)))
    c.add("epochs 2.. last rC/N", e2, e2 < 1e-12, "< 1e-12", "float rounding")
    f = run.frames["finite"]
    sd = np.sqrt((1 - R) ** f.epoch * (1 - (1 - R) ** f.epoch) / N)
    z = float(np.max(np.abs(f.never_reset - (1 - R) ** f.epoch) / sd))
    c.add("finite model never-reset fraction", z, z <= 3, "within 3 binomial s.d.", "N = 50 binomial")
    return verdict(c, {"max_mass_error": err, "max_epoch_error": e2, "finite_max_z": z})


def plot(run: Run):
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    mf, f = run.frames["mean_field"], run.frames["finite"]
    ax.semilogy(mf.epoch, mf.remaining, "o", label="mean field: initial mass left")
    ax.semilogy(f.epoch, f.never_reset, "s", label="finite model (N = 50): never reset")
    ax.semilogy(mf.epoch, (1 - R) ** mf.epoch, "--", color="0.3", label="(1 - r)^n (Theorem 2)")
    ax.set_xlabel("epoch n")
    ax.set_ylabel("fraction")
    ax.set_title("Toy model convergence, r = 1/4")
    ax.legend(fontsize=8)
    return fig
