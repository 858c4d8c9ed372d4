"""Peer comparison: ccscope's bench binary against htsim on the four dumbbell runs of `make bench`.

usage: python bench/peers/htsim.py --htsim PATH [--reps 7] [--build-dir DIR] [--jobs N]

PATH is a checkout of htsim's public source (https://github.com/Broadcom/csg-htsim; the folder
that holds sim/Makefile, or sim/ itself). Nothing is written into it: the library is compiled
from the sources its Makefile lists (OBJS) into --build-dir (default target/peers/htsim, ignored
by git), with htsim's own optimization level (-O3), and linked with bench/peers/htsim_dumbbell.cpp,
a dumbbell driver written for this comparison (its header says how it maps ccscope's dumbbell).

The ccscope side is `target/release/ccscope-bench` (built here with `cargo build --release
--bin ccscope-bench`) on the scenario texts of python/ccscope/bench.py; the htsim driver's
arguments are read from the same texts. Both are timed whole-process (start, set-up, 1.1 s
simulated, exit), interleaved, alternating which goes first; the table gives medians of --reps
runs, the median of the per-repetition ratios, the children's CPU time (user + sys, less
sensitive than wall time to other load on the machine), and sanity numbers of each side
(bottleneck throughput, mean queue, drops at the bottleneck, retransmission timeouts of all
flows): ccscope's from one further, untimed run through `cc.simulate` (the same engine; its
packet count is checked against the binary's), htsim's from the driver's timed runs.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().parent / "htsim_dumbbell.cpp"
BENCH_BIN = ROOT / "target" / "release" / "ccscope-bench"
UNTIL_S = 1.1
DEFAULT_CXXFLAGS = "-std=c++11 -O3 -fPIE -w"
REPO_URL = "https://github.com/Broadcom/csg-htsim"


class UsageError(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage block
        raise UsageError(message)


def _cut(s: str, n: int = 80) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = _Parser(prog="bench/peers/htsim.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--htsim", required=True, metavar="PATH",
                   help=f"checkout of {REPO_URL} (the folder holding sim/Makefile, or sim/ itself)")
    p.add_argument("--reps", type=int, default=7, help="timed runs of each side per scenario (median; default 7)")
    p.add_argument("--build-dir", type=Path, default=ROOT / "target" / "peers" / "htsim",
                   help="where htsim's library and the driver are built (default target/peers/htsim)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel compiles (default: all cores)")
    p.add_argument("--cxx", default=os.environ.get("CXX", "g++"), help="C++ compiler (default $CXX or g++)")
    p.add_argument("--cxxflags", default=DEFAULT_CXXFLAGS, help=f"flags for htsim and the driver (default {DEFAULT_CXXFLAGS!r})")
    p.add_argument("--no-cargo", action="store_true", help="use target/release/ccscope-bench as it is (no cargo build)")
    p.add_argument("--instructions", action="store_true",
                   help="also count each side's instructions once under valgrind (cachegrind, no cache "
                        "simulation): a number other load on the machine does not change (slow: ~1-2 min)")
    p.add_argument("--ccscope-bin", type=Path, default=None, metavar="PATH",
                   help="time this ccscope-bench binary instead (e.g. one built from another checkout: "
                        "<checkout>/target/release/ccscope-bench); implies --no-cargo")
    a = p.parse_args(argv)
    if a.reps < 1:
        raise UsageError(f"--reps = {a.reps}: must be an integer >= 1")
    if a.jobs < 1:
        raise UsageError(f"--jobs = {a.jobs}: must be an integer >= 1")
    a.sim = find_sim(a.htsim)
    if a.instructions and shutil.which("valgrind") is None:
        raise UsageError("--instructions needs valgrind on PATH (apt-get install valgrind)")
    if a.ccscope_bin is not None and not a.ccscope_bin.is_file():
        raise UsageError(f"--ccscope-bin = {_cut(str(a.ccscope_bin))!r}: no such file")
    if shutil.which(a.cxx) is None:
        raise UsageError(f"--cxx = {_cut(a.cxx)!r}: no such compiler on PATH; install g++ or give --cxx")
    return a


def find_sim(path: str) -> Path:
    """The sim/ folder of an htsim checkout, or a UsageError naming what is wrong."""
    try:
        return _find_sim(path)
    except OSError as e:  # a name too long, a folder that cannot be read, ...
        raise UsageError(f"--htsim = {_cut(path)!r}: cannot be read ({e.strerror or e}); "
                         f"give a checkout of {REPO_URL}") from None


def _find_sim(path: str) -> Path:
    if not path.strip():
        raise UsageError(f"--htsim = {path!r}: empty; give a checkout of {REPO_URL}")
    d = Path(path).expanduser()
    shown = _cut(path)
    if not d.exists():
        raise UsageError(f"--htsim = {shown!r}: no such directory; give a checkout of {REPO_URL}")
    if not d.is_dir():
        raise UsageError(f"--htsim = {shown!r}: not a directory; give a checkout of {REPO_URL}")
    for sim in (d / "sim", d):
        if (sim / "Makefile").is_file() and (sim / "eventlist.h").is_file():
            objs = makefile_objs(sim / "Makefile")
            if not objs:
                raise UsageError(f"--htsim = {shown!r}: {sim / 'Makefile'} lists no OBJS; is this htsim's sim/Makefile?")
            missing = [o for o in objs if not (sim / (o[:-2] + ".cpp")).is_file()]
            if missing:
                raise UsageError(f"--htsim = {shown!r}: sources missing for {', '.join(missing[:3])}"
                                 f"{' …' if len(missing) > 3 else ''}; the checkout is incomplete")
            for need in ("dctcp.h", "ecnqueue.h", "tcp.h", "pipe.h", "queue.h"):
                if not (sim / need).is_file():
                    raise UsageError(f"--htsim = {shown!r}: {sim / need} is missing; the driver needs it")
            return sim
    raise UsageError(f"--htsim = {shown!r}: holds no sim/Makefile with sim/eventlist.h; "
                     f"give a checkout of {REPO_URL}")


def makefile_objs(makefile: Path) -> list[str]:
    """The object files of htsim's library: the OBJS= list of its Makefile (continuations joined)."""
    try:
        text = makefile.read_text(errors="replace").replace("\\\n", " ")
    except OSError:
        return []
    for line in text.splitlines():
        m = re.match(r"\s*OBJS\s*[:+]?=\s*(.*)$", line)
        if m:
            return [w for w in m.group(1).split() if w.endswith(".o")]
    return []


# ---------------------------------------------------------------- build

def _compile(cxx: str, flags: list[str], src: Path, obj: Path, include: Path) -> tuple[Path, str]:
    r = subprocess.run([cxx, *flags, "-I", str(include), "-c", str(src), "-o", str(obj)],
                       capture_output=True, text=True)
    return src, "" if r.returncode == 0 else (r.stderr or r.stdout or f"exit status {r.returncode}")


def build_htsim(a: argparse.Namespace) -> Path:
    """Compile htsim's library into the build folder (only what changed) and link the driver."""
    sim, out = a.sim, a.build_dir.resolve()
    obj_dir = out / "obj"
    obj_dir.mkdir(parents=True, exist_ok=True)
    flags = a.cxxflags.split()
    version = subprocess.run([a.cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    stamp_text = json.dumps({"sim": str(sim.resolve()), "cxx": a.cxx, "version": version, "flags": flags})
    stamp = out / "build-stamp.json"
    fresh = stamp.is_file() and stamp.read_text() == stamp_text
    newest_header = max((h.stat().st_mtime for h in sim.glob("*.h")), default=0.0)
    todo = []
    for o in makefile_objs(sim / "Makefile"):
        src, obj = sim / (o[:-2] + ".cpp"), obj_dir / o
        if not (fresh and obj.is_file() and obj.stat().st_mtime >= max(src.stat().st_mtime, newest_header)):
            todo.append((src, obj))
    if todo:
        print(f"building htsim: {len(todo)} sources from {sim} into {out} ({a.cxx} {a.cxxflags}) ...",
              file=sys.stderr, flush=True)
        stamp.unlink(missing_ok=True)
        with ThreadPoolExecutor(a.jobs) as ex:
            results = list(ex.map(lambda so: _compile(a.cxx, flags, so[0], so[1], sim), todo))
        failed = [(s, err) for s, err in results if err]
        if failed:
            log = out / "build-errors.log"
            log.write_text("\n\n".join(f"== {s}\n{err}" for s, err in failed))
            first = next((ln for ln in failed[0][1].splitlines() if "error" in ln), failed[0][1].splitlines()[0])
            raise BuildError(f"building htsim: {a.cxx} failed on {len(failed)} source(s), first {failed[0][0].name}: "
                             f"{_cut(first.strip(), 160)} (all output in {log})")
    lib = out / "libhtsim.a"
    objs = [obj_dir / o for o in makefile_objs(sim / "Makefile")]
    if todo or not lib.is_file():
        lib.unlink(missing_ok=True)
        run_checked(["ar", "rcs", str(lib), *map(str, objs)], "archiving libhtsim.a")
    exe = out / "htsim_dumbbell"
    if todo or not exe.is_file() or exe.stat().st_mtime < max(DRIVER.stat().st_mtime, lib.stat().st_mtime):
        run_checked([a.cxx, *flags, "-I", str(sim), str(DRIVER), str(lib), "-o", str(exe)], "building htsim_dumbbell")
    stamp.write_text(stamp_text)
    return exe


class BuildError(Exception):
    """A build step failed: reported as one line, exit status 1."""


def run_checked(cmd: list[str], what: str) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        msg = (r.stderr or r.stdout).strip().splitlines()
        raise BuildError(f"{what}: {_cut(' '.join(cmd), 120)} failed: {_cut(msg[-1] if msg else str(r.returncode), 160)}")
    return r.stdout


def build_ccscope(a: argparse.Namespace) -> Path:
    if a.ccscope_bin is not None:
        return a.ccscope_bin.resolve()
    if not a.no_cargo:
        run_checked(["cargo", "build", "--release", "-q", "-p", "ccscope-core", "--bin", "ccscope-bench"],
                    "building ccscope-bench")
    if not BENCH_BIN.is_file():
        raise BuildError(f"{BENCH_BIN} is missing: run `cargo build --release --bin ccscope-bench`")
    return BENCH_BIN


# ---------------------------------------------------------------- runs

def runs() -> list[tuple[str, str, list[str]]]:
    """(name, ccscope scenario text, htsim driver arguments): the four dumbbell runs of `make bench`,
    the driver's arguments read from the same scenario text."""
    sys.path.insert(0, str(ROOT / "python"))
    from ccscope import bench  # the scenario texts `make bench` times

    out = []
    for name, text in [(f"DCTCP 10G 100us K=65 N={n}", bench.DCTCP.format(n=n)) for n in (2, 10, 100)] + [
            ("NewReno 1G 250us DropTail 250, 2 flows", bench.NEWRENO)]:
        sc = tomllib.loads(text)
        topo, flows = sc["topology"], sc["flows"]
        cc = {"dctcp": "dctcp", "new_reno": "newreno"}[flows["cc"]]
        args = ["--cc", cc, "--flows", str(flows["count"]), "--rate-gbps", repr(topo["bottleneck_bps"] / 1e9),
                "--rtt-us", repr(topo["rtt_s"] * 1e6), "--buffer-pkts", str(topo["buffer_pkts"]),
                "--until-s", repr(UNTIL_S), "--seed", str(sc.get("seed", 1))]
        if cc == "dctcp":
            assert sc["aqm"]["kind"] == "threshold"
            args += ["--k-pkts", repr(float(sc["aqm"]["k_pkts"]))]
        out.append((name, text, args))
    return out


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Whole-process wall time, the child's CPU time (user + sys) and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise BuildError(f"{_cut(' '.join(cmd), 120)} exited with {r.returncode}: "
                         f"{_cut((r.stderr or r.stdout).strip()[-160:], 160)}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r.stdout


def last_json(stdout: str) -> dict:
    """The JSON line a run prints last; for htsim also its retransmission timeouts (its TCP source
    prints one "At <ms> RTO ..." line each time its timer fires)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            d = json.loads(line)
            d["timeouts"] = sum(1 for ln in stdout.splitlines() if ln.startswith("At ") and " RTO " in ln)
            return d
    raise BuildError(f"no JSON line in the output: {_cut(stdout.strip()[-120:])}")


def instructions(cmd: list[str]) -> int:
    """Instructions the whole process executes (valgrind's cachegrind, no cache simulation)."""
    r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *cmd],
                       capture_output=True, text=True)
    m = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
    if r.returncode != 0 or m is None:
        raise BuildError(f"valgrind on {_cut(' '.join(cmd), 100)} failed: {_cut(r.stderr.strip()[-160:], 160)}")
    return int(m.group(1).replace(",", ""))


def ccscope_sanity(path: Path) -> dict:
    """Bottleneck numbers of ccscope's run (one untimed run through the Python API)."""
    import ccscope as cc

    r = cc.simulate(str(path), until_s=UNTIL_S, record=["link"])
    ports = r.ports
    row = ports[ports["recorded"]].iloc[0]
    return {"bottleneck_pkts": int(row["tx_pkts"]), "throughput_bps": float(row["tx_bytes"]) * 8 / UNTIL_S,
            "mean_queue_pkts": float(row["mean_queue_pkts"]),
            "drops": int(row["drops_overflow"] + row["drops_aqm"]), "marks": int(row["marks"]),
            "timeouts": int(r.flows["timeouts"].sum())}


def git_rev(path: Path) -> str:
    r = subprocess.run(["git", "-C", str(path), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    if r.returncode == 0 and r.stdout.strip():
        dirty = subprocess.run(["git", "-C", str(path), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return r.stdout.strip() + (" (modified)" if dirty else "")
    for f in (path / "COMMIT", path.parent / "COMMIT"):
        if f.is_file():
            return f.read_text().strip()[:12] + " (from COMMIT)"
    return "unknown (not a git checkout)"


def tool_version(cmd: list[str]) -> str:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError:
        return f"{cmd[0]} (version unknown)"
    first = r.stdout.strip().splitlines()[:1]
    return first[0] if r.returncode == 0 and first else f"{cmd[0]} (version unknown)"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv: list[str] | None = None) -> int:
    try:
        a = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as e:
        print(f"bench/peers/htsim.py: error: {e}", file=sys.stderr)
        return 2
    try:
        exe = build_htsim(a)
        binary = build_ccscope(a)
        return compare(a, exe, binary)
    except BuildError as e:
        print(f"bench/peers/htsim.py: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench/peers/htsim.py: interrupted", file=sys.stderr)
        return 130


def compare(a: argparse.Namespace, exe: Path, binary: Path) -> int:
    load_before = os.getloadavg()
    started = datetime.now(timezone.utc)
    rows, raw = [], {}
    with tempfile.TemporaryDirectory(prefix="ccscope-peers-") as tmp:
        plan = []
        for name, text, hargs in runs():
            path = Path(tmp) / f"{len(plan)}.toml"
            path.write_text(text)
            ccmd = [str(binary), str(path), "--until", repr(UNTIL_S)]
            hcmd = [str(exe), *hargs]
            plan.append((name, path, ccmd, hcmd))
            timed(ccmd), timed(hcmd)  # warm-up: page cache, binaries loaded once
        samples = {name: {"ccscope": [], "htsim": []} for name, *_ in plan}
        plan_cmds = {name: (ccmd, hcmd) for name, _, ccmd, hcmd in plan}
        for rep in range(a.reps):
            print(f"repetition {rep + 1}/{a.reps} ...", file=sys.stderr, flush=True)
            for name, _, ccmd, hcmd in plan:
                order = [("ccscope", ccmd), ("htsim", hcmd)]
                for side, cmd in (order if rep % 2 == 0 else order[::-1]):
                    wall, cpu, out = timed(cmd)
                    samples[name][side].append((wall, cpu, last_json(out)))
        for name, path, _, hcmd in plan:
            s = samples[name]
            cw, hw = [x[0] for x in s["ccscope"]], [x[0] for x in s["htsim"]]
            cc_cpu, h_cpu = [x[1] for x in s["ccscope"]], [x[1] for x in s["htsim"]]
            ratio = statistics.median(c / h for c, h in zip(cw, hw))
            cpu_ratio = statistics.median(c / h for c, h in zip(cc_cpu, h_cpu))
            hs = s["htsim"][0][2]
            if len({x[2]["bottleneck_pkts"] for x in s["htsim"]}) != 1:
                print(f"warning: {name}: htsim's runs differ in bottleneck packets", file=sys.stderr)
            cs = ccscope_sanity(path)
            bin_pkts = s["ccscope"][0][2]["bottleneck_pkts"]
            if bin_pkts != cs["bottleneck_pkts"]:
                print(f"warning: {name}: ccscope-bench sent {bin_pkts} bottleneck packets, cc.simulate "
                      f"{cs['bottleneck_pkts']}", file=sys.stderr)
            instr = ""
            if a.instructions:
                print(f"counting instructions: {name} ...", file=sys.stderr, flush=True)
                ci, hi = instructions(plan_cmds[name][0]), instructions(plan_cmds[name][1])
                instr = f" {ci / 1e6:,.0f} M / {hi / 1e6:,.0f} M ({ci / hi:.2f}) |"
                cs["instructions"], hs["instructions"] = ci, hi
            raw[name] = {"ccscope_wall_s": cw, "htsim_wall_s": hw, "ccscope_cpu_s": cc_cpu, "htsim_cpu_s": h_cpu,
                         "ccscope": cs, "htsim": hs, "htsim_args": hcmd[1:]}
            rows.append(
                f"| {name} | {statistics.median(cw):.4f} | {statistics.median(hw):.4f} | **{ratio:.2f}** | "
                f"{statistics.median(cc_cpu):.4f} | {statistics.median(h_cpu):.4f} | {cpu_ratio:.2f} | "
                f"{cs['throughput_bps'] / 1e9:.3f} / {hs['throughput_bps'] / 1e9:.3f} | "
                f"{cs['mean_queue_pkts']:.1f} / {hs['mean_queue_pkts']:.1f} | {cs['drops']} / {hs['drops']} | "
                f"{cs['timeouts']} / {hs['timeouts']} |{instr}")
    load_after = os.getloadavg()
    # the checkout the binary was built in (<checkout>/target/release/ccscope-bench)
    ccscope_rev = git_rev(binary.parents[2]) if len(binary.parents) > 2 else "unknown"
    lines = [
        f"Peer comparison, {started:%Y-%m-%d %H:%M} UTC: ccscope {ccscope_rev} ({tool_version(['rustc', '--version'])}, "
        f"release profile) vs htsim {git_rev(a.sim.parent)} ({tool_version([a.cxx, '--version'])}, {a.cxxflags}).",
        f"Machine: {cpu_model()}, {os.cpu_count()} cores; load average {load_before[0]:.2f} before, "
        f"{load_after[0]:.2f} after. {UNTIL_S} s simulated; whole-process times, median of {a.reps} "
        "(interleaved); ratio = median of the per-repetition ratios ccscope / htsim.",
        "",
        "| run | ccscope wall s | htsim wall s | wall ratio | ccscope CPU s | htsim CPU s | CPU ratio | "
        "bottleneck Gb/s ccscope / htsim | mean queue pkts ccscope / htsim | drops ccscope / htsim | "
        "timeouts ccscope / htsim |" + (" instructions ccscope / htsim (ratio) |" if a.instructions else ""),
        "|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if a.instructions else ""),
        *rows,
    ]
    print("\n".join(lines))
    a.build_dir.mkdir(parents=True, exist_ok=True)
    (a.build_dir / "last-run.json").write_text(json.dumps(raw, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
