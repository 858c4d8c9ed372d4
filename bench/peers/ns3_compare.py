"""Peer comparison: ccscope against ns-3 on the same dumbbell, side by side in one table.

usage: python bench/peers/ns3_compare.py --ns3-python PATH [--out DIR] [--reuse] [--json FILE] {cubic,codel,fq_codel,fq_codel_sparse}

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
- fq_codel: 4 NewReno flows with RTTs 10, 20, 40, 80 ms over FQ-CoDel (ns3::FqCoDelQueueDisc and
  ccscope's aqm fq_codel, RFC 8290 defaults, 1000 packets), 30 s; window 5-30 s. Metrics: each
  flow's share of the aggregate (within 15 %), Jain's index (within 0.03), aggregate throughput
  (within 10 %), each flow's smoothed RTT minus its propagation RTT, median of samples every 1 s
  (within 25 % or 1 ms). ccscope's srtt comes from its flows table, one run to each sample time.
- fq_codel_sparse: 4 NewReno flows at 20 ms plus a sparse flow, one 1500-byte packet every
  100 ms from 5 s (ns-3: a UdpClient; ccscope: one one-packet flow per packet). Metric: each
  packet's delay over the empty network's; median and 95th percentile below 0.6 ms on both
  sides, medians within 0.24 ms.
Both FQ-CoDel cases rerun ccscope with 65536 flow queues: identical per-flow results mean no two
flows shared a queue; ns-3's packet trace names each flow's queue.
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
    # FQ-CoDel (RFC 8290) with RFC defaults on both sides; docs/validation.md fixes the metrics
    "fq_codel": dict(flows=4, tcp="new_reno", qdisc="fq_codel", bottleneck_bps=100e6, access_bps=1e9, rtt_s=0.02,
                     rtts=[0.01, 0.02, 0.04, 0.08], bottleneck_delay_s=0.001, buffer_pkts=1000, packet_bytes=1500,
                     iw_pkts=10, min_rto_s=0.2, until_s=30.0, starts=[0.0, 0.1, 0.2, 0.3], sample_s=0.01,
                     window=(5.0, 30.0), tolerance=0.10, share_tolerance=0.15, jain_tolerance=0.03,
                     srtt_times=[5.0 + k for k in range(26)], delay_rel=0.25, delay_abs_s=0.001),
    "fq_codel_sparse": dict(flows=4, tcp="new_reno", qdisc="fq_codel", bottleneck_bps=100e6, access_bps=1e9,
                            rtt_s=0.02, bottleneck_delay_s=0.001, buffer_pkts=1000, packet_bytes=1500, iw_pkts=10,
                            min_rto_s=0.2, until_s=30.0, starts=[0.0, 0.1, 0.2, 0.3], sample_s=0.01,
                            window=(5.0, 30.0), tolerance=0.10, sparse_interval_s=0.1, sparse_start_s=5.0,
                            excess_bound_s=0.0006, median_diff_s=0.00024),
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
    p.add_argument("--ns3-codel-min-bytes", type=int, default=None, metavar="N",
                   help="ns-3's CoDelQueueDisc::MinBytes (CoDel's one-MTU test per queue; 0 turns it off), "
                        "a diagnostic run kept in its own folder")
    p.add_argument("--srtt-step-s", type=float, default=None, metavar="S",
                   help="fq_codel: sample the srtt every S seconds instead of every 1 s (a diagnostic, not the "
                        "fixed metric)")
    a = p.parse_args(argv)
    if a.srtt_step_s is not None and not 0.01 <= a.srtt_step_s <= 25:
        raise UsageError(f"--srtt-step-s = {a.srtt_step_s}: must be between 0.01 and 25 seconds")
    if a.ns3_codel_min_bytes is not None and not 0 <= a.ns3_codel_min_bytes < 2**32:
        raise UsageError(f"--ns3-codel-min-bytes = {a.ns3_codel_min_bytes}: must be an integer in [0, 2^32)")
    if a.case not in CASES:
        raise UsageError(f"case {a.case!r}: must be one of {', '.join(CASES)}")
    if not a.reuse and not Path(a.ns3_python).is_file():
        raise UsageError(f"--ns3-python = {a.ns3_python!r}: no such file")
    return a


# ---------------------------------------------------------------- ns-3 side

def run_ns3(a: argparse.Namespace, c: dict) -> Path:
    out = a.out / (a.case + ("-sack" if a.ns3_sack else "")
                   + ("" if a.ns3_codel_min_bytes is None else f"-minbytes{a.ns3_codel_min_bytes}"))
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
    if "rtts" in c:
        cmd += ["--rtt-per-sender-s", ",".join(repr(x) for x in c["rtts"])]
    if "sparse_interval_s" in c:
        cmd += ["--sparse-interval-s", repr(c["sparse_interval_s"]), "--sparse-start-s", repr(c["sparse_start_s"])]
    if a.ns3_codel_min_bytes is not None:
        cmd += ["--codel-min-bytes", str(a.ns3_codel_min_bytes)]
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

def ccscope_scenario(c: dict, cubic: dict | None, aqm: dict | None, bulk: bool = True) -> dict:
    """The dumbbell of case c; with c's sparse_interval_s, sender s{flows} adds one one-packet flow per
    interval from sparse_start_s (flows[flows:] of the result); bulk=False leaves out the long flows."""
    sc = {
        "name": "ns3-peer", "seed": 1, "until_s": c["until_s"], "packet_bytes": c["packet_bytes"],
        "ack_bytes": HEADER_BYTES,
        "topology": {"kind": "dumbbell", "senders": c["flows"], "bottleneck_bps": c["bottleneck_bps"],
                     "access_bps": c["access_bps"], "rtt_s": c["rtt_s"],
                     "bottleneck_delay_s": c["bottleneck_delay_s"], "buffer_pkts": c["buffer_pkts"]},
        "tcp": {"iw_pkts": c["iw_pkts"], "min_rto_s": c["min_rto_s"]},
        "flow": [{"src": f"s{k}", "dst": "r0", "cc": c["tcp"], "start_s": c["starts"][k]}
                 for k in range(c["flows"] if bulk else 0)],
        "record": {"traces": ["queue", "cwnd", "delivered"], "flow_interval_s": 1e-3,
                   "queue_interval_s": c["sample_s"]},
    }
    if "rtts" in c:
        del sc["topology"]["rtt_s"]
        sc["topology"]["rtt_per_sender_s"] = list(c["rtts"])
    if "sparse_interval_s" in c:
        sc["topology"]["senders"] = c["flows"] + 1
        sc["flow"] += [{"src": f"s{c['flows']}", "dst": "r0", "cc": c["tcp"], "size_bytes": c["packet_bytes"],
                        "start_s": t} for t in sparse_times(c)]
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


# ---------------------------------------------------------------- FQ-CoDel cases

def sparse_times(c: dict) -> list[float]:
    """Send times of the sparse flow's packets: every sparse_interval_s from sparse_start_s to until_s."""
    n = int(round((c["until_s"] - c["sparse_start_s"]) / c["sparse_interval_s"]))
    return [round(c["sparse_start_s"] + k * c["sparse_interval_s"], 9) for k in range(n)]


def empty_owd_s(c: dict) -> float:
    """One-way delay of a packet on the empty dumbbell at rtt_s: the propagation delays and one
    transmission on the access link and one on the bottleneck."""
    bits = c["packet_bytes"] * 8
    return c["rtt_s"] / 2 + bits / c["access_bps"] + bits / c["bottleneck_bps"]


def quantiles(xs: list[float]) -> dict:
    ys = sorted(xs)
    if not ys:
        return dict(n=0, median=math.nan, p95=math.nan, max=math.nan, min=math.nan)
    return dict(n=len(ys), median=statistics.median(ys), p95=ys[min(len(ys) - 1, int(math.ceil(0.95 * len(ys))) - 1)],
                max=ys[-1], min=ys[0])


def srtt_delay(rows: list[tuple[float, float]], times: list[float], rtt_s: float) -> float:
    """Median over the sample times of the smoothed RTT (last value at or before t) minus the
    propagation RTT: the flow's queueing delay as its sender sees it."""
    return statistics.median(at(rows, t) - rtt_s for t in times)


def add_shares(m: dict) -> None:
    total = sum(f["throughput_bps"] for f in m["flows"])
    for f in m["flows"]:
        f["share"] = f["throughput_bps"] / total if total else math.nan


def ns3_fq_metrics(out: Path, c: dict) -> dict:
    """ns3_metrics plus each flow's share, srtt delay, per-packet sojourn median in the window and
    the FqCoDel queues its packets hashed to; with a sparse flow, its packets' excess delays."""
    m = ns3_metrics(out, c)
    add_shares(m)
    t0, t1 = c["window"]
    rtts = c.get("rtts", [c["rtt_s"]] * c["flows"])
    sr = _read(out / "srtt.csv")
    pk = _read(out / "packets.csv")
    queues: dict[int, set] = {}
    soj: dict[int, list] = {}
    for t, f, so, qi in zip(pk["time_s"], pk["flow"], pk["sojourn_s"], pk["fq_queue"]):
        queues.setdefault(int(f), set()).add(int(qi))
        if t0 <= t <= t1:
            soj.setdefault(int(f), []).append(so)
    for k, f in enumerate(m["flows"]):
        rows = [(t, v) for t, ff, v in zip(sr["time_s"], sr["flow"], sr["srtt_s"]) if int(ff) == k]
        f["srtt_delay_s"] = srtt_delay(rows, c["srtt_times"], rtts[k]) if "srtt_times" in c else math.nan
        f["sojourn_median_s"] = statistics.median(soj[k]) if soj.get(k) else math.nan
    m["fq_queues"] = {k: sorted(v) for k, v in sorted(queues.items())}
    seen = [q for v in queues.values() for q in v]
    m["collision"] = len(seen) != len(set(seen))
    if (out / "sparse.csv").is_file():
        sp = _read(out / "sparse.csv")
        base = empty_owd_s(c)
        m["sparse_excess_s"] = [d - base for d in sp["owd_s"]]
        m["sparse_sojourn_s"] = soj.get(c["flows"], [])
    return m


def ccscope_fq_metrics(c: dict, flows_queues: int | None = None) -> dict:
    """ccscope's side of an FQ-CoDel case (aqm fq_codel with RFC 8290's defaults; flows_queues
    overrides the number of flow queues, for the collision check)."""
    import ccscope
    aqm = {"kind": "fq_codel"} if flows_queues is None else {"kind": "fq_codel", "flows": flows_queues}
    if "sparse_interval_s" in c:
        def run(bulk: bool):
            sc = ccscope_scenario(c, None, aqm, bulk=bulk)
            sc["record"] = {"traces": ["delivered", "queue"], "flow_interval_s": 0.01, "queue_interval_s": c["sample_s"]}
            return ccscope.simulate(sc)
        loaded, empty = run(True), run(False)
        n = c["flows"]
        fct = loaded.flows["fct_s"].tolist()[n:]
        fct0 = empty.flows["fct_s"].tolist()
        dl = loaded.traces["delivered"]
        t0, t1 = c["window"]
        thr = []
        for k in range(n):
            d = dl[dl["flow"] == k]
            dd = list(zip(d["time_s"].tolist(), d["delivered_bytes"].tolist()))
            thr.append((at(dd, t1) - at(dd, t0)) * 8 / (t1 - t0))
        q = loaded.traces["queue"]
        qq = q[(q["time_s"] >= t0) & (q["time_s"] <= t1)]
        return dict(sparse_excess_s=[a - b for a, b in zip(fct, fct0)], throughput_bps=thr,
                    median_delay_s=statistics.median((qq["queue_bytes"] * 8 / c["bottleneck_bps"]).tolist()))
    m = ccscope_metrics(c, aqm=aqm)
    add_shares(m)
    if flows_queues is not None:
        return m
    # srtt at each sample time: the run to t is a prefix of the run to until_s (checked on the
    # delivered trace against the full run)
    full = ccscope.simulate({**ccscope_scenario(c, None, aqm), "record": {"traces": ["delivered"],
                                                                         "flow_interval_s": 0.01}})
    fd = full.traces["delivered"]
    samples: list[list[float]] = [[] for _ in range(c["flows"])]
    prefix_ok = True
    for t in c["srtt_times"]:
        sc = ccscope_scenario(c, None, aqm)
        sc["until_s"] = t
        sc["record"] = {"traces": ["delivered"], "flow_interval_s": 0.01}
        r = ccscope.simulate(sc)
        d = r.traces["delivered"]
        same = fd[fd["time_s"] <= d["time_s"].max() + 1e-12]
        prefix_ok = prefix_ok and len(same) == len(d) and (same["delivered_bytes"].to_numpy()
                                                            == d["delivered_bytes"].to_numpy()).all()
        for k, v in enumerate(r.flows["srtt_s"].tolist()[: c["flows"]]):
            samples[k].append(v - c["rtts"][k])
    for k, f in enumerate(m["flows"]):
        f["srtt_delay_s"] = statistics.median(samples[k])
        f["sojourn_median_s"] = math.nan
    m["prefix_identical"] = bool(prefix_ok)
    return m


def fq_table(ours: dict, peer: dict, c: dict) -> tuple[list[str], bool]:
    """Rows and verdicts of case fq_codel (unequal RTTs) as docs/validation.md fixes them."""
    lines = ["FQ-CoDel + NewReno, RTTs " + ", ".join(f"{r * 1e3:g}" for r in c["rtts"]) + " ms: ccscope vs ns-3",
             f"{'metric':<34} {'ccscope':>12} {'ns-3':>12} {'ratio':>8} {'tol':>6} verdict"]
    ok = True
    for k, (fo, fp) in enumerate(zip(ours["flows"], peer["flows"])):
        line, _, good = ratio_row(f"flow {k} share of aggregate", fo["share"], fp["share"], c["share_tolerance"],
                                  "{:.4f}")
        lines.append(line)
        ok = ok and bool(good)
    dj = ours["jain"] - peer["jain"]
    good = abs(dj) <= c["jain_tolerance"]
    lines.append(f"{'Jain fairness':<34} {ours['jain']:>12.4f} {peer['jain']:>12.4f} {'':>8} "
                 f"{'±' + format(c['jain_tolerance'], 'g'):>6} {'pass' if good else 'MISS'}")
    ok = ok and good
    line, _, good = ratio_row("aggregate throughput (Mb/s)", ours["aggregate_bps"] / 1e6, peer["aggregate_bps"] / 1e6,
                              c["tolerance"], "{:.5g}")
    lines.append(line)
    ok = ok and bool(good)
    for k, (fo, fp) in enumerate(zip(ours["flows"], peer["flows"])):
        a, b = fo["srtt_delay_s"], fp["srtt_delay_s"]
        good = abs(a - b) <= max(c["delay_rel"] * abs(b), c["delay_abs_s"])
        ok = ok and good
        lines.append(f"{f'flow {k} srtt - rtt, median (ms)':<34} {a * 1e3:>12.4g} {b * 1e3:>12.4g} "
                     f"{(a / b if b else math.nan):>8.3f} {'25%|1ms':>6} {'pass' if good else 'MISS'}")
    for k, (fo, fp) in enumerate(zip(ours["flows"], peer["flows"])):
        lines.append(ratio_row(f"  flow {k} throughput Mb/s", fo["throughput_bps"] / 1e6, fp["throughput_bps"] / 1e6,
                               None)[0])
        lines.append(ratio_row(f"  flow {k} events", fo["events_in_window"], fp["events_in_window"], None)[0])
        lines.append(f"  flow {k} ns-3 sojourn median (ms)   {fp['sojourn_median_s'] * 1e3:>25.4g}")
    lines.append(ratio_row("median queueing delay (ms)", ours["median_delay_s"] * 1e3, peer["median_delay_s"] * 1e3,
                           None)[0])
    lines.append(ratio_row("mean queue (pkts)", ours["mean_queue_pkts"], peer["mean_queue_pkts"], None)[0])
    return lines, ok


def sparse_table(ours: dict, peer: dict, c: dict) -> tuple[list[str], bool]:
    """Rows and verdicts of case fq_codel_sparse as docs/validation.md fixes them."""
    qo, qp = quantiles(ours["sparse_excess_s"]), quantiles(peer["sparse_excess_s"])
    bound = c["excess_bound_s"]
    lines = [f"FQ-CoDel, 4 NewReno + a sparse flow (1 packet / {c['sparse_interval_s']:g} s): excess delay over "
             f"the empty network, ccscope vs ns-3 ({qo['n']} / {qp['n']} packets)",
             f"{'metric':<34} {'ccscope':>12} {'ns-3':>12} {'ratio':>8} {'tol':>6} verdict"]
    ok = True
    for name, key in [("median excess (ms)", "median"), ("95th percentile excess (ms)", "p95")]:
        good = qo[key] < bound and qp[key] < bound
        ok = ok and good
        lines.append(f"{name:<34} {qo[key] * 1e3:>12.4g} {qp[key] * 1e3:>12.4g} "
                     f"{(qo[key] / qp[key] if qp[key] else math.nan):>8.3f} {'<' + format(bound * 1e3, 'g'):>6} "
                     f"{'pass' if good else 'MISS'}")
    d = qo["median"] - qp["median"]
    good = abs(d) <= c["median_diff_s"]
    ok = ok and good
    lines.append(f"{'median difference (ms)':<34} {d * 1e3:>12.4g} {'':>12} {'':>8} "
                 f"{'±' + format(c['median_diff_s'] * 1e3, 'g'):>6} {'pass' if good else 'MISS'}")
    for name, key in [("min excess (ms)", "min"), ("max excess (ms)", "max")]:
        lines.append(f"{name:<34} {qo[key] * 1e3:>12.4g} {qp[key] * 1e3:>12.4g}")
    so = quantiles(peer.get("sparse_sojourn_s", []))
    lines.append(f"{'ns-3 sojourn in queue disc, median':<34} {'':>12} {so['median'] * 1e3:>12.4g}")
    lines.append(f"{'median queueing delay (ms)':<34} {ours['median_delay_s'] * 1e3:>12.4g} "
                 f"{peer['median_delay_s'] * 1e3:>12.4g}")
    lines.append("bulk throughput (Mb/s): ccscope " + ", ".join(f"{x / 1e6:.4g}" for x in ours["throughput_bps"])
                 + "; ns-3 " + ", ".join(f"{f['throughput_bps'] / 1e6:.4g}" for f in peer["flows"]))
    return lines, ok


def main(argv: list[str]) -> int:
    try:
        a = parse_args(argv)
        c = CASES[a.case]
        if a.srtt_step_s is not None and "srtt_times" in c:
            t0, t1 = c["window"]
            c = dict(c, srtt_times=[t0 + k * a.srtt_step_s for k in range(int((t1 - t0) / a.srtt_step_s + 1e-9) + 1)])
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
        elif a.case in ("fq_codel", "fq_codel_sparse"):
            peer = ns3_fq_metrics(out, c)
            report["ns3"] = peer
            ours = ccscope_fq_metrics(c)
            check = ccscope_fq_metrics(c, flows_queues=65536)
            report.update(ccscope=ours, ccscope_65536_queues=check)
            t, ok = (fq_table if a.case == "fq_codel" else sparse_table)(ours, peer, c)
            lines += t
            if a.case == "fq_codel":
                same = [fo["wire_bytes"] == fc["wire_bytes"] for fo, fc in zip(ours["flows"], check["flows"])]
                lines.append(f"ccscope: runs to each srtt sample time are prefixes of the full run: "
                             f"{'yes' if ours['prefix_identical'] else 'NO'}")
            else:
                same = [x == y for x, y in zip(ours["sparse_excess_s"], check["sparse_excess_s"])]
            lines.append(f"ccscope collision check (1024 vs 65536 queues): {sum(same)} of {len(same)} "
                         f"{'flows deliver the same bytes' if a.case == 'fq_codel' else 'sparse packets see the same delay'}")
            lines.append(f"ns-3 FqCoDel queue per flow: {peer['fq_queues']} "
                         f"({'a collision' if peer['collision'] else 'no collision'})")
            lines.append(f"acceptance: {'PASS' if ok else 'MISS'}")
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
