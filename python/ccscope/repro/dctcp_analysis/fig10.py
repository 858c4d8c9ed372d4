"""dctcp-analysis/fig10: not reproduced yet -- its packet-simulation module (the engine has every mechanism it needs; not written yet in this pass).

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dctcp-analysis/fig10'
TITLE = 'DCTCP ≥ 94% throughput even at K = 1% of BDP; N=25 below N=2; TCP far lower'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 32 runs × 1 s × 10 Gb/s ≈ 27 M pkts'
CLAIM = 'DCTCP ≥ 94% throughput even at K = 1% of BDP; N=25 below N=2; TCP far lower'
NEEDS = 'its packet-simulation module (the engine has every mechanism it needs; not written yet in this pass)'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
