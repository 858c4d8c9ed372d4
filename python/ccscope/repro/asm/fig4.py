"""asm/fig4: not reproduced yet -- the ASM fluid model with feedback delay (ccscope.fluid.asm has no delay yet).

FIGURES.md gives the setup, claim, check and quick variant; this module keeps the ID in
`ccscope repro list` (status "not yet") until the mechanism lands.
"""
from __future__ import annotations

from ccscope.repro._base import Run, not_yet

ID = 'asm/fig4'
TITLE = 'with delay, sliding becomes quasi-sliding in a band; still converges to q0'
KIND = 'fluid (schematic)'
STATUS = "not yet"
COST = 'full: 4 delays × fluid run'
CLAIM = 'with delay, sliding becomes quasi-sliding in a band; still converges to q0'
NEEDS = 'the ASM fluid model with feedback delay (ccscope.fluid.asm has no delay yet)'


def run(quick: bool) -> Run:
    not_yet(NEEDS)


def check(run: Run) -> dict:
    not_yet(NEEDS)


def plot(run: Run):
    not_yet(NEEDS)
