"""asm/fig11: not reproduced yet -- QCN/ASM rate-based senders and congestion points, and the parking-lot template.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig11'
TITLE = 'parking lot: ASM follows the moving congested switch quickly'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 5 s × 1 Gb/s × 2 links ≈ 0.83 M pkts'
CLAIM = 'parking lot: ASM follows the moving congested switch quickly'
NEEDS = 'QCN/ASM rate-based senders and congestion points, and the parking-lot template'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
