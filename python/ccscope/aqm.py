"""Queue-policy builders: `ccscope.aqm.threshold(k_pkts=65)`, `red(...)`, `drop_tail()`.

Each returns a dataclass that serializes to the scenario's `aqm` table (field names and
units as in the Rust schema; see docs/scenario.md)."""
from __future__ import annotations

from typing import Literal, Optional

from ccscope.scenario.model import AsmCp, Choke, DropTail, QcnCp, Red, Threshold

__all__ = ["AsmCp", "QcnCp", "asm", "qcn", "Choke", "DropTail", "Threshold", "Red", "choke", "drop_tail", "threshold", "red"]


def drop_tail() -> DropTail:
    """Accept until the port's buffer is full, then tail-drop."""
    return DropTail()


def threshold(*, k_pkts: Optional[float] = None, k_bytes: Optional[float] = None, mark_at_or_above: bool = False) -> Threshold:
    """DCTCP marking: CE-mark when the instantaneous queue exceeds K (packets or bytes)."""
    return Threshold(k_pkts=k_pkts, k_bytes=k_bytes, mark_at_or_above=mark_at_or_above)


def red(*, min_th_pkts: float, max_th_pkts: float, max_p: float = 0.1, w_q: float = 0.002, gentle: bool = False,
        action: Literal["mark", "drop"] = "mark", byte_mode: bool = False, ns2_wait: bool = False,
        ns2_drop_ecn_above_p: Optional[float] = None) -> Red:
    """Random Early Detection (Floyd & Jacobson), marking or dropping."""
    return Red(min_th_pkts=min_th_pkts, max_th_pkts=max_th_pkts, max_p=max_p, w_q=w_q, gentle=gentle, action=action,
               byte_mode=byte_mode, ns2_wait=ns2_wait, ns2_drop_ecn_above_p=ns2_drop_ecn_above_p)


def choke(*, min_th_pkts: float, max_th_pkts: float, max_p: float = 0.1, w_q: float = 0.002, samples: int = 1) -> Choke:
    """CHOKe (samples = 1) or the coexistence paper's modified CHOKe (samples = m), with ECN."""
    return Choke(min_th_pkts=min_th_pkts, max_th_pkts=max_th_pkts, max_p=max_p, w_q=w_q, samples=samples)


def qcn(**kw) -> QcnCp:
    """IEEE 802.1Qau QCN congestion point (fields of `QcnCp`: q_eq_bytes, w, sampling_p, ...)."""
    return QcnCp(**kw)


def asm(**kw) -> AsmCp:
    """ASM congestion point (fields of `AsmCp`: q0_pkts, sampling_p, quantum_pkts, dedup, ...)."""
    return AsmCp(**kw)
