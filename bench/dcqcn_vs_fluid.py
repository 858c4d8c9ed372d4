"""DCQCN packet runs against the CoNEXT 2016 fluid model (docs/validation.md, "DCQCN ... fluid model").

Usage: python bench/dcqcn_vs_fluid.py [--mark-at enqueue|dequeue] [N ...]   (default: enqueue, 2 10): one table row
per metric and N.
       python bench/dcqcn_vs_fluid.py --diagnose N: the N-flow diagnosis of docs/validation.md ("N = 10: the measured
cause"): rate cuts per flow, the lock-step index, marks above Kmax, queue swing and period, for the variants A
(enqueue marking), B (dequeue marking), C (staggered starts), and the fluid model at tau* + q*/C (D)."""
from __future__ import annotations

import sys

import numpy as np

import ccscope as cc
from ccscope.fluid.dcqcn import DcqcnFluid, jacobian_stable

C, PKT, RTT, T0, T1 = 40e9, 1000, 8e-6, 0.05, 0.1
RED = {"kind": "red", "min_th_pkts": 5, "max_th_pkts": 200, "max_p": 0.01, "w_q": 1.0, "independent_marks": True}


def scenario(n: int, *, mark_at: str = "enqueue", stagger_s: float = 0.0, fine: bool = False,
             rtt_s: float = RTT) -> dict:
    """The comparison's packet run; `fine`: queue and rate traces every 1 us (the diagnosis)."""
    aqm = dict(RED) if mark_at == "enqueue" else {**RED, "mark_at": mark_at}
    sc = {"name": f"dcqcn-vs-fluid-{n}", "seed": 1, "until_s": T1, "packet_bytes": PKT, "ack_bytes": 64,
          "topology": {"kind": "dumbbell", "senders": n, "bottleneck_bps": C, "access_bps": C, "rtt_s": rtt_s,
                       "buffer_pkts": 10000},
          "aqm": aqm, "dcqcn": {"r_hai_bps": 40e6},
          "flows": {"count": n, "cc": "dcqcn"},
          "record": {"traces": ["queue", "link", "delivered", "drops"] + (["rate"] if fine else []),
                     "queue_interval_s": 1e-6 if fine else 1e-5,
                     "flow_interval_s": 1e-6 if fine else 1e-3, "ports": ["sw->r0"]}}
    if stagger_s > 0:
        sc.pop("flows")
        sc["flow"] = [{"src": f"s{i}", "dst": "r0", "cc": "dcqcn", "start_s": i * stagger_s} for i in range(n)]
    return sc


def packet(n: int, mark_at: str = "enqueue", **kw) -> dict:
    res = cc.simulate(scenario(n, mark_at=mark_at, **kw))
    tr = res.traces
    q = tr["queue"]
    q = q[(q.time_s >= T0) & (q.time_s <= T1)]
    d = tr["delivered"]

    def at(t):
        s = d[np.abs(d.time_s - t) < 1e-10]
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
    return {"gbps": gbps, "q": float(q.queue_pkts.mean()), "p": marks / arrivals, "drops": drops, "res": res}


def fluid(n: int) -> dict:
    m = DcqcnFluid(C, n, delay_s=RTT, packet_bytes=PKT)
    r = m.solve(T1)
    t = r.traces
    w = t[(t.time_s >= T0) & (t.time_s <= T1)]
    fp = m.fixed_point()
    return {"gbps": C / n / 1e9, "q": float(w.queue_pkts.mean()), "q_star": fp.q_pkts, "p": fp.p,
            "rc_mean": float(w.rc0_bps.mean()) / 1e9}


def main(ns: list[int], mark_at: str = "enqueue") -> None:
    print("| N | metric | packet | fluid | difference | tolerance | |")
    print("|---|---|---|---|---|---|---|")
    for n in ns:
        p, f = packet(n, mark_at), fluid(n)
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


KMIN, KMAX, CUT_WINDOW_S, LOCKSTEP_S = RED["min_th_pkts"], RED["max_th_pkts"], 50e-6, 5e-6


def cuts_per_flow(rate) -> dict[int, np.ndarray]:
    """Times of the rate cuts of each flow: 1-us samples where R_C falls (only a CNP lowers R_C)."""
    out = {}
    for f, g in rate.sort_values("time_s").groupby("flow"):
        r, t = g.rate_bps.to_numpy(), g.time_s.to_numpy()
        out[int(f)] = t[1:][np.diff(r) < 0]
    return out


def lockstep_index(cuts: dict[int, np.ndarray], span_s: float, d: float = LOCKSTEP_S) -> float:
    """Mean over ordered pairs (i, j) of the cuts of j within +-d of a cut of i, over what independent cut
    times at the same rates give (2 d n_j / span per cut of i): 1 = independent, N = all cut together."""
    ratios = []
    for i, ti in cuts.items():
        for j, tj in cuts.items():
            if i == j or len(ti) == 0 or len(tj) == 0:
                continue
            near = np.searchsorted(tj, ti + d, side="right") - np.searchsorted(tj, ti - d, side="left")
            ratios.append(near.sum() / (len(ti) * 2 * d * len(tj) / span_s))
    return float(np.mean(ratios)) if ratios else float("nan")


def period_s(t: np.ndarray, q: np.ndarray) -> float:
    """The queue's oscillation period: the first peak of its autocorrelation after the first zero crossing."""
    x = q - q.mean()
    n = len(x)
    f = np.fft.rfft(x, 2 * n)
    ac = np.fft.irfft(f * np.conj(f))[:n]
    ac /= ac[0]
    z = np.argmax(ac < 0)
    if z == 0:
        return float("nan")
    k = z + int(np.argmax(ac[z:n // 2]))
    return float(k * (t[1] - t[0]))


def diagnose_packet(label: str, n: int, **kw) -> dict:
    p = packet(n, fine=True, **kw)
    tr = p["res"].traces
    rate = tr["rate"]
    rate = rate[(rate.time_s >= T0) & (rate.time_s <= T1)]
    cuts = cuts_per_flow(rate)
    q = tr["queue"]
    q = q[(q.time_s >= T0) & (q.time_s <= T1)].sort_values("time_s")
    tq, qq = q.time_s.to_numpy(), q.queue_pkts.to_numpy(dtype=float)
    ev = tr["drops"]
    ev = ev[(ev.time_s >= T0) & (ev.time_s < T1) & (ev["event"].astype(str).str.lower() == "mark")]
    q_at_mark = np.interp(ev.time_s.to_numpy(), tq, qq)
    span = T1 - T0
    ncuts = np.array([len(c) for c in cuts.values()])
    return {"variant": label, "gbps": f"{p['gbps'].min():.2f}-{p['gbps'].max():.2f}", "q_mean": p["q"], "p": p["p"],
            "cuts_per_50us": float(ncuts.mean() * CUT_WINDOW_S / span),
            "cuts_range": f"{ncuts.min()}-{ncuts.max()}",
            "lockstep": lockstep_index(cuts, span),
            "marks_above_kmax": float((q_at_mark > KMAX).mean()) if len(q_at_mark) else float("nan"),
            "t_below_kmin": float((qq <= KMIN).mean()), "t_above_kmax": float((qq > KMAX).mean()),
            "q5": float(np.percentile(qq, 5)), "q95": float(np.percentile(qq, 95)), "period_us": period_s(tq, qq) * 1e6,
            "min_rate_gbps": float(rate.rate_bps.min()) / 1e9, "E_p_of_q": float(red_p(qq).mean())}


def red_p(q: np.ndarray) -> np.ndarray:
    """RED's marking probability of a queue of q packets (w_q = 1): 0 below Kmin, the ramp, 1 at or above Kmax."""
    pmax = RED["max_p"]
    return np.where(q < KMIN, 0.0, np.where(q < KMAX, pmax * (q - KMIN) / (KMAX - KMIN), 1.0))


def diagnose(n: int) -> None:
    f0 = DcqcnFluid(C, n, delay_s=RTT, packet_bytes=PKT)
    fp = f0.fixed_point()
    tau_q = RTT + fp.q_pkts * PKT * 8 / C
    r_star = C / n / (PKT * 8)
    a_star = 1 - (1 - fp.p) ** (CUT_WINDOW_S * r_star)
    print(f"fluid fixed point: q* {fp.q_pkts:.1f} pkts, p* {fp.p:.5f}, CNP probability per 50 us "
          f"1 - (1 - p*)^(tau R*) = {a_star:.3f}; tau* + q*/C = {tau_q * 1e6:.1f} us")
    rows = [diagnose_packet("A enqueue", n), diagnose_packet("B dequeue", n, mark_at="dequeue"),
            diagnose_packet("C staggered", n, stagger_s=1e-4),
            diagnose_packet(f"E dequeue, RTT {tau_q * 1e6:.1f} us", n, mark_at="dequeue", rtt_s=tau_q)]
    keys = ["gbps", "q_mean", "p", "cuts_per_50us", "cuts_range", "lockstep", "marks_above_kmax", "t_below_kmin",
            "t_above_kmax", "q5", "q95", "period_us", "min_rate_gbps", "E_p_of_q"]
    print("| variant | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for r in rows:
        cells = [r[k] if isinstance(r[k], str) else f"{r[k]:.4g}" for k in keys]
        print(f"| {r['variant']} | " + " | ".join(cells) + " |")
    for label, d in [("fluid tau* = 8 us", RTT), (f"D fluid tau* = {tau_q * 1e6:.1f} us", tau_q)]:
        m = DcqcnFluid(C, n, delay_s=d, packet_bytes=PKT)
        t = m.solve(T1).traces
        w = t[(t.time_s >= T0) & (t.time_s <= T1)].queue_pkts.to_numpy()
        pm = m.phase_margin(d)
        print(f"| {label} | q mean {w.mean():.1f}, q5 {np.percentile(w, 5):.1f}, q95 {np.percentile(w, 95):.1f}, "
              f"min {w.min():.1f}, max {w.max():.1f} | paper loop phase margin {pm.degrees:.1f} deg |")
    for d in [RTT, tau_q, 60e-6, 100e-6]:
        ok, root = jacobian_stable(DcqcnFluid(C, n, delay_s=d, packet_bytes=PKT))
        print(f"| exact linearization, tau* = {d * 1e6:.1f} us | stable {ok} | rightmost root {root:.4g} /s |")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--diagnose"]:
        diagnose(int(args[1]) if len(args) > 1 else 10)
    else:
        mark = "enqueue"
        if args[:1] == ["--mark-at"]:
            mark, args = args[1], args[2:]
        main([int(a) for a in args] or [2, 10], mark)
