"""Shared by the DCQCN tests (test_rdma.py, test_py_rate_equivalence.py, test_red_dequeue.py): DCQCN sources
over one 40 Gb/s bottleneck of a dumbbell (40 Gb/s access links, 8 us RTT, a 10,000-packet buffer) marked by RED;
by default the RDMA test's pair: two 20 MB messages, lossless under PFC."""
from __future__ import annotations

from pathlib import Path

import tomli_w

#: the congestion point: RED on the instantaneous queue (w_q = 1), Kmin 5 and Kmax 200 packets, Pmax 1%
RED = {"kind": "red", "min_th_pkts": 5, "max_th_pkts": 200, "max_p": 0.01, "w_q": 1.0}
#: PFC thresholds far above the pair's queue: no frame is lost
PFC = {"xoff_bytes": 1_000_000, "xon_bytes": 900_000}


def dcqcn_dumbbell(*, until_s: float, traces: list[str], flow_interval_s: float, n: int = 2, cc: str = "dcqcn",
                   aqm: dict = RED, pfc: dict | None = PFC, size_bytes: int | None = 20_000_000,
                   name: str = "dcqcn pair", **tables: dict) -> dict:
    """The scenario as a dict: `n` flows of controller `cc` from s0..s{n-1} (messages of `size_bytes`, None: no
    end), the bottleneck's `aqm`, `pfc` (None: none), and `tables` as further top-level tables (`dcqcn`, `rdma`)."""
    flows: dict = {"count": n, "cc": cc}
    if size_bytes is not None:
        flows["size_bytes"] = size_bytes
    d = {"name": name, "seed": 1, "until_s": until_s, "packet_bytes": 1000, "ack_bytes": 64,
         "topology": {"kind": "dumbbell", "senders": n, "bottleneck_bps": 40e9, "access_bps": 40e9,
                      "rtt_s": 8e-6, "buffer_pkts": 10000},
         "aqm": dict(aqm)}
    if pfc is not None:
        d["pfc"] = dict(pfc)
    d.update(tables)
    d["flows"] = flows
    d["record"] = {"traces": list(traces), "flow_interval_s": flow_interval_s}
    return d


def write_toml(path: Path, scenario: dict) -> Path:
    """`scenario` written to `path` as a TOML scenario file."""
    path.write_text(tomli_w.dumps(scenario))
    return path
