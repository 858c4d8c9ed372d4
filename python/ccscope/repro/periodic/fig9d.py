"""periodic/fig9d: arrivals and departures, RED minfix max_th = 1500: queue fluctuates, no periodicity.

Setup P0, fixed RTT 1340 ms [NG: the companion value 750 matches the fixed-RTT calculation]; see `_p0`.
"""
import sys

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig9

ID = "periodic/fig9d"
TITLE = 'arrivals and departures, RED minfix max_th = 1500: queue fluctuates, no periodicity'
KIND = "sim"
COST = "full: 4200 s ≈ 0.79 M pkts (~2 s); quick 1200 s"
CLAIM = 'RED min_th 5, max_th 1500 (fixed RTT): the queue still fluctuates but the arrival process has no prominent periodicity; the link stays full.'
RTT, QUEUE, SIZE = "fixed", 'minfix', 1500
QUICK_SIM_S = 1200.0  # fig9d quick: 1200 s (RED with a large max_th settles slowly at w_q = 0.002)
QUICK_SHOWS_CLAIM = False
QUICK_NOTE = ("1200 s and three seeds: the queue CV sits just above the 0.05 threshold, by less than two "
              "standard errors, so the row is inside the noise; five seeds over 4200 s resolve it")

SEEDS = _fig9._p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
CAUSE = _fig9.CAUSE


def run(quick: bool) -> Run:
    return _fig9.run(sys.modules[__name__], quick)


def check(run: Run) -> dict:
    return _fig9.check(sys.modules[__name__], run)


def plot(run: Run):
    return _fig9.plot(sys.modules[__name__], run)
