"""dx/text-vary-n: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/text-vary-n'
TITLE = 'R0=120 µs: utilization 94.81 / 96.11 / 98.53% at N = 10 / 50 / 100'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 3 × 0.25 M pkts'
CLAIM = 'R0=120 µs: utilization 94.81 / 96.11 / 98.53% at N = 10 / 50 / 100'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
