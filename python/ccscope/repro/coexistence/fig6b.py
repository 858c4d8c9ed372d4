"""coexistence/fig6b: not reproduced yet -- the CHOKe / modified CHOKe queue in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'coexistence/fig6b'
TITLE = 'modified CHOKe: DCTCP α vs min_th (higher at small min_th)'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: reuses fig6a'
CLAIM = 'modified CHOKe: DCTCP α vs min_th (higher at small min_th)'
NEEDS = 'the CHOKe / modified CHOKe queue in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
