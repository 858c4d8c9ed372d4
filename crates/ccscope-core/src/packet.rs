//! The packet: a small `Copy` value that travels inside events (no heap, no recycling needed).
//!
//! A packet carries its route id and the index of the next hop, so a switch forwards it
//! without a lookup. Sizes are wire sizes in bytes (E41: no header model unless a scenario
//! says otherwise).

use crate::units::SimTime;
use crate::world::{FlowId, RouteId};

/// What a packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    /// A TCP data segment.
    Data = 0,
    /// A pure TCP acknowledgement.
    Ack = 1,
    /// An 802.1Qau feedback frame (QCN CNM or ASM feedback) from a congestion point to a
    /// source; `seq` carries the encoded [`crate::rate::Feedback`].
    Feedback = 2,
    /// An RDMA go-back-N negative acknowledgement (`transport::rdma`): `seq` is the receiver's
    /// next expected segment; everything below it has arrived.
    Nack = 3,
    /// A DCQCN congestion notification packet from an RDMA receiver (the notification point)
    /// to its source (`transport::rdma`); `seq` is unused (0).
    Cnp = 4,
}

/// ECN and TCP flag bits (RFC 3168).
pub mod flags {
    /// ECN-capable transport (ECT(0)) codepoint set by the sender.
    pub const ECT: u8 = 1 << 0;
    /// Congestion Experienced, set by an AQM.
    pub const CE: u8 = 1 << 1;
    /// TCP ECN-Echo (on ACKs).
    pub const ECE: u8 = 1 << 2;
    /// TCP Congestion Window Reduced (on data).
    pub const CWR: u8 = 1 << 3;
    /// The data segment is a retransmission (for Karn's rule; echoed on its ACK).
    pub const RETX: u8 = 1 << 4;
    /// A data packet or ACK of the RDMA transport (`transport::rdma`): the host hands it to
    /// that transport (a test of the packet's own bits, no look at the flow, so TCP's
    /// per-packet path is unchanged).
    pub const RDMA: u8 = 1 << 5;
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Data: send time of this segment. ACK: echo of the acknowledged segment's send time.
    pub ts: SimTime,
    /// Data: segment number. ACK: cumulative ACK (next expected segment number).
    pub seq: u64,
    pub flow: FlowId,
    pub route: RouteId,
    pub size_bytes: u32,
    /// Index into the route of the next port to enter.
    pub hop: u16,
    pub kind: PacketKind,
    pub flags: u8,
}

impl Packet {
    /// A data packet outside any route (time 0, route 0, hop 0): for driving a queue policy or
    /// the event queue on its own (unit tests, `aqm::red::replay`).
    pub fn data_probe(flow: FlowId, seq: u64, size_bytes: u32, flags: u8) -> Packet {
        Packet {
            ts: SimTime(0),
            seq,
            flow,
            route: RouteId(0),
            size_bytes,
            hop: 0,
            kind: PacketKind::Data,
            flags,
        }
    }

    /// A transport control packet travelling back to a source (ACK, NACK, CNP): what a
    /// port's trace records as an ACK. 802.1Qau feedback frames are not (as before).
    #[inline]
    pub fn is_ack_like(&self) -> bool {
        matches!(
            self.kind,
            PacketKind::Ack | PacketKind::Nack | PacketKind::Cnp
        )
    }

    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn packet_is_small() {
        assert!(std::mem::size_of::<super::Packet>() <= 32);
    }
}
