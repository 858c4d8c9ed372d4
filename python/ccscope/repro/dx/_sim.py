"""Shared plotting / note text for the DX packet-simulation entries (Y0, see `_y0`)."""
from __future__ import annotations

CAUSE_STABLE = (
    "Outside the special state ccscope's DX (exact per-ACK queueing delay, known R0, one update per RTT, "
    "ALGORITHMS.md §6.1) drains the queue to zero in every cycle at every R0, N and C tried: the fraction of "
    "decreasing updates is 0.69-0.88 (paper Table 1: 0.8-0.99) and utilization sits at 94-98 % without the "
    "paper's degradation with R0 or C (89.1 % at 320 us, 86.4 % at 40 Gb/s). The paper's ns-3 DX measures Q "
    "with unstated noise / averaging (dx-10: not given), which is what makes the larger-delay cases unstable "
    "there; the Bode bound of Theorem 1 (fluid, p = 0.95 constant) is reproduced exactly (dx/fig1*, "
    "text-stability-thresholds), the special state of Theorem 2 is reproduced exactly here.")
