"""periodic/appB: not reproduced yet -- the RED unit tests of Appendix B wired into the harness (the RED queue exists; its Rust unit tests are not linked to this entry yet).

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'periodic/appB'
TITLE = 'RED settings: q_w=0.002, no gentle mode, tail drop, packet mode'
KIND = 'sim (unit)'
STATUS = "not yet"
COST = 'full: unit tests'
CLAIM = 'RED settings: q_w=0.002, no gentle mode, tail drop, packet mode'
NEEDS = ("a way to drive the RED component with a synthetic queue trace from Python (the engine exposes no RED hook; "
         "its Rust unit tests cover Red::update_average/decide), or an exact per-arrival record: replaying a run's "
         "queue trace (queue_every_change) misses ~12% of the arrivals at M2->M3 (an enqueue and a dequeue at the same "
         "instant leave the recorded value unchanged), so an independent numpy Floyd-Jacobson replay cannot be exact")


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
