"""coexistence/fig7: not reproduced yet -- incast workloads (many-to-one request/response) in the engine.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'coexistence/fig7'
TITLE = 'incast (1 MB split over n senders): TCP AFCT > 2× DCTCP at n=90'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: ≈ 3 M pkts'
CLAIM = 'incast (1 MB split over n senders): TCP AFCT > 2× DCTCP at n=90'
NEEDS = 'incast workloads (many-to-one request/response) in the engine'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
