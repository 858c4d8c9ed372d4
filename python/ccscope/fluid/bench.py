"""Benchmark of the batched fluid solver: an n x n stability map (normalized DCTCP queue amplitude
over wbar x g), for `make bench` (BENCHMARKS.md). Issue 5 targets: 100 x 100 on a 2-core CPU in
< 10 s; 1000 x 1000 with JAX on one GPU in < 30 s.
"""
from __future__ import annotations

import time

import numpy as np

from ccscope.fluid.dctcp import normalized_limit_cycles

#: Map ranges (FIGURES.md fig6/fig7 scale): wbar in [2.5, 100], g in [0.05, 1].
WBAR_RANGE = (2.5, 100.0)
G_RANGE = (0.05, 1.0)
#: Horizon of the map: settle 100 R*, measure 60 R* at dt = 0.01 R* (16 000 steps per point).
SETTLE_RTT, MEASURE_RTT = 100.0, 60.0


def stability_map(n: int = 100, *, backend: str = "numpy", dtype: str = "float64") -> dict:
    """Run the n x n map once (after a JAX warm-up compile); return wall time and point-steps/s."""
    w, g = np.meshgrid(np.geomspace(*WBAR_RANGE, n), np.geomspace(*G_RANGE, n))
    kw = {"settle": SETTLE_RTT, "measure": MEASURE_RTT, "backend": backend, "dtype": dtype}
    compile_s = 0.0
    if backend == "jax":
        t0 = time.perf_counter()
        normalized_limit_cycles(w.ravel(), g.ravel(), **kw)
        compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = normalized_limit_cycles(w.ravel(), g.ravel(), **kw)
    wall = time.perf_counter() - t0
    steps = (SETTLE_RTT + MEASURE_RTT) / 0.01
    return {"points": n * n, "backend": backend, "dtype": dtype, "wall_s": wall, "first_call_s": compile_s,
                "point_steps_per_s": n * n * steps / wall, "periodic_fraction": float(np.mean(out["periodic"]))}


if __name__ == "__main__":  # pragma: no cover
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    for backend in ("numpy", "jax"):
        print(stability_map(n, backend=backend))
