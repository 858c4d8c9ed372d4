"""asm/fig1: not reproduced yet -- needs a per-feedback trace (count, destination, CPID) from the engine.

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
NEEDS = 'a feedback trace from the congestion point (time, sampled packet, destination flow, CPID per feedback); the rate-based senders exist but SimResult records no per-feedback events'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
