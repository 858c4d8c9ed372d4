"""Shared A0 setup of the ASM paper (FIGURES.md `asm/*`): dumbbell scenarios for ASM and the QCN
baseline, and the statistics the checks use (queue, utilization, empty fraction, Q/R-plane winding).

Parameters (every [NG] of FIGURES.md A0): 1500-B packets, p = 0.01, Bernoulli sampling, w = 32,
B0 = 16, B_F = 64, the §5.1 gain fractions (engine defaults), quantum 1 pkt (E36), ASM rates clamped to
[10 Mb/s, line rate] (A0's floor; the engine's ASM default is QCN's 5 Mb/s), §4.5 de-duplication as the paper
states it: the CP records the destination of its last feedback and does not sample that source until another
source is sampled (engine default `dedup_expiry = "never"`, crates/ccscope-core/src/aqm/asm_cp.rs,
docs/VERDICTS.md §4; the "delivered" expiry is a labelled variant, reported only in [diagnostic] rows);
QCN: w = 2, Gd = 1/128, byte counter 150 KB, timer 15 ms, R_AI 5 Mb/s, fixed 1 % sampling, Qeq = q0.
Topology: sources - S1 - S2 - sink, 3 links per direction, so RTT = 6 x the per-link delay.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import ccscope as cc

PKT = 1500
P = 0.01
W_ASM = 32.0
B0, B_F = 16.0, 64.0
#: ASM rate floor of FIGURES.md A0 ("rate clamped to [10 Mb/s, line rate]")
MIN_RATE_BPS = 10e6


def tau_s(rate_bps: float) -> float:
    """Sliding time constant w/(p lambda) (eq 16) [DER]: 38 ms at 1 Gb/s."""
    return W_ASM / (P * rate_bps / (8 * PKT))


def scenario(algo: str, *, n: int = 3, rate_bps: float = 1e9, q0_pkts: float = 64, until_s: float = 0.3,
             link_delay_s: float = 2e-6, buffer_pkts: int = 87, initial_rate_bps: float | None = None,
             flows: list[dict] | None = None, approach: dict | None = None, seed: int = 1,
             sample_s: float | None = None) -> dict:
    aqm = ({"kind": "asm", "q0_pkts": q0_pkts, "sampling_p": P} if algo == "asm"
           else {"kind": "qcn", "q_eq_bytes": int(q0_pkts * PKT), "sampling_p": P})
    s = {"seed": seed, "until_s": until_s,
         "topology": {"kind": "dumbbell", "bottleneck_bps": rate_bps, "rtt_s": 6 * link_delay_s,
                      "buffer_pkts": buffer_pkts},
         "aqm": aqm, "record": {"traces": ["queue", "link", "rate", "drops"]}}
    if sample_s:
        s["record"]["queue_interval_s"] = sample_s
    s["flows"] = flows if flows is not None else {"count": n, "cc": algo}
    if algo == "asm":
        rp = {"min_rate_bps": MIN_RATE_BPS}
        if initial_rate_bps:
            rp["initial_rate_bps"] = initial_rate_bps
        if approach:
            rp["approach"] = approach
        s["asm_rp"] = rp
    return s


def run(s: dict):
    return cc.simulate(s)


def series(res, port: str | None = None) -> pd.DataFrame:
    """Bottleneck queue (pkts) and egress rate (bps) on the trace grid, plus the aggregate source rate."""
    q = res.traces["queue"]
    lk = res.traces["link"]
    if port is None:
        port = q.port.iloc[0]
    q = q[q.port == port].reset_index(drop=True)
    lk = lk[lk.port == port].reset_index(drop=True)
    t = q.time_s.to_numpy()
    dt = np.diff(t, prepend=np.nan)
    tx = lk.tx_bytes.to_numpy().astype(float)
    thr = np.diff(tx, prepend=np.nan) * 8 / dt
    return pd.DataFrame({"time_s": t, "queue_pkts": q.queue_pkts.to_numpy(), "tx_bytes": tx, "thr_bps": thr})


def aggregate_rate(res, times: np.ndarray, flows=None) -> np.ndarray:
    """Sum of the sources' rate-limiter rates (step functions) at `times` (bps)."""
    r = res.traces["rate"]
    if flows is not None:
        r = r[r.flow.isin(list(flows))]
    total = np.zeros(len(times))
    for _, g in r.groupby("flow"):
        idx = np.searchsorted(g.time_s.to_numpy(), times, side="right") - 1
        v = g.rate_bps.to_numpy()
        total += np.where(idx >= 0, v[np.clip(idx, 0, None)], 0.0)
    return total


def window_stats(s: pd.DataFrame, t0: float, t1: float | None, rate_bps: float) -> dict:
    m = (s.time_s > t0) & (s.time_s <= (s.time_s.max() if t1 is None else t1))
    w = s[m]
    if len(w) < 2:
        return {"q_mean": float("nan"), "q_sd": float("nan"), "empty_frac": float("nan"), "util": float("nan")}
    sent = (w.tx_bytes.iloc[-1] - w.tx_bytes.iloc[0]) * 8
    span = w.time_s.iloc[-1] - w.time_s.iloc[0]
    return {"q_mean": float(w.queue_pkts.mean()), "q_sd": float(w.queue_pkts.std()),
            "q_min": float(w.queue_pkts.min()), "q_max": float(w.queue_pkts.max()),
            "empty_frac": float((w.queue_pkts == 0).mean()), "util": float(sent / (span * rate_bps))}


def feedback_stats(res, t0: float, t1: float | None = None) -> dict:
    """Feedback frames the CPs sent per second in (t0, t1] (needs the `feedback` trace), against p × the
    bottleneck's packet rate at full load, and the share of them that went to the most-sampled source."""
    fb = res.traces["feedback"]
    t1 = float(res.summary["sim_time_s"]) if t1 is None else t1
    sent = fb[(fb.event == "sent") & (fb.time_s > t0) & (fb.time_s <= t1)]
    n = len(sent)
    top = float(sent.flow.value_counts().iloc[0] / n) if n else float("nan")
    return {"fb_per_s": n / (t1 - t0), "fb_n": n, "fb_top_share": top}


def drops(res, t0: float = 0.0) -> int:
    d = res.traces.get("drops")
    if d is None or len(d) == 0:
        return 0
    return int(((d.time_s >= t0) & ~d.is_ack.astype(bool)).sum())


def binned_util(s: pd.DataFrame, bin_s: float, rate_bps: float) -> pd.DataFrame:
    b = np.floor(s.time_s.to_numpy() / bin_s + 1e-9).astype(int)
    df = pd.DataFrame({"b": b, "tx": s.tx_bytes.to_numpy()}).groupby("b").tx.max()
    u = np.diff(df.to_numpy(), prepend=0.0) * 8 / (bin_s * rate_bps)
    return pd.DataFrame({"time_s": (df.index.to_numpy() + 1) * bin_s, "util": u})


def winding(x: np.ndarray, y: np.ndarray) -> float:
    """Accumulated angle (rad) of the path (x, y) around the origin."""
    ang = np.unwrap(np.arctan2(y, x))
    return float(abs(ang[-1] - ang[0])) if len(ang) > 1 else 0.0


def total_winding(x: np.ndarray, y: np.ndarray) -> float:
    """Total |angle| swept (sum of |d theta|), robust to back-and-forth."""
    ang = np.unwrap(np.arctan2(y, x))
    return float(np.sum(np.abs(np.diff(ang)))) if len(ang) > 1 else 0.0


# --- the fig5a scenario (3 sources, 1 Gb/s, q0 = 64, 2 us/link, 128 KB buffer, start at 500 Mb/s) -----------
FIG5_PARAMS = {"n": 3, "rate_bps": 1e9, "q0_pkts": 64, "link_delay_s": 2e-6, "buffer_pkts": 87,
               "initial_rate_bps": 5e8, "sampling": "Bernoulli p = 0.01", "noise": "none (see notes)"}
_CACHE: dict = {}


def fig5_run(algo: str, quick: bool):
    """The fig5a scenario for `algo` (ASM, or QCN for fig2), cached per process; returns (res, qr frame)."""
    key = (algo, quick)
    if key not in _CACHE:
        until = 0.3 if quick else 0.5
        s = scenario(algo, n=3, rate_bps=1e9, q0_pkts=64, until_s=until, link_delay_s=2e-6, buffer_pkts=87,
                     initial_rate_bps=5e8 if algo == "asm" else None)
        if algo == "qcn":
            # QCN RP has no initial-rate knob here: sources start at line rate (3 Gb/s offered) [NG]
            pass
        res = run(s)
        from ccscope.analysis.metrics import qr_trajectory
        qr = qr_trajectory(res)
        qr["qf"] = qr.queue_pkts - 64
        _CACHE[key] = (res, qr, until)
    return _CACHE[key]


def fb_plane(qr: pd.DataFrame, rate_bps: float, w: float = W_ASM) -> np.ndarray:
    """Fb = -(x1 + (w/(pC)) x2) in the Q/R plane (eq 27), packets."""
    c_pps = rate_bps / (8 * PKT)
    return -(qr.qf.to_numpy() + w / (P * c_pps) * qr.rate_excess_bps.to_numpy() / (8 * PKT))


def plot_qr(ax, qr: pd.DataFrame, rate_bps: float, q0: float, label: str):
    from ccscope.repro._base import ref_line
    ax.plot(qr.queue_pkts, qr.rate_bps / 1e9, lw=0.6, label=label)
    qs = np.linspace(0, 2 * q0, 20)
    c_pps = rate_bps / (8 * PKT)
    ax.plot(qs, (c_pps - P * c_pps / W_ASM * (qs - q0)) * 8 * PKT / 1e9, "k--", lw=0.8, label="Λ (w = 32)")
    ref_line(ax, q0, "q0", vertical=True)
    ref_line(ax, rate_bps / 1e9, "C")
    ax.set_xlabel("queue q (pkts)")
    ax.set_ylabel("aggregate rate A (Gb/s)")


# --- the 802.1Qau feedback trace (sent at the CP, applied at the source) -------------------------------
#: §5.1 gains (a+, a-, b+, b-) as fractions of C per 128 quantum units (ALGORITHMS.md §5.1), set A and S
GAINS = {"approach": (1 / 8, 1 / 64, 1 / 16, 1 / 2), "sliding": (1 / 16, 1 / 128, 1 / 32, 1 / 4)}


def asm_step(qf, dq, line_bps: float, *, w: float = W_ASM, b0: float = B0, b_f: float = B_F) -> pd.DataFrame:
    """Reference RP of ALGORITHMS.md §5.1 (eq 11, E34 mapping, stateless adaptive set E35) for arrays of
    quantized (Qf, dQ): the rate change (bps, before clamping), the gain set and the branch."""
    qf, dq = np.asarray(qf, float), np.asarray(dq, float)
    fb = -qf - w * dq
    approach = (np.abs(qf) + np.abs(dq) < b0) | (np.abs(fb) >= b_f)
    parabola = qf * fb > 0
    ga, gs = np.array(GAINS["approach"]), np.array(GAINS["sliding"])
    g = np.where(approach[:, None], ga, gs)
    a = np.where(parabola, g[:, 1], g[:, 0])
    b = np.where(parabola, g[:, 3], g[:, 2])
    delta = -(a * qf + b * dq) * line_bps / 128
    return pd.DataFrame({"fb": fb, "set": np.where(approach, "A", "S"),
                         "branch": np.where(parabola, "parabola", "spiral"), "delta_bps": delta})


def feedback_pairs(res) -> pd.DataFrame:
    """One row per feedback frame sent by a CP, joined with the row of its application at the source
    (matched on destination flow and sent time); `cpid` is the CP port's index, `applied_cpid` the
    CPID the source read from the frame; `delay_s` = applied − sent (NaN if still in flight at the end)."""
    fb = res.traces["feedback"]
    sent = fb[fb.event == "sent"].sort_values("time_s", kind="stable").reset_index(drop=True)
    app = fb[fb.event == "applied"]
    m = sent[["time_s", "port", "flow", "a", "b", "queue_bytes"]].merge(
        app[["flow", "sent_s", "time_s", "port", "rate_before_bps", "rate_after_bps"]].rename(
            columns={"time_s": "applied_s", "port": "applied_port", "sent_s": "time_s"}),
        on=["flow", "time_s"], how="left")
    m["cpid"] = m.port.cat.codes.astype(int)
    m["applied_cpid"] = m.applied_port.cat.codes.astype(int)   # -1 where not applied
    m["delay_s"] = m.applied_s - m.time_s
    m["port"] = m.port.astype(str)
    m["applied_port"] = m.applied_port.astype(str)
    return m
