"""dx/table1: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/table1'
TITLE = 'fraction p of RTTs with a window decrease: > 0.9 when stable, > 0.99 in the special state'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 30 runs × 0.3 s × 10 Gb/s ≈ 7.5 M pkts'
CLAIM = 'fraction p of RTTs with a window decrease: > 0.9 when stable, > 0.99 in the special state'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
