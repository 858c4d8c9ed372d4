"""dx/text-vary-c: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/text-vary-c'
TITLE = 'N=50, R0=120 µs: utilization 99.86 / 96.11 / 86.44% at 1 / 10 / 40 Gb/s'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: ≈ 1.4 M pkts'
CLAIM = 'N=50, R0=120 µs: utilization 99.86 / 96.11 / 86.44% at 1 / 10 / 40 Gb/s'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
