"""coexistence/fig8a: not reproduced yet -- Poisson short-flow workloads in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'coexistence/fig8a'
TITLE = '20% short-flow load, RED: AFCT falls as min_th falls'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 4 × 10 s × 1 Gb/s ≈ 3.3 M pkts'
CLAIM = '20% short-flow load, RED: AFCT falls as min_th falls'
NEEDS = 'Poisson short-flow workloads in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
