"""coexistence/fig5a: not reproduced yet -- the CHOKe / modified CHOKe queue in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'coexistence/fig5a'
TITLE = 'CHOKe (ECN): T_r higher than RED, rising with min_th'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 7 × 4.2 M ≈ 29 M pkts'
CLAIM = 'CHOKe (ECN): T_r higher than RED, rising with min_th'
NEEDS = 'the CHOKe / modified CHOKe queue in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
