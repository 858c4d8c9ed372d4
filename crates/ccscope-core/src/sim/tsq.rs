//! A per-flow limit on the packets a TCP sender keeps in its host's egress port
//! (`tcp.host_queue_pkts`), as real senders have one:
//!
//! - Linux's TCP Small Queues (net/ipv4/tcp_output.c `tcp_small_queue_check`): a socket's bytes
//!   in the qdisc and NIC are capped at `max(2 * skb->truesize, pacing_rate >> sk_pacing_shift)`
//!   (two packets, or about 1 ms of the pacing rate with the default shift 10), at most
//!   `net.ipv4.tcp_limit_output_bytes` (1 MB from 2018, commit c73e5807e4f6; 4 MB from 2025); the rest waits
//!   in the socket, unsent, until a packet of the flow leaves the NIC (`tcp_tsq_handler`).
//! - htsim's Swift source (`SwiftSubflowSrc::send_next_packet`, swift.cpp) refuses to hand its
//!   host scheduler a packet while `queuesize(flow) > 2`: at most 3 packets per flow wait at
//!   the host; the scheduler wakes the flow when one of them leaves.
//!
//! With the limit N, a TCP flow sends (window and pacing rules unchanged) only while fewer than
//! N of its data packets wait in, or are being serialized by, the first port of its route. A
//! packet is stamped (`Packet::ts`, the time its RTT sample starts from) when it enters the
//! port, as without the limit, so the time a segment waits in the socket is not part of its
//! RTT sample, while its wait in the port is (as Linux, which stamps a segment in
//! `tcp_transmit_skb`, before the qdisc). htsim's host scheduler stamps a Swift packet again
//! when its transmission starts (swift_scheduler.cpp `BaseScheduler::beginService`), so there
//! the wait in the host port is left out too.
//!
//! Book-keeping, per flow: the serialization ends of its packets in the port (`ends`, in time
//! order) and the packets the port holds but has not started (`unstarted`, general path only).
//! On the committed FIFO a packet's transmission end is fixed when it is admitted (the port's
//! `drained_at` right after); on the general path (classes, fair queueing) it is known when the
//! transmission starts (`Simulation::start_next` calls [`Simulation::tsq_started`]), and a drop
//! there (`record_drop`) forgets the packet. A flow at its limit is woken at the first of its
//! ends (an `Event::RtoTimer`, whose handler tries the retransmission timer, which does nothing
//! before its deadline, and then sends what the window allows), or, when none of its packets has
//! started yet, at the end of the first one that starts.
//!
//! Without the limit (the default) `Simulation::tsq` is `None`: `pump` reads it once per call
//! and tests the flag once per packet it sends; the rest is out of line.

use super::Simulation;
use crate::engine::Event;
use crate::net::port::PortPath;
use crate::packet::{flags, Packet, PacketKind};
use crate::units::SimTime;
use crate::world::{FlowId, PortId};
use std::collections::VecDeque;

/// The limit and every flow's packets in its host port.
#[derive(Debug)]
pub(crate) struct Tsq {
    /// Packets per flow (>= 1).
    limit: u32,
    flows: Vec<TsqFlow>,
}

#[derive(Debug, Default, Clone)]
struct TsqFlow {
    /// Serialization ends of the flow's started (committed-FIFO: admitted) packets still in
    /// the port at the last look, in time order.
    ends: VecDeque<SimTime>,
    /// Packets waiting in a general-path port, not started yet.
    unstarted: u32,
    /// The pending wake-up (`SimTime::ZERO`: none).
    wake: SimTime,
    /// At the limit with nothing started: wake at the end of the next packet that starts.
    blocked: bool,
}

impl Tsq {
    pub(crate) fn new(limit: u32) -> Self {
        Tsq {
            limit: limit.max(1),
            flows: Vec::new(),
        }
    }

    fn flow(&mut self, f: FlowId) -> &mut TsqFlow {
        let i = f.idx();
        if self.flows.len() <= i {
            self.flows.resize(i + 1, TsqFlow::default());
        }
        &mut self.flows[i]
    }
}

impl Simulation {
    /// May flow `f` put one more packet into its host port now? If not, its wake-up is
    /// arranged.
    #[cold]
    #[inline(never)]
    pub(crate) fn tsq_room(&mut self, f: FlowId) -> bool {
        let now = self.now;
        let Some(t) = self.tsq.as_deref_mut() else {
            return true;
        };
        let limit = t.limit;
        let s = t.flow(f);
        while s.ends.front().is_some_and(|&e| e <= now) {
            s.ends.pop_front();
        }
        if (s.ends.len() as u64) + (s.unstarted as u64) < limit as u64 {
            return true;
        }
        match s.ends.front().copied() {
            Some(e) => {
                // one pending wake-up at a time: a later one is superseded by this earlier
                // one (the later event then finds the flow as any RTO check would)
                if s.wake <= now || s.wake > e {
                    s.wake = e;
                    self.events.schedule(e, Event::RtoTimer(f));
                }
            }
            None => s.blocked = true,
        }
        false
    }

    /// Put a data packet of a limited flow into its host port and note it there; whether the
    /// flow may send another now ([`Simulation::tsq_room`]).
    #[cold]
    #[inline(never)]
    pub(crate) fn tsq_inject(&mut self, pkt: Packet) -> bool {
        let f = pkt.flow;
        let (off, _) = self.routes[pkt.route.idx()];
        let port = self.route_ports[off as usize];
        let general = self.ports[port.idx()].path() == PortPath::General;
        if general {
            // counted before the port sees it: it may start (`tsq_started`) or be dropped
            // (`tsq_dropped`) inside `inject`
            if let Some(t) = self.tsq.as_deref_mut() {
                t.flow(f).unstarted += 1;
            }
            self.inject(pkt);
            return self.tsq_room(f);
        }
        let drops = |p: &crate::net::port::Port| p.stats.drops_overflow + p.stats.drops_aqm;
        let before = drops(&self.ports[port.idx()]);
        self.inject(pkt);
        let p = &self.ports[port.idx()];
        if drops(p) == before {
            // admitted: its transmission ends when the port drains to it
            let end = p.view().drained_at;
            if let Some(t) = self.tsq.as_deref_mut() {
                t.flow(f).ends.push_back(end);
            }
        }
        self.tsq_room(f)
    }

    /// A packet starts on a general-path port (`start_next`) and ends at `end`: if it is a
    /// limited flow's data packet in its host port, its end is noted (and wakes the flow if it
    /// waits for it).
    #[inline(never)]
    pub(crate) fn tsq_started(&mut self, pkt: &Packet, end: SimTime) {
        let Some(s) = self.tsq_slot(pkt) else { return };
        s.unstarted = s.unstarted.saturating_sub(1);
        s.ends.push_back(end);
        if s.blocked {
            s.blocked = false;
            s.wake = end;
            let f = pkt.flow;
            self.events.schedule(end, Event::RtoTimer(f));
        }
    }

    /// A packet was dropped at `port`: a limited flow's unstarted packet in its general-path
    /// host port is forgotten.
    #[inline(never)]
    pub(crate) fn tsq_dropped(&mut self, port: PortId, pkt: &Packet) {
        if self.ports[port.idx()].path() != PortPath::General {
            return; // committed FIFO: `tsq_inject` saw the drop
        }
        let now = self.now;
        let Some(s) = self.tsq_slot(pkt) else { return };
        s.unstarted = s.unstarted.saturating_sub(1);
        if s.blocked {
            // it waited for this packet to start: it has room now
            s.blocked = false;
            s.wake = now;
            let f = pkt.flow;
            self.events.schedule(now, Event::RtoTimer(f));
        }
    }

    /// The book of `pkt`'s flow, if `pkt` is a limited TCP flow's data packet in its host port
    /// (the first port of its route: `hop` is 1 there).
    fn tsq_slot(&mut self, pkt: &Packet) -> Option<&mut TsqFlow> {
        if pkt.hop != 1 || pkt.kind != PacketKind::Data || pkt.has(flags::RDMA) {
            return None;
        }
        if self.flows.get(pkt.flow.idx())?.rate.is_some() {
            return None; // a rate-based source: not a TCP sender
        }
        Some(self.tsq.as_deref_mut()?.flow(pkt.flow))
    }
}
