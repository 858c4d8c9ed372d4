//! Per-flow fair queueing, `aqm.kind = "fq"`: one queue per flow served by deficit round robin
//! (M. Shreedhar and G. Varghese, "Efficient fair queueing using deficit round robin", SIGCOMM
//! 1995), with no AQM. Meant for host NIC ports (`topology.host_aqm`): a host running TCP or
//! Swift at datacenter rates serves its flows in turn (Linux `sch_fq`, the default qdisc of
//! such hosts; RDMA NICs arbitrate round robin between queue pairs; htsim's host queue serves
//! its flows round robin), so a short flow's packets do not wait behind the whole windows of the
//! host's other flows, as they do in one FIFO.
//!
//! It runs on FQ-CoDel's machinery (`aqm/fq_codel.rs`, RFC 8290 §4) with CoDel off:
//! - Flow identity: the flow id exactly, a flow's data and its ACKs (or feedback frames) as two
//!   flows; no hash, so two flows never share a queue. A queue exists while its flow has packets
//!   queued (or sits on a list) and is then reused: memory follows the backlogged flows, not the
//!   scenario's flow count.
//! - Scheduling (RFC 8290 §4.2, as Linux `sch_fq`, which keeps the same new-flows and old-flows
//!   lists): a flow that becomes backlogged joins the new-flows list with one quantum of credit;
//!   the head of the new list, else of the old list, sends its head packet while its deficit is
//!   positive (`deficit -= size`); a flow out of credit gets one more quantum and moves to the
//!   tail of the old list; an empty flow leaves the lists (from the new list it moves to the old
//!   one first when that is not empty, §4.2).
//! - Quantum: one MTU, the scenario's `packet_bytes` (RFC 8290 §5.2.2: "The default quantum is
//!   the MTU of the interface"; Linux `sch_fq` takes 2 MTU, `quantum_bytes` sets it): with equal
//!   packets every backlogged flow sends one packet per round, the round robin of htsim's host.
//! - Overflow: the port's buffer is the only limit. An arrival that overflows it is queued and
//!   one packet is dropped from the head of the flow queue holding the most bytes (RFC 8290
//!   §4.1's rule with a batch of one), so a short flow's packet is not the one lost to a long
//!   flow's backlog (tail drop would drop the arrival whatever its flow).

use super::fq_codel::FqCodelConfig;
use crate::error::ScenarioError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `aqm.kind = "fq"`: per-flow fair queueing (DRR over one queue per flow), no AQM.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqConfig {
    /// DRR quantum, bytes (1 to 16777216). Default: one packet of the scenario's packet_bytes (RFC 8290 §5.2.2: one MTU; Linux sch_fq: 2 MTU).
    #[serde(default)]
    pub quantum_bytes: Option<u32>,
}

/// The largest quantum accepted, bytes.
pub const MAX_QUANTUM_BYTES: u32 = 1 << 24;

impl FqConfig {
    /// FQ-CoDel's flow queues with CoDel off, one queue per flow, one packet dropped from the
    /// fattest queue on overflow: the machinery this policy runs on (`net::sched` holds it).
    pub fn as_flow_queues(&self) -> FqCodelConfig {
        FqCodelConfig {
            flows: 1,
            quantum_bytes: self.quantum_bytes,
            // CoDel is never asked (exact_without_codel); valid times all the same
            target_s: 0.005,
            interval_s: 0.1,
            ecn: false,
            drop_batch: 1,
            exact_without_codel: true,
        }
    }

    /// Ranges, with errors naming `path.field`.
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        match self.quantum_bytes {
            Some(q) if !(1..=MAX_QUANTUM_BYTES).contains(&q) => Err(ScenarioError::new(
                format!("{path}.quantum_bytes"),
                q,
                format!("must be an integer from 1 to {MAX_QUANTUM_BYTES} (bytes)"),
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::fq_codel::{FqCodel, Taken};
    use crate::packet::{Packet, PacketKind};
    use crate::units::SimTime;
    use crate::world::FlowId;

    const T: SimTime = SimTime::ZERO;

    fn fq(quantum: Option<u32>) -> FqCodel {
        let c = FqConfig {
            quantum_bytes: quantum,
        };
        FqCodel::new(&c.as_flow_queues(), 1500, 0)
    }
    fn p(flow: u32, seq: u64, size: u32) -> Packet {
        let mut k = Packet::data_probe(FlowId(flow), seq, size, 0);
        k.seq = seq;
        k
    }
    /// `n` full-size packets of `flow`, in sequence.
    fn window(q: &mut FqCodel, flow: u32, n: u64) {
        for s in 0..n {
            q.enqueue(p(flow, s, 1500), T);
        }
    }
    fn take(q: &mut FqCodel) -> Option<Packet> {
        match q.dequeue(T, 1 << 30) {
            Taken::Pkt(x, ce) => {
                assert!(!ce, "fq never marks");
                Some(x.pkt)
            }
            Taken::Dropped(x) => panic!("fq never drops at dequeue: {:?}", x.pkt),
            Taken::Empty => None,
        }
    }
    fn drain(q: &mut FqCodel) -> Vec<Packet> {
        std::iter::from_fn(|| take(q)).collect()
    }

    /// The finding this policy answers: a one-packet flow queued behind another flow's 15-packet
    /// window leaves after at most one packet of that window (a FIFO sends all 15 first).
    #[test]
    fn a_one_packet_flow_behind_a_window_leaves_after_at_most_one_packet() {
        let mut q = fq(None);
        window(&mut q, 1, 15);
        q.enqueue(p(2, 0, 1500), T);
        let order: Vec<u32> = drain(&mut q).iter().map(|k| k.flow.0).collect();
        let at = order.iter().position(|&f| f == 2).unwrap();
        assert!(
            at <= 1,
            "the one-packet flow left in position {at}: {order:?}"
        );
        assert_eq!(order.len(), 16);
        // 15 windows of 15 packets and a one-packet flow last: it leaves in the first round
        let mut q = fq(None);
        for f in 0..15 {
            window(&mut q, f, 15);
        }
        q.enqueue(p(99, 0, 1500), T);
        let order: Vec<u32> = drain(&mut q).iter().map(|k| k.flow.0).collect();
        assert_eq!(order.iter().position(|&f| f == 99), Some(15));
        assert_eq!(order.len(), 226);
    }

    /// DRR's quantum shares: two backlogged flows, one of 300-byte and one of 1500-byte packets,
    /// get the same bytes within one quantum at every point; with a quantum of 3000 bytes the
    /// 1500-byte flow sends two packets per round.
    #[test]
    fn backlogged_flows_get_equal_bytes_whatever_their_packet_sizes() {
        let mut q = fq(None);
        for s in 0..500 {
            q.enqueue(p(1, s, 300), T);
        }
        for s in 0..100 {
            q.enqueue(p(2, s, 1500), T);
        }
        let mut bytes = [0i64; 2];
        for _ in 0..300 {
            let k = take(&mut q).unwrap();
            bytes[(k.flow.0 == 2) as usize] += k.size_bytes as i64;
            assert!((bytes[0] - bytes[1]).abs() <= 1500, "{bytes:?}");
        }
        let mut q = fq(Some(3000));
        for s in 0..6 {
            q.enqueue(p(1, s, 1500), T);
            q.enqueue(p(2, s, 1500), T);
        }
        let order: Vec<u32> = drain(&mut q).iter().map(|k| k.flow.0).collect();
        assert_eq!(order, vec![1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2]);
    }

    /// A flow's data and its ACKs are two flows; each flow keeps its own order; every packet
    /// queued leaves exactly once (conservation), and the queues are reused once empty.
    #[test]
    fn conserves_packets_and_keeps_each_flows_order() {
        let mut q = fq(None);
        let mut n = 0u64;
        let mut out = vec![];
        for round in 0..50u64 {
            for f in 0..(1 + round % 7) as u32 {
                let mut k = p(f, round * 10 + f as u64, 100 + 37 * f);
                if f % 3 == 2 {
                    k.kind = PacketKind::Ack;
                }
                q.enqueue(k, T);
                n += 1;
            }
            for _ in 0..(round % 4) {
                out.extend(take(&mut q));
            }
        }
        out.extend(drain(&mut q));
        assert_eq!(out.len() as u64, n);
        assert_eq!(q.lists(), (0, 0));
        for f in 0..7 {
            let seqs: Vec<u64> = out
                .iter()
                .filter(|k| k.flow.0 == f)
                .map(|k| k.seq)
                .collect();
            assert!(seqs.windows(2).all(|w| w[0] < w[1]), "flow {f}: {seqs:?}");
        }
        // the data and the ACKs of one flow id alternate: two queues
        let mut q = fq(None);
        for s in 0..3 {
            q.enqueue(p(5, s, 1500), T);
        }
        let mut a = p(5, 9, 64);
        a.kind = PacketKind::Ack;
        q.enqueue(a, T);
        let kinds: Vec<PacketKind> = drain(&mut q).iter().map(|k| k.kind).collect();
        assert_eq!(kinds[1], PacketKind::Ack, "{kinds:?}");
    }

    /// Overflow: one packet from the head of the queue holding the most bytes, not the arrival.
    #[test]
    fn an_overflow_drops_one_packet_from_the_fattest_flow() {
        let mut q = fq(None);
        window(&mut q, 1, 10);
        q.enqueue(p(2, 0, 1500), T);
        let mut dropped = vec![];
        q.drop_from_fattest(|x| dropped.push((x.pkt.flow.0, x.pkt.seq)));
        assert_eq!(dropped, vec![(1, 0)]);
        let left = drain(&mut q);
        assert_eq!(left.len(), 10);
        assert!(left.iter().any(|k| k.flow.0 == 2));
    }

    #[test]
    fn a_quantum_out_of_range_is_refused_with_its_field() {
        let e = FqConfig {
            quantum_bytes: Some(0),
        }
        .validate("topology.host_aqm")
        .unwrap_err()
        .to_string();
        assert!(e.contains("topology.host_aqm.quantum_bytes"), "{e}");
        assert!(e.contains("from 1 to"), "{e}");
        assert!(FqConfig::default().validate("aqm").is_ok());
    }
}
