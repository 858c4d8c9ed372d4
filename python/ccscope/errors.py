"""Typed errors. `ScenarioError` (a ValueError) names the field path, the value and what is
allowed; `SimulationError` (a RuntimeError) means an internal check failed during a run."""
from __future__ import annotations

from ccscope._native import ScenarioError, SimulationError

__all__ = ["ScenarioError", "SimulationError"]
