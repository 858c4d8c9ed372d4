"""coexistence/fig6a: not reproduced yet -- the CHOKe / modified CHOKe queue in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'coexistence/fig6a'
TITLE = 'modified CHOKe (m=7): T_r ≈1.5 at min_th=30 → ≈2 at 90, fairer than RED'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 7 × 4.2 M ≈ 29 M pkts'
CLAIM = 'modified CHOKe (m=7): T_r ≈1.5 at min_th=30 → ≈2 at 90, fairer than RED'
NEEDS = 'the CHOKe / modified CHOKe queue in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
