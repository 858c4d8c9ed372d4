"""periodic/fig8f: not reproduced yet -- the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'periodic/fig8f'
TITLE = 'RED ratiofix, random RTT: same trend'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 4 runs ≈ 3.2 M pkts'
CLAIM = 'RED ratiofix, random RTT: same trend'
NEEDS = "the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet"


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
