"""Shared pieces of the reproduction modules: the `Run` a module's `run(quick)` returns, the
`Checks` list its `check(run)` fills, and figure helpers.

Place in the pipeline: `repro/<paper>/<item>.py` builds scenarios or fluid problems through the
public API (`ccscope.simulate`, `ccscope.fluid`), returns a `Run`; `check` compares it with the
paper's claim (each tolerance justified in a comment next to it); `plot` draws a figure laid out
like the paper's. `repro.runner` writes figure.png, data.parquet and result.json.

Verdicts: "reproduced" (every strict check passes), "partly" (some strict checks fail),
"not reproduced" (all fail), "not yet" (the mechanism is not in ccscope yet).
Advisory checks are recorded but never change the verdict. Two kinds, named by `basis`: a printed
number the catalogue itself flags as inconsistent (the default), and a threshold FIGURES.md inferred
(not a number or statement of the paper) that a reference simulator run on the same setup misses the
same way (`SIMULATOR_MISSES_TOO`: so far ns-2, the simulator of P000 and P001); the
check's tolerance then cites that simulator's number, and the report lists every such entry.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

#: Verdict / status vocabulary (FIGURES.md issue 7: reproduced / partly / not yet).
REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_YET = "reproduced", "partly", "not reproduced", "not yet"


class NotYetError(NotImplementedError):
    """The entry needs a mechanism ccscope does not have yet; the message says which."""


@dataclass
class Run:
    """What `run(quick)` returns: parameters (every [NG] choice), data frames, scalar values,
    errata applied ({"id", "paper", "corrected"}), the seeds used and the variant."""

    params: dict[str, Any] = field(default_factory=dict)
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    errata: list[dict[str, Any]] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    quick: bool = False


@dataclass
class Check:
    name: str
    measured: Any
    expected: str
    passed: bool
    tolerance: str = ""
    advisory: bool = False
    basis: str = ""


#: `basis` of a FIGURES.md inference that a reference simulator misses too (see the module docstring).
SIMULATOR_MISSES_TOO = "FIGURES.md inference that a reference simulator misses too"


class Checks:
    """Accumulates named checks and turns them into a verdict."""

    def __init__(self) -> None:
        self.items: list[Check] = []

    def add(self, name: str, measured: Any, passed: bool, expected: str, tolerance: str = "", *,
            advisory: bool = False, basis: str = "") -> bool:
        self.items.append(Check(name, _plain(measured), expected, bool(passed), tolerance, advisory or bool(basis), basis))
        return bool(passed)

    def within(self, name: str, measured: float, lo: float, hi: float, tolerance: str = "", *,
               advisory: bool = False, basis: str = "") -> bool:
        ok = bool(np.isfinite(measured) and lo <= measured <= hi)
        return self.add(name, measured, ok, f"[{lo:.6g}, {hi:.6g}]", tolerance, advisory=advisory, basis=basis)

    def near(self, name: str, measured: float, target: float, tol_abs: float, tolerance: str = "", *,
             advisory: bool = False, basis: str = "") -> bool:
        ok = bool(np.isfinite(measured) and abs(measured - target) <= tol_abs)
        return self.add(name, measured, ok, f"{target:.6g} ± {tol_abs:.3g}", tolerance, advisory=advisory, basis=basis)

    def rel(self, name: str, measured: float, target: float, tol_rel: float, tolerance: str = "", *,
            advisory: bool = False, basis: str = "") -> bool:
        ok = bool(np.isfinite(measured) and abs(measured - target) <= tol_rel * abs(target))
        return self.add(name, measured, ok, f"{target:.6g} ± {100 * tol_rel:.3g}%", tolerance, advisory=advisory,
                        basis=basis)

    @property
    def verdict(self) -> str:
        strict = [c for c in self.items if not c.advisory]
        if not strict:
            return NOT_REPRODUCED
        n_ok = sum(c.passed for c in strict)
        if n_ok == len(strict):
            return REPRODUCED
        return PARTLY if n_ok else NOT_REPRODUCED

    def as_dicts(self) -> list[dict[str, Any]]:
        return [c.__dict__.copy() for c in self.items]


def _plain(v: Any) -> Any:
    """JSON-friendly scalars (numpy -> python, NaN kept as None)."""
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return None if math.isnan(f) else f
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, np.ndarray):
        return [_plain(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def not_yet(needs: str) -> None:
    """Raise the standard 'needs <mechanism>' error of entries whose mechanism is missing."""
    raise NotYetError(f"needs {needs}")


# --- figure helpers ---------------------------------------------------------------------------

def figure(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.0, **kw):
    """A matplotlib figure on the Agg backend (no display needed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False, **kw)
    return fig, axes


def ref_line(ax, y: float, label: str | None = None, *, color: str = "0.3", vertical: bool = False) -> None:
    """A paper reference value drawn dashed (every figure marks the paper's numbers this way)."""
    (ax.axvline if vertical else ax.axhline)(y, ls="--", lw=1.0, color=color, label=label)


def spearman(x, y) -> float:
    from scipy.stats import spearmanr
    r = spearmanr(np.asarray(x, float), np.asarray(y, float)).statistic
    return float(r)


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    return float(np.polyfit(lx, ly, 1)[0])


def verdict(checks: Checks, measured: dict[str, Any] | None = None, *, tolerance: str = "",
            notes: str = "") -> dict[str, Any]:
    """The dict a module's `check(run)` returns."""
    return {"verdict": checks.verdict, "measured": _plain(measured or {}), "checks": checks.as_dicts(),
            "tolerance": tolerance, "notes": notes}
