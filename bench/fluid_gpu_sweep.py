"""Time a 10^6-point DCTCP fluid sweep with the JAX backend on whatever device JAX finds (a CUDA GPU
where there is one) and check a sample of its points against the numpy reference backend.

    python bench/fluid_gpu_sweep.py [--points-per-axis 100] [--until-s 0.05] [--dtype float64]

The grid is N x K x g (points-per-axis each) at 10 Gb/s and 100 us, the setup of BENCHMARKS.md's
1000-point CPU sweep. Prints the device, the cold time (compile counted), the warm time, and the
largest difference from numpy over a random sample of points. Used for BENCHMARKS.md's GPU row.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points-per-axis", type=int, default=100)
    ap.add_argument("--until-s", type=float, default=0.05)
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    ap.add_argument("--check-points", type=int, default=64)
    a = ap.parse_args()

    import jax

    from ccscope.fluid.sweep import _sweep_dctcp, sweep

    m = a.points_per_axis
    grid = {"n": np.linspace(2, 100, m).round(), "rate_bps": [10e9], "rtt_s": [100e-6],
            "k_pkts": np.linspace(10, 200, m), "g": np.linspace(1 / 256, 0.25, m)}
    dev = jax.devices()[0]
    t0 = time.perf_counter()
    cold = sweep("dctcp", grid, backend="jax", dtype=a.dtype, until_s=a.until_s)
    t_cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    warm = sweep("dctcp", grid, backend="jax", dtype=a.dtype, until_s=a.until_s)
    t_warm = time.perf_counter() - t0
    assert len(warm) == m ** 3 and cold.equals(warm)

    # numpy on a sample of the same rows, the grid's first row (smallest K, hence the batch's step
    # min(R*) / STEPS_PER_RSTAR) among them, so both backends integrate with the same step
    rng = np.random.default_rng(1)
    idx = np.unique(np.r_[0, rng.choice(len(warm), size=min(a.check_points, len(warm)), replace=False)])
    cols = ["n", "rate_bps", "rtt_s", "k_pkts", "g"]
    t0 = time.perf_counter()
    ref = _sweep_dctcp(warm.iloc[idx][cols].reset_index(drop=True), backend="numpy", dtype="float64",
                       until_s=a.until_s)
    t_check = time.perf_counter() - t0
    got = warm.iloc[idx].reset_index(drop=True)
    worst = max(float(np.max(np.abs(ref[c] - got[c]) / np.maximum(1.0, np.abs(ref[c]))))
                for c in ("q_min_pkts", "q_max_pkts", "throughput"))
    sub = ref
    print(json.dumps({"device": str(dev), "device_kind": getattr(dev, "device_kind", ""),
                      "jax": jax.__version__, "points": len(warm), "until_s": a.until_s, "dtype": a.dtype,
                      "cold_s": round(t_cold, 3), "warm_s": round(t_warm, 3),
                      "points_per_s_warm": round(len(warm) / t_warm),
                      "periodic_share": float(warm.periodic.mean()),
                      "numpy_sample": len(sub), "numpy_sample_s": round(t_check, 1),
                      "numpy_max_rel_diff": worst}, indent=1))


if __name__ == "__main__":
    main()
