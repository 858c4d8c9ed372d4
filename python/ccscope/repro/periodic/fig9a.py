"""periodic/fig9a: arrivals and departures, DropTail B = 50: prominent periodic fluctuation.

Setup P0, fixed RTT 1340 ms [NG: the companion value 750 matches the fixed-RTT calculation]; see `_p0`.
"""
import sys

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig9

ID = "periodic/fig9a"
TITLE = 'arrivals and departures, DropTail B = 50: prominent periodic fluctuation'
KIND = "sim"
COST = "full: 4200 s ≈ 0.79 M pkts (~2 s); quick 600 s"
CLAIM = 'DropTail B = 50 (fixed RTT): the aggregate arrival rate fluctuates periodically and prominently; egress loss > 2%.'
RTT, QUEUE, SIZE = "fixed", 'droptail', 50
QUICK_SIM_S = None  # quick: 600 s, starts in [0, 30] s

SEEDS = _fig9._p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
CAUSE = _fig9.CAUSE


def run(quick: bool) -> Run:
    return _fig9.run(sys.modules[__name__], quick)


def check(run: Run) -> dict:
    return _fig9.check(sys.modules[__name__], run)


def plot(run: Run):
    return _fig9.plot(sys.modules[__name__], run)
