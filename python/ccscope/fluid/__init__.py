"""Fluid, hybrid, mean-field and closed-form models of the five papers (see docs/models/).

Every model takes its required inputs positionally and options as keywords, and returns result
objects with named fields. DDE models share one fixed-step solver (`ccscope.fluid.solver`) with a
compiled backend (default, `backend="native"`: Rust, all cores), the numpy reference it is tested
against (`backend="numpy"`) and an optional JAX backend (`backend="jax"`).

Models: dctcp, dctcp_normalized, dctcp_hybrid (P000); toy, sawtooth, tcp_red (P001 setups; TCP/RED after
Misra-Gong-Towsley / Hollot et al.); qcn_bound, qcn_fluid, asm_fluid (P002, with feedback delay); dx (P004);
beta_from_alpha, throughput_ratio (P003); dcqcn_fluid, timely_fluid (Zhu et al., CoNEXT 2016).
Your own: user_model(name, state=..., rhs=..., params=..., delay=...) (docs/extending.md).

Note: the names `dctcp`, `dx`, `toy`, `sweep`, `tcp_red` here are the model constructors; their modules are
`ccscope.fluid.dctcp` etc. (import names from them with `from ccscope.fluid.dctcp import ...`).
"""
from __future__ import annotations

from ccscope.fluid.aimd import beta_from_alpha, throughput_ratio
from ccscope.fluid.asm import AsmFluid, asm_fluid, sliding_condition
from ccscope.fluid.base import FluidResult, LimitCycle
from ccscope.fluid.dctcp import (
           DctcpFluid,
           DctcpNormalized,
           PoincareResult,
           dctcp,
           dctcp_normalized,
)
from ccscope.fluid.dcqcn import DcqcnFluid, dcqcn_fluid
from ccscope.fluid.dctcp_hybrid import DctcpHybrid, convergence_rate, dctcp_hybrid
from ccscope.fluid.dx import DxFluid, dx
from ccscope.fluid.qcn import QcnFluid, qcn_bound, qcn_fluid
from ccscope.fluid.sawtooth import sawtooth
from ccscope.fluid.sweep import sweep
from ccscope.fluid.tcp_red import TcpRedFluid, tcp_red
from ccscope.fluid.timely import TimelyFluid, timely_fluid
from ccscope.fluid.toy import ToyModel, invariant_density, toy
from ccscope.fluid.user import UserModel, UserModelError, user_model

__all__ = ["AsmFluid", "DcqcnFluid", "DctcpFluid", "DctcpHybrid", "DctcpNormalized", "DxFluid", "FluidResult", "LimitCycle",
           "PoincareResult", "QcnFluid", "TcpRedFluid", "TimelyFluid", "ToyModel", "asm_fluid", "beta_from_alpha", "convergence_rate",
           "dcqcn_fluid", "dctcp", "dctcp_hybrid", "dctcp_normalized", "dx", "invariant_density", "qcn_bound", "qcn_fluid", "sawtooth",
           "sliding_condition", "sweep", "tcp_red", "throughput_ratio", "timely_fluid", "toy",
           "UserModel", "UserModelError", "user_model"]
