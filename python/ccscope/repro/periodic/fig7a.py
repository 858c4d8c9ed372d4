"""periodic/fig7a: not reproduced yet -- the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'periodic/fig7a'
TITLE = 'long fixed RTT: DropTail reaches 100% at 1 BDP; RED minfix needs smaller max_th than ratiofix'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 30 runs × 0.79 M ≈ 24 M pkts'
CLAIM = 'long fixed RTT: DropTail reaches 100% at 1 BDP; RED minfix needs smaller max_th than ratiofix'
NEEDS = "the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet"


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
