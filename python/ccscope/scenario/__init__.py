"""Scenarios: dataclasses mirroring the Rust schema, TOML/JSON I/O, `--set` overrides and
topology builders (`dumbbell`). A scenario may be given to `ccscope.simulate` as a
`Scenario`, a plain dict, or a path to a .toml/.json file."""
from __future__ import annotations

from ccscope.scenario.io import apply_set, load_file, to_engine_json, as_dict, expand, validate
from ccscope.scenario.model import (CdfSize, CubicConfig, SwiftConfig, TimelyConfig, DctcpConfig, DxConfig, FixedSize, Incast, PfcConfig, SharedBufferConfig, Poisson, UniformSize, Dumbbell, FatTree, FlowSpec,
                                    FlowsTemplate, Graph, LeafSpine, LinkSpec, NodeSpec, RecordConfig, Scenario, SchedConfig, TcpConfig)
from ccscope.scenario.builders import dumbbell, incast, parking_lot, periodic

__all__ = ["CdfSize", "FixedSize", "Incast", "PfcConfig", "SharedBufferConfig", "Poisson", "UniformSize", "Scenario", "Dumbbell", "FatTree", "LeafSpine", "Graph", "NodeSpec", "LinkSpec", "SchedConfig",
           "FlowsTemplate", "FlowSpec", "TcpConfig", "CubicConfig", "SwiftConfig", "TimelyConfig", "DctcpConfig", "DxConfig", "RecordConfig", "dumbbell", "incast", "parking_lot", "periodic",
           "load_file", "apply_set", "to_engine_json", "as_dict", "expand",
           "validate"]
