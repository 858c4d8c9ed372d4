"""The 100 Gb/s fat-tree rows of `make bench` (ccscope.bench.FABRIC_FILES): every file exists, is a
valid scenario that builds, and runs its first simulated microseconds with the algorithm its row
names (the full runs are minutes each and belong to `make bench`, not to the tests)."""
import tomllib

import pytest

import ccscope as cc
from ccscope import bench


@pytest.mark.parametrize("name,file", bench.FABRIC_FILES)
def test_each_fabric_bench_file_builds_and_runs_with_the_named_algorithm(name, file):
    path = bench.ROOT / "bench" / "fabric" / file
    raw = tomllib.loads(path.read_text())
    kind = next(k for k in ("dctcp", "dcqcn", "hpcc") if k.upper() in name)
    assert kind in raw["workload"][0]["cc"], (file, raw["workload"][0]["cc"])
    assert raw["topology"]["kind"] == "fat_tree" and str(raw["topology"]["k"]) in name
    res = cc.simulate(path, until_s=2e-6)
    assert res.summary["events"] > 0
