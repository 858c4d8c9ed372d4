"""Plot helper for the DX sweeps (utilization / cwnd / queue vs a parameter)."""
from __future__ import annotations

from ccscope.repro._base import figure


def sweep_plot(d, x: str, y: str, *, xlabel: str, ylabel: str, title: str, scale: float = 1.0, paper=None, refs=()):
    fig, ax = figure(width=6, height=4)
    ax = ax[0, 0]
    d = d.sort_values(x)
    ax.plot(d[x], d[y] * scale, "o-", label="ccscope packet sim")
    if paper:
        ax.plot(list(paper), list(paper.values()), "s--", color="0.3", label="paper")
    for v, lab, vert in refs:
        (ax.axvline if vert else ax.axhline)(v, ls=":", color="C3", label=lab)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return fig
