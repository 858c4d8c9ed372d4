//! Scenario -> Simulation: the only module that knows both the schema and the engine.
//! Expands templates, fills the arenas, computes routes once, seeds per-component random
//! streams, and schedules flow starts and samplers.

use crate::aqm::{Aqm, AqmConfig};
use crate::engine::{Event, EventQueue};
use crate::error::ScenarioError;
use crate::flow::{path_rtt_s, FlowFactory};
use crate::net::routing::{PairMap, PortEnds, Router};
use crate::net::sched::DequeuePolicy;
use crate::net::spray::{NoGroup, SprayTable, MAX_SPRAY_PATHS};
use crate::net::{Port, PortPath, Sched};
use crate::record::{Ledger, Recorder};
use crate::rng::Rng;
use crate::scenario::{fmt_f, port_name, CcKind, LoadBalance, NodeKind, Scenario, Topology};
use crate::sim::{Lookahead, Simulation};
use crate::units::{BitsPerSec, SimDuration, SimTime};
use crate::workload::WorkloadSpec;
use crate::workload::WorkloadState;
use crate::world::{FlowId, NodeId, PortId, RouteId};
use std::collections::HashMap;

impl Simulation {
    /// Build a simulation from a scenario (validated and expanded here). `until` overrides
    /// the scenario's `until_s` when given.
    /// Memory: the default budget (half the machine's memory, `budget::default_budget_bytes`);
    /// see [`Simulation::with_budget`].
    pub fn new(scenario: &Scenario, until_s: Option<f64>) -> Result<Simulation, ScenarioError> {
        build(scenario, until_s)
    }

    /// As [`Simulation::new`], refusing a scenario whose estimated memory (`budget::estimate`)
    /// exceeds `max_memory_bytes` (None: the default budget) with an error naming the fields
    /// that drive it; event-driven traces are capped inside the budget.
    pub fn with_budget(
        scenario: &Scenario,
        until_s: Option<f64>,
        max_memory_bytes: Option<u64>,
    ) -> Result<Simulation, ScenarioError> {
        build_with_budget(scenario, until_s, max_memory_bytes)
    }
}

/// Build with the default memory budget ([`crate::budget::default_budget_bytes`]).
pub fn build(scenario: &Scenario, until_s: Option<f64>) -> Result<Simulation, ScenarioError> {
    build_with_budget(scenario, until_s, None)
}

/// Build a simulation, refusing (before anything big is allocated) a scenario whose estimated
/// memory exceeds `budget_bytes` (None: the default budget).
pub fn build_with_budget(
    scenario: &Scenario,
    until_s: Option<f64>,
    budget_bytes: Option<u64>,
) -> Result<Simulation, ScenarioError> {
    let mut sc = scenario.clone();
    if let Some(u) = until_s {
        sc.until_s = u;
    }
    sc.validate()?;
    let budget = budget_bytes.unwrap_or_else(crate::budget::default_budget_bytes);
    let estimate = crate::budget::check(&sc, budget)?;
    let sc = sc.expand()?;
    let Topology::Graph(g) = &sc.topology else {
        unreachable!("expand() yields a graph")
    };
    let end = SimTime::from_secs_f64(sc.until_s);

    let node_ids: HashMap<&str, NodeId> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), NodeId(i as u32)))
        .collect();
    let is_host: Vec<bool> = g.nodes.iter().map(|n| n.kind == NodeKind::Host).collect();
    let mut ports = Vec::with_capacity(g.links.len());
    let mut ends = Vec::with_capacity(g.links.len());
    let mut port_names = Vec::with_capacity(g.links.len());
    let sc_packet_bytes = sc.packet_bytes;
    // in-band telemetry: the `[int]` table, or its defaults (every switch port) when a flow or
    // a workload uses HPCC, which reads it
    // (or a registered rate controller that reads telemetry, `rate::ext::ExtRateSpec::int`)
    let reads_int = |k: &CcKind| match *k {
        CcKind::Hpcc => true,
        CcKind::ExtRate(id) => crate::rate::ext::spec(id).int,
        _ => false,
    };
    let uses_hpcc = sc.flow.iter().any(|f| reads_int(&f.cc))
        || sc.workload.iter().any(|w| match w {
            crate::workload::WorkloadSpec::Incast(i) => i.cc.iter().any(reads_int),
            crate::workload::WorkloadSpec::Poisson(p) => p.cc.iter().any(reads_int),
        });
    let int_cfg = sc
        .int
        .clone()
        .or_else(|| uses_hpcc.then(crate::scenario::IntConfig::default));
    for l in &g.links {
        let name = port_name(&l.from, &l.to);
        let rate = BitsPerSec(l.rate_bps.round() as u64);
        let aqm = Aqm::from_config(
            l.aqm.as_ref().unwrap_or(&AqmConfig::DropTail),
            sc.packet_bytes,
            ports.len() as u32,
        );
        let rng = Rng::stream(sc.seed, &format!("port/{name}"));
        let at_switch = !is_host[node_ids[l.from.as_str()].idx()];
        // a switch's shared buffer (`[shared_buffer]`, `sim::pool`) replaces its ports' limits
        let pooled = sc.shared_buffer.is_some() && at_switch;
        let mut port = Port::new(
            rate,
            SimDuration::from_secs_f64(l.delay_s),
            if pooled { None } else { l.buffer_pkts },
            if pooled { None } else { l.buffer_bytes },
            aqm,
            rng,
        );
        let dequeue_policy = match l.aqm.as_ref() {
            Some(AqmConfig::Codel(c)) => {
                Some(DequeuePolicy::Codel(c.params(sc_packet_bytes), c.ecn))
            }
            Some(AqmConfig::ThresholdDequeue(c)) => {
                Some(DequeuePolicy::ThresholdDequeue(c.clone()))
            }
            Some(AqmConfig::Red(c)) if c.mark_at == crate::aqm::RedMarkAt::Dequeue => {
                Some(DequeuePolicy::Red(Box::new(c.clone())))
            }
            Some(AqmConfig::FqCodel(c)) => Some(DequeuePolicy::FqCodel(
                *c,
                Rng::stream(sc.seed, &format!("fq_codel/{name}")).next_u64(),
            )),
            // one queue per flow, no hash: no seed
            Some(AqmConfig::Fq(c)) => Some(DequeuePolicy::FqCodel(c.as_flow_queues(), 0)),
            _ => None,
        };
        let default_sched = crate::scenario::SchedConfig::default();
        // in-band telemetry needs the dequeue moment: its ports take the general path
        let int_here = int_cfg
            .as_ref()
            .is_some_and(|i| at_switch || i.ports == crate::scenario::IntPorts::All);
        let sched = match l.sched.as_ref() {
            Some(s) if s.needs_general_path() => Some(s),
            _ if dequeue_policy.is_some()
                || sc.pfc.is_some()
                || sc.shared_buffer.is_some()
                || int_here =>
            {
                Some(l.sched.as_ref().unwrap_or(&default_sched))
            }
            _ => None,
        };
        if let Some(sch) = sched {
            if port.aqm.needs_engine() {
                return Err(ScenarioError::new(
                    "sched.classes",
                    format!("{} at port {name} (aqm {})", sch.classes, l.aqm.as_ref().map_or("drop_tail", |a| a.kind_name())),
                    "a port with traffic classes (or path = \"general\") takes drop_tail, threshold or red; choke, qcn and asm need the committed FIFO (one class)",
                ));
            }
            let env = crate::net::sched::PortEnv {
                rate_bps: rate.0 as f64,
                seed: Rng::stream(sc.seed, &format!("red_dequeue/{name}")).next_u64(),
            };
            let mut s = Sched::new(sch, sc_packet_bytes, dequeue_policy, env);
            if let Some(p) = &sc.pfc {
                // lossless classes at switch ports (a host's NIC keeps its buffer)
                if at_switch {
                    s.lossless = p.mask();
                    crate::sim::pfc::check_headroom(p, &sc, l, &name)?;
                }
            }
            port.set_sched(s);
            if int_here {
                port.set_int();
            }
        }
        ports.push(port);
        ends.push(PortEnds {
            from: node_ids[l.from.as_str()],
            to: node_ids[l.to.as_str()],
        });
        port_names.push(name);
    }

    // adjacency built once; one breadth-first tree per source switch (routing::Router)
    let router = std::cell::RefCell::new(Router::new(g.nodes.len(), &ends, &is_host));
    let route_ports = std::cell::RefCell::new(Vec::new());
    let routes: std::cell::RefCell<Vec<(u32, u16)>> = std::cell::RefCell::new(Vec::new());
    let route_of_cell: std::cell::RefCell<PairMap<RouteId>> =
        std::cell::RefCell::new(PairMap::default());
    let push_route = |p: Vec<PortId>| -> RouteId {
        let mut routes = routes.borrow_mut();
        let mut route_ports = route_ports.borrow_mut();
        let id = RouteId(routes.len() as u32);
        routes.push((
            route_ports.len() as u32,
            p.len().min(u16::MAX as usize) as u16,
        ));
        route_ports.extend(p);
        id
    };
    let route = |src: NodeId, dst: NodeId, path: &str| -> Result<RouteId, ScenarioError> {
        if let Some(r) = route_of_cell.borrow().get(&(src, dst)) {
            return Ok(*r);
        }
        let p = router.borrow_mut().path(src, dst).ok_or_else(|| {
            ScenarioError::new(
                path,
                format!("{:?}", g.nodes[dst.idx()].name),
                format!(
                    "no route from {:?}: connect the two hosts through links",
                    g.nodes[src.idx()].name
                ),
            )
        })?;
        if p.len() > u16::MAX as usize {
            return Err(ScenarioError::new(path, p.len(), "route too long"));
        }
        let id = push_route(p);
        route_of_cell.borrow_mut().insert((src, dst), id);
        Ok(id)
    };

    let factory = FlowFactory {
        tcp: sc.tcp.clone(),
        dctcp: sc.dctcp.clone(),
        dx: sc.dx.clone(),
        cubic: sc.cubic.clone(),
        swift: sc.swift.clone(),
        timely: sc.timely.clone(),
        qcn_rp: sc.qcn_rp.clone(),
        rdma: sc.rdma.clone(),
        dcqcn: sc.dcqcn.clone(),
        hpcc: sc.hpcc.clone(),
        asm_rp: sc.asm_rp.clone(),
        packet_bytes: sc.packet_bytes,
        seed: sc.seed,
        made: Default::default(),
    };
    let first_rate = |r: RouteId| -> f64 {
        let (off, _) = routes.borrow()[r.idx()];
        let pid = route_ports.borrow()[off as usize];
        ports[pid.idx()].rate().as_f64()
    };
    // an HPCC flow's route crosses at most `int::MAX_INT_HOPS` INT ports (refused, not cut)
    let int_ports_name = match int_cfg.as_ref().map(|i| i.ports) {
        Some(crate::scenario::IntPorts::All) => "all",
        _ => "switches",
    };
    let check_int_hops = |r: RouteId, path: &str, value: &str, a: NodeId, b: NodeId| {
        if int_cfg.is_none() {
            return Ok(());
        }
        let (off, len) = routes.borrow()[r.idx()];
        let hops = route_ports.borrow()[off as usize..off as usize + len as usize]
            .iter()
            .filter(|p| ports[p.idx()].int_on())
            .count();
        let between = format!(
            "from {:?} to {:?}",
            g.nodes[a.idx()].name,
            g.nodes[b.idx()].name
        );
        crate::int::check_route_hops(path, value, &between, hops, int_ports_name)
    };
    // congestion points send feedback back to rate-based sources: routes from each CP's node
    let cp_nodes: Vec<NodeId> = g
        .links
        .iter()
        .zip(ends.iter())
        .filter(|(l, _)| matches!(l.aqm, Some(AqmConfig::Qcn(_)) | Some(AqmConfig::Asm(_))))
        .map(|(_, e)| e.from)
        .collect();
    let mut flows = Vec::with_capacity(sc.flow.len());
    let mut events = EventQueue::new(g.links.len(), 1024 + 4 * sc.flow.len());
    let lb = g.load_balance();
    let mut ecmp = (lb != LoadBalance::Single)
        .then(|| crate::net::routing::Ecmp::new(ends.clone(), is_host.clone(), sc.seed));
    let mut spray = (lb == LoadBalance::Spray).then(|| Box::new(SprayTable::new(sc.seed)));
    // a pair with more equal-cost paths than spraying takes is refused, naming the field
    let too_many = |path: String, n: u64| {
        ScenarioError::new(
            "topology.load_balance",
            "\"spray\"",
            format!("{path}: {n} equal-cost paths between its hosts, more than spraying takes ({MAX_SPRAY_PATHS}); use \"ecmp\""),
        )
    };
    let mut spray_of: Vec<(usize, u32)> = Vec::new();
    for (i, f) in sc.flow.iter().enumerate() {
        let src = node_ids[f.src.as_str()];
        let dst = node_ids[f.dst.as_str()];
        let (fwd, rev) = match ecmp.as_mut() {
            Some(e) => {
                let no_route = |p: &str| {
                    ScenarioError::new(
                        format!("flow[{i}].{p}"),
                        format!("{:?}", if p == "dst" { &f.dst } else { &f.src }),
                        "no route between the flow's hosts",
                    )
                };
                let a = e.path(src, dst, i as u64).ok_or_else(|| no_route("dst"))?;
                let b = e.path(dst, src, i as u64).ok_or_else(|| no_route("src"))?;
                if let Some(t) = spray.as_mut() {
                    let mut push = |p: Vec<PortId>| push_route(p);
                    let group = match t.group(e, src, dst, &mut push) {
                        Ok(g) => g,
                        Err(NoGroup::Unreachable) => return Err(no_route("dst")),
                        Err(NoGroup::TooMany(n)) => return Err(too_many(format!("flow[{i}]"), n)),
                    };
                    spray_of.push((i, group));
                }
                (push_route(a), push_route(b))
            }
            None => (
                route(src, dst, &format!("flow[{i}].dst"))?,
                route(dst, src, &format!("flow[{i}].src"))?,
            ),
        };
        if f.cc == CcKind::Hpcc {
            check_int_hops(
                fwd,
                &format!("flow[{i}].dst"),
                &format!("{:?}", f.dst),
                src,
                dst,
            )?;
        }
        let start = SimTime::from_secs_f64(f.start_s);
        events.schedule(start, Event::FlowStart(FlowId(i as u32)));
        if let Some(st) = f.stop_s {
            events.schedule(
                SimTime::from_secs_f64(st),
                Event::FlowStop(FlowId(i as u32)),
            );
        }
        if matches!(f.cc, CcKind::Qcn | CcKind::Asm | CcKind::ExtRate(_)) {
            // a rate-based source needs a congestion point of its kind on its path (an external
            // rate controller: of any kind, or none; it gets what the path's points send)
            let (off, len) = routes.borrow()[fwd.idx()];
            let has_cp = route_ports.borrow()[off as usize..off as usize + len as usize]
                .iter()
                .any(|p| {
                    matches!(
                        (&g.links[p.idx()].aqm, f.cc),
                        (Some(AqmConfig::Qcn(_)), CcKind::Qcn)
                            | (Some(AqmConfig::Asm(_)), CcKind::Asm)
                    )
                });
            if !has_cp && !matches!(f.cc, CcKind::ExtRate(_)) {
                return Err(ScenarioError::new(
                    format!("flow[{i}].cc"),
                    format!("{:?}", f.cc.name()),
                    format!("a rate-based source needs a `{}` congestion point on its path (set aqm.kind = \"{}\" on a port it crosses)", f.cc.name(), f.cc.name()),
                ));
            }
            for &cp in &cp_nodes {
                if cp != src {
                    route(cp, src, &format!("flow[{i}].src"))?;
                }
            }
        }
        let line = first_rate(fwd);
        let path_rtt = || {
            path_rtt_s(
                &routes.borrow(),
                &route_ports.borrow(),
                &ports,
                (fwd, rev),
                (sc.packet_bytes, sc.ack_bytes),
            )
        };
        let mut fl = factory.make(
            f.cc,
            f.size_bytes,
            fwd,
            rev,
            src,
            dst,
            start,
            if f.cc == CcKind::Cbr {
                f.rate_bps.unwrap_or(line)
            } else {
                line
            },
            path_rtt,
        );
        fl.set_class(f.class, sc.tcp.ack_class);
        if let Some(t) = spray.as_mut() {
            t.set_flow(
                FlowId(i as u32),
                spray_of.last().filter(|x| x.0 == i).map(|x| x.1),
            );
        }
        flows.push(fl);
    }
    let mut workloads = Vec::new();
    for (i, w) in sc.workload.iter().enumerate() {
        let p = format!("workload[{i}]");
        match w {
            WorkloadSpec::Incast(x) => {
                let client = node_ids[x.client.as_str()];
                let mut servers = Vec::new();
                for (j, s) in x.servers.iter().enumerate() {
                    let sid = node_ids[s.as_str()];
                    let r = route(sid, client, &format!("{p}.servers[{j}]"))?;
                    if x.cc.contains(&CcKind::Hpcc) {
                        let at = format!("{p}.servers[{j}]");
                        check_int_hops(r, &at, &format!("{s:?}"), sid, client)?;
                    }
                    route(client, sid, &format!("{p}.client"))?;
                    servers.push(sid);
                }
                if let (Some(e), true) = (ecmp.as_mut(), spray.is_some()) {
                    let counts = e.path_counts(client);
                    if let Some(n) = servers
                        .iter()
                        .map(|a| counts[a.idx()])
                        .find(|&n| n > MAX_SPRAY_PATHS as u64)
                    {
                        return Err(too_many(p.clone(), n));
                    }
                }
                events.schedule(SimTime::from_secs_f64(x.start_s), Event::Workload(i as u32));
                workloads.push(WorkloadState::Incast {
                    client,
                    servers,
                    block: x.block(),
                    rounds_left: x.rounds,
                    round: 0,
                    outstanding: 0,
                    round_start: SimTime::ZERO,
                    gap: SimDuration::from_secs_f64(x.gap_s),
                    cc: x.cc.clone(),
                    class: x.class,
                    jitter_s: x.jitter_s,
                    jitter_rng: Rng::stream(sc.seed, &format!("workload/{i}/jitter")),
                });
            }
            WorkloadSpec::Poisson(x) => {
                let src: Vec<NodeId> = x.src.iter().map(|s| node_ids[s.as_str()]).collect();
                let dst: Vec<NodeId> = x.dst.iter().map(|s| node_ids[s.as_str()]).collect();
                // a route each way for every pair (written once: about 2 million at k = 16)
                let (at_dst, at_src) = (format!("{p}.dst"), format!("{p}.src"));
                // (all-to-all: one route per ordered pair; a map sized for twice that would
                // double its table)
                let pairs = src.len() * dst.len();
                route_of_cell.borrow_mut().reserve(pairs);
                routes.borrow_mut().reserve(pairs);
                for &a in &src {
                    for &b in &dst {
                        if a != b {
                            let r = route(a, b, &at_dst)?;
                            if x.cc.contains(&CcKind::Hpcc) {
                                let name = format!("{:?}", g.nodes[b.idx()].name);
                                check_int_hops(r, &at_dst, &name, a, b)?;
                            }
                            route(b, a, &at_src)?;
                        }
                    }
                }
                let pairs = crate::workload::PairChoice::new(
                    x.pattern,
                    &src,
                    &dst,
                    &mut Rng::stream(sc.seed, &format!("workload/{i}/pattern")),
                )
                .map_err(|why| {
                    ScenarioError::new(
                        format!("{p}.pattern"),
                        format!("{:?}", x.pattern.name()),
                        why,
                    )
                })?;
                if let (Some(e), true) = (ecmp.as_mut(), spray.is_some()) {
                    // its flows' groups are made as they come; their sizes are checked now
                    for &b in &dst {
                        let counts = e.path_counts(b);
                        if let Some(n) = src
                            .iter()
                            .map(|a| counts[a.idx()])
                            .find(|&n| n > MAX_SPRAY_PATHS as u64)
                        {
                            return Err(too_many(p.clone(), n));
                        }
                    }
                }
                let mut rng = Rng::stream(sc.seed, &format!("workload/{i}"));
                let rate = x.arrival_rate();
                let first = x.start_s + rng.exponential(1.0 / rate);
                let stop = SimTime::from_secs_f64(x.stop_s.unwrap_or(sc.until_s).min(sc.until_s));
                let first_t = SimTime::from_secs_f64(first);
                if first_t <= stop {
                    events.schedule(first_t, Event::Workload(i as u32));
                }
                workloads.push(WorkloadState::Poisson {
                    src,
                    dst,
                    rate,
                    size: x.size.clone(),
                    cc: x.cc.clone(),
                    arrivals: 0,
                    stop,
                    rng,
                    class: x.class,
                    pairs,
                    jitter_s: x.jitter_s,
                    jitter_rng: Rng::stream(sc.seed, &format!("workload/{i}/jitter")),
                });
            }
        }
    }

    let names = sc.record.ports.clone().unwrap_or_default();
    let mut rec_ports = Vec::new();
    let port_index: HashMap<&str, usize> = port_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    for (i, n) in names.iter().enumerate() {
        let id = port_index.get(n.as_str()).copied().ok_or_else(|| {
            ScenarioError::new(
                format!("record.ports[{i}]"),
                format!("{n:?}"),
                "must name a port \"from->to\"",
            )
        })?;
        rec_ports.push(PortId(id as u32));
    }
    let mut rec = Recorder::new(&sc.record.traces, rec_ports, sc.record.queue_every_change);
    rec.set_event_cap(estimate.event_cap_rows);
    if rec.queue_every_change {
        // the every-change series of all recorded ports share one cap
        let share = (estimate.event_cap_rows / rec.ports.len().max(1) as u64).max(1);
        for p in &rec.ports {
            ports[p.idx()].change_log = Some(crate::record::ChangeLog::for_port(p.0, share));
        }
    }
    let queue_interval = SimDuration::from_secs_f64(sc.record.queue_interval_s);
    let flow_interval = SimDuration::from_secs_f64(sc.record.flow_interval_s);
    if queue_interval.0 == 0 || flow_interval.0 == 0 {
        return Err(ScenarioError::new(
            "record.queue_interval_s",
            fmt_f(sc.record.queue_interval_s.min(sc.record.flow_interval_s)),
            "must be at least 1 ps",
        ));
    }
    if rec.wants_queue_samples() && !rec.ports.is_empty() {
        let n = end.0 / queue_interval.0 + 1;
        let per = (n as usize).saturating_mul(rec.ports.len());
        if rec.want_queue && !rec.queue_every_change {
            // counted by the budget; a failure is an error, not an abort
            let q = &mut rec.queue;
            q.time_ps
                .try_reserve_exact(per)
                .and_then(|_| q.port.try_reserve_exact(per))
                .and_then(|_| q.pkts.try_reserve_exact(per))
                .and_then(|_| q.bytes.try_reserve_exact(per))
                .map_err(|_| {
                    ScenarioError::new(
                        "record.queue_interval_s",
                        fmt_f(sc.record.queue_interval_s),
                        format!(
                            "cannot allocate the queue series ({per} rows): raise the interval or record fewer ports"
                        ),
                    )
                })?;
        }
        events.schedule(SimTime::ZERO, Event::SampleQueues);
    }
    if rec.wants_flow_samples() {
        events.schedule(SimTime::ZERO, Event::SampleFlows);
    }

    let sole_feeder = sole_feeders(
        &ports,
        &routes.borrow(),
        &route_ports.borrow(),
        &rec,
        workloads.is_empty(),
    );
    let la = Lookahead::new(sole_feeder, ports.len(), LANE_FAN_OUT);
    let pfc = match &sc.pfc {
        None => None,
        Some(p) => {
            // each port's way back: the port from its far end to its near end
            let back: std::collections::HashMap<(NodeId, NodeId), PortId> = ends
                .iter()
                .enumerate()
                .map(|(i, e)| ((e.from, e.to), PortId(i as u32)))
                .collect();
            let mut reverse = Vec::with_capacity(ends.len());
            for (i, e) in ends.iter().enumerate() {
                let r = back.get(&(e.to, e.from)).copied();
                if r.is_none() && !is_host[e.to.idx()] {
                    return Err(ScenarioError::new(
                        "pfc",
                        format!("port {}", port_names[i]),
                        "PFC sends PAUSE frames back over the reverse link; every switch needs a link back to each node that sends to it",
                    ));
                }
                reverse.push(r);
            }
            Some(Box::new(crate::sim::pfc::Pfc::new(p, reverse)))
        }
    };
    let pools = sc.shared_buffer.as_ref().map(|b| {
        // each switch's pool as a dense index; a host's port keeps its own buffer
        let mut pool_of_node = vec![u32::MAX; g.nodes.len()];
        let mut n = 0u32;
        for (i, &host) in is_host.iter().enumerate() {
            if !host {
                pool_of_node[i] = n;
                n += 1;
            }
        }
        let of_port = ends.iter().map(|e| pool_of_node[e.from.idx()]).collect();
        Box::new(crate::sim::pool::Pools::new(b, of_port, n as usize))
    });
    Ok(Simulation {
        now: SimTime::ZERO,
        end,
        events,
        ports,
        port_names,
        node_names: g.nodes.iter().map(|n| n.name.clone()).collect(),
        route_ports: route_ports.into_inner(),
        routes: routes.into_inner(),
        route_of: route_of_cell.into_inner(),
        port_from: ends.iter().map(|e| e.from).collect(),
        ecmp,
        spray,
        flow_class: flows.iter().map(|f| [f.class, f.ack_class]).collect(),
        flows,
        workloads,
        rounds: Vec::new(),
        factory,
        rec,
        ledger: Ledger::default(),
        feedback_bytes: sc.feedback_bytes,
        mss: sc.packet_bytes,
        ack_bytes: sc.ack_bytes,
        queue_interval,
        flow_interval,
        queue_samples: 0,
        flow_samples: 0,
        scenario: sc.clone(),
        la,
        spawn_buf: Vec::new(),
        pfc,
        pools,
        int: int_cfg
            .as_ref()
            .map(|i| Box::new(crate::int::IntArena::new(i.max_slots))),
        nic_waiters: Vec::new(),
        tsq: match sc.tcp.host_queue_pkts {
            Some(n) if n > 0 => Some(Box::new(crate::sim::tsq::Tsq::new(n))),
            _ => None,
        },
        stamp_tx: sc.tcp.stamp_at == crate::scenario::StampAt::HostTx,
        host_send_hook: sc.tcp.host_queue_pkts.is_some_and(|n| n > 0)
            || sc.tcp.stamp_at == crate::scenario::StampAt::HostTx,
    })
}

/// A feeder of more ports than this sends their never-queued departures to shared lanes when
/// it feeds them ahead of time (few ports: each port's own pipe is cheaper).
pub(crate) const LANE_FAN_OUT: usize = 4;

/// Ports whose arrivals may be taken ahead of time (`Simulation::settle`): for each port, the
/// one port that feeds it, or `u32::MAX`. Exactness needs a port that
/// - only ever receives from one port (every route through it comes from that port, and no
///   route starts at it, so no host or switch injects into it), over a route set that cannot
///   grow during the run (no workloads spawning flows);
/// - nobody looks at between now and the arrival: not a recorded port (queue/link samples,
///   change log) and no drop/mark trace (its rows must come in time order);
/// - decides from its own arrivals only (`Aqm::may_be_fed_ahead`), fed by a port that never
///   takes back a queued packet (`Aqm::takes_back_queued`); and no policy anywhere that sends
///   feedback frames into routes mid-way (`Aqm::sends_feedback`).
pub(crate) fn sole_feeders(
    ports: &[Port],
    routes: &[(u32, u16)],
    route_ports: &[PortId],
    rec: &Recorder,
    static_routes: bool,
) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let cp = ports.iter().any(|p| p.aqm.sends_feedback());
    if !static_routes || cp || rec.want_drops {
        return Vec::new();
    }
    // u32::MAX - 1: not decided yet
    let mut feeder = vec![NONE - 1; ports.len()];
    for &(off, len) in routes {
        let r = &route_ports[off as usize..off as usize + len as usize];
        for (i, p) in r.iter().enumerate() {
            let from = if i == 0 { NONE } else { r[i - 1].0 };
            let f = &mut feeder[p.idx()];
            if *f == NONE - 1 {
                *f = from;
            } else if *f != from {
                *f = NONE;
            }
        }
    }
    let mut recorded = vec![false; ports.len()];
    for p in &rec.ports {
        recorded[p.idx()] = true;
    }
    for (i, f) in feeder.iter_mut().enumerate() {
        let ok = *f < NONE - 1
            && !recorded[i]
            && ports[i].aqm.may_be_fed_ahead()
            && !ports[*f as usize].aqm.takes_back_queued()
            && ports[i].path() != PortPath::General
            && ports[*f as usize].path() != PortPath::General;
        if !ok {
            *f = NONE;
        }
    }
    feeder
}
