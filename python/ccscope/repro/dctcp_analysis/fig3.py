"""dctcp-analysis/fig3: not reproduced yet -- its packet-simulation module (the engine has every mechanism it needs; not written yet in this pass).

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dctcp-analysis/fig3'
TITLE = 'g=0.4: fluid follows the α swings (q dips to ≈33), sawtooth model (q ≥ 55) does not'
KIND = 'both'
STATUS = "not yet"
COST = 'full: 83 k pkts + 1 DDE run'
CLAIM = 'g=0.4: fluid follows the α swings (q dips to ≈33), sawtooth model (q ≥ 55) does not'
NEEDS = 'its packet-simulation module (the engine has every mechanism it needs; not written yet in this pass)'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
