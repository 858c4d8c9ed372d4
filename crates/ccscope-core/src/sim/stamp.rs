//! `tcp.stamp_at = "host_tx"`: a TCP data packet's timestamp (`Packet::ts`, echoed by its ACK:
//! the start of a per-ACK RTT sample) is the moment its host port starts serializing it, not
//! the moment the sender hands it to the port. htsim's Swift host scheduler does this
//! (swift_scheduler.cpp, `BaseScheduler::beginService`: "swift timestamps are updated when
//! the packet is sent by the NIC", `sp->set_ts(eventlist().now())` on the packet whose
//! transmission starts), so its RTT samples leave out the wait in the host queue; Linux stamps
//! in `tcp_transmit_skb`, before the qdisc, as ccscope's default ("send") does.
//!
//! Where the start is known:
//! - committed FIFO (and judged) host ports fix a packet's transmission start when they admit
//!   it (`Port::admit`: the later of now and the end of the transmissions committed before
//!   it), so the packet is stamped with that start on its way in ([`Simulation::host_send`]).
//!   On a judged port a later take-back (CHOKe) that moves a queued packet up leaves its stamp
//!   as admitted (the sample then starts up to the victims' serialization late).
//! - general-path host ports (classes, fair queueing) pick the packet when the link frees:
//!   `Simulation::start_next` stamps it then ([`Simulation::stamp_started`]).
//!
//! Unset (the default) `Simulation::stamp_tx` is false: `pump` folds it into the test it
//! already makes once per packet for `tcp.host_queue_pkts`, and `start_next` (general path
//! only) tests it once per transmission; the rest is out of line.

use super::Simulation;
use crate::net::port::PortPath;
use crate::packet::{flags, Packet, PacketKind};

impl Simulation {
    /// Put a TCP sender's data packet into its host port when the host queue is limited
    /// (`tcp.host_queue_pkts`) or stamped at transmission (`tcp.stamp_at = "host_tx"`);
    /// whether the flow may send another now.
    #[cold]
    #[inline(never)]
    pub(crate) fn host_send(&mut self, mut pkt: Packet) -> bool {
        if self.stamp_tx {
            let (off, _) = self.routes[pkt.route.idx()];
            let p = &self.ports[self.route_ports[off as usize].idx()];
            if p.path() != PortPath::General {
                // the start `Port::admit` will give it (a dropped packet's stamp is unused)
                let busy = p.view().drained_at;
                pkt.ts = if busy > self.now { busy } else { self.now };
            }
        }
        if self.tsq.is_some() {
            self.tsq_inject(pkt)
        } else {
            self.inject(pkt);
            true
        }
    }

    /// A general-path port starts `pkt` now: a TCP data packet in its host port (the first
    /// port of its route: `hop` is 1 there) is stamped.
    #[inline(never)]
    pub(crate) fn stamp_started(&self, pkt: &mut Packet) {
        if pkt.hop == 1
            && pkt.kind == PacketKind::Data
            && !pkt.has(flags::RDMA)
            && self
                .flows
                .get(pkt.flow.idx())
                .is_some_and(|f| f.rate.is_none())
        {
            pkt.ts = self.now;
        }
    }
}
