"""ccscope: a laboratory for datacenter congestion control.

Public API: scenario builders (`ccscope.scenario`, `ccscope.aqm`), `simulate`, `Simulation`,
`SimResult`, `load`, the fluid models (`ccscope.fluid`) and typed errors.

Every name loads on first use (PEP 562), so `import ccscope` costs nothing until something is
used, and the command line starts without pulling in numpy and pandas before it needs them
(a Ctrl-C during that start-up then ends quietly: `ccscope._entry`).
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> the module that defines it
_NAMES = {
    "Interrupted": "ccscope.errors", "ResultError": "ccscope.errors", "ScenarioError": "ccscope.errors",
    "SimulationError": "ccscope.errors", "simulate_many": "ccscope.many", "SimResult": "ccscope.result",
    "load": "ccscope.result", "Scenario": "ccscope.scenario.model", "Simulation": "ccscope.sim",
    "simulate": "ccscope.sim",
}
#: subpackages reachable as attributes (`ccscope.fluid` pulls in scipy, and JAX when installed)
_SUBMODULES = ("aqm", "scenario", "units", "fluid", "sweep", "analysis")


def __getattr__(name: str):
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"ccscope.{name}")
    else:
        raise AttributeError(f"module 'ccscope' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES) | set(_SUBMODULES))


__all__ = ["Interrupted", "ResultError", "Scenario", "ScenarioError", "SimResult", "Simulation", "SimulationError", "aqm", "load", "scenario",
           "simulate", "simulate_many", "units", "__version__"]
