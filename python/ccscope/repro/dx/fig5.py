"""dx/fig5: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/fig5'
TITLE = 'special state: queueing delay grows linearly in N (slope seg/C = 1.2 µs per flow)'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 6 × 0.25 M ≈ 1.5 M pkts'
CLAIM = 'special state: queueing delay grows linearly in N (slope seg/C = 1.2 µs per flow)'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
