//! The hosts' side of the simulation: TCP senders and receivers (sending what the window
//! allows, ACKs, timers), rate-based sources and the feedback they get, and the flows that
//! workloads create while the run goes on (`workload::WorkloadState` decides; this file
//! schedules and spawns).

use super::{push_route_into, Simulation};
use crate::engine::Event;
use crate::packet::{flags, Packet, PacketKind};
use crate::transport::AckInfo;
use crate::units::SimDuration;
use crate::workload::Spawn;
use crate::world::{FlowId, PortId, RouteId};

impl Simulation {
    /// `Event::FlowStart`: a configured flow starts.
    #[inline]
    pub(crate) fn on_flow_start(&mut self, f: FlowId) {
        if self.flows[f.idx()].rate.is_some() {
            self.rate_send(f);
        } else {
            self.flows[f.idx()].sender.start();
            self.pump(f);
        }
    }

    /// `Event::RateTimer`: a reaction point's timer.
    pub(crate) fn on_rate_timer(&mut self, f: FlowId) {
        let now = self.now;
        if let Some(r) = self.flows[f.idx()].rate.as_mut() {
            if r.timer_event == Some(now) {
                r.timer_event = None;
            }
            use crate::rate::RateControl;
            r.rp.on_timer(now);
            if r.rdma.is_some() {
                self.rdma_timer(f);
            }
        } else {
            return self.ext_cc_timer(f);
        }
        self.arm_rate_timer(f);
    }

    /// `Event::RateTimer` of a window flow: its external controller's own timer
    /// (`cc::ext::ExtController::poll_timeout`); then send what the window allows and re-arm.
    #[inline(never)]
    fn ext_cc_timer(&mut self, f: FlowId) {
        let now = self.now;
        if let crate::cc::Cc::Ext(e) = &mut self.flows[f.idx()].sender.cc {
            if e.timer_event == Some(now) {
                e.timer_event = None;
            }
            e.inner.on_timer(now);
        }
        self.pump(f);
    }

    /// Schedule the external window controller's timer event if its deadline is earlier than
    /// the pending one (out of line: built-in controllers never come here).
    #[inline(never)]
    fn arm_ext_cc_timer(&mut self, f: FlowId) {
        if let crate::cc::Cc::Ext(e) = &mut self.flows[f.idx()].sender.cc {
            if let Some(d) = e.inner.poll_timeout() {
                if e.timer_event.is_none_or(|t| t > d) {
                    e.timer_event = Some(d);
                    self.events.schedule(d, Event::RateTimer(f));
                }
            }
        }
    }

    /// `Event::RtoTimer`: the retransmission timer's check.
    #[inline]
    pub(crate) fn on_rto_timer(&mut self, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        if fl.rto_event == Some(self.now) {
            fl.rto_event = None;
        }
        fl.sender.on_timer(self.now);
        self.pump(f);
    }

    /// `Event::DelAckTimer`: the receiver's delayed-ACK timer.
    #[inline]
    pub(crate) fn on_delack_timer(&mut self, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        if fl.delack_event == Some(self.now) {
            fl.delack_event = None;
        }
        if let Some(a) = fl.receiver.on_delack_timer(self.now) {
            self.send_ack(f, a);
        }
        self.arm_delack(f);
    }

    /// `Event::FlowStop`: a flow with a stop time sends nothing new; it completes once the
    /// receiver has what was sent.
    pub(crate) fn on_flow_stop(&mut self, f: FlowId) {
        let now = self.now;
        let fl = &mut self.flows[f.idx()];
        fl.sender.stop();
        let mut n = fl.sender.total_segments();
        if let Some(r) = fl.rate.as_mut() {
            r.total_segs = r.next_seq.max(1);
            n = r.total_segs;
            if let Some(d) = r.rdma.as_mut() {
                n = d.tx.stop();
                d.rx.set_total_segments(n);
            }
        }
        fl.receiver.set_total_segments(n, now);
        self.check_complete(f);
        self.pump(f);
    }

    /// A rate-based source puts its next frame on the wire and schedules the one after.
    pub(crate) fn rate_send(&mut self, f: FlowId) {
        use crate::rate::RateControl;
        let now = self.now;
        let route = self.flows[f.idx()].fwd;
        let Some(r) = self.flows[f.idx()].rate.as_mut() else {
            return;
        };
        if r.rdma.is_some() {
            return self.rdma_send_event(f);
        }
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
        let route = if self.spray.is_none() {
            route
        } else {
            self.spray_route(f)
        };
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

    pub(crate) fn arm_rate_timer(&mut self, f: FlowId) {
        use crate::rate::RateControl;
        let Some(r) = self.flows[f.idx()].rate.as_mut() else {
            return;
        };
        let mut deadline = r.rp.poll_timeout();
        if let Some(rto) = r.rdma.as_ref().and_then(|d| d.tx.rto_deadline()) {
            // an RDMA flow's retransmission timer shares the event
            deadline = Some(deadline.map_or(rto, |d| d.min(rto)));
        }
        if let Some(d) = deadline {
            if r.timer_event.is_none_or(|e| e > d) {
                r.timer_event = Some(d);
                self.events.schedule(d, Event::RateTimer(f));
            }
        }
    }

    /// Send the feedback a congestion point at `port` decided for `pkt` (a data frame of a
    /// rate-based flow) to the frame's source over the reverse route, and record it.
    pub(crate) fn send_feedback(&mut self, port: PortId, pkt: &Packet, fb: crate::rate::Feedback) {
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

    /// The route of flow `f`'s next data packet when the run sprays (`net::spray`): out of
    /// line, so that a run without spraying pays only the test before the call.
    #[cold]
    #[inline(never)]
    pub(crate) fn spray_route(&mut self, f: FlowId) -> RouteId {
        let fwd = self.flows[f.idx()].fwd;
        match self.spray.as_mut() {
            Some(t) => t.pick(f, fwd),
            None => fwd,
        }
    }

    /// Create a flow now (workloads) and start it.
    fn spawn_flow(&mut self, spawn: Spawn) {
        let Spawn {
            src,
            dst,
            cc,
            bytes: size,
            tag,
            class,
            delay,
        } = spawn;
        let key = self.flows.len() as u64;
        let mut spray = None;
        let (fwd, rev) = if let Some(e) = self.ecmp.as_mut() {
            let (Some(a), Some(b)) = (e.path(src, dst, key), e.path(dst, src, key)) else {
                return;
            };
            if let Some(t) = self.spray.as_mut() {
                // the pair's path count was checked at build (`build`, workloads)
                let (routes, route_ports) = (&mut self.routes, &mut self.route_ports);
                let mut push = |p: Vec<PortId>| push_route_into(routes, route_ports, p);
                spray = t.group(e, src, dst, &mut push).ok();
            }
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
            crate::flow::path_rtt_s(
                &self.routes,
                &self.route_ports,
                &self.ports,
                (fwd, rev),
                (self.mss, self.ack_bytes),
            )
        };
        let start = self.now + delay;
        let mut fl = self
            .factory
            .make(cc, Some(size), fwd, rev, src, dst, start, line, path_rtt);
        fl.workload = Some(tag);
        fl.set_class(class, self.factory.tcp.ack_class);
        let id = FlowId(self.flows.len() as u32);
        if let Some(t) = self.spray.as_mut() {
            t.set_flow(id, spray);
        }
        let rate_based = fl.rate.is_some();
        self.flow_class.push([fl.class, fl.ack_class]);
        self.flows.push(fl);
        if delay > SimDuration::ZERO {
            // start jitter: the flow exists (and holds its id) now, and starts later
            self.events.schedule(start, Event::FlowStart(id));
        } else if rate_based {
            self.rate_send(id);
        } else {
            self.flows[id.idx()].sender.start();
            self.pump(id);
        }
    }

    /// `Event::Workload`: the workload's runtime decides; its next event is scheduled before
    /// the flows it names are created.
    pub(crate) fn on_workload(&mut self, w: u32) {
        let now = self.now;
        let mut spawn = std::mem::take(&mut self.spawn_buf);
        if let Some(next) = self.workloads[w as usize].fire(w, now, &mut spawn) {
            self.events.schedule(next, Event::Workload(w));
        }
        for s in spawn.drain(..) {
            self.spawn_flow(s);
        }
        self.spawn_buf = spawn;
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
        // a workload's finished flow gives its telemetry ring back for later flows (a long run
        // keeps only the rings of the flows in progress); its last ACKs then find no records
        if let Some(a) = self.int.as_mut() {
            a.release(f);
        }
        let now = self.now;
        let Some(state) = self.workloads.get_mut(w as usize) else {
            return;
        };
        let (record, next) = state.flow_completed(w, r, now);
        if let Some(rec) = record {
            self.rounds.push(rec);
        }
        if let Some(at) = next {
            self.events.schedule(at, Event::Workload(w));
        }
    }

    #[inline]
    pub(crate) fn deliver(&mut self, pkt: Packet) {
        self.ledger.delivered += 1;
        let f = pkt.flow;
        match pkt.kind {
            PacketKind::Data => {
                if pkt.has(flags::RDMA) {
                    self.rdma_data(&pkt);
                    return self.check_complete(f);
                }
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
            PacketKind::Nack | PacketKind::Cnp => self.rdma_control(&pkt),
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
                if pkt.has(flags::RDMA) {
                    return self.rdma_control(&pkt);
                }
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
        // `tcp.host_queue_pkts` (`tsq`) and `tcp.stamp_at = "host_tx"` (`stamp`), out of line:
        // one test per packet when unset
        let limited = self.host_send_hook;
        let mut room = !limited || self.tsq_room(f);
        while room {
            let fl = &mut self.flows[f.idx()];
            let Some(seg) = fl.sender.poll_transmit(now) else {
                break;
            };
            if fl.first_sent.is_none() {
                fl.first_sent = Some(now);
            }
            let route = if self.spray.is_none() {
                fl.fwd
            } else {
                self.spray_route(f)
            };
            let pkt = Packet {
                ts: now,
                seq: seg.seq,
                flow: f,
                route,
                size_bytes: seg.bytes,
                hop: 0,
                kind: PacketKind::Data,
                flags: seg.flags,
            };
            if limited {
                room = self.host_send(pkt);
            } else {
                self.inject(pkt);
            }
        }
        let fl = &mut self.flows[f.idx()];
        if let Some(d) = fl.sender.rto_deadline() {
            if fl.rto_event.is_none_or(|e| e > d) {
                fl.rto_event = Some(d);
                self.events.schedule(d, Event::RtoTimer(f));
            }
        }
        if matches!(fl.sender.cc, crate::cc::Cc::Ext(_)) {
            self.arm_ext_cc_timer(f);
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
}
