"""dx/text-vary-r0: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/text-vary-r0'
TITLE = 'N=50: utilization 99.91 / 96.11 / 89.1% at R0 = 20 / 120 / 320 µs'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 3 × 0.25 M pkts'
CLAIM = 'N=50: utilization 99.91 / 96.11 / 89.1% at R0 = 20 / 120 / 320 µs'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
