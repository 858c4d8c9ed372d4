"""ccscope: a laboratory for datacenter congestion control.

Public API: scenario builders (`ccscope.scenario`, `ccscope.aqm`), `simulate`, `Simulation`,
`SimResult`, `load`, the fluid models (`ccscope.fluid`) and typed errors.
"""
from __future__ import annotations

__version__ = "0.1.0"

from ccscope import aqm, scenario, units  # noqa: E402
from ccscope.errors import Interrupted, ResultError, ScenarioError, SimulationError  # noqa: E402
from ccscope.many import simulate_many  # noqa: E402
from ccscope.result import SimResult, load  # noqa: E402
from ccscope.scenario.model import Scenario  # noqa: E402
from ccscope.sim import Simulation, simulate  # noqa: E402


def __getattr__(name: str):
    # The fluid models load on first use (they pull in scipy, and JAX when installed).
    if name == "fluid":
        import importlib
        return importlib.import_module("ccscope.fluid")
    raise AttributeError(f"module 'ccscope' has no attribute {name!r}")


__all__ = ["Interrupted", "ResultError", "Scenario", "ScenarioError", "SimResult", "Simulation", "SimulationError", "aqm", "load", "scenario",
           "simulate", "simulate_many", "units", "__version__"]
