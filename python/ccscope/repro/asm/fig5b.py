"""asm/fig5b: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig5b'
TITLE = 'same run in the Q/R plane: straight approach, then chattering at the stable point'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: reuses fig5a'
CLAIM = 'same run in the Q/R plane: straight approach, then chattering at the stable point'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
