"""periodic/fig8b: total window vs time, DropTail, variable RTT, one trace per B.

total wnd = Σ_i min(cwnd_i, rwnd) every 100 ms (P001 footnote 2); setup P0 via `_p0`.
"""
from __future__ import annotations

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig8

ID = "periodic/fig8b"
TITLE = "total window vs time, DropTail, variable RTT"
KIND = "sim"
COST = 'full: 4 runs × 4200 s (~6 s); quick 2 × 600 s (< 1 s)'
CLAIM = 'DropTail, variable RTT: total wnd flattens at 1000 once the buffer can hold all receiver windows.'
RTT, QUEUE = 'variable', 'droptail'
GRID = [86, 431, 750]  # [NG] sizes (FIGURES.md)
QUICK_GRID = [86]

SEEDS = _fig8._p0.SWEEP_SEEDS  # budget-limited sweep seeds: periodic/_p0.py, above SEEDS
CAUSE = _fig8.CAUSE
QUICK_SHOWS_CLAIM = False
QUICK_NOTE = ("With starts in [0, 30] s and 200 s of warm-up the 50 near-synchronized slow starts have not settled at "
              "the computed flattening buffers within the 600-s quick run; the full run (starts in [0, 300] s, measured "
              "over 600-4200 s) is the reference.")


def run(quick: bool) -> Run:
    return _fig8.run(RTT, QUEUE, GRID, QUICK_GRID, quick)


def check(run: Run) -> dict:
    return _fig8.check(RTT, QUEUE, GRID, QUICK_GRID, run)


def plot(run: Run):
    return _fig8.plot(ID, QUEUE, run)
