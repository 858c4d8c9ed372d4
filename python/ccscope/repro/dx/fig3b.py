"""dx/fig3b: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/fig3b'
TITLE = 'utilization vs N (R0=80 µs): special state from N ≈ 67'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 10 × 0.25 M ≈ 2.5 M pkts'
CLAIM = 'utilization vs N (R0=80 µs): special state from N ≈ 67'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
