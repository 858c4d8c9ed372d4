//! The engine's side of the RDMA transport (`transport::rdma`): pacing each RoCE flow at its
//! controller's rate, holding a flow's next packet while its host's NIC cannot take it, the
//! receiver's ACKs, NACKs and CNPs, and what they do at the source.
//!
//! Pacing: at most one `Event::RateSend` is pending per flow (`RdmaFlow::send_event`). A flow
//! that cannot send (everything sent and waiting for ACKs, its controller's window full, its
//! NIC held) schedules nothing; an ACK that advances, a NACK, a timeout or its NIC "kicks" it.
//!
//! NIC backpressure: a source sends its next packet only when its NIC port (the first port of
//! its route) holds no waiting packet besides the one being serialized and, with PFC, its class
//! is not paused (`Port::nic_hold`). On the committed FIFO the flow looks again when the
//! waiting packet starts; on the general path (every port, with PFC) the port's next
//! transmission end (`Event::TxDone`) or the class's resume wakes the flows registered in
//! `Simulation::nic_waiters`. So a source paused by the first switch queues at most one packet
//! in its NIC and loses none there. Flows of other transports never enter this file: TCP flows
//! pay nothing, and the wake-up is one emptiness test on the rare TxDone/PFC handlers.
//!
//! All of it is out of line (`#[inline(never)]`): the per-packet event loop of the committed
//! FIFO keeps its size.

use super::Simulation;
use crate::engine::Event;
use crate::flow::RdmaFlow;
use crate::net::port::NicHold;
use crate::packet::{flags, Packet, PacketKind};
use crate::rate::{AckSample, RateControl};
use crate::units::SimDuration;
use crate::world::{FlowId, PortId};

impl Simulation {
    #[inline]
    fn rdma_of(&mut self, f: FlowId) -> Option<&mut RdmaFlow> {
        self.flows[f.idx()]
            .rate
            .as_deref_mut()
            .and_then(|r| r.rdma.as_mut())
    }

    /// A flow start or an `Event::RateSend` of an RDMA flow: the pending send, if it is due
    /// now, is this one; then send if allowed.
    #[inline(never)]
    pub(crate) fn rdma_send_event(&mut self, f: FlowId) {
        let now = self.now;
        let Some(d) = self.rdma_of(f) else { return };
        match d.send_event {
            Some(t) if t == now => d.send_event = None,
            Some(_) => return, // a later send is already scheduled
            None => {}
        }
        self.rdma_try_send(f);
    }

    /// Something may let the flow send (ACK, NACK, timeout, its NIC): try, unless a send event
    /// is already pending (it will).
    fn rdma_kick(&mut self, f: FlowId) {
        if self.rdma_of(f).is_some_and(|d| d.send_event.is_none()) {
            self.rdma_try_send(f);
        }
    }

    /// Send the flow's next segment if the window, the pacer and the NIC allow; schedule the
    /// next attempt.
    fn rdma_try_send(&mut self, f: FlowId) {
        let now = self.now;
        let fl = &mut self.flows[f.idx()];
        let (class, fwd) = (fl.class, fl.fwd);
        let Some(r) = fl.rate.as_deref_mut() else {
            return;
        };
        let window = r.rp.window_bytes();
        let Some(d) = r.rdma.as_mut() else { return };
        if !d.tx.may_send(window) {
            return; // an ACK, NACK or timeout kicks it
        }
        if now < d.next_tx {
            d.send_event = Some(d.next_tx);
            self.events.schedule(d.next_tx, Event::RateSend(f));
            return;
        }
        let nic = self.route_ports[self.routes[fwd.idx()].0 as usize];
        match self.ports[nic.idx()].nic_hold(now, class) {
            NicHold::Free => {}
            NicHold::RetryAt(t) => {
                if let Some(d) = self.rdma_of(f) {
                    d.send_event = Some(t);
                }
                self.events.schedule(t, Event::RateSend(f));
                return;
            }
            NicHold::UntilWoken => {
                let Some(d) = self.rdma_of(f) else { return };
                if !d.nic_wait {
                    d.nic_wait = true;
                    if self.nic_waiters.len() <= nic.idx() {
                        self.nic_waiters.resize(self.ports.len(), Vec::new());
                    }
                    self.nic_waiters[nic.idx()].push(f);
                }
                return;
            }
        }
        let fl = &mut self.flows[f.idx()];
        let Some(r) = fl.rate.as_deref_mut() else {
            return;
        };
        let Some(d) = r.rdma.as_mut() else { return };
        let seg = d.tx.on_send(now);
        r.rp.on_bytes_sent(now, seg.bytes);
        let rate = r.rp.rate_bps().max(1.0);
        let gap = SimDuration::from_secs_f64(seg.bytes as f64 * 8.0 / rate).max(SimDuration(1));
        d.next_tx = now + gap;
        if d.tx.next_seq < d.tx.total_segments() {
            d.send_event = Some(d.next_tx);
            self.events.schedule(d.next_tx, Event::RateSend(f));
        }
        r.frames_sent += 1;
        fl.sender.stats.segments_sent += 1;
        if seg.retx {
            fl.sender.stats.retransmits += 1;
        }
        if fl.first_sent.is_none() {
            fl.first_sent = Some(now);
        }
        let route = if self.spray.is_none() {
            fwd
        } else {
            self.spray_route(f)
        };
        let mut fl8 = flags::ECT | flags::RDMA;
        if seg.retx {
            fl8 |= flags::RETX;
        }
        self.inject(Packet {
            ts: now,
            seq: seg.seq,
            flow: f,
            route,
            size_bytes: seg.bytes,
            hop: 0,
            kind: PacketKind::Data,
            flags: fl8,
        });
        self.arm_rate_timer(f);
    }

    /// The NIC port `port` ended a transmission or had its class resumed: the RDMA flows that
    /// wait for it try again.
    #[inline(never)]
    pub(crate) fn rdma_wake_nic(&mut self, port: PortId) {
        let Some(list) = self.nic_waiters.get_mut(port.idx()) else {
            return;
        };
        if list.is_empty() {
            return;
        }
        let mut list = std::mem::take(list);
        for &f in &list {
            if let Some(d) = self.rdma_of(f) {
                d.nic_wait = false;
            }
        }
        for &f in &list {
            self.rdma_kick(f);
        }
        list.clear();
        let slot = &mut self.nic_waiters[port.idx()];
        if slot.is_empty() {
            *slot = list; // keeps its capacity
        }
    }

    /// A data packet of an RDMA flow reaches its receiver: go-back-N acceptance (only the
    /// expected segment is delivered: the flow's receiver counts it in order) and the ACK,
    /// NACK and CNP it calls for.
    #[inline(never)]
    pub(crate) fn rdma_data(&mut self, pkt: &Packet) {
        let now = self.now;
        let f = pkt.flow;
        let fl = &mut self.flows[f.idx()];
        let Some(d) = fl.rate.as_deref_mut().and_then(|r| r.rdma.as_mut()) else {
            return;
        };
        let ce = pkt.has(flags::CE);
        let out = d.rx.on_data(now, pkt.seq, ce);
        let rcv = &mut fl.receiver;
        if ce {
            rcv.ce_bytes_received += pkt.size_bytes as u64;
        }
        if out.accepted {
            rcv.rcv_nxt = d.rx.expected;
            rcv.unique_bytes_received += pkt.size_bytes as u64;
            if d.rx.expected >= d.tx.total_segments() && rcv.done_at.is_none() {
                rcv.done_at = Some(now);
            }
        } else {
            rcv.ooo_arrivals += 1;
        }
        let rev = fl.rev;
        let bytes = self.ack_bytes;
        let ctl = |kind: PacketKind, seq: u64, fl8: u8| Packet {
            ts: pkt.ts,
            seq,
            flow: f,
            route: rev,
            size_bytes: bytes,
            hop: 0,
            kind,
            flags: fl8,
        };
        if out.cnp {
            self.inject(ctl(PacketKind::Cnp, 0, 0));
        }
        if let Some(a) = out.ack {
            let e = if ce { flags::ECE } else { 0 };
            self.inject(ctl(PacketKind::Ack, a, flags::RDMA | e));
        }
        if let Some(n) = out.nack {
            self.inject(ctl(PacketKind::Nack, n, 0));
        }
    }

    /// An ACK, NACK or CNP of an RDMA flow reaches its source.
    #[inline(never)]
    pub(crate) fn rdma_control(&mut self, pkt: &Packet) {
        let now = self.now;
        let f = pkt.flow;
        let fl = &mut self.flows[f.idx()];
        let stats = &mut fl.sender.stats;
        let Some(r) = fl.rate.as_deref_mut() else {
            return;
        };
        let Some(d) = r.rdma.as_mut() else { return };
        let kick = match pkt.kind {
            PacketKind::Ack => {
                let acked = d.tx.on_ack(now, pkt.seq);
                let ecn = pkt.has(flags::ECE);
                if ecn {
                    d.tx.stats.ece_acks += 1;
                    stats.ece_acks += 1;
                }
                let sample = AckSample {
                    acked_bytes: acked,
                    ackno: pkt.seq,
                    rtt: now.saturating_sub(pkt.ts),
                    ecn,
                    data_seq: pkt.seq.saturating_sub(1),
                };
                r.rp.on_ack(now, &sample);
                if let crate::rate::Rate::Hpcc(h) = &mut r.rp {
                    // the ACK's telemetry: the records of the segment that caused it
                    // (`crate::int`); a missing or partial list is counted and not used
                    if let Some(crate::int::Echo::Full(recs)) =
                        self.int.as_mut().map(|a| a.echo(f, sample.data_seq))
                    {
                        h.on_int_ack(now, sample.ackno, d.tx.next_seq, recs);
                    }
                } else if let crate::rate::Rate::Ext(e) = &mut r.rp {
                    // an external controller that reads telemetry gets it as HPCC does
                    if e.int {
                        if let Some(crate::int::Echo::Full(recs)) =
                            self.int.as_mut().map(|a| a.echo(f, sample.data_seq))
                        {
                            e.on_int(now, &sample, d.tx.next_seq, recs);
                        }
                    }
                }
                acked > 0
            }
            PacketKind::Nack => {
                d.tx.on_nack(now, pkt.seq);
                r.rp.on_nack(now, pkt.seq);
                true
            }
            PacketKind::Cnp => {
                d.tx.stats.cnps += 1;
                stats.ecn_reductions += 1;
                r.rp.on_cnp(now);
                false
            }
            PacketKind::Data | PacketKind::Feedback => false,
        };
        if kick {
            self.rdma_kick(f);
        }
        self.arm_rate_timer(f);
    }

    /// The flow's timer event (its controller's timer and the retransmission timer share it):
    /// a retransmission timeout goes back to the first unacknowledged segment.
    pub(crate) fn rdma_timer(&mut self, f: FlowId) {
        let now = self.now;
        let fl = &mut self.flows[f.idx()];
        let Some(r) = fl.rate.as_deref_mut() else {
            return;
        };
        let Some(d) = r.rdma.as_mut() else { return };
        if d.tx.on_timer(now) {
            fl.sender.stats.timeouts += 1;
            r.rp.on_timeout(now);
            self.rdma_kick(f);
        }
    }
}
