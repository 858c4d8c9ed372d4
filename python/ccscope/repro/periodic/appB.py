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
NEEDS = 'the RED unit tests of Appendix B wired into the harness (the RED queue exists; its Rust unit tests are not linked to this entry yet)'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
