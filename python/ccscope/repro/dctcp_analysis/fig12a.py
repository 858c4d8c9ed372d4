"""dctcp-analysis/fig12a: not reproduced yet -- a mid-run alpha reset of flow 1 and cwnd = 1 for the late flow (engine API), plus the module; the hybrid-model prediction is in ccscope.fluid.dctcp_hybrid.

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
NEEDS = 'a mid-run alpha reset of flow 1 and cwnd = 1 for the late flow (engine API), plus the module; the hybrid-model prediction is in ccscope.fluid.dctcp_hybrid'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
