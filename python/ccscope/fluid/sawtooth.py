"""The 'Sawtooth' steady-state model of the original DCTCP paper ([1] of P000), the Fig 3 baseline.

N synchronized flows, alpha held constant at sqrt(2/W*) with W* = (Cd + K)/N; the queue peaks at
Qmax = K + N, drops by the amplitude A = 1/2 sqrt(2N(Cd + K)) once per cycle and climbs back by N
packets per RTT, so the cycle lasts D = A/N RTTs. P000 §2.3 "Comparison with the Sawtooth model";
ALGORITHMS.md §2.5, FIGURES.md dctcp-analysis/fig3 (alpha = 0.164, Qmin = 54.8 for N = 2, g = 0.4).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ccscope.fluid.base import PACKET_BYTES_DEFAULT, check_positive, pkts_per_s

#: Samples per sawtooth cycle in the generated trace.
SAMPLES_PER_CYCLE = 200


@dataclass
class SawtoothResult:
    """alpha, q_max_pkts, amplitude_pkts, q_min_pkts, period_s (= D RTTs with RTT = d + K/C), traces."""

    alpha: float
    q_max_pkts: float
    amplitude_pkts: float
    q_min_pkts: float
    period_s: float
    traces: pd.DataFrame
    success: bool = True
    message: str = "ok"


def sawtooth(n: int, rate_bps: float, rtt_s: float, k_pkts: float, *, until_s: float = 0.01,
             packet_bytes: float = PACKET_BYTES_DEFAULT) -> SawtoothResult:
    """Closed-form Sawtooth model and a queue trace (time_s, queue_pkts) over `until_s`."""
    n = check_positive("n", n)
    c = pkts_per_s(check_positive("rate_bps", rate_bps), check_positive("packet_bytes", packet_bytes))
    d = check_positive("rtt_s", rtt_s)
    k = check_positive("k_pkts", k_pkts, allow_zero=True)
    check_positive("until_s", until_s)
    w_star = (c * d + k) / n
    alpha = math.sqrt(2 / w_star)
    amp = 0.5 * math.sqrt(2 * n * (c * d + k))
    rtt = d + k / c
    period = amp / n * rtt
    t = np.linspace(0.0, until_s, max(2, int(SAMPLES_PER_CYCLE * until_s / period)))
    q = (k + n - amp) + amp * np.mod(t, period) / period
    return SawtoothResult(alpha=alpha, q_max_pkts=k + n, amplitude_pkts=amp, q_min_pkts=k + n - amp, period_s=period,
                          traces=pd.DataFrame({"time_s": t, "queue_pkts": q}))
