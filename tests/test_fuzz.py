"""The CI fuzz set: 5,000 mutated scenarios over every scenario family through the Python API and
30 through `ccscope run`, fixed seed, each in a worker process with a memory limit and a
per-case timeout (tests/fuzz/). Every case must run or be refused with a one-line error naming
a field: no traceback, panic, abort, MemoryError or hang. `make fuzz` runs 10^5 cases.

The unit tests below check the fuzzer's own classification on known inputs, so a broken
harness cannot pass as a clean run."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz.gen import Case, make_case
from tests.fuzz.worker import judge_message, run_case

REPO = Path(__file__).resolve().parents[1]
CI_CASES = 5000
CI_CLI_CASES = 30
CI_SEED = 16
# A case runs 200 us of simulated time and normally answers in well under a second; a case
# still running after this long is a hang (set generously: the host may be shared).
CASE_TIMEOUT_S = 30


def test_fuzz_ci_set_is_all_clean(tmp_path):
    failures = tmp_path / "fuzz-failures"
    cmd = [sys.executable, "-m", "tests.fuzz.fuzzer", "--cases", str(CI_CASES), "--cli-cases", str(CI_CLI_CASES),
           "--seed", str(CI_SEED), "--jobs", str(max(2, min(4, os.cpu_count() or 2))), "--timeout", str(CASE_TIMEOUT_S),
           "--failures", str(failures)]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=3000)
    out = r.stdout + r.stderr
    print(out)
    m = re.search(r"^fuzz: (\d+) tried / (\d+) clean$", out, re.M)
    assert m, out[-3000:]
    assert int(m.group(1)) == CI_CASES
    m2 = re.search(r"^fuzz cli: (\d+) tried / (\d+) clean$", out, re.M)
    assert m2 and int(m2.group(1)) == CI_CLI_CASES, out[-3000:]
    assert r.returncode == 0 and m.group(2) == m.group(1) and m2.group(2) == m2.group(1), (
        f"not clean (replay with `python -m tests.fuzz.fuzzer --replay ID`):\n{out[-6000:]}")


# ------------------------------------------------------------------ the harness classifies


def test_judge_message_accepts_field_errors_and_refuses_others():
    assert judge_message("flows.count = 0: must be >= 1") is None
    assert judge_message("topology.links[2].rate_bps = -5: must be > 0") is None
    assert judge_message("<scenario>: unknown field `foo`") is None
    assert judge_message("foo: unknown field `foo`", keys=["foo"]) is None
    assert judge_message("--set 'a': expected PATH=VALUE") is None
    assert judge_message("'int' object is not iterable") == "message names no field"
    assert judge_message("flows.count = 0: must be\n>= 1") == "message has several lines"
    assert "chars" in judge_message("flows.count = " + "9" * 2000 + ": must be >= 1")
    assert judge_message("flow[1].start_s = 1000... (310 chars) must be <= 86400 s") == "no `: what is allowed` part"


def _api_case(sc) -> Case:
    return Case("api:0:0", "test", "api", [], {"scenario": sc})


def _small() -> dict:
    return {"until_s": 0.01, "topology": {"kind": "dumbbell", "bottleneck_bps": 1e9, "rtt_s": 1e-4},
            "flows": {"count": 2, "cc": "dctcp"}}


def test_run_case_classifies_a_run_a_refusal_and_a_foreign_exception():
    assert run_case(_api_case(_small()))["cls"] == "ok"
    bad = _small()
    bad["flows"]["count"] = "many"
    res = run_case(_api_case(bad))
    assert res["cls"] == "clean" and res["msg"].startswith("flows.count")
    # a case whose scenario is not a mapping at all reaches the Python layer's own checks
    res = run_case(Case("api:0:0", "test", "args", [], {"scenario": _small(), "run_until": object()}))
    assert res["cls"] in ("traceback", "clean")


@pytest.mark.parametrize("case_id", ["api:16:0", "api:16:1234", "cli:16:7"])
def test_cases_are_a_function_of_their_id(case_id):
    a, b = make_case(case_id), make_case(case_id)
    assert (a.family, a.mode, a.desc) == (b.family, b.mode, b.desc)
    assert repr(a.payload) == repr(b.payload) or a.mode == "builder"  # builders hold fresh objects


def test_worker_abort_and_hang_are_seen_from_outside(tmp_path, monkeypatch):
    """A worker killed by a signal is an abort, one past its timeout a hang."""
    from tests.fuzz import fuzzer
    monkeypatch.setattr(fuzzer, "REPO", REPO)
    res = fuzzer.run_all(["selftest:abort:0", "selftest:hang:0", "api:16:0"], jobs=1, timeout=5, mem_mb=3072,
                         until_s=2e-4)
    assert res["selftest:abort:0"]["cls"] == "abort"
    assert res["selftest:hang:0"]["cls"] == "hang"
    assert res["api:16:0"]["cls"] in ("ok", "clean", "traceback", "bad_message", "panic", "memory")
