"""asm/fig12: not reproduced yet -- QCN/ASM rate-based senders and congestion points, and the parking-lot template.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig12'
TITLE = 'parking-lot topology, all links 1 Gb/s'
KIND = 'sim (schematic)'
STATUS = "not yet"
COST = 'full: builder test'
CLAIM = 'parking-lot topology, all links 1 Gb/s'
NEEDS = 'QCN/ASM rate-based senders and congestion points, and the parking-lot template'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
