"""coexistence/fig5c: not reproduced yet -- the CHOKe / modified CHOKe queue in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'coexistence/fig5c'
TITLE = 'CHOKe: DCTCP α falls with min_th'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: reuses fig5a'
CLAIM = 'CHOKe: DCTCP α falls with min_th'
NEEDS = 'the CHOKe / modified CHOKe queue in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
