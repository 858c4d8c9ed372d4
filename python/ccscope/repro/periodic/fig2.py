"""periodic/fig2: not reproduced yet -- the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'periodic/fig2'
TITLE = 'the aggregate of 50 flows is flat with a large buffer, periodic with a small one'
KIND = 'sim (schematic)'
STATUS = "not yet"
COST = 'full: 2 × 4200 s × 1.5 Mb/s ≈ 1.6 M pkts'
CLAIM = 'the aggregate of 50 flows is flat with a large buffer, periodic with a small one'
NEEDS = "the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet"


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
