"""periodic/fig8b: total window vs time, DropTail, variable RTT, one trace per B.

total wnd = Σ_i min(cwnd_i, rwnd) every 100 ms (P001 footnote 2); setup P0 via `_p0`.
"""
from __future__ import annotations

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig8

ID = "periodic/fig8b"
TITLE = "total window vs time, DropTail, variable RTT"
KIND = "sim"
STATUS = "partly"
COST = 'full: 4 runs × 4200 s (~6 s); quick 2 × 600 s (< 1 s)'
CLAIM = 'DropTail, variable RTT: total wnd flattens at 1000 once the buffer can hold all receiver windows.'
RTT, QUEUE = 'variable', 'droptail'
GRID = [86, 431, 750]  # [NG] sizes (FIGURES.md)
QUICK_GRID = [86]


def run(quick: bool) -> Run:
    return _fig8.run(RTT, QUEUE, GRID, QUICK_GRID, quick)


def check(run: Run) -> dict:
    return _fig8.check(RTT, QUEUE, GRID, QUICK_GRID, run)


def plot(run: Run):
    return _fig8.plot(ID, QUEUE, run)
