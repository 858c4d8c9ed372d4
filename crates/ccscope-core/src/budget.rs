//! Memory budget: before anything big is allocated, estimate from the (validated, not yet
//! expanded) scenario how much memory a run needs — topology, flows, routes, per-flow state,
//! the event queue, workload arrivals and every recorded series — and refuse, with the
//! fields that drive the estimate, when it exceeds the budget.
//!
//! The estimate counts what the engine holds and what the run's output becomes on the way
//! to Python (each recorded row exists about three times at the end: the recorder's table,
//! the output column, the numpy/pandas copy). It is meant to be on the safe side of the
//! measured peak (within about a factor of two) for large runs; small runs are dominated by
//! the interpreter and libraries, which the budget does not count.
//!
//! Event-driven series (every drop and mark, every queue change, every feedback frame) have
//! no size known in advance: each gets a row cap inside the budget. Without a spill directory,
//! a series that reaches its cap stops recording, the run goes on, and the output carries a
//! `truncated` table naming the series, the rows kept and the rows left out. With one
//! (`Simulation::set_spill`), a series writes its rows to disk in chunks of at most its cap
//! (`record::SPILL_CHUNK_ROWS`), so the memory counted here bounds it either way.

use crate::error::ScenarioError;
use crate::scenario::{fmt_f, CcKind, NodeKind, Scenario, Topology, TraceKind};
use crate::workload::WorkloadSpec;

/// Fraction of the machine's physical memory used as the default budget.
pub const DEFAULT_BUDGET_FRACTION: f64 = 0.5;
/// Budget when the machine's memory cannot be read (non-Linux), bytes.
pub const FALLBACK_BUDGET_BYTES: u64 = 8 << 30;
pub use crate::record::MAX_EVENT_ROWS;
/// Copies of a recorded row alive at the end of a run: the recorder's table, the output
/// column built from it, and the Python (numpy/pandas) copy.
const ROW_COPIES: u64 = 3;

// Per-item costs, bytes. Engine structures are measured with `size_of`; heap parts and the
// scenario/output representations (names, JSON, Python objects) are calibrated on runs.
/// A node: expanded spec, name strings, routing arrays, Python-side copy.
const NODE_BYTES: u64 = 400;
/// A port (directed link): expanded spec (3 copies), engine port, name, output row, Python row.
const PORT_EXTRA_BYTES: u64 = 1_400;
/// A flow: expanded spec (3 copies), JSON, output row (strings), Python row and DataFrame.
const FLOW_EXTRA_BYTES: u64 = 1_600;
/// A route: its entry, ports (assumed `ROUTE_HOPS`) and its map entry.
const ROUTE_BYTES: u64 = 8 + 4 * ROUTE_HOPS + 48;
const ROUTE_HOPS: u64 = 6;
/// A packet queued at a port or on a wire (port queue entry or event).
const PACKET_BYTES: u64 = 64;
/// Packets assumed queued at a port with no packet limit.
const UNLIMITED_PORT_PKTS: u64 = 1_000;
/// Packets a flow is assumed to keep queued in the network (windows of many competing
/// flows are small; few flows are bounded by the port buffers).
const QUEUED_PKTS_PER_FLOW: u64 = 16;
/// Queue-event entries per flow (start, timers, in-flight ACK clocking).
const EVENTS_PER_FLOW: u64 = 8;
/// Bytes of one row, per series (columns as stored in the engine).
pub const QUEUE_ROW_BYTES: u64 = 8 + 4 + 4 + 8;
pub const LINK_ROW_BYTES: u64 = 8 + 4 + 8;
pub const FLOW_ROW_BYTES: u64 = 8 + 4 + 8 + 8 + 1 + 8 + 8 + 8;
pub const RATE_ROW_BYTES: u64 = 8 + 4 + 8 + 8;
pub const DROP_ROW_BYTES: u64 = 8 + 4 + 4 + 8 + 1 + 1;
pub const CHANGE_ROW_BYTES: u64 = 24;
pub const FEEDBACK_ROW_BYTES: u64 = 8 + 1 + 4 + 4 + 8 * 5 + 8;
pub const PFC_ROW_BYTES: u64 = 8 + 4 + 1 + 1 + 4 + 8;

/// Bytes a scenario's text costs while it is parsed, checked and built, per byte of text
/// (measured 10-12 on explicit graphs and flow lists of 10^5 items: typed structs with their
/// name strings, the validated copy and the expanded form; rounded up).
pub const PARSE_BYTES_PER_TEXT_BYTE: u64 = 16;

/// Refuse, before it is parsed, a scenario text whose parsing alone would exceed the budget:
/// the estimate of [`check`] needs the parsed scenario, and a long explicit list (10^6 hosts
/// written out by a script) costs gigabytes to parse.
pub fn check_text(text_bytes: usize, budget_bytes: u64) -> Result<(), ScenarioError> {
    let need = mul(text_bytes as u64, PARSE_BYTES_PER_TEXT_BYTE);
    if need <= budget_bytes {
        return Ok(());
    }
    Err(ScenarioError::new(
        "<scenario>",
        format!("{} of text", fmt_bytes(text_bytes as u64)),
        format!(
            "parsing it needs about {}, beyond the memory budget {}; describe large topologies \
             and flow sets with a template (flows.count, topology kind leaf_spine, fat_tree or dumbbell) \
             instead of explicit lists, or raise the budget (--max-memory, max_memory_bytes=)",
            fmt_bytes(need),
            fmt_bytes(budget_bytes)
        ),
    ))
}

/// Parse and validate a scenario text after [`check_text`] against `budget_bytes` (None: the
/// default budget): the one entry point from text that every caller with a budget uses.
pub fn parse_within(
    text: &str,
    format: crate::scenario::Format,
    budget_bytes: Option<u64>,
) -> Result<Scenario, ScenarioError> {
    check_text(
        text.len(),
        budget_bytes.unwrap_or_else(default_budget_bytes),
    )?;
    crate::scenario::parse(text, format)
}

/// Total machine memory, bytes: the smaller of physical RAM and a cgroup limit, read once.
pub fn machine_memory_bytes() -> Option<u64> {
    static MEM: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *MEM.get_or_init(|| {
        let phys = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("MemTotal:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|kb| kb.parse::<u64>().ok())
                    .map(|kb| kb.saturating_mul(1024))
            })?;
        let cg = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok());
        Some(cg.map_or(phys, |c| c.min(phys)))
    })
}

/// The process's address-space limit (`ulimit -v`, RLIMIT_AS), bytes, or None when unlimited.
/// Read each time (a process may lower it at run time): a run under such a limit that the
/// machine's memory alone would admit fails its allocations instead of being refused.
pub fn address_space_limit_bytes() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    // "Max address space   <soft>   <hard>   bytes": the soft limit is the one enforced
    line.split_whitespace().nth(3)?.parse::<u64>().ok()
}

/// The default budget: `DEFAULT_BUDGET_FRACTION` of the machine's memory, or of the process's
/// address-space limit where that is smaller.
pub fn default_budget_bytes() -> u64 {
    let mem = match (machine_memory_bytes(), address_space_limit_bytes()) {
        (Some(m), Some(l)) => Some(m.min(l)),
        (m, l) => m.or(l),
    };
    mem.map_or(FALLBACK_BUDGET_BYTES, |m| {
        (m as f64 * DEFAULT_BUDGET_FRACTION) as u64
    })
}

/// One part of the estimate and the scenario field that drives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// Field path (`flows.count`, `record.flow_interval_s`).
    pub path: String,
    /// Its value as written.
    pub value: String,
    /// What the bytes are, with the numbers behind them.
    pub what: String,
    pub bytes: u64,
}

/// The estimate of a run's memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub parts: Vec<Part>,
    /// Event-driven series, each bounded by its cap: (series, rows it may need, row cost).
    pub events: Vec<(&'static str, u64, u64)>,
    /// Rows each event-driven series may hold (set by [`check`]).
    pub event_cap_rows: u64,
}

impl Estimate {
    /// Everything but the event-driven series, bytes.
    pub fn fixed_bytes(&self) -> u64 {
        self.parts
            .iter()
            .fold(0u64, |a, p| a.saturating_add(p.bytes))
    }
    /// Event-driven series at their caps, bytes.
    pub fn event_bytes(&self) -> u64 {
        self.events.iter().fold(0u64, |a, (_, rows, cost)| {
            a.saturating_add(rows.min(&self.event_cap_rows).saturating_mul(*cost))
        })
    }
    pub fn total_bytes(&self) -> u64 {
        self.fixed_bytes().saturating_add(self.event_bytes())
    }
}

pub use crate::units::fmt_bytes;

fn sat(x: f64) -> u64 {
    // f64 -> u64 saturates in Rust (NaN -> 0); keep it explicit
    if x.is_nan() {
        0
    } else {
        x.min(u64::MAX as f64) as u64
    }
}

/// Samples a sampler takes over `until_s` (at 0, iv, 2 iv, ... <= until), as the engine counts.
fn samples(until_s: f64, iv_s: f64) -> u64 {
    let (end, iv) = (
        crate::units::SimDuration::from_secs_f64(until_s).0,
        crate::units::SimDuration::from_secs_f64(iv_s).0.max(1),
    );
    end / iv + 1
}

fn mul(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}

/// Sizes of the scenario after expansion, computed from the templates without expanding.
struct Shape {
    nodes: u64,
    ports: u64,
    /// Ports recorded by queue/link samples and queue changes.
    recorded: u64,
    /// Sum over ports of their packet limit (unlimited ports count `UNLIMITED_PORT_PKTS`).
    buffered_pkts: u64,
    /// Sum of the line rates of all ports and of the recorded ports, bits/s.
    rate_sum_bps: f64,
    recorded_rate_bps: f64,
    topo_path: &'static str,
    topo_value: String,
    /// Smallest host link rate, bits/s (for workload flow lifetimes).
    host_bps: f64,
}

fn shape(sc: &Scenario) -> Result<Shape, ScenarioError> {
    let limit = |p: Option<u32>| p.map_or(UNLIMITED_PORT_PKTS, |p| p as u64);
    Ok(match &sc.topology {
        Topology::Dumbbell(d) => {
            let s = sc.dumbbell_senders(d)? as u64;
            let r = d.receivers as u64;
            let access = d.access_bps.unwrap_or(d.bottleneck_bps);
            let sw = if r == 1 { 1 } else { 2 };
            let ports = 2 * s + 2 + if r == 1 { 0 } else { 2 * r };
            let buf = d
                .buffer_pkts
                .map(|p| p as u64)
                .unwrap_or(crate::scenario::DEFAULT_BUFFER_PKTS as u64);
            let recorded = sc.record.ports.as_ref().map_or(1, |p| p.len() as u64);
            Shape {
                nodes: s + r + sw,
                ports,
                recorded,
                buffered_pkts: mul(ports, buf),
                rate_sum_bps: (2 * s + 2 * r) as f64 * access + 2.0 * d.bottleneck_bps,
                recorded_rate_bps: recorded as f64 * d.bottleneck_bps.max(access),
                topo_path: if d.senders.is_some() {
                    "topology.senders"
                } else {
                    "flows.count"
                },
                topo_value: s.to_string(),
                host_bps: access.min(d.bottleneck_bps),
            }
        }
        Topology::LeafSpine(l) => {
            let (lv, sp, h) = (l.leaves as u64, l.spines as u64, l.hosts_per_leaf as u64);
            let hosts = mul(lv, h);
            let fabric = mul(lv, sp);
            let ports = mul(2, hosts).saturating_add(mul(2, fabric));
            let recorded = sc.record.ports.as_ref().map_or(fabric, |p| p.len() as u64);
            Shape {
                nodes: hosts.saturating_add(lv).saturating_add(sp),
                ports,
                recorded,
                buffered_pkts: mul(ports, limit(l.buffer_pkts)),
                rate_sum_bps: 2.0 * hosts as f64 * l.host_bps
                    + 2.0 * fabric as f64 * l.fabric_link_bps(),
                recorded_rate_bps: recorded as f64 * l.fabric_link_bps().max(l.host_bps),
                topo_path: "topology.leaves x spines x hosts_per_leaf",
                topo_value: format!("{} x {} x {}", l.leaves, l.spines, l.hosts_per_leaf),
                host_bps: l.host_bps,
            }
        }
        Topology::FatTree(f) => {
            let hosts = f.hosts();
            let ports = f.ports();
            let [hb, eb, cb] = f.rates();
            // default recorded ports: the edge uplinks, k^3/4 of them
            let recorded = sc.record.ports.as_ref().map_or(hosts, |p| p.len() as u64);
            Shape {
                nodes: hosts + f.switches(),
                ports,
                recorded,
                buffered_pkts: mul(ports, limit(f.buffer_pkts)),
                rate_sum_bps: 2.0 * hosts as f64 * (hb + eb + cb),
                recorded_rate_bps: recorded as f64 * hb.max(eb).max(cb),
                topo_path: "topology.k",
                topo_value: format!("{} ({hosts} hosts)", f.k),
                host_bps: hb,
            }
        }
        Topology::Graph(g) => {
            let hosts: std::collections::HashSet<&str> = g
                .nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Host)
                .map(|n| n.name.as_str())
                .collect();
            let (mut ports, mut switch_ports, mut buffered) = (0u64, 0u64, 0u64);
            let (mut rate_sum, mut max_rate, mut host_bps) = (0.0f64, 0.0f64, f64::INFINITY);
            for l in &g.links {
                let k = if l.duplex { 2 } else { 1 };
                ports += k;
                switch_ports += (!hosts.contains(l.from.as_str())) as u64;
                if l.duplex {
                    switch_ports += (!hosts.contains(l.to.as_str())) as u64;
                }
                buffered = buffered.saturating_add(k * limit(l.buffer_pkts));
                rate_sum += k as f64 * l.rate_bps;
                max_rate = max_rate.max(l.rate_bps);
                if hosts.contains(l.from.as_str()) {
                    host_bps = host_bps.min(l.rate_bps);
                }
            }
            let recorded = sc
                .record
                .ports
                .as_ref()
                .map_or(switch_ports, |p| p.len() as u64);
            Shape {
                nodes: g.nodes.len() as u64,
                ports,
                recorded,
                buffered_pkts: buffered,
                rate_sum_bps: rate_sum,
                recorded_rate_bps: recorded as f64 * max_rate,
                topo_path: "topology.nodes",
                topo_value: format!("{} nodes, {} links", g.nodes.len(), g.links.len()),
                host_bps: if host_bps.is_finite() {
                    host_bps
                } else {
                    max_rate
                },
            }
        }
    })
}

/// How the part of the estimate for the topology's nodes and ports begins.
const TOPOLOGY_WHAT: &str = "topology ";
/// How the part of the estimate for the flows given in the scenario (not spawned) begins.
const FLOWS_WHAT: &str = "per-flow state of ";

/// Estimate the memory of a run of `sc` (validated; `until_s` already applied).
pub fn estimate(sc: &Scenario) -> Result<Estimate, ScenarioError> {
    let sh = shape(sc)?;
    let until = sc.until_s.max(0.0);
    let mut parts = Vec::new();
    let port_bytes = std::mem::size_of::<crate::net::Port>() as u64 + PORT_EXTRA_BYTES;
    parts.push(Part {
        path: sh.topo_path.into(),
        value: sh.topo_value.clone(),
        what: format!("{TOPOLOGY_WHAT}{} nodes, {} ports", sh.nodes, sh.ports),
        bytes: mul(sh.nodes, NODE_BYTES).saturating_add(mul(sh.ports, port_bytes)),
    });

    // FQ-CoDel's flow queues: `flows` per class of every port that may run it
    let fq_flows = std::iter::once(&sc.aqm)
        .chain(match &sc.topology {
            crate::scenario::Topology::Graph(g) => {
                Box::new(g.links.iter().filter_map(|l| l.aqm.as_ref()))
                    as Box<dyn Iterator<Item = &crate::aqm::AqmConfig>>
            }
            _ => Box::new(std::iter::empty()),
        })
        .filter_map(|a| match a {
            crate::aqm::AqmConfig::FqCodel(c) => Some(c.flows as u64),
            _ => None,
        })
        .max();
    if let Some(flows) = fq_flows {
        let classes = sc.sched.as_ref().map_or(1, |s| s.classes.max(1) as u64);
        let classes = match &sc.topology {
            crate::scenario::Topology::Graph(g) => g
                .links
                .iter()
                .filter_map(|l| l.sched.as_ref().map(|s| s.classes as u64))
                .fold(classes, u64::max),
            _ => classes,
        };
        parts.push(Part {
            path: "aqm.flows".into(),
            value: flows.to_string(),
            what: format!(
                "FQ-CoDel flow queues: {} ports x {classes} classes x {flows} queues",
                sh.ports
            ),
            bytes: mul(
                mul(sh.ports, classes),
                mul(flows, crate::aqm::fq_codel::FLOW_QUEUE_BYTES),
            ),
        });
    }

    let flow_state = std::mem::size_of::<crate::flow::FlowState>() as u64 + 64;
    let rate_state = std::mem::size_of::<crate::flow::RateState>() as u64;
    let per_flow = flow_state + FLOW_EXTRA_BYTES + 2 * ROUTE_BYTES + EVENTS_PER_FLOW * PACKET_BYTES;
    let (tpl, explicit) = (
        sc.flows.as_ref().map_or(0, |f| f.count as u64),
        sc.flow.len() as u64,
    );
    let rate_flows = sc.flows.as_ref().map_or(0, |f| {
        if f.cc.is_rate_based() {
            f.count as u64
        } else {
            0
        }
    }) + sc.flow.iter().filter(|f| f.cc.is_rate_based()).count() as u64;
    let n_flows = tpl + explicit;
    if n_flows > 0 {
        let (path, value) = if tpl >= explicit {
            ("flows.count", tpl.to_string())
        } else {
            ("flow", format!("[{explicit} flows]"))
        };
        parts.push(Part {
            path: path.into(),
            value,
            what: format!("{FLOWS_WHAT}{n_flows} flows"),
            bytes: mul(n_flows, per_flow).saturating_add(mul(rate_flows, rate_state)),
        });
    }

    // flows spawned during the run by workloads: (flows, sample rows per flow)
    let mut spawned_total = 0u64;
    let mut spawned_rows = 0f64;
    let f_iv = sc.record.flow_interval_s;
    for (i, w) in sc.workload.iter().enumerate() {
        let (n, routes, life_s, value) = match w {
            WorkloadSpec::Incast(x) => {
                let s = x.servers.len() as u64;
                let life = s as f64 * x.block() as f64 * 8.0 / sh.host_bps;
                (
                    mul(s, x.rounds as u64),
                    mul(2, s),
                    life,
                    format!("{} servers x {} rounds", s, x.rounds),
                )
            }
            WorkloadSpec::Poisson(x) => {
                let stop = x.stop_s.unwrap_or(until).min(until);
                let mean = (x.arrival_rate() * (stop - x.start_s).max(0.0)).max(0.0);
                // mean + 6 standard deviations: exceeded with negligible probability
                let n = sat(mean + 6.0 * mean.sqrt() + 16.0);
                let pairs = mul(mul(x.src.len() as u64, x.dst.len() as u64), 2);
                let life = 4.0 * x.size.mean_bytes() * 8.0 / sh.host_bps;
                (n, pairs, life, format!("{} arrivals expected", fmt_f(mean)))
            }
        };
        spawned_total = spawned_total.saturating_add(n);
        // a flow is sampled while it lives, at most until the end of the run
        spawned_rows += n as f64 * (life_s.min(until) / f_iv + 1.0);
        parts.push(Part {
            path: format!("workload[{i}]"),
            value,
            what: format!("{n} flows spawned, {routes} routes"),
            bytes: mul(n, per_flow).saturating_add(mul(routes, ROUTE_BYTES)),
        });
    }

    // sampled series
    let rec = &sc.record;
    let has = |k| rec.traces.contains(&k);
    if (has(TraceKind::Queue) && !rec.queue_every_change) || has(TraceKind::Link) {
        let samples = samples(until, rec.queue_interval_s);
        let mut row = 0;
        if has(TraceKind::Queue) && !rec.queue_every_change {
            row += QUEUE_ROW_BYTES;
        }
        if has(TraceKind::Link) {
            row += LINK_ROW_BYTES;
        }
        let rows = mul(samples, sh.recorded);
        parts.push(Part {
            path: "record.queue_interval_s".into(),
            value: fmt_f(rec.queue_interval_s),
            what: format!(
                "queue/link series: {} ports x {} samples over until_s = {}",
                sh.recorded,
                samples,
                fmt_f(until)
            ),
            bytes: mul(mul(rows, row), ROW_COPIES),
        });
    }
    let flow_series = has(TraceKind::Cwnd) || has(TraceKind::Alpha) || has(TraceKind::Delivered);
    if flow_series || has(TraceKind::Rate) {
        let samples = samples(until, f_iv);
        let rows = mul(samples, n_flows).saturating_add(sat(spawned_rows));
        let row = if flow_series { FLOW_ROW_BYTES } else { 0 }
            + if has(TraceKind::Rate) && rate_flows + spawned_total > 0 {
                RATE_ROW_BYTES
            } else {
                0
            };
        parts.push(Part {
            path: "record.flow_interval_s".into(),
            value: fmt_f(f_iv),
            what: format!(
                "flow series (cwnd, alpha, delivered, rate): {} flows x {} samples over until_s = {}",
                n_flows.saturating_add(spawned_total),
                samples,
                fmt_f(until)
            ),
            bytes: mul(mul(rows, row), ROW_COPIES),
        });
    }
    // packets queued at ports: no more than the buffers hold, nor than the flows' windows put
    // in flight (a few packets per flow at the sizes where this matters)
    let queued = sh
        .buffered_pkts
        .min(mul(QUEUED_PKTS_PER_FLOW, n_flows.saturating_add(spawned_total)).saturating_add(4096));
    parts.push(Part {
        path: sh.topo_path.into(),
        value: sh.topo_value.clone(),
        what: format!("{queued} queued packets"),
        bytes: mul(queued, PACKET_BYTES),
    });
    // the event queue and route tables are in the per-flow costs; the cache of routing trees:
    parts.push(Part {
        path: sh.topo_path.into(),
        value: sh.topo_value,
        what: "routing trees".into(),
        bytes: (crate::net::routing::MAX_TREE_CACHE_BYTES as u64).min(mul(sh.nodes, 8 * 16)),
    });

    // event-driven series: rows they could need (bounded by what the ports can carry)
    let min_pkt = sc.ack_bytes.min(sc.packet_bytes).max(1) as f64;
    let pkts = |bps: f64| sat(bps * until / (8.0 * min_pkt));
    let cbr_bps: f64 = sc
        .flow
        .iter()
        .filter(|f| f.cc == CcKind::Cbr)
        .map(|f| f.rate_bps.unwrap_or(0.0))
        .sum();
    let mut events = Vec::new();
    if has(TraceKind::Drops) {
        events.push((
            "drops",
            pkts(sh.rate_sum_bps + cbr_bps).saturating_add(sh.buffered_pkts),
            DROP_ROW_BYTES * ROW_COPIES,
        ));
    }
    if has(TraceKind::Queue) && rec.queue_every_change {
        events.push((
            "queue (every change)",
            mul(2, pkts(sh.recorded_rate_bps)).saturating_add(sh.buffered_pkts),
            CHANGE_ROW_BYTES * ROW_COPIES,
        ));
    }
    if has(TraceKind::Feedback) && rate_flows + spawned_total > 0 {
        events.push((
            "feedback",
            mul(2, pkts(sh.rate_sum_bps)),
            FEEDBACK_ROW_BYTES * ROW_COPIES,
        ));
    }
    if has(TraceKind::Pfc) && sc.pfc.is_some() {
        // a pause and a resume need the count to cross XOFF and XON: at most a frame per
        // packet a port carries, and the refreshes of a pause in force
        events.push((
            "pfc",
            mul(2, pkts(sh.rate_sum_bps)),
            PFC_ROW_BYTES * ROW_COPIES,
        ));
    }
    Ok(Estimate {
        parts,
        events,
        event_cap_rows: MAX_EVENT_ROWS,
    })
}

/// Estimate and compare with `budget_bytes`: the estimate (with each event-driven series'
/// row cap set inside the budget), or an error naming the fields that drive it.
pub fn check(sc: &Scenario, budget_bytes: u64) -> Result<Estimate, ScenarioError> {
    let mut est = estimate(sc)?;
    let fixed = est.fixed_bytes();
    // event-driven series share what the budget leaves, up to MAX_EVENT_ROWS each
    let left = budget_bytes.saturating_sub(fixed);
    let worst = est.events.iter().map(|e| e.2).max().unwrap_or(1);
    let n = est.events.len().max(1) as u64;
    est.event_cap_rows = (left / n / worst).min(MAX_EVENT_ROWS);
    let too_small = !est.events.is_empty() && est.event_cap_rows < 1_000;
    if fixed <= budget_bytes && !too_small {
        return Ok(est);
    }
    let mut parts = est.parts.clone();
    for (name, rows, cost) in &est.events {
        parts.push(Part {
            path: "record.traces".into(),
            value: format!("{name:?}"),
            what: format!("{name} series, at least 1000 rows"),
            bytes: mul(*rows.min(&1_000), *cost),
        });
    }
    Err(refusal(parts, budget_bytes))
}

/// Whether the explicit form of `sc` (validated) fits `budget_bytes`: the parts of the
/// estimate that expansion materialises (topology and the flow list; not workload arrivals,
/// recorded series or queued packets, which only a run creates), each a few times over in
/// its JSON and Python forms like in a run. Refused with the same error as [`check`].
pub fn check_expansion(sc: &Scenario, budget_bytes: u64) -> Result<u64, ScenarioError> {
    let est = estimate(sc)?;
    let parts: Vec<Part> = est
        .parts
        .into_iter()
        .filter(|p| p.what.starts_with(TOPOLOGY_WHAT) || p.what.starts_with(FLOWS_WHAT))
        .collect();
    let total = parts.iter().fold(0u64, |a, p| a.saturating_add(p.bytes));
    if total <= budget_bytes {
        Ok(total)
    } else {
        Err(refusal(parts, budget_bytes))
    }
}

/// The error for an estimate over the budget: the total and the (up to three) largest parts
/// with the fields that drive them; the error's field is the largest part's.
fn refusal(mut parts: Vec<Part>, budget_bytes: u64) -> ScenarioError {
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    let total = parts.iter().fold(0u64, |a, p| a.saturating_add(p.bytes));
    let top = &parts[0];
    let drivers: Vec<String> = parts
        .iter()
        .take(3)
        .filter(|p| p.bytes > 0)
        .map(|p| {
            format!(
                "{} = {} ({}: {})",
                p.path,
                p.value,
                p.what,
                fmt_bytes(p.bytes)
            )
        })
        .collect();
    ScenarioError::new(
        top.path.clone(),
        top.value.clone(),
        format!(
            "estimated memory {} exceeds the budget {}: {}; lower them or raise --max-memory (max_memory_bytes=)",
            fmt_bytes(total),
            fmt_bytes(budget_bytes),
            drivers.join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{parse, Format};

    fn sc(toml: &str) -> Scenario {
        parse(toml, Format::Toml).unwrap()
    }
    const DB: &str = "[topology]\nkind = \"dumbbell\"\nbottleneck_bps = 10e9\nrtt_s = 1e-4\n";

    #[test]
    fn estimate_grows_linearly_with_flows_and_names_the_flow_count() {
        let a = estimate(&sc(&format!(
            "{DB}[flows]\ncount = 1000\n[record]\ntraces = []\n"
        )))
        .unwrap();
        let b = estimate(&sc(&format!(
            "{DB}[flows]\ncount = 2000\n[record]\ntraces = []\n"
        )))
        .unwrap();
        let ratio = b.total_bytes() as f64 / a.total_bytes() as f64;
        assert!((1.8..2.1).contains(&ratio), "{ratio}");
        let e = check(
            &sc(&format!(
                "{DB}[flows]\ncount = 1000000\n[record]\ntraces = []\n"
            )),
            1 << 30,
        )
        .unwrap_err();
        assert_eq!(e.path, "flows.count");
        assert_eq!(e.value, "1000000");
        assert!(e.allowed.contains("exceeds the budget 1.0 GiB"), "{e}");
    }

    #[test]
    fn expansion_counts_topology_and_flows_only() {
        // a fine flow sampling is a run's cost, not the expansion's
        let s = sc(&format!(
            "until_s = 1\n{DB}[flows]\ncount = 10000\n[record]\ntraces = [\"cwnd\"]\nflow_interval_s = 1e-6\n"
        ));
        let est = estimate(&s).unwrap();
        let topo = est
            .parts
            .iter()
            .find(|p| p.what.starts_with(TOPOLOGY_WHAT))
            .unwrap();
        let flows = est
            .parts
            .iter()
            .find(|p| p.what.starts_with(FLOWS_WHAT))
            .unwrap();
        assert_eq!(flows.path, "flows.count");
        assert_eq!(
            check_expansion(&s, 1 << 30).unwrap(),
            topo.bytes + flows.bytes
        );
        assert!(check(&s, 1 << 30).is_err());
        let e = check_expansion(&s, 1 << 20).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.value.as_str()),
            ("flows.count", "10000")
        );
        assert!(e.allowed.contains("exceeds the budget 1.0 MiB"), "{e}");
        assert!(
            !e.allowed.contains("record.") && !e.allowed.contains("queued"),
            "{e}"
        );
    }

    #[test]
    fn sampled_series_count_every_flow_and_every_sample() {
        let s = sc(&format!(
            "until_s = 1\n{DB}[flows]\ncount = 10000\n[record]\ntraces = [\"cwnd\"]\nflow_interval_s = 1e-5\n"
        ));
        let est = estimate(&s).unwrap();
        let p = est
            .parts
            .iter()
            .find(|p| p.path == "record.flow_interval_s")
            .unwrap();
        // 10^4 flows x (10^5 + 1) samples x 53 bytes x 3 copies
        assert_eq!(p.bytes, 10_000 * 100_001 * FLOW_ROW_BYTES * ROW_COPIES);
        let e = check(&s, 12 << 30).unwrap_err();
        assert_eq!(e.path, "record.flow_interval_s");
        assert!(
            e.to_string().contains("10000 flows x 100001 samples"),
            "{e}"
        );
    }

    #[test]
    fn huge_templates_saturate_instead_of_overflowing() {
        let s = sc("[topology]\nkind = \"leaf_spine\"\nleaves = 4096\nspines = 4096\nhosts_per_leaf = 4096\nhost_bps = 1e9\nfabric_bps = 1e9\nlink_delay_s = 0\n[[flow]]\nsrc = \"h0\"\ndst = \"h1\"\n");
        let e = check(&s, 1 << 40).unwrap_err().to_string();
        assert!(
            e.contains("topology.leaves x spines x hosts_per_leaf = 4096 x 4096 x 4096 (topology 16785408 nodes, 67108864 ports"),
            "{e}"
        );
    }

    #[test]
    fn event_series_get_a_cap_inside_the_budget() {
        let s = sc(&format!(
            "until_s = 100\n{DB}[flows]\ncount = 2\n[record]\ntraces = [\"drops\"]\n"
        ));
        let est = check(&s, 64 << 20).unwrap();
        assert!(est.event_cap_rows >= 1_000 && est.event_cap_rows < MAX_EVENT_ROWS);
        assert!(est.total_bytes() <= 64 << 20);
        let est = check(&s, 64 << 30).unwrap();
        assert_eq!(est.event_cap_rows, MAX_EVENT_ROWS);
    }

    #[test]
    fn bytes_print_in_binary_units() {
        assert_eq!(fmt_bytes(512), "512 B");
        assert_eq!(fmt_bytes(3 << 29), "1.5 GiB");
        assert_eq!(fmt_bytes(u64::MAX), "16777216.0 TiB");
    }
}
