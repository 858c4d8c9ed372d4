"""periodic/fig4b: DropTail, variable RTT (mean 2300 ms), B = 86 pkts: periodic, loss ≈ 5-7%.

Setup P0 (FIGURES.md) through `ccscope.scenario.periodic`; measurements in `_p0`. The loss of
utilization is compared with the paper's band and with the synchronized-halving ceiling L_sync.
"""
import sys

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig4

ID = "periodic/fig4b"
TITLE = 'DropTail, variable RTT (mean 2300 ms), B = 86 pkts: periodic, loss ≈ 5-7%'
KIND = "sim"
COST = 'full: 4200 s × 187.5 pkt/s ≈ 0.79 M pkts per run (~2 s); quick 600 s (~0.3 s)'
CLAIM = 'DropTail with a small buffer (B = 86 pkts = 20% of the 431-pkt mean-RTT BDP, RTTs U(0,1 s) + 1300 ms): still periodic, egress utilization loss ≈ 5-7%.'
RTT, QUEUE, SIZE = 'variable', 'droptail', 86
COMPARE = None  # the DropTail run this RED case is compared with (None for the DropTail panels)
LOSS_LO, LOSS_HI, B_SYNC = 3, 10, 0.2


SEEDS = _fig4._p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
CAUSE, PAPER_NUMBERS = _fig4.CAUSE, _fig4.PAPER_NUMBERS


def run(quick: bool) -> Run:
    return _fig4.run(sys.modules[__name__], quick)


def check(run: Run) -> dict:
    return _fig4.check(sys.modules[__name__], run)


def plot(run: Run):
    return _fig4.plot(sys.modules[__name__], run)
