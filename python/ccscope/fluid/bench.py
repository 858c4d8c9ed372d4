"""Benchmarks of the fluid solver for BENCHMARKS.md ("Fluid models"): `python -m ccscope.fluid.bench`.

- `dctcp_single`: the DCTCP fluid model for 0.2 s (N = 2, 10 Gb/s, 100 us, K = 65; 561 k steps),
  cold (first call in a fresh interpreter, after the imports; any compilation counted) and warm
  (best of the following calls), per backend.
- `stability_map`: the n x n normalized DCTCP map (queue amplitude over wbar x g, 16 000 steps per point).
- `cli_fluid_dctcp`: `ccscope fluid dctcp --until 50ms`, whole process.

Timings are wall clock and depend on the machine and its load: never asserted by tests.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

from ccscope.fluid.dctcp import normalized_limit_cycles

#: Map ranges (FIGURES.md fig6/fig7 scale): wbar in [2.5, 100], g in [0.05, 1].
WBAR_RANGE = (2.5, 100.0)
G_RANGE = (0.05, 1.0)
#: Horizon of the map: settle 100 R*, measure 60 R* at dt = 0.01 R* (16 000 steps per point).
SETTLE_RTT, MEASURE_RTT = 100.0, 60.0
#: The single run of the issue: DCTCP N = 2 at 10 Gb/s, 100 us, K = 65, for 0.2 s.
SINGLE = {"n": 2, "rate_bps": 10e9, "rtt_s": 100e-6, "k_pkts": 65}
SINGLE_UNTIL_S = 0.2

_SINGLE_CHILD = """
import json, sys, time
from ccscope.fluid import dctcp
backend, until, repeats = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
m = dctcp(2, 10e9, 100e-6, 65)
t0 = time.perf_counter(); r = m.solve(until, backend=backend); cold = time.perf_counter() - t0
warm = []
for _ in range(repeats):
    t0 = time.perf_counter(); m.solve(until, backend=backend); warm.append(time.perf_counter() - t0)
print(json.dumps({"cold_s": cold, "warm_s": min(warm) if warm else cold, "q_max": r.limit_cycle.q_max}))
"""


def dctcp_single(backend: str = "native", *, until_s: float = SINGLE_UNTIL_S, repeats: int = 5) -> dict:
    """Cold and warm wall time of `dctcp(2, 10e9, 100e-6, 65).solve(until_s)` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _SINGLE_CHILD, backend, repr(until_s), str(repeats)],
                         capture_output=True, text=True, check=True)
    return {"backend": backend, "until_s": until_s, **json.loads(out.stdout.strip().splitlines()[-1])}


def stability_map(n: int = 100, *, backend: str = "native", dtype: str = "float64") -> dict:
    """Run the n x n map once (after a warm-up call for JAX, whose first call compiles); wall time,
    point-steps/s and the first call's time."""
    w, g = np.meshgrid(np.geomspace(*WBAR_RANGE, n), np.geomspace(*G_RANGE, n))
    kw = {"settle": SETTLE_RTT, "measure": MEASURE_RTT, "backend": backend, "dtype": dtype}
    first_s = 0.0
    if backend == "jax":
        t0 = time.perf_counter()
        normalized_limit_cycles(w.ravel(), g.ravel(), **kw)
        first_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = normalized_limit_cycles(w.ravel(), g.ravel(), **kw)
    wall = time.perf_counter() - t0
    steps = (SETTLE_RTT + MEASURE_RTT) / 0.01
    return {"points": n * n, "backend": backend, "dtype": dtype, "wall_s": wall, "first_call_s": first_s or wall,
            "point_steps_per_s": n * n * steps / wall, "periodic_fraction": float(np.mean(out["periodic"]))}


def cli_fluid_dctcp(*args: str, runs: int = 3) -> dict:
    """Median whole-process wall time of `ccscope fluid dctcp --until 50ms [args]`."""
    exe = shutil.which("ccscope", path=os.path.dirname(sys.executable)) or "ccscope"
    cmd = [exe, "fluid", "dctcp", "--until", "50ms", *args]
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        walls.append(time.perf_counter() - t0)
    return {"command": " ".join(["ccscope", *cmd[1:]]), "median_s": statistics.median(walls), "runs": runs}


def machine() -> str:
    """CPU model and core count (for the BENCHMARKS.md rows)."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), model)
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def main(argv: list[str]) -> None:  # pragma: no cover - a benchmark driver
    backends = [b for b in ("native", "jax", "numpy") if b in (argv or ["native", "jax", "numpy"])]
    print(f"# {machine()}, {time.strftime('%Y-%m-%d')}, load average {os.getloadavg()[0]:.1f}")
    for b in backends:
        if b == "jax" and __import__("importlib").util.find_spec("jax") is None:
            continue
        print(dctcp_single(b, repeats=0 if b == "numpy" else 5), flush=True)
    for b in backends:
        if b == "numpy" or (b == "jax" and __import__("importlib").util.find_spec("jax") is None):
            continue
        print(stability_map(100, backend=b), flush=True)
    print(cli_fluid_dctcp(), flush=True)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
