"""dctcp-analysis/fig13: not reproduced yet -- its packet-simulation module (the engine has every mechanism it needs; not written yet in this pass).

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dctcp-analysis/fig13'
TITLE = 'DCTCP RTT-fairness lies between TCP-RED (∝RTT⁻¹) and TCP-0/1 marking (∝RTT⁻²); per-ACK variant ≈ linear'
KIND = 'sim'
STATUS = "not yet"
COST = 'full: 24 runs × 2 s × 10 Gb/s ≈ 40 M pkts'
CLAIM = 'DCTCP RTT-fairness lies between TCP-RED (∝RTT⁻¹) and TCP-0/1 marking (∝RTT⁻²); per-ACK variant ≈ linear'
NEEDS = 'its packet-simulation module (the engine has every mechanism it needs; not written yet in this pass)'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
