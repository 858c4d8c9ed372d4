"""asm/text-qcn-delay-bound: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/text-qcn-delay-bound'
TITLE = 'QCN is unstable for delay ≥ ≈271 µs at 10 Gb/s and ≥ ≈27 µs at 100 Gb/s'
KIND = 'fluid'
STATUS = "not yet"
COST = 'full: closed form'
CLAIM = 'QCN is unstable for delay ≥ ≈271 µs at 10 Gb/s and ≥ ≈27 µs at 100 Gb/s'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
