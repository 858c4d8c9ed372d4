"""`make bench`: time the release engine on the reference runs and write BENCHMARKS.md.

`python -m ccscope.bench --python-path` prints only the table binary vs `cc.simulate` vs
`ccscope run` (the Python side from this interpreter's sys.path: PYTHONPATH=<tree>/python
compares another checkout).

Each run uses the `ccscope-bench` binary (pure Rust, no Python in the loop), light recording
(link counters every 1 ms), 1.1 s of simulated time, best of 7 wall times (the default `--reps`). The reference
numbers of htsim and ns-3 were measured on these same runs on a 2-core machine (issue
"Foundation"); they are quoted, not re-measured here.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import tempfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "target" / "release" / "ccscope-bench"

DCTCP = """
name = "bench dctcp N={n}"
seed = 1
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 100e-6
buffer_pkts = 1000
[aqm]
kind = "threshold"
k_pkts = 65
[flows]
count = {n}
cc = "dctcp"
start_jitter_s = 1e-3
[record]
traces = ["link"]
queue_interval_s = 1e-3
"""
NEWRENO = """
name = "bench newreno"
seed = 1
[topology]
kind = "dumbbell"
bottleneck_bps = 1e9
rtt_s = 250e-6
buffer_pkts = 250
[flows]
count = 2
cc = "new_reno"
start_jitter_s = 1e-3
[record]
traces = ["link"]
queue_interval_s = 1e-3
"""
POISSON = """
name = "bench poisson"
seed = 1
[topology]
kind = "dumbbell"
senders = 8
bottleneck_bps = 10e9
rtt_s = 100e-6
[aqm]
kind = "threshold"
k_pkts = 65
[tcp]
min_rto_s = 0.001
[record]
traces = ["link"]
queue_interval_s = 1e-3
[[workload]]
kind = "poisson"
src = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"]
dst = ["r0"]
load = 0.5
reference_bps = 10e9
size = { kind = "uniform", min_bytes = 10000, max_bytes = 50000 }
cc = ["dctcp"]
"""
#: (name, scenario text, target wall s (issue "Speed and scale": 2x ahead of htsim), htsim s, ns-3 s)
RUNS = [
    ("DCTCP 10G 100us K=65 N=2", DCTCP.format(n=2), 0.135, 0.27, 16.6),
    ("DCTCP 10G 100us K=65 N=10", DCTCP.format(n=10), 0.165, 0.33, 17.8),
    ("DCTCP 10G 100us K=65 N=100", DCTCP.format(n=100), 0.18, 0.36, 32.0),
    ("NewReno 1G 250us DropTail 250, 2 flows", NEWRENO, 0.0145, 0.029, 10.5),
]
UNTIL_S = 1.1
#: The same runs forced onto the general path (a dequeue decision per packet, docs/engine.md): their cost
#: against the committed FIFO is the general path's price (issue "Engine II": at most 1.6x).
GENERAL = "\n[sched]\npath = \"general\"\n"
#: A 32-to-1 incast into a lossless class (IEEE 802.1Qbb PFC at the switch): 32 servers answer one client with
#: 64 KB each, round after round, through a 100-packet port; DCTCP with K = 20.
PFC_INCAST = """
name = "bench pfc incast 32-1"
seed = 1
[topology]
kind = "dumbbell"
senders = 33
bottleneck_bps = 10e9
access_bps = 10e9
rtt_s = 20e-6
buffer_pkts = 100
[aqm]
kind = "threshold"
k_pkts = 20
[pfc]
xoff_bytes = 30000
xon_bytes = 15000
headroom_bytes = 10000
[[workload]]
kind = "incast"
servers = "s0..s31"
client = "s32"
block_bytes = 64000
rounds = 100000
cc = ["dctcp"]
[record]
traces = ["link"]
queue_interval_s = 1e-3
"""
#: Two classes under strict priority at the bottleneck: two DCTCP flows in class 0 (high) and two in class 1.
STRICT2 = """
name = "bench strict priority 2 classes"
seed = 1
[topology]
kind = "dumbbell"
senders = 4
bottleneck_bps = 10e9
rtt_s = 100e-6
buffer_pkts = 1000
[aqm]
kind = "threshold"
k_pkts = 65
[sched]
classes = 2
scheduler = "strict"
[[flow]]
src = "s0"
dst = "r0"
cc = "dctcp"
class = 0
[[flow]]
src = "s1"
dst = "r0"
cc = "dctcp"
class = 0
start_s = 0.0005
[[flow]]
src = "s2"
dst = "r0"
cc = "dctcp"
class = 1
start_s = 0.0002
[[flow]]
src = "s3"
dst = "r0"
cc = "dctcp"
class = 1
start_s = 0.0007
[record]
traces = ["link"]
queue_interval_s = 1e-3
"""
#: Engine II rows: (name, scenario text, simulated seconds)
ENGINE2_RUNS = [
    *((f"{name}, general path", text + GENERAL, UNTIL_S) for name, text, *_ in RUNS),
    ("PFC incast 32-to-1, 10 Gb/s, lossless class 0, DCTCP K=20", PFC_INCAST, 0.1),
    ("Strict priority, 2 classes x 2 DCTCP flows, 10 Gb/s 100us K=65", STRICT2, UNTIL_S),
]
#: the leaf-spine scale run (issue "Speed and scale"): its own file, its own simulated time
LEAF_SPINE = ROOT / "scenarios" / "leaf_spine_websearch.toml"
#: the fat-tree scale run's simulated time
FAT_TREE_UNTIL_S = 0.02


def fat_tree_websearch(load_balance: str = "ecmp", k: int = 8) -> str:
    """The fat-tree scale run: k = 8 (128 hosts, 80 switches) unless told, 10 Gb/s links with 2 us
    delay in every tier, DCTCP with K = 65 over 500-packet buffers, the leaf-spine run's Poisson
    workload (every host to every host, web-search sizes from scenarios/cdf/websearch.csv) over the
    k^3/4 hosts at 50 % of their total rate (load 0.5 of hosts x 10 Gb/s); engine JSON with the
    CDF read in."""
    from ccscope.scenario.io import load_file, to_engine_json
    data = load_file(LEAF_SPINE)
    data["name"] = f"fat_tree_k{k}_websearch_{load_balance}"
    data["topology"] = {"kind": "fat_tree", "k": k, "link_bps": 10e9, "link_delay_s": 2e-6, "buffer_pkts": 500,
                        "load_balance": load_balance}
    hosts = [f"h{i}" for i in range(k ** 3 // 4)]
    w = data["workload"][0]
    w["src"], w["dst"] = hosts, list(hosts)
    w["load"], w["reference_bps"] = 0.5, len(hosts) * 10e9
    return to_engine_json(data)


def run_one(text: str, reps: int, until_s: float = UNTIL_S, suffix: str = ".toml") -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
        f.write(text)
        path = f.name
    try:
        best = None
        for _ in range(reps):
            out = subprocess.run([str(BIN), path, "--until", str(until_s)], capture_output=True, text=True, check=True)
            r = json.loads(out.stdout)
            if best is None or r["wall_s"] < best["wall_s"]:
                best = r
        return best
    finally:
        os.unlink(path)


#: The 100 Gb/s fat-tree scale runs over PFC (issue "Speed and scale"): one run each of the files in
#: bench/fabric/ (their headers give the setup), k = 8 for 50 ms and k = 16 for 10 ms simulated.
FABRIC_FILES = [
    ("fat-tree k = 8 (128 hosts), DCTCP over PFC", "fat_tree_k8_dctcp_pfc.toml"),
    ("fat-tree k = 8 (128 hosts), DCQCN over PFC, RED at dequeue", "fat_tree_k8_dcqcn_pfc.toml"),
    ("fat-tree k = 8 (128 hosts), HPCC over PFC with INT", "fat_tree_k8_hpcc.toml"),
    ("fat-tree k = 16 (1024 hosts), DCTCP over PFC", "fat_tree_k16_dctcp_pfc.toml"),
]


def run_timed(path: Path) -> dict:
    """One run of a scenario file at its own `until_s`, with the child's user CPU seconds (from
    the OS's accounting of finished children) beside the binary's own report."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    out = subprocess.run([str(BIN), str(path)], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout)
    r["user_s"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    return r


def bench_fabric() -> list[str]:
    """The FABRIC_FILES rows: wall, user CPU, events, events per CPU second, peak RSS."""
    rows = []
    for name, file in FABRIC_FILES:
        path = ROOT / "bench" / "fabric" / file
        r = run_timed(path)
        import tomllib
        until = tomllib.loads(path.read_text())["until_s"]
        rows.append(f"| {name}, 100 Gb/s ({until} s), `bench/fabric/{file}` | {r['wall_s']:.1f} | {r['user_s']:.1f} | "
                    f"{r['events'] / 1e6:.1f} M | {r['events'] / max(r['user_s'], 1e-9) / 1e6:.2f} M | "
                    f"{r['peak_rss_kb'] / 1024:.0f} MiB |")
        print(rows[-1], flush=True)
    return rows


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def bench_many(reps: int) -> str:
    """simulate_many of 8 DCTCP N=2 runs (1.1 s each, link counters) against one at a time."""
    import statistics
    import time

    from ccscope.many import default_jobs, simulate_many
    from ccscope.sim import simulate
    import tomllib
    items = [tomllib.loads(DCTCP.format(n=2).replace("seed = 1", f"seed = {k + 1}")) for k in range(8)]
    jobs = min(2, default_jobs())

    def timed(f):
        out = []
        for _ in range(reps):
            t0 = time.perf_counter()
            f()
            out.append(time.perf_counter() - t0)
        return statistics.median(out)
    seq = timed(lambda: [simulate(sc, until_s=UNTIL_S) for sc in items])
    thr = timed(lambda: simulate_many(items, until_s=UNTIL_S, jobs=jobs))
    prc = timed(lambda: simulate_many(items, until_s=UNTIL_S, jobs=jobs, executor="process"))
    return (f"- **`simulate_many`** (8 × {UNTIL_S} s DCTCP N=2, `jobs = {jobs}`, median of {reps}): one at a time "
            f"{seq:.3f} s; Rust threads {thr:.3f} s (**{seq / thr:.2f}×**); processes {prc:.3f} s ({seq / prc:.2f}×).")


#: The child that times the Python API on one scenario file, one repetition per line read from
#: stdin (so that its repetitions interleave with the binary's and the CLI's): a `cc.simulate`
#: whole call (file in, SimResult out) and the engine's part alone (build, run and finish of
#: `_native.Simulation`: what the binary's wall_s covers); one warm-up call first.
_API_CHILD = r"""
import json, sys, time
import ccscope as cc
from ccscope import _native
from ccscope.sim import _prepare
path, until = sys.argv[1], float(sys.argv[2])
cc.simulate(path, until_s=until)
text = _prepare(path, None, None)
print("ready", flush=True)
for _ in sys.stdin:
    t0 = time.perf_counter()
    cc.simulate(path, until_s=until)
    t1 = time.perf_counter()
    s = _native.Simulation(text, until, None, None, None, None)
    s.run_until(s.end_s)
    s.finish()
    t2 = time.perf_counter()
    print(json.dumps([t1 - t0, t2 - t1]), flush=True)
"""


def bench_python_path(reps: int) -> list[str]:
    """Binary vs `cc.simulate` vs `ccscope run` on the same scenario files (DCTCP N = 2 and
    NewReno, 1.1 s simulated, link counters only), interleaved repetition by repetition, medians
    of `reps`: the binary's own wall_s (build, run, finish) and its whole process; `cc.simulate`
    in-process (whole call) and the engine's part of it, each with the median of its ratios to the
    binary's wall_s of the same repetition; `ccscope run FILE --quiet --out DIR` whole-process.
    The Python side runs with this interpreter and its sys.path (PYTHONPATH selects another tree)."""
    import resource
    import shutil
    import statistics
    import sys
    import time
    med = statistics.median

    def children_cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime
    rows = ["| run | binary wall_s | binary process | `cc.simulate` | ratio | engine in-process | ratio | "
            "`ccscope run -q -o` process | its CPU s | run − binary wall_s | events |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, text in (("DCTCP 10G 100us K=65 N=2", DCTCP.format(n=2)), ("NewReno 1G 250us DropTail 250", NEWRENO)):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "scenario.toml"
            path.write_text(text)
            child = subprocess.Popen([sys.executable, "-c", _API_CHILD, str(path), str(UNTIL_S)], cwd=tmp,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                assert child.stdout.readline().strip() == "ready"
                bins, procs, sims, engs, clis, cpus, events = [], [], [], [], [], [], 0
                for k in range(reps):
                    t0 = time.perf_counter()
                    r = subprocess.run([str(BIN), str(path), "--until", str(UNTIL_S)], capture_output=True,
                                       text=True, check=True)
                    procs.append(time.perf_counter() - t0)
                    b = json.loads(r.stdout)
                    bins.append(b["wall_s"])
                    events = b["events"]
                    child.stdin.write("go\n")
                    child.stdin.flush()
                    sim, eng = json.loads(child.stdout.readline())
                    sims.append(sim)
                    engs.append(eng)
                    dest = Path(tmp) / f"out{k}"
                    t0, c0 = time.perf_counter(), children_cpu()
                    subprocess.run([sys.executable, "-m", "ccscope", "run", str(path), "--until", f"{UNTIL_S}s",
                                    "--quiet", "--out", str(dest)], capture_output=True, text=True, check=True, cwd=tmp)
                    clis.append(time.perf_counter() - t0)
                    cpus.append(children_cpu() - c0)
                    shutil.rmtree(dest, ignore_errors=True)
            finally:
                child.stdin.close()
                child.wait()
        b, cli = med(bins), med(clis)
        rs = med(s / x for s, x in zip(sims, bins))
        re = med(e / x for e, x in zip(engs, bins))
        rows.append(f"| {name} | {b:.4f} | {med(procs):.4f} | {med(sims):.4f} | {rs:.2f} | {med(engs):.4f} | "
                    f"{re:.2f} | {cli:.3f} | {med(cpus):.3f} | +{cli - b:.3f} | {events / 1e6:.2f} M |")
        print(rows[-1], flush=True)
    return rows


def bench_fluid() -> str:
    """The 100 x 100 fluid stability map (issue "Fluid models") per backend on the CPU, and the single
    DCTCP fluid run on the default (native) backend."""
    from ccscope.fluid.bench import dctcp_single, stability_map
    parts = []
    for backend in ("native", "numpy", "jax"):
        try:
            r = stability_map(100, backend=backend)
        except ImportError as e:  # JAX is an optional extra
            parts.append(f"{backend}: not installed ({e})")
            continue
        first = f", first call with compile {r['first_call_s']:.2f} s" if backend == "jax" else ""
        parts.append(f"{backend} {r['wall_s']:.2f} s ({r['point_steps_per_s'] / 1e6:.1f} M point-steps/s{first})")
    one = dctcp_single("native")
    return ("- **Fluid stability map** 100 × 100 (normalized DCTCP queue amplitude over w̄ × g, 16 000 steps per "
            "point, target < 3 s on 2 CPU cores): " + "; ".join(parts) + ". **DCTCP fluid 0.2 s** (N = 2, 10 Gb/s, "
            f"100 µs, K = 65), native: {one['warm_s']:.3f} s warm, {one['cold_s']:.3f} s cold (targets 0.1 / 0.5 s).")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--no-fabric", action="store_true",
                    help="leave out the 100 Gb/s fat-tree rows of bench/fabric/ (about 15 CPU-minutes)")
    ap.add_argument("--python-path", action="store_true",
                    help="only the table binary vs cc.simulate vs ccscope run (printed, BENCHMARKS.md untouched)")
    a = ap.parse_args()
    if not BIN.exists():
        raise SystemExit(f"{BIN} not found: run `cargo build --release -p ccscope-core --bin ccscope-bench`")
    if a.python_path:
        bench_python_path(a.reps)
        return
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    rows = []
    for name, text, target, htsim, ns3 in RUNS:
        r = run_one(text, a.reps)
        ev_per_pkt = r["events"] / max(r["bottleneck_pkts"], 1)
        rows.append(f"| {name} | {r['wall_s']:.4f} | {target} | {htsim} | {ns3} | {r['events'] / 1e6:.2f} M | "
                    f"{ev_per_pkt:.2f} | {r['events_per_s'] / 1e6:.1f} M | {r['packets_per_s'] / 1e6:.2f} M | {r['peak_rss_kb'] / 1024:.0f} MiB |")
        print(rows[-1], flush=True)
    from ccscope.scenario.io import load_file, to_engine_json
    r = run_one(to_engine_json(load_file(LEAF_SPINE)), 1, until_s=0.1, suffix=".json")
    rows.append(f"| leaf-spine 128 hosts, 10/40 Gb/s, DCTCP, web-search Poisson 50 % load, ECMP (0.1 s) | {r['wall_s']:.3f} | — | — | — | "
                f"{r['events'] / 1e6:.2f} M | — | {r['events_per_s'] / 1e6:.1f} M | — | {r['peak_rss_kb'] / 1024:.0f} MiB |")
    print(rows[-1], flush=True)
    for k, lb, until in ((8, "ecmp", FAT_TREE_UNTIL_S), (8, "spray", FAT_TREE_UNTIL_S), (16, "ecmp", 0.01)):
        r = run_one(fat_tree_websearch(lb, k), 1, until_s=until, suffix=".json")
        rows.append(f"| fat-tree k = {k}, {k ** 3 // 4} hosts, 10 Gb/s 2 us, DCTCP, web-search Poisson 50 % of host rate, "
                    f"{'ECMP' if lb == 'ecmp' else 'per-packet spraying'} ({until} s) | {r['wall_s']:.3f} | — | — | — | "
                    f"{r['events'] / 1e6:.2f} M | — | {r['events_per_s'] / 1e6:.1f} M | — | {r['peak_rss_kb'] / 1024:.0f} MiB |")
        print(rows[-1], flush=True)
    for name, text, until in ENGINE2_RUNS:
        r = run_one(text, a.reps if until == UNTIL_S else 1, until_s=until)
        rows.append(f"| {name} ({until} s) | {r['wall_s']:.4f} | — | — | — | {r['events'] / 1e6:.2f} M | — | "
                    f"{r['events_per_s'] / 1e6:.1f} M | — | {r['peak_rss_kb'] / 1024:.0f} MiB |")
        print(rows[-1], flush=True)
    # issue "Every algorithm": the other families, per event against the DCTCP dumbbell
    from ccscope.scenario.builders import periodic
    extra = [
        ("QCN 10 flows 10 Gb/s (0.2 s)", (ROOT / "scenarios" / "qcn_dumbbell.toml").read_text(), 0.2, ".toml"),
        ("QCN 10 flows 100 Gb/s (0.02 s)", (ROOT / "scenarios" / "qcn_dumbbell.toml").read_text().replace("10e9", "100e9"), 0.02, ".toml"),
        ("DX 50 flows many-to-one 10 Gb/s (0.3 s)", (ROOT / "scenarios" / "dx_many_to_one.toml").read_text(), 0.3, ".toml"),
        ("periodic topology, 50 Reno flows, 100 s", to_engine_json(periodic(50)), 100.0, ".json"),
        ("Poisson 10-50 KB at 50 % of 10 Gb/s, >= 10,000 flows (0.5 s)", POISSON, 0.5, ".toml"),
    ]
    for name, text, until, suffix in extra:
        r = run_one(text, 1, until_s=until, suffix=suffix)
        rows.append(f"| {name} | {r['wall_s']:.3f} | — | — | — | {r['events'] / 1e6:.2f} M | — | "
                    f"{r['events_per_s'] / 1e6:.1f} M | — | {r['peak_rss_kb'] / 1024:.0f} MiB |")
        print(rows[-1], flush=True)
    fabric = [] if a.no_fabric else bench_fabric()
    notes = [bench_many(a.reps), bench_fluid()]
    for line in notes:
        print(line, flush=True)
    python_path = bench_python_path(a.reps)
    section = "\n".join([
        f"## Run of {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC — commit {commit}",
        "",
        f"Machine: {cpu_model()}, {os.cpu_count()} cores. {UNTIL_S} s simulated, best of {a.reps}, release build, link counters only.",
        "",
        "| run | wall s | target s | htsim s | ns-3 s | events | events / bottleneck pkt | events/s | bottleneck pkts/s | peak RSS |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        *notes,
        "",
        *(["100 Gb/s fat-tree scale runs over PFC (one run each, at each file's own simulated time; user CPU "
           "seconds do not depend on other load on the machine, wall seconds do):",
           "",
           "| run | wall s | user CPU s | events | events per CPU s | peak RSS |",
           "|---|---|---|---|---|---|",
           *fabric,
           ""] if fabric else []),
        f"Binary vs `cc.simulate` vs `ccscope run` on the same scenario file (median of {a.reps}; ratios to the "
        "binary's wall_s, which covers build, run and finish as 'engine in-process' does):",
        "",
        *python_path,
        "",
    ])
    out = Path(a.out)
    head = "# Benchmarks\n\nWritten by `make bench` (python -m ccscope.bench). Newest run first; see the notes at the end.\n\n"
    old = out.read_text() if out.exists() else ""
    rest = old.split("\n", 4)[4] if old.startswith("# Benchmarks") else old
    out.write_text(head + section + "\n" + rest)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
