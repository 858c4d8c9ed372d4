"""dx/fig2b: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/fig2b'
TITLE = 'N=50, R0=80 µs (stable): model and sim agree (q ≈ 7 pkts)'
KIND = 'both'
STATUS = "not yet"
COST = 'full: 0.25 M pkts'
CLAIM = 'N=50, R0=80 µs (stable): model and sim agree (q ≈ 7 pkts)'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
