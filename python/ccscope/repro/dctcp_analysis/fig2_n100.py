"""dctcp-analysis/fig2-n100: not reproduced yet -- a mechanism not yet in ccscope.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dctcp-analysis/fig2-n100'
TITLE = 'w̄<2: fixed point W=2, α=1, q≈117 pkts (text: ~120), RTT 240 µs, 100 Mb/s per flow'
KIND = 'both'
STATUS = "not yet"
COST = 'full: 83 k pkts'
CLAIM = 'w̄<2: fixed point W=2, α=1, q≈117 pkts (text: ~120), RTT 240 µs, 100 Mb/s per flow'
NEEDS = 'a mechanism not yet in ccscope'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
