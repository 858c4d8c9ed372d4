"""asm/fig10: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig10'
TITLE = '100 Gb/s, 10 µs/link (RTT 60 µs): QCN unstable and drains the buffer; ASM tolerant'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 8 runs × 20 ms × 100 Gb/s ≈ 1.3 M pkts'
CLAIM = '100 Gb/s, 10 µs/link (RTT 60 µs): QCN unstable and drains the buffer; ASM tolerant'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
