//! The `[topology]` section: the dumbbell and leaf-spine templates and the explicit graph of
//! nodes and directed links, with the names of ports and the defaults of switch buffers.

use super::aqm::validate_aqm;
use super::check::{at_least, rate, time_s};
use super::{fmt_f, MAX_TEMPLATE_COUNT};
use crate::aqm::AqmConfig;
use crate::error::ScenarioError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

fn d_one() -> u32 {
    1
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
    /// Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008) with ECMP.
    FatTree(FatTree),
}

impl<'de> Deserialize<'de> for Topology {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::tagged::{by_kind, variant, Parse};
        const KINDS: &[(&str, Parse<Topology>)] = &[
            ("dumbbell", |v| Ok(Topology::Dumbbell(variant(v)?))),
            ("graph", |v| Ok(Topology::Graph(variant(v)?))),
            ("leaf_spine", |v| Ok(Topology::LeafSpine(variant(v)?))),
            ("fat_tree", |v| Ok(Topology::FatTree(variant(v)?))),
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
    /// Queue policy of every host's egress (NIC) port: a table like `aqm`, e.g. { kind = "fq" } (per-flow fair queueing, as a host serves its flows in turn: Linux sch_fq, an RDMA NIC's round robin between queue pairs). Default: drop_tail, one FIFO (docs/engine.md, "Host NICs").
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::aqm::option_aqm"
    )]
    pub host_aqm: Option<AqmConfig>,
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
    /// Traffic classes and scheduler of this port (docs/engine.md). Default: the scenario's `sched` at switch ports, one FIFO class at hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sched: Option<super::sched::SchedConfig>,
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
    /// How flows use equal-cost shortest paths: "single", "ecmp" (per flow) or "spray" (per packet). Default: "ecmp" when ecmp = true, else "single"; "single" with ecmp = true is an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balance: Option<LoadBalance>,
}

/// How the flows of a fabric use its equal-cost shortest paths.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoadBalance {
    /// One shortest path per pair of hosts (ties broken by link order).
    Single,
    /// Per-flow ECMP: each flow takes one equal-cost path, chosen by a hash of (seed, flow); a flow's packets never reorder across paths.
    Ecmp,
    /// Per-packet spraying: each data packet takes an equal-cost path drawn independently (a hash of seed, flow and the flow's packet count), with the probability it would have if every node on the way picked uniformly among its equal-cost next hops; ACKs keep the flow's ECMP path.
    Spray,
}

impl Graph {
    /// The routing the graph asks for: `load_balance`, else `ecmp`.
    pub fn load_balance(&self) -> LoadBalance {
        self.load_balance.unwrap_or(if self.ecmp {
            LoadBalance::Ecmp
        } else {
            LoadBalance::Single
        })
    }
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
    /// Oversubscription of each leaf (> 0). Default 1. The leaf-spine links run at fabric_bps / oversubscription, so with fabric_bps at full bisection (spines * fabric_bps = hosts_per_leaf * host_bps) it is the ratio of a leaf's host-facing to its spine-facing capacity (3 for 3:1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversubscription: Option<f64>,
    /// "single", "ecmp" (per flow) or "spray" (per packet); see the graph's load_balance. Default "ecmp".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balance: Option<LoadBalance>,
    /// Queue policy of every host's egress (NIC) port: a table like `aqm`, e.g. { kind = "fq" } (per-flow fair queueing, as a host serves its flows in turn: Linux sch_fq, an RDMA NIC's round robin between queue pairs). Default: drop_tail, one FIFO (docs/engine.md, "Host NICs").
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::aqm::option_aqm"
    )]
    pub host_aqm: Option<AqmConfig>,
}

impl LeafSpine {
    /// The rate of every leaf-spine link: fabric_bps / oversubscription.
    pub fn fabric_link_bps(&self) -> f64 {
        self.fabric_bps / self.oversubscription.unwrap_or(1.0)
    }
}

/// Three-tier k-ary fat-tree (Al-Fares, Loukissas and Vahdat, "A Scalable, Commodity Data
/// Center Network Architecture", SIGCOMM 2008, section 2.3 and figure 3): k pods, each with k/2
/// edge and k/2 aggregation switches; every edge switch serves k/2 hosts and links to every
/// aggregation switch of its pod; (k/2)^2 core switches, core j linking to aggregation switch
/// j / (k/2) of every pod. k^3/4 hosts. Names: hosts h0 .. h{k^3/4-1} (host
/// p*(k/2)^2 + i*(k/2) + m is port m of edge switch i of pod p), edge switches e{p}_{i},
/// aggregation switches a{p}_{i}, core switches c{j}. Recorded ports: the edge uplinks
/// e{p}_{i}->a{p}_{j}.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FatTree {
    /// Switch radix: an even number >= 2 (<= 64). k = 4, 8, 16 give 16, 128, 1024 hosts.
    pub k: u32,
    /// Rate of every link unless its tier says otherwise, bits/s (> 0).
    pub link_bps: f64,
    /// One-way delay of every link unless its tier says otherwise, seconds (>= 0).
    pub link_delay_s: f64,
    /// Host-edge link rate, bits/s (> 0). Default link_bps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_bps: Option<f64>,
    /// Edge-aggregation link rate, bits/s (> 0). Default link_bps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge_agg_bps: Option<f64>,
    /// Aggregation-core link rate, bits/s (> 0). Default link_bps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agg_core_bps: Option<f64>,
    /// Host-edge one-way delay, seconds (>= 0). Default link_delay_s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_delay_s: Option<f64>,
    /// Edge-aggregation one-way delay, seconds (>= 0). Default link_delay_s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge_agg_delay_s: Option<f64>,
    /// Aggregation-core one-way delay, seconds (>= 0). Default link_delay_s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agg_core_delay_s: Option<f64>,
    /// Switch port buffer, packets (>= 1). Default 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pkts: Option<u32>,
    /// "single", "ecmp" (per flow) or "spray" (per packet); see the graph's load_balance. Default "ecmp".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balance: Option<LoadBalance>,
    /// Queue policy of every host's egress (NIC) port: a table like `aqm`, e.g. { kind = "fq" } (per-flow fair queueing, as a host serves its flows in turn: Linux sch_fq, an RDMA NIC's round robin between queue pairs). Default: drop_tail, one FIFO (docs/engine.md, "Host NICs").
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::aqm::option_aqm"
    )]
    pub host_aqm: Option<AqmConfig>,
}

/// Largest fat-tree radix the template accepts (k^3/4 = 65536 hosts).
pub const MAX_FAT_TREE_K: u32 = 64;

impl FatTree {
    /// (host-edge, edge-aggregation, aggregation-core) link rates, bits/s.
    pub fn rates(&self) -> [f64; 3] {
        [
            self.host_bps.unwrap_or(self.link_bps),
            self.edge_agg_bps.unwrap_or(self.link_bps),
            self.agg_core_bps.unwrap_or(self.link_bps),
        ]
    }

    /// (host-edge, edge-aggregation, aggregation-core) one-way delays, seconds.
    pub fn delays(&self) -> [f64; 3] {
        [
            self.host_delay_s.unwrap_or(self.link_delay_s),
            self.edge_agg_delay_s.unwrap_or(self.link_delay_s),
            self.agg_core_delay_s.unwrap_or(self.link_delay_s),
        ]
    }

    /// Number of hosts, k^3/4.
    pub fn hosts(&self) -> u64 {
        let k = self.k as u64;
        k * k * k / 4
    }

    /// Number of switches: k^2 in the pods plus (k/2)^2 in the core.
    pub fn switches(&self) -> u64 {
        let k = self.k as u64;
        k * k + (k / 2) * (k / 2)
    }

    /// Number of directed links (ports): 2 per host-edge, edge-aggregation and
    /// aggregation-core cable, k^3/4 cables in each tier.
    pub fn ports(&self) -> u64 {
        6 * self.hosts()
    }

    fn validate(&self) -> Result<(), ScenarioError> {
        if self.k < 2 || !self.k.is_multiple_of(2) || self.k > MAX_FAT_TREE_K {
            return Err(ScenarioError::new(
                "topology.k",
                self.k,
                format!("must be an even number in [2, {MAX_FAT_TREE_K}] (k pods of k/2 edge and k/2 aggregation switches)"),
            ));
        }
        rate("topology.link_bps", self.link_bps)?;
        time_s("topology.link_delay_s", self.link_delay_s, true)?;
        for (f, v) in [
            ("host_bps", self.host_bps),
            ("edge_agg_bps", self.edge_agg_bps),
            ("agg_core_bps", self.agg_core_bps),
        ] {
            if let Some(v) = v {
                rate(&format!("topology.{f}"), v)?;
            }
        }
        for (f, v) in [
            ("host_delay_s", self.host_delay_s),
            ("edge_agg_delay_s", self.edge_agg_delay_s),
            ("agg_core_delay_s", self.agg_core_delay_s),
        ] {
            if let Some(v) = v {
                time_s(&format!("topology.{f}"), v, true)?;
            }
        }
        if let Some(b) = self.buffer_pkts {
            at_least("topology.buffer_pkts", b as u64, 1)?;
        }
        Ok(())
    }
}

/// Default switch buffer of the dumbbell template, packets (FIGURES.md D0: large enough for no drops).
pub const DEFAULT_BUFFER_PKTS: u32 = 1000;

/// The name of the port feeding link `from -> to`.
pub fn port_name(from: &str, to: &str) -> String {
    format!("{from}->{to}")
}

impl Topology {
    /// Check the chosen template or graph; `packet_bytes` bounds byte buffers, `flows_count`
    /// (the `[flows]` template's count) gives a dumbbell's default number of senders.
    pub(super) fn validate(
        &self,
        packet_bytes: u32,
        flows_count: Option<u32>,
    ) -> Result<(), ScenarioError> {
        match self {
            Topology::Dumbbell(d) => d.validate(packet_bytes, flows_count),
            Topology::Graph(g) => g.validate(packet_bytes),
            Topology::LeafSpine(l) => l.validate(),
            Topology::FatTree(f) => f.validate(),
        }?;
        if let Some(a) = self.host_aqm() {
            // checked against the host ports' buffer, as `aqm` against the switch ports'
            let ((bp, bb), buf_path) = match self {
                Topology::Dumbbell(d) if d.host_buffer_pkts.is_some() => {
                    ((d.host_buffer_pkts, None), "topology.host_buffer_pkts")
                }
                _ => (self.aqm_buffer(), "topology.buffer_pkts"),
            };
            validate_aqm("topology.host_aqm", a, bp, bb, packet_bytes, buf_path)?;
        }
        Ok(())
    }

    /// A template's queue policy of its hosts' egress ports (`host_aqm`); None: drop_tail.
    /// A graph gives each link its own `aqm`.
    pub fn host_aqm(&self) -> Option<&AqmConfig> {
        match self {
            Topology::Dumbbell(d) => d.host_aqm.as_ref(),
            Topology::LeafSpine(l) => l.host_aqm.as_ref(),
            Topology::FatTree(f) => f.host_aqm.as_ref(),
            Topology::Graph(_) => None,
        }
    }

    /// The buffer (packets, bytes) of the ports that take the scenario's `aqm`: a template's
    /// switch buffer with its default; none for a graph, whose links check their own.
    pub(super) fn aqm_buffer(&self) -> (Option<u32>, Option<u64>) {
        match self {
            Topology::Dumbbell(d) => (
                d.buffer_pkts.or(if d.buffer_bytes.is_none() {
                    Some(DEFAULT_BUFFER_PKTS)
                } else {
                    None
                }),
                d.buffer_bytes,
            ),
            Topology::LeafSpine(l) => (Some(l.buffer_pkts.unwrap_or(DEFAULT_BUFFER_PKTS)), None),
            Topology::FatTree(f) => (Some(f.buffer_pkts.unwrap_or(DEFAULT_BUFFER_PKTS)), None),
            Topology::Graph(_) => (None, None),
        }
    }

    /// Node kinds by name for an explicit graph; None for a template (its flows and
    /// workloads are checked after expansion).
    pub(super) fn graph_hosts(&self) -> Option<HashMap<&str, NodeKind>> {
        match self {
            Topology::Graph(g) => Some(g.nodes.iter().map(|n| (n.name.as_str(), n.kind)).collect()),
            Topology::Dumbbell(_) | Topology::LeafSpine(_) | Topology::FatTree(_) => None,
        }
    }
}

impl Dumbbell {
    fn validate(&self, packet_bytes: u32, flows_count: Option<u32>) -> Result<(), ScenarioError> {
        let d = self;
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
            (Some(r), None) => d.check_rtt("topology.rtt_s", *r)?,
            (None, Some(list)) => {
                let n = d.senders(flows_count)?;
                if list.len() != n as usize {
                    return Err(ScenarioError::new(
                        "topology.rtt_per_sender_s",
                        format!("[{} values]", list.len()),
                        format!("must have one entry per sender ({n})"),
                    ));
                }
                for (i, r) in list.iter().enumerate() {
                    d.check_rtt(&format!("topology.rtt_per_sender_s[{i}]"), *r)?;
                }
            }
        }
        if let Some(b) = d.buffer_pkts {
            at_least("topology.buffer_pkts", b as u64, 1)?;
        }
        if let Some(b) = d.buffer_bytes {
            at_least("topology.buffer_bytes", b, packet_bytes as u64)?;
        }
        if let Some(b) = d.host_buffer_pkts {
            at_least("topology.host_buffer_pkts", b as u64, 1)?;
        }
        Ok(())
    }

    fn check_rtt(&self, path: &str, r: f64) -> Result<(), ScenarioError> {
        let d = self;
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

    /// The number of senders: `senders`, or the `[flows]` template's count (`flows_count`).
    pub(crate) fn senders(&self, flows_count: Option<u32>) -> Result<u32, ScenarioError> {
        match (self.senders, flows_count) {
            (Some(s), _) => Ok(s),
            (None, Some(n)) => Ok(n.max(1)),
            (None, None) => Err(ScenarioError::new(
                "topology.senders",
                "",
                "missing: required when flows are listed explicitly with [[flow]]",
            )),
        }
    }
}

impl Graph {
    fn validate(&self, packet_bytes: u32) -> Result<(), ScenarioError> {
        let g = self;
        if g.ecmp && g.load_balance == Some(LoadBalance::Single) {
            return Err(ScenarioError::new(
                "topology.load_balance",
                "\"single\"",
                "contradicts topology.ecmp = true: give load_balance = \"ecmp\" or \"spray\", or drop ecmp",
            ));
        }
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
                at_least(&format!("{p}.buffer_bytes"), b, packet_bytes as u64)?;
            }
            if let Some(a) = &l.aqm {
                validate_aqm(
                    &format!("{p}.aqm"),
                    a,
                    l.buffer_pkts,
                    l.buffer_bytes,
                    packet_bytes,
                    &format!("{p}.buffer_pkts"),
                )?;
            }
            if let Some(s) = &l.sched {
                s.validate(&format!("{p}.sched"), l.buffer_pkts)?;
                let bp = format!("{p}.buffer_pkts");
                s.validate_class_aqm(
                    &format!("{p}.sched"),
                    l.buffer_pkts,
                    l.buffer_bytes,
                    packet_bytes,
                    &bp,
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
}

impl LeafSpine {
    fn validate(&self) -> Result<(), ScenarioError> {
        let l = self;
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
        if let Some(o) = l.oversubscription {
            if !(o.is_finite() && o > 0.0) {
                return Err(ScenarioError::new(
                    "topology.oversubscription",
                    fmt_f(o),
                    "must be a finite number > 0 (host-facing over spine-facing capacity of a leaf; 1 = full bisection)",
                ));
            }
            rate(
                "topology.fabric_bps / topology.oversubscription",
                l.fabric_link_bps(),
            )?;
        }
        time_s("topology.link_delay_s", l.link_delay_s, true)?;
        if let Some(b) = l.buffer_pkts {
            at_least("topology.buffer_pkts", b as u64, 1)?;
        }
        Ok(())
    }
}

/// `name` must be a host of the graph (`hosts`); templates (None) are checked after expansion.
pub(super) fn check_host(
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
