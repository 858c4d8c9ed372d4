"""dctcp-analysis/fig2-n2: not reproduced yet -- a mechanism not yet in ccscope.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dctcp-analysis/fig2-n2'
TITLE = 'fluid model (eqs 5–8) matches sim for N=2; queue cycles ≈ 52–67 pkts'
KIND = 'both'
STATUS = "not yet"
COST = 'full: 0.1 s × 10 Gb/s ≈ 83 k pkts + 1 DDE run'
CLAIM = 'fluid model (eqs 5–8) matches sim for N=2; queue cycles ≈ 52–67 pkts'
NEEDS = 'a mechanism not yet in ccscope'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
