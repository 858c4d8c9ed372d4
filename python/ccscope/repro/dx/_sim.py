"""Shared plotting / note text for the DX packet-simulation entries (Y0, see `_y0`)."""
from __future__ import annotations

CAUSE_STABLE = (
    "Outside the special state (N < C R0/seg) ccscope's DX (exact per-ACK queueing delay, R0 known to the sender, "
    "one update per RTT, ALGORITHMS.md §6.1; dx.rs follows eqs 1-2 exactly) never settles at the fluid "
    "equilibrium. The sender transmits whole segments (floor(cwnd)) and the windows here are 1-7 seg, so every "
    "Q = 0 RTT adds a whole segment (eq 3's averaged growth is (1 - p) seg = 0.05 seg per RTT) and any Q > 0 takes "
    "a 2-seg window below 2: the loop is a quantized relay that drains the queue every cycle. From Y0's common "
    "start (W = 1 seg) the flows stay in lock-step: at N = 50, R0 = 120 us the sum of windows steps 50 -> 100 -> "
    "150 seg around the 100-seg BDP (queue 0 -> 50 pkts) and the link idles whenever all windows sit at 1 seg: "
    "86.4 % utilization (seeds 1-3: 86.2-86.5 %; paper 96.11 %), against 93.9 % at 80 us (BDP/N = 1.33) and "
    "95.8 % at 320 us (BDP/N = 5.3; sum of windows 217-316 seg around 267). Utilization thus follows how BDP/N "
    "falls between integers, not the Theorem 1 margin, so the paper's orderings (99.91 > 96.11 > 89.1 % in R0, "
    "99.86 > 96.11 > 86.44 % in C, 94.81 < 96.11 < 98.53 % in N) do not appear (ours: 100 / 86.4 / 95.8; 100 / "
    "86.4 / 97.1; 97.0 / 86.4 / 100). Table 1's p is 0.69-0.89 in every non-special cell (paper 0.74-0.98) and "
    "not monotone in N: a flow at 2 seg that sees Q > 0 drops below 2 and needs a Q = 0 RTT to come back, so "
    "increases stay frequent. The fluid model (eqs 3-4, p = 0.95, tau = R0) does not predict the paper's loss "
    "either: beyond the bound its oscillation is small (N = 50, R0 = 320 us: W within 5.34-5.44 seg, Q 0-8.4 us) "
    "and the link stays busy. The paper's ns-3 measurement of Q and its start-up are not given (dx-10), so the "
    "mechanism behind its 89.1 % / 86.44 % cannot be rebuilt; Theorem 1's bound (dx/fig1*, "
    "text-stability-thresholds) and Theorem 2's special state (fig2a, fig4a/b, fig5, fig6) reproduce exactly.")
