"""asm/fig3: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig3'
TITLE = 'ASM: spirals in regions I–IV, parabolas in V–VI, then slides along Λ'
KIND = 'fluid'
STATUS = "not yet"
COST = 'full: 8 starts × fluid run'
CLAIM = 'ASM: spirals in regions I–IV, parabolas in V–VI, then slides along Λ'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
