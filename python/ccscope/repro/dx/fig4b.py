"""dx/fig4b: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/fig4b'
TITLE = 'mean cwnd vs R0 (N=50): 1 segment for R0 ≤ 60 µs'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 7 × 0.25 M ≈ 1.75 M pkts'
CLAIM = 'mean cwnd vs R0 (N=50): 1 segment for R0 ≤ 60 µs'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
