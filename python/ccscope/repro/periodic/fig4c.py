"""periodic/fig4c: RED minfix (min_th 5, max_th 15), fixed RTT: periodic, loss ≈ 15%.

Setup P0 (FIGURES.md) through `ccscope.scenario.periodic`; measurements in `_p0`. The loss of
utilization is compared with the paper's band and with the synchronized-halving ceiling L_sync.
"""
import sys

from ccscope.repro._base import Run
from ccscope.repro.periodic import _fig4

ID = "periodic/fig4c"
TITLE = 'RED minfix (min_th 5, max_th 15), fixed RTT: periodic, loss ≈ 15%'
KIND = "sim"
COST = 'full: 4200 s × 187.5 pkt/s ≈ 0.79 M pkts per run (~2 s); quick 600 s (~0.3 s)'
CLAIM = "RED with small thresholds (min_th 5, max_th 15; fixed RTT) loses ≈ 15% of utilization, worse than DropTail; RED's randomness does not remove the periodicity."
RTT, QUEUE, SIZE = 'fixed', 'minfix', 15
COMPARE = ('fixed', 'droptail', 50, 'fig4a')  # the DropTail run this RED case is compared with (None for the DropTail panels)
LOSS_LO, LOSS_HI, B_SYNC = 10, 20, 0.06


SEEDS = _fig4._p0.SEEDS  # computation: periodic/_p0.py, above SEEDS
CAUSE, PAPER_NUMBERS = _fig4.CAUSE, _fig4.PAPER_NUMBERS


def run(quick: bool) -> Run:
    return _fig4.run(sys.modules[__name__], quick)


def check(run: Run) -> dict:
    return _fig4.check(sys.modules[__name__], run)


def plot(run: Run):
    return _fig4.plot(sys.modules[__name__], run)
