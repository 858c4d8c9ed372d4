//! The simulation: arenas of ports, routes and flows, the event queue, and the dispatch of
//! each event. `run_until` / `step` / `peek` drive it; `finish` (in `output`) checks packet
//! conservation and hands back the recorded tables; `new` is in `build`.
//!
//! Rooms: this file forwards packets through ports (arrivals, queue policies, the one-hop
//! lookahead of `lookahead`); `hosts` is the senders' and receivers' side (TCP, rate-based
//! sources, workload flows); `sample` holds the periodic samplers.
//!
//! Per data packet the engine spends one event per hop (see `net::port`): a packet's arrival
//! at the next node is scheduled when the upstream port accepts it.

mod hosts;
mod lookahead;
pub(crate) mod pfc;
pub(crate) mod pool;
mod rdma;
mod sample;
mod stamp;
pub(crate) mod tsq;

pub(crate) use lookahead::Lookahead;

use crate::engine::{Event, EventQueue};
use crate::flow::FlowState;
use crate::net::port::Started;
use crate::net::{Admit, DropReason, Port, PortPath};
use crate::packet::{flags, Packet, PacketKind};
use crate::record::{Ledger, PortEventKind, Recorder};
use crate::scenario::Scenario;
use crate::units::{SimDuration, SimTime};
use crate::workload::{RoundRecord, WorkloadState};
use crate::world::{FlowId, NodeId, PortId, RouteId};

pub struct Simulation {
    pub(crate) now: SimTime,
    pub(crate) end: SimTime,
    pub(crate) events: EventQueue,
    pub(crate) ports: Vec<Port>,
    pub(crate) port_names: Vec<String>,
    pub(crate) node_names: Vec<String>,
    pub(crate) route_ports: Vec<PortId>,
    /// (offset into route_ports, length)
    pub(crate) routes: Vec<(u32, u16)>,
    pub(crate) route_of: crate::net::routing::PairMap<RouteId>,
    /// The node that owns each port (where a congestion point's feedback starts).
    pub(crate) port_from: Vec<NodeId>,
    /// Per-flow ECMP routing (graphs with `ecmp = true`).
    pub(crate) ecmp: Option<crate::net::routing::Ecmp>,
    /// Per-packet spraying (`load_balance = "spray"`): every pair's equal-cost routes.
    pub(crate) spray: Option<Box<crate::net::spray::SprayTable>>,
    pub(crate) flows: Vec<FlowState>,
    /// Per flow, the classes of its data and of its ACKs (`FlowState::class`, `ack_class`),
    /// apart from the flows' large state: a switch on the general path reads them at every
    /// arrival and departure, and on a big fabric the flow's own state is not in cache then.
    pub(crate) flow_class: Vec<[u8; 2]>,
    pub(crate) workloads: Vec<WorkloadState>,
    pub(crate) rounds: Vec<RoundRecord>,
    pub(crate) factory: crate::flow::FlowFactory,
    pub(crate) rec: Recorder,
    pub(crate) ledger: Ledger,
    pub(crate) feedback_bytes: u32,
    pub(crate) mss: u32,
    pub(crate) ack_bytes: u32,
    pub(crate) queue_interval: SimDuration,
    pub(crate) flow_interval: SimDuration,
    pub(crate) queue_samples: u64,
    pub(crate) flow_samples: u64,
    pub(crate) scenario: Scenario,
    /// The one-hop lookahead's state (`lookahead` module).
    pub(crate) la: Lookahead,
    /// Reused buffer of the flows a workload event creates.
    pub(crate) spawn_buf: Vec<crate::workload::Spawn>,
    /// Priority flow control's state (`[pfc]`), if the scenario has it.
    pub(crate) pfc: Option<Box<pfc::Pfc>>,
    /// The switches' buffer pools (`[shared_buffer]`), if the scenario has them.
    pub(crate) pools: Option<Box<pool::Pools>>,
    /// In-band telemetry's hop records (`[int]`, `crate::int`), if some port stamps.
    pub(crate) int: Option<Box<crate::int::IntArena>>,
    /// RDMA flows waiting for their NIC port, per port (`rdma`; empty until one waits).
    pub(crate) nic_waiters: Vec<Vec<crate::world::FlowId>>,
    /// TCP flows' packets in their host ports (`tcp.host_queue_pkts`, `tsq`), if limited.
    pub(crate) tsq: Option<Box<tsq::Tsq>>,
    /// TCP data packets are stamped when their host port starts them (`tcp.stamp_at =
    /// "host_tx"`, `stamp`).
    pub(crate) stamp_tx: bool,
    /// `tsq.is_some() || stamp_tx`: a TCP sender's packets go to its host port through
    /// `host_send` (one test per packet in `pump`).
    pub(crate) host_send_hook: bool,
}

/// Append route `p` to the route arenas; its id.
pub(crate) fn push_route_into(
    routes: &mut Vec<(u32, u16)>,
    route_ports: &mut Vec<PortId>,
    p: Vec<PortId>,
) -> RouteId {
    let id = RouteId(routes.len() as u32);
    routes.push((
        route_ports.len() as u32,
        p.len().min(u16::MAX as usize) as u16,
    ));
    route_ports.extend(p);
    id
}

impl Simulation {
    /// Spill the event-driven series (drops and marks, every queue change, feedback frames)
    /// into `dir` in chunks of `chunk_rows` rows (at most each series' memory cap) instead of
    /// stopping at their caps (`record` module docs). Call before the run; the directory is
    /// created on the first chunk.
    pub fn set_spill(&mut self, dir: std::sync::Arc<crate::record::SpillDir>, chunk_rows: u64) {
        self.rec.set_spill(&dir, chunk_rows);
        for p in &self.rec.ports {
            if let Some(log) = self.ports[p.idx()].change_log.as_mut() {
                log.spill.set_dir(dir.clone(), chunk_rows);
            }
        }
    }

    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The end of the run the scenario asks for.
    pub fn end(&self) -> SimTime {
        self.end
    }

    /// The expanded scenario this run uses.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.events.processed()
    }

    pub fn flows(&self) -> &[FlowState] {
        &self.flows
    }

    pub fn port_names(&self) -> &[String] {
        &self.port_names
    }

    pub fn node_names(&self) -> &[String] {
        &self.node_names
    }

    /// The ports of route `r` in the order its packets cross them (a flow's `fwd` route for its
    /// data, `rev` for its ACKs), as the engine forwards on them: read-only, for exporting each
    /// flow's path (`ccscope scenario export-flows --format paths`).
    pub fn route_port_ids(&self, r: RouteId) -> &[PortId] {
        let (off, len) = self.routes[r.idx()];
        &self.route_ports[off as usize..off as usize + len as usize]
    }

    pub fn port(&self, id: PortId) -> &Port {
        &self.ports[id.idx()]
    }

    pub fn port_id(&self, name: &str) -> Option<PortId> {
        self.port_names
            .iter()
            .position(|n| n == name)
            .map(|i| PortId(i as u32))
    }

    /// Time of the next event, if any.
    pub fn peek(&mut self) -> Option<SimTime> {
        self.events.peek_time()
    }

    /// Process one event; returns its time, or None when nothing is left.
    pub fn step(&mut self) -> Option<SimTime> {
        let (t, ev) = self.events.pop()?;
        self.now = t;
        self.la.horizon = t; // one event at a time: nothing is taken ahead
        self.handle(ev);
        Some(t)
    }

    /// Process every event with time <= `t`, then set the clock to `t`.
    pub fn run_until(&mut self, t: SimTime) {
        self.run_until_bounded(t, u64::MAX);
    }

    /// Process events with time <= `t`, at most `max_events` of them: the bounded step that
    /// lets a driver look at a stop request (Ctrl-C, a cancelled batch) between slices of a
    /// long run without a per-event cost beyond a counter.
    ///
    /// Returns true when the run reached `t` (every event up to `t` processed, the clock set to
    /// `t`), false when it stopped after `max_events` events, at an event boundary, with the
    /// clock at the last event's time. Calling it again with the same `t` goes on exactly where
    /// it stopped: any sequence of bounded calls towards `t` processes the same events in the
    /// same order as one `run_until(t)`, so traces and event counts are identical (the
    /// lookahead horizon stays `t` throughout).
    ///
    /// A run stopped early may already hold, in ports nobody observes in between (see
    /// `settle`), arrivals up to one link time past the clock; `finish` closes such a port at
    /// its own clock (`Port::close`).
    pub fn run_until_bounded(&mut self, t: SimTime, max_events: u64) -> bool {
        self.la.horizon = t;
        let mut left = max_events;
        // a pipe's arrival comes as its packet alone, written here (`pop_until_into`)
        let mut pkt = Packet::data_probe(FlowId(0), 0, 0, 0);
        while left > 0 {
            let Some((nt, ev)) = self.events.pop_until_into(t, &mut pkt) else {
                if t > self.now {
                    self.now = t;
                }
                return true;
            };
            left -= 1;
            self.now = nt;
            match ev {
                None => self.on_arrive(pkt),
                Some(ev) => self.handle(ev),
            }
        }
        false
    }

    /// Run to the scenario's end.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// One event. Inlined into both callers (`step`, `run_until_bounded`), so the run loop
    /// pays no call per event whichever of them a driver uses.
    #[inline(always)]
    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Arrive(pkt) => self.on_arrive(pkt),
            Event::RateSend(f) => self.rate_send(f),
            Event::RateTimer(f) => self.on_rate_timer(f),
            Event::RtoTimer(f) => self.on_rto_timer(f),
            Event::DelAckTimer(f) => self.on_delack_timer(f),
            other => self.handle_rare(other),
        }
    }

    /// The events that come once per flow, per sample or per workload action, and those of the
    /// general path: out of line, so that the per-packet event loop stays small (an inlined
    /// general path cost the committed-FIFO runs 2-3 % of their instructions, BENCHMARKS.md).
    #[inline(never)]
    fn handle_rare(&mut self, ev: Event) {
        match ev {
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::SampleQueues => self.sample_queues(),
            Event::SampleFlows => self.sample_flows(),
            Event::FlowStop(f) => self.on_flow_stop(f),
            Event::Workload(w) => self.on_workload(w),
            Event::TxDone(p) => self.on_tx_done(p),
            Event::Pfc(p, code) => self.on_pfc(p, code),
            Event::Arrive(_)
            | Event::RateSend(_)
            | Event::RateTimer(_)
            | Event::RtoTimer(_)
            | Event::DelAckTimer(_) => unreachable!("handled in line by `handle`"),
        }
    }

    pub(crate) fn push_route(&mut self, p: Vec<PortId>) -> RouteId {
        push_route_into(&mut self.routes, &mut self.route_ports, p)
    }

    #[inline]
    fn on_arrive(&mut self, mut pkt: Packet) {
        let (off, len) = self.routes[pkt.route.idx()];
        if pkt.hop == len {
            self.deliver(pkt);
        } else {
            let port = self.route_ports[off as usize + pkt.hop as usize];
            pkt.hop += 1;
            // an arrival its feeder sent as an event (`settle` counted it) has come
            self.la.arrived(port);
            self.forward(port, pkt);
        }
    }

    /// Offer `pkt` to `port`, and, where `settle` takes the next hop ahead of time (the one-hop
    /// lookahead), to that next port too: the second offer is a second copy of the first, not
    /// a recursion, so that the per-packet path is one call deep.
    #[inline]
    fn forward(&mut self, port: PortId, pkt: Packet) {
        if let Some((next, p, arrive_at)) = self.offer_once(port, pkt) {
            let now = self.now;
            self.now = arrive_at;
            self.la.ahead = Some(port);
            // inside the lookahead `settle` takes nothing further ahead (one hop at a time)
            let further = self.offer_once(next, p);
            debug_assert!(further.is_none(), "a lookahead of two hops");
            self.la.ahead = None;
            self.now = now;
        }
    }

    /// One port's offer: the committed FIFO's admission and `settle`, or the other paths.
    #[inline(always)]
    fn offer_once(&mut self, port: PortId, mut pkt: Packet) -> Option<(PortId, Packet, SimTime)> {
        match self.ports[port.idx()].path() {
            PortPath::Fifo => {
                let now = self.now;
                let admit = self.ports[port.idx()].offer(now, &mut pkt);
                self.settle(port, pkt, admit)
            }
            PortPath::Judged => {
                self.forward_judged(port, pkt);
                None
            }
            PortPath::General => {
                self.forward_general(port, pkt);
                None
            }
        }
    }

    /// The one-hop lookahead from a port off the committed FIFO (`admit_judged`): `next`
    /// takes `pkt` now, with the clock at its arrival time (`settle`).
    #[inline(never)]
    fn forward_ahead(&mut self, port: PortId, next: PortId, pkt: Packet, arrive_at: SimTime) {
        let now = self.now;
        self.now = arrive_at;
        self.la.ahead = Some(port);
        self.forward(next, pkt);
        self.la.ahead = None;
        self.now = now;
    }

    /// The general path (`net::sched`): the packet waits in its class; the link, when free,
    /// starts the packet the scheduler picks.
    #[inline(never)]
    fn forward_general(&mut self, port: PortId, mut pkt: Packet) {
        let now = self.now;
        let class = self.class_of(&pkt);
        // a transmission that ends by now frees the link first, as on the committed FIFO (an
        // arrival at the instant a transmission starts sees the queue after that departure)
        self.start_next(port);
        let pool = if self.pools.is_some() {
            self.pool_admits(port, &pkt, class)
        } else {
            None
        };
        match self.ports[port.idx()].enqueue(now, &mut pkt, class, pool) {
            Ok(marked) => {
                if marked {
                    self.record_mark(port, &pkt);
                }
                self.queue_joined(port, &pkt);
                self.record_evicted(port);
                self.start_next(port);
            }
            Err(reason) => {
                if pool == Some(false) && reason == DropReason::Overflow {
                    if let Some(p) = self.pools.as_mut() {
                        p.drops[port.idx()] += 1;
                    }
                }
                self.record_drop(port, &pkt, reason)
            }
        }
    }

    /// Record the packets an arrival pushed out of a port (FQ-CoDel's overflow rule).
    #[inline(never)]
    fn record_evicted(&mut self, port: PortId) {
        let Some(s) = self.ports[port.idx()].sched.as_mut() else {
            return;
        };
        if s.evicted.is_empty() {
            return;
        }
        // taken out while recorded and put back cleared: its capacity is kept
        let mut evicted = std::mem::take(&mut s.evicted);
        for v in &evicted {
            self.record_drop(port, v, DropReason::Overflow);
            self.queue_left(port, v);
        }
        evicted.clear();
        if let Some(s) = self.ports[port.idx()].sched.as_mut() {
            s.evicted = evicted;
        }
    }

    /// A packet joined a queue of a general-path port: PFC's ingress count and the switch's
    /// shared buffer follow it.
    #[inline]
    fn queue_joined(&mut self, port: PortId, pkt: &Packet) {
        if self.pfc.is_some() {
            self.pfc_queued(pkt);
        }
        if self.pools.is_some() {
            self.pool_queued(port, pkt);
        }
    }

    /// A packet left a queue of a general-path port (its transmission started, or it was
    /// dropped).
    #[inline]
    fn queue_left(&mut self, port: PortId, pkt: &Packet) {
        if self.pfc.is_some() {
            self.pfc_left(pkt);
        }
        if self.pools.is_some() {
            self.pool_left(port, pkt);
        }
    }

    /// A port on the general path starts its next transmission if its link is free (out of
    /// line: the committed-FIFO event loop stays small).
    #[inline(never)]
    fn start_next(&mut self, port: PortId) {
        let now = self.now;
        loop {
            match self.ports[port.idx()].start_next(now) {
                Started::Busy => return,
                Started::Dropped(pkt) => {
                    self.record_drop(port, &pkt, DropReason::Aqm);
                    self.queue_left(port, &pkt);
                }
                Started::Sent(mut pkt, arrive_at, end, marked) => {
                    if self.stamp_tx {
                        self.stamp_started(&mut pkt);
                    }
                    if marked {
                        self.record_mark(port, &pkt);
                    }
                    self.queue_left(port, &pkt);
                    if self.ports[port.idx()].int_on() && pkt.kind == PacketKind::Data {
                        self.int_stamp(port, &pkt);
                    }
                    if self.tsq.is_some() {
                        self.tsq_started(&pkt, end);
                    }
                    // the packet is on the wire for good (nothing takes back a started
                    // transmission on this path): it joins the lane of its link time, shared
                    // with every link of that time, instead of the port's own pipe; a big
                    // fabric then keeps a few sequential lanes instead of one pipe and one
                    // heap entry per busy port. The merged (time, seq) order is the same.
                    if self.la.ahead.is_none() {
                        self.events.schedule_started(now, arrive_at, pkt);
                        self.events.schedule_tx_done(port, now, end);
                    } else {
                        self.events.schedule_arrival(port, arrive_at, pkt);
                        self.events.schedule(end, Event::TxDone(port));
                    }
                    return;
                }
            }
        }
    }

    /// In-band telemetry: the port has just started `pkt`'s transmission; its record goes to
    /// the packet's slot in the side arena (`crate::int`), at the packet's INT hop (the INT
    /// ports it crossed before this one).
    fn int_stamp(&mut self, port: PortId, pkt: &Packet) {
        let Some(arena) = self.int.as_mut() else {
            return;
        };
        let rec = self.ports[port.idx()].int_record();
        let (off, len) = self.routes[pkt.route.idx()];
        let route = &self.route_ports[off as usize..off as usize + len as usize];
        // `hop` is already the index of the next port: this one is hop - 1
        let here = (pkt.hop as usize).saturating_sub(1).min(route.len());
        let ports = &self.ports;
        let hop = route[..here]
            .iter()
            .filter(|p| ports[p.idx()].int_on())
            .count();
        let fl = &self.flows[pkt.flow.idx()];
        // a segment below the cumulative ACK point is acknowledged: its slot may be reused
        let frontier = match fl.rate.as_deref() {
            None => fl.sender.snd_una,
            Some(r) => r.rdma.as_ref().map_or(u64::MAX, |d| d.tx.snd_una),
        };
        let mss = self.mss as f64;
        let stride = || {
            let n = route.iter().filter(|p| ports[p.idx()].int_on()).count();
            // twice the path's bandwidth-delay product in packets, at the first hop's rate
            let path = crate::flow::path_rtt_s(
                &self.routes,
                &self.route_ports,
                ports,
                (fl.fwd, fl.rev),
                (self.mss, self.ack_bytes),
            );
            let bdp = ports[route[0].idx()].rate().as_f64() / 8.0 * path.rtt_s / mss;
            (n, (2.0 * bdp).ceil().min(u32::MAX as f64) as u64)
        };
        arena.stamp(pkt.flow, pkt.seq, hop, rec, frontier, stride);
    }

    /// The in-band telemetry arena, if the run has one.
    pub fn int_arena(&self) -> Option<&crate::int::IntArena> {
        self.int.as_deref()
    }

    /// The ACK's echo (`crate::int`): the hop records of segment `seq` of `flow`.
    pub fn int_echo(&mut self, flow: crate::world::FlowId, seq: u64) -> crate::int::Echo<'_> {
        match self.int.as_mut() {
            Some(a) => a.echo(flow, seq),
            None => crate::int::Echo::Missing,
        }
    }

    /// `Event::TxDone`: the port's transmission ended; the next one starts (unless an arrival
    /// at this instant has started it already).
    #[inline(never)]
    fn on_tx_done(&mut self, port: PortId) {
        self.start_next(port);
        if !self.nic_waiters.is_empty() {
            self.rdma_wake_nic(port);
        }
    }

    /// Record a mark set on an arriving packet (the port counted it).
    #[inline(always)]
    fn record_mark(&mut self, port: PortId, pkt: &Packet) {
        self.rec.port_event(
            self.now.0,
            port,
            pkt.flow,
            pkt.seq,
            PortEventKind::Mark,
            pkt.is_ack_like(),
        );
    }

    /// Count and record a dropped packet.
    #[cold]
    fn record_drop(&mut self, port: PortId, pkt: &Packet, reason: DropReason) {
        self.ledger.dropped += 1;
        if self.tsq.is_some() {
            self.tsq_dropped(port, pkt);
        }
        let k = match reason {
            DropReason::Overflow => PortEventKind::DropOverflow,
            DropReason::Aqm => PortEventKind::DropAqm,
        };
        self.rec
            .port_event(self.now.0, port, pkt.flow, pkt.seq, k, pkt.is_ack_like());
    }

    /// The general path, for a queue policy that needs more than the committed FIFO gives it
    /// (`Aqm::needs_engine`, `aqm` module docs): the policy decides, with a view of the queued
    /// packets (which sit in the port's pipe) if it inspects them; the queued packets it takes
    /// back are marked or removed; the feedback it has for the arrival's source is sent; only
    /// then is the arrival admitted.
    fn forward_judged(&mut self, port: PortId, pkt: Packet) {
        use crate::aqm::Queued;
        let now = self.now;
        let p = &mut self.ports[port.idx()];
        p.advance(now);
        let feedback_to_source = p.aqm.sends_feedback()
            && pkt.kind == PacketKind::Data
            && self.flows[pkt.flow.idx()].rate.is_some();
        if p.aqm.inspects_queue() {
            let pipe = self.events.pipe(port);
            let base = pipe.len() - p.queue().0 as usize;
            let flow_of = |j: u32| pipe[base + j as usize].2.flow;
            let d = p.judge(now, &pkt, Queued::of(&flow_of), feedback_to_source);
            if !d.victims.is_empty() {
                self.take_back(port, base, &pkt, &d);
            }
            self.admit_judged(port, pkt, d.verdict, feedback_to_source);
        } else {
            let d = p.judge(now, &pkt, Queued::NONE, feedback_to_source);
            debug_assert!(d.victims.is_empty(), "victims without a view of the queue");
            self.admit_judged(port, pkt, d.verdict, feedback_to_source);
        }
    }

    /// The end of the general path: the policy's feedback for the arrival's source goes out
    /// first (its events are inserted before the arrival's, as ever), then the arrival is
    /// admitted and settled.
    #[inline(always)]
    fn admit_judged(
        &mut self,
        port: PortId,
        mut pkt: Packet,
        verdict: crate::aqm::Verdict,
        feedback_to_source: bool,
    ) {
        use crate::aqm::QueuePolicy;
        let now = self.now;
        if feedback_to_source {
            if let Some(fb) = self.ports[port.idx()].aqm.take_feedback() {
                self.send_feedback(port, &pkt, fb);
            }
        }
        let admit = self.ports[port.idx()].admit(now, &mut pkt, verdict);
        if let Some((next, p, arrive_at)) = self.settle(port, pkt, admit) {
            self.forward_ahead(port, next, p, arrive_at);
        }
    }

    /// Take back the queued packets a decision names (`base`: pipe index of the oldest waiting
    /// packet). They share the arrival's verdict (`aqm::Victims`): marked when it is a mark and
    /// the arrival is ECT (a packet already CE is left as it is), dropped otherwise, with later
    /// packets moving up on the port and on its link.
    fn take_back(&mut self, port: PortId, base: usize, pkt: &Packet, d: &crate::aqm::Decision) {
        use crate::aqm::Verdict;
        debug_assert!(
            d.verdict != Verdict::Enqueue,
            "victims of an accepted arrival"
        );
        let now = self.now;
        let mark = d.verdict == Verdict::Mark && pkt.has(flags::ECT);
        for &j in d.victims.as_slice() {
            let j = j as usize;
            if mark {
                if let Some(v) = self.events.pipe_packet_mut(port, base + j) {
                    if !v.has(flags::CE) {
                        v.flags |= flags::CE;
                        let (flow, seq, is_ack) = (v.flow, v.seq, v.is_ack_like());
                        self.ports[port.idx()].count_mark();
                        self.rec
                            .port_event(now.0, port, flow, seq, PortEventKind::Mark, is_ack);
                    }
                }
            } else {
                let dur = self.ports[port.idx()].remove_waiting(j);
                if let Some(v) = self.events.remove_from_pipe(port, base + j, dur) {
                    self.ledger.dropped += 1;
                    self.rec.port_event(
                        now.0,
                        port,
                        v.flow,
                        v.seq,
                        PortEventKind::DropAqm,
                        v.is_ack_like(),
                    );
                }
            }
        }
    }

    /// Where an admitted packet goes next: an arrival event, or, returned, the next port and
    /// the packet (its hop counted) with its arrival time, for the caller to offer it there at
    /// once (the one-hop lookahead: the caller sets the clock to that time and `la.ahead` to
    /// `port` for the offer, and restores both after it).
    #[inline(always)]
    fn settle(
        &mut self,
        port: PortId,
        pkt: Packet,
        admit: Admit,
    ) -> Option<(PortId, Packet, SimTime)> {
        let now = self.now;
        match admit {
            Admit::Accepted {
                arrive_at,
                marked,
                queued,
            } => {
                if marked {
                    self.record_mark(port, &pkt);
                }
                if let Some(next) = self
                    .la
                    .next_port(port, &pkt, &self.routes, &self.route_ports)
                {
                    // only while no earlier packet for `next` is still on its way as an event
                    // (the port must see its arrivals in order), and not from inside another
                    // lookahead (one hop at a time)
                    if self.la.ahead.is_none()
                        && arrive_at <= self.la.horizon
                        && self.la.pending[next.idx()] == 0
                    {
                        // The next port is fed by this port alone and nothing observes it in
                        // between (`build::sole_feeders`): its arrival sequence is this port's
                        // FIFO departure order, so offering the packet now, with the clock set
                        // to its arrival time, gives the same queue, marks and departure as
                        // the arrival event would. One event per hop saved.
                        let mut p = pkt;
                        p.hop += 1;
                        return Some((next, p, arrive_at));
                    }
                    // it travels as an event; `on_arrive` counts it off
                    self.la.pending[next.idx()] += 1;
                }
                if let Some(feeder) = self.la.ahead {
                    // a port fed ahead of time: the clock is its feeder's FIFO arrival times,
                    // which only grow among themselves, so unqueued departures get lanes of
                    // that clock (a lane needs its pushes in time order) when the feeder feeds
                    // many ports (one heap entry instead of many); else the port's own pipe
                    if queued || !self.la.fan_out[feeder.idx()] {
                        self.events.schedule_arrival(port, arrive_at, pkt);
                    } else {
                        self.events
                            .schedule_unqueued(port, now, arrive_at, pkt, feeder.0 + 1);
                    }
                    return None;
                }
                if queued {
                    self.events.schedule_arrival(port, arrive_at, pkt);
                } else {
                    self.events.schedule_unqueued(port, now, arrive_at, pkt, 0);
                }
            }
            Admit::Dropped(reason) => self.record_drop(port, &pkt, reason),
        }
        None
    }

    /// A host puts a new packet on its first port.
    #[inline]
    pub(crate) fn inject(&mut self, mut pkt: Packet) {
        self.ledger.sent += 1;
        let (off, _) = self.routes[pkt.route.idx()];
        let port = self.route_ports[off as usize];
        pkt.hop = 1;
        self.forward(port, pkt);
    }

    /// Packet-conservation ledger now (packets inside arrival events count as in flight).
    /// Packets waiting in the class queues of general-path ports count as in flight too.
    pub fn ledger(&self) -> Ledger {
        let queued: u64 = self
            .ports
            .iter()
            .filter_map(|p| p.sched.as_ref())
            .map(|s| s.queued_pkts())
            .sum();
        Ledger {
            in_flight: self.events.packets_in_flight() + queued,
            ..self.ledger
        }
    }
}
