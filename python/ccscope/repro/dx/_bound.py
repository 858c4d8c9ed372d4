"""Shared Theorem 1 helpers for dx/fig1a-c (corrected eq 17, erratum E50; tau = R0, E53)."""
from __future__ import annotations

from ccscope.fluid.dx import equilibrium

ERRATA = [{"id": "E50", "paper": "eq 17 with + atan(w b2/(a1 b2 - a2 b1)) (negative bounds)",
           "corrected": "- atan(...): G(j w_c) = -1 exactly at the bound"},
          {"id": "E53", "paper": "tau = RTT", "corrected": "tau = R0 reproduces 42 / 139 flows and 145 us"}]


def bound_us(n: float, rate_bps: float, r0_s: float) -> float:
    return equilibrium(n, rate_bps, r0_s).bound_s * 1e6
