//! THE scenario schema: plain data (TOML or JSON), `deny_unknown_fields` everywhere, validated
//! here with errors that name the field path, the value and what is allowed.
//!
//! Templates (`topology.kind = "dumbbell"`, `[flows]`) expand to the explicit form
//! (`topology.kind = "graph"` with nodes and directed links, `[[flow]]` entries, `record.ports`),
//! which is itself a valid scenario: `ccscope scenario expand` prints it, and `build.rs` only
//! ever sees the expanded form. Every field carries its unit in its name.

use crate::aqm::{AqmConfig, RedConfig, ThresholdConfig};
use crate::cc::DctcpConfig;
use crate::error::ScenarioError;
use crate::rng::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Largest link rate accepted, bits/s (sanity bound: 100 Tb/s).
pub const MAX_RATE_BPS: f64 = 1e14;
/// Largest delay or time accepted, seconds (sanity bound: one day of simulated time).
pub const MAX_TIME_S: f64 = 86_400.0;
/// Smallest and largest packet size, bytes.
pub const MIN_PACKET_BYTES: u32 = 40;
pub const MAX_PACKET_BYTES: u32 = 65_535;
/// Largest number of flows or hosts a template may create.
pub const MAX_TEMPLATE_COUNT: u32 = 1_000_000;

fn d_seed() -> u64 {
    1
}
fn d_until() -> f64 {
    1.0
}
fn d_pkt() -> u32 {
    1500
}
fn d_ack() -> u32 {
    40
}
fn d_one() -> u32 {
    1
}
fn d_fb() -> u32 {
    64
}

/// A complete simulation scenario.
///
/// Memory budget: before a run starts, the engine estimates its memory from the scenario (nodes, ports, flows, routes, per-flow state, workload arrivals, and each recorded series: series x samples) and refuses a scenario whose estimate exceeds the budget, naming the fields that drive it (`ccscope run --max-memory`, `max_memory_bytes=` in Python; default half the machine's memory). Event-driven traces (drops and marks, queue_every_change, feedback) are capped inside the budget: a series that reaches its cap stops recording, and the result's `truncated` table names it with the rows kept and left out.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name, used in reports.
    #[serde(default)]
    pub name: String,
    /// Seed of every random stream in the run (per-component streams derive from it). Default 1.
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// Simulated time to run, seconds (> 0). Default 1. The CLI's --until and the API's until_s override it.
    #[serde(default = "d_until")]
    pub until_s: f64,
    /// Data packet (segment) size on the wire, bytes. Default 1500 (P000, P002-P004; P001 uses 1000).
    #[serde(default = "d_pkt")]
    pub packet_bytes: u32,
    /// Pure ACK size on the wire, bytes. Default 40.
    #[serde(default = "d_ack")]
    pub ack_bytes: u32,
    /// The network: a template (`dumbbell`) or an explicit `graph`.
    pub topology: Topology,
    /// Queue policy of the bottleneck port(s) of a template, and of graph switch ports that do not name one. Default drop_tail.
    #[serde(default)]
    pub aqm: AqmConfig,
    /// TCP transport options shared by all TCP flows.
    #[serde(default)]
    pub tcp: TcpConfig,
    /// DCTCP parameters (used by flows with cc = "dctcp" or "dctcp_per_ack").
    #[serde(default)]
    pub dctcp: DctcpConfig,
    /// DX parameters (used by flows with cc = "dx").
    #[serde(default)]
    pub dx: crate::cc::DxConfig,
    /// QCN reaction-point parameters (flows with cc = "qcn").
    #[serde(default)]
    pub qcn_rp: crate::rate::QcnRpConfig,
    /// ASM reaction-point parameters (flows with cc = "asm").
    #[serde(default)]
    pub asm_rp: crate::rate::AsmRpConfig,
    /// Size of an 802.1Qau feedback frame on the wire, bytes. Default 64 (minimum Ethernet frame).
    #[serde(default = "d_fb")]
    pub feedback_bytes: u32,
    /// Flow template: `count` identical flows spread over the template's senders and receivers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<FlowsTemplate>,
    /// Explicit flows (the expanded form lists every flow here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow: Vec<FlowSpec>,
    /// Flow generators that act during the run: incast rounds, Poisson arrivals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workload: Vec<crate::workload::WorkloadSpec>,
    /// What to record and how often.
    #[serde(default)]
    pub record: RecordConfig,
}

/// Network topology, chosen by `kind`.
#[derive(Clone, Debug, Serialize, PartialEq, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    /// N senders -> switch -> receiver(s); the switch egress toward the receivers is the bottleneck.
    Dumbbell(Dumbbell),
    /// Explicit nodes and directed links.
    Graph(Graph),
    /// Two-tier leaf-spine fabric with ECMP.
    LeafSpine(LeafSpine),
}

impl<'de> Deserialize<'de> for Topology {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::tagged::{by_kind, variant, Parse};
        const KINDS: &[(&str, Parse<Topology>)] = &[
            ("dumbbell", |v| Ok(Topology::Dumbbell(variant(v)?))),
            ("graph", |v| Ok(Topology::Graph(variant(v)?))),
            ("leaf_spine", |v| Ok(Topology::LeafSpine(variant(v)?))),
        ];
        by_kind::<Topology, D::Error>(toml::Value::deserialize(d)?, KINDS)
    }
}

/// Dumbbell template. With one receiver: s_i -> sw -> r0 (bottleneck port `sw->r0`); with more:
/// s_i -> sw0 -> sw1 -> r_j (bottleneck `sw0->sw1`). Each sender's access link carries its
/// share of the round-trip propagation delay: one-way delay rtt_i/2 - bottleneck_delay_s.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    /// Number of sender hosts (>= 1). Default: the number of flows of the [flows] template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders: Option<u32>,
    /// Number of receiver hosts (>= 1). Default 1.
    #[serde(default = "d_one")]
    pub receivers: u32,
    /// Bottleneck link rate, bits/s (> 0).
    pub bottleneck_bps: f64,
    /// Access link rate (senders and receivers), bits/s (> 0). Default: bottleneck_bps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_bps: Option<f64>,
    /// Round-trip propagation delay of every sender, seconds (> 0). Give this or rtt_per_sender_s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_s: Option<f64>,
    /// Round-trip propagation delay per sender, seconds (one entry per sender).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_per_sender_s: Option<Vec<f64>>,
    /// One-way propagation delay of the bottleneck link, seconds (>= 0, <= rtt/2). Default 0.
    #[serde(default)]
    pub bottleneck_delay_s: f64,
    /// Switch port buffer, packets (>= 1). Default 1000 when neither buffer limit is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pkts: Option<u32>,
    /// Switch port buffer, bytes (>= packet_bytes). Default: no byte limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_bytes: Option<u64>,
    /// Host NIC buffer, packets (>= 1). Default: the switch buffer (buffer_pkts / buffer_bytes). With access links as fast as the bottleneck an unbounded NIC queue would hide congestion from a loss-based sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_buffer_pkts: Option<u32>,
}

/// Host or switch.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Host,
    Switch,
}

/// A node of an explicit graph.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique node name.
    pub name: String,
    /// "host" (runs transports, never forwards) or "switch" (output-queued, store-and-forward).
    pub kind: NodeKind,
}

/// A directed link `from -> to` and the egress port that feeds it (at `from`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Upstream node name (owns the port).
    pub from: String,
    /// Downstream node name.
    pub to: String,
    /// Link rate, bits/s (> 0).
    pub rate_bps: f64,
    /// One-way propagation delay, seconds (>= 0).
    pub delay_s: f64,
    /// Port buffer, packets (>= 1). Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pkts: Option<u32>,
    /// Port buffer, bytes (>= packet_bytes). Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_bytes: Option<u64>,
    /// Queue policy of this port. Default: the scenario's `aqm` at switch ports, drop_tail at hosts.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::aqm::option_aqm"
    )]
    pub aqm: Option<AqmConfig>,
    /// Also create the reverse direction `to -> from` with the same rate, delay, buffer and queue policy. Default false.
    #[serde(default)]
    pub duplex: bool,
}

/// Explicit topology.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Graph {
    /// Nodes (unique names).
    pub nodes: Vec<NodeSpec>,
    /// Directed links (at most one per ordered pair of nodes).
    pub links: Vec<LinkSpec>,
    /// Per-flow ECMP: each flow takes one of the equal-cost shortest paths, chosen by a hash of (seed, flow). Default false (one shortest path, ties by link order).
    #[serde(default)]
    pub ecmp: bool,
}

/// Two-tier leaf-spine fabric: every leaf connects to every spine; hosts hang off leaves.
/// Hosts are h0 .. h{leaves*hosts_per_leaf - 1} (host i on leaf i / hosts_per_leaf); switches
/// leaf0.., spine0..; flows are spread with per-flow ECMP. Recorded ports: the leaf uplinks.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeafSpine {
    /// Number of leaf switches (>= 1).
    pub leaves: u32,
    /// Number of spine switches (>= 1).
    pub spines: u32,
    /// Hosts per leaf (>= 1).
    pub hosts_per_leaf: u32,
    /// Host link rate, bits/s (> 0).
    pub host_bps: f64,
    /// Leaf-spine link rate, bits/s (> 0).
    pub fabric_bps: f64,
    /// One-way delay of every link, seconds (>= 0).
    pub link_delay_s: f64,
    /// Switch port buffer, packets (>= 1). Default 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pkts: Option<u32>,
}

/// Window congestion-control algorithm of a TCP flow.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// TCP NewReno (RFC 5681/6582); ECN-capable only when tcp.ecn = true.
    #[default]
    NewReno,
    /// TCP Reno (RFC 5681 without RFC 6582: the first new ACK ends fast recovery; P001's ns-2 Reno).
    Reno,
    /// DCTCP (P000 §2.1): alpha estimator, cut (1 - alpha/2) once per window.
    Dctcp,
    /// DCTCP with the per-ACK "improved fairness" rule of P000 eq 36.
    DctcpPerAck,
    /// DX, latency-based (P004 eqs 1-2); no ECN.
    Dx,
    /// Rate-based 802.1Qau source with a QCN reaction point (no window, no ACKs); needs a `qcn` congestion point.
    Qcn,
    /// Rate-based source with an ASM reaction point (P002 eqs 11-12); needs an `asm` congestion point.
    Asm,
    /// Unresponsive constant-bit-rate source (UDP-like) at the flow's `rate_bps`.
    Cbr,
}

impl CcKind {
    pub fn name(self) -> &'static str {
        match self {
            CcKind::NewReno => "new_reno",
            CcKind::Reno => "reno",
            CcKind::Dctcp => "dctcp",
            CcKind::DctcpPerAck => "dctcp_per_ack",
            CcKind::Dx => "dx",
            CcKind::Qcn => "qcn",
            CcKind::Asm => "asm",
            CcKind::Cbr => "cbr",
        }
    }
    /// A rate-controlled (802.1Qau) source rather than a TCP window.
    pub fn is_rate_based(self) -> bool {
        matches!(self, CcKind::Qcn | CcKind::Asm | CcKind::Cbr)
    }
    pub fn is_dctcp(self) -> bool {
        matches!(self, CcKind::Dctcp | CcKind::DctcpPerAck)
    }
}

/// `count` flows of one kind; flow k runs from sender k mod S to receiver k mod R.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowsTemplate {
    /// Number of flows (>= 1).
    pub count: u32,
    /// Congestion control: "new_reno", "reno", "dctcp", "dctcp_per_ack", "dx", the rate-based "qcn" / "asm", or the unresponsive "cbr". Default "new_reno".
    #[serde(default)]
    pub cc: CcKind,
    /// Start time of the first flow, seconds (>= 0). Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// Each flow starts at start_s + U(0, start_jitter_s) drawn from its own stream, seconds (>= 0). Default 0.
    #[serde(default)]
    pub start_jitter_s: f64,
    /// Flow size, bytes (>= 1). Default: long-lived (infinite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
}

/// One explicit flow.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Sending host.
    pub src: String,
    /// Receiving host.
    pub dst: String,
    /// Congestion control: "new_reno", "dctcp", "dctcp_per_ack" or "dx". Default "new_reno".
    #[serde(default)]
    pub cc: CcKind,
    /// Start time, seconds (>= 0). Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// Flow size, bytes (>= 1). Default: long-lived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// The sender stops taking new data at this time, seconds (> start_s); it finishes what it has sent. Default: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    /// Sending rate of a cc = "cbr" flow, bits/s (> 0). Default: its host link rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bps: Option<f64>,
}

fn d_min_rto() -> f64 {
    0.2
}
fn d_init_rto() -> f64 {
    1.0
}
fn d_max_rto() -> f64 {
    60.0
}
fn d_gran() -> f64 {
    1e-6
}
fn d_iw() -> u32 {
    2
}
fn d_dupthresh() -> u32 {
    3
}
fn d_delack_count() -> u32 {
    2
}
fn d_delack_timeout() -> f64 {
    0.1
}

/// TCP transport options (ALGORITHMS.md §1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// Initial window, segments (>= 1). Default 2 (ns-2.35 windowInit_).
    #[serde(default = "d_iw")]
    pub iw_pkts: u32,
    /// Minimum retransmission timeout, seconds (> 0). Default 0.2 (Linux, ns-2.35 minrto_).
    #[serde(default = "d_min_rto")]
    pub min_rto_s: f64,
    /// Retransmission timeout before the first RTT sample, seconds (> 0). Default 1 (RFC 6298).
    #[serde(default = "d_init_rto")]
    pub initial_rto_s: f64,
    /// Maximum retransmission timeout (back-off cap), seconds (>= min_rto_s). Default 60 (RFC 6298).
    #[serde(default = "d_max_rto")]
    pub max_rto_s: f64,
    /// Clock granularity G of RFC 6298, seconds (> 0). Default 1e-6.
    #[serde(default = "d_gran")]
    pub clock_granularity_s: f64,
    /// Duplicate ACKs that trigger fast retransmit (>= 1). Default 3 (RFC 5681).
    #[serde(default = "d_dupthresh")]
    pub dupack_threshold: u32,
    /// Delayed ACKs at the receiver. Default false (one ACK per segment, ns-2 TCPSink).
    #[serde(default)]
    pub delayed_ack: bool,
    /// With delayed ACKs: ACK every this many in-order segments (>= 1). Default 2.
    #[serde(default = "d_delack_count")]
    pub delack_count: u32,
    /// With delayed ACKs: timer, seconds (> 0). Default 0.1 (ns-2 DelAck).
    #[serde(default = "d_delack_timeout")]
    pub delack_timeout_s: f64,
    /// Receiver window, segments (>= 1). Default: unbounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwnd_pkts: Option<u32>,
    /// NewReno flows are ECN-capable (RFC 3168). DCTCP flows always are. Default false.
    #[serde(default)]
    pub ecn: bool,
    /// Congestion-avoidance increase: "per_ack" (cwnd += MSS^2/cwnd per ACK, ns-2) or "byte_counting" (+1 MSS per cwnd of acked bytes, RFC 3465 / Linux). Default "per_ack".
    #[serde(default)]
    pub ca_increase: crate::cc::CaIncrease,
    /// Retransmitted segments of ECN-capable flows carry ECT too (true: ns-2, which sets ECT on
    /// every data packet; false: RFC 3168 §6.1.5). Default: true for DCTCP, false otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ect_on_retransmissions: Option<bool>,
    /// RTT samples for the RTO: "per_ack" (every ACK that acknowledges new data, as with
    /// timestamps, RFC 7323) or "once_per_rtt" (one timed segment per RTT, Karn's rule: ns-2's
    /// TCP without timestamps, classic BSD). Default "per_ack".
    #[serde(default)]
    pub rtt_sampling: crate::transport::RttSampling,
    /// RTO estimator: "rfc6298" (exact samples, srtt + max(G, 4 rttvar)) or "ns2_ticks" (ns-2's
    /// tick-based fixed-point estimator, tick = clock_granularity_s, as ns-2's tcpTick_; RTO at
    /// least 2 ticks). Default "rfc6298".
    #[serde(default)]
    pub rto_estimator: crate::transport::RtoEstimator,
    /// Initial slow-start threshold, segments (>= 1). Default: unbounded (RFC 5681).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh_pkts: Option<f64>,
    /// NewReno and DCTCP flows (ns-2's DCTCP is Agent/TCP/Newreno with `dctcp_ true`) deflate on
    /// a partial ACK as ns-2's Agent/TCP/Newreno with its default `partial_window_deflation_ 1`
    /// (ns-2.35 tcl/lib/ns-default.tcl; tcp/tcp-newreno.cc `partialnewack`):
    /// the fast-recovery inflation is kept apart from the window; a partial ACK of n segments
    /// takes n - 1 from the inflation when the inflation exceeds n, otherwise cuts the window
    /// itself by n - inflation (at least 1 segment) and leaves 1 segment of inflation. The total
    /// is RFC 6582's cwnd - acked + 1 MSS but for the floor (2 segments instead of 1); the cut
    /// window is what `ns2_exit_recovery` leaves recovery at. Default false (RFC 6582).
    #[serde(default)]
    pub ns2_partial_window_deflation: bool,
    /// NewReno and DCTCP flows leave fast recovery as ns-2's Agent/TCP/Newreno with its default
    /// `exit_recovery_fix_ 0` (tcp/tcp-newreno.cc `recv`: `dupwnd_ = 0`, cwnd_ untouched, then
    /// recv_newack_helper -> opencwnd): cwnd = the window without the inflation (the halved
    /// window, less partial-ACK cuts under `ns2_partial_window_deflation`), grown by the full ACK
    /// as by any new ACK. Default false (RFC 6582: cwnd = min(ssthresh, FlightSize + 1 MSS)).
    #[serde(default)]
    pub ns2_exit_recovery: bool,
    /// NewReno and DCTCP flows send one new segment on each of the first dupack_threshold - 1
    /// duplicate ACKs (limited transmit, RFC 3042) as ns-2 with its default `singledup_ 1` (tcp/tcp.cc
    /// `send_one`): when it fits in cwnd + dupacks segments (`t_seqno_ <= highest_ack_ + cwnd_ +
    /// dupacks_`) and in the receiver window, cwnd unchanged; these segments are left out of the
    /// flight the fast retransmit halves. Default false (no new data before the fast retransmit).
    #[serde(default)]
    pub ns2_limited_transmit: bool,
    /// NewReno and DCTCP flows cut the window at a fast retransmit (and NewReno at an ECN-Echo) as
    /// ns-2's `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)` (tcp/tcp.cc; from tcp-newreno.cc
    /// `dupack_action` and tcp.cc `ecn`), and set ssthresh at a timeout from the same halfwin
    /// (`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART), wnd_restart_ 1`, window without
    /// inflation): halfwin = min(cwnd, rwnd) / 2 (`windowd()`, with `precisionReduce_ true`,
    /// ns-2.35's default), ssthresh = int(halfwin) (at least 2 segments), cwnd = halfwin (at least
    /// 1 segment, fractional) plus the 3 segments of fast-recovery inflation. Default false (RFC
    /// 5681: ssthresh = max(FlightSize / 2, 2 MSS), cwnd = ssthresh + 3 MSS).
    #[serde(default)]
    pub ns2_halve_window: bool,
    /// With `ns2_halve_window`: ns-2's `precisionReduce_ false` (tcp.cc `slowdown`: halfwin =
    /// int(window() / 2), window() = min(int(cwnd_), int(wnd_))), whole segments. Default false.
    #[serde(default)]
    pub ns2_halve_whole_segments: bool,
    /// NewReno and DCTCP flows send at most 2 segments from the window per ACK while ns-2's
    /// `dupacks_ >= numdupacks_` (the fast retransmit, further duplicate ACKs and partial ACKs;
    /// tcp/tcp-newreno.cc `recv`: `send_much(0, 0, 2)` with `newreno_changes_ 0`); other ACKs are
    /// not capped (`Agent/TCP set maxburst_ 0`). Retransmissions are not counted. Default false.
    #[serde(default)]
    pub ns2_recovery_maxburst: bool,
    /// NewReno and DCTCP flows time out after an ECN-Echo cut as ns-2 (tcp/tcp.cc `timeout`,
    /// ns-2.35 lines 1898 and 1919-1925: `recover_ = maxseq_; ... else if (highest_ack_ <
    /// recover_ && last_cwnd_action_ == CWND_ACTION_ECN) slowdown(CLOSE_CWND_ONE);`): when the
    /// last window action was an ECN cut (no fast retransmit or timeout since), cwnd = 1 segment
    /// and ssthresh is kept; back-off and go-back-N as any timeout, and a further timeout halves
    /// as usual (`last_cwnd_action_ = CWND_ACTION_TIMEOUT` after either branch, line 1946).
    /// Default false (every timeout cuts ssthresh).
    #[serde(default)]
    pub ns2_timeout_after_ecn: bool,
    /// NewReno and DCTCP flows decide the fast retransmit as ns-2's Agent/TCP/Newreno
    /// (tcp/tcp-newreno.cc `dupack_action`, lines 113-175, with `bugFix_ true`, `lessCareful_
    /// false`): an ECN-Echo cut also sets recover_ (tcp.cc `ecn`: `recover_ = maxseq_`) and is
    /// taken before the duplicate ACK is counted (`recv` calls `ecn()` first); the third duplicate
    /// ACK retransmits with a window cut only when `highest_ack_ > recover_` (the ACK lies beyond
    /// recover + 1 segment); otherwise, when the last window action was an ECN cut, it
    /// retransmits and enters recovery without a second cut (`dupwnd_ = numdupacks_`, recover_
    /// kept); otherwise nothing (with `exitFastRetrans_ true` the window is not inflated).
    /// Default false (a fast retransmit with a cut whenever the ACK lies beyond the last fast
    /// retransmit's or timeout's recover).
    #[serde(default)]
    pub ns2_dupack_action: bool,
    /// NewReno and DCTCP flows take an ECN-Echo right after a timeout as ns-2 (tcp/tcp.cc `ecn`,
    /// ns-2.35 lines 1438-1443: `if (seqno > recover_ || last_cwnd_action_ ==
    /// CWND_ACTION_TIMEOUT)`): while the last window action is a timeout (no ECN cut or fast
    /// retransmit since), the first ACK with ECN-Echo cuts the window, new or duplicate (with
    /// `ns2_dupack_action`), without waiting for the ACK to pass what was sent before the timeout.
    /// Default false (an ECN-Echo after a timeout is taken once the ACK passes everything sent
    /// before it).
    #[serde(default)]
    pub ns2_ecn_after_timeout: bool,
    /// NewReno and DCTCP flows take a new ACK's ECN-Echo before its window update, as ns-2's
    /// Agent/TCP/Newreno (tcp/tcp-newreno.cc `recv`, line 222, calls `ecn()` before the exit from
    /// recovery and `recv_newack_helper`; DCTCP's alpha is counted before, as ns-2's DCTCP
    /// sender does): the cut acts on the window before the ACK grows it, and on the full ACK
    /// that ends fast recovery it halves (DCTCP: scales) the inflated window (`windowd()` =
    /// min(cwnd_ + dupwnd_, wnd_)), which leaving recovery then keeps (`dupwnd_ = 0`). The
    /// window then grows by the ACK only as ns-2's `recv_newack_helper` with `old_ecn_ 0`
    /// allows: not on an ACK with ECN-Echo, but for the first new ACK with ECN-Echo of the flow
    /// (`ect_` is still 0 there). Default false (the ACK grows the window, NewReno on ECN-Echo
    /// ACKs too, then the cut; at the end of recovery the deflated window is cut).
    #[serde(default)]
    pub ns2_ecn_first: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            iw_pkts: d_iw(),
            min_rto_s: d_min_rto(),
            initial_rto_s: d_init_rto(),
            max_rto_s: d_max_rto(),
            clock_granularity_s: d_gran(),
            dupack_threshold: d_dupthresh(),
            delayed_ack: false,
            delack_count: d_delack_count(),
            delack_timeout_s: d_delack_timeout(),
            rwnd_pkts: None,
            ecn: false,
            ca_increase: crate::cc::CaIncrease::PerAck,
            ect_on_retransmissions: None,
            rtt_sampling: crate::transport::RttSampling::PerAck,
            rto_estimator: crate::transport::RtoEstimator::Rfc6298,
            initial_ssthresh_pkts: None,
            ns2_partial_window_deflation: false,
            ns2_exit_recovery: false,
            ns2_limited_transmit: false,
            ns2_halve_window: false,
            ns2_halve_whole_segments: false,
            ns2_recovery_maxburst: false,
            ns2_timeout_after_ecn: false,
            ns2_dupack_action: false,
            ns2_ecn_after_timeout: false,
            ns2_ecn_first: false,
        }
    }
}

/// A trace the recorder can keep.
#[derive(
    Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// Queue length of the recorded ports, sampled every queue_interval_s (or at every change).
    Queue,
    /// Cumulative bytes sent by the recorded ports, sampled with the queue.
    Link,
    /// cwnd, ssthresh and the fast-recovery flag of every flow, sampled every flow_interval_s.
    Cwnd,
    /// DCTCP alpha of every flow, sampled every flow_interval_s.
    Alpha,
    /// In-order bytes delivered per flow, sampled every flow_interval_s.
    Delivered,
    /// Every drop and mark at any port.
    Drops,
    /// Sending rate (and QCN target rate) of every rate-based flow, sampled every flow_interval_s.
    Rate,
    /// Every 802.1Qau feedback frame: when a congestion point sends it (queue, quantized
    /// values) and when its source applies it (rate before and after).
    Feedback,
}

pub const ALL_TRACES: [TraceKind; 8] = [
    TraceKind::Queue,
    TraceKind::Link,
    TraceKind::Cwnd,
    TraceKind::Alpha,
    TraceKind::Delivered,
    TraceKind::Drops,
    TraceKind::Rate,
    TraceKind::Feedback,
];

fn d_qint() -> f64 {
    1e-5
}
fn d_fint() -> f64 {
    1e-4
}
fn d_traces() -> Vec<TraceKind> {
    ALL_TRACES.to_vec()
}

/// Recording options (ALGORITHMS.md §8 metric definitions).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordConfig {
    /// Traces to keep. Default: all ("queue", "link", "cwnd", "alpha", "delivered", "drops", "rate", "feedback").
    #[serde(default = "d_traces")]
    pub traces: Vec<TraceKind>,
    /// Queue and link sampling interval, seconds (> 0; at most 1e8 samples per series over until_s). Default 1e-5. Memory: recorded ports x samples, counted by the memory budget.
    #[serde(default = "d_qint")]
    pub queue_interval_s: f64,
    /// Record the queue at every change instead of sampling (exact, larger; capped inside the memory budget, see the `truncated` table). Default false.
    #[serde(default)]
    pub queue_every_change: bool,
    /// Per-flow sampling interval (cwnd, alpha, delivered), seconds (> 0; at most 1e8 samples per series over until_s). Default 1e-4. Memory: flows x samples, counted by the memory budget.
    #[serde(default = "d_fint")]
    pub flow_interval_s: f64,
    /// Ports to record, by name "from->to". Default: the template's bottleneck(s); in a graph every switch port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<String>>,
}

impl Default for RecordConfig {
    fn default() -> Self {
        RecordConfig {
            traces: d_traces(),
            queue_interval_s: d_qint(),
            queue_every_change: false,
            flow_interval_s: d_fint(),
            ports: None,
        }
    }
}

// ------------------------------------------------------------------------------------ parsing

/// Input format of a scenario text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

/// Parse and validate a scenario; errors name the field path.
pub fn parse(text: &str, format: Format) -> Result<Scenario, ScenarioError> {
    let sc: Scenario = match format {
        Format::Json => {
            let de = &mut serde_json::Deserializer::from_str(text);
            serde_path_to_error::deserialize(de)
                .map_err(|e| serde_error(e.path().to_string(), e.inner().to_string()))?
        }
        Format::Toml => {
            let de = toml::Deserializer::new(text);
            serde_path_to_error::deserialize(de).map_err(|e| {
                let msg = e.inner().message().to_string();
                serde_error(e.path().to_string(), msg)
            })?
        }
    };
    sc.validate()?;
    Ok(sc)
}

/// Parse and validate one AQM table given as JSON (e.g. `{"kind": "red", ...}`), for using a
/// queue policy on its own (unit replays); errors name the field under `aqm`.
pub fn parse_aqm(json: &str, packet_bytes: u32) -> Result<AqmConfig, ScenarioError> {
    #[derive(Deserialize)]
    struct Wrap {
        aqm: AqmConfig,
    }
    let text = format!("{{\"aqm\": {json}}}");
    let de = &mut serde_json::Deserializer::from_str(&text);
    let w: Wrap = serde_path_to_error::deserialize(de)
        .map_err(|e| serde_error(e.path().to_string(), e.inner().to_string()))?;
    validate_aqm("aqm", &w.aqm, None, None, packet_bytes, "buffer_pkts")?;
    Ok(w.aqm)
}

fn serde_error(path: String, msg: String) -> ScenarioError {
    let (path, msg) = crate::tagged::merge_path(&path, &msg);
    let path = if path.is_empty() || path == "." {
        "<scenario>".to_string()
    } else {
        path
    };
    let mut msg = msg.lines().next().unwrap_or("").trim().to_string();
    // serde_json appends a position in the JSON text, which is not the user's file: drop it
    if let Some(i) = msg.rfind(" at line ") {
        if msg[i..].contains(" column ") {
            msg.truncate(i);
        }
    }
    let hint = if msg.contains("unknown field")
        || msg.contains("unknown variant")
        || msg.contains("missing field")
        || msg.contains("expected")
    {
        msg
    } else {
        format!("{msg} (expected a value of the documented type)")
    };
    ScenarioError::new(path, "", hint)
}

// --------------------------------------------------------------------------------- validation

fn pos(path: &str, v: f64) -> Result<(), ScenarioError> {
    if !v.is_finite() || v <= 0.0 {
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            "must be a finite number > 0",
        ));
    }
    Ok(())
}
fn nonneg(path: &str, v: f64) -> Result<(), ScenarioError> {
    if !v.is_finite() || v < 0.0 {
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            "must be a finite number >= 0",
        ));
    }
    Ok(())
}
/// The smallest positive duration the engine can represent: 1 ps (`units::SimTime`). A positive
/// time below it would round to zero, and a zero-length timer that backs off by doubling stays
/// zero and fires without end.
const MIN_POSITIVE_TIME_S: f64 = 1e-12;

fn time_s(path: &str, v: f64, allow_zero: bool) -> Result<(), ScenarioError> {
    if allow_zero {
        nonneg(path, v)?
    } else {
        pos(path, v)?;
        if v < MIN_POSITIVE_TIME_S {
            return Err(ScenarioError::new(
                path,
                fmt_f(v),
                format!(
                    "must be >= {MIN_POSITIVE_TIME_S:e} s (1 ps, the engine's time resolution)"
                ),
            ));
        }
    }
    if v > MAX_TIME_S {
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            format!("must be <= {MAX_TIME_S} s"),
        ));
    }
    Ok(())
}
fn rate(path: &str, v: f64) -> Result<(), ScenarioError> {
    pos(path, v)?;
    if !(1.0..=MAX_RATE_BPS).contains(&v) {
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            format!("must be between 1 and {MAX_RATE_BPS:e} bits/s"),
        ));
    }
    Ok(())
}
fn unit_interval(path: &str, v: f64, lo_open: bool) -> Result<(), ScenarioError> {
    let ok = v.is_finite() && v <= 1.0 && if lo_open { v > 0.0 } else { v >= 0.0 };
    if !ok {
        let range = if lo_open { "in (0, 1]" } else { "in [0, 1]" };
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            format!("must be {range}"),
        ));
    }
    Ok(())
}
fn at_least(path: &str, v: u64, min: u64) -> Result<(), ScenarioError> {
    if v < min {
        return Err(ScenarioError::new(path, v, format!("must be >= {min}")));
    }
    Ok(())
}

/// Shortest float text that round-trips (and `nan`/`inf` as TOML writes them).
pub fn fmt_f(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if v != 0.0 && !(1e-4..1e16).contains(&v.abs()) {
        // `{}` would print 5e-324 as 324 digits
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

impl Scenario {
    /// Check ranges and references. Called by [`parse`]; call it again after editing.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        time_s("until_s", self.until_s, false)?;
        if !(MIN_PACKET_BYTES..=MAX_PACKET_BYTES).contains(&self.packet_bytes) {
            return Err(ScenarioError::new(
                "packet_bytes",
                self.packet_bytes,
                format!("must be between {MIN_PACKET_BYTES} and {MAX_PACKET_BYTES}"),
            ));
        }
        if self.ack_bytes < 1 || self.ack_bytes > self.packet_bytes {
            return Err(ScenarioError::new(
                "ack_bytes",
                self.ack_bytes,
                "must be between 1 and packet_bytes",
            ));
        }
        self.validate_tcp()?;
        self.validate_dctcp()?;
        self.qcn_rp.validate("qcn_rp")?;
        self.asm_rp.validate("asm_rp")?;
        if self.feedback_bytes < 1 || self.feedback_bytes > MAX_PACKET_BYTES {
            return Err(ScenarioError::new(
                "feedback_bytes",
                self.feedback_bytes,
                format!("must be between 1 and {MAX_PACKET_BYTES}"),
            ));
        }
        nonneg("dx.q_eps_s", self.dx.q_eps_s)?;
        if let Some(r) = self.dx.base_rtt_s {
            time_s("dx.base_rtt_s", r, false)?;
            if self.dx.base_rtt_from_path {
                return Err(ScenarioError::new(
                    "dx.base_rtt_from_path",
                    "true",
                    "give either dx.base_rtt_s or dx.base_rtt_from_path = true, not both",
                ));
            }
        }
        self.validate_record()?;
        match &self.topology {
            Topology::Dumbbell(d) => self.validate_dumbbell(d)?,
            Topology::Graph(g) => self.validate_graph(g)?,
            Topology::LeafSpine(l) => {
                for (f, v) in [
                    ("leaves", l.leaves),
                    ("spines", l.spines),
                    ("hosts_per_leaf", l.hosts_per_leaf),
                ] {
                    at_least(&format!("topology.{f}"), v as u64, 1)?;
                    if v > 4096 {
                        return Err(ScenarioError::new(
                            format!("topology.{f}"),
                            v,
                            "must be <= 4096",
                        ));
                    }
                }
                rate("topology.host_bps", l.host_bps)?;
                rate("topology.fabric_bps", l.fabric_bps)?;
                time_s("topology.link_delay_s", l.link_delay_s, true)?;
                if let Some(b) = l.buffer_pkts {
                    at_least("topology.buffer_pkts", b as u64, 1)?;
                }
            }
        }
        let buf = match &self.topology {
            Topology::Dumbbell(d) => (
                d.buffer_pkts.or(if d.buffer_bytes.is_none() {
                    Some(DEFAULT_BUFFER_PKTS)
                } else {
                    None
                }),
                d.buffer_bytes,
            ),
            Topology::LeafSpine(l) => (Some(l.buffer_pkts.unwrap_or(DEFAULT_BUFFER_PKTS)), None),
            Topology::Graph(_) => (None, None),
        };
        validate_aqm(
            "aqm",
            &self.aqm,
            buf.0,
            buf.1,
            self.packet_bytes,
            "topology.buffer_pkts",
        )?;
        self.validate_flows()?;
        Ok(())
    }

    fn validate_tcp(&self) -> Result<(), ScenarioError> {
        let t = &self.tcp;
        at_least("tcp.iw_pkts", t.iw_pkts as u64, 1)?;
        if let Some(s) = t.initial_ssthresh_pkts {
            if !s.is_finite() || s < 1.0 {
                return Err(ScenarioError::new(
                    "tcp.initial_ssthresh_pkts",
                    fmt_f(s),
                    "must be a finite number of segments >= 1",
                ));
            }
        }
        time_s("tcp.min_rto_s", t.min_rto_s, false)?;
        time_s("tcp.initial_rto_s", t.initial_rto_s, false)?;
        time_s("tcp.max_rto_s", t.max_rto_s, false)?;
        if t.max_rto_s < t.min_rto_s {
            return Err(ScenarioError::new(
                "tcp.max_rto_s",
                fmt_f(t.max_rto_s),
                format!("must be >= tcp.min_rto_s ({})", fmt_f(t.min_rto_s)),
            ));
        }
        time_s("tcp.clock_granularity_s", t.clock_granularity_s, false)?;
        at_least("tcp.dupack_threshold", t.dupack_threshold as u64, 1)?;
        at_least("tcp.delack_count", t.delack_count as u64, 1)?;
        time_s("tcp.delack_timeout_s", t.delack_timeout_s, false)?;
        if let Some(r) = t.rwnd_pkts {
            at_least("tcp.rwnd_pkts", r as u64, 1)?;
        }
        Ok(())
    }

    fn validate_dctcp(&self) -> Result<(), ScenarioError> {
        let d = &self.dctcp;
        unit_interval("dctcp.g", d.g, true)?;
        unit_interval("dctcp.alpha_init", d.alpha_init, false)?;
        if let Some(t) = d.alpha_reset_s {
            time_s("dctcp.alpha_reset_s", t, true)?;
        }
        unit_interval("dctcp.alpha_reset_to", d.alpha_reset_to, false)?;
        if !d.min_cwnd_pkts.is_finite() || d.min_cwnd_pkts < 1.0 || d.min_cwnd_pkts > 1e6 {
            return Err(ScenarioError::new(
                "dctcp.min_cwnd_pkts",
                fmt_f(d.min_cwnd_pkts),
                "must be between 1 and 1e6 packets",
            ));
        }
        Ok(())
    }

    fn validate_record(&self) -> Result<(), ScenarioError> {
        let r = &self.record;
        time_s("record.queue_interval_s", r.queue_interval_s, false)?;
        time_s("record.flow_interval_s", r.flow_interval_s, false)?;
        // bound the number of samples so a typo cannot exhaust memory
        for (p, iv) in [
            ("record.queue_interval_s", r.queue_interval_s),
            ("record.flow_interval_s", r.flow_interval_s),
        ] {
            if self.until_s / iv > 1e8 {
                return Err(ScenarioError::new(
                    p,
                    fmt_f(iv),
                    format!(
                        "gives more than 1e8 samples per series over until_s = {}; use an interval >= {:e} s",
                        fmt_f(self.until_s),
                        self.until_s / 1e8
                    ),
                ));
            }
        }
        Ok(())
    }

    fn validate_dumbbell(&self, d: &Dumbbell) -> Result<(), ScenarioError> {
        rate("topology.bottleneck_bps", d.bottleneck_bps)?;
        if let Some(a) = d.access_bps {
            rate("topology.access_bps", a)?;
        }
        if let Some(s) = d.senders {
            at_least("topology.senders", s as u64, 1)?;
            if s > MAX_TEMPLATE_COUNT {
                return Err(ScenarioError::new(
                    "topology.senders",
                    s,
                    format!("must be <= {MAX_TEMPLATE_COUNT}"),
                ));
            }
        }
        at_least("topology.receivers", d.receivers as u64, 1)?;
        if d.receivers > MAX_TEMPLATE_COUNT {
            return Err(ScenarioError::new(
                "topology.receivers",
                d.receivers,
                format!("must be <= {MAX_TEMPLATE_COUNT}"),
            ));
        }
        time_s("topology.bottleneck_delay_s", d.bottleneck_delay_s, true)?;
        match (&d.rtt_s, &d.rtt_per_sender_s) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    "topology.rtt_per_sender_s",
                    "[...]",
                    "give either topology.rtt_s or topology.rtt_per_sender_s, not both",
                ))
            }
            (None, None) => {
                return Err(ScenarioError::new(
                    "topology.rtt_s",
                    "",
                    "missing: give topology.rtt_s (seconds, > 0) or topology.rtt_per_sender_s",
                ))
            }
            (Some(r), None) => self.check_rtt("topology.rtt_s", *r, d)?,
            (None, Some(list)) => {
                let n = self.dumbbell_senders(d)?;
                if list.len() != n as usize {
                    return Err(ScenarioError::new(
                        "topology.rtt_per_sender_s",
                        format!("[{} values]", list.len()),
                        format!("must have one entry per sender ({n})"),
                    ));
                }
                for (i, r) in list.iter().enumerate() {
                    self.check_rtt(&format!("topology.rtt_per_sender_s[{i}]"), *r, d)?;
                }
            }
        }
        if let Some(b) = d.buffer_pkts {
            at_least("topology.buffer_pkts", b as u64, 1)?;
        }
        if let Some(b) = d.buffer_bytes {
            at_least("topology.buffer_bytes", b, self.packet_bytes as u64)?;
        }
        if let Some(b) = d.host_buffer_pkts {
            at_least("topology.host_buffer_pkts", b as u64, 1)?;
        }
        Ok(())
    }

    fn check_rtt(&self, path: &str, r: f64, d: &Dumbbell) -> Result<(), ScenarioError> {
        time_s(path, r, false)?;
        if r / 2.0 < d.bottleneck_delay_s {
            return Err(ScenarioError::new(
                path,
                fmt_f(r),
                format!(
                    "must be >= 2 * topology.bottleneck_delay_s ({})",
                    fmt_f(2.0 * d.bottleneck_delay_s)
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn dumbbell_senders(&self, d: &Dumbbell) -> Result<u32, ScenarioError> {
        match (d.senders, &self.flows) {
            (Some(s), _) => Ok(s),
            (None, Some(f)) => Ok(f.count.max(1)),
            (None, None) => Err(ScenarioError::new(
                "topology.senders",
                "",
                "missing: required when flows are listed explicitly with [[flow]]",
            )),
        }
    }

    fn validate_graph(&self, g: &Graph) -> Result<(), ScenarioError> {
        if g.nodes.is_empty() {
            return Err(ScenarioError::new(
                "topology.nodes",
                "[]",
                "must list at least two nodes",
            ));
        }
        let mut names: HashMap<&str, NodeKind> = HashMap::new();
        for (i, n) in g.nodes.iter().enumerate() {
            if n.name.is_empty() {
                return Err(ScenarioError::new(
                    format!("topology.nodes[{i}].name"),
                    "\"\"",
                    "must be a non-empty name",
                ));
            }
            if names.insert(n.name.as_str(), n.kind).is_some() {
                return Err(ScenarioError::new(
                    format!("topology.nodes[{i}].name"),
                    format!("{:?}", n.name),
                    "must be unique",
                ));
            }
        }
        let mut pairs = std::collections::HashSet::new();
        for (i, l) in g.links.iter().enumerate() {
            let p = format!("topology.links[{i}]");
            for (f, v) in [("from", &l.from), ("to", &l.to)] {
                if !names.contains_key(v.as_str()) {
                    return Err(ScenarioError::new(
                        format!("{p}.{f}"),
                        format!("{v:?}"),
                        "must name a node of topology.nodes",
                    ));
                }
            }
            if l.from == l.to {
                return Err(ScenarioError::new(
                    format!("{p}.to"),
                    format!("{:?}", l.to),
                    "must differ from the link's `from`",
                ));
            }
            rate(&format!("{p}.rate_bps"), l.rate_bps)?;
            time_s(&format!("{p}.delay_s"), l.delay_s, true)?;
            if let Some(b) = l.buffer_pkts {
                at_least(&format!("{p}.buffer_pkts"), b as u64, 1)?;
            }
            if let Some(b) = l.buffer_bytes {
                at_least(&format!("{p}.buffer_bytes"), b, self.packet_bytes as u64)?;
            }
            if let Some(a) = &l.aqm {
                validate_aqm(
                    &format!("{p}.aqm"),
                    a,
                    l.buffer_pkts,
                    l.buffer_bytes,
                    self.packet_bytes,
                    &format!("{p}.buffer_pkts"),
                )?;
            }
            let mut dirs = vec![(l.from.clone(), l.to.clone())];
            if l.duplex {
                dirs.push((l.to.clone(), l.from.clone()));
            }
            for d in dirs {
                if !pairs.insert(d.clone()) {
                    return Err(ScenarioError::new(
                        p.clone(),
                        format!("{}->{}", d.0, d.1),
                        "duplicate directed link: at most one link per ordered pair of nodes",
                    ));
                }
            }
        }
        Ok(())
    }

    fn validate_flows(&self) -> Result<(), ScenarioError> {
        if let Some(f) = &self.flows {
            at_least("flows.count", f.count as u64, 1)?;
            if f.count > MAX_TEMPLATE_COUNT {
                return Err(ScenarioError::new(
                    "flows.count",
                    f.count,
                    format!("must be <= {MAX_TEMPLATE_COUNT}"),
                ));
            }
            time_s("flows.start_s", f.start_s, true)?;
            time_s("flows.start_jitter_s", f.start_jitter_s, true)?;
            if let Some(s) = f.size_bytes {
                at_least("flows.size_bytes", s, 1)?;
            }
            if !matches!(self.topology, Topology::Dumbbell(_)) {
                return Err(ScenarioError::new("flows", "{...}", "the [flows] template needs the dumbbell topology; otherwise list flows as [[flow]] or use a [[workload]]"));
            }
        }
        if self.flows.is_none() && self.flow.is_empty() && self.workload.is_empty() {
            return Err(ScenarioError::new(
                "flows",
                "",
                "no flows: give [flows] with count >= 1, [[flow]] entries or a [[workload]]",
            ));
        }
        let hosts: Option<HashMap<&str, NodeKind>> = match &self.topology {
            Topology::Graph(g) => Some(g.nodes.iter().map(|n| (n.name.as_str(), n.kind)).collect()),
            Topology::Dumbbell(_) | Topology::LeafSpine(_) => None,
        };
        self.validate_workloads(hosts.as_ref())?;
        for (i, f) in self.flow.iter().enumerate() {
            let p = format!("flow[{i}]");
            time_s(&format!("{p}.start_s"), f.start_s, true)?;
            if let Some(r) = f.rate_bps {
                rate(&format!("{p}.rate_bps"), r)?;
                if f.cc != CcKind::Cbr {
                    return Err(ScenarioError::new(
                        format!("{p}.rate_bps"),
                        fmt_f(r),
                        "only for cc = \"cbr\" flows",
                    ));
                }
            }
            if let Some(st) = f.stop_s {
                time_s(&format!("{p}.stop_s"), st, false)?;
                if st <= f.start_s {
                    return Err(ScenarioError::new(
                        format!("{p}.stop_s"),
                        fmt_f(st),
                        format!("must be > start_s ({})", fmt_f(f.start_s)),
                    ));
                }
            }
            if let Some(s) = f.size_bytes {
                at_least(&format!("{p}.size_bytes"), s, 1)?;
            }
            if let Some(h) = &hosts {
                for (k, v) in [("src", &f.src), ("dst", &f.dst)] {
                    check_host(Some(h), format!("{p}.{k}"), v)?;
                }
                if f.src == f.dst {
                    return Err(ScenarioError::new(
                        format!("{p}.dst"),
                        format!("{:?}", f.dst),
                        "must differ from src",
                    ));
                }
            }
        }
        Ok(())
    }

    fn validate_workloads(
        &self,
        hosts: Option<&HashMap<&str, NodeKind>>,
    ) -> Result<(), ScenarioError> {
        use crate::workload::WorkloadSpec;
        let check_host = |path: String, name: &str| check_host(hosts, path, name);
        for (i, w) in self.workload.iter().enumerate() {
            let p = format!("workload[{i}]");
            match w {
                WorkloadSpec::Incast(x) => {
                    check_host(format!("{p}.client"), &x.client)?;
                    if x.servers.is_empty() {
                        return Err(ScenarioError::new(
                            format!("{p}.servers"),
                            "[]",
                            "must list at least one host",
                        ));
                    }
                    for (j, s) in x.servers.iter().enumerate() {
                        check_host(format!("{p}.servers[{j}]"), s)?;
                        if *s == x.client {
                            return Err(ScenarioError::new(
                                format!("{p}.servers[{j}]"),
                                format!("{s:?}"),
                                "must differ from the client",
                            ));
                        }
                    }
                    match (x.block_bytes, x.total_bytes) {
                        (Some(_), Some(_)) => {
                            return Err(ScenarioError::new(
                                format!("{p}.total_bytes"),
                                "",
                                "give either block_bytes or total_bytes, not both",
                            ))
                        }
                        (None, None) => return Err(ScenarioError::new(
                            format!("{p}.block_bytes"),
                            "",
                            "missing: give block_bytes (per server) or total_bytes (split evenly)",
                        )),
                        (Some(b), None) => at_least(&format!("{p}.block_bytes"), b, 1)?,
                        (None, Some(t)) => {
                            at_least(&format!("{p}.total_bytes"), t, x.servers.len() as u64)?
                        }
                    }
                    at_least(&format!("{p}.rounds"), x.rounds as u64, 1)?;
                    time_s(&format!("{p}.gap_s"), x.gap_s, true)?;
                    time_s(&format!("{p}.start_s"), x.start_s, true)?;
                    if x.cc.is_empty() {
                        return Err(ScenarioError::new(
                            format!("{p}.cc"),
                            "[]",
                            "must list at least one algorithm",
                        ));
                    }
                }
                WorkloadSpec::Poisson(x) => {
                    for (f, list) in [("src", &x.src), ("dst", &x.dst)] {
                        if list.is_empty() {
                            return Err(ScenarioError::new(
                                format!("{p}.{f}"),
                                "[]",
                                "must list at least one host",
                            ));
                        }
                        for (j, s) in list.iter().enumerate() {
                            check_host(format!("{p}.{f}[{j}]"), s)?;
                        }
                    }
                    if x.src.len() == 1 && x.dst.len() == 1 && x.src[0] == x.dst[0] {
                        return Err(ScenarioError::new(
                            format!("{p}.dst"),
                            format!("{:?}", x.dst[0]),
                            "must contain a host other than the only source",
                        ));
                    }
                    if !(x.load.is_finite() && x.load > 0.0 && x.load <= 10.0) {
                        return Err(ScenarioError::new(
                            format!("{p}.load"),
                            fmt_f(x.load),
                            "must be in (0, 10] (fraction of reference_bps)",
                        ));
                    }
                    rate(&format!("{p}.reference_bps"), x.reference_bps)?;
                    x.size.validate(&format!("{p}.size"))?;
                    time_s(&format!("{p}.start_s"), x.start_s, true)?;
                    if let Some(st) = x.stop_s {
                        time_s(&format!("{p}.stop_s"), st, false)?;
                    }
                    if x.cc.is_empty() {
                        return Err(ScenarioError::new(
                            format!("{p}.cc"),
                            "[]",
                            "must list at least one algorithm",
                        ));
                    }
                    // bound the number of flows a typo can create
                    let horizon = x.stop_s.unwrap_or(self.until_s).min(self.until_s) - x.start_s;
                    if x.arrival_rate() * horizon.max(0.0) > 5e6 {
                        return Err(ScenarioError::new(
                            format!("{p}.load"),
                            fmt_f(x.load),
                            format!(
                                "would create about {:.0} flows before until_s; at most 5e6",
                                x.arrival_rate() * horizon
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The explicit form: graph topology, every flow listed, recorded ports named.
    pub fn expand(&self) -> Result<Scenario, ScenarioError> {
        self.validate()?;
        let mut out = self.clone();
        let mut flows = self.flow.clone();
        if let Topology::LeafSpine(l) = &self.topology {
            let mut out2 = self.clone();
            out2.topology = Topology::Graph(expand_leaf_spine(l, self.aqm.clone()));
            if out2.record.ports.is_none() {
                out2.record.ports = Some(
                    (0..l.leaves)
                        .flat_map(|i| {
                            (0..l.spines)
                                .map(move |j| port_name(&format!("leaf{i}"), &format!("spine{j}")))
                        })
                        .collect(),
                );
            }
            return out2.expand();
        }
        match &self.topology {
            Topology::LeafSpine(_) => unreachable!("handled above"),
            Topology::Graph(g) => {
                let mut links = Vec::new();
                let kinds: HashMap<&str, NodeKind> =
                    g.nodes.iter().map(|n| (n.name.as_str(), n.kind)).collect();
                for l in &g.links {
                    let mut fwd = l.clone();
                    fwd.duplex = false;
                    if fwd.aqm.is_none() {
                        fwd.aqm = Some(if kinds[l.from.as_str()] == NodeKind::Switch {
                            self.aqm.clone()
                        } else {
                            AqmConfig::DropTail
                        });
                    }
                    if l.duplex {
                        let mut rev = fwd.clone();
                        std::mem::swap(&mut rev.from, &mut rev.to);
                        if l.aqm.is_none() {
                            rev.aqm = Some(if kinds[l.to.as_str()] == NodeKind::Switch {
                                self.aqm.clone()
                            } else {
                                AqmConfig::DropTail
                            });
                        }
                        links.push(fwd);
                        links.push(rev);
                    } else {
                        links.push(fwd);
                    }
                }
                if out.record.ports.is_none() {
                    out.record.ports = Some(
                        links
                            .iter()
                            .filter(|l| kinds[l.from.as_str()] == NodeKind::Switch)
                            .map(|l| port_name(&l.from, &l.to))
                            .collect(),
                    );
                }
                out.topology = Topology::Graph(Graph {
                    nodes: g.nodes.clone(),
                    links,
                    ecmp: g.ecmp,
                });
            }
            Topology::Dumbbell(d) => {
                let (graph, bottleneck) = self.expand_dumbbell(d)?;
                if let Some(t) = &self.flows {
                    let s = self.dumbbell_senders(d)?;
                    for k in 0..t.count {
                        let mut start = t.start_s;
                        if t.start_jitter_s > 0.0 {
                            let mut rng = Rng::stream(self.seed, &format!("flows/start/{k}"));
                            start += rng.uniform() * t.start_jitter_s;
                        }
                        flows.push(FlowSpec {
                            src: format!("s{}", k % s),
                            dst: format!("r{}", k % d.receivers),
                            cc: t.cc,
                            start_s: start,
                            size_bytes: t.size_bytes,
                            stop_s: None,
                            rate_bps: None,
                        });
                    }
                } else {
                    let s = self.dumbbell_senders(d)?;
                    for (i, f) in flows.iter().enumerate() {
                        let ok_src = f
                            .src
                            .strip_prefix('s')
                            .and_then(|x| x.parse::<u32>().ok())
                            .is_some_and(|x| x < s);
                        let ok_dst = f
                            .dst
                            .strip_prefix('r')
                            .and_then(|x| x.parse::<u32>().ok())
                            .is_some_and(|x| x < d.receivers);
                        if !ok_src {
                            return Err(ScenarioError::new(
                                format!("flow[{i}].src"),
                                format!("{:?}", f.src),
                                format!("must name a dumbbell sender s0..s{}", s - 1),
                            ));
                        }
                        if !ok_dst {
                            return Err(ScenarioError::new(
                                format!("flow[{i}].dst"),
                                format!("{:?}", f.dst),
                                format!("must name a dumbbell receiver r0..r{}", d.receivers - 1),
                            ));
                        }
                    }
                }
                if out.record.ports.is_none() {
                    out.record.ports = Some(vec![bottleneck]);
                }
                out.topology = Topology::Graph(graph);
            }
        }
        out.flows = None;
        out.flow = flows;
        out.validate()?;
        // recorded ports must exist
        if let (Topology::Graph(g), Some(ports)) = (&out.topology, &out.record.ports) {
            let names: std::collections::HashSet<String> =
                g.links.iter().map(|l| port_name(&l.from, &l.to)).collect();
            for (i, p) in ports.iter().enumerate() {
                if !names.contains(p) {
                    return Err(ScenarioError::new(
                        format!("record.ports[{i}]"),
                        format!("{p:?}"),
                        "must name a port \"from->to\" of a link",
                    ));
                }
            }
        }
        Ok(out)
    }

    fn expand_dumbbell(&self, d: &Dumbbell) -> Result<(Graph, String), ScenarioError> {
        let s = self.dumbbell_senders(d)?;
        let access = d.access_bps.unwrap_or(d.bottleneck_bps);
        let (bp, bb) = match (d.buffer_pkts, d.buffer_bytes) {
            (None, None) => (Some(DEFAULT_BUFFER_PKTS), None),
            x => x,
        };
        let mut nodes = Vec::new();
        let mut links = Vec::new();
        let link =
            |from: &str, to: &str, rate_bps: f64, delay_s: f64, host: bool, aqm: AqmConfig| {
                LinkSpec {
                    from: from.into(),
                    to: to.into(),
                    rate_bps,
                    delay_s,
                    buffer_pkts: if host { d.host_buffer_pkts.or(bp) } else { bp },
                    buffer_bytes: if host && d.host_buffer_pkts.is_some() {
                        None
                    } else {
                        bb
                    },
                    aqm: Some(aqm),
                    duplex: false,
                }
            };
        let (left, right) = if d.receivers == 1 {
            ("sw", "sw")
        } else {
            ("sw0", "sw1")
        };
        for i in 0..s {
            nodes.push(NodeSpec {
                name: format!("s{i}"),
                kind: NodeKind::Host,
            });
        }
        nodes.push(NodeSpec {
            name: left.into(),
            kind: NodeKind::Switch,
        });
        if right != left {
            nodes.push(NodeSpec {
                name: right.into(),
                kind: NodeKind::Switch,
            });
        }
        for j in 0..d.receivers {
            nodes.push(NodeSpec {
                name: format!("r{j}"),
                kind: NodeKind::Host,
            });
        }
        for i in 0..s {
            let rtt = match (&d.rtt_s, &d.rtt_per_sender_s) {
                (Some(r), _) => *r,
                (None, Some(l)) => l[i as usize],
                _ => unreachable!("validated"),
            };
            let a = (rtt / 2.0 - d.bottleneck_delay_s).max(0.0);
            let name = format!("s{i}");
            links.push(link(&name, left, access, a, true, AqmConfig::DropTail));
            links.push(link(left, &name, access, a, false, AqmConfig::DropTail));
        }
        let bottleneck = if d.receivers == 1 {
            links.push(link(
                "sw",
                "r0",
                d.bottleneck_bps,
                d.bottleneck_delay_s,
                false,
                self.aqm.clone(),
            ));
            links.push(link(
                "r0",
                "sw",
                d.bottleneck_bps,
                d.bottleneck_delay_s,
                true,
                AqmConfig::DropTail,
            ));
            port_name("sw", "r0")
        } else {
            links.push(link(
                "sw0",
                "sw1",
                d.bottleneck_bps,
                d.bottleneck_delay_s,
                false,
                self.aqm.clone(),
            ));
            links.push(link(
                "sw1",
                "sw0",
                d.bottleneck_bps,
                d.bottleneck_delay_s,
                false,
                AqmConfig::DropTail,
            ));
            for j in 0..d.receivers {
                let name = format!("r{j}");
                links.push(link("sw1", &name, access, 0.0, false, AqmConfig::DropTail));
                links.push(link(&name, "sw1", access, 0.0, true, AqmConfig::DropTail));
            }
            port_name("sw0", "sw1")
        };
        Ok((
            Graph {
                nodes,
                links,
                ecmp: false,
            },
            bottleneck,
        ))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("scenario serializes")
    }

    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string_pretty(self).map_err(|e| e.to_string())
    }
}

fn expand_leaf_spine(l: &LeafSpine, aqm: AqmConfig) -> Graph {
    let buf = Some(l.buffer_pkts.unwrap_or(DEFAULT_BUFFER_PKTS));
    let mut nodes = Vec::new();
    let mut links = Vec::new();
    let link =
        |from: String, to: String, rate_bps: f64, buffer_pkts: Option<u32>, aqm: AqmConfig| {
            LinkSpec {
                from,
                to,
                rate_bps,
                delay_s: l.link_delay_s,
                buffer_pkts,
                buffer_bytes: None,
                aqm: Some(aqm),
                duplex: false,
            }
        };
    for j in 0..l.spines {
        nodes.push(NodeSpec {
            name: format!("spine{j}"),
            kind: NodeKind::Switch,
        });
    }
    for i in 0..l.leaves {
        nodes.push(NodeSpec {
            name: format!("leaf{i}"),
            kind: NodeKind::Switch,
        });
        for j in 0..l.spines {
            links.push(link(
                format!("leaf{i}"),
                format!("spine{j}"),
                l.fabric_bps,
                buf,
                aqm.clone(),
            ));
            links.push(link(
                format!("spine{j}"),
                format!("leaf{i}"),
                l.fabric_bps,
                buf,
                aqm.clone(),
            ));
        }
        for k in 0..l.hosts_per_leaf {
            let h = format!("h{}", i * l.hosts_per_leaf + k);
            nodes.push(NodeSpec {
                name: h.clone(),
                kind: NodeKind::Host,
            });
            links.push(link(
                h.clone(),
                format!("leaf{i}"),
                l.host_bps,
                buf,
                AqmConfig::DropTail,
            ));
            links.push(link(format!("leaf{i}"), h, l.host_bps, buf, aqm.clone()));
        }
    }
    Graph {
        nodes,
        links,
        ecmp: true,
    }
}

/// `name` must be a host of the graph (`hosts`); templates (None) are checked after expansion.
fn check_host(
    hosts: Option<&HashMap<&str, NodeKind>>,
    path: String,
    name: &str,
) -> Result<(), ScenarioError> {
    match hosts.map(|h| h.get(name)) {
        None | Some(Some(NodeKind::Host)) => Ok(()),
        Some(Some(NodeKind::Switch)) => Err(ScenarioError::new(
            path,
            format!("{name:?}"),
            "must name a host, not a switch",
        )),
        Some(None) => Err(ScenarioError::new(
            path,
            format!("{name:?}"),
            "must name a host of topology.nodes",
        )),
    }
}

/// Default switch buffer of the dumbbell template, packets (FIGURES.md D0: large enough for no drops).
pub const DEFAULT_BUFFER_PKTS: u32 = 1000;

/// The name of the port feeding link `from -> to`.
pub fn port_name(from: &str, to: &str) -> String {
    format!("{from}->{to}")
}

fn validate_aqm(
    path: &str,
    a: &AqmConfig,
    buf_pkts: Option<u32>,
    buf_bytes: Option<u64>,
    packet_bytes: u32,
    buf_path: &str,
) -> Result<(), ScenarioError> {
    match a {
        AqmConfig::DropTail => Ok(()),
        AqmConfig::Threshold(ThresholdConfig {
            k_pkts, k_bytes, ..
        }) => match (k_pkts, k_bytes) {
            (Some(_), Some(_)) => Err(ScenarioError::new(
                format!("{path}.k_bytes"),
                "",
                "give either k_pkts or k_bytes, not both",
            )),
            (None, None) => Err(ScenarioError::new(
                format!("{path}.k_pkts"),
                "",
                "missing: the threshold AQM needs k_pkts (packets) or k_bytes",
            )),
            (Some(k), None) => {
                nonneg(&format!("{path}.k_pkts"), *k)?;
                if let Some(b) = buf_pkts {
                    if *k >= b as f64 {
                        return Err(ScenarioError::new(format!("{path}.k_pkts"), fmt_f(*k), format!("must be < {buf_path} ({b}): a threshold at or above the buffer never marks")));
                    }
                }
                if let Some(b) = buf_bytes {
                    if *k * packet_bytes as f64 >= b as f64 {
                        return Err(ScenarioError::new(
                            format!("{path}.k_pkts"),
                            fmt_f(*k),
                            format!(
                                "must be below the byte buffer ({b} B = {:.1} packets)",
                                b as f64 / packet_bytes as f64
                            ),
                        ));
                    }
                }
                Ok(())
            }
            (None, Some(k)) => {
                nonneg(&format!("{path}.k_bytes"), *k)?;
                let cap = buf_bytes
                    .map(|b| b as f64)
                    .into_iter()
                    .chain(buf_pkts.map(|b| b as f64 * packet_bytes as f64))
                    .fold(f64::INFINITY, f64::min);
                if *k >= cap {
                    return Err(ScenarioError::new(
                        format!("{path}.k_bytes"),
                        fmt_f(*k),
                        format!("must be < the buffer ({cap} bytes)"),
                    ));
                }
                Ok(())
            }
        },
        AqmConfig::Qcn(c) => c.validate(path),
        AqmConfig::Asm(c) => c.validate(path),
        AqmConfig::Choke(c) => {
            let red = AqmConfig::Red(c.red_config());
            validate_aqm(path, &red, buf_pkts, buf_bytes, packet_bytes, buf_path)?;
            if !(1..=crate::aqm::choke::MAX_CHOKE_SAMPLES).contains(&c.samples) {
                return Err(ScenarioError::new(
                    format!("{path}.samples"),
                    c.samples,
                    format!(
                        "must be between 1 and {}",
                        crate::aqm::choke::MAX_CHOKE_SAMPLES
                    ),
                ));
            }
            Ok(())
        }
        AqmConfig::Red(RedConfig {
            min_th_pkts,
            max_th_pkts,
            max_p,
            w_q,
            ns2_drop_ecn_above_p,
            ..
        }) => {
            nonneg(&format!("{path}.min_th_pkts"), *min_th_pkts)?;
            nonneg(&format!("{path}.max_th_pkts"), *max_th_pkts)?;
            if max_th_pkts <= min_th_pkts {
                return Err(ScenarioError::new(
                    format!("{path}.max_th_pkts"),
                    fmt_f(*max_th_pkts),
                    format!("must be > {path}.min_th_pkts ({})", fmt_f(*min_th_pkts)),
                ));
            }
            unit_interval(&format!("{path}.max_p"), *max_p, true)?;
            unit_interval(&format!("{path}.w_q"), *w_q, true)?;
            if let Some(p) = ns2_drop_ecn_above_p {
                unit_interval(&format!("{path}.ns2_drop_ecn_above_p"), *p, true)?;
            }
            if let Some(b) = buf_pkts {
                if *min_th_pkts >= b as f64 {
                    return Err(ScenarioError::new(
                        format!("{path}.min_th_pkts"),
                        fmt_f(*min_th_pkts),
                        format!("must be < {buf_path} ({b})"),
                    ));
                }
            }
            Ok(())
        }
    }
}

/// JSON Schema of the scenario (field docs, units, defaults) for docs and the Python mirror.
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Scenario)).expect("schema serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmt_f_prints_tiny_and_huge_values_in_scientific_notation() {
        assert_eq!(fmt_f(5e-324), "5e-324"); // not 324 digits
        assert_eq!(fmt_f(1e300), "1e300");
        assert_eq!(fmt_f(-2.5e-7), "-2.5e-7");
        assert_eq!(fmt_f(0.002), "0.002");
        assert_eq!(fmt_f(10e9), "10000000000");
        assert_eq!(fmt_f(0.0), "0");
        assert_eq!(fmt_f(f64::NAN), "nan");
    }

    const BASE: &str = r#"
seed = 3
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 100e-6
[aqm]
kind = "threshold"
k_pkts = 65
[flows]
count = 2
cc = "dctcp"
"#;

    #[test]
    fn base_parses_and_expands_to_a_graph() {
        let sc = parse(BASE, Format::Toml).unwrap();
        let ex = sc.expand().unwrap();
        let Topology::Graph(g) = &ex.topology else {
            panic!()
        };
        assert_eq!(g.nodes.len(), 4);
        assert_eq!(g.links.len(), 6);
        assert_eq!(ex.flow.len(), 2);
        assert_eq!(
            ex.record.ports.as_deref(),
            Some(&["sw->r0".to_string()][..])
        );
        // expanded form is itself valid and expands to itself
        let again = parse(&ex.to_json(), Format::Json)
            .unwrap()
            .expand()
            .unwrap();
        assert_eq!(again, ex);
    }

    fn err(text: &str) -> String {
        parse(text, Format::Toml).unwrap_err().to_string()
    }

    #[test]
    fn bad_inputs_name_the_field_value_and_rule() {
        assert_eq!(
            err(&BASE.replace("10e9", "-5.0")),
            "topology.bottleneck_bps = -5: must be a finite number > 0"
        );
        assert!(
            err(&BASE.replace("seed = 3", "seed = 3\nbogus = 1")).contains("unknown field `bogus`")
        );
        assert!(err(&BASE.replace("\"dctcp\"", "\"cubic\""))
            .starts_with("flows.cc: unknown variant `cubic`"));
        assert!(err(&BASE.replace("k_pkts = 65", "k_pkts = 2000"))
            .starts_with("aqm.k_pkts = 2000: must be < topology.buffer_pkts (1000)"));
        assert_eq!(
            err(&BASE.replace("count = 2", "count = 0")),
            "flows.count = 0: must be >= 1"
        );
        assert!(
            err(&BASE.replace("kind = \"threshold\"", "kind = \"codel\""))
                .contains("unknown variant `codel`")
        );
        assert!(
            err(&BASE.replace("rtt_s = 100e-6", "rtt_s = nan")).contains("topology.rtt_s = nan")
        );
        assert!(err(&format!("until_s = -1\n{BASE}")).starts_with("until_s = -1"));
        assert!(err(&BASE.replace("k_pkts = 65", "k_pktz = 65")).contains("unknown field `k_pktz`"));
    }
}
