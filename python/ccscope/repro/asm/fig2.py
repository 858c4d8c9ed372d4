"""asm/fig2: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig2'
TITLE = "QCN's (q, A) trajectory circles the stable point (q0, C) before settling"
KIND = 'both'
STATUS = "not yet"
COST = 'full: reuses fig5 scenario, QCN'
CLAIM = "QCN's (q, A) trajectory circles the stable point (q0, C) before settling"
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
