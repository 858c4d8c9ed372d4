"""periodic/fig7b: not reproduced yet -- the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'periodic/fig7b'
TITLE = 'short fixed RTT: RED needs a much larger buffer than DropTail for 100%'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: ≈ 24 M pkts'
CLAIM = 'short fixed RTT: RED needs a much larger buffer than DropTail for 100%'
NEEDS = "the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet"


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
