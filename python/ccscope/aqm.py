"""Queue-policy builders: `ccscope.aqm.threshold(k_pkts=65)`, `red(...)`, `drop_tail()`.

Each returns a dataclass that serializes to the scenario's `aqm` table (field names and
units as in the Rust schema; see docs/scenario.md)."""
from __future__ import annotations

from typing import Literal, Optional

from ccscope.scenario.model import AsmCp, Choke, Codel, DropTail, Fq, FqCodel, Pie, QcnCp, Red, Threshold, ThresholdDequeue

__all__ = ["AsmCp", "QcnCp", "asm", "qcn", "Choke", "Codel", "FqCodel", "DropTail", "Pie", "Threshold", "Red", "choke",
           "codel", "fq_codel", "drop_tail", "pie", "threshold", "red", "red_replay", "ThresholdDequeue",
           "threshold_dequeue", "Fq", "fq"]


def drop_tail() -> DropTail:
    """Accept until the port's buffer is full, then tail-drop."""
    return DropTail()


def threshold(*, k_pkts: Optional[float] = None, k_bytes: Optional[float] = None, mark_at_or_above: bool = False) -> Threshold:
    """DCTCP marking: CE-mark when the instantaneous queue exceeds K (packets or bytes)."""
    return Threshold(k_pkts=k_pkts, k_bytes=k_bytes, mark_at_or_above=mark_at_or_above)


def threshold_dequeue(*, k_pkts: Optional[float] = None, k_bytes: Optional[float] = None,
                      mark_at_or_above: bool = False) -> ThresholdDequeue:
    """DCTCP marking at dequeue (htsim's ECNQueue): CE-mark a packet when the queue it leaves behind
    exceeds K (packets or bytes). Puts the port on the general path (docs/engine.md)."""
    return ThresholdDequeue(k_pkts=k_pkts, k_bytes=k_bytes, mark_at_or_above=mark_at_or_above)


def red(*, min_th_pkts: float, max_th_pkts: float, max_p: float = 0.1, w_q: float = 0.002, gentle: bool = False,
        action: Literal["mark", "drop"] = "mark", byte_mode: bool = False, ns2_wait: bool = False,
        ns2_drop_ecn_above_p: Optional[float] = None, ns2_small_queue: bool = False,
        ns2_idle_truncate: bool = False, independent_marks: bool = False,
        mark_at: Literal["enqueue", "dequeue"] = "enqueue") -> Red:
    """Random Early Detection (Floyd & Jacobson), marking or dropping. ns-2's RED is
    `ns2_wait=True, ns2_small_queue=True, ns2_idle_truncate=True` (plus `ns2_drop_ecn_above_p=0.1` when marking and
    `gentle=True`, its defaults). DCQCN's congestion point is `w_q=1, independent_marks=True, mark_at="dequeue"`
    (each packet marked with p(q) of the queue it leaves behind, as the authors' ns-3 does)."""
    return Red(min_th_pkts=min_th_pkts, max_th_pkts=max_th_pkts, max_p=max_p, w_q=w_q, gentle=gentle, action=action,
               byte_mode=byte_mode, ns2_wait=ns2_wait, ns2_drop_ecn_above_p=ns2_drop_ecn_above_p,
               ns2_small_queue=ns2_small_queue, ns2_idle_truncate=ns2_idle_truncate,
               independent_marks=independent_marks, mark_at=mark_at)


def choke(*, min_th_pkts: float, max_th_pkts: float, max_p: float = 0.1, w_q: float = 0.002, samples: int = 1) -> Choke:
    """CHOKe (samples = 1) or the coexistence paper's modified CHOKe (samples = m), with ECN."""
    return Choke(min_th_pkts=min_th_pkts, max_th_pkts=max_th_pkts, max_p=max_p, w_q=w_q, samples=samples)


def codel(*, target_s: float = 0.005, interval_s: float = 0.1, ecn: bool = False) -> Codel:
    """CoDel (RFC 8289): at dequeue, drop (or CE-mark, ecn=True) once the sojourn time has stayed
    above target_s for interval_s, then at interval_s / sqrt(count). Puts the port on the general
    path (docs/engine.md)."""
    return Codel(target_s=target_s, interval_s=interval_s, ecn=ecn)


def pie(*, target_s: float = 0.015, t_update_s: float = 0.015, alpha: float = 0.125, beta: float = 1.25,
        max_burst_s: float = 0.15, ecn: bool = False, ecn_max_p: float = 0.1, derandomize: bool = False) -> Pie:
    """PIE (RFC 8033): at enqueue, drop (or CE-mark, ecn=True, while the probability is below
    ecn_max_p) with a probability that a PI controller updates every t_update_s from the
    queueing delay, steering it to target_s; bursts pass for max_burst_s after a calm period.
    Alpha and beta are in 1/s (RFC 8033 Appendix A defaults)."""
    return Pie(target_s=target_s, t_update_s=t_update_s, alpha=alpha, beta=beta, max_burst_s=max_burst_s, ecn=ecn,
               ecn_max_p=ecn_max_p, derandomize=derandomize)


def fq_codel(*, flows: int = 1024, quantum_bytes: Optional[int] = None, target_s: float = 0.005,
             interval_s: float = 0.1, ecn: bool = False, drop_batch: int = 64) -> FqCodel:
    """FQ-CoDel (RFC 8290): packets hashed into `flows` queues served by DRR (quantum one packet by
    default), a newly active queue first, each queue judged by CoDel; an overflow drops from the
    head of the fattest queue. Puts the port on the general path (docs/engine.md)."""
    return FqCodel(flows=flows, quantum_bytes=quantum_bytes, target_s=target_s, interval_s=interval_s, ecn=ecn,
                   drop_batch=drop_batch)


def fq(*, quantum_bytes: Optional[int] = None) -> Fq:
    """Per-flow fair queueing: one queue per flow (its id; data and ACKs apart) served by deficit
    round robin with a quantum of one packet by default, no AQM; an overflow drops one packet from
    the fattest flow. Meant for host NIC ports (`topology.host_aqm`); puts the port on the general
    path (docs/engine.md)."""
    return Fq(quantum_bytes=quantum_bytes)


def qcn(**kw) -> QcnCp:
    """IEEE 802.1Qau QCN congestion point (fields of `QcnCp`: q_eq_bytes, w, sampling_p, ...)."""
    return QcnCp(**kw)


def asm(**kw) -> AsmCp:
    """ASM congestion point (fields of `AsmCp`: q0_pkts, sampling_p, quantum_pkts, dedup, ...)."""
    return AsmCp(**kw)


def red_replay(aqm: "Red | dict", *, time_s, q_pkts, q_bytes=None, empty_since_s=None, size_bytes=None, ect=None,
               packet_bytes: int = 1000, rate_bps: float, seed: int = 1, port_name: str = "replay"):
    """Feed a synthetic queue trace to the engine's RED (the code a port runs) and return, per
    arrival, a DataFrame with the queue seen, `avg`, `p_b`, `p_a`, `count` and `verdict`
    ("enqueue" / "mark" / "drop"; a mark on a non-ECT packet is a drop, as at a port).

    time_s: arrival times (non-decreasing);  q_pkts / q_bytes: the queue just before each arrival
    (q_bytes defaults to q_pkts * packet_bytes);  empty_since_s: when the queue went empty, NaN
    while it is not (idle-time decay of the average; default: NaN except where q_pkts is 0 and
    then the previous arrival's time);  size_bytes: default packet_bytes;  ect: default False.
    The random draws come from the stream a port named `port_name` would use under `seed`.
    """
    import json

    import numpy as np
    import pandas as pd

    from ccscope import _native
    from ccscope.scenario.model import _clean

    spec = _clean(aqm) if not isinstance(aqm, dict) else dict(aqm)
    spec.setdefault("kind", "red")
    t = np.asarray(time_s, dtype=float)
    n = len(t)

    def col(name, v, default, dtype):
        if v is None:
            return np.full(n, default, dtype=dtype)
        raw = np.asarray(v)
        if raw.shape != (n,):
            got = f"{raw.size} values" if raw.ndim == 1 else f"shape {raw.shape}"
            raise ValueError(f"{name}: {got} for {n} arrivals: give one value per arrival (like time_s)")
        if dtype is np.int64 and raw.dtype.kind not in "iub":
            # integer counts: np.asarray(..., int64) would truncate 1.5 to 1 without a word
            f = np.asarray(raw, dtype=float)
            bad = np.flatnonzero(~np.isfinite(f) | (f != np.round(f)))
            if len(bad):
                i = int(bad[0])
                raise ValueError(f"{name}[{i}] = {f[i]:g}: {name} must hold integers ({len(bad)} non-integer value(s))")
            return f.astype(np.int64)
        return np.asarray(raw, dtype=dtype)
    qp = col("q_pkts", q_pkts, 0, np.int64)
    if (qp < 0).any() or (qp > 2**32 - 1).any():
        raise ValueError("q_pkts: queue lengths must be integers in [0, 2^32)")
    qb = qp * packet_bytes if q_bytes is None else col("q_bytes", q_bytes, 0, np.int64)
    if empty_since_s is None:
        es = np.full(n, np.nan)
        idle = np.flatnonzero(qp == 0)
        es[idle] = np.where(idle > 0, t[np.maximum(idle - 1, 0)], t[idle])
    else:
        es = col("empty_since_s", empty_since_s, np.nan, float)
    sz = col("size_bytes", size_bytes, packet_bytes, np.int64)
    e = col("ect", ect, False, bool)
    out = _native.red_replay(json.dumps(spec), int(packet_bytes), float(rate_bps), t.tolist(),
                             qp.astype(np.uint32).tolist(), qb.astype(np.uint64).tolist(), es.tolist(),
                             sz.astype(np.uint32).tolist(), e.tolist(), int(seed), str(port_name))
    df = pd.DataFrame({"time_s": t, "q_pkts": qp, **out})
    df["verdict"] = pd.Categorical.from_codes(df["verdict"].astype(np.int64), categories=["enqueue", "mark", "drop"])
    return df
