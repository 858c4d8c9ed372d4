"""periodic/fig6b: flows with multiple drops per congestion epoch, RED minfix max_th = 15 (the `fig4c and fig4a` run).

Per epoch (drop burst, gaps ≤ 1 s, E23) count the flows that lost ≥ 2 packets in it (a likely
timeout for Reno); histogram over epochs.
"""
from __future__ import annotations

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig6

ID = "periodic/fig6b"
TITLE = "flows with multiple drops per burst, RED minfix max_th = 15"
KIND = "sim"
COST = "reuses the fig4c and fig4a run(s) (full ~2 s each)"
CLAIM = 'RED (min_th 5, max_th 15) makes more flows take multiple drops per epoch than DropTail, so the aggregate falls further and the small queue empties sooner.'
RUNS = {'red': ('fixed', 'minfix', 15), 'droptail': ('fixed', 'droptail', 50)}  # name -> (rtt, queue, size)

SEEDS = _fig6._p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
CAUSE, PAPER_NUMBERS = _fig6.CAUSE, _fig6.PAPER_NUMBERS


def run(quick: bool) -> Run:
    return _fig6.run(RUNS, quick)


def check(run: Run) -> dict:
    return _fig6.check(RUNS, run)


def plot(run: Run):
    return _fig6.plot(ID, RUNS, run)
