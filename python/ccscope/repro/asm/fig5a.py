"""asm/fig5a: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig5a'
TITLE = '3 sources, 1 Gb/s, q0=64: queue and rate converge quickly to (64 pkts, 1 Gb/s)'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 0.5 s × 1 Gb/s ≈ 42 k pkts'
CLAIM = '3 sources, 1 Gb/s, q0=64: queue and rate converge quickly to (64 pkts, 1 Gb/s)'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
