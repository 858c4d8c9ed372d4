"""asm/fig7: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig7'
TITLE = 'flows joining and leaving: ASM keeps the link full; QCN loses throughput'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 2 × 4.5 s × 1 Gb/s ≈ 0.75 M pkts'
CLAIM = 'flows joining and leaving: ASM keeps the link full; QCN loses throughput'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
