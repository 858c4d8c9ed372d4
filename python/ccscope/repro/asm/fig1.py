"""asm/fig1: not reproduced yet -- QCN/ASM rate-based senders and congestion points in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig1'
TITLE = '802.1Qau loop: CP samples with probability p, sends feedback, RP rate limiter reacts'
KIND = 'sim (schematic)'
STATUS = "not yet"
COST = 'full: unit/structural'
CLAIM = '802.1Qau loop: CP samples with probability p, sends feedback, RP rate limiter reacts'
NEEDS = 'QCN/ASM rate-based senders and congestion points in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
