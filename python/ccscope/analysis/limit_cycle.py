"""Limit-cycle detection: Qmin / Qmax / period / mean rate over whole periods.

Place in the pipeline: the fluid solver accumulates a monitor on the fly (`from_monitor`); traces
from any source (fluid or packet simulation) go through `from_trace`. Both use the same rule
(ALGORITHMS.md §2.5, FIGURES.md fig8): the period is the mean time between successive downward
crossings of a level (q~ = 0, i.e. q = K), extremes and averages are taken over whole periods.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class LimitCycle:
    """Whole-period statistics of a periodic orbit (or of a fixed point when `periodic` is False).

    Values are in the unit system of the model that produced them (normalized q~ and time in R*,
    or packets and seconds for the physical DCTCP model; see the producing method's doc).
    """

    q_min: float
    q_max: float
    period: float
    throughput: float
    n_periods: int
    periodic: bool

    def as_dict(self) -> dict[str, Any]:
        return {"q_min": self.q_min, "q_max": self.q_max, "period": self.period, "throughput": self.throughput,
                    "n_periods": self.n_periods, "periodic": self.periodic}


#: Fewest complete periods for a result to count as periodic.
MIN_PERIODS = 2


def downward_crossings(t: np.ndarray, z: np.ndarray, level: float) -> np.ndarray:
    """Times (linear interpolation) at which z crosses `level` from above."""
    t = np.asarray(t, dtype=float)
    z = np.asarray(z, dtype=float) - level
    i = np.flatnonzero((z[:-1] > 0) & (z[1:] <= 0))
    frac = z[i] / (z[i] - z[i + 1])
    return t[i] + frac * (t[i + 1] - t[i])


def from_trace(t: np.ndarray, z: np.ndarray, *, level: float, rate: np.ndarray | None = None,
               settle: float = 0.0) -> LimitCycle:
    """Limit-cycle statistics of a sampled trace after `settle` (same time unit as `t`).

    `rate` (optional, same length) is averaged over whole periods (trapezoid rule).
    """
    t = np.asarray(t, dtype=float)
    z = np.asarray(z, dtype=float)
    keep = t >= settle
    t, z = t[keep], z[keep]
    tc = downward_crossings(t, z, level)
    if len(tc) < MIN_PERIODS + 1:
        mean_rate = float(np.mean(rate[keep])) if rate is not None else float("nan")
        return LimitCycle(float(z[-1]), float(z[-1]), float("nan"), mean_rate, 0, False)
    inside = (t >= tc[0]) & (t <= tc[-1])
    mean_rate = float("nan")
    if rate is not None:
        r = np.asarray(rate, dtype=float)[keep]
        mean_rate = float(np.trapezoid(r[inside], t[inside]) / (t[inside][-1] - t[inside][0]))
    return LimitCycle(float(z[inside].min()), float(z[inside].max()), float(np.mean(np.diff(tc))), mean_rate,
                      len(tc) - 1, True)


def from_monitor(mon: dict[str, np.ndarray]) -> list[LimitCycle]:
    """Convert the solver's per-trajectory monitor (dict of (B,) arrays) to LimitCycle objects."""
    out = []
    for b in range(len(mon["min"])):
        n = int(mon["n_cross"][b])
        periodic = n >= MIN_PERIODS + 1
        span = mon["t_last"][b] - mon["t_first"][b]
        period = span / (n - 1) if periodic else float("nan")
        thr = (mon["int_last"][b] - mon["int_first"][b]) / span if periodic else float("nan")
        out.append(LimitCycle(float(mon["min"][b]), float(mon["max"][b]), float(period), float(thr), max(n - 1, 0),
                              periodic))
    return out


def monitor_arrays(mon: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Vectorized form of `from_monitor`: q_min, q_max, period, throughput, n_periods as (B,) arrays."""
    n = mon["n_cross"]
    periodic = n >= MIN_PERIODS + 1
    span = mon["t_last"] - mon["t_first"]
    with np.errstate(invalid="ignore", divide="ignore"):
        period = np.where(periodic, span / np.maximum(n - 1, 1), np.nan)
        thr = np.where(periodic, (mon["int_last"] - mon["int_first"]) / span, np.nan)
    return {"q_min": mon["min"], "q_max": mon["max"], "period": period, "throughput": thr,
                "n_periods": np.maximum(n - 1, 0), "periodic": periodic}
