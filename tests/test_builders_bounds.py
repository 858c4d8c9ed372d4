"""Builders (`dumbbell`, `parking_lot`, `periodic`) check every argument's type and bound every
count by the engine's own maxima before they allocate anything: a count of 2**31 used to build
lists until MemoryError, `periodic(clients=...)` gave a numpy ValueError and `periodic(aqm="red")`
an AttributeError. Each now raises one ScenarioError naming the argument, its value and what is
allowed."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ccscope as cc
from ccscope.errors import MAX_MESSAGE_CHARS
from ccscope.scenario import builders
from ccscope.scenario.builders import dumbbell, parking_lot, periodic
from ccscope.scenario.model import Red

ROOT = Path(__file__).resolve().parents[1]
MAX = builders.MAX_TEMPLATE_COUNT


def test_the_bound_is_the_engines_own_maximum():
    rust = (ROOT / "crates" / "ccscope-core" / "src" / "scenario" / "mod.rs").read_text()
    m = re.search(r"pub const MAX_TEMPLATE_COUNT: u32 = ([\d_]+);", rust)
    assert m and int(m.group(1).replace("_", "")) == MAX
    # and the engine refuses one more than it, as the builders do
    with pytest.raises(cc.ScenarioError, match=rf"must be <= {MAX}"):
        cc.scenario.validate(dumbbell(2, bottleneck_bps=1e9, rtt_s=1e-4).to_dict()
                             | {"flows": {"count": MAX + 1, "cc": "new_reno"}})


def refused(call, pattern: str) -> str:
    with pytest.raises(cc.ScenarioError) as e:
        call()
    msg = str(e.value)
    assert re.match(pattern, msg), msg
    assert "\n" not in msg and len(msg) <= MAX_MESSAGE_CHARS and ": " in msg
    return msg


@pytest.mark.parametrize("call,pattern", [
    (lambda: parking_lot(2**31), r"^hops = 2147483648: must be an integer in \[1, 1000000\]"),
    (lambda: parking_lot(2, flows_per_group=2**31), r"^flows_per_group = 2147483648: must be an integer in \[0, 1000000\]"),
    (lambda: parking_lot(2, long_flows=2**31), r"^long_flows = 2147483648: must be an integer in \[0, 1000000\]"),
    (lambda: periodic(2**32), r"^clients = 4294967296: must be an integer in \[1, 1000000\]"),
    (lambda: periodic(clients=10**7), r"^clients = 10000000: must be an integer in \[1, 1000000\]"),
    (lambda: periodic(clients=10**6), r"^clients = 1000000: would make 1000001 hosts .*at most 1000000"),
    (lambda: parking_lot(1000, flows_per_group=1000),
     r"^hops = 1000, flows_per_group = 1000, long_flows = 1: would make 1000001 flows .*at most 1000000"),
    (lambda: parking_lot(1, flows_per_group=999_998), r"^hops = 1, .*would make 1000001 hosts"),
    (lambda: dumbbell(2**40, bottleneck_bps=1e9, rtt_s=1e-4), r"^senders = 1099511627776: must be an integer in"),
    (lambda: dumbbell(2, flows=10**9, bottleneck_bps=1e9, rtt_s=1e-4), r"^flows = 1000000000: must be an integer in"),
    (lambda: dumbbell(2, receivers=2**33, bottleneck_bps=1e9, rtt_s=1e-4), r"^receivers = 8589934592: must be"),
    (lambda: parking_lot(2, buffer_pkts=2**32), r"^buffer_pkts = 4294967296: must be an integer in \[1, 4294967295\]"),
    (lambda: periodic(3, buffer_pkts=2**40), r"^buffer_pkts = 1099511627776: must be an integer in"),
    (lambda: periodic(3, seed=2**64), r"^seed = 18446744073709551616: must be an integer in \[0, 18446744073709551615\]"),
])
def test_counts_beyond_the_engines_maxima_are_refused_before_allocating(call, pattern):
    """Each of these used to allocate (lists of 2**31 dicts, a 32 GiB numpy array) until MemoryError;
    under a 512 MiB address-space increase they must answer at once."""
    refused(call, pattern)


def test_a_huge_count_is_refused_under_a_small_memory_limit():
    code = textwrap.dedent("""
        import resource
        import ccscope as cc
        from ccscope.scenario.builders import parking_lot, periodic
        import os
        rss = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (rss + 512 * 2**20, resource.RLIM_INFINITY))
        for call in (lambda: parking_lot(2**31), lambda: parking_lot(2, flows_per_group=2**31),
                     lambda: parking_lot(2, long_flows=2**31), lambda: periodic(2**32)):
            try:
                call()
            except cc.ScenarioError as e:
                print("refused:", str(e).split(":")[0])
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:4] == ["refused: hops = 2147483648", "refused: flows_per_group = 2147483648",
                                        "refused: long_flows = 2147483648", "refused: clients = 4294967296"]


@pytest.mark.parametrize("aqm", ["red", 1.5, 3, ["red"], {"kind": 5}, {"k_pkts": 3}])
@pytest.mark.parametrize("builder", [lambda a: periodic(3, aqm=a), lambda a: parking_lot(2, aqm=a)])
def test_an_aqm_that_is_not_a_config_names_the_argument(builder, aqm):
    refused(lambda: builder(aqm), r"^aqm = .*: must be an AQM config")


@pytest.mark.parametrize("call,field", [
    (lambda: parking_lot(2.0), "hops"),
    (lambda: parking_lot(True), "hops"),
    (lambda: parking_lot(2, long_flows="1"), "long_flows"),
    (lambda: parking_lot(0), "hops"),
    (lambda: parking_lot(2, flows_per_group=-1), "flows_per_group"),
    (lambda: periodic(clients=None), "clients"),
    (lambda: periodic(3, seed=-1), "seed"),
    (lambda: periodic(3, seed=1.5), "seed"),
    (lambda: dumbbell(None, bottleneck_bps=1e9, rtt_s=1e-4), "senders"),
    (lambda: dumbbell(2, receivers="2", bottleneck_bps=1e9, rtt_s=1e-4), "receivers"),
    (lambda: dumbbell(2, flows=0, bottleneck_bps=1e9, rtt_s=1e-4), "flows"),
])
def test_wrong_types_and_small_values_name_the_argument(call, field):
    refused(call, rf"^{field} = \S+: must be an integer")


def test_valid_builders_still_build_and_validate():
    assert periodic(3, aqm=Red(min_th_pkts=5, max_th_pkts=15))["aqm"]["kind"] == "red"
    assert periodic(3, aqm={"kind": "drop_tail"})["topology"]["links"][2]["buffer_pkts"] == 49
    sc = parking_lot(2, flows_per_group=2, long_flows=1, cc="new_reno")
    assert len(sc["flow"]) == 5 and len(sc["topology"]["nodes"]) == 3 + 1 + 1 + 2 * 3
    cc.scenario.validate(sc)
    cc.scenario.validate(dumbbell(2, bottleneck_bps=1e9, rtt_s=1e-4, receivers=2, flows=4))


def test_the_largest_counts_allowed_are_accepted_by_the_builder():
    """The bound is the engine's maximum, not lower (a template dumbbell allocates nothing per host)."""
    sc = dumbbell(MAX, flows=MAX, receivers=MAX, bottleneck_bps=1e9, rtt_s=1e-4)
    assert sc.topology.senders == MAX and sc.flows.count == MAX


def test_periodic_negative_start_spread_is_refused_naming_it():
    # found by `make fuzz` (api:1:14552): numpy's "high - low < 0" escaped as a ValueError traceback
    with pytest.raises(cc.ScenarioError, match=r"start_spread_s = -1(\.0)?: must be a number of seconds >= 0"):
        builders.periodic(3, start_spread_s=-1.0)


def test_periodic_start_spread_of_minus_zero_is_zero():
    # found by `make fuzz` (api:1:44327): start_spread_s = -0.0 passed the >= 0 check and numpy's
    # uniform(0, -0.0) raised "high - low < 0"
    import ccscope as cc
    sc = cc.scenario.periodic(clients=3, start_spread_s=-0.0)
    assert all(f["start_s"] == 0.0 for f in sc["flow"])
