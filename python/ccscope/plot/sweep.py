"""Plots of sweep results (`ccscope sweep plot OUT --x PARAM --y METRIC ...`).

Place in the pipeline: reads a sweep's summary through `ccscope.sweep.load` and its `agg` (mean and
Student-t 95 % interval over the seeds of each point), draws one panel per metric against one swept
parameter; the other swept parameters that take several values give one line each.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: Horizontal offset between the lines of one panel, as a fraction of the x range.
DODGE = 0.008
#: The same offset between lines on a categorical x axis (categories one unit apart).
CATEGORY_DODGE = 0.06
#: Metric columns whose values are drawn in other units (column suffix -> (scale, unit shown)).
_UNITS = {"_bps": (1e-9, "Gb/s"), "_s": (1e3, "ms")}


def _ylabel(col: str) -> tuple[str, float]:
    for suf, (scale, unit) in _UNITS.items():
        if col.endswith(suf):
            return f"{col[: -len(suf)]} ({unit})", scale
    if col.endswith("_pkts"):
        return f"{col[:-5]} (packets)", 1.0
    return col, 1.0


def plot_sweep(table, x: str, ys: Sequence[str], *, title: str | None = None):
    """One panel per metric of `ys` against the swept parameter `x`: the mean over the runs of each point
    with its 95 % Student-t interval as error bars; one line per combination of the other swept
    parameters that vary. `table` is a `ccscope.sweep.SweepTable`; returns the Figure. Unknown names
    raise ValueError listing the parameters and metrics there are."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not ys:
        raise ValueError("--y: give at least one metric, e.g. --y bottleneck_utilization")
    xcol = table.column(x, "--x")
    if xcol not in table.params:
        raise ValueError(f"--x {x!r}: a metric, not a swept parameter; --x takes one of: "
                         f"{', '.join(table.params) or '(none)'}")
    ycols = [table.column(y, "--y") for y in ys]
    if len(table.table) == 0:
        raise ValueError(f"{table.out_dir}: no finished run in this sweep ({table.failed} failed)")
    others = [p for p in table.params if p != xcol and table.table[p].nunique(dropna=False) > 1]
    agg = table.agg(*ycols, by=[xcol, *others])
    numeric = pd.api.types.is_numeric_dtype(agg[xcol]) and not pd.api.types.is_bool_dtype(agg[xcol])
    cats = list(dict.fromkeys(agg[xcol])) if not numeric else []
    groups = list(agg.groupby(others, sort=True)) if others else [((), agg)]
    fig, axes = plt.subplots(len(ycols), 1, figsize=(7.5, 2.9 * len(ycols) + 0.7), squeeze=False, sharex=True)
    n_max = int(max(agg[f"{c}_n"].max() for c in ycols))
    n_min = int(min(agg[f"{c}_n"].min() for c in ycols))
    if numeric:
        xs = agg[xcol].to_numpy(dtype=float)
        span = float(xs.max() - xs.min()) or 1.0
    else:  # categories sit at 0, 1, ...: the lines side by side within a category, unconnected
        span = float(max(len(cats) - 1, 1)) * CATEGORY_DODGE / DODGE
    for ax, col in zip(axes[:, 0], ycols):
        label, scale = _ylabel(col)
        for gi, (key, g) in enumerate(groups):
            key = key if isinstance(key, tuple) else (key,)
            g = g.sort_values(xcol)
            xv = g[xcol].to_numpy(dtype=float) if numeric else np.array([cats.index(v) for v in g[xcol]], dtype=float)
            xv = xv + (gi - (len(groups) - 1) / 2) * DODGE * span  # side by side: the bars do not hide each other
            mean = g[f"{col}_mean"].to_numpy(dtype=float) * scale
            half = g[f"{col}_ci95"].to_numpy(dtype=float) * scale
            name = ", ".join(f"{p}={v:g}" if isinstance(v, (int, float, np.number)) else f"{p}={v}"
                             for p, v in zip(others, key)) or "mean"
            ax.errorbar(xv, mean, yerr=np.where(np.isfinite(half), half, 0.0), marker="o", ms=4, lw=1.2,
                        capsize=3, label=name, ls="-" if numeric else "none")
        ax.set_ylabel(label)
        ax.grid(True, lw=0.3, alpha=0.5)
        if n_max >= 2:
            note = f"mean ± 95 % t-interval over {n_min}" + (f"-{n_max}" if n_max != n_min else "") + " seeds"
        elif table.fluid:
            note = "fluid model: one value per point"
        else:
            note = "one run per point: no interval"
        ax.set_title(note, loc="left", fontsize="x-small", color="0.3")
        if others:
            ax.legend(fontsize="small", loc="best", framealpha=0.85)
    low = axes[-1, 0]
    low.set_xlabel(xcol)
    if not numeric:
        low.set_xticks(range(len(cats)), [str(c) for c in cats])
    kind = f"fluid model {table.fluid}" if table.fluid else "sweep"
    fixed = [p for p in table.params if p != xcol and p not in others]
    if title is None:
        title = f"{kind}: " + ", ".join(ycols) + f" against {xcol}"
        shown = []
        for p in fixed[:4]:
            v = table.table[p].iloc[0]
            shown.append(f"{p}={v:g}" if isinstance(v, (int, float, np.number)) else f"{p}={v}")
        if "sim_time_s" in table.table and table.table["sim_time_s"].nunique() == 1:
            shown.append(f"{table.table['sim_time_s'].iloc[0] * 1e3:g} ms simulated per run")
        if shown:
            title += "\n(" + ", ".join(shown) + ")"
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return fig
