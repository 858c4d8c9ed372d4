"""dctcp-analysis/fig2-n10: not reproduced yet -- a mechanism not yet in ccscope.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dctcp-analysis/fig2-n10'
TITLE = 'same for N=10; queue cycles ≈ 44–77 pkts'
KIND = 'both'
STATUS = "not yet"
COST = 'full: 83 k pkts + 1 DDE run'
CLAIM = 'same for N=10; queue cycles ≈ 44–77 pkts'
NEEDS = 'a mechanism not yet in ccscope'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
