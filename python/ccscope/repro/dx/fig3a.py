"""dx/fig3a: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/fig3a'
TITLE = 'utilization vs R0 (N=50): 99.9% in special state, then stable, then unstable'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 11 × 0.25 M ≈ 2.75 M pkts'
CLAIM = 'utilization vs R0 (N=50): 99.9% in special state, then stable, then unstable'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
