//! The simulation: arenas of ports, routes and flows, the event queue, and the dispatch of
//! each event. `run_until` / `step` / `peek` drive it; `finish` checks packet conservation
//! and hands back the recorded tables.
//!
//! Per data packet the engine spends one event per hop (see `net::port`): a packet's arrival
//! at the next node is scheduled when the upstream port accepts it.

use crate::build;
use crate::cc::{CcProbe, CongestionControl};
use crate::engine::{Event, EventQueue};
use crate::error::{ScenarioError, SimulationError};
use crate::net::{Admit, DropReason, Port};
use crate::packet::{flags, Packet, PacketKind};
use crate::record::{Ledger, PortEventKind, Recorder};
use crate::scenario::{CcKind, Scenario};
use crate::transport::{AckInfo, TcpReceiver, TcpSender};
use crate::units::{SimDuration, SimTime};
use crate::world::{FlowId, NodeId, PortId, RouteId};

/// One transport flow and its timers.
#[derive(Clone, Debug)]
pub struct FlowState {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub fwd: RouteId,
    pub rev: RouteId,
    pub cc_kind: CcKind,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimTime,
    pub size_bytes: Option<u64>,
    /// Time of the scheduled RTO check event, if any.
    pub rto_event: Option<SimTime>,
    pub delack_event: Option<SimTime>,
    pub first_sent: Option<SimTime>,
    /// (workload index, round) for flows a workload created.
    pub workload: Option<(u32, u32)>,
    /// The receiver has the whole flow.
    pub completed: bool,
    /// Rate-based (802.1Qau) source state; None for TCP flows (boxed: cold for TCP flows).
    pub rate: Option<Box<RateState>>,
}

/// A paced, rate-controlled source (no window, no ACKs): frames leave at the reaction
/// point's current rate; losses are not recovered (802.1Qau assumes a lossless fabric).
#[derive(Clone, Debug)]
pub struct RateState {
    pub rp: crate::rate::Rate,
    pub next_seq: u64,
    pub total_segs: u64,
    last_seg_bytes: u32,
    mss: u32,
    pub timer_event: Option<SimTime>,
    pub frames_sent: u64,
}

impl RateState {
    pub fn new(rp: crate::rate::Rate, size_bytes: Option<u64>, mss: u32) -> Self {
        let (total_segs, last) = match size_bytes {
            None => (u64::MAX, mss),
            Some(b) => {
                let n = b.div_ceil(mss as u64).max(1);
                (n, (b - (n - 1) * mss as u64).max(1) as u32)
            }
        };
        RateState {
            rp,
            next_seq: 0,
            total_segs,
            last_seg_bytes: last,
            mss,
            timer_event: None,
            frames_sent: 0,
        }
    }
    fn seg_bytes(&self, seq: u64) -> u32 {
        if seq + 1 == self.total_segs {
            self.last_seg_bytes
        } else {
            self.mss
        }
    }
}

/// Runtime state of a workload (see `workload.rs`).
#[derive(Clone, Debug)]
pub enum WorkloadState {
    Incast {
        client: NodeId,
        servers: Vec<NodeId>,
        block: u64,
        rounds_left: u32,
        round: u32,
        outstanding: u32,
        round_start: SimTime,
        gap: SimDuration,
        cc: Vec<CcKind>,
    },
    Poisson {
        src: Vec<NodeId>,
        dst: Vec<NodeId>,
        rate: f64,
        size: crate::workload::SizeDist,
        cc: Vec<CcKind>,
        arrivals: u64,
        stop: SimTime,
        rng: crate::rng::Rng,
    },
}

/// One completed incast round: (workload, round, start, end).
#[derive(Clone, Copy, Debug)]
pub struct RoundRecord {
    pub workload: u32,
    pub round: u32,
    pub start: SimTime,
    pub end: SimTime,
}

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
    pub(crate) route_of: std::collections::HashMap<(NodeId, NodeId), RouteId>,
    /// The node that owns each port (where a congestion point's feedback starts).
    pub(crate) port_from: Vec<NodeId>,
    /// Per-flow ECMP routing (graphs with `ecmp = true`).
    pub(crate) ecmp: Option<crate::net::routing::Ecmp>,
    pub(crate) flows: Vec<FlowState>,
    pub(crate) workloads: Vec<WorkloadState>,
    pub(crate) rounds: Vec<RoundRecord>,
    pub(crate) factory: crate::build::FlowFactory,
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
    /// One-hop lookahead (see `settle`): for each port, the only port that ever feeds it when
    /// taking its arrivals ahead of time is exact, else `u32::MAX` (`build::sole_feeders`).
    pub(crate) sole_feeder: Vec<u32>,
    /// Arrivals up to this time may be taken ahead (the current `run_until` target).
    pub(crate) horizon: SimTime,
    /// Inside a lookahead: the feeder whose arrival times are the clock.
    pub(crate) ahead: Option<PortId>,
    /// Per port: it is the sole feeder of more than `build::LANE_FAN_OUT` ports.
    pub(crate) fan_out: Vec<bool>,
    /// Per port that may be fed ahead of time: arrivals its feeder sent as events instead
    /// (beyond the `run_until` target, behind another such arrival, or from inside a
    /// lookahead); while any is on its way the port takes nothing ahead.
    pub(crate) ahead_pending: Vec<u32>,
}

impl Simulation {
    /// Build a simulation from a scenario (validated and expanded here). `until` overrides
    /// the scenario's `until_s` when given.
    /// Memory: the default budget (half the machine's memory, `budget::default_budget_bytes`);
    /// see [`Simulation::with_budget`].
    pub fn new(scenario: &Scenario, until_s: Option<f64>) -> Result<Simulation, ScenarioError> {
        build::build(scenario, until_s)
    }

    /// As [`Simulation::new`], refusing a scenario whose estimated memory (`budget::estimate`)
    /// exceeds `max_memory_bytes` (None: the default budget) with an error naming the fields
    /// that drive it; event-driven traces are capped inside the budget.
    pub fn with_budget(
        scenario: &Scenario,
        until_s: Option<f64>,
        max_memory_bytes: Option<u64>,
    ) -> Result<Simulation, ScenarioError> {
        build::build_with_budget(scenario, until_s, max_memory_bytes)
    }

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
        self.horizon = t; // one event at a time: nothing is taken ahead
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
        self.horizon = t;
        let mut left = max_events;
        while left > 0 {
            let Some((nt, ev)) = self.events.pop_until(t) else {
                if t > self.now {
                    self.now = t;
                }
                return true;
            };
            left -= 1;
            self.now = nt;
            self.handle(ev);
        }
        false
    }

    /// Run to the scenario's end.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    #[inline]
    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Arrive(pkt) => self.on_arrive(pkt),
            Event::FlowStart(f) => {
                if self.flows[f.idx()].rate.is_some() {
                    self.rate_send(f);
                } else {
                    self.flows[f.idx()].sender.start();
                    self.pump(f);
                }
            }
            Event::RateSend(f) => self.rate_send(f),
            Event::RateTimer(f) => {
                let now = self.now;
                if let Some(r) = self.flows[f.idx()].rate.as_mut() {
                    if r.timer_event == Some(now) {
                        r.timer_event = None;
                    }
                    use crate::rate::RateControl;
                    r.rp.on_timer(now);
                }
                self.arm_rate_timer(f);
            }
            Event::RtoTimer(f) => {
                let fl = &mut self.flows[f.idx()];
                if fl.rto_event == Some(self.now) {
                    fl.rto_event = None;
                }
                fl.sender.on_timer(self.now);
                self.pump(f);
            }
            Event::DelAckTimer(f) => {
                let fl = &mut self.flows[f.idx()];
                if fl.delack_event == Some(self.now) {
                    fl.delack_event = None;
                }
                if let Some(a) = fl.receiver.on_delack_timer(self.now) {
                    self.send_ack(f, a);
                }
                self.arm_delack(f);
            }
            Event::SampleQueues => self.sample_queues(),
            Event::SampleFlows => self.sample_flows(),
            Event::FlowStop(f) => {
                let now = self.now;
                let fl = &mut self.flows[f.idx()];
                fl.sender.stop();
                let mut n = fl.sender.total_segments();
                if let Some(r) = fl.rate.as_mut() {
                    r.total_segs = r.next_seq.max(1);
                    n = r.total_segs;
                }
                fl.receiver.set_total_segments(n, now);
                self.check_complete(f);
                self.pump(f);
            }
            Event::Workload(w) => self.on_workload(w),
        }
    }

    fn push_route(&mut self, p: Vec<PortId>) -> RouteId {
        let id = RouteId(self.routes.len() as u32);
        self.routes.push((
            self.route_ports.len() as u32,
            p.len().min(u16::MAX as usize) as u16,
        ));
        self.route_ports.extend(p);
        id
    }

    /// A rate-based source puts its next frame on the wire and schedules the one after.
    fn rate_send(&mut self, f: FlowId) {
        use crate::rate::RateControl;
        let now = self.now;
        let route = self.flows[f.idx()].fwd;
        let Some(r) = self.flows[f.idx()].rate.as_mut() else {
            return;
        };
        if r.next_seq >= r.total_segs {
            return;
        }
        let seq = r.next_seq;
        let bytes = r.seg_bytes(seq);
        r.next_seq += 1;
        r.frames_sent += 1;
        r.rp.on_bytes_sent(now, bytes);
        let rate = r.rp.rate_bps().max(1.0);
        let gap = SimDuration::from_secs_f64(bytes as f64 * 8.0 / rate).max(SimDuration(1));
        if r.next_seq < r.total_segs {
            self.events.schedule(now + gap, Event::RateSend(f));
        }
        if self.flows[f.idx()].first_sent.is_none() {
            self.flows[f.idx()].first_sent = Some(now);
        }
        self.inject(Packet {
            ts: now,
            seq,
            flow: f,
            route,
            size_bytes: bytes,
            hop: 0,
            kind: PacketKind::Data,
            flags: 0,
        });
        self.arm_rate_timer(f);
    }

    fn arm_rate_timer(&mut self, f: FlowId) {
        use crate::rate::RateControl;
        let Some(r) = self.flows[f.idx()].rate.as_mut() else {
            return;
        };
        if let Some(d) = r.rp.poll_timeout() {
            if r.timer_event.is_none_or(|e| e > d) {
                r.timer_event = Some(d);
                self.events.schedule(d, Event::RateTimer(f));
            }
        }
    }

    /// Send the feedback a congestion point at `port` decided for `pkt` (a data frame of a
    /// rate-based flow) to the frame's source over the reverse route, and record it.
    fn send_feedback(&mut self, port: PortId, pkt: &Packet, fb: crate::rate::Feedback) {
        let now = self.now;
        if self.rec.want_feedback {
            let q = self.ports[port.idx()].queue().1 as f64;
            self.rec
                .feedback
                .push(now.0, 0, &fb, pkt.flow, q, f64::NAN, f64::NAN, now.0);
        }
        let from = self.port_from[port.idx()];
        let src = self.flows[pkt.flow.idx()].src;
        if from == src {
            return;
        }
        let Some(&route) = self.route_of.get(&(from, src)) else {
            return;
        };
        let fpkt = Packet {
            ts: now,
            seq: fb.encode(),
            flow: pkt.flow,
            route,
            size_bytes: self.feedback_bytes,
            hop: 0,
            kind: PacketKind::Feedback,
            flags: 0,
        };
        self.inject(fpkt);
    }

    /// Create a flow now (workloads) and start it.
    fn spawn_flow(&mut self, src: NodeId, dst: NodeId, cc: CcKind, size: u64, tag: (u32, u32)) {
        let key = self.flows.len() as u64;
        let (fwd, rev) = if let Some(e) = self.ecmp.as_mut() {
            let (Some(a), Some(b)) = (e.path(src, dst, key), e.path(dst, src, key)) else {
                return;
            };
            (self.push_route(a), self.push_route(b))
        } else {
            let (Some(&fwd), Some(&rev)) = (
                self.route_of.get(&(src, dst)),
                self.route_of.get(&(dst, src)),
            ) else {
                return; // routes were checked at build; an unknown pair cannot occur
            };
            (fwd, rev)
        };
        let (off, _) = self.routes[fwd.idx()];
        let line = self.ports[self.route_ports[off as usize].idx()]
            .rate()
            .as_f64();
        let path_rtt = || {
            crate::build::path_rtt_s(
                &self.routes,
                &self.route_ports,
                &self.ports,
                (fwd, rev),
                (self.mss, self.ack_bytes),
            )
        };
        let mut fl =
            self.factory
                .make(cc, Some(size), fwd, rev, src, dst, self.now, line, path_rtt);
        fl.workload = Some(tag);
        let id = FlowId(self.flows.len() as u32);
        let rate_based = fl.rate.is_some();
        self.flows.push(fl);
        if rate_based {
            self.rate_send(id);
        } else {
            self.flows[id.idx()].sender.start();
            self.pump(id);
        }
    }

    fn on_workload(&mut self, w: u32) {
        let now = self.now;
        match &mut self.workloads[w as usize] {
            WorkloadState::Incast {
                client,
                servers,
                block,
                rounds_left,
                round,
                outstanding,
                round_start,
                cc,
                ..
            } => {
                if *rounds_left == 0 {
                    return;
                }
                *rounds_left -= 1;
                *round_start = now;
                *outstanding = servers.len() as u32;
                let (client, servers, block, r, cc) =
                    (*client, servers.clone(), *block, *round, cc.clone());
                for (j, s) in servers.iter().enumerate() {
                    self.spawn_flow(*s, client, cc[j % cc.len()], block, (w, r));
                }
            }
            WorkloadState::Poisson {
                src,
                dst,
                rate,
                size,
                cc,
                arrivals,
                stop,
                rng,
            } => {
                let a = src[rng.below(src.len() as u64) as usize];
                let mut b = dst[rng.below(dst.len() as u64) as usize];
                let mut tries = 0;
                while b == a && tries < 64 {
                    b = dst[rng.below(dst.len() as u64) as usize];
                    tries += 1;
                }
                let bytes = size.sample(rng);
                let kind = cc[(*arrivals % cc.len() as u64) as usize];
                *arrivals += 1;
                let next = now + SimDuration::from_secs_f64(rng.exponential(1.0 / *rate));
                let stop = *stop;
                if next <= stop {
                    self.events.schedule(next, Event::Workload(w));
                }
                if a != b {
                    self.spawn_flow(a, b, kind, bytes, (w, 0));
                }
            }
        }
    }

    /// Mark the flow complete (once) when its receiver has everything, and tell its workload.
    #[inline(always)]
    fn check_complete(&mut self, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        if !fl.completed && fl.receiver.done_at.is_some() {
            fl.completed = true;
            self.on_flow_complete(f);
        }
    }

    #[cold]
    fn on_flow_complete(&mut self, f: FlowId) {
        let Some((w, r)) = self.flows[f.idx()].workload else {
            return;
        };
        let now = self.now;
        if let Some(WorkloadState::Incast {
            outstanding,
            round,
            round_start,
            rounds_left,
            gap,
            ..
        }) = self.workloads.get_mut(w as usize)
        {
            if *round != r || *outstanding == 0 {
                return;
            }
            *outstanding -= 1;
            if *outstanding == 0 {
                self.rounds.push(RoundRecord {
                    workload: w,
                    round: r,
                    start: *round_start,
                    end: now,
                });
                *round += 1;
                if *rounds_left > 0 {
                    let at = now + *gap;
                    self.events.schedule(at, Event::Workload(w));
                }
            }
        }
    }

    #[inline]
    fn on_arrive(&mut self, mut pkt: Packet) {
        let (off, len) = self.routes[pkt.route.idx()];
        if pkt.hop == len {
            self.deliver(pkt);
        } else {
            let port = self.route_ports[off as usize + pkt.hop as usize];
            pkt.hop += 1;
            if self
                .sole_feeder
                .get(port.idx())
                .is_some_and(|&f| f != u32::MAX)
            {
                // an arrival its feeder sent as an event (`settle` counted it) has come
                debug_assert!(self.ahead_pending[port.idx()] > 0, "lookahead count");
                self.ahead_pending[port.idx()] -= 1;
            }
            self.forward(port, pkt);
        }
    }

    #[inline]
    fn forward(&mut self, port: PortId, mut pkt: Packet) {
        if self.ports[port.idx()].aqm.needs_engine() {
            return self.forward_judged(port, pkt);
        }
        let now = self.now;
        let admit = self.ports[port.idx()].offer(now, &mut pkt);
        self.settle(port, pkt, admit);
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
        self.settle(port, pkt, admit);
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
                        let (flow, seq, is_ack) = (v.flow, v.seq, v.kind == PacketKind::Ack);
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
                        v.kind == PacketKind::Ack,
                    );
                }
            }
        }
    }

    /// The packet's next port, if `port` is its sole feeder (lookahead allowed there).
    #[inline(always)]
    fn lookahead_port(&self, port: PortId, pkt: &Packet) -> Option<PortId> {
        if self.sole_feeder.is_empty() {
            return None; // the lookahead is off for this run
        }
        let (off, len) = self.routes[pkt.route.idx()];
        if pkt.hop >= len {
            return None;
        }
        let next = self.route_ports[off as usize + pkt.hop as usize];
        (self.sole_feeder.get(next.idx()) == Some(&port.0)).then_some(next)
    }

    #[inline(always)]
    fn settle(&mut self, port: PortId, pkt: Packet, admit: Admit) {
        let now = self.now;
        match admit {
            Admit::Accepted {
                arrive_at,
                marked,
                queued,
            } => {
                if marked {
                    self.rec.port_event(
                        now.0,
                        port,
                        pkt.flow,
                        pkt.seq,
                        PortEventKind::Mark,
                        pkt.kind == PacketKind::Ack,
                    );
                }
                if let Some(next) = self.lookahead_port(port, &pkt) {
                    // only while no earlier packet for `next` is still on its way as an event
                    // (the port must see its arrivals in order), and not from inside another
                    // lookahead (one hop at a time)
                    if self.ahead.is_none()
                        && arrive_at <= self.horizon
                        && self.ahead_pending[next.idx()] == 0
                    {
                        // The next port is fed by this port alone and nothing observes it in
                        // between (`build::sole_feeders`): its arrival sequence is this port's
                        // FIFO departure order, so offering the packet now, with the clock set
                        // to its arrival time, gives the same queue, marks and departure as
                        // the arrival event would. One event per hop saved.
                        let mut p = pkt;
                        p.hop += 1;
                        self.now = arrive_at;
                        self.ahead = Some(port);
                        self.forward(next, p);
                        self.ahead = None;
                        self.now = now;
                        return;
                    }
                    // it travels as an event; `on_arrive` counts it off
                    self.ahead_pending[next.idx()] += 1;
                }
                if let Some(feeder) = self.ahead {
                    // a port fed ahead of time: the clock is its feeder's FIFO arrival times,
                    // which only grow among themselves, so unqueued departures get lanes of
                    // that clock (a lane needs its pushes in time order) when the feeder feeds
                    // many ports (one heap entry instead of many); else the port's own pipe
                    if queued || !self.fan_out[feeder.idx()] {
                        self.events.schedule_arrival(port, arrive_at, pkt);
                    } else {
                        self.events
                            .schedule_unqueued(port, now, arrive_at, pkt, feeder.0 + 1);
                    }
                    return;
                }
                if queued {
                    self.events.schedule_arrival(port, arrive_at, pkt);
                } else {
                    self.events.schedule_unqueued(port, now, arrive_at, pkt, 0);
                }
            }
            Admit::Dropped(reason) => {
                self.ledger.dropped += 1;
                let k = match reason {
                    DropReason::Overflow => PortEventKind::DropOverflow,
                    DropReason::Aqm => PortEventKind::DropAqm,
                };
                self.rec.port_event(
                    now.0,
                    port,
                    pkt.flow,
                    pkt.seq,
                    k,
                    pkt.kind == PacketKind::Ack,
                );
            }
        }
    }

    /// A host puts a new packet on its first port.
    #[inline]
    fn inject(&mut self, mut pkt: Packet) {
        self.ledger.sent += 1;
        let (off, _) = self.routes[pkt.route.idx()];
        let port = self.route_ports[off as usize];
        pkt.hop = 1;
        self.forward(port, pkt);
    }

    #[inline]
    fn deliver(&mut self, pkt: Packet) {
        self.ledger.delivered += 1;
        let f = pkt.flow;
        match pkt.kind {
            PacketKind::Data => {
                let now = self.now;
                let acks = self.flows[f.idx()].receiver.on_data(now, &pkt);
                if self.flows[f.idx()].rate.is_none() {
                    for a in acks.into_iter().flatten() {
                        self.send_ack(f, a);
                    }
                    self.arm_delack(f);
                }
                self.check_complete(f);
            }
            PacketKind::Feedback => {
                use crate::rate::RateControl;
                let now = self.now;
                let fb = crate::rate::Feedback::decode(pkt.seq);
                if let (Some(fb), Some(r)) = (fb, self.flows[f.idx()].rate.as_mut()) {
                    let before = r.rp.rate_bps();
                    r.rp.on_feedback(now, &fb);
                    if self.rec.want_feedback {
                        let after = r.rp.rate_bps();
                        self.rec
                            .feedback
                            .push(now.0, 1, &fb, f, f64::NAN, before, after, pkt.ts.0);
                    }
                }
                if let Some(fb) = fb {
                    // the sending port's policy hears of the delivery (an ASM CP may then sample
                    // this source again)
                    if let Some(p) = self.ports.get_mut(fb.cpid as usize) {
                        crate::aqm::QueuePolicy::on_feedback_delivered(&mut p.aqm, f, pkt.ts);
                    }
                }
                self.arm_rate_timer(f);
            }
            PacketKind::Ack => {
                let now = self.now;
                self.flows[f.idx()].sender.on_ack(
                    now,
                    pkt.seq,
                    pkt.has(flags::ECE),
                    pkt.ts,
                    pkt.has(flags::RETX),
                );
                self.pump(f);
            }
        }
    }

    #[inline]
    fn send_ack(&mut self, f: FlowId, a: AckInfo) {
        let mut fl = 0u8;
        if a.ece {
            fl |= flags::ECE;
        }
        if a.echo_retx {
            fl |= flags::RETX;
        }
        let pkt = Packet {
            ts: a.ts_echo,
            seq: a.ackno,
            flow: f,
            route: self.flows[f.idx()].rev,
            size_bytes: self.ack_bytes,
            hop: 0,
            kind: PacketKind::Ack,
            flags: fl,
        };
        self.inject(pkt);
    }

    /// Send whatever the sender's window allows, then (re)arm its timer event.
    #[inline]
    fn pump(&mut self, f: FlowId) {
        let now = self.now;
        loop {
            let fl = &mut self.flows[f.idx()];
            let Some(seg) = fl.sender.poll_transmit(now) else {
                break;
            };
            if fl.first_sent.is_none() {
                fl.first_sent = Some(now);
            }
            let pkt = Packet {
                ts: now,
                seq: seg.seq,
                flow: f,
                route: fl.fwd,
                size_bytes: seg.bytes,
                hop: 0,
                kind: PacketKind::Data,
                flags: seg.flags,
            };
            self.inject(pkt);
        }
        let fl = &mut self.flows[f.idx()];
        if let Some(d) = fl.sender.rto_deadline() {
            if fl.rto_event.is_none_or(|e| e > d) {
                fl.rto_event = Some(d);
                self.events.schedule(d, Event::RtoTimer(f));
            }
        }
    }

    fn arm_delack(&mut self, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        if let Some(d) = fl.receiver.delack_deadline() {
            if fl.delack_event.is_none_or(|e| e > d) {
                fl.delack_event = Some(d);
                self.events.schedule(d, Event::DelAckTimer(f));
            }
        }
    }

    fn sample_queues(&mut self) {
        let now = self.now;
        for i in 0..self.rec.ports.len() {
            let pid = self.rec.ports[i];
            let p = &mut self.ports[pid.idx()];
            p.advance(now);
            let (qp, qb) = p.queue();
            let tx = p.stats.tx_bytes;
            if self.rec.want_queue && !self.rec.queue_every_change {
                let q = &mut self.rec.queue;
                q.time_ps.push(now.0);
                q.port.push(pid.0);
                q.pkts.push(qp);
                q.bytes.push(qb);
            }
            if self.rec.want_link {
                let l = &mut self.rec.link;
                l.time_ps.push(now.0);
                l.port.push(pid.0);
                l.tx_bytes.push(tx);
            }
        }
        self.queue_samples += 1;
        let next = SimTime(self.queue_samples * self.queue_interval.0);
        if next <= self.end {
            self.events.schedule(next, Event::SampleQueues);
        }
    }

    fn sample_flows(&mut self) {
        let now = self.now;
        let mss = self.mss as f64;
        let mut probe = CcProbe::default();
        for (i, fl) in self.flows.iter().enumerate() {
            if fl.start > now || fl.completed {
                continue;
            }
            if let Some(r) = &fl.rate {
                if self.rec.want_rate {
                    use crate::rate::RateControl;
                    let mut rp = crate::rate::RateProbe::default();
                    r.rp.probe(&mut rp);
                    let t = &mut self.rec.rates;
                    t.time_ps.push(now.0);
                    t.flow.push(i as u32);
                    t.rate_bps.push(rp.rate_bps);
                    t.target_rate_bps.push(rp.target_rate_bps);
                }
                if self.rec.want_delivered {
                    let t = &mut self.rec.flows;
                    t.time_ps.push(now.0);
                    t.flow.push(i as u32);
                    t.cwnd_pkts.push(f64::NAN);
                    t.ssthresh_pkts.push(f64::NAN);
                    t.in_recovery.push(0);
                    t.alpha.push(f64::NAN);
                    t.delivered_bytes.push(fl.receiver.delivered_bytes());
                    t.received_bytes.push(fl.receiver.unique_bytes_received);
                }
                continue;
            }
            fl.sender.cc.probe(&mut probe);
            let t = &mut self.rec.flows;
            t.time_ps.push(now.0);
            t.flow.push(i as u32);
            t.cwnd_pkts.push(probe.cwnd_bytes / mss);
            t.ssthresh_pkts.push(if probe.ssthresh_bytes.is_finite() {
                probe.ssthresh_bytes / mss
            } else {
                f64::INFINITY
            });
            t.in_recovery.push(fl.sender.in_recovery() as u8);
            t.alpha.push(probe.alpha);
            t.delivered_bytes.push(fl.receiver.delivered_bytes());
            t.received_bytes.push(fl.receiver.unique_bytes_received);
        }
        self.flow_samples += 1;
        let next = SimTime(self.flow_samples * self.flow_interval.0);
        if next <= self.end {
            self.events.schedule(next, Event::SampleFlows);
        }
    }

    /// Packet-conservation ledger now (packets inside arrival events count as in flight).
    pub fn ledger(&self) -> Ledger {
        Ledger {
            in_flight: self.events.packets_in_flight(),
            ..self.ledger
        }
    }

    /// Close the run: bring ports up to date, check conservation, return everything recorded.
    pub fn finish(mut self) -> Result<crate::output::RunOutput, SimulationError> {
        let now = self.now;
        for p in self.ports.iter_mut() {
            p.close(now);
        }
        let ledger = self.ledger();
        if !ledger.balanced() {
            return Err(SimulationError(format!(
                "packet conservation violated: sent {} != delivered {} + dropped {} + in flight {}",
                ledger.sent, ledger.delivered, ledger.dropped, ledger.in_flight
            )));
        }
        Ok(crate::output::RunOutput::collect(self, ledger))
    }
}
