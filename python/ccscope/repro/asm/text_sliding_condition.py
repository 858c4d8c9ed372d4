"""asm/text-sliding-condition: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/text-sliding-condition'
TITLE = 'sliding on Λ iff ineq. (15); along Λ, q−q0 decays as exp(−pC·t/w)'
KIND = 'fluid'
STATUS = "not yet"
COST = 'full: fluid runs'
CLAIM = 'sliding on Λ iff ineq. (15); along Λ, q−q0 decays as exp(−pC·t/w)'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
