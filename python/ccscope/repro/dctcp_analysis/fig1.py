"""dctcp-analysis/fig1: not reproduced yet -- its packet-simulation module (the engine has every mechanism it needs; not written yet in this pass).

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dctcp-analysis/fig1'
TITLE = 'DCTCP keeps a small queue near K at full rate; TCP fills the ~600 KB port buffer'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 2 runs × 2 s × 2 flows × 1 Gb/s ≈ 0.33 M pkts'
CLAIM = 'DCTCP keeps a small queue near K at full rate; TCP fills the ~600 KB port buffer'
NEEDS = 'its packet-simulation module (the engine has every mechanism it needs; not written yet in this pass)'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
