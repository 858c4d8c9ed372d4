"""periodic/fig8a: total window vs time, DropTail, fixed RTT, one trace per B.

total wnd = Σ_i min(cwnd_i, rwnd) every 100 ms (P001 footnote 2); setup P0 via `_p0`.
"""
from __future__ import annotations

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig8

ID = "periodic/fig8a"
TITLE = "total window vs time, DropTail, fixed RTT"
KIND = "sim"
COST = 'full: 3 runs × 4200 s (~5 s); quick 2 × 600 s (< 1 s)'
CLAIM = 'DropTail, fixed RTT: as the buffer grows the total window becomes constant at 50 × 20 = 1000 pkts (every flow at rwnd, the buffer absorbs the excess).'
RTT, QUEUE = 'fixed', 'droptail'
GRID = [50, 250, 750]  # [NG] sizes (FIGURES.md)
QUICK_GRID = [50, 750]

SEEDS = _fig8._p0.SWEEP_SEEDS  # budget-limited sweep seeds: periodic/_p0.py, above SEEDS
CAUSE = _fig8.CAUSE


def run(quick: bool) -> Run:
    return _fig8.run(RTT, QUEUE, GRID, QUICK_GRID, quick)


def check(run: Run) -> dict:
    return _fig8.check(RTT, QUEUE, GRID, QUICK_GRID, run)


def plot(run: Run):
    return _fig8.plot(ID, QUEUE, run)
