"""ccscope: a laboratory for datacenter congestion control.

Public API: scenario builders (`ccscope.scenario`, `ccscope.aqm`), `simulate`, `Simulation`,
`SimResult`, `load`, the fluid models (`ccscope.fluid`) and typed errors.
"""
from __future__ import annotations

__version__ = "0.1.0"
