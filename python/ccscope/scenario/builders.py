"""Topology builders: `dumbbell(...)` returns a `Scenario` using the dumbbell template."""
from __future__ import annotations

from typing import Optional, Sequence

from ccscope.scenario.model import (AqmConfig, DctcpConfig, DropTail, Dumbbell, DxConfig, FlowsTemplate,
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
    from ccscope.errors import ScenarioError
    for name, v in (("senders", senders), ("flows", flows)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise ScenarioError(f"{name} = {v!r}: must be an integer >= 1")
    if senders is None:
        raise ScenarioError("senders = None: must be an integer >= 1")
    n_flows = senders if flows is None else flows
    topo = Dumbbell(bottleneck_bps=bottleneck_bps, senders=senders, receivers=receivers, access_bps=access_bps,
                    rtt_s=rtt_s, rtt_per_sender_s=list(rtt_per_sender_s) if rtt_per_sender_s is not None else None,
                    bottleneck_delay_s=bottleneck_delay_s, buffer_pkts=buffer_pkts, buffer_bytes=buffer_bytes)
    return Scenario(topology=topo, name=name, seed=seed, packet_bytes=packet_bytes, aqm=aqm or DropTail(),
                    tcp=tcp or TcpConfig(), dctcp=dctcp or DctcpConfig(), dx=dx or DxConfig(), record=record or RecordConfig(),
                    flows=FlowsTemplate(count=n_flows, cc=cc, start_s=start_s, start_jitter_s=start_jitter_s,
                                        size_bytes=size_bytes))
