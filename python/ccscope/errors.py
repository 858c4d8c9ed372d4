"""Typed errors. `ScenarioError` (a ValueError) names the field path, the value and what is
allowed; `SimulationError` (a RuntimeError) means an internal check failed during a run;
`Interrupted` (a KeyboardInterrupt) is a run stopped by Ctrl-C, carrying its partial result."""
from __future__ import annotations

from ccscope._native import ScenarioError, SimulationError

__all__ = ["Interrupted", "ScenarioError", "SimulationError"]


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (SIGINT; in the CLI also SIGTERM) before its end.

    result: what was simulated so far, a `SimResult` marked partial (`meta["partial"]` is True,
    `meta["interrupted_at_s"]` the simulated time reached, the summary over [warm-up, that
    time]), or None when nothing could be kept. A KeyboardInterrupt, so code that does not
    know it stops as before; a notebook can keep the result:

        try:
            res = ccscope.simulate(sc)
        except ccscope.Interrupted as e:
            res = e.result
    """

    def __init__(self, result=None, message=None):
        self.result = result
        if message is None:
            message = describe_interruption(result)
        super().__init__(message)

    def __reduce__(self):
        return (type(self), (self.result, str(self)))


def describe_interruption(result) -> str:
    """ "interrupted at 0.431 s of 1 s simulated" for a partial result (or a plain line)."""
    meta = getattr(result, "meta", None) or {}
    at, end = meta.get("interrupted_at_s"), meta.get("scheduled_end_s")
    if at is None:
        return "interrupted; nothing simulated was kept"
    if end is None:
        return f"interrupted at {at:.3g} s simulated"
    return f"interrupted at {at:.3g} s of {end:.6g} s simulated"
