"""asm/fig8: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig8'
TITLE = '81 combinations of (a_A±, b_A±) at ×½, ×1, ×2: mean queue barely moves'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 81 × 0.5 s × 1 Gb/s ≈ 3.4 M pkts'
CLAIM = '81 combinations of (a_A±, b_A±) at ×½, ×1, ×2: mean queue barely moves'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
