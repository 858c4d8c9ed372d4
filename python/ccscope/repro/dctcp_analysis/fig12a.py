"""dctcp-analysis/fig12a: not reproduced yet -- a mechanism not yet in ccscope.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dctcp-analysis/fig12a'
TITLE = 'TCP baseline convergence of 2 flows (hybrid: ≈204 RTT ≈ 41–49 ms)'
KIND = 'both'
STATUS = "not yet"
COST = 'full: 1.5 s × 10 Gb/s ≈ 1.25 M pkts × 5 seeds'
CLAIM = 'TCP baseline convergence of 2 flows (hybrid: ≈204 RTT ≈ 41–49 ms)'
NEEDS = 'a mechanism not yet in ccscope'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
