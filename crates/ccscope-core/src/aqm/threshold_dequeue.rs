//! Dequeue-time threshold marking (`aqm.kind = "threshold_dequeue"`): the DCTCP threshold
//! (P000 eq 8) applied when a packet leaves its queue instead of when it arrives, as htsim's
//! `ECNQueue` ("marks on dequeue as soon as the packet occupancy exceeds the set threshold")
//! and switch ASICs that mark at egress do. The packet starting its transmission is CE-marked
//! when the queue it leaves behind in its class (packets or bytes still waiting) exceeds K (at
//! or above, with `mark_at_or_above`); a packet that is not ECN-capable is sent unmarked (a
//! dequeue-time marker does not drop).
//!
//! Marking at dequeue tells the sender about the queue a packet leaves, one queueing delay
//! sooner than marking at enqueue tells it about the queue a packet finds: under a growing
//! queue the marks start earlier, under a draining one they stop earlier. htsim evaluates its
//! threshold at the end of the packet's serialization with the packet itself counted; here the
//! decision is taken when the transmission starts, with the packets behind it counted (the
//! packet on the wire is not in the queue, as everywhere in ccscope).
//!
//! The policy decides at dequeue ([`super::Aqm::decides_at_dequeue`]): its port takes the
//! general path (`net::sched`), and each traffic class keeps its own threshold. The parameters
//! are the enqueue-time threshold's ([`ThresholdConfig`], validated by the same rules).

use super::{QueueView, Threshold, ThresholdConfig, Verdict};
use crate::packet::{flags, Packet};

/// A class's dequeue-time threshold.
#[derive(Clone, Debug)]
pub struct ThresholdDequeue(Threshold);

impl ThresholdDequeue {
    pub fn new(cfg: &ThresholdConfig, packet_bytes: u32) -> Self {
        ThresholdDequeue(Threshold::new(cfg, packet_bytes))
    }

    /// Whether `pkt`, starting its transmission with `left_pkts` packets (`left_bytes` bytes)
    /// still waiting behind it in its class, is CE-marked.
    #[inline]
    pub fn marks(&self, pkt: &Packet, left_pkts: u32, left_bytes: u64) -> bool {
        pkt.has(flags::ECT)
            && self
                .0
                .verdict(&QueueView::of_size(left_pkts, left_bytes, None, 0.0))
                == Verdict::Mark
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FlowId;

    fn ect() -> Packet {
        let mut p = Packet::data_probe(FlowId(0), 0, 1500, 0);
        p.flags |= flags::ECT;
        p
    }

    #[test]
    fn marks_ect_packets_that_leave_more_than_k_behind() {
        let t = ThresholdDequeue::new(
            &ThresholdConfig {
                k_pkts: Some(5.0),
                ..Default::default()
            },
            1500,
        );
        assert!(!t.marks(&ect(), 5, 7500), "q = K: not above");
        assert!(t.marks(&ect(), 6, 9000));
        let plain = Packet::data_probe(FlowId(0), 0, 1500, 0);
        assert!(
            !t.marks(&plain, 60, 90_000),
            "not ECN-capable: sent unmarked"
        );
        let at = ThresholdDequeue::new(
            &ThresholdConfig {
                k_bytes: Some(3000.0),
                mark_at_or_above: true,
                ..Default::default()
            },
            1500,
        );
        assert!(at.marks(&ect(), 2, 3000) && !at.marks(&ect(), 1, 1500));
    }
}
