"""dx/fig6: not reproduced yet -- DX (delay-based) senders and the many-to-one template in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dx/fig6'
TITLE = 'queue CDF vs R0: smaller R0 → larger queue; > 30 pkts always at R0=20 µs'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 5 × 0.25 M ≈ 1.25 M pkts'
CLAIM = 'queue CDF vs R0: smaller R0 → larger queue; > 30 pkts always at R0=20 µs'
NEEDS = 'DX (delay-based) senders and the many-to-one template in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
