"""bench/peers/htsim_fabric.py --paths shared: ccscope's exported per-flow paths in htsim's switch
names, the drivers' -paths file, and the check that htsim's routes cross ccscope's switches. htsim
itself is built only when CCSCOPE_HTSIM_SRC names a checkout of its source (the last test)."""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "peers"))

import htsim_fabric as F  # noqa: E402

from ccscope.export import parse_paths, simulate_with_routes, to_paths  # noqa: E402


def htsim_core_aggs(m: int, pods: int, h: int) -> set[str]:
    """The aggregation switches htsim's core CS<m> links to (fat_tree_topology.cpp, init_network:
    agg US<a> at pod position a % h links to cores a % h + h * l)."""
    return {f"US{p * h + m % h}" for p in range(pods)}


@pytest.mark.parametrize("k", [4, 8])
def test_switch_names_map_ccscope_links_onto_htsims(k):
    h = k // 2
    # ccscope's core c<n> links to a<p>_<n // h> in every pod (scenario/expand.rs, expand_fat_tree);
    # its htsim name must link to the htsim names of those same aggregation switches
    cores = [F.htsim_switch(f"c{n}", k) for n in range(h * h)]
    assert sorted(cores) == sorted(f"CS{m}" for m in range(h * h))  # one to one
    for n, cs in enumerate(cores):
        aggs = {F.htsim_switch(f"a{p}_{n // h}", k) for p in range(k)}
        assert aggs == htsim_core_aggs(int(cs[2:]), k, h)
    assert F.htsim_switch("e3_1", k) == f"LS{3 * h + 1}" and F.htsim_switch("a2_0", k) == f"US{2 * h}"
    with pytest.raises(F.peer.UsageError, match="'s1' is not a fat_tree switch"):
        F.htsim_switch("s1", k)


def small_case(**kw):
    c = dict(F.CASES["incast"], senders=[1, 2, 5, 9], size_bytes=30_000, until_s=0.001, drain_s=0.001)
    c.update(kw)
    return c


def test_paths_file_lists_each_flow_in_htsim_names():
    res, routes = simulate_with_routes(F.ccscope_scenario(small_case(), "hpcc"))
    want = parse_paths(to_paths(res, routes))
    text = F.htsim_paths_text(want, 4)
    lines = text.splitlines()
    assert len(lines) == 4
    for line, (i, (_, _, fwd, rev)) in zip(lines, sorted(want.items())):
        m = re.fullmatch(r"(\d+) fwd ((?:\S+ )+)rev((?: \S+)+)", line)
        assert m and int(m.group(1)) == i
        assert m.group(2).split() == [F.htsim_switch(x, 4) for x in fwd]
        assert m.group(3).split() == [F.htsim_switch(x, 4) for x in rev]
    # h1 -> h0 stays in the rack; h9 -> h0 crosses a core
    assert lines[0].split()[1:] == ["fwd", "LS0", "rev", "LS0"]
    assert len(lines[3].split("rev")[0].split()) == 7  # id, "fwd" and 5 switches


def fake(tmp_path: Path, text: str) -> Path:
    out = tmp_path / "out.txt"
    out.write_text(text)
    exe = tmp_path / "fake_driver"
    exe.write_text(f"#!/bin/sh\ncat {out}\n")
    exe.chmod(0o755)
    return exe


def driver_output(want: dict, done: dict, cc: str, tamper: int | None = None) -> str:
    """A driver's stdout: the finished lines of `done` {id: us}, then one path line per flow (htsim
    names), the first glued to a clock dot; flow `tamper`'s ACK route swapped for another."""
    out = [f"Flow {cc}{i}_{s}_{d} finished at {done[i]} total bytes 30000" for i, (s, d, _, _) in want.items()
           if i in done]
    for j, (i, (_, _, fwd, rev)) in enumerate(sorted(want.items())):
        rev_h = [F.htsim_switch(x, 4) for x in rev]
        if i == tamper:
            rev_h = rev_h[:1] + ["US99"] + rev_h[2:]
        out.append(("." if j == 0 else "") + f"path {i} fwd {' '.join(F.htsim_switch(x, 4) for x in fwd)} "
                   f"rev {' '.join(rev_h)}")
    return "\n".join(out) + "\nDone\n"


@pytest.mark.parametrize("cc", ["hpcc", "swift"])
def test_shared_path_fcts_reads_fcts_by_id_and_checks_every_route(tmp_path, cc, capsys):
    c = small_case()
    res, routes = simulate_with_routes(F.ccscope_scenario(c, cc))
    want = parse_paths(to_paths(res, routes))
    a = argparse.Namespace(exe=fake(tmp_path, driver_output(want, {1: 12.5, 2: 20, 4: 31}, cc)))
    cm = tmp_path / "flows.cm"
    fct = F.shared_path_fcts(a, cc, cm, c, res, routes)
    assert fct[:2] == [pytest.approx(12.5e-6), pytest.approx(20e-6)] and math.isnan(fct[2])
    assert "all 4 flows' htsim data and ACK routes cross the switches of ccscope's" in capsys.readouterr().out
    assert (tmp_path / "paths.txt").read_text() == F.htsim_paths_text(want, 4)
    # one flow's ACKs on another aggregation switch: refused, with the count
    a.exe = fake(tmp_path, driver_output(want, {1: 12.5}, cc, tamper=4))
    with pytest.raises(F.peer.BuildError, match="for 3 of 4 flows only"):
        F.shared_path_fcts(a, cc, cm, c, res, routes)


def test_paths_shared_refuses_the_modes_it_does_not_run(capsys):
    for argv in (["--bench"], ["--cc", "swift", "--diagnose", "2"]):
        assert F.main(["--htsim", "/nonexistent", "--paths", "shared", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: --paths shared") and "\n" not in err, err
    # --order is not one of them: it gets as far as the checkout
    assert F.main(["--htsim", "/nonexistent", "--paths", "shared", "--cc", "swift", "--order"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--paths shared" not in err and "/nonexistent" in err, err


FAKE_DRIVER = """#!{py}
# a fake shared-path driver: one "finished" line per flow of the -tm matrix (FCT = {scale} x (5 +
# size / 12500) us), then the -paths file's routes as the driver prints them; its argv is logged
import sys
args = sys.argv[1:]
opt = dict(zip(args[::2], args[1::2]))
open({log!r}, "a").write(" ".join(args) + "\\n")
for line in open(opt["-tm"]):
    w = line.split()
    if len(w) >= 7 and "->" in w[0]:
        s, d = w[0].split("->")
        print(f"Flow {cc}{{w[2]}}_{{s}}_{{d}} finished at {{{scale} * (5 + int(w[6]) / 12500)}} total bytes {{w[6]}}")
for line in open(opt["-paths"]):
    print("path " + line.strip())
"""


def test_order_with_shared_paths_runs_hpcc_on_its_shared_path_driver(tmp_path, monkeypatch, capsys):
    """--order --paths shared: the HPCC run of the ordering goes through the HPCC shared-path
    driver (not htsim's main_hpcc), with the same end point; --host-fq reaches Swift's ccscope
    scenario only. The fake drivers make htsim's Swift exactly twice as fast as its HPCC, so every
    htsim ratio in the ordering table is 0.50."""
    log = tmp_path / "argv.log"
    exes = {}
    for cc, scale in (("swift", 1.0), ("hpcc", 2.0)):
        exe = tmp_path / f"fake_{cc}"
        exe.write_text(FAKE_DRIVER.format(py=sys.executable, scale=scale, log=str(log), cc=cc))
        exe.chmod(0o755)
        exes[cc] = exe
    monkeypatch.setattr(F.peer, "find_sim", lambda path: tmp_path)
    monkeypatch.setattr(F, "swift_fabric_binary", lambda a: exes["swift"])
    monkeypatch.setattr(F, "hpcc_fabric_binary", lambda a: exes["hpcc"])

    def no_main_hpcc(a, name):
        raise AssertionError(f"htsim's main_{name} built for a shared-path run")

    monkeypatch.setattr(F, "htsim_binary", no_main_hpcc)
    scenarios = []
    real = F.ccscope_scenario
    monkeypatch.setattr(F, "ccscope_scenario", lambda c, cc: scenarios.append(real(c, cc)) or scenarios[-1])
    monkeypatch.setattr(F, "CASES", {k: dict(v) for k, v in F.CASES.items()})
    rc = F.main(["--htsim", "x", "--cc", "swift", "--host-fq", "--fct", "sender", "--paths", "shared", "--order",
                 "--case", "websearch"])
    out = capsys.readouterr().out
    runs = log.read_text().splitlines()
    assert len(runs) == 2 and all(" -paths " in r for r in runs)  # Swift's run, then HPCC's
    assert [sc["flow"][0]["cc"] for sc in scenarios] == ["swift", "hpcc"]
    assert scenarios[0]["topology"]["host_aqm"] == {"kind": "fq"} and "host_aqm" not in scenarios[1]["topology"]
    assert out.count("both FCTs at the sender") == 2 and out.count("paths: all 256 flows'") == 2
    table = out.split("### ordering, Swift against HPCC")[1].strip().splitlines()[3:]
    rows = [r.split(" | ") for r in table if r.startswith("| ")]
    assert len(rows) == 10
    assert all(r[2] == "0.50" and r[5] == "0.50" for r in rows)  # htsim's p50 and p99 ratios
    for r in rows:  # ccscope's ratio decides: Swift ahead (below 0.95) agrees with htsim's 0.50
        for ratio, verdict in ((float(r[1]), r[3]), (float(r[4]), r[6].rstrip(" |"))):
            want = "tie" if abs(ratio - 1) <= F.ORDER_TIE else ("same" if ratio < 1 else "**reversed**")
            assert verdict == want, (r, ratio, verdict)
    assert rc == (1 if "**reversed**" in out or "**no**" in out else 0)


@pytest.fixture(scope="module")
def htsim_build(tmp_path_factory):
    """One htsim build folder for both drivers (the library is built once)."""
    return tmp_path_factory.mktemp("htsim_build")


@pytest.mark.skipif(not os.environ.get("CCSCOPE_HTSIM_SRC"), reason="CCSCOPE_HTSIM_SRC names no htsim checkout")
@pytest.mark.parametrize("cc", ["hpcc", "swift"])
def test_drivers_route_every_flow_on_ccscopes_switches(tmp_path, cc, capsys, htsim_build):
    """Built against a real htsim checkout: both drivers connect every flow on the routes whose
    switches ccscope's run crossed (shared_path_fcts raises otherwise), and every flow ends; a path
    that is none of htsim's candidates is one error line naming the flow."""
    from ccscope.export import to_htsim_cm

    a = argparse.Namespace(htsim=os.environ["CCSCOPE_HTSIM_SRC"], build_dir=htsim_build, jobs=2,
                           cxx="g++", cxxflags=F.peer.DEFAULT_CXXFLAGS)
    a.sim = F.peer.find_sim(a.htsim)
    a.exe = F.hpcc_fabric_binary(a) if cc == "hpcc" else F.swift_fabric_binary(a)
    # every other host to h0: the same rack, the same pod and across pods (an incast, not a random
    # batch: htsim's HPCC aborts on some batches, docs/validation.md)
    c = small_case(senders=list(range(1, 16)), size_bytes=100_000)
    res, routes = simulate_with_routes(F.ccscope_scenario(c, cc))
    cm = tmp_path / "flows.cm"
    cm.write_text(to_htsim_cm(res))
    fct = F.shared_path_fcts(a, cc, cm, c, res, routes)
    assert len(fct) == 15 and not any(math.isnan(x) for x in fct)
    assert "all 15 flows'" in capsys.readouterr().out
    bad = tmp_path / "bad.txt"
    bad.write_text("1 fwd LS0 US9 LS1 rev LS1 US0 LS0\n")
    cmd = [str(a.exe), "-tm", str(cm), "-paths", str(bad), "-nodes", "16", "-linkspeed", "100000", "-q", "500",
           "-mtu", "1500", "-end", "100"] + (["-cwnd", "15"] if cc == "swift" else [])
    import subprocess

    p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2
    err = p.stderr.strip()
    assert "\n" not in err and "-paths: flow 1 fwd [LS0 US9 LS1] is none of htsim's routes" in err, err


def test_match_header_runs_htsims_links_at_the_rate_of_its_1564_byte_packet(tmp_path, monkeypatch, capsys):
    """--match-header: htsim's -linkspeed becomes 100 Gb/s x 1564 / 1500 (its HPCC data packet's
    64 header bytes serialize in ccscope's 1500-byte time); without it the case's rate, as before."""
    log = tmp_path / "argv.log"
    exe = tmp_path / "fake_hpcc"
    exe.write_text(FAKE_DRIVER.format(py=sys.executable, scale=1.0, log=str(log), cc="hpcc"))
    exe.chmod(0o755)
    monkeypatch.setattr(F.peer, "find_sim", lambda path: tmp_path)
    monkeypatch.setattr(F, "hpcc_fabric_binary", lambda a: exe)
    monkeypatch.setattr(F, "htsim_binary", lambda a, name: exe)
    monkeypatch.setattr(F, "CASES", {k: dict(v) for k, v in F.CASES.items()})
    argv = ["--htsim", "x", "--cc", "hpcc", "--fct", "sender", "--paths", "shared", "--case", "incast"]
    F.main(argv)
    F.main(argv + ["--match-header"])
    plain, matched = log.read_text().splitlines()
    assert "-linkspeed 100000 " in plain
    assert "-linkspeed 104266.6667 " in matched  # 100,000 Mb/s x 1564 / 1500
    assert F.CASES["incast"]["htsim_link_bps"] == pytest.approx(100e9 * 1564 / 1500)
    out = capsys.readouterr().out
    assert out.count("htsim's links at 104.2667 Gb/s (--match-header)") == 1
    # own paths: htsim's main_hpcc gets the same rate
    assert F.htsim_command(exe, tmp_path / "cm", F.CASES["incast"], "hpcc")[9:11] == ["-linkspeed", "104266.6667"]


def test_match_header_is_refused_where_it_does_not_apply(capsys):
    for argv in (["--cc", "swift"], ["--bench"]):
        assert F.main(["--htsim", "/nonexistent", "--match-header", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: --match-header: applies to the --cc hpcc comparison only") and "\n" not in err
