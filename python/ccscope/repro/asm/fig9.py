"""asm/fig9: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig9'
TITLE = '1 → 100 Gb/s: same queue oscillation amplitude, no throughput loss'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 4 speeds ≈ 1.3 M pkts'
CLAIM = '1 → 100 Gb/s: same queue oscillation amplitude, no throughput loss'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
