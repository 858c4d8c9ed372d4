"""coexistence/fig8b: not reproduced yet -- Poisson short-flow workloads in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'coexistence/fig8b'
TITLE = 'same with modified CHOKe: fairer AFCTs at high min_th'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: ≈ 3.3 M pkts'
CLAIM = 'same with modified CHOKe: fairer AFCTs at high min_th'
NEEDS = 'Poisson short-flow workloads in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
