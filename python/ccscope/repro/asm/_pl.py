"""Parking-lot setup of `asm/fig11` / `asm/fig12`: switches sw0-sw1-sw2 with L1 = sw0->sw1 and
L2 = sw1->sw2 as candidate bottlenecks, all links 1 Gb/s with 2 µs delay, buffer 128 KB (87 pkts), ASM
congestion points on L1 and L2 (q0 = 64 pkts, A0 parameters, ASM rate floor 10 Mb/s). Built with
`cc.scenario.parking_lot(2, flows_per_group=2)`: F1 = L0 (crosses L1 and L2), F2, F4 = C0_0, C0_1 (L1 only), F3, F5 = C1_0, C1_1 (L2 only).
"""
from __future__ import annotations

from collections import deque

import ccscope as cc
from ccscope.repro.asm import _a0

NAMES = {"L0": "F1", "C0_0": "F2", "C0_1": "F4", "C1_0": "F3", "C1_1": "F5"}
LINKS = {"L1": ("sw0", "sw1"), "L2": ("sw1", "sw2")}


def graph(q0_pkts: float = 64, seed: int = 1, **cp) -> dict:
    """The parking lot; `cp` are extra ASM congestion-point fields (e.g. dedup_expiry) for diagnostics."""
    return cc.scenario.parking_lot(2, flows_per_group=2, cc="asm", aqm=cc.aqm.asm(q0_pkts=q0_pkts, **cp), rate_bps=1e9,
                                   link_delay_s=2e-6, buffer_pkts=87, seed=seed,
                                   asm_rp={"min_rate_bps": _a0.MIN_RATE_BPS})


def route(g: dict, src: str, dst: str) -> list[str]:
    """Shortest path by BFS over the (duplex) links of the graph dict."""
    adj: dict[str, list[str]] = {}
    for lk in g["topology"]["links"]:
        adj.setdefault(lk["from"], []).append(lk["to"])
        if lk.get("duplex", True):
            adj.setdefault(lk["to"], []).append(lk["from"])
    prev, dq = {src: None}, deque([src])
    while dq:
        u = dq.popleft()
        for v in adj.get(u, []):
            if v not in prev:
                prev[v] = u
                dq.append(v)
    path, u = [], dst
    while u is not None:
        path.append(u)
        u = prev[u]
    return path[::-1]


def links_of(path: list[str]) -> set[str]:
    hops = set(zip(path, path[1:]))
    return {name for name, hop in LINKS.items() if hop in hops}
