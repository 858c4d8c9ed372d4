"""periodic/text-buffer-748: not reproduced yet -- the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'periodic/text-buffer-748'
TITLE = '(50·20)/C = RTT + B/C gives B≈748, matching the 750-pkt buffer that removes periodicity'
KIND = 'both'
STATUS = "not yet"
COST = 'full: closed form + 2 runs'
CLAIM = '(50·20)/C = RTT + B/C gives B≈748, matching the 750-pkt buffer that removes periodicity'
NEEDS = "the periodic paper's topology template (S-M1-M2-M3, 50 clients, 1.5 Mb/s, 1000-B packets) and the periodicity/drop-epoch analysis; a dumbbell approximation is possible but not written yet"


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
