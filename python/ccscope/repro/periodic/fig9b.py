"""periodic/fig9b: arrivals and departures, DropTail B = 750: no periodic fluctuation, link full.

Setup P0, fixed RTT 1340 ms [NG: the companion value 750 matches the fixed-RTT calculation]; see `_p0`.
"""
import sys

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig9

ID = "periodic/fig9b"
TITLE = 'arrivals and departures, DropTail B = 750: no periodic fluctuation, link full'
KIND = "sim"
COST = "full: 4200 s ≈ 0.79 M pkts (~2 s); quick 900 s"
CLAIM = 'DropTail B = 750 (fixed RTT): no periodic fluctuation, the link stays full and nothing is dropped after warm-up.'
RTT, QUEUE, SIZE = "fixed", 'droptail', 750
QUICK_SIM_S = 900.0  # quick keeps the [0, 300] s starts so the 750-pkt buffer reaches its drop-free state (see _p0.setup)

SEEDS = _fig9._p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
CAUSE = _fig9.CAUSE


def run(quick: bool) -> Run:
    return _fig9.run(sys.modules[__name__], quick)


def check(run: Run) -> dict:
    return _fig9.check(sys.modules[__name__], run)


def plot(run: Run):
    return _fig9.plot(sys.modules[__name__], run)
