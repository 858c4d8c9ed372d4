"""Shared by the data-file sandbox tests (test_data_sandbox.py, test_sweep_sandbox.py): a Poisson workload that
draws its flow sizes from a CDF file, the directory tree that file sits in, and the CLI run with a secret in its
environment (no error line may show it)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: the CDF file: half the flows 100 B, the rest up to 10 kB
CDF = "100 0.5\n10000 1.0\n"


def cdf_scenario_toml(name: str, file: str) -> str:
    """A 1-ms dumbbell scenario named `name` whose Poisson workload reads its sizes from `file`."""
    return f"""name = "{name}"
until_s = 0.001
[topology]
kind = "dumbbell"
bottleneck_bps = 1e9
rtt_s = 1e-4
senders = 2
[[workload]]
kind = "poisson"
src = ["s0", "s1"]
dst = ["r0"]
load = 0.3
reference_bps = 1e9
size = {{ kind = "cdf", file = "{file}" }}
"""


def cdf_tree(tmp_path: Path) -> Path:
    """tmp/sc/data/ok.csv (beside the scenario or sweep file, which goes in tmp/sc/) and tmp/outside/ok.csv."""
    (tmp_path / "sc" / "data").mkdir(parents=True)
    (tmp_path / "sc" / "data" / "ok.csv").write_text(CDF)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "ok.csv").write_text(CDF)
    return tmp_path


def cli_with_secret(secret: str, *args, cwd=None, timeout=60) -> subprocess.CompletedProcess:
    """`python -m ccscope ARGS` with the environment variable `secret` set to itself."""
    env = dict(os.environ, **{secret: secret})
    return subprocess.run([sys.executable, "-m", "ccscope", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)
