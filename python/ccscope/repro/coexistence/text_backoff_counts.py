"""coexistence/text-backoff-counts: not reproduced yet -- the CHOKe / modified CHOKe queue in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'coexistence/text-backoff-counts'
TITLE = 'min_th=40: DCTCP ≈1600 back-offs (mean α≈0.215) vs TCP ≈400; eq 4 would predict 4.6'
KIND = 'both'
STATUS = "not yet"
COST = 'full: 10 s × 1 Gb/s ≈ 0.83 M pkts'
CLAIM = 'min_th=40: DCTCP ≈1600 back-offs (mean α≈0.215) vs TCP ≈400; eq 4 would predict 4.6'
NEEDS = 'the CHOKe / modified CHOKe queue in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
