"""Result objects and parameter checks shared by every fluid model.

Place in the pipeline: models in `ccscope.fluid` return a `FluidResult` (scipy-like: named
fields, `success`, `message`); bad parameters raise `ValueError` naming the parameter, its value
and what is allowed, before any integration starts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ccscope.analysis.limit_cycle import LimitCycle

#: Packet size used by the DCTCP and DX papers when converting rates to packets/s (P000 §3, P004 §3.1).
PACKET_BYTES_DEFAULT = 1500
BITS_PER_BYTE = 8


@dataclass
class FluidResult:
    """Outcome of `Model.solve(...)`.

    traces: DataFrame with unit-suffixed columns (first column `time_s`, or `time_rtt` for
    normalized models whose time unit is R*); success/message as in scipy; limit_cycle: whole-period
    statistics after the settling time (None if not requested); params: resolved model parameters.
    """

    traces: pd.DataFrame
    success: bool
    message: str
    limit_cycle: LimitCycle | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:  # a few lines: status, time span, columns, limit cycle, parameters
        from ccscope._repr import fluid_text
        return fluid_text(self)

    def _repr_html_(self) -> str:  # Jupyter: the same as a table and a small plot of the queue
        from ccscope._repr import fluid_html
        return fluid_html(self)


def _fmt(value: Any) -> str:
    return repr(value) if not isinstance(value, float) else f"{value:g}"


def check_positive(name: str, value: Any, *, allow_zero: bool = False) -> float:
    """Return float(value) or raise ValueError naming `name` if it is not finite and > 0 (>= 0)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} = {value!r}: must be a number") from None
    ok = math.isfinite(v) and (v >= 0 if allow_zero else v > 0)
    if not ok:
        raise ValueError(f"{name} = {_fmt(value)}: must be finite and {'>= 0' if allow_zero else '> 0'}")
    return v


def check_range(name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False) -> float:
    """Return float(value) or raise ValueError unless lo (<|<=) value (<|<=) hi."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} = {value!r}: must be a number") from None
    lo_ok = v > lo if lo_open else v >= lo
    hi_ok = v < hi if hi_open else v <= hi
    if not (math.isfinite(v) and lo_ok and hi_ok):
        interval = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
        raise ValueError(f"{name} = {_fmt(value)}: must lie in {interval}")
    return v


def check_array(name: str, value: Any, *, lo: float = 0.0, lo_open: bool = True, hi: float = math.inf,
                hi_open: bool = False) -> np.ndarray:
    """Vectorized `check_range` for parameter grids; names the first offending entry."""
    a = np.asarray(value, dtype=float)
    bad = ~np.isfinite(a) | ~((a > lo) if lo_open else (a >= lo)) | ~((a < hi) if hi_open else (a <= hi))
    if np.any(bad):
        i = int(np.flatnonzero(bad.ravel())[0])
        check_range(f"{name}[{i}]", a.ravel()[i], lo, hi, lo_open=lo_open, hi_open=hi_open)
    return a


def pkts_per_s(rate_bps: float, packet_bytes: float) -> float:
    """Link rate in packets/s (C of the fluid formulas, ALGORITHMS.md units note)."""
    return rate_bps / (packet_bytes * BITS_PER_BYTE)
