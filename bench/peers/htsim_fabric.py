"""Peer comparison on a fabric: ccscope and htsim run the same flows on the same k = 4 fat-tree
with the same congestion control, and the FCT slowdown by flow-size bin is compared.

usage: python bench/peers/htsim_fabric.py --htsim PATH [--cc hpcc|swift] [--case NAME ...] [--build-dir DIR]
                                         [--htsim-fct ack|raw | --fct sender] [--k 8 --bench [--bench-ms D]]
                                         [--paths own|shared] [--match-header]

PATH is a checkout of htsim's public source (https://github.com/Broadcom/csg-htsim). Nothing is
written into it: its library is compiled into --build-dir (default target/peers/htsim, the folder
bench/peers/htsim.py uses) and the data-center driver of the algorithm (sim/datacenter/main_hpcc.cpp
or main_swift.cpp)
is compiled and linked there from the objects its Makefile lists for that binary.

How the two runs are made the same (each case below):
- htsim's HPCCSrc::connect starts every flow at once, whatever start the connection matrix gives
  (its scheduling call is commented out in hpcc.cpp), so every case starts all its flows at
  time 0: "websearch" is a batch of 256 flows, 16 from each host to destinations drawn
  uniformly among the other 15, sizes drawn from the web-search CDF (Alizadeh et al. 2010,
  ccscope's builtin), seed 1; "incast" is 12 hosts of the other pods sending 1 MB each to h0.
  (A first run with Poisson arrivals showed htsim's FCTs measured from time 0 for every flow:
  negative or meaningless against the arrival times, hence this setup; the tolerance below is
  unchanged.)
- ccscope runs the case's scenario and
  its flow list is exported as htsim's connection matrix (`ccscope scenario export-flows`,
  python/ccscope/export.py): htsim runs exactly those flows (source, destination, size, start).
- Fabric: htsim's FatTreeTopology for 16 nodes is the k = 4 fat-tree; every link runs at the
  case's rate with the case's one-way delay (htsim -hop_latency) and no switching latency.
  Per-flow ECMP on both sides (htsim -strat ecmp_host; the paths chosen differ: each side hashes
  with its own function).
- Lossless: htsim's LOSSLESS_INPUT queues pause an upstream port when an input's bytes pass 15
  packets and resume below 12 (its defaults); ccscope runs [pfc] on class 0 with xoff 15 and
  xon 12 packets of ingress bytes per link (docs/scenario.md).
- HPCC parameters as htsim's hpcc.cpp sets them: T = 12 us for every flow (a constant, not the
  flow's path RTT), eta = 0.95, maxStage = 5, W_AI = one MSS, initial window = line rate x T;
  ccscope's [hpcc] gets base_rtt_s = 12e-6, eta, max_stage and w_ai_bytes = packet_bytes.
- MTU 1500 bytes (htsim -mtu), ACKs as each side sizes them.

Swift (--cc swift; docs/validation.md, "Swift on a k = 4 fat-tree against htsim", its second setup):
htsim runs bench/peers/htsim_swift_fabric.cpp, our own driver: main_swift.cpp with each connection's
size and start taken from the matrix (main_swift gives every connection one -flowsize).
- Fabric: main_swift's FatTreeTopology(16 nodes, -linkspeed, -q packets, RANDOM queues,
  SWIFT_SCHEDULER host queues): 1 us per link (the topology's default hop latency; it has no
  -hop_latency), no switching latency, one path per connection (rand() % paths, srand(13), then
  set_paths' shuffle). ccscope: fat_tree k = 4, the case's rate, 1 us links, per-flow ECMP.
- Lossy, no PFC on either side: htsim's RandomQueue is drop-tail at -q packets that also drops an
  arriving packet with probability 0.1 once the queue is within 3 packets of full (RANDOM_BUFFER);
  ccscope's ports are plain drop-tail at buffer_pkts (that random early tail is not modelled).
- Swift constants, htsim swift.cpp -> ccscope [swift]: ai 1, beta 0.8, max_mdf 0.5, fs_range 5 x
  base = 100 us, fs_min_cwnd 0.1 and fs_max_cwnd 100 packets, max_cwnd 1000 MSS, min_cwnd 10 bytes
  (10/1500 packets), rtx_reset_threshold 5 -> retx_reset_threshold 5. Target: htsim's is 20 us + fs
  + h x (the hop count of the route the subflow keeps), and that route is a Route::clone whose count
  is 0 (the driver prints it per flow: "route <id> links <n> hop_count 0"), so base_target_s = 20 us
  and hop_scale_s = 0. Both compare the target with the whole RTT sample.
- Transport: initial window 15 packets (main_swift's -cwnd default) -> [tcp] iw_pkts 15; htsim's
  first RTO 1 ms and minimum RTO 100 us -> initial_rto_s 1e-3, min_rto_s 100e-6. Left different:
  htsim checks its retransmission timers from a scanner every 10 ms (SwiftRtxTimerScanner).
- Sizes: htsim sends ceil(size / MSS) full packets (the driver's note on set_flowsize); its FCT is
  read from "Flow swift<id>_<src>_<dst> finished at <us>" by the matrix's flow id.
- --order (with --cc swift): also runs --cc hpcc on the same case and prints, per bin, whether
  Swift and HPCC order the same way (p50 and p99) in both simulators. With --paths shared both
  runs are the shared-path ones (HPCC on htsim_hpcc_fabric.cpp), each with its own options
  (--host-fq applies to Swift's ccscope scenario only), at the same --fct end point.
- --host-fq (with --cc swift; the third setup): ccscope's host ports use per-flow fair queueing
  (topology.host_aqm = { kind = "fq" }), as htsim's host queue serves its flows round robin.
- --host-queue-pkts N (with --cc swift; the fourth setup, with --host-fq): ccscope's TCP senders
  keep at most N packets per flow in their host port (tcp.host_queue_pkts), as htsim's Swift source
  hands its host queue at most 3 (SwiftSubflowSrc::send_next_packet: queuesize(flow) > 2 refuses).
- --stamp-at host_tx (with --cc swift; the fifth setup, with the fourth's options): ccscope stamps a
  TCP data packet when its host port starts serializing it (tcp.stamp_at), as htsim's host
  scheduler re-stamps a Swift packet (swift_scheduler.cpp BaseScheduler::beginService); default
  send (stamped on entry to the host port).
- --diagnose N (with --cc swift): reruns htsim on the web-search case with path seeds 1..N (the
  spread per bin that path choice alone gives) and prints how the smallest flows' FCTs follow the
  order of their host's queue (swift_diagnose).

FCT end point (found by an instrumented run, 2026-11-26; docs/validation.md): ccscope's fct_s
ends when the receiver holds the last byte and its ideal FCT has the one-way delay, while htsim's
"Flow ... finished at" line is printed by the sender when the last byte's ACK arrives
(HPCCSrc::processAck), one ACK trip later. Dividing htsim's FCT by ccscope's receiver-side ideal
(the measure as written above, kept as the default: --htsim-fct raw) adds that trip to every
htsim slowdown, which doubles a 1-packet flow's. --htsim-fct ack divides htsim's FCT by the same
ideal plus the ACK's base return time on the empty fabric instead: the reverse route's links x
(one-way delay + a 64-byte ACK's serialization; htsim's HPCCAck::ACKSIZE), so a flow alone has
slowdown 1 on both sides (each side's FCT over the ideal of its own end point; the two are still
not the same quantity: htsim's includes the last ACK's queueing). Swift's "finished" line is
also the sender's (SwiftSrc::update_dsn_ack).

--fct sender (docs/validation.md, HPCC section, "Sender-side measure"): both FCTs end at the
sender. ccscope's is the flows table's fct_sender_s (an ACK first acknowledged the last byte at
the sender, docs/workloads.md), htsim's its own "finished" line as published; both are divided by
the same ideal: ccscope's receiver-side ideal_fct_s plus ack_return_s with the ACK size of the
peer's algorithm (HPCCAck 64 bytes, SwiftAck 40). --fct receiver (the default) keeps the measure
above with --htsim-fct.

--match-header (with --cc hpcc; docs/validation.md, HPCC section, "Setup B"): htsim's HPCC data
packet is 1,564 bytes on the wire for 1,500 of flow data (HPCCPacket::newpkt adds ACKSIZE = 64, and
update_spacing paces those 1,564 bytes), ccscope's is 1,500 bytes, all data. htsim's links then run
at the case's rate x (1500 + 64) / 1500 (its -linkspeed; 104.2667 Gb/s for 100 Gb/s), so a data
packet serializes in the time ccscope's does and a flow's data moves at ccscope's data rate; the
ideal FCT, the ACK size and everything else stay as they are.

--paths shared (docs/validation.md, "Shared paths" in the HPCC and Swift fabric sections): both
simulators put each flow on the same switches. ccscope's run exports each flow's data and ACK
switches as its engine routed them (python/ccscope/export.py, format "paths"); htsim_switch maps
them to htsim's FatTreeTopology names (LS/US/CS) and our drivers take them with -paths
(bench/peers/htsim_paths.h): HPCC runs bench/peers/htsim_hpcc_fabric.cpp (main_hpcc with each flow
source-routed on its path instead of htsim's ECMP switches, whose hash follows the wall clock),
Swift htsim_swift_fabric.cpp -paths. Each driver prints the switches of the routes it connected,
and the run stops with an error unless every flow's match ccscope's.

Bench (--k 8 --bench; "Speed and scale" of the issue): the k = 8 fat-tree (128 hosts, every
link 100 Gb/s and 1 us, 500-packet ports, PFC 15/12 packets, per-flow ECMP, HPCC with htsim's
constants as above). htsim starts every flow at 0, so the bench, like the comparison, is a batch
at t = 0: each host sends N flows to destinations drawn uniformly among the other hosts, sizes
from the web-search CDF (seed 1), with N = round(0.5 x 100 Gb/s x D / mean web-search size): the
bytes a 50 % web-search load offers in D ms (--bench-ms, default 50; the row says which D ran).
ccscope runs target/release/ccscope-bench on the scenario (its JSON line: wall time, events,
peak RSS), htsim runs htsim_hpcc on the exported flows; both under /usr/bin/time -v (user CPU,
peak RSS). htsim prints two lines per ACK (hpcc.cpp's "CWND1"/"CWND2"); they go to a pipe that
keeps only the "finished" lines, and their cost stays in htsim's time (htsim as published).
htsim's HPCC aborts on large batches (a runaway window, then a go-back-N assertion; docs/
validation.md): each try's exit status and finished flows are printed, up to 3 tries, and an
aborted row says so.

Measure (decided before the first run, from the issue's acceptance: "FCT slowdown p50/p99 per size
bin within 15 % and the same ordering between algorithms"): the slowdown of each completed flow is
its FCT over ccscope's ideal FCT of the same flow (docs/workloads.md: path base RTT plus size over
the bottleneck rate with per-hop serialization), on both sides, so the two columns differ only by
the FCT. Bins: ccscope's 10 bins of equal workload share (analysis.slowdown_stats). A bin passes
when both its p50 and p99 are within 15 % of htsim's; bins with fewer than 20 completed flows on
either side are shown but not judged (a p99 of fewer than 20 values is the maximum). htsim rounds
a flow up to whole MSS packets; its FCT is read from "Flow <name> finished at <us>" and matched
to the flow by (source, destination, packets), in start order among equals.
"""
from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import htsim as peer  # noqa: E402  (bench/peers/htsim.py: find_sim, build_htsim, errors)

ROOT = Path(__file__).resolve().parents[2]
MTU = 1500
TOL = 0.15
MIN_FLOWS = 20

#: htsim hpcc.cpp's constants (HPCCSrc::_T, _eta, _max_stages; _Wai = one MSS).
HTSIM_HPCC = {"base_rtt_s": 12e-6, "eta": 0.95, "max_stage": 5, "w_ai_bytes": float(MTU)}

#: htsim swift.cpp's constants (SwiftSrc constructor) as ccscope's [swift]. htsim's per-hop term is 0:
#: the route a Swift subflow keeps is a Route::clone, whose hop count is 0 (the driver prints it).
HTSIM_SWIFT = {"ai": 1.0, "beta": 0.8, "max_mdf": 0.5, "base_target_s": 20e-6, "hop_scale_s": 0.0,
               "fs_range_s": 100e-6, "fs_min_cwnd": 0.1, "fs_max_cwnd": 100.0, "max_cwnd": 1000.0,
               "min_cwnd": 10 / MTU, "retx_reset_threshold": 5}
#: main_swift.cpp's -cwnd default (packets) and swift.cpp's first and minimum RTO.
HTSIM_SWIFT_TCP = {"iw_pkts": 15, "initial_rto_s": 1e-3, "min_rto_s": 100e-6}

CASES = {
    "websearch": dict(rate_bps=100e9, delay_s=1e-6, buffer_pkts=500, per_host=16, until_s=0.0,
                      drain_s=0.05, seed=1, kind="batch"),
    "incast": dict(rate_bps=100e9, delay_s=1e-6, buffer_pkts=500, senders=list(range(4, 16)), dst=0,
                   size_bytes=1_000_000, until_s=0.01, drain_s=0.01, seed=1, kind="incast"),
}


def ccscope_scenario(c: dict, cc: str) -> dict:
    sc = {
        "name": f"htsim-peer-{cc}", "seed": c["seed"], "until_s": c["until_s"] + c["drain_s"],
        "packet_bytes": MTU,
        "topology": {"kind": "fat_tree", "k": c.get("k", 4), "link_bps": c["rate_bps"], "link_delay_s": c["delay_s"],
                     "buffer_pkts": c["buffer_pkts"]},
        "record": {"traces": []},
    }
    if cc == "hpcc":  # htsim's HPCC runs on lossless queues; its Swift on lossy ones
        sc["pfc"] = {"classes": [0], "xoff_bytes": 15 * MTU, "xon_bytes": 12 * MTU}
    if cc == "hpcc":
        sc["int"] = {"ports": "switches"}
        sc["hpcc"] = dict(HTSIM_HPCC)
    if cc == "swift":
        sc["swift"] = dict(HTSIM_SWIFT)
        sc["tcp"] = dict(HTSIM_SWIFT_TCP)
        if c.get("host_aqm"):  # --host-fq: the third setup's host ports
            sc["topology"]["host_aqm"] = dict(c["host_aqm"])
        if c.get("host_queue_pkts"):  # --host-queue-pkts: the fourth setup's per-flow host limit
            sc["tcp"]["host_queue_pkts"] = int(c["host_queue_pkts"])
        if c.get("stamp_at"):  # --stamp-at host_tx: the fifth setup's RTT-sample start
            sc["tcp"]["stamp_at"] = c["stamp_at"]
    if c["kind"] == "batch":
        sc["flow"] = [{"src": f"h{s}", "dst": f"h{d}", "cc": cc, "size_bytes": b, "start_s": 0.0}
                      for s, d, b in batch_flows(c)]
    else:
        sc["flow"] = [{"src": f"h{s}", "dst": f"h{c['dst']}", "cc": cc, "size_bytes": c["size_bytes"],
                       "start_s": 0.0} for s in c["senders"]]
    return sc


def batch_flows(c: dict) -> list[tuple[int, int, int]]:
    """(src, dst, bytes) of the "batch" case: per_host flows from each of the k^3/4 hosts (16 for
    k = 4), each to a destination drawn uniformly among the other hosts, sizes from the web-search
    CDF."""
    import numpy as np
    from ccscope.analysis.metrics import builtin_cdf, cdf_quantile

    rng = np.random.default_rng(c["seed"])
    out = []
    hosts = c.get("k", 4) ** 3 // 4
    for s in range(hosts):
        for _ in range(c["per_host"]):
            d = int(rng.integers(0, hosts - 1))
            d += d >= s
            b = int(max(1, round(float(cdf_quantile(builtin_cdf("websearch"), rng.random())))))
            out.append((s, d, b))
    return out


def rule_objects(a: argparse.Namespace, name: str, leave_out: tuple[str, ...] = ()) -> tuple[Path, Path, list[str]]:
    """Build htsim's library (bench/peers/htsim.py) and compile the data-center objects that the
    Makefile's htsim_<name> rule links (less `leave_out`) into the build folder: (the datacenter
    source folder, the output folder, the object paths)."""
    peer.build_htsim(a)
    dc = a.sim / "datacenter"
    mk = (dc / "Makefile").read_text(errors="replace").replace("\\\n", " ")
    m = re.search(rf"^htsim_{name}:\s*(.*)$", mk, re.M)
    if not m:
        raise peer.UsageError(f"--htsim: {dc / 'Makefile'} has no htsim_{name} rule")
    objs = [w for w in m.group(1).split() if w.endswith(".o") and w not in leave_out]
    out = a.build_dir.resolve() / "dc"
    out.mkdir(parents=True, exist_ok=True)
    flags = a.cxxflags.split()
    built = []
    for o in objs:
        src, obj = dc / (o[:-2] + ".cpp"), out / o
        if not obj.is_file() or obj.stat().st_mtime < src.stat().st_mtime:
            peer.run_checked([a.cxx, *flags, "-I", str(a.sim), "-I", str(dc), "-c", str(src), "-o", str(obj)],
                             f"compiling {src.name}")
        built.append(str(obj))
    return dc, out, built


def htsim_binary(a: argparse.Namespace, name: str) -> Path:
    """Build htsim's library (bench/peers/htsim.py) and link sim/datacenter/main_<name>.cpp."""
    _, out, built = rule_objects(a, name)
    flags = a.cxxflags.split()
    exe = out / f"htsim_{name}"
    peer.run_checked([a.cxx, *flags, *built, str(a.build_dir.resolve() / "libhtsim.a"), "-o", str(exe)],
                     f"linking htsim_{name}")
    return exe


SWIFT_DRIVER = Path(__file__).resolve().parent / "htsim_swift_fabric.cpp"
PATHS_HEADER = Path(__file__).resolve().parent / "htsim_paths.h"


def swift_fabric_binary(a: argparse.Namespace) -> Path:
    """Build htsim's library (bench/peers/htsim.py), compile the data-center objects that the
    Makefile's htsim_swift rule links (all but main_swift.o) and link our own driver,
    bench/peers/htsim_swift_fabric.cpp (main_swift with per-flow sizes and starts), with them."""
    dc, out, built = rule_objects(a, "swift", leave_out=("main_swift.o",))
    flags = a.cxxflags.split()
    exe = out / "htsim_swift_fabric"
    lib = a.build_dir.resolve() / "libhtsim.a"
    newest = max(SWIFT_DRIVER.stat().st_mtime, PATHS_HEADER.stat().st_mtime, lib.stat().st_mtime,
                 *(Path(b).stat().st_mtime for b in built))
    if not exe.is_file() or exe.stat().st_mtime < newest:
        peer.run_checked([a.cxx, *flags, "-I", str(a.sim), "-I", str(dc), str(SWIFT_DRIVER), *built, str(lib),
                          "-o", str(exe)], "linking htsim_swift_fabric")
    return exe


HPCC_DRIVER = Path(__file__).resolve().parent / "htsim_hpcc_fabric.cpp"


def hpcc_fabric_binary(a: argparse.Namespace) -> Path:
    """Build htsim's library, compile the objects of the Makefile's htsim_hpcc rule (all but
    main_hpcc.o) and link our own driver, bench/peers/htsim_hpcc_fabric.cpp (main_hpcc with each
    flow source-routed on a given path), with them."""
    dc, out, built = rule_objects(a, "hpcc", leave_out=("main_hpcc.o",))
    exe = out / "htsim_hpcc_fabric"
    lib = a.build_dir.resolve() / "libhtsim.a"
    newest = max(HPCC_DRIVER.stat().st_mtime, PATHS_HEADER.stat().st_mtime, lib.stat().st_mtime,
                 *(Path(b).stat().st_mtime for b in built))
    if not exe.is_file() or exe.stat().st_mtime < newest:
        peer.run_checked([a.cxx, *a.cxxflags.split(), "-I", str(a.sim), "-I", str(dc), str(HPCC_DRIVER), *built,
                          str(lib), "-o", str(exe)], "linking htsim_hpcc_fabric")
    return exe


def htsim_switch(name: str, k: int) -> str:
    """htsim's FatTreeTopology name of a ccscope fat_tree switch (its pipes' names, fat_tree_topology.cpp):
    edge e<p>_<i> -> LS<p*k/2 + i>, aggregation a<p>_<j> -> US<p*k/2 + j> (pod p's j-th in both);
    core c<n>: ccscope's reaches every pod through a<p>_<n // (k/2)>, htsim's CS<m> through
    US<p*k/2 + m % (k/2)>, so c<n> -> CS<n // (k/2) + (k/2) * (n % (k/2))> (the same aggregation
    position; the core index within it kept)."""
    h = k // 2
    m = re.fullmatch(r"([ea])(\d+)_(\d+)|c(\d+)", name)
    if not m:
        raise peer.UsageError(f"--paths shared: switch {name!r} is not a fat_tree switch (e<p>_<i>, a<p>_<j>, c<n>)")
    if m.group(4) is not None:
        n = int(m.group(4))
        return f"CS{n // h + h * (n % h)}"
    return f"{'LS' if m.group(1) == 'e' else 'US'}{int(m.group(2)) * h + int(m.group(3))}"


def htsim_paths_text(paths: dict, k: int) -> str:
    """The drivers' -paths file (bench/peers/htsim_paths.h) from ccscope's exported paths
    (ccscope.export.parse_paths): "<id> fwd <switch>... rev <switch>..." in htsim's names."""
    return "".join(f"{i} fwd {' '.join(htsim_switch(x, k) for x in fwd)} rev "
                   f"{' '.join(htsim_switch(x, k) for x in rev)}\n" for i, (_, _, fwd, rev) in sorted(paths.items()))


def shared_path_fcts(a: argparse.Namespace, cc: str, cm: Path, c: dict, res, routes) -> list[float]:
    """--paths shared: htsim runs the flows of `cm` on ccscope's paths (our drivers' -paths) and
    each flow's htsim FCT is returned (NaN when unfinished). Checks that every flow's htsim data
    and ACK routes cross the switches ccscope's did (the drivers print them, read from the routes
    they connected), and prints the count; a difference is an error."""
    from ccscope.export import parse_paths, to_paths

    k = c.get("k", 4)
    want = parse_paths(to_paths(res, routes))
    pf = cm.with_name("paths.txt")
    pf.write_text(htsim_paths_text(want, k))
    if cc == "swift":
        cmd = swift_command(a.exe, cm, c) + ["-paths", str(pf)]
    else:  # htsim_command's options less -strat and -paths (routing): source-routed instead
        end = str(int(round((c["until_s"] + c["drain_s"]) * 1e6)))
        cmd = [str(a.exe), "-tm", str(cm), "-paths", str(pf), "-nodes", str(k ** 3 // 4),
               "-linkspeed", htsim_linkspeed(c), "-hop_latency", f"{c['delay_s'] * 1e6:g}",
               "-q", str(c["buffer_pkts"]), "-mtu", str(MTU), "-pfc_thresholds", "12", "15", "-end", end]
    p = run_driver(cmd, cm)
    fin = re.compile(rf"Flow {cc}(\d+)_\d+_\d+ finished at ([0-9.eE+-]+) total bytes")
    got_path = re.compile(r"(?:^|\.)path (\d+) fwd ((?:\S+ )*)rev((?: \S+)*)$")  # htsim may leave a "." open
    done: dict[int, float] = {}
    got: dict[int, tuple[list[str], list[str]]] = {}
    for line in p.stdout.splitlines():
        m = fin.search(line)
        if m:
            done.setdefault(int(m.group(1)), float(m.group(2)) * 1e-6)
            continue
        m = got_path.match(line)
        if m:
            got[int(m.group(1))] = (m.group(2).split(), m.group(3).split())
    same = sum(got.get(i) == ([htsim_switch(x, k) for x in fw], [htsim_switch(x, k) for x in rv])
               for i, (_, _, fw, rv) in want.items())
    if same != len(want):
        raise peer.BuildError(f"--paths shared: htsim's routes cross ccscope's switches for {same} of {len(want)} "
                              "flows only")
    print(f"\npaths: all {same} flows' htsim data and ACK routes cross the switches of ccscope's", flush=True)
    flows = res.flows
    return [done[int(f) + 1] - float(s) if int(f) + 1 in done else math.nan
            for f, s in zip(flows["flow"], flows["start_s"])]


def run_driver(cmd: list[str], cm: Path) -> subprocess.CompletedProcess:
    """One htsim driver run in cm's folder (htsim writes its logs into the cwd), stdout captured,
    stderr kept beside cm; a failed run raises with its command and its last stderr line."""
    err = cm.with_suffix(".stderr")
    with open(err, "w") as ef:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=ef, text=True, errors="replace", cwd=cm.parent)
    if p.returncode != 0:
        last = (err.read_text(errors="replace").strip().splitlines() or [""])[-1]
        raise peer.BuildError(f"htsim exited with status {p.returncode}: {' '.join(cmd)}: {last}")
    return p


def swift_command(exe: Path, cm: Path, c: dict) -> list[str]:
    """bench/peers/htsim_swift_fabric.cpp's command line: main_swift's options, each flow's size and
    start from the matrix."""
    end = str(int(round((c["until_s"] + c["drain_s"]) * 1e6)))
    return [str(exe), "-tm", str(cm), "-nodes", "16", "-linkspeed", f"{c['rate_bps'] / 1e6:g}",
            "-q", str(c["buffer_pkts"]), "-mtu", str(MTU), "-cwnd", str(HTSIM_SWIFT_TCP["iw_pkts"]), "-end", end]


def swift_fcts(exe: Path, cm: Path, c: dict, flows,
               extra: list[str] | None = None) -> tuple[list[float], list[tuple[int, int, int]]]:
    """htsim's FCT of each ccscope flow (NaN when htsim did not finish it) from the driver's
    "Flow swift<id>_<src>_<dst> finished at <us> total bytes <n>" lines (the first per flow; the
    matrix's id is ccscope's flow + 1), and the driver's (id, links, hop_count) route lines. It runs
    in cm's folder."""
    cmd = swift_command(exe, cm, c) + (extra or [])
    p = run_driver(cmd, cm)
    fin = re.compile(r"Flow swift(\d+)_(\d+)_(\d+) finished at ([0-9.eE+-]+) total bytes (\d+)")
    rte = re.compile(r"route (\d+) links (\d+) hop_count (\d+)")
    done: dict[int, float] = {}
    routes = []
    for line in p.stdout.splitlines():
        m = fin.search(line)
        if m:
            done.setdefault(int(m.group(1)), float(m.group(4)) * 1e-6)
            continue
        m = rte.search(line)
        if m:
            routes.append((int(m.group(1)), int(m.group(2)), int(m.group(3))))
    fct = [done[int(f) + 1] - float(s) if int(f) + 1 in done else math.nan
           for f, s in zip(flows["flow"], flows["start_s"])]
    return fct, routes


def htsim_linkspeed(c: dict) -> str:
    """htsim's -linkspeed (Mb/s) for case `c`: the case's rate, or with --match-header the rate at
    which htsim's 1,564-byte HPCC data packet serializes as ccscope's 1,500-byte one
    (c["htsim_link_bps"])."""
    return f"{c.get('htsim_link_bps', c['rate_bps']) / 1e6:.10g}"


def htsim_command(exe: Path, cm: Path, c: dict, cc: str) -> list[str]:
    end = str(int(round((c["until_s"] + c["drain_s"]) * 1e6)))
    return [str(exe), "-tm", str(cm), "-nodes", str(c.get("k", 4) ** 3 // 4), "-strat", "ecmp_host", "-paths", "1",
            "-linkspeed", htsim_linkspeed(c), "-hop_latency", f"{c['delay_s'] * 1e6:g}",
            "-q", str(c["buffer_pkts"]), "-mtu", str(MTU), "-pfc_thresholds", "12", "15", "-end", end]


class NotRunnable(Exception):
    """The peer's driver cannot run this case as it stands (the message says why)."""


def run_htsim(exe: Path, cm: Path, c: dict, cc: str = "hpcc") -> list[tuple[int, int, int, float]]:
    """htsim's finished flows: (src, dst, bytes acked, finish time s). It runs in cm's folder, where
    its drivers write their log file (logout.dat)."""
    cmd = htsim_command(exe, cm, c, cc)
    # Swift's set_flowsize adds one MSS and its "finished" line reports that total
    extra = MTU if cc == "swift" else 0
    done = []
    pat = re.compile(r"^Flow \S+?_(\d+)_(\d+) finished at ([0-9.eE+-]+) total bytes (\d+)")
    err = cm.with_suffix(".stderr")
    with open(err, "w") as ef, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=ef, text=True,
                                                errors="replace", cwd=cm.parent) as p:
        assert p.stdout is not None
        for line in p.stdout:
            if line.startswith("Flow "):
                m = pat.match(line)
                if m:
                    done.append((int(m.group(1)), int(m.group(2)), int(m.group(4)) - extra,
                                 float(m.group(3)) * 1e-6))
    if p.returncode != 0:
        last = (err.read_text(errors="replace").strip().splitlines() or [""])[-1]
        raise peer.BuildError(f"htsim exited with status {p.returncode}: {' '.join(cmd)}: {last}")
    return done


#: htsim's HPCCAck::ACKSIZE (bytes on the wire of an ACK).
HTSIM_ACK_BYTES = 64
#: htsim's SwiftAck::ACKSIZE (swiftpacket.h).
HTSIM_SWIFT_ACK_BYTES = 40


def fat_tree_links(src: int, dst: int, k: int) -> int:
    """Links on a shortest route between hosts src and dst of a k-ary fat-tree (hosts numbered
    rack by rack: k/2 per rack, k^2/4 per pod): 2 within a rack, 4 within a pod, 6 across."""
    rack, pod = k // 2, k * k // 4
    if src // rack == dst // rack:
        return 2
    return 4 if src // pod == dst // pod else 6


def ack_return_s(src: int, dst: int, c: dict, k: int = 4, ack_bytes: int = HTSIM_ACK_BYTES) -> float:
    """The base time of the last ACK's trip from dst back to src on the empty fabric (store and
    forward: each link's delay plus the ACK's serialization)."""
    return fat_tree_links(dst, src, k) * (c["delay_s"] + ack_bytes * 8 / c["rate_bps"])


def sender_side(flows, c: dict, cc: str, peer_fct):
    """--fct sender: (ccscope's flows, htsim's flows), each with fct_s and slowdown at the sender
    side over one ideal: ccscope's ideal_fct_s plus the ACK's base return (ack_return_s, the
    ACK size of the peer's `cc`)."""
    ack = HTSIM_SWIFT_ACK_BYTES if cc == "swift" else HTSIM_ACK_BYTES
    ideal = flows["ideal_fct_s"] + [ack_return_s(int(r.src[1:]), int(r.dst[1:]), c, c.get("k", 4), ack)
                                    for r in flows.itertuples(index=False)]
    ours, theirs = flows.copy(), flows.copy()
    ours["fct_s"] = flows["fct_sender_s"]
    theirs["fct_s"] = peer_fct
    for f in (ours, theirs):
        f["slowdown"] = f["fct_s"] / ideal
    return ours, theirs


def match_htsim(flows, done) -> list[float]:
    """htsim's FCT for each ccscope flow (NaN when htsim did not finish it)."""
    by_key = defaultdict(list)
    for s, d, acked, t in sorted(done, key=lambda x: x[3]):
        by_key[(s, d, math.ceil(acked / MTU))].append(t)
    fct = []
    order = flows.sort_values("start_s")
    out = {}
    for row in order.itertuples(index=False):
        key = (int(row.src[1:]), int(row.dst[1:]), math.ceil(int(row.size_bytes) / MTU))
        q = by_key.get(key)
        out[row.flow] = (q.pop(0) - float(row.start_s)) if q else math.nan
    for f in flows["flow"]:
        fct.append(out[f])
    return fct


def compare(a: argparse.Namespace, name: str, cc: str) -> bool:
    import ccscope
    from ccscope.analysis.metrics import builtin_cdf, slowdown_stats
    from ccscope.export import to_htsim_cm

    c = CASES[name]
    shared = getattr(a, "paths", "own") == "shared"
    if shared:  # --paths shared: the engine's route of each flow, for htsim to take
        from ccscope.export import simulate_with_routes
        res, routes = simulate_with_routes(ccscope_scenario(c, cc))
    else:
        res = ccscope.simulate(ccscope_scenario(c, cc))
    flows = res.flows
    with tempfile.TemporaryDirectory() as tmp:
        cm = Path(tmp) / "flows.cm"
        cm.write_text(to_htsim_cm(res))
        if shared:
            peer_fct = shared_path_fcts(a, cc, cm, c, res, routes)
        elif cc == "swift":
            peer_fct, routes = swift_fcts(a.exe, cm, c, flows)
        else:
            try:
                done = run_htsim(a.exe, cm, c, cc)
            except NotRunnable as e:
                print(f"\n### {cc} — {name}: not run ({e})\n")
                return False
            peer_fct = match_htsim(flows, done)
    sender = getattr(a, "fct", "receiver") == "sender"
    if sender:  # both FCTs at the sender, over the same ideal with the ACK's return
        flows, peer_flows = sender_side(flows, c, cc, peer_fct)
    else:
        peer_flows = flows.copy()
        peer_flows["fct_s"] = peer_fct
        ideal = peer_flows["ideal_fct_s"]
        if a.htsim_fct == "ack":  # htsim's FCT ends at its sender: over the ideal of that end point
            ideal = ideal + [ack_return_s(int(r.src[1:]), int(r.dst[1:]), c)
                             for r in peer_flows.itertuples(index=False)]
        peer_flows["slowdown"] = peer_flows["fct_s"] / ideal
    if c["kind"] == "batch":
        ours = slowdown_stats(flows, size_cdf=builtin_cdf("websearch"))
    else:
        ours = slowdown_stats(flows, edges_bytes=[0, c["size_bytes"]])
    theirs = slowdown_stats(peer_flows, edges_bytes=list(ours["lo_bytes"]) + [float(ours["hi_bytes"].iloc[-1])])
    getattr(a, "tables", {})[(cc, name)] = (ours, theirs)
    ok_all = True
    print(f"\n### {cc} — {name} ({len(flows)} flows; completed: ccscope {int(flows['fct_s'].notna().sum())}, "
          f"htsim {int(peer_flows['fct_s'].notna().sum())}; "
          + (f"htsim's links at {c['htsim_link_bps'] / 1e9:.4f} Gb/s (--match-header); " if "htsim_link_bps" in c
             else "")
          + ("both FCTs at the sender, over the ideal plus the ACK return" if sender else
             f"htsim's FCT over {'the ideal plus the ACK return' if a.htsim_fct == 'ack' else 'the receiver-side ideal'}")
          + ")\n")
    print("| bin (bytes) | flows | ccscope p50 | htsim p50 | ccscope p99 | htsim p99 | within 15 % |")
    print("|---|---|---|---|---|---|---|")
    for o, t in zip(ours.itertuples(index=False), theirs.itertuples(index=False)):
        judged = min(o.completed, t.completed) >= MIN_FLOWS
        ok = (abs(o.p50 / t.p50 - 1) <= TOL and abs(o.p99 / t.p99 - 1) <= TOL) if judged else None
        if ok is False:
            ok_all = False
        verdict = "not judged (< 20 flows)" if ok is None else ("yes" if ok else "**no**")
        print(f"| {o.lo_bytes:.0f}-{o.hi_bytes:.0f} | {o.completed}/{t.completed} | {o.p50:.2f} | {t.p50:.2f} | "
              f"{o.p99:.2f} | {t.p99:.2f} | {verdict} |")
    return ok_all


def websearch_mean_bytes() -> float:
    """Mean flow size of the built-in web-search CDF (midpoint rule over 100,000 quantiles)."""
    import numpy as np
    from ccscope.analysis.metrics import builtin_cdf, cdf_quantile

    q = (np.arange(100_000) + 0.5) / 100_000
    return float(np.mean([cdf_quantile(builtin_cdf("websearch"), float(x)) for x in q]))


def _time_v(stderr_text: str) -> dict:
    """User CPU seconds, wall seconds and peak RSS (KiB) from /usr/bin/time -v's report."""
    out = {}
    for line in stderr_text.splitlines():
        line = line.strip()
        if line.startswith("User time (seconds):"):
            out["user_s"] = float(line.split(":")[1])
        elif line.startswith("Maximum resident set size (kbytes):"):
            out["rss_kb"] = int(line.split(":")[1])
        elif line.startswith("Elapsed (wall clock) time"):
            t = line.rsplit(" ", 1)[1].split(":")
            out["wall_s"] = sum(float(x) * 60 ** i for i, x in enumerate(reversed(t)))
    return out


def bench(a: argparse.Namespace) -> int:
    """The k = 8 bench row: ccscope's HPCC and htsim's on the same batch (module doc)."""
    import json

    mean = websearch_mean_bytes()
    per_host = max(1, round(0.5 * 100e9 / 8 * a.bench_ms * 1e-3 / mean))
    c = dict(CASES["websearch"], k=a.k, per_host=per_host, drain_s=1.0)
    sc = ccscope_scenario(c, "hpcc")
    sc["name"] = f"fat_tree_k{a.k}_hpcc_batch"
    bench_bin = ROOT / "target" / "release" / "ccscope-bench"
    if not bench_bin.is_file():
        print(f"error: {bench_bin} is missing; build it with `cargo build --release -p ccscope-core --bin "
              "ccscope-bench`", file=sys.stderr)
        return 2
    flows = sc["flow"]
    print(f"bench: k = {a.k}, {len(flows)} flows ({per_host} per host, web-search mean {mean:.0f} B: "
          f"{a.bench_ms:g} ms of 50 % load), all starting at 0", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        scp = Path(tmp) / "scenario.json"
        scp.write_text(json.dumps(sc))
        r = subprocess.run(["/usr/bin/time", "-v", str(bench_bin), str(scp)], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"error: ccscope-bench exited with {r.returncode}: {r.stderr.strip()[-300:]}", file=sys.stderr)
            return 2
        ours = json.loads(r.stdout.strip().splitlines()[-1])
        ours_t = _time_v(r.stderr)
        # the flow list in htsim's connection-matrix format (python/ccscope/export.py writes the
        # same lines from a run's result; here the flows are known before the run)
        cm = Path(tmp) / "flows.cm"
        cm.write_text("\n".join([f"Nodes {a.k ** 3 // 4}", f"Connections {len(flows)}"]
                                 + [f"{f['src'][1:]}->{f['dst'][1:]} id {i + 1} start 0 size {f['size_bytes']}"
                                    for i, f in enumerate(flows)]) + "\n")
        cmd = htsim_command(a.exe, cm, c, "hpcc")
        errf = Path(tmp) / "htsim.time"
        sh = (" ".join(["/usr/bin/time", "-v", "-o", str(errf), *cmd])
              + " | grep -a -c ' finished at '")
        # htsim's HPCC aborts now and then (its paths are seeded from the wall clock, so every
        # run differs): up to 3 tries, each reported
        for attempt in range(1, 4):
            h = subprocess.run(["bash", "-o", "pipefail", "-c", sh], capture_output=True, text=True, cwd=tmp)
            done = int((h.stdout.strip() or "0").splitlines()[-1])
            theirs_t = _time_v(errf.read_text(errors="replace") if errf.is_file() else "")
            print(f"htsim try {attempt}: exit status {h.returncode}, {done} flows finished, "
                  f"wall {theirs_t.get('wall_s', float('nan')):.1f} s", file=sys.stderr, flush=True)
            if h.returncode == 0:
                break
    rss = lambda kb: f"{kb / 1024:.0f} MiB"  # noqa: E731
    print(f"\n### HPCC, fat-tree k = {a.k} ({a.k ** 3 // 4} hosts), batch of {len(flows)} web-search flows at "
          f"t = 0 ({a.bench_ms:g} ms of 50 % load)\n")
    print("| simulator | flows completed | wall s | user CPU s | events | events/s of wall | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    need = sum(math.ceil(f["size_bytes"] / MTU) for f in flows)
    got = "all" if ours["delivered_pkts"] >= need else f"{ours['delivered_pkts']}/{need} packets"
    print(f"| ccscope | {got} | {ours['wall_s']:.1f} | "
          f"{ours_t.get('user_s', float('nan')):.1f} | {ours['events'] / 1e6:.1f} M | "
          f"{ours['events_per_s'] / 1e6:.2f} M | {rss(ours['peak_rss_kb'])} |")
    print(f"| htsim | {done}{'' if h.returncode == 0 else f' (aborted: exit status {h.returncode})'} | {theirs_t.get('wall_s', float('nan')):.1f} | "
          f"{theirs_t.get('user_s', float('nan')):.1f} | not counted | — | {rss(theirs_t.get('rss_kb', 0))} |")
    if "wall_s" in theirs_t:
        print(f"\nccscope / htsim: wall time {ours['wall_s'] / theirs_t['wall_s']:.2f} (goal: at most 0.5), "
              f"user CPU {ours_t.get('user_s', float('nan')) / theirs_t.get('user_s', float('nan')):.2f}")
    return 0 if h.returncode == 0 else 1


ORDER_TIE = 0.05


def swift_diagnose(a: argparse.Namespace, name: str, seeds: int) -> None:
    """Two measurements behind the web-search rows (docs/validation.md): (1) htsim against itself
    with other path draws (the driver's -seed 1..seeds; 13 is main_swift's): the spread of each
    bin's p50 and p99, which bounds what per-flow ECMP with different path choices alone moves;
    (2) for the smallest bin, the correlation of each flow's FCT with the packets queued ahead of
    it at its host at t = 0 (min(size, iw) of the host's earlier flows, in flow order): a FIFO host
    port gives a high one, htsim's per-flow round robin (FairScheduler) none."""
    import numpy as np

    import ccscope
    from ccscope.analysis.metrics import builtin_cdf, slowdown_stats
    from ccscope.export import to_htsim_cm

    c = CASES[name]
    res = ccscope.simulate(ccscope_scenario(c, "swift"))
    flows = res.flows
    ours = slowdown_stats(flows, size_cdf=builtin_cdf("websearch"))
    edges = list(ours["lo_bytes"]) + [float(ours["hi_bytes"].iloc[-1])]
    stats, fcts, pooled_h, pooled_c = {}, {}, [], [flows]
    with tempfile.TemporaryDirectory() as tmp:
        cm = Path(tmp) / "flows.cm"
        cm.write_text(to_htsim_cm(res))
        for seed in [13, *range(1, seeds + 1)]:
            pf = flows.copy()
            pf["fct_s"], _ = swift_fcts(a.exe, cm, c, flows, ["-seed", str(seed)])
            pf["slowdown"] = pf["fct_s"] / pf["ideal_fct_s"]
            stats[seed], fcts[seed] = slowdown_stats(pf, edges_bytes=edges), pf["fct_s"].to_numpy()
            pooled_h.append(pf)
    print(f"\n### swift — {name}: htsim with other path draws (seed 13 = main_swift's, then 1..{seeds})\n")
    print("| bin (bytes) | ccscope p50 | htsim p50 by seed | spread | ccscope p99 | htsim p99 by seed | spread |")
    print("|---|---|---|---|---|---|---|")
    for i, o in enumerate(ours.itertuples(index=False)):
        p50 = [float(stats[k].iloc[i]["p50"]) for k in stats]
        p99 = [float(stats[k].iloc[i]["p99"]) for k in stats]
        print(f"| {o.lo_bytes:.0f}-{o.hi_bytes:.0f} | {o.p50:.2f} | {' '.join(f'{x:.2f}' for x in p50)} | "
              f"{max(p50) / min(p50) - 1:.0%} | {o.p99:.2f} | {' '.join(f'{x:.2f}' for x in p99)} | "
              f"{max(p99) / min(p99) - 1:.0%} |")
    # ccscope against itself: the scenario seed only salts the per-flow ECMP hash here (the flows
    # are drawn from the case's seed, nothing else is random)
    mine = {c["seed"]: ours}
    for seed in range(c["seed"] + 1, c["seed"] + seeds + 1):
        sc = ccscope_scenario(c, "swift")
        sc["seed"] = seed
        pooled_c.append(ccscope.simulate(sc).flows)
        mine[seed] = slowdown_stats(pooled_c[-1], edges_bytes=edges)
    print(f"\n### swift — {name}: ccscope with other ECMP salts (scenario seed {c['seed']}, then the next {seeds})\n")
    print("| bin (bytes) | ccscope p50 by seed | spread | ccscope p99 by seed | spread |")
    print("|---|---|---|---|---|")
    for i, o in enumerate(ours.itertuples(index=False)):
        p50 = [float(mine[k].iloc[i]["p50"]) for k in mine]
        p99 = [float(mine[k].iloc[i]["p99"]) for k in mine]
        print(f"| {o.lo_bytes:.0f}-{o.hi_bytes:.0f} | {' '.join(f'{x:.2f}' for x in p50)} | "
              f"{max(p50) / min(p50) - 1:.0%} | {' '.join(f'{x:.2f}' for x in p99)} | {max(p99) / min(p99) - 1:.0%} |")
    import pandas as pd

    pc = slowdown_stats(pd.concat(pooled_c, ignore_index=True), edges_bytes=edges)
    ph = slowdown_stats(pd.concat(pooled_h, ignore_index=True), edges_bytes=edges)
    print(f"\n### swift — {name}: pooled over the {seeds + 1} path draws of each side\n")
    print("| bin (bytes) | flows | ccscope p50 | htsim p50 | ccscope p99 | htsim p99 | within 15 % |")
    print("|---|---|---|---|---|---|---|")
    for o, t in zip(pc.itertuples(index=False), ph.itertuples(index=False)):
        ok = abs(o.p50 / t.p50 - 1) <= TOL and abs(o.p99 / t.p99 - 1) <= TOL
        print(f"| {o.lo_bytes:.0f}-{o.hi_bytes:.0f} | {o.completed}/{t.completed} | {o.p50:.2f} | {t.p50:.2f} | "
              f"{o.p99:.2f} | {t.p99:.2f} | {'yes' if ok else '**no**'} |")
    ahead, seen = [], defaultdict(float)
    iw = HTSIM_SWIFT_TCP["iw_pkts"]
    for row in flows.sort_values("flow").itertuples(index=False):
        ahead.append(seen[row.src])
        seen[row.src] += min(iw, math.ceil(int(row.size_bytes) / MTU))
    order = flows.sort_values("flow")
    small = (order["size_bytes"] <= float(ours["hi_bytes"].iloc[0])).to_numpy()
    x = np.array(ahead)[small]
    ccs = np.corrcoef(x, order["fct_s"].to_numpy()[small])[0, 1]
    hts = np.corrcoef(x, fcts[13][order.index.to_numpy()][small])[0, 1]
    print(f"\nsmallest bin ({int(small.sum())} flows): correlation of FCT with the packets queued ahead at the "
          f"host at t = 0: ccscope {ccs:.2f}, htsim {hts:.2f}")


def swift_hpcc_order(a: argparse.Namespace, name: str) -> bool:
    """Runs --cc hpcc on case `name` (after the Swift run of it) and prints, per bin, Swift's
    slowdown over HPCC's in ccscope and in htsim, for p50 and p99: "same" when both sides put the
    same algorithm ahead, "tie" when either side has the two within ORDER_TIE (not judged),
    "reversed" otherwise; bins with fewer than MIN_FLOWS completed flows anywhere are not judged.
    True when no judged bin is reversed. With --paths shared the HPCC run is the shared-path one
    (our driver bench/peers/htsim_hpcc_fabric.cpp on ccscope's paths)."""
    a.exe = hpcc_fabric_binary(a) if getattr(a, "paths", "own") == "shared" else htsim_binary(a, "hpcc")
    compare(a, name, "hpcc")
    (sw_o, sw_t), (hp_o, hp_t) = a.tables[("swift", name)], a.tables[("hpcc", name)]
    print(f"\n### ordering, Swift against HPCC — {name} (Swift's slowdown / HPCC's)\n")
    print("| bin (bytes) | p50 ccscope | p50 htsim | p50 order | p99 ccscope | p99 htsim | p99 order |")
    print("|---|---|---|---|---|---|---|")
    ok = True
    for so, st, ho, ht in zip(*(t.itertuples(index=False) for t in (sw_o, sw_t, hp_o, hp_t))):
        few = min(so.completed, st.completed, ho.completed, ht.completed) < MIN_FLOWS
        cells = []
        for q in ("p50", "p99"):
            r_o, r_t = getattr(so, q) / getattr(ho, q), getattr(st, q) / getattr(ht, q)
            if few:
                verdict = "not judged (< 20 flows)"
            elif abs(r_o - 1) <= ORDER_TIE or abs(r_t - 1) <= ORDER_TIE:
                verdict = "tie"
            elif (r_o > 1) == (r_t > 1):
                verdict = "same"
            else:
                verdict, ok = "**reversed**", False
            cells += [f"{r_o:.2f}", f"{r_t:.2f}", verdict]
        print(f"| {so.lo_bytes:.0f}-{so.hi_bytes:.0f} | " + " | ".join(cells) + " |")
    return ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/peers/htsim_fabric.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--htsim", required=True, metavar="PATH")
    p.add_argument("--case", action="append", choices=sorted(CASES), help="cases to run (default: all)")
    p.add_argument("--cc", default="hpcc", choices=["hpcc", "swift"], help="algorithm (default hpcc)")
    p.add_argument("--order", action="store_true",
                   help="with --cc swift: also run hpcc on the web-search case and compare the ordering")
    p.add_argument("--diagnose", type=int, default=0, metavar="N",
                   help="with --cc swift: also rerun htsim's web-search case with path seeds 1..N and print "
                        "the spread, and the smallest bin's dependence on the host queue order")
    p.add_argument("--host-fq", action="store_true",
                   help="with --cc swift: ccscope's host ports use per-flow fair queueing (host_aqm = fq)")
    p.add_argument("--host-queue-pkts", type=int, default=0, metavar="N",
                   help="with --cc swift: ccscope's TCP senders keep at most N packets per flow in their host "
                        "port (tcp.host_queue_pkts; htsim's Swift source: 3)")
    p.add_argument("--stamp-at", default="send", choices=["send", "host_tx"],
                   help="with --cc swift: when ccscope stamps a data packet for its RTT sample (tcp.stamp_at): "
                        "send (default) or host_tx, when its host port starts it (htsim's beginService)")
    p.add_argument("--paths", default="own", choices=["own", "shared"],
                   help="own (default): each simulator draws its own per-flow ECMP paths; shared: htsim runs "
                        "each flow on ccscope's path (export-flows --format paths; our drivers' -paths)")
    p.add_argument("--match-header", action="store_true",
                   help="with --cc hpcc: htsim's links run at rate x (1500 + 64) / 1500, so its data packet "
                        "(64 header bytes) serializes in the time ccscope's 1500-byte one does")
    p.add_argument("--build-dir", type=Path, default=ROOT / "target" / "peers" / "htsim")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--cxx", default="g++")
    p.add_argument("--cxxflags", default=peer.DEFAULT_CXXFLAGS)
    p.add_argument("--htsim-fct", default=None, choices=["raw", "ack"],
                   help="with --fct receiver: htsim's FCT (taken at its sender) over ccscope's receiver-side "
                        "ideal (raw, default: the written measure) or over the ideal plus the ACK's base return (ack)")
    p.add_argument("--fct", default="receiver", choices=["receiver", "sender"],
                   help="end point of ccscope's FCT: receiver (fct_s, default) or sender (fct_sender_s, "
                        "compared with htsim's own finish, both over the ideal plus the ACK's return)")
    p.add_argument("--k", type=int, default=4, choices=[4, 8], help="fat-tree k (8 only with --bench)")
    p.add_argument("--bench", action="store_true", help="the speed row: HPCC on a batch of web-search flows")
    p.add_argument("--bench-ms", type=float, default=50.0,
                   help="the batch carries what 50 %% web-search load offers in this many ms (default 50)")
    try:
        a = p.parse_args(argv)
        if a.k != 4 and not a.bench:
            raise peer.UsageError(f"--k = {a.k}: the comparison cases are on k = 4; k = 8 needs --bench")
        if a.bench and a.cc != "hpcc":
            raise peer.UsageError(f"--cc = {a.cc}: --bench runs HPCC only")
        if a.host_queue_pkts < 0:
            raise peer.UsageError(f"--host-queue-pkts = {a.host_queue_pkts}: must be >= 0 (0: unlimited)")
        if a.stamp_at != "send" and a.cc != "swift":
            raise peer.UsageError(f"--stamp-at = {a.stamp_at}: applies to --cc swift only (HPCC's senders are RDMA)")
        if a.bench and not (0 < a.bench_ms <= 1000):
            raise peer.UsageError(f"--bench-ms = {a.bench_ms:g}: must be in (0, 1000] ms")
        if a.fct == "sender":
            if a.htsim_fct is not None:
                raise peer.UsageError(f"--htsim-fct = {a.htsim_fct}: applies to --fct receiver only; --fct sender "
                                      "divides both FCTs by the ideal plus the ACK's return")
            if a.bench:
                raise peer.UsageError("--fct = sender: --bench measures speed, not FCT; leave --fct out")
            if a.diagnose > 0:
                raise peer.UsageError(f"--diagnose = {a.diagnose}: runs with --fct receiver only")
        a.htsim_fct = a.htsim_fct or "raw"
        if a.match_header and (a.cc != "hpcc" or a.bench):
            raise peer.UsageError("--match-header: applies to the --cc hpcc comparison only (htsim's HPCC data "
                                  "packet header; not --cc swift, not --bench)")
        if a.paths == "shared" and (a.bench or a.diagnose > 0):
            raise peer.UsageError("--paths shared: runs the comparison cases and --order only (not with --bench "
                                  "or --diagnose)")
        a.sim = peer.find_sim(a.htsim)
        a.exe = swift_fabric_binary(a) if a.cc == "swift" else htsim_binary(a, a.cc)
        if a.paths == "shared" and a.cc == "hpcc":  # our driver: main_hpcc source-routed on given paths
            a.exe = hpcc_fabric_binary(a)
    except (peer.UsageError, peer.BuildError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.bench:
        return bench(a)
    a.tables = {}  # (cc, case) -> (ccscope's, htsim's slowdown_stats), for --order
    if a.match_header:  # htsim's links carry its 1,564-byte data packet in ccscope's 1,500-byte time
        for c in CASES.values():
            c["htsim_link_bps"] = c["rate_bps"] * (MTU + HTSIM_ACK_BYTES) / MTU
    if a.host_fq and a.cc == "swift":
        for c in CASES.values():
            c["host_aqm"] = {"kind": "fq"}
    if a.host_queue_pkts > 0 and a.cc == "swift":
        for c in CASES.values():
            c["host_queue_pkts"] = a.host_queue_pkts
    if a.stamp_at != "send" and a.cc == "swift":
        for c in CASES.values():
            c["stamp_at"] = a.stamp_at
    ok = True
    for name in a.case or sorted(CASES):
        ok &= compare(a, name, a.cc)
    if a.diagnose > 0 and a.cc == "swift" and "websearch" in (a.case or CASES):
        swift_diagnose(a, "websearch", a.diagnose)
    if a.order and a.cc == "swift" and "websearch" in (a.case or CASES):
        ok &= swift_hpcc_order(a, "websearch")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
