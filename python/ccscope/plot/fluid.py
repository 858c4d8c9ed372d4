"""Plots of the fluid models: one function per figure kind; each takes ax=None and returns the Axes.

Place in the pipeline: used by `ccscope fluid ...` / `ccscope stability ...` and the repro scripts.
Axis labels carry units. matplotlib is imported lazily so `ccscope.fluid` works without a display.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7, 3.5))
    return ax


def time_series(traces: pd.DataFrame, column: str, *, ax=None, label: str | None = None, time_unit: str = "ms", **kw):
    """One trace column against time (time_s in `time_unit`, or time_rtt as is)."""
    ax = _axes(ax)
    if "time_s" in traces:
        scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[time_unit]
        ax.plot(traces.time_s * scale, traces[column], label=label or column, **kw)
        ax.set_xlabel(f"time ({time_unit})")
    else:
        ax.plot(traces.time_rtt, traces[column], label=label or column, **kw)
        ax.set_xlabel("time (R*)")
    ax.set_ylabel(column.replace("_", " "))
    return ax


def dctcp_panels(traces: pd.DataFrame, *, axes: Sequence[Any] | None = None, k_pkts: float | None = None):
    """q(t), W(t), alpha(t) stacked (Fig 2 style). Returns the array of Axes."""
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 6))
    qcol = "queue_pkts" if "queue_pkts" in traces else "queue_norm"
    time_series(traces, qcol, ax=axes[0])
    if k_pkts is not None:
        axes[0].axhline(k_pkts, color="grey", ls="--", lw=0.8, label="K")
    for ax, prefix in zip(axes[1:], ("window_pkts", "alpha")):
        for col in [c for c in traces.columns if c.startswith(prefix)]:
            time_series(traces, col, ax=ax)
    return axes


def phase_portrait(traces: pd.DataFrame, *, ax=None, x: str = "window_pkts", y: str = "queue_norm", **kw):
    """Projection of a trajectory on (x, y), e.g. (W~, q~) as in P000 Fig 4."""
    ax = _axes(ax)
    ax.plot(traces[x], traces[y], lw=0.8, **kw)
    ax.set_xlabel(x.replace("_", " "))
    ax.set_ylabel(y.replace("_", " "))
    return ax


def sweep_curves(df: pd.DataFrame, *, x: str, y: str, by: str | None = None, ax=None, logx: bool = True):
    """y against x from a sweep DataFrame, one curve per value of `by` (Figs 7-9)."""
    ax = _axes(ax)
    groups = df.groupby(by) if by else [(None, df)]
    for key, part in groups:
        part = part.sort_values(x)
        ax.plot(part[x], part[y], marker=".", label=f"{by} = {key:g}" if by else None)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if by:
        ax.legend(fontsize="small")
    return ax


def heatmap(df: pd.DataFrame, *, x: str, y: str, value: str, ax=None, log: bool = True):
    """A sweep value over a 2-D grid (e.g. Floquet modulus over wbar x g, Fig 6)."""
    ax = _axes(ax)
    table = df.pivot_table(index=y, columns=x, values=value)
    mesh = ax.pcolormesh(table.columns.values, table.index.values, table.values, shading="nearest")
    ax.figure.colorbar(mesh, ax=ax, label=value)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    return ax


def hybrid_windows(traces: pd.DataFrame, *, ax=None):
    """Windows at the congestion events of the hybrid model (Figs 11-12), time in RTTs."""
    ax = _axes(ax)
    for col in [c for c in traces.columns if c.startswith("window_pkts")]:
        ax.plot(traces.time_rtt, traces[col], label=col)
    ax.set_xlabel("time (RTT)")
    ax.set_ylabel("window (pkts)")
    ax.legend(fontsize="small")
    return ax


def bode(loop, *, omega_rad_s: np.ndarray | None = None, axes: Sequence[Any] | None = None):
    """Bode magnitude and phase of a DelayedRationalLoop (QCN App. A, DX Theorem 1)."""
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    wc = loop.gain_crossover()
    w = np.geomspace(wc / 100, wc * 100, 400) if omega_rad_s is None else omega_rad_s
    axes[0].loglog(w, loop.magnitude(w))
    axes[0].axhline(1.0, color="grey", lw=0.8)
    axes[0].set_ylabel("|L(jw)|")
    axes[1].semilogx(w, np.degrees(loop.phase(w)))
    axes[1].axhline(-180.0, color="grey", lw=0.8)
    axes[1].axvline(wc, color="grey", ls="--", lw=0.8)
    axes[1].set_ylabel("phase (deg)")
    axes[1].set_xlabel("omega (rad/s)")
    return axes


def q_r_plane(traces: pd.DataFrame, *, c_pps: float, w: float, p: float, ax=None):
    """ASM trajectories in the Q/R plane (x = q - q0 pkts, y = A - C pkts/s) with the line Lambda (P002 Fig 3)."""
    ax = _axes(ax)
    for _, part in traces.groupby("traj"):
        ax.plot(part.queue_offset_pkts, part.rate_excess_pps, lw=0.8)
    x = np.linspace(traces.queue_offset_pkts.min(), traces.queue_offset_pkts.max(), 10)
    ax.plot(x, -(p * c_pps / w) * x, "k--", lw=0.8, label="Lambda: Fb = 0")
    ax.set_xlabel("q - q0 (pkts)")
    ax.set_ylabel("A - C (pkts/s)")
    ax.legend(fontsize="small")
    return ax


def toy_density(density: pd.DataFrame, *, rates: np.ndarray | None = None, ax=None, bins: int = 60):
    """Invariant point masses (stems) and, optionally, a histogram of one run's rates (P001 Fig 11)."""
    ax = _axes(ax)
    ax.vlines(density.rate, 0, density.mass, color="k", label="mean field")
    if rates is not None:
        weights = np.full(len(rates), 1.0 / len(rates))
        ax.hist(rates, bins=bins, weights=weights, color="grey", alpha=0.6, label="finite model")
    ax.set_xlabel("source rate (units of C)")
    ax.set_ylabel("fraction of sources")
    ax.legend(fontsize="small")
    return ax


def throughput_ratio_curve(*, ax=None, n_points: int = 200):
    """T_r against beta_DCTCP in [0.5, 1) (P003 Fig 1)."""
    from ccscope.fluid.aimd import throughput_ratio

    ax = _axes(ax)
    b = np.linspace(0.5, 0.99, n_points)
    ax.plot(b, throughput_ratio(b))
    ax.set_xlabel("beta_DCTCP (fraction of window kept)")
    ax.set_ylabel("T_r = T_dctcp / T_tcp")
    return ax


def qcn_delay_margin(n_flows: float, *, rates_bps: np.ndarray | None = None, mark_rate_bps: float | None = None,
                     ax=None):
    """QCN delay figures against the link rate (P002 App. A, E33): the eq-17 bound and the exact delay
    margin of the same linear loop, log-log; delays above the margin are unstable (shaded)."""
    from ccscope.fluid.qcn import qcn_bound

    ax = _axes(ax)
    r = np.geomspace(1e9, 400e9, 16) if rates_bps is None else np.asarray(rates_bps, dtype=float)
    bounds = [qcn_bound(x, n_flows) for x in r]
    bound_us = np.array([b.bound_s for b in bounds]) * 1e6
    margin_us = np.array([b.delay_margin_s for b in bounds]) * 1e6
    ax.loglog(r / 1e9, bound_us, label="eq 17 bound (sufficient for instability)")
    ax.loglog(r / 1e9, margin_us, "--", label="exact delay margin of the linear loop")
    ax.fill_between(r / 1e9, margin_us, margin_us.max() * 10, color="tab:red", alpha=0.12, label="unstable")
    ax.set_ylim(margin_us.min() / 2, margin_us.max() * 2)
    if mark_rate_bps is not None:
        b = qcn_bound(mark_rate_bps, n_flows)
        ax.plot([mark_rate_bps / 1e9], [b.bound_s * 1e6], "ko", ms=4)
        ax.annotate(f"{b.bound_s * 1e6:.1f} us", (mark_rate_bps / 1e9, b.bound_s * 1e6), textcoords="offset points",
                    xytext=(6, 6), fontsize=8)
    ax.set_xlabel("link rate C (Gb/s)")
    ax.set_ylabel("feedback delay (us)")
    ax.set_title(f"QCN delay stability, N = {n_flows:g} (P002 App. A, E33)", fontsize=9)
    ax.legend(fontsize="small")
    return ax


def dx_stability_region(rate_bps: float, r0_s: float, *, n_max: float | None = None, mark_n: float | None = None,
                        ax=None):
    """DX Theorem 1 (P004, E50/E53): the bound on tau against the number of flows N at fixed R0, with the
    line tau = R0; stable where the bound exceeds R0 (shaded)."""
    from ccscope.fluid.dx import equilibrium, min_stable_flows

    ax = _axes(ax)
    n_star = min_stable_flows(rate_bps, r0_s)
    top = max(n_max or 0.0, 3 * n_star, 10.0)
    n = np.linspace(1, top, 200)
    bound_us = np.array([equilibrium(x, rate_bps, r0_s).bound_s for x in n]) * 1e6
    ax.plot(n, bound_us, label="Theorem 1 bound on tau (E50)")
    ax.axhline(r0_s * 1e6, color="k", ls="--", lw=0.8, label=f"tau = R0 = {r0_s * 1e6:g} us (E53)")
    ax.fill_between(n, 0, bound_us.max() * 1.1, where=bound_us > r0_s * 1e6, color="tab:green", alpha=0.12,
                    label=f"stable: N >= {n_star:.2f}")
    if mark_n is not None:
        ax.plot([mark_n], [equilibrium(mark_n, rate_bps, r0_s).bound_s * 1e6], "ko", ms=4)
    ax.set_xlabel("number of flows N")
    ax.set_ylabel("delay bound (us)")
    ax.set_title(f"DX stability, C = {rate_bps / 1e9:g} Gb/s (P004 Theorem 1)", fontsize=9)
    ax.legend(fontsize="small")
    return ax


def asm_sliding_region(*, w: float, p: float, gain_sets: dict[str, dict] | None = None, ax=None, span: float = 4.0):
    """Ineq. 15 in the (a-, b-) gain plane, gains as fractions of C/128 (P002 §5.1-5.2, E39): the first
    inequality b- > w a- + 128 p / w is shaded; the line b- = w a- (gain part of M zero, where the §5.1
    defaults sit) is dashed. `gain_sets`: name -> gains dict, drawn as points."""
    from ccscope.fluid.asm import GAIN_SCALE_DIVISOR

    ax = _axes(ax)
    offset = GAIN_SCALE_DIVISOR * p / w
    pts = [(float(g["a_minus"]), float(g["b_minus"])) for g in (gain_sets or {}).values()]
    a_hi = max([span * x for x, _ in pts] + [1 / 32])
    a = np.linspace(0, a_hi, 100)
    b_hi = max([1.5 * y for _, y in pts] + [w * a_hi + offset]) * 1.1
    ax.fill_between(a, w * a + offset, b_hi, color="tab:green", alpha=0.15, label="M(a-, b-) < 0: sliding (ineq. 15)")
    ax.plot(a, w * a + offset, "g-", lw=1, label=f"b- = w a- + 128 p/w (= w a- + {offset:.3g})")
    ax.plot(a, w * a, "k--", lw=0.8, label="b- = w a- (E39 boundary of the gain part)")
    for (name, g), (x, y) in zip((gain_sets or {}).items(), pts):
        ax.plot([x], [y], "o", ms=5, label=name)
    ax.set_xlim(0, a_hi)
    ax.set_ylim(0, b_hi)
    ax.set_xlabel("a- (fraction of C/128 per pkt of Qf)")
    ax.set_ylabel("b- (fraction of C/128 per pkt of dQ)")
    ax.set_title(f"ASM sliding condition, w = {w:g}, p = {p:g} (P002 ineq. 15)", fontsize=9)
    ax.legend(fontsize="x-small")
    return ax


def red_panels(traces: pd.DataFrame, *, q0_pkts: float | None = None, axes: Sequence[Any] | None = None):
    """TCP/RED fluid run: queue and average queue (pkts), window (pkts) against time (s)."""
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    axes[0].plot(traces.time_s, traces.queue_pkts, lw=0.8, label="queue q")
    axes[0].plot(traces.time_s, traces.avg_queue_pkts, lw=0.8, label="RED average x")
    if q0_pkts is not None:
        axes[0].axhline(q0_pkts, color="grey", ls="--", lw=0.8, label="equilibrium q0")
    axes[0].set_ylabel("queue (pkts)")
    axes[0].legend(fontsize="small")
    axes[1].plot(traces.time_s, traces.window_pkts, lw=0.8)
    axes[1].set_ylabel("window W (pkts)")
    axes[1].set_xlabel("time (s)")
    return axes
