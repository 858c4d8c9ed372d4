"""periodic/text-toy-jitter: Lemma 1/2, Theorems 3-4 -- jitter of epoch i shortens only epoch i+1 by (1-r) eps_i/N.

Mean-field epochs: each epoch lasts until N x mean rate = C (+ eps/N of lateness). Erratum (periodic-8):
Theorem 4's sum has no upper limit; about L ~ N/r terms are assumed.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ccscope.fluid import toy
from ccscope.repro._base import Checks, Run, figure, ref_line, verdict

ID = "periodic/text-toy-jitter"
TITLE = "Toy model: a late epoch shortens only the next one, by (1-r) eps/N"
KIND = "fluid"
COST = "trivial"
CLAIM = "If epoch i ends eps_i/N late, epoch i+1 is shortened by (1-r) eps_i/N; later epochs are unaffected; the mean epoch stays rC/N."
N, R, C = 50, 0.25, 1.0
EPS = 0.05 * C  # [NG] eps = 0.05 C


def _mean_field(epochs: int, late: dict[int, float]) -> np.ndarray:
    """Mean-field epoch lengths with lateness eps_i at chosen epochs (starts on the invariant density)."""
    lengths = []
    mean = C / N - R * C / N / 2 * 0  # mean rate after reset on the invariant density: (1-r)(C/N)
    mean = (1 - R) * C / N
    for k in range(epochs):
        dt = C / N - mean + late.get(k, 0.0) / N
        lengths.append(dt)
        mean = (1 - R) * (mean + dt)
    return np.array(lengths)


def run(quick: bool) -> Run:
    base = _mean_field(10, {})
    jit = _mean_field(10, {3: EPS})
    fin = toy(N, R, C, seed=5).run(1000, jitter=EPS)
    return Run(params={"n": N, "r": R, "c": C, "eps": EPS, "jittered_epoch": 3, "seed": 5},
               frames={"mean_field": pd.DataFrame({"epoch": range(10), "base": base, "jittered": jit}),
                       "finite": fin.epochs}, values={"finite_mean_epoch": fin.mean_epoch}, seeds=[5], quick=quick)


def check(run: Run) -> dict:
    c = Checks()
    mf = run.frames["mean_field"]
    d = mf.jittered - mf.base
    c.near("epoch i lengthened by eps/N", float(d[3]), EPS / N, 1e-12, "exact")
    c.near("epoch i+1 shortened by (1-r) eps/N", float(d[4]), -(1 - R) * EPS / N, 1e-12, "Lemma 1")
    c.near("epoch i+2 unaffected", float(d[5]), 0.0, 1e-12, "Lemma 2")
    # +-1%: i.i.d. U[-eps, eps]/N lateness averages out over 1000 epochs (s.e. ~ 0.3% here)
    c.rel("finite model mean epoch with i.i.d. jitter", run.values["finite_mean_epoch"], R * C / N, 0.01,
          "i.i.d. jitter averages out")
    return verdict(c, {"shift_i1": float(d[4]), "shift_i2": float(d[5]), "finite_mean_epoch": run.values["finite_mean_epoch"]})


def plot(run: Run):
    mf = run.frames["mean_field"]
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    ax.plot(mf.epoch, 1e3 * mf.base, "o-", label="no jitter")
    ax.plot(mf.epoch, 1e3 * mf.jittered, "s--", label=f"epoch 3 late by eps/N (eps = {EPS:g} C)")
    ref_line(ax, 1e3 * (R * C / N - (1 - R) * EPS / N), "rC/N - (1-r) eps/N (Lemma 1)")
    ax.set_xlabel("epoch index")
    ax.set_ylabel("epoch length (10^-3 time units)")
    ax.set_title("Toy model: jitter propagates one epoch only")
    ax.legend(fontsize=8)
    return fig
