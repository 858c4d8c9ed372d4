"""Dataclasses mirroring the Rust scenario schema (crates/ccscope-core/src/scenario/).

They are plain data: validation happens once, in Rust, when a scenario is run, expanded or
validated. A test checks that every dataclass has exactly the fields of the Rust schema.
Units are in field names (`_s`, `_bps`, `_pkts`, `_bytes`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union


def _clean(obj: Any) -> Any:
    """Dataclass -> dict without None values (None means "use the default")."""
    if dataclasses.is_dataclass(obj):
        out = {}
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if v is None:
                continue
            out[f.name] = _clean(v)
        if hasattr(obj, "KIND"):
            out = {"kind": obj.KIND, **out}
        return out
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items() if v is not None}
    return obj


@dataclass
class DropTail:
    KIND = "drop_tail"


@dataclass
class Threshold:
    KIND = "threshold"
    k_pkts: Optional[float] = None
    k_bytes: Optional[float] = None
    mark_at_or_above: bool = False


@dataclass
class ThresholdDequeue:
    """DCTCP threshold marking at dequeue (htsim's ECNQueue): CE-mark a packet when the queue it leaves
    behind in its class exceeds K (packets or bytes); the port takes the general path."""
    KIND = "threshold_dequeue"
    k_pkts: Optional[float] = None
    k_bytes: Optional[float] = None
    mark_at_or_above: bool = False


@dataclass
class Red:
    KIND = "red"
    min_th_pkts: float = 5.0
    max_th_pkts: float = 15.0
    max_p: float = 0.1
    w_q: float = 0.002
    gentle: bool = False
    action: Literal["mark", "drop"] = "mark"
    byte_mode: bool = False
    ns2_wait: bool = False
    ns2_drop_ecn_above_p: Optional[float] = None
    ns2_small_queue: bool = False
    ns2_idle_truncate: bool = False
    independent_marks: bool = False
    mark_at: Literal["enqueue", "dequeue"] = "enqueue"


@dataclass
class Choke:
    KIND = "choke"
    min_th_pkts: float = 5.0
    max_th_pkts: float = 15.0
    max_p: float = 0.1
    w_q: float = 0.002
    samples: int = 1


@dataclass
class QcnCp:
    """IEEE 802.1Qau QCN congestion point (drop-tail buffer)."""
    KIND = "qcn"
    q_eq_bytes: float = 26000
    w: float = 2.0
    sampling_p: float = 0.01
    sampling_table: bool = False
    sample_base_bytes: float = 150000
    sampling_jitter: float = 0.15


@dataclass
class AsmCp:
    """ASM congestion point (drop-tail buffer)."""
    KIND = "asm"
    q0_pkts: float = 5.0
    sampling_p: float = 0.01
    quantum_pkts: float = 1.0
    dedup: bool = True
    dedup_expiry: Literal["never", "delivered"] = "never"
    dedup_window_s: Optional[float] = None


@dataclass
class Codel:
    """CoDel (RFC 8289): drops (or marks, ecn=True) at dequeue on the sojourn time."""
    KIND = "codel"
    target_s: float = 0.005
    interval_s: float = 0.1
    ecn: bool = False


@dataclass
class FqCodel:
    """FQ-CoDel (RFC 8290): flow queues served by DRR, new flows first, each judged by CoDel."""
    KIND = "fq_codel"
    flows: int = 1024
    quantum_bytes: Optional[int] = None
    target_s: float = 0.005
    interval_s: float = 0.1
    ecn: bool = False
    drop_batch: int = 64


@dataclass
class Fq:
    """Per-flow fair queueing: one queue per flow (the flow id, data and ACKs apart) served by DRR
    with a one-MTU quantum, no AQM; an overflow drops from the fattest flow. For host NICs
    (topology host_aqm)."""
    KIND = "fq"
    quantum_bytes: Optional[int] = None


@dataclass
class Pie:
    """PIE (RFC 8033): drops (or marks, ecn=True) at enqueue with a probability updated every
    t_update_s from the queueing delay."""
    KIND = "pie"
    target_s: float = 0.015
    t_update_s: float = 0.015
    alpha: float = 0.125
    beta: float = 1.25
    max_burst_s: float = 0.15
    ecn: bool = False
    ecn_max_p: float = 0.1
    derandomize: bool = False



AqmConfig = Union[DropTail, Threshold, Red, Choke, QcnCp, AsmCp, Codel, FqCodel, Fq, Pie, ThresholdDequeue]


@dataclass
class Dumbbell:
    KIND = "dumbbell"
    bottleneck_bps: float
    senders: Optional[int] = None
    receivers: int = 1
    access_bps: Optional[float] = None
    rtt_s: Optional[float] = None
    rtt_per_sender_s: Optional[list[float]] = None
    bottleneck_delay_s: float = 0.0
    buffer_pkts: Optional[int] = None
    buffer_bytes: Optional[int] = None
    host_buffer_pkts: Optional[int] = None
    #: queue policy of every host's egress (NIC) port, a table like aqm: e.g. Fq() (per-flow fair
    #: queueing); None: drop_tail, one FIFO
    host_aqm: Optional[AqmConfig] = None


@dataclass
class NodeSpec:
    name: str
    kind: Literal["host", "switch"]


@dataclass
class SchedConfig:
    """Traffic classes of a port and the scheduler between them (docs/engine.md)."""
    classes: int = 1
    scheduler: Literal["strict", "drr"] = "strict"
    weights: Optional[list[float]] = None
    class_buffer_pkts: Optional[list[int]] = None
    path: Literal["auto", "general"] = "auto"
    #: a queue policy per class (replaces the port's aqm for every class): e.g. [threshold(k_pkts=20), drop_tail()]
    class_aqm: Optional[list[AqmConfig]] = None


@dataclass
class PfcConfig:
    """Priority flow control (IEEE 802.1Qbb) at every switch (docs/engine.md)."""
    xoff_bytes: int
    xon_bytes: int
    classes: list[int] = field(default_factory=lambda: [0])
    pause_quanta: int = 65535
    #: bytes above XOFF an ingress may still receive (a round trip of the link at line rate plus two
    #: maximum frames); xoff_bytes + headroom_bytes must fit in every switch port's buffer; None: not checked
    headroom_bytes: Optional[int] = None


@dataclass
class SharedBufferConfig:
    """One buffer pool per switch with Choudhury-Hahne dynamic thresholds (docs/engine.md)."""
    bytes: int
    #: one value for every class, or one per class
    alpha: Union[float, list[float]] = 1.0
    reserve_bytes: int = 0


@dataclass
class IntConfig:
    """In-band telemetry stamped at dequeue, read back by the sender on the ACK (docs/engine.md)."""
    ports: Literal["switches", "all"] = "switches"
    max_slots: int = 65536


@dataclass
class LinkSpec:
    from_: str
    to: str
    rate_bps: float
    delay_s: float
    buffer_pkts: Optional[int] = None
    buffer_bytes: Optional[int] = None
    aqm: Optional[AqmConfig] = None
    sched: Optional[SchedConfig] = None
    duplex: bool = False


@dataclass
class Graph:
    KIND = "graph"
    nodes: list[NodeSpec] = field(default_factory=list)
    links: list[LinkSpec] = field(default_factory=list)
    ecmp: bool = False
    #: "single", "ecmp" (per flow) or "spray" (per packet); None: "ecmp" if ecmp else "single"
    load_balance: Optional[Literal["single", "ecmp", "spray"]] = None


@dataclass
class LeafSpine:
    """Two-tier leaf-spine fabric with per-flow ECMP (hosts h0.., leaf0.., spine0..)."""
    KIND = "leaf_spine"
    leaves: int
    spines: int
    hosts_per_leaf: int
    host_bps: float
    fabric_bps: float
    link_delay_s: float
    buffer_pkts: Optional[int] = None
    #: the leaf-spine links run at fabric_bps / oversubscription (None: 1)
    oversubscription: Optional[float] = None
    load_balance: Optional[Literal["single", "ecmp", "spray"]] = None
    #: queue policy of every host's egress (NIC) port, a table like aqm: e.g. Fq() (per-flow fair
    #: queueing); None: drop_tail, one FIFO
    host_aqm: Optional[AqmConfig] = None


@dataclass
class FatTree:
    """Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): hosts h0 .. h{k^3/4-1}, edge
    switches e{pod}_{i}, aggregation switches a{pod}_{i}, core switches c{j}; per-flow ECMP by
    default. Each tier's rate and delay default to link_bps and link_delay_s."""
    KIND = "fat_tree"
    k: int
    link_bps: float
    link_delay_s: float
    host_bps: Optional[float] = None
    edge_agg_bps: Optional[float] = None
    agg_core_bps: Optional[float] = None
    host_delay_s: Optional[float] = None
    edge_agg_delay_s: Optional[float] = None
    agg_core_delay_s: Optional[float] = None
    buffer_pkts: Optional[int] = None
    load_balance: Optional[Literal["single", "ecmp", "spray"]] = None
    #: queue policy of every host's egress (NIC) port, a table like aqm: e.g. Fq() (per-flow fair
    #: queueing); None: drop_tail, one FIFO
    host_aqm: Optional[AqmConfig] = None


Topology = Union[Dumbbell, Graph, LeafSpine, FatTree]


@dataclass
class FlowsTemplate:
    count: int
    cc: str = "new_reno"
    start_s: float = 0.0
    start_jitter_s: float = 0.0
    size_bytes: Optional[int] = None
    class_: Optional[int] = None  # `class` in the scenario (a Python keyword); None: 0


@dataclass
class FlowSpec:
    src: str
    dst: str
    cc: str = "new_reno"
    start_s: float = 0.0
    size_bytes: Optional[int] = None
    stop_s: Optional[float] = None
    rate_bps: Optional[float] = None
    class_: Optional[int] = None  # `class` in the scenario (a Python keyword); None: 0


@dataclass
class FixedSize:
    KIND = "fixed"
    bytes: int


@dataclass
class UniformSize:
    KIND = "uniform"
    min_bytes: int
    max_bytes: int


@dataclass
class CdfSize:
    """Empirical CDF: points = [[bytes, cumulative probability], ...] ending at probability 1,
    or builtin = "websearch" (DCTCP), "datamining" (VL2) or "hadoop" (Facebook): the published
    distributions shipped with ccscope (docs/workloads.md). Give points or builtin."""
    KIND = "cdf"
    points: Optional[list[list[float]]] = None
    builtin: Optional[Literal["websearch", "datamining", "hadoop"]] = None


#: Most hosts one range may name (the Rust schema's MAX_HOST_RANGE).
MAX_HOST_RANGE = 100_000


def expand_hosts(value: Any, field_path: str) -> list[str]:
    """A host list as a scenario takes it: a list of names, or a range "s0..s39" (both ends
    included; a range may also be an item of the list). The engine expands ranges the same
    way when it reads a scenario file; this is the mirror for the dataclasses.

    >>> expand_hosts("s0..s2", "servers")
    ['s0', 's1', 's2']
    """
    import re

    from ccscope.errors import ScenarioError, shown
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(x, str) for x in items):
        raise ScenarioError(f"{field_path} = {shown(value)}: expected a list of host names or a range such as "
                            f"\"s0..s39\"")
    allowed = 'expected PREFIXa..PREFIXb with the same prefix and a <= b, e.g. "s0..s39"'
    out: list[str] = []
    for it in items:
        if ".." not in it:
            out.append(it)
            continue
        lo, _, hi = it.partition("..")
        ma, mb = re.fullmatch(r"(.*?)(\d{1,18})", lo), re.fullmatch(r"(.*?)(\d{1,18})", hi)
        if not ma or not mb:
            raise ScenarioError(f"{field_path}: host range {shown(it)}: both ends need a number; {allowed}")
        if ma.group(1) != mb.group(1):
            raise ScenarioError(f"{field_path}: host range {shown(it)}: the prefixes {ma.group(1)!r} and {mb.group(1)!r} "
                                f"differ; {allowed}")
        a, b = int(ma.group(2)), int(mb.group(2))
        if a > b:
            raise ScenarioError(f"{field_path}: host range {shown(it)}: the start {a} is after the end {b}; {allowed}")
        if b - a >= MAX_HOST_RANGE:
            raise ScenarioError(f"{field_path}: host range {shown(it)}: {b - a + 1} hosts; expected at most {MAX_HOST_RANGE}")
        out.extend(f"{ma.group(1)}{i}" for i in range(a, b + 1))
    return out


@dataclass
class Incast:
    """Synchronized responses from `servers` to `client`, repeated `rounds` times."""
    KIND = "incast"
    client: str
    servers: list[str]
    block_bytes: Optional[int] = None
    total_bytes: Optional[int] = None
    rounds: int = 1
    gap_s: float = 0.0
    start_s: float = 0.0
    cc: list[str] = field(default_factory=lambda: ["new_reno"])
    class_: Optional[int] = None  # `class` in the scenario (a Python keyword); None: 0
    jitter_s: float = 0.0  # each response starts U[0, jitter_s) after the round's request

    def __post_init__(self) -> None:
        self.servers = expand_hosts(self.servers, "workload.servers")


@dataclass
class Poisson:
    """Poisson flow arrivals at `load` x `reference_bps`."""
    KIND = "poisson"
    src: list[str]
    dst: list[str]
    load: float
    reference_bps: float
    size: Union[FixedSize, UniformSize, CdfSize]
    cc: list[str] = field(default_factory=lambda: ["new_reno"])
    start_s: float = 0.0
    stop_s: Optional[float] = None
    class_: Optional[int] = None  # `class` in the scenario (a Python keyword); None: 0
    pattern: Literal["random", "all_to_all", "permutation"] = "random"
    jitter_s: float = 0.0  # each flow starts U[0, jitter_s) after its arrival

    def __post_init__(self) -> None:
        self.src = expand_hosts(self.src, "workload.src")
        self.dst = expand_hosts(self.dst, "workload.dst")


Workload = Union[Incast, Poisson]


@dataclass
class TcpConfig:
    iw_pkts: int = 2
    min_rto_s: float = 0.2
    initial_rto_s: float = 1.0
    max_rto_s: float = 60.0
    clock_granularity_s: float = 1e-6
    dupack_threshold: int = 3
    delayed_ack: bool = False
    delack_count: int = 2
    delack_timeout_s: float = 0.1
    rwnd_pkts: Optional[int] = None
    ecn: bool = False
    ca_increase: Literal["per_ack", "byte_counting"] = "per_ack"
    ect_on_retransmissions: Optional[bool] = None
    rtt_sampling: Literal["per_ack", "once_per_rtt"] = "per_ack"
    rto_estimator: Literal["rfc6298", "ns2_ticks"] = "rfc6298"
    initial_ssthresh_pkts: Optional[float] = None
    ns2_partial_window_deflation: bool = False
    ns2_exit_recovery: bool = False
    ns2_limited_transmit: bool = False
    ns2_halve_window: bool = False
    ns2_halve_whole_segments: bool = False
    ns2_recovery_maxburst: bool = False
    ns2_timeout_after_ecn: bool = False
    ns2_dupack_action: bool = False
    ns2_ecn_after_timeout: bool = False
    ns2_ecn_first: bool = False
    ns2_old_ecn: bool = False
    host_queue_pkts: Optional[int] = None
    # when a data packet's echoed timestamp is taken: "send" (None: the default) or "host_tx"
    stamp_at: Optional[Literal["send", "host_tx"]] = None
    ack_class: Optional[int] = None


@dataclass
class DctcpConfig:
    g: float = 1.0 / 16.0
    alpha_init: float = 1.0
    min_cwnd_pkts: float = 2.0
    ecn_echo_blocks_growth: bool = True
    alpha_reset_s: Optional[float] = None
    alpha_reset_to: float = 0.0


@dataclass
class DxConfig:
    q_eps_s: float = 1e-9
    base_rtt_s: Optional[float] = None
    base_rtt_from_path: bool = False
    rtt_input: Literal["sample", "srtt"] = "sample"


@dataclass
class CubicConfig:
    c: float = 0.4
    beta: float = 0.7
    fast_convergence: bool = True
    reno_friendly: bool = True
    target_rtt: Literal["srtt", "min_rtt"] = "srtt"
    ssthresh_from: Literal["flight_size", "cwnd"] = "flight_size"


@dataclass
class HpccConfig:
    """HPCC's parameters (Li et al., SIGCOMM 2019, section 3.3)."""
    eta: float = 0.95
    max_stage: int = 5
    w_ai_bytes: Optional[float] = None
    flows_per_link: int = 10
    base_rtt_s: Optional[float] = None
    min_rate_bps: float = 100e6


@dataclass
class SwiftConfig:
    ai: float = 1.0
    beta: float = 0.8
    max_mdf: float = 0.5
    base_target_s: float = 25e-6
    hop_scale_s: float = 1e-6
    fs_range_s: float = 125e-6
    fs_min_cwnd: float = 0.1
    fs_max_cwnd: float = 100.0
    min_cwnd: float = 0.01
    max_cwnd: float = 1000.0
    retx_reset_threshold: int = 5


@dataclass
class TimelyConfig:
    alpha: float = 0.875
    beta: float = 0.8
    delta_bps: float = 10e6
    t_low_s: float = 50e-6
    t_high_s: float = 500e-6
    min_rtt_s: float = 20e-6
    hai_after: int = 5
    hai_factor: int = 5
    seg_bytes: int = 64000
    min_rate_bps: float = 100e6
    initial_rate_bps: Optional[float] = None


@dataclass
class QcnRpConfig:
    gd: float = 1.0 / 128.0
    min_dec_fac: float = 0.5
    byte_counter_bytes: float = 150000
    timer_period_s: float = 0.015
    fast_recovery_threshold: int = 5
    r_ai_bps: float = 5e6
    r_hai_bps: float = 50e6
    min_rate_bps: float = 5e6
    hai_scales_with_stage: bool = False


@dataclass
class AsmGains:
    a_plus: float
    a_minus: float
    b_plus: float
    b_minus: float


@dataclass
class AsmRpConfig:
    w: float = 32.0
    b0: float = 16.0
    b_f: float = 64.0
    approach: AsmGains = field(default_factory=lambda: AsmGains(1 / 8, 1 / 64, 1 / 16, 1 / 2))
    sliding: AsmGains = field(default_factory=lambda: AsmGains(1 / 16, 1 / 128, 1 / 32, 1 / 4))
    adaptive_gains: bool = True
    gain_ref_bps: Optional[float] = None
    min_rate_bps: float = 5e6
    initial_rate_bps: Optional[float] = None


@dataclass
class RdmaConfig:
    rto_s: float = 4.096e-6 * 16384
    ack_every: int = 1
    cnp_interval_s: float = 50e-6


@dataclass
class DcqcnConfig:
    g: float = 1.0 / 256.0
    tau_prime_s: float = 55e-6
    timer_s: float = 55e-6
    byte_counter_bytes: float = 10e6
    f_steps: int = 5
    r_ai_bps: float = 40e6
    r_hai_bps: float = 400e6
    min_rate_bps: float = 1e6
    alpha_init: float = 1.0
    hai_scales_with_stage: bool = False


@dataclass
class RecordConfig:
    #: "pfc" (every PFC pause/resume frame) is not in the default list: add it to keep that trace
    traces: list[str] = field(default_factory=lambda: ["queue", "link", "cwnd", "alpha", "delivered", "drops", "rate",
                                                                 "feedback"])
    queue_interval_s: float = 1e-5
    queue_every_change: bool = False
    flow_interval_s: float = 1e-4
    ports: Optional[list[str]] = None


@dataclass
class Plugins:
    """`[plugins]`: modules (`mypkg.mycc`) or `.py` files that register Python controllers, loaded
    before the scenario's cc names are checked (docs/extending.md)."""
    modules: list[str] = field(default_factory=list)


@dataclass
class Scenario:
    """A complete scenario. `to_dict()` gives the plain data the engine reads."""
    topology: Topology
    name: str = ""
    seed: int = 1
    until_s: float = 1.0
    packet_bytes: int = 1500
    ack_bytes: int = 40
    aqm: AqmConfig = field(default_factory=DropTail)
    sched: Optional[SchedConfig] = None
    pfc: Optional[PfcConfig] = None
    shared_buffer: Optional[SharedBufferConfig] = None
    int: Optional[IntConfig] = None
    hpcc: HpccConfig = field(default_factory=HpccConfig)
    tcp: TcpConfig = field(default_factory=TcpConfig)
    dctcp: DctcpConfig = field(default_factory=DctcpConfig)
    dx: DxConfig = field(default_factory=DxConfig)
    cubic: CubicConfig = field(default_factory=CubicConfig)
    swift: SwiftConfig = field(default_factory=SwiftConfig)
    timely: TimelyConfig = field(default_factory=TimelyConfig)
    qcn_rp: QcnRpConfig = field(default_factory=QcnRpConfig)
    asm_rp: AsmRpConfig = field(default_factory=AsmRpConfig)
    rdma: RdmaConfig = field(default_factory=RdmaConfig)
    dcqcn: DcqcnConfig = field(default_factory=DcqcnConfig)
    feedback_bytes: int = 64
    flows: Optional[FlowsTemplate] = None
    flow: list[FlowSpec] = field(default_factory=list)
    workload: list[Workload] = field(default_factory=list)
    record: RecordConfig = field(default_factory=RecordConfig)
    plugins: Optional[Plugins] = None

    def to_dict(self) -> dict:
        d = _clean(self)
        # `from` is a Python keyword: LinkSpec stores it as from_
        # (values of the wrong type pass through unchanged: the engine names their field)
        topo = d.get("topology")
        links = topo.get("links") if isinstance(topo, dict) else None
        for link in links if isinstance(links, list) else []:
            if isinstance(link, dict) and "from_" in link:
                link["from"] = link.pop("from_")
        # `class` too (FlowsTemplate.class_, FlowSpec.class_)
        # (values of the wrong type pass through unchanged: the engine names their field)
        flow, workload = d.get("flow"), d.get("workload")
        for f in ([d.get("flows")] + (flow if isinstance(flow, list) else [])
                  + (workload if isinstance(workload, list) else [])):
            if isinstance(f, dict) and "class_" in f:
                f["class"] = f.pop("class_")
        for key in ("flow", "workload"):
            if not d.get(key):
                d.pop(key, None)
        return d


# Python dataclass -> Rust schema definition name, for the field-match test.
SCHEMA_MIRROR = {
    Scenario: "Scenario",
    Dumbbell: "Dumbbell",
    Graph: "Graph",
    LeafSpine: "LeafSpine",
    FatTree: "FatTree",
    NodeSpec: "NodeSpec",
    LinkSpec: "LinkSpec",
    SchedConfig: "SchedConfig",
    PfcConfig: "PfcConfig",
    SharedBufferConfig: "SharedBufferConfig",
    IntConfig: "IntConfig",
    HpccConfig: "HpccConfig",
    FlowsTemplate: "FlowsTemplate",
    FlowSpec: "FlowSpec",
    TcpConfig: "TcpConfig",
    DctcpConfig: "DctcpConfig",
    DxConfig: "DxConfig",
    CubicConfig: "CubicConfig",
    SwiftConfig: "SwiftConfig",
    TimelyConfig: "TimelyConfig",
    RecordConfig: "RecordConfig",
    Threshold: "ThresholdConfig",
    ThresholdDequeue: "ThresholdConfig",
    Red: "RedConfig",
    Choke: "ChokeConfig",
    QcnCp: "QcnCpConfig",
    AsmCp: "AsmCpConfig",
    Codel: "CodelConfig",
    FqCodel: "FqCodelConfig",
    Fq: "FqConfig",
    Pie: "PieConfig",
    QcnRpConfig: "QcnRpConfig",
    AsmRpConfig: "AsmRpConfig",
    AsmGains: "AsmGains",
    RdmaConfig: "RdmaConfig",
    DcqcnConfig: "DcqcnConfig",
    Incast: "IncastSpec",
    Poisson: "PoissonSpec",
    Plugins: "PluginsConfig",
}
