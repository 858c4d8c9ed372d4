"""DCTCP parameter guidelines, P000 eqs 1-2 (derived in §3.3 eq 17, §3.3 eq 18, §4.2 eq 27).

K ≈ 0.17 C d (from K > |Qmin| C R* with the worst undershoot |Qmin| ≈ 0.15 of Fig 7, i.e.
K/(Cd) > |Qmin|/(1 - |Qmin|) = 0.176; the paper rounds to 0.17) and 5/(Cd + K) ≲ g ≲ 1/sqrt(Cd + K).
Worked example (P000 §1): 10 Gb/s, 300 µs, 1500 B -> Cd = 250, K = 42.5, g in [0.0171, 0.0585].
ALGORITHMS.md §2.8, FIGURES.md dctcp-analysis/text-guidelines.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ccscope.fluid.base import (
    PACKET_BYTES_DEFAULT,
    check_positive,
    check_range,
    pkts_per_s,
)

#: K/(C d) of eq 1 as printed by P000 (rounded from 0.15/0.85 = 0.176).
K_FRACTION_OF_BDP = 0.17
#: Worst normalized undershoot quoted by P000 §3.3 (Fig 7, small g).
QMIN_PAPER = 0.15
#: Numerator of the lower g limit, eq 2 / eq 27: g >~ 5/(Cd + K).
G_LOWER_NUMERATOR = 5.0


@dataclass
class DctcpGuidelines:
    """bdp_pkts = C d; k_pkts; g_min, g_max; w_max_pkts = Cd + K; reasoning: the derivation, line by line."""

    bdp_pkts: float
    k_pkts: float
    g_min: float
    g_max: float
    w_max_pkts: float
    reasoning: list[str] = field(default_factory=list)


def k_fraction_from_qmin(q_min_norm: float) -> float:
    """K/(Cd) needed for 100% throughput given the worst normalized undershoot |Qmin| (eq 17)."""
    q = abs(check_range("q_min_norm", q_min_norm, -1.0, 1.0, lo_open=True, hi_open=True))
    return q / (1.0 - q)


def dctcp_guidelines(rate_bps: float, rtt_s: float, *, packet_bytes: float = PACKET_BYTES_DEFAULT,
                     k_fraction: float = K_FRACTION_OF_BDP) -> DctcpGuidelines:
    """K and the g range for a bottleneck of `rate_bps` and propagation RTT `rtt_s`."""
    c = pkts_per_s(check_positive("rate_bps", rate_bps), check_positive("packet_bytes", packet_bytes))
    d = check_positive("rtt_s", rtt_s)
    frac = check_positive("k_fraction", k_fraction)
    bdp = c * d
    k = frac * bdp
    w_max = bdp + k
    g_min, g_max = G_LOWER_NUMERATOR / w_max, w_max ** -0.5
    why = [
        f"C = {c:,.0f} pkts/s ({packet_bytes:g}-B packets), d = {d * 1e6:g} us -> C*d = {bdp:.2f} pkts",
        (f"K > |Qmin| C R* with R* = d + K/C and worst undershoot |Qmin| ~ {QMIN_PAPER} (Fig 7) "
        f"-> K/(Cd) > {QMIN_PAPER}/(1-{QMIN_PAPER}) = {k_fraction_from_qmin(-QMIN_PAPER):.3f}; paper's eq 1: K ~ {frac:g} C d"),
        f"K = {frac:g} x {bdp:.2f} = {k:.2f} pkts",
        f"upper g (eq 18): the alpha filter must be slower than the orbit, worst at N = 1: g < 1/sqrt(Cd+K) = {g_max:.4f}",
        f"lower g (eq 27): alpha must not limit convergence: g > 5/(Cd+K) = {g_min:.4f}",
    ]
    if g_min > g_max:
        why.append(f"note: Cd + K = {w_max:.1f} < 25, so the two g limits cross; pick g near {g_max:.3f}")
    return DctcpGuidelines(bdp_pkts=bdp, k_pkts=k, g_min=g_min, g_max=g_max, w_max_pkts=w_max, reasoning=why)
