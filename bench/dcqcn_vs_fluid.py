"""DCQCN packet runs against the CoNEXT 2016 fluid model (docs/validation.md, "DCQCN ... fluid model").

Usage: python bench/dcqcn_vs_fluid.py [N ...]   (default: 2 10). Prints one table row per metric and N."""
from __future__ import annotations

import sys

import numpy as np

import ccscope as cc
from ccscope.fluid.dcqcn import DcqcnFluid

C, PKT, RTT, T0, T1 = 40e9, 1000, 8e-6, 0.05, 0.1
RED = {"kind": "red", "min_th_pkts": 5, "max_th_pkts": 200, "max_p": 0.01, "w_q": 1.0, "independent_marks": True}


def packet(n: int) -> dict:
    sc = {"name": f"dcqcn-vs-fluid-{n}", "seed": 1, "until_s": T1, "packet_bytes": PKT, "ack_bytes": 64,
          "topology": {"kind": "dumbbell", "senders": n, "bottleneck_bps": C, "access_bps": C, "rtt_s": RTT,
                       "buffer_pkts": 10000},
          "aqm": RED, "dcqcn": {"r_hai_bps": 40e6},
          "flows": {"count": n, "cc": "dcqcn"},
          "record": {"traces": ["queue", "link", "delivered", "drops"], "queue_interval_s": 1e-5,
                     "flow_interval_s": 1e-3, "ports": ["sw->r0"]}}
    res = cc.simulate(sc)
    tr = res.traces
    q = tr["queue"]
    q = q[(q.time_s >= T0) & (q.time_s <= T1)]
    d = tr["delivered"]

    def at(t):
        s = d[np.isclose(d.time_s, t)]
        return s.sort_values("flow")["delivered_bytes"].to_numpy(dtype=float)
    gbps = (at(T1) - at(T0)) * 8 / (T1 - T0) / 1e9
    ev = tr["drops"]
    ev = ev[(ev.time_s >= T0) & (ev.time_s < T1)]
    marks = int((ev["event"].astype(str).str.lower() == "mark").sum())
    link = tr["link"]
    tx = link.sort_values("time_s")
    b0 = np.interp(T0, tx.time_s, tx.tx_bytes)
    b1 = np.interp(T1, tx.time_s, tx.tx_bytes)
    arrivals = (b1 - b0) / PKT
    drops = int((ev["event"].astype(str).str.lower() != "mark").sum())
    return {"gbps": gbps, "q": float(q.queue_pkts.mean()), "p": marks / arrivals, "drops": drops}


def fluid(n: int) -> dict:
    m = DcqcnFluid(C, n, delay_s=RTT, packet_bytes=PKT)
    r = m.solve(T1)
    t = r.traces
    w = t[(t.time_s >= T0) & (t.time_s <= T1)]
    fp = m.fixed_point()
    return {"gbps": C / n / 1e9, "q": float(w.queue_pkts.mean()), "q_star": fp.q_pkts, "p": fp.p,
            "rc_mean": float(w.rc0_bps.mean()) / 1e9}


def main(ns: list[int]) -> None:
    print("| N | metric | packet | fluid | difference | tolerance | |")
    print("|---|---|---|---|---|---|---|")
    for n in ns:
        p, f = packet(n), fluid(n)
        worst = float(np.max(np.abs(p["gbps"] / f["gbps"] - 1)))
        rows = [("per-flow throughput (Gb/s), worst flow", f"{p['gbps'].min():.2f}-{p['gbps'].max():.2f}",
                 f"{f['gbps']:.2f}", worst, 0.10),
                ("mean queue (pkts)", f"{p['q']:.1f}", f"{f['q']:.1f} (q* {f['q_star']:.1f})", p["q"] / f["q"] - 1, 0.30),
                ("marking probability", f"{p['p']:.5f}", f"{f['p']:.5f}", p["p"] / f["p"] - 1, 0.30)]
        for name, a, b, diff, tol in rows:
            ok = "ok" if abs(diff) <= tol else "MISS"
            print(f"| {n} | {name} | {a} | {b} | {diff * 100:+.1f} % | ±{tol * 100:.0f} % | {ok} |")
        print(f"| {n} | drops | {p['drops']} | | | 0 | {'ok' if p['drops'] == 0 else 'MISS'} |")
        print(f"| {n} | fluid mean R_C (Gb/s) | | {f['rc_mean']:.2f} | | | |")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [2, 10])
