"""Peer comparison: ccscope against ns-3 on the same dumbbell, side by side in one table.

usage: python bench/peers/ns3_compare.py --ns3-python PATH [--out DIR] [--reuse] [--json FILE] {cubic,codel}

PATH is the python of a virtual environment holding the `ns3` pip package (3.44.post0); the
ns-3 side runs there as `bench/peers/ns3_dumbbell.py` (its header describes the dumbbell and
how it maps ccscope's), the ccscope side in this interpreter through `ccscope.simulate`, on
the same setup. --out (default target/peers/ns3) keeps ns-3's CSV files; --reuse reads them
from an earlier run of the same case instead of running ns-3 again.

Cases (setups, metrics and tolerances as docs/validation.md fixes them):

- cubic: 2 CUBIC flows (ns3::TcpCubic, HyStart off) over 100 Mb/s, 20 ms RTT, a 167-packet
  drop-tail buffer (1 BDP), 60 s; window 10-60 s. Metrics: window trace period (mean interval
  between a flow's congestion events = entries into recovery, mean over the flows) and mean
  per-flow throughput (in-order bytes delivered, as 1500-byte wire packets); each must agree
  within 10 %. ccscope runs twice: with the ns-3-like variants (`cubic.target_rtt = "min_rtt"`,
  `cubic.ssthresh_from = "cwnd"`, the row that decides) and with RFC 9438's defaults.
- codel: 4 NewReno flows over CoDel (ns3::CoDelQueueDisc: target 5 ms, interval 100 ms, 1000
  packets) at 100 Mb/s, 20 ms RTT, 20 s; window 5-20 s. Metrics: median queueing delay (the
  queue sampled every 10 ms, bytes x 8 / rate; within 15 %) and aggregate throughput (within
  10 %); ns-3's per-packet sojourn median and mean and ccscope's classes.mean_sojourn_s are
  printed too. The ccscope side runs when the engine has the aqm kind "codel"; otherwise only
  ns-3's numbers are printed.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().parent / "ns3_dumbbell.py"
HEADER_BYTES = 42  # ns3_dumbbell.HEADER_BYTES: IPv4 + TCP + PPP

CASES = {
    "cubic": dict(flows=2, tcp="cubic", qdisc="pfifo", bottleneck_bps=100e6, access_bps=1e9, rtt_s=0.02,
                  bottleneck_delay_s=0.001, buffer_pkts=167, packet_bytes=1500, iw_pkts=10, min_rto_s=0.2,
                  until_s=60.0, starts=[0.0, 0.1], sample_s=0.01, window=(10.0, 60.0), tolerance=0.10),
    "codel": dict(flows=4, tcp="new_reno", qdisc="codel", bottleneck_bps=100e6, access_bps=1e9, rtt_s=0.02,
                  bottleneck_delay_s=0.001, buffer_pkts=1000, packet_bytes=1500, iw_pkts=10, min_rto_s=0.2,
                  until_s=20.0, starts=[0.0, 0.1, 0.2, 0.3], sample_s=0.01, window=(5.0, 20.0), tolerance=0.10,
                  delay_tolerance=0.15),
}


class UsageError(Exception):
    """Bad command-line input: one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise UsageError(message)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = _Parser(prog="bench/peers/ns3_compare.py", description=__doc__.split("\n\n")[0])
    p.add_argument("case", help=f"one of {', '.join(CASES)}")
    p.add_argument("--ns3-python", required=True, metavar="PATH",
                   help="python of a venv with `pip install ns3==3.44.post0`")
    p.add_argument("--out", type=Path, default=ROOT / "target" / "peers" / "ns3",
                   help="folder for ns-3's CSV files (default target/peers/ns3)")
    p.add_argument("--reuse", action="store_true", help="read ns-3's CSV files of an earlier run")
    p.add_argument("--json", type=Path, default=None, help="also write the numbers to this JSON file")
    p.add_argument("--ns3-sack", action="store_true",
                   help="ns-3 with SACK (a deviation from the fixed setup: docs/validation.md says why)")
    a = p.parse_args(argv)
    if a.case not in CASES:
        raise UsageError(f"case {a.case!r}: must be one of {', '.join(CASES)}")
    if not a.reuse and not Path(a.ns3_python).is_file():
        raise UsageError(f"--ns3-python = {a.ns3_python!r}: no such file")
    return a


# ---------------------------------------------------------------- ns-3 side

def run_ns3(a: argparse.Namespace, c: dict) -> Path:
    out = a.out / (a.case + ("-sack" if a.ns3_sack else ""))
    if a.reuse:
        if not (out / "run.json").is_file():
            raise UsageError(f"--reuse: {out / 'run.json'} is missing; run once without --reuse")
        return out
    cmd = [a.ns3_python, str(DRIVER), "--out", str(out), "--flows", str(c["flows"]), "--tcp", c["tcp"],
           "--qdisc", c["qdisc"], "--bottleneck-bps", repr(c["bottleneck_bps"]), "--access-bps",
           repr(c["access_bps"]), "--rtt-s", repr(c["rtt_s"]), "--bottleneck-delay-s", repr(c["bottleneck_delay_s"]),
           "--buffer-pkts", str(c["buffer_pkts"]), "--packet-bytes", str(c["packet_bytes"]), "--iw-pkts",
           str(c["iw_pkts"]), "--min-rto-s", repr(c["min_rto_s"]), "--until-s", repr(c["until_s"]),
           "--start-s", ",".join(repr(s) for s in c["starts"]), "--sample-s", repr(c["sample_s"])]
    if a.ns3_sack:
        cmd.append("--sack")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [f"exit status {r.returncode}"]
        raise UsageError(f"ns-3 run failed: {tail[0][:200]}")
    return out


def _read(path: Path) -> dict[str, list[float]]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    return {h: [float(r[i]) for r in body] for i, h in enumerate(head)}


def ns3_metrics(out: Path, c: dict) -> dict:
    seg = c["packet_bytes"] - HEADER_BYTES
    cw = _read(out / "cwnd.csv")
    dl = _read(out / "delivered.csv")
    q = _read(out / "queue.csv")
    so = _read(out / "sojourn.csv")
    t0, t1 = c["window"]
    flows = []
    for k in range(c["flows"]):
        rows = [(t, w, st) for t, f, w, st in zip(cw["time_s"], cw["flow"], cw["cwnd_pkts"], cw["cong_state"])
                if int(f) == k]
        delivered = [(t, b) for t, f, b in zip(dl["time_s"], dl["flow"], dl["rx_bytes"]) if int(f) == k]
        # ns-3 TcpCongState_t: 3 = CA_RECOVERY, 4 = CA_LOSS (an RTO)
        flows.append(dict(events=rising_edges([(t, st in (3, 4)) for t, _, st in rows]),
                          mean_cwnd_pkts=time_weighted_mean([(t, w) for t, w, _ in rows], t0, t1),
                          wire_bytes=(at(delivered, t1) - at(delivered, t0)) / seg * c["packet_bytes"]))
    qpk = [n for t, n in zip(q["time_s"], q["queue_pkts"]) if t0 <= t <= t1]
    soj = [s for t, s in zip(so["time_s"], so["sojourn_s"]) if t0 <= t <= t1]
    qdelay = [b * 8 / c["bottleneck_bps"] for t, b in zip(q["time_s"], q["queue_bytes"]) if t0 <= t <= t1]
    return summarize(flows, c, mean_queue_pkts=statistics.fmean(qpk) if qpk else math.nan,
                     median_delay_s=statistics.median(qdelay) if qdelay else math.nan,
                     median_sojourn_s=statistics.median(soj) if soj else math.nan,
                     mean_sojourn_s=statistics.fmean(soj) if soj else math.nan)


# ---------------------------------------------------------------- ccscope side

def ccscope_scenario(c: dict, cubic: dict | None, aqm: dict | None) -> dict:
    sc = {
        "name": "ns3-peer", "seed": 1, "until_s": c["until_s"], "packet_bytes": c["packet_bytes"],
        "ack_bytes": HEADER_BYTES,
        "topology": {"kind": "dumbbell", "senders": c["flows"], "bottleneck_bps": c["bottleneck_bps"],
                     "access_bps": c["access_bps"], "rtt_s": c["rtt_s"],
                     "bottleneck_delay_s": c["bottleneck_delay_s"], "buffer_pkts": c["buffer_pkts"]},
        "tcp": {"iw_pkts": c["iw_pkts"], "min_rto_s": c["min_rto_s"]},
        "flow": [{"src": f"s{k}", "dst": "r0", "cc": c["tcp"], "start_s": c["starts"][k]} for k in range(c["flows"])],
        "record": {"traces": ["queue", "cwnd", "delivered"], "flow_interval_s": 1e-3,
                   "queue_interval_s": c["sample_s"]},
    }
    if cubic is not None:
        sc["cubic"] = cubic
    if aqm is not None:
        sc["aqm"] = aqm
    return sc


def ccscope_metrics(c: dict, cubic: dict | None = None, aqm: dict | None = None) -> dict:
    import ccscope
    r = ccscope.simulate(ccscope_scenario(c, cubic, aqm))
    cw, dl, q = r.traces["cwnd"], r.traces["delivered"], r.traces["queue"]
    t0, t1 = c["window"]
    flows = []
    for k in range(c["flows"]):
        f = cw[cw["flow"] == k]
        d = dl[dl["flow"] == k]
        rows = list(zip(f["time_s"].tolist(), f["cwnd_pkts"].tolist()))
        dd = list(zip(d["time_s"].tolist(), d["delivered_bytes"].tolist()))
        # entries into fast recovery, and timeouts (the window falls to one segment)
        marks = [(t, rec > 0 or (w <= 1.0 and pw > 1.0)) for t, rec, w, pw in
                 zip(f["time_s"].tolist(), f["in_recovery"].tolist(), f["cwnd_pkts"].tolist(),
                     [math.inf] + f["cwnd_pkts"].tolist()[:-1])]
        flows.append(dict(events=rising_edges(marks),
                          mean_cwnd_pkts=time_weighted_mean(rows, t0, t1),
                          wire_bytes=at(dd, t1) - at(dd, t0)))
    qq = q[(q["time_s"] >= t0) & (q["time_s"] <= t1)]
    # queueing delay of the sampled queue: its bytes at the bottleneck rate
    delay = (qq["queue_bytes"] * 8 / c["bottleneck_bps"]).tolist()
    classes = r.classes
    mean_sojourn = (float(classes["mean_sojourn_s"].iloc[0])
                    if classes is not None and "mean_sojourn_s" in classes and len(classes) else math.nan)
    return summarize(flows, c, mean_queue_pkts=float(qq["queue_pkts"].mean()),
                     median_delay_s=statistics.median(delay) if delay else math.nan,
                     median_sojourn_s=math.nan, mean_sojourn_s=mean_sojourn)


# ---------------------------------------------------------------- metrics

def rising_edges(rows: list[tuple[float, bool]], merge_s: float = 1e-3) -> list[float]:
    """Times at which a flag turns on (a congestion event: recovery entered), edges closer than
    merge_s to the previous one merged."""
    out: list[float] = []
    prev = False
    for t, on in rows:
        if on and not prev and (not out or t - out[-1] >= merge_s):
            out.append(t)
        prev = on
    return out


def time_weighted_mean(rows: list[tuple[float, float]], t0: float, t1: float) -> float:
    """Mean over [t0, t1] of a step function given at its change (or sample) times."""
    total, last_t, last_v = 0.0, None, None
    for t, v in rows:
        if last_t is not None:
            a, b = max(last_t, t0), min(t, t1)
            if b > a:
                total += last_v * (b - a)
        last_t, last_v = t, v
    if last_t is not None and last_t < t1:
        total += last_v * (t1 - max(last_t, t0))
    return total / (t1 - t0)


def at(rows: list[tuple[float, float]], t: float) -> float:
    """The last value sampled at or before t (0 before the first sample)."""
    v = 0.0
    for tt, x in rows:
        if tt > t + 1e-12:
            break
        v = x
    return v


def summarize(flows: list[dict], c: dict, **extra) -> dict:
    t0, t1 = c["window"]
    periods = []
    for f in flows:
        ev = [t for t in f["events"] if t0 <= t <= t1]
        f["events_in_window"] = len(ev)
        f["period_s"] = statistics.fmean(b - a for a, b in zip(ev, ev[1:])) if len(ev) >= 2 else math.nan
        f["throughput_bps"] = f["wire_bytes"] * 8 / (t1 - t0)
        periods.append(f["period_s"])
        del f["events"]
    thr = [f["throughput_bps"] for f in flows]
    return dict(flows=flows, period_s=statistics.fmean(periods), throughput_bps=statistics.fmean(thr),
                aggregate_bps=sum(thr), jain=sum(thr) ** 2 / (len(thr) * sum(x * x for x in thr)), **extra)


def ratio_row(name: str, ours: float, peer: float, tol: float | None, fmt: str = "{:.4g}") -> tuple[str, str, bool | None]:
    r = ours / peer if peer else math.nan
    ok = None if tol is None else abs(r - 1) <= tol
    verdict = "" if ok is None else ("pass" if ok else "MISS")
    return (f"{name:<34} {fmt.format(ours):>12} {fmt.format(peer):>12} {r:>8.3f} "
            f"{'' if tol is None else f'±{tol:.0%}':>6} {verdict}"), verdict, ok


def table(label: str, ours: dict, peer: dict, c: dict) -> tuple[list[str], bool]:
    tol = c["tolerance"]
    lines = [f"{label}", f"{'metric':<34} {'ccscope':>12} {'ns-3':>12} {'ratio':>8} {'tol':>6} verdict"]
    ok = True
    codel = c["qdisc"] == "codel"
    for name, key, t, fmt in [("period (s, mean of flows)", "period_s", None if codel else tol, "{:.4g}"),
                              ("throughput (Mb/s, mean per flow)", "throughput_bps", None if codel else tol, "{:.5g}"),
                              ("aggregate throughput (Mb/s)", "aggregate_bps", tol if codel else None, "{:.5g}"),
                              ("Jain fairness", "jain", None, "{:.4f}"),
                              ("mean queue (pkts)", "mean_queue_pkts", None, "{:.4g}"),
                              ("median queueing delay (ms)", "median_delay_s", c.get("delay_tolerance"), "{:.4g}"),
                              ("median sojourn per packet (ms)", "median_sojourn_s", None, "{:.4g}"),
                              ("mean sojourn per packet (ms)", "mean_sojourn_s", None, "{:.4g}")]:
        scale = 1e-6 if key.endswith("bps") else (1e3 if key.endswith("_s") and key != "period_s" else 1.0)
        line, _, good = ratio_row(name, ours[key] * scale, peer[key] * scale, t, fmt)
        lines.append(line)
        ok = ok and (good is not False)
    for k, (fo, fp) in enumerate(zip(ours["flows"], peer["flows"])):
        for name, key, scale in [("period", "period_s", 1.0), ("throughput Mb/s", "throughput_bps", 1e-6),
                                 ("mean cwnd pkts", "mean_cwnd_pkts", 1.0), ("events", "events_in_window", 1.0)]:
            lines.append(ratio_row(f"  flow {k} {name}", fo[key] * scale, fp[key] * scale, None)[0])
    return lines, ok


def main(argv: list[str]) -> int:
    try:
        a = parse_args(argv)
        c = CASES[a.case]
        out = run_ns3(a, c)
        peer = ns3_metrics(out, c)
        report: dict = {"case": a.case, "setup": {k: v for k, v in c.items()}, "ns3": peer}
        lines: list[str] = []
        if a.case == "cubic":
            ns3_like = ccscope_metrics(c, cubic={"target_rtt": "min_rtt", "ssthresh_from": "cwnd"})
            rfc = ccscope_metrics(c, cubic={})
            report.update(ccscope_ns3_like=ns3_like, ccscope_rfc=rfc)
            t1, ok = table("CUBIC, ccscope (target_rtt = min_rtt, ssthresh_from = cwnd) vs ns-3 TcpCubic",
                           ns3_like, peer, c)
            t2, _ = table("informational: ccscope with RFC 9438 defaults (srtt, flight_size) vs ns-3", rfc, peer, c)
            lines += t1 + ["", *t2, "", f"acceptance (period and mean throughput within ±{c['tolerance']:.0%}): "
                                        f"{'PASS' if ok else 'MISS'}"]
            report["pass"] = ok
        else:
            lines.append(f"ns-3 CoDel, 4 x NewReno: median queueing delay {peer['median_delay_s'] * 1e3:.3g} ms, "
                         f"aggregate {peer['aggregate_bps'] / 1e6:.4g} Mb/s, mean queue {peer['mean_queue_pkts']:.3g} pkts")
            try:
                ours = ccscope_metrics(c, aqm={"kind": "codel", "target_s": 0.005, "interval_s": 0.1})
            except Exception as e:  # the engine has no codel yet: ns-3's side only
                lines.append(f"ccscope side not run: {str(e).splitlines()[0][:160]}")
            else:
                report["ccscope"] = ours
                t, ok = table("CoDel + NewReno, ccscope vs ns-3", ours, peer, c)
                lines += t
                report["pass"] = ok
        print("\n".join(lines))
        if a.json:
            a.json.write_text(json.dumps(report, indent=1, default=float) + "\n")
    except UsageError as e:
        print(f"bench/peers/ns3_compare.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
