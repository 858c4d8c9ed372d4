"""dctcp-analysis/fig12d: not reproduced yet -- a mid-run alpha reset of flow 1 and cwnd = 1 for the late flow (engine API), plus the module; the hybrid-model prediction is in ccscope.fluid.dctcp_hybrid.

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'dctcp-analysis/fig12d'
TITLE = 'g=1/Wmax: 185 ms; α convergence limits the rate'
KIND = 'both'
STATUS = "not yet"
COST = 'full: 1.25 M pkts × 5 seeds'
CLAIM = 'g=1/Wmax: 185 ms; α convergence limits the rate'
NEEDS = 'a mid-run alpha reset of flow 1 and cwnd = 1 for the late flow (engine API), plus the module; the hybrid-model prediction is in ccscope.fluid.dctcp_hybrid'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
