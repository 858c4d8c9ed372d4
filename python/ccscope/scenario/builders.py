"""Topology builders: `dumbbell(...)` returns a `Scenario` using the dumbbell template."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ccscope.errors import ScenarioError, shown
from ccscope.scenario.model import (AqmConfig, DctcpConfig, DropTail, Dumbbell, DxConfig, FlowsTemplate, Incast,
                                    RecordConfig, Scenario, TcpConfig)


def dumbbell(senders: int, *, cc: str = "new_reno", bottleneck_bps: float, rtt_s: Optional[float] = None,
             rtt_per_sender_s: Optional[Sequence[float]] = None, flows: Optional[int] = None,
             access_bps: Optional[float] = None, receivers: int = 1, bottleneck_delay_s: float = 0.0,
             buffer_pkts: Optional[int] = None, buffer_bytes: Optional[int] = None, aqm: Optional[AqmConfig] = None,
             start_s: float = 0.0, start_jitter_s: float = 0.0, size_bytes: Optional[int] = None, seed: int = 1,
             packet_bytes: int = 1500, tcp: Optional[TcpConfig] = None, dctcp: Optional[DctcpConfig] = None,
             record: Optional[RecordConfig] = None, name: str = "dumbbell", dx: Optional[DxConfig] = None) -> Scenario:
    """N senders -> switch -> receiver(s) with a shared bottleneck.

    `senders` hosts each run one flow unless `flows` says otherwise (flow k starts at sender
    k mod senders). Give `rtt_s` (same propagation RTT for all) or `rtt_per_sender_s`.
    """
    _count_arg("senders", senders, 1)
    if flows is not None:
        _count_arg("flows", flows, 1)
    _count_arg("receivers", receivers, 1)
    if rtt_per_sender_s is not None and (isinstance(rtt_per_sender_s, (str, bytes, dict))
                                         or not isinstance(rtt_per_sender_s, Sequence)):
        raise ScenarioError(f"rtt_per_sender_s = {shown(rtt_per_sender_s)}: must be a list of RTTs in seconds, "
                            "one per sender")
    n_flows = senders if flows is None else flows
    topo = Dumbbell(bottleneck_bps=bottleneck_bps, senders=senders, receivers=receivers, access_bps=access_bps,
                    rtt_s=rtt_s, rtt_per_sender_s=list(rtt_per_sender_s) if rtt_per_sender_s is not None else None,
                    bottleneck_delay_s=bottleneck_delay_s, buffer_pkts=buffer_pkts, buffer_bytes=buffer_bytes)
    return Scenario(topology=topo, name=name, seed=seed, packet_bytes=packet_bytes, aqm=aqm or DropTail(),
                    tcp=tcp or TcpConfig(), dctcp=dctcp or DctcpConfig(), dx=dx or DxConfig(), record=record or RecordConfig(),
                    flows=FlowsTemplate(count=n_flows, cc=cc, start_s=start_s, start_jitter_s=start_jitter_s,
                                        size_bytes=size_bytes))


def incast(senders: int = 40, *, total_bytes: Optional[int] = None, block_bytes: Optional[int] = None,
           rounds: int = 1, gap_s: float = 0.0, start_s: float = 0.0, cc: "str | Sequence[str]" = "dctcp",
           bottleneck_bps: float = 10e9, access_bps: Optional[float] = None, rtt_s: float = 100e-6,
           buffer_pkts: Optional[int] = None, buffer_bytes: Optional[int] = None, aqm: Optional[AqmConfig] = None,
           min_rto_s: Optional[float] = None, until_s: float = 1.0, seed: int = 1, packet_bytes: int = 1500,
           tcp: Optional[TcpConfig] = None, dctcp: Optional[DctcpConfig] = None, record: Optional[RecordConfig] = None,
           name: str = "incast") -> Scenario:
    """Incast (partition/aggregate) on a dumbbell: `senders` workers s0 .. s{senders-1} each answer
    the client r0 with a block, all at the same instant, `rounds` times (the next round starts
    `gap_s` after the last response of the previous one completes). The bottleneck is the
    switch port sw->r0.

    Give `total_bytes` (split evenly over the senders; P003 Fig 7 uses 1 MB) or `block_bytes`
    (per sender); neither gives total_bytes = 1 MB. `cc` is one algorithm or a list assigned to
    the senders in turn (["dctcp", "new_reno"] alternates). `min_rto_s` sets tcp.min_rto_s (a
    datacenter incast usually uses 10 ms, not RFC 6298's 200 ms). `aqm` is the bottleneck's (default
    drop-tail; DCTCP needs marking, e.g. `ccscope.aqm.threshold(k_pkts=20)`). The scenario has no long-lived
    flows: the run's summary reports flow and query completion times.

    >>> sc = incast(40, total_bytes=1_000_000, rounds=10, bottleneck_bps=1e9, min_rto_s=0.01)
    >>> sc.workload[0].servers[-1], sc.workload[0].client
    ('s39', 'r0')
    """
    _count_arg("senders", senders, 1)
    _int_arg("rounds", rounds, 1, MAX_U32)
    for n, v in (("total_bytes", total_bytes), ("block_bytes", block_bytes)):
        if v is not None:
            _int_arg(n, v, 1, MAX_U64)
    if total_bytes is not None and block_bytes is not None:
        raise ScenarioError(f"total_bytes = {total_bytes!r}, block_bytes = {block_bytes!r}: give one of them, not both")
    if total_bytes is None and block_bytes is None:
        total_bytes = 1_000_000
    if total_bytes is not None and total_bytes < senders:
        raise ScenarioError(f"total_bytes = {total_bytes!r}: must be >= senders ({senders}), at least a byte each")
    ccs = [cc] if isinstance(cc, str) else list(cc) if isinstance(cc, Sequence) else None
    if not ccs or not all(isinstance(c, str) for c in ccs):
        raise ScenarioError(f"cc = {shown(cc)}: must be an algorithm name such as 'dctcp' or a non-empty list of them")
    for n, v in (("gap_s", gap_s), ("start_s", start_s), ("rtt_s", rtt_s), ("bottleneck_bps", bottleneck_bps),
                 ("until_s", until_s)):
        _num_arg(n, v)
    _num_arg("min_rto_s", min_rto_s, optional=True)
    _aqm_arg(aqm)
    sc = dumbbell(senders, bottleneck_bps=bottleneck_bps, rtt_s=rtt_s, access_bps=access_bps,
                  buffer_pkts=buffer_pkts, buffer_bytes=buffer_bytes, aqm=aqm, seed=seed, packet_bytes=packet_bytes,
                  tcp=tcp, dctcp=dctcp, record=record, name=name)
    sc.flows = None
    sc.until_s = float(until_s)
    if min_rto_s is not None:
        sc.tcp.min_rto_s = float(min_rto_s)
    sc.workload = [Incast(client="r0", servers=f"s0..s{senders - 1}", block_bytes=block_bytes,
                          total_bytes=total_bytes, rounds=rounds, gap_s=float(gap_s), start_s=float(start_s),
                          cc=ccs)]
    return sc


#: The engine's maxima (crates/ccscope-core/src/scenario/mod.rs): the most flows or hosts a scenario
#: may create (MAX_TEMPLATE_COUNT), and the range of its u32 / u64 fields. A builder refuses
#: arguments beyond them before it allocates anything (a count of 2**31 used to build lists until
#: memory ran out).
MAX_TEMPLATE_COUNT = 1_000_000
MAX_U32 = 2**32 - 1
MAX_U64 = 2**64 - 1


def _int_arg(name: str, v: Any, lo: int, hi: Optional[int] = None, *, what: str = "") -> int:
    """An integer argument of a builder in [lo, hi], or a ScenarioError naming it, its value and
    the range allowed (`what` says where the upper bound comes from)."""
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        allowed = f"an integer >= {lo}" if hi is None else f"an integer in [{lo}, {hi}]"
        raise ScenarioError(f"{name} = {shown(v)}: must be {allowed}{what}")
    return v


def _count_arg(name: str, v: Any, lo: int) -> int:
    """A count of hosts or flows: at most the engine's MAX_TEMPLATE_COUNT."""
    return _int_arg(name, v, lo, MAX_TEMPLATE_COUNT,
                    what=f" (a scenario has at most {MAX_TEMPLATE_COUNT} hosts and at most {MAX_TEMPLATE_COUNT} flows)")


def _total(kind: str, n: int, args: str, formula: str) -> None:
    """Refuse a topology whose total of `kind` (nodes or flows), from several arguments, is beyond
    MAX_TEMPLATE_COUNT."""
    if n > MAX_TEMPLATE_COUNT:
        raise ScenarioError(f"{args}: would make {n} {kind} ({formula}); a scenario may have at most "
                            f"{MAX_TEMPLATE_COUNT}")


def _aqm_arg(aqm: Any) -> None:
    """`aqm=` of a builder: None, an AQM config object, or a table with a string `kind`."""
    if aqm is not None and not (isinstance(aqm, AqmConfig.__args__) or
                                (isinstance(aqm, dict) and isinstance(aqm.get("kind"), str))):
        raise ScenarioError(f"aqm = {shown(aqm)}: must be an AQM config (ccscope.aqm.drop_tail(), threshold(...), "
                            "red(...), choke(...), qcn(...), asm(...)) or a table with a string `kind`")


def _num_arg(name: str, v: Any, *, optional: bool = False) -> Optional[float]:
    """A finite number argument of a builder, or a ScenarioError naming it."""
    if v is None and optional:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf")):
        raise ScenarioError(f"{name} = {shown(v)}: must be a finite number")
    return float(v)


def _link(a: str, b: str, rate_bps: float, delay_s: float, buffer_pkts=None, aqm=None, duplex: bool = True) -> dict:
    d = {"from": a, "to": b, "rate_bps": float(rate_bps), "delay_s": float(delay_s), "duplex": duplex}
    if buffer_pkts is not None:
        d["buffer_pkts"] = int(buffer_pkts)
    if aqm is not None:
        d["aqm"] = _clean(aqm)
    return d


def _clean(obj):
    from ccscope.scenario.model import _clean as c
    return c(obj)


def parking_lot(hops: int, *, flows_per_group: int = 1, cc: str = "asm", rate_bps: float = 10e9,
                link_delay_s: float = 1e-6, buffer_pkts: int = 2000, aqm: Optional[AqmConfig] = None, seed: int = 1,
                long_flows: int = 1, packet_bytes: int = 1500, name: str = "parking_lot", **top) -> dict:
    """Multi-bottleneck parking lot (ASM paper Figs 11-12): switches sw0 .. sw{hops} in a chain;
    `long_flows` sources cross every hop (host L_i at sw0 to host R0 behind sw{hops}); at each
    hop k a group of `flows_per_group` cross-traffic sources enters at sw{k} and leaves at
    sw{k+1}. Every chain link is a bottleneck with the given AQM. Returns a plain scenario
    dict (graph form)."""
    _count_arg("hops", hops, 1)
    _count_arg("flows_per_group", flows_per_group, 0)
    _count_arg("long_flows", long_flows, 0)
    _int_arg("buffer_pkts", buffer_pkts, 1, MAX_U32)
    _num_arg("rate_bps", rate_bps)
    _num_arg("link_delay_s", link_delay_s)
    args = f"hops = {hops}, flows_per_group = {flows_per_group}, long_flows = {long_flows}"
    _total("flows", long_flows + hops * flows_per_group, args, "long_flows + hops * flows_per_group")
    _total("hosts", long_flows + hops * (1 + flows_per_group) + 1, args,
           "long_flows + hops * (flows_per_group + 1) + the receiver R0")
    _aqm_arg(aqm)
    nodes, links, flows = [], [], []
    for k in range(hops + 1):
        nodes.append({"name": f"sw{k}", "kind": "switch"})
    for k in range(hops):
        links.append(_link(f"sw{k}", f"sw{k + 1}", rate_bps, link_delay_s, buffer_pkts, aqm))
    nodes.append({"name": "R0", "kind": "host"})
    links.append(_link(f"sw{hops}", "R0", rate_bps, link_delay_s, buffer_pkts))
    for i in range(long_flows):
        nodes.append({"name": f"L{i}", "kind": "host"})
        links.append(_link(f"L{i}", "sw0", rate_bps, link_delay_s, buffer_pkts))
        flows.append({"src": f"L{i}", "dst": "R0", "cc": cc})
    for k in range(hops):
        sink = f"X{k}"
        nodes.append({"name": sink, "kind": "host"})
        links.append(_link(f"sw{k + 1}", sink, rate_bps, link_delay_s, buffer_pkts))
        for j in range(flows_per_group):
            h = f"C{k}_{j}"
            nodes.append({"name": h, "kind": "host"})
            links.append(_link(h, f"sw{k}", rate_bps, link_delay_s, buffer_pkts))
            flows.append({"src": h, "dst": sink, "cc": cc})
    sc = {"name": name, "seed": seed, "packet_bytes": packet_bytes,
          "topology": {"kind": "graph", "nodes": nodes, "links": links}, "flow": flows,
          "record": {"ports": [f"sw{k}->sw{k + 1}" for k in range(hops)]}}
    if aqm is not None:
        sc["aqm"] = _clean(aqm)
    sc.update(top)
    return sc


def periodic(clients: int = 50, *, rtt: str = "fixed", client_delay_s: float = 0.020, server_delay_s: float = 0.650,
             bottleneck_bps: float = 1.5e6, fast_bps: float = 100e6, buffer_pkts: int = 50, aqm: Optional[AqmConfig] = None,
             start_spread_s: float = 300.0, rwnd_pkts: int = 20, seed: int = 1, packet_bytes: int = 1000,
             min_rto_s: float = 0.2, initial_rto_s: float = 1.0, cc: str = "reno", rtt_sampling: str = "once_per_rtt",
             name: str = "periodic") -> dict:
    """The periodic-behaviour paper's topology (P001 Fig 3, E20): server S -> M1 -> M2 ==
    bottleneck (1.5 Mb/s) == M3 -> clients D_i, one TCP download per client (`cc`, default
    "reno": P001 used ns-2's Reno, whose recovery ends at the first new ACK).
    One-way server side delay 650 ms on S-M1 [CHOICE E20]; client access delay 20 ms each
    (rtt = "fixed", RTT 1340 ms) or U(0, 1 s) per client (rtt = "variable", mean RTT 2300 ms).
    Ingress link M1->M2 and egress (bottleneck) link M2->M3 are both recorded. Flows start
    uniformly in [0, start_spread_s]. Packets are 1000 B and rwnd is 20 packets (P001 §II.C).
    `buffer_pkts` is the bottleneck buffer as P001 gives it, ns-2's `queue-limit`. With DropTail
    (aqm None or drop_tail) ns-2 counts the packet on the wire against that limit: its DropTail
    drops an arrival when the waiting queue + 1 reaches the limit (queue/drop-tail.cc; measured with
    ns-2.35, limit 50: at most 49 packets wait while one is sent), so the port here, whose limit
    counts waiting packets only, gets buffer_pkts - 1. ns-2's RED checks its limit against the
    waiting queue alone (queue/red.cc), so a RED port keeps buffer_pkts.
    RTO estimation times one segment per RTT (`rtt_sampling`, default "once_per_rtt": ns-2's TCP
    without timestamps, as FIGURES.md's "Reno as in ns-2"; per-ACK samples with RFC 6298's gains
    collapse rttvar on these slow links and fire spurious timeouts when the queue rises).
    Returns a plain scenario dict (graph form)."""
    import numpy as np
    if rtt not in ("fixed", "variable"):
        raise ScenarioError(f"rtt = {shown(rtt)}: must be 'fixed' or 'variable'")
    _count_arg("clients", clients, 1)
    _total("hosts", clients + 1, f"clients = {clients}", "clients + the server S")
    _int_arg("buffer_pkts", buffer_pkts, 1, MAX_U32)
    _int_arg("seed", seed, 0, MAX_U64)
    _aqm_arg(aqm)
    for name, v in (("client_delay_s", client_delay_s), ("server_delay_s", server_delay_s),
                    ("bottleneck_bps", bottleneck_bps), ("fast_bps", fast_bps), ("start_spread_s", start_spread_s)):
        _num_arg(name, v)
    if not start_spread_s >= 0:  # flow starts are drawn in [0, start_spread_s]
        raise ScenarioError(f"start_spread_s = {shown(start_spread_s)}: must be a number of seconds >= 0")
    start_spread_s = float(start_spread_s) + 0.0  # -0.0 -> 0.0 (numpy refuses the range [0, -0.0])
    rng = np.random.default_rng(seed)
    nodes = [{"name": n, "kind": k} for n, k in (("S", "host"), ("M1", "switch"), ("M2", "switch"), ("M3", "switch"))]
    aqm_kind = _clean(aqm).get("kind") if aqm is not None else "drop_tail"
    if aqm_kind == "drop_tail" and buffer_pkts < 2:
        raise ScenarioError(f"buffer_pkts = {buffer_pkts!r}: a DropTail bottleneck needs >= 2 (one is the packet on the wire)")
    bottleneck_buf = buffer_pkts - 1 if aqm_kind == "drop_tail" else buffer_pkts
    links = [_link("S", "M1", fast_bps, server_delay_s, buffer_pkts),
             _link("M1", "M2", fast_bps, 0.0, buffer_pkts),
             _link("M2", "M3", bottleneck_bps, 0.0, bottleneck_buf, aqm)]
    delays = np.full(clients, client_delay_s) if rtt == "fixed" else rng.uniform(0.0, 1.0, clients)
    starts = rng.uniform(0.0, start_spread_s, clients)
    flows = []
    for i in range(clients):
        nodes.append({"name": f"D{i}", "kind": "host"})
        links.append(_link("M3", f"D{i}", fast_bps, float(delays[i]), buffer_pkts))
        flows.append({"src": "S", "dst": f"D{i}", "cc": cc, "start_s": float(starts[i])})
    sc = {"name": name, "seed": seed, "packet_bytes": packet_bytes,
          "topology": {"kind": "graph", "nodes": nodes, "links": links}, "flow": flows,
          # initial RTO: RFC 6298's 1 s, below the 1.34-2.3 s base RTTs, so each connection's first
          # segment times out once and the connection restarts in congestion avoidance from
          # ssthresh = 2 pkts. ns-2's rtxcur_init_ (3 s; 6 s before 2006) exceeds these RTTs, so
          # its connections slow-start to rwnd instead (initial_rto_s = 3 gives that); P001 does
          # not say which it used (E27).
          "tcp": {"rwnd_pkts": rwnd_pkts, "min_rto_s": min_rto_s, "initial_rto_s": initial_rto_s,
                  "rtt_sampling": rtt_sampling},
          "record": {"ports": ["M2->M3", "M1->M2"], "queue_interval_s": 0.01, "flow_interval_s": 0.1}}
    if aqm is not None:
        sc["aqm"] = _clean(aqm)
    return sc
