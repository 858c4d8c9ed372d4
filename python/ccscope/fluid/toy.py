"""Mean-field 'toy' model of periodic behaviour, Gilbert, Joo, McKeown (P001 §III, Appendix A).

N sources with rates x_i >= 0 growing with slope 1; when the aggregate A = sum x_i reaches C, a
fraction r of the sources is reset to 0. Mean field: epochs last dt = rC/N (E24: Fig 11's caption
prints 0.002; with N = 50, r = 1/4, C = 1 it is 0.005); the invariant density (Theorem 1) is point
masses r(1-r)^l at l*dt; with a rate cap D (Corollary 1) masses r(1-r)^l for l <= L = floor(D/dt)
and (1-r)^(L+1) at D. Convergence (Theorem 2): the initial mass left after n epochs is (1-r)^n.
The finite model (`ToyModel`) resets each source independently with probability r (E25: rN = 12.5
is not an integer) or exactly round(rN) sources ("exact"), optionally with epoch jitter (Lemma 1).
ALGORITHMS.md §3.4; FIGURES.md periodic/fig11, text-toy-*.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ccscope.fluid.base import check_positive, check_range

#: Fig 11 setup (P001 Appendix A): 50 sources, reset fraction 1/4, capacity 1.
FIG11_N, FIG11_R, FIG11_C = 50, 0.25, 1.0
#: Point masses listed by `invariant_density` when no cap is given: until the tail is below this.
TAIL_MASS = 1e-12


def epoch_length(n: float, r: float, c: float) -> float:
    """Mean-field epoch dt = rC/N."""
    return r * c / n


def invariant_density(n: float, r: float, c: float, *, cap: float | None = None) -> pd.DataFrame:
    """Point masses of rho* (Theorem 1; Corollary 1 with `cap` = D). Columns rate, mass."""
    check_positive("n", n)
    check_range("r", r, 0.0, 1.0, lo_open=True, hi_open=True)
    check_positive("c", c)
    dt = epoch_length(n, r, c)
    if cap is None:
        levels = math.ceil(math.log(TAIL_MASS) / math.log(1 - r))
        ell = np.arange(levels)
        return pd.DataFrame({"rate": ell * dt, "mass": r * (1 - r) ** ell})
    d = check_range("cap", cap, c / n, c, lo_open=True, hi_open=True)
    big_l = math.floor(d / dt + 1e-12)
    ell = np.arange(big_l + 1)
    rates = np.append(ell * dt, d)
    masses = np.append(r * (1 - r) ** ell, (1 - r) ** (big_l + 1))
    return pd.DataFrame({"rate": rates, "mass": masses})


def mean_field_iterate(positions: np.ndarray, masses: np.ndarray, *, n: float, r: float, c: float,
                       epochs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Iterate the mean-field map from a density of point masses (masses sum to 1).

    Each epoch lasts until N * mean rate = C; then mass r moves to 0 and the rest is scaled by 1-r.
    Returns (positions, masses, epoch lengths, remaining initial mass); the initial points are
    the first len(positions) entries throughout.
    """
    pos = np.asarray(positions, float).copy()
    mass = np.asarray(masses, float).copy()
    n_init = len(pos)
    lengths = np.empty(epochs)
    for k in range(epochs):
        dt = c / n - float(np.sum(mass * pos))
        lengths[k] = dt
        pos = np.append(pos + dt, 0.0)
        mass = np.append((1 - r) * mass, r)
    return pos, mass, lengths, float(mass[:n_init].sum())


@dataclass
class ToyRun:
    """Finite-model run: per-epoch table (epoch_length, a_after_reset, resets) and summaries:
    mean epoch, mean post-reset aggregate, time-averaged aggregate, age fractions (ages 0..5 pooled
    over the second half), never-reset fraction per epoch."""

    epochs: pd.DataFrame
    mean_epoch: float
    mean_a_after_reset: float
    time_avg_a: float
    age_fractions: np.ndarray
    never_reset: np.ndarray
    rates: np.ndarray


class ToyModel:
    """Finite toy model with N sources. reset: "independent" (each w.p. r) | "exact" (round(rN))."""

    def __init__(self, n: int, r: float, c: float = 1.0, *, reset: str = "independent", cap: float | None = None,
                 seed: int = 0):
        self.n = int(check_positive("n", n))
        self.r = check_range("r", r, 0.0, 1.0, lo_open=True, hi_open=True)
        self.c = check_positive("c", c)
        if reset not in ("independent", "exact"):
            raise ValueError(f"reset = {reset!r}: allowed values are 'independent' and 'exact'")
        self.reset = reset
        self.cap = None if cap is None else check_range("cap", cap, self.c / self.n, self.c, lo_open=True, hi_open=True)
        self.seed = seed

    def _advance(self, x: np.ndarray, extra: float) -> tuple[np.ndarray, float]:
        """Grow rates (slope 1, capped) until sum = C (+ extra / N of jitter). Returns (x, elapsed)."""
        target = self.c
        elapsed = 0.0
        while True:
            growing = x < self.cap if self.cap is not None else np.ones_like(x, dtype=bool)
            k = int(growing.sum())
            need = (target - x.sum()) / k if k else math.inf
            step_cap = float(np.min(self.cap - x[growing])) if self.cap is not None and k else math.inf
            if need <= step_cap:
                x = x + need * growing
                elapsed += need
                break
            x = x + step_cap * growing
            elapsed += step_cap
        if extra:
            x = x + extra / self.n
            elapsed += extra / self.n
        return x, elapsed

    def run(self, epochs: int, *, x0: np.ndarray | None = None, jitter: float = 0.0) -> ToyRun:
        """Iterate `epochs` epochs from x0 (default: uniform on [0, 2C/N], FIGURES.md fig11).

        jitter: epoch i is lengthened by eps_i/N with eps_i ~ U[-jitter, jitter] (Lemma 1).
        """
        rng = np.random.default_rng(self.seed)
        x = rng.uniform(0, 2 * self.c / self.n, self.n) if x0 is None else np.asarray(x0, float).copy()
        age = np.full(self.n, -1)          # -1: never reset
        rows = []
        ages = []
        never = []
        area = 0.0
        total_t = 0.0
        for k in range(epochs):
            a_start = float(x.sum())
            eps = rng.uniform(-jitter, jitter) if jitter else 0.0
            x, dt = self._advance(x, eps)
            # aggregate grows linearly when uncapped; trapezoid is exact then
            area += 0.5 * (a_start + float(x.sum())) * dt
            total_t += dt
            if self.reset == "independent":
                hit = rng.random(self.n) < self.r
            else:
                hit = np.zeros(self.n, dtype=bool)
                hit[rng.choice(self.n, round(self.r * self.n), replace=False)] = True
            x[hit] = 0.0
            age = np.where(hit, 0, np.where(age >= 0, age + 1, -1))
            rows.append((dt, float(x.sum()), int(hit.sum())))
            never.append(float(np.mean(age < 0)))
            if k >= epochs // 2:
                ages.append(age.copy())
        table = pd.DataFrame(rows, columns=["epoch_length", "a_after_reset", "resets"])
        pooled = np.concatenate(ages) if ages else np.array([], dtype=int)
        fr = np.array([np.mean(pooled == ell) for ell in range(6)]) if len(pooled) else np.zeros(6)
        return ToyRun(epochs=table, mean_epoch=float(table.epoch_length.iloc[1:].mean()),
                      mean_a_after_reset=float(table.a_after_reset.mean()), time_avg_a=area / total_t,
                      age_fractions=fr, never_reset=np.array(never), rates=x)


def toy(n: int = FIG11_N, r: float = FIG11_R, c: float = FIG11_C, *, reset: str = "independent",
        cap: float | None = None, seed: int = 0) -> ToyModel:
    """The finite toy model (defaults: Fig 11); see `ToyModel`."""
    return ToyModel(n, r, c, reset=reset, cap=cap, seed=seed)


#: P001 §II.C.2 drop-free buffer inputs: 50 flows x rwnd 20 pkts, C = 187.5 pkts/s (1.5 Mb/s, 1000 B), RTT 1.34 s.
def drop_free_buffer_pkts(n_flows: float = 50, rwnd_pkts: float = 20, c_pps: float = 187.5, rtt_s: float = 1.34) -> float:
    """B = N Wmax - C RTT (P001 §II.C.2): 748.75 pkts for the paper's setup."""
    return n_flows * rwnd_pkts - c_pps * rtt_s
