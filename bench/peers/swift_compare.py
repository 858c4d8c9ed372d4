"""Peer comparison: ccscope's Swift against htsim's Swift on a 2-flow dumbbell (docs/validation.md,
"Swift (SIGCOMM 2020) against htsim's Swift": setup and tolerance there).

usage: python bench/peers/swift_compare.py --htsim PATH [--build-dir DIR] [--jobs N]

PATH is a checkout of htsim's public source (https://github.com/Broadcom/csg-htsim). Its library
is compiled into --build-dir as bench/peers/htsim.py does (nothing is written into PATH) and
linked with bench/peers/htsim_swift_dumbbell.cpp; ccscope runs in-process (`ccscope.simulate`).
Prints one table and exits 0 when every metric is within its tolerance, 1 otherwise.

PATH may also be a modified copy of the checkout, built into its own --build-dir: the measured cause
of the 100-flow row's miss (docs/validation.md) comes from a copy whose SwiftSrc::targetDelay takes
the window as (double)cwnd/_mss instead of the integer cwnd/_mss, nothing else changed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import htsim as H  # noqa: E402  (bench/peers/htsim.py: the library build)

DRIVER = HERE / "htsim_swift_dumbbell.cpp"
RATE_GBPS, RTT_US, BUFFER, TARGET_US, IW = 10.0, 20.0, 1000, 50.0, 10
FROM_S = 0.01


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = H._Parser(prog="bench/peers/swift_compare.py")
    p.add_argument("--htsim", required=True, metavar="PATH", help="checkout of htsim's source")
    p.add_argument("--build-dir", type=Path, default=H.ROOT / "target" / "peers" / "htsim")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    p.add_argument("--cxxflags", default=H.DEFAULT_CXXFLAGS)
    a = p.parse_args(argv)
    a.sim = H.find_sim(a.htsim)
    return a


def build(a: argparse.Namespace) -> Path:
    H.build_htsim(a)  # the library (and the TCP driver), only what changed
    lib = a.build_dir.resolve() / "libhtsim.a"
    exe = a.build_dir.resolve() / "htsim_swift_dumbbell"
    if not exe.is_file() or exe.stat().st_mtime < max(DRIVER.stat().st_mtime, lib.stat().st_mtime):
        H.run_checked([a.cxx, *a.cxxflags.split(), "-I", str(a.sim), str(DRIVER), str(lib), "-o", str(exe)],
                      "building htsim_swift_dumbbell")
    return exe


# (name, flows, fs_range_us, until_s): the two setups of docs/validation.md
SETUPS = [("2 flows, no flow scaling", 2, 0.0, 0.05), ("100 flows, flow scaling on", 100, 125.0, 0.03),
          ("10 flows, flow scaling on", 10, 125.0, 0.03)]


def run_htsim(exe: Path, flows: int, fs_range_us: float, until_s: float) -> dict:
    out = H.run_checked([str(exe), "--flows", str(flows), "--rate-gbps", str(RATE_GBPS), "--rtt-us", str(RTT_US),
                         "--buffer-pkts", str(BUFFER), "--target-us", str(TARGET_US), "--hop-us", "0",
                         "--fs-range-us", str(fs_range_us), "--iw-pkts", str(IW), "--from-s", str(FROM_S),
                         "--until-s", str(until_s)], "running htsim_swift_dumbbell")
    return H.last_json(out)


def run_ccscope(flows: int, fs_range_us: float, until_s: float) -> dict:
    UNTIL_S = until_s  # noqa: N806
    import ccscope
    from ccscope.scenario import SwiftConfig, dumbbell

    sc = dumbbell(flows, cc="swift", bottleneck_bps=RATE_GBPS * 1e9, rtt_s=RTT_US * 1e-6, buffer_pkts=BUFFER)
    sc.until_s = UNTIL_S
    sc.tcp.iw_pkts = IW
    sc.swift = SwiftConfig(base_target_s=TARGET_US * 1e-6, hop_scale_s=0.0, fs_range_s=fs_range_us * 1e-6)
    sc.record.traces = ["queue", "delivered", "drops"]
    sc.record.queue_every_change = True
    r = ccscope.simulate(sc)
    q = r.traces["queue"]
    t, n = q["time_s"].to_numpy(), q["queue_pkts"].to_numpy()
    # time-weighted mean over [FROM_S, UNTIL_S] of the waiting packets (the one in transmission
    # excluded, as the htsim driver counts them)
    import numpy as np
    edges = np.clip(np.append(t, UNTIL_S), FROM_S, UNTIL_S)
    waiting = np.maximum(n - 1, 0)
    mean_q = float((waiting * np.diff(edges)).sum() / (UNTIL_S - FROM_S))
    d = r.traces["delivered"]
    flow_bps = []
    for f in sorted(d["flow"].unique()):
        x = d[d["flow"] == f]
        a = x[x["time_s"] <= FROM_S]["delivered_bytes"].iloc[-1]
        b = x[x["time_s"] <= UNTIL_S]["delivered_bytes"].iloc[-1]
        flow_bps.append((b - a) * 8 / (UNTIL_S - FROM_S))
    drops = int(len(r.traces["drops"])) if "drops" in r.traces else 0
    return {"throughput_bps": sum(flow_bps), "mean_queue_pkts": mean_q, "drops": drops, "flow_bps": flow_bps}


def main(argv: list[str] | None = None) -> int:
    try:
        a = parse_args(sys.argv[1:] if argv is None else argv)
        exe = build(a)
    except (H.UsageError, H.BuildError) as e:
        print(f"bench/peers/swift_compare.py: error: {e}", file=sys.stderr)
        return 2 if isinstance(e, H.UsageError) else 1
    ok = True
    out = {}
    for name, flows, fs, until in SETUPS:
        h, c = run_htsim(exe, flows, fs, until), run_ccscope(flows, fs, until)
        out[name] = {"ccscope": c, "htsim": h}
        ok &= table(name, flows, c, h)
    print(json.dumps(out))
    return 0 if ok else 1


def table(name: str, flows: int, c: dict, h: dict) -> bool:
    ok = True
    rows = []

    def row(metric: str, cv: float, hv: float, tol: float) -> None:
        nonlocal ok
        rel = (cv - hv) / hv if hv else float("nan")
        good = abs(rel) <= tol
        ok &= good
        rows.append(f"| {metric} | {cv:.4g} | {hv:.4g} | {rel:+.1%} | ±{tol:.0%} | {'ok' if good else 'MISS'} |")

    row("mean queue (pkts)", c["mean_queue_pkts"], h["mean_queue_pkts"], 0.15)
    row("throughput (Gb/s)", c["throughput_bps"] / 1e9, h["throughput_bps"] / 1e9, 0.02)
    if flows == 2:
        for side, x in (("ccscope", c), ("htsim", h)):
            shares = [f / sum(x["flow_bps"]) for f in x["flow_bps"]]
            good = all(0.45 <= s <= 0.55 for s in shares)
            ok &= good
            rows.append(f"| flow shares, {side} | {' / '.join(f'{s:.3f}' for s in shares)} | | | 0.45-0.55 | "
                        f"{'ok' if good else 'MISS'} |")
    else:
        jain = [sum(x["flow_bps"]) ** 2 / (len(x["flow_bps"]) * sum(f * f for f in x["flow_bps"])) for x in (c, h)]
        good = min(jain) >= 0.95
        ok &= good
        rows.append(f"| Jain's index | {jain[0]:.4f} | {jain[1]:.4f} | | >= 0.95 | {'ok' if good else 'MISS'} |")
    good = c["drops"] == 0 and h["drops"] == 0
    ok &= good
    rows.append(f"| drops | {c['drops']} | {h['drops']} | | 0 | {'ok' if good else 'MISS'} |")
    print(f"\n{name}\n")
    print("| metric | ccscope | htsim | difference | tolerance | |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return ok


if __name__ == "__main__":
    sys.exit(main())
