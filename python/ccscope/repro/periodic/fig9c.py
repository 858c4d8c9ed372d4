"""periodic/fig9c: arrivals and departures, RED minfix max_th = 15: periodic like small DropTail.

Setup P0, fixed RTT 1340 ms [NG: the companion value 750 matches the fixed-RTT calculation]; see `_p0`.
"""
import sys

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig9

ID = "periodic/fig9c"
TITLE = 'arrivals and departures, RED minfix max_th = 15: periodic like small DropTail'
KIND = "sim"
COST = "full: 4200 s ≈ 0.79 M pkts (~2 s); quick 600 s"
CLAIM = 'RED min_th 5, max_th 15 (fixed RTT): the arrival rate is periodic, as with the small DropTail buffer, and loses at least as much.'
RTT, QUEUE, SIZE = "fixed", 'minfix', 15
QUICK_SIM_S = None  # quick: 600 s, starts in [0, 30] s

SEEDS = _fig9._p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
CAUSE = _fig9.CAUSE


def run(quick: bool) -> Run:
    return _fig9.run(sys.modules[__name__], quick)


def check(run: Run) -> dict:
    return _fig9.check(sys.modules[__name__], run)


def plot(run: Run):
    return _fig9.plot(sys.modules[__name__], run)
