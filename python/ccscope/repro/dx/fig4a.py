"""dx/fig4a: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/fig4a'
TITLE = 'mean cwnd vs N (R0=120 µs): exactly 1 segment for N ≥ 100'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 7 × 0.25 M ≈ 1.75 M pkts'
CLAIM = 'mean cwnd vs N (R0=120 µs): exactly 1 segment for N ≥ 100'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
