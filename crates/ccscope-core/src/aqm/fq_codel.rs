//! FQ-CoDel, "The Flow Queue CoDel Packet Scheduler and Active Queue Management Algorithm"
//! (T. Hoeiland-Joergensen, P. McKenney, D. Taht, J. Gettys, E. Dumazet, RFC 8290, January 2018):
//! packets are hashed into `flows` queues, each with its own CoDel (RFC 8289, `aqm::codel`), and
//! served by deficit round robin with a quantum of one MTU, new flows before old ones.
//!
//! - Enqueue (§4.1): the packet joins the queue of its flow's hash; a queue in neither list joins
//!   the tail of the new-flows list with `deficit = quantum`. When the port's buffer (or its
//!   class's cap) is exceeded, packets are dropped from the head of the queue that holds the most
//!   bytes, the arrival included in the count: up to `drop_batch` packets, stopping once half of
//!   that queue's bytes are gone (§4.1's "drop from the fattest queue", in the batched form of
//!   Linux `fq_codel_drop` and ns-3's FqCoDelQueueDisc `DropBatchSize`, 64 by default).
//! - Dequeue (§4.2): the head of the new-flows list, else of the old-flows list; a queue whose
//!   deficit is used up gets one more quantum and moves to the tail of the old list; otherwise its
//!   CoDel dequeues a packet (CoDel may drop first, §4.2: "the CoDel algorithm is applied"), and
//!   the packet's size is taken from the deficit. A queue found empty leaves the lists, except
//!   that an empty queue taken from the new list moves to the old list when that is not empty
//!   (§4.2, so that a flow cannot stay "new" by emptying and refilling at once).
//! - CoDel's "at most one MTU queued" test (RFC 8289 §5.5) looks at the whole queue of the port's
//!   class, as Linux does (`codel_dequeue` gets the qdisc's backlog); ns-3 gives each flow queue
//!   its own CoDelQueueDisc and tests that queue alone (docs/validation.md compares the two).
//! - Hash: a flow's data and its ACKs are two directions, hashed apart, with a seed from the
//!   port's random stream (Linux perturbs its hash with a random key too); distinct flows may share
//!   a queue, as in a real switch (`flows` sets how many queues; 1024 by default, §5.2.1).
//!
//! The same machinery without CoDel and with one queue per flow (no hash) is `aqm.kind = "fq"`
//! (`aqm/fq.rs`): `FqCodelConfig::exact_without_codel`, set only by `FqConfig::as_flow_queues`.
//!
//! Parameters (§5.2, Linux defaults): `flows` 1024, `quantum_bytes` one MTU (the scenario's
//! packet_bytes), CoDel's `target_s` 5 ms and `interval_s` 100 ms, `ecn` marking instead of
//! dropping ECN-capable packets (Linux turns it on by default, ns-3 off; here off, so that a
//! scenario asks for it), `drop_batch` 64. The memory limit of Linux (`memory_limit`) is the
//! port's buffer here.

use super::codel::{Codel, CodelConfig, CodelParams, Dequeue};
use crate::net::sched::Queued;
use crate::packet::{flags, Packet, PacketKind};
use crate::units::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

fn d_flows() -> u32 {
    1024
}
fn d_target() -> f64 {
    0.005
}
fn d_interval() -> f64 {
    0.1
}
fn d_batch() -> u32 {
    64
}

/// `aqm.kind = "fq_codel"`: RFC 8290's parameters.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelConfig {
    /// Number of flow queues the packets are hashed into (1 to 65536). Default 1024 (RFC 8290 §5.2.1).
    #[serde(default = "d_flows")]
    pub flows: u32,
    /// DRR quantum, bytes (>= 1). Default: one packet of the scenario's packet_bytes (RFC 8290 §5.2.2: one MTU).
    #[serde(default)]
    pub quantum_bytes: Option<u32>,
    /// CoDel's acceptable standing delay per flow queue, seconds (> 0, < interval_s). Default 0.005.
    #[serde(default = "d_target")]
    pub target_s: f64,
    /// CoDel's interval, seconds (> target_s). Default 0.1.
    #[serde(default = "d_interval")]
    pub interval_s: f64,
    /// Mark ECN-capable packets instead of dropping them. Default false.
    #[serde(default)]
    pub ecn: bool,
    /// Packets dropped at most from the fattest queue when the buffer overflows (1 to 65536). Default 64.
    #[serde(default = "d_batch")]
    pub drop_batch: u32,
    /// `aqm.kind = "fq"` (`aqm/fq.rs`): one queue per flow and direction, found by the flow id
    /// (no hash, no shared queues; a queue exists while its flow has packets queued), and no
    /// CoDel. Never read from a scenario: `FqConfig::as_flow_queues` sets it.
    #[serde(skip)]
    pub exact_without_codel: bool,
}

impl FqCodelConfig {
    /// CoDel's parameters of each flow queue at a port whose MTU is `mtu_bytes`.
    pub fn codel_params(&self, mtu_bytes: u32) -> CodelParams {
        CodelConfig {
            target_s: self.target_s,
            interval_s: self.interval_s,
            ecn: self.ecn,
        }
        .params(mtu_bytes)
    }
}

/// Which list a flow queue is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct FlowQueue {
    q: VecDeque<Queued>,
    bytes: u64,
    deficit: i64,
    list: List,
    codel: Codel,
    /// The flow and direction it holds (exact flow queues only).
    key: u64,
}

impl FlowQueue {
    fn blank(codel: Codel, key: u64) -> Self {
        FlowQueue {
            q: VecDeque::new(),
            bytes: 0,
            deficit: 0,
            list: List::None,
            codel,
            key,
        }
    }
}

/// Memory of one flow queue, with its entries in the two lists (the memory budget's estimate).
pub const FLOW_QUEUE_BYTES: u64 = std::mem::size_of::<FlowQueue>() as u64 + 8;

/// What a class's queue gives at dequeue.
#[derive(Clone, Copy, Debug)]
pub enum Taken {
    /// Send this packet (CE-marked by CoDel if the flag is set).
    Pkt(Queued, bool),
    /// CoDel dropped this packet.
    Dropped(Queued),
    /// Nothing waits.
    Empty,
}

/// The FQ-CoDel state of one class of a port.
#[derive(Clone, Debug)]
pub struct FqCodel {
    flows: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    quantum: i64,
    ecn: bool,
    drop_batch: u32,
    seed: u64,
    /// `fq`: exact flow queues and no CoDel.
    exact: Option<Box<Exact>>,
}

/// Exact flow queues: the queue of each flow and direction with packets queued or on a list,
/// and the queues free for reuse.
#[derive(Clone, Debug)]
struct Exact {
    slot: HashMap<u64, u32>,
    free: Vec<u32>,
    /// A fresh queue's CoDel (never asked).
    blank: Codel,
}

/// A packet's flow and direction: a flow's data and its ACKs (or feedback) are two flows.
#[inline]
fn flow_key(pkt: &Packet) -> u64 {
    (pkt.flow.0 as u64) << 1 | (pkt.kind != PacketKind::Data) as u64
}

/// splitmix64's finalizer: the flow hash.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCodel {
    pub fn new(cfg: &FqCodelConfig, packet_bytes: u32, seed: u64) -> Self {
        let codel = Codel::new(cfg.codel_params(packet_bytes));
        // exact flow queues are made as flows arrive; hashed ones all at once
        let n = if cfg.exact_without_codel {
            0
        } else {
            cfg.flows.max(1) as usize
        };
        FqCodel {
            flows: (0..n).map(|_| FlowQueue::blank(codel.clone(), 0)).collect(),
            new_flows: VecDeque::with_capacity(n),
            old_flows: VecDeque::with_capacity(n),
            quantum: cfg.quantum_bytes.unwrap_or(packet_bytes).max(1) as i64,
            ecn: cfg.ecn,
            drop_batch: cfg.drop_batch.max(1),
            seed,
            exact: cfg.exact_without_codel.then(|| {
                Box::new(Exact {
                    slot: HashMap::new(),
                    free: Vec::new(),
                    blank: codel,
                })
            }),
        }
    }

    /// The queue of a packet: its flow and direction, hashed (FQ-CoDel).
    #[inline]
    pub fn queue_of(&self, pkt: &Packet) -> usize {
        (mix(self.seed ^ flow_key(pkt)) % self.flows.len().max(1) as u64) as usize
    }

    /// The queue of `pkt`'s flow, made (or a free one reused) when the flow has none.
    #[inline]
    fn queue_for(&mut self, pkt: &Packet) -> usize {
        let Some(x) = self.exact.as_deref_mut() else {
            return self.queue_of(pkt);
        };
        let key = flow_key(pkt);
        let flows = &mut self.flows;
        *x.slot.entry(key).or_insert_with(|| match x.free.pop() {
            Some(i) => {
                flows[i as usize].key = key;
                i
            }
            None => {
                flows.push(FlowQueue::blank(x.blank.clone(), key));
                (flows.len() - 1) as u32
            }
        }) as usize
    }

    /// Queue `i` has left both lists: an exact flow queue is free for another flow.
    #[inline]
    fn release(&mut self, i: usize) {
        if let Some(x) = self.exact.as_deref_mut() {
            x.slot.remove(&self.flows[i].key);
            x.free.push(i as u32);
        }
    }

    /// §4.1: queue `pkt`, arrived at `now`.
    pub fn enqueue(&mut self, pkt: Packet, now: SimTime) {
        let i = self.queue_for(&pkt);
        let f = &mut self.flows[i];
        f.q.push_back(Queued { pkt, since: now });
        f.bytes += pkt.size_bytes as u64;
        if f.list == List::None {
            f.list = List::New;
            f.deficit = self.quantum;
            self.new_flows.push_back(i as u32);
        }
    }

    /// §4.1 on overflow: drop from the head of the queue holding the most bytes, up to
    /// `drop_batch` packets or until half of its bytes are gone; each dropped packet is handed to
    /// `drop` (its queue's CoDel sees an empty queue if it empties).
    pub fn drop_from_fattest(&mut self, mut drop: impl FnMut(Queued)) {
        let Some((i, _)) = self
            .flows
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.bytes.cmp(&b.1.bytes).then(b.0.cmp(&a.0)))
        else {
            return;
        };
        let f = &mut self.flows[i];
        let threshold = f.bytes / 2;
        let (mut n, mut gone) = (0u32, 0u64);
        while let Some(q) = f.q.pop_front() {
            let b = q.pkt.size_bytes as u64;
            f.bytes -= b;
            gone += b;
            n += 1;
            drop(q);
            if n >= self.drop_batch || gone >= threshold {
                break;
            }
        }
    }

    /// §4.2: the next packet at `now`; `class_bytes` is the class's whole queue in bytes before
    /// this dequeue (CoDel's MTU test).
    pub fn dequeue(&mut self, now: SimTime, class_bytes: u64) -> Taken {
        loop {
            let (i, from_new) = if let Some(&i) = self.new_flows.front() {
                (i as usize, true)
            } else if let Some(&i) = self.old_flows.front() {
                (i as usize, false)
            } else {
                return Taken::Empty;
            };
            let f = &mut self.flows[i];
            if f.deficit <= 0 {
                f.deficit += self.quantum;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                f.list = List::Old;
                self.old_flows.push_back(i as u32);
                continue;
            }
            let Some(q) = f.q.pop_front() else {
                f.codel.on_empty();
                if from_new {
                    self.new_flows.pop_front();
                    if self.old_flows.is_empty() {
                        f.list = List::None;
                    } else {
                        f.list = List::Old;
                        self.old_flows.push_back(i as u32);
                    }
                } else {
                    self.old_flows.pop_front();
                    f.list = List::None;
                }
                if f.list == List::None {
                    self.release(i);
                }
                continue;
            };
            let size = q.pkt.size_bytes as u64;
            f.bytes -= size;
            if self.exact.is_some() {
                // `fq`: plain DRR, no CoDel
                f.deficit -= size as i64;
                return Taken::Pkt(q, false);
            }
            let sojourn = SimDuration(now.0.saturating_sub(q.since.0));
            return match f.codel.on_dequeue(now, sojourn, class_bytes - size) {
                Dequeue::Send => {
                    f.deficit -= size as i64;
                    Taken::Pkt(q, false)
                }
                Dequeue::Drop if self.ecn && q.pkt.has(flags::ECT) => {
                    f.deficit -= size as i64;
                    Taken::Pkt(q, true)
                }
                Dequeue::Drop => Taken::Dropped(q),
            };
        }
    }

    /// Queues on the new-flows and old-flows lists (for tests and the docs' checks).
    pub fn lists(&self) -> (usize, usize) {
        (self.new_flows.len(), self.old_flows.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FlowId;

    fn cfg() -> FqCodelConfig {
        FqCodelConfig {
            flows: 1024,
            quantum_bytes: None,
            target_s: 0.005,
            interval_s: 0.1,
            ecn: false,
            drop_batch: 64,
            exact_without_codel: false,
        }
    }
    fn p(flow: u32, size: u32) -> Packet {
        Packet::data_probe(FlowId(flow), 0, size, 0)
    }
    fn take(fq: &mut FqCodel, now: SimTime, class_bytes: u64) -> Option<Packet> {
        match fq.dequeue(now, class_bytes) {
            Taken::Pkt(q, _) => Some(q.pkt),
            Taken::Dropped(q) => panic!("dropped {:?}", q.pkt),
            Taken::Empty => None,
        }
    }
    /// Flows that hash to distinct queues under this seed.
    fn distinct(fq: &FqCodel, n: u32) -> Vec<u32> {
        let mut seen = std::collections::HashSet::new();
        (0..10_000)
            .filter(|&f| seen.insert(fq.queue_of(&p(f, 1))))
            .take(n as usize)
            .collect()
    }

    /// §4.2: a flow that has just become active is served before the backlogged (old) flows,
    /// once per quantum; the old flows share the link by DRR with one-MTU quanta.
    #[test]
    fn a_new_sparse_flow_goes_before_the_backlogged_flows() {
        let mut fq = FqCodel::new(&cfg(), 1500, 7);
        let f = distinct(&fq, 3);
        let t = SimTime::ZERO;
        for _ in 0..10 {
            fq.enqueue(p(f[0], 1500), t);
            fq.enqueue(p(f[1], 1500), t);
        }
        // both bulk flows start new; after one quantum each they are old and alternate
        let first: Vec<u32> = (0..4)
            .map(|_| take(&mut fq, t, 1 << 30).unwrap().flow.0)
            .collect();
        assert_eq!(first, vec![f[0], f[1], f[0], f[1]]);
        assert_eq!(fq.lists(), (0, 2));
        // a sparse flow's single packet jumps ahead of both
        fq.enqueue(p(f[2], 100), t);
        assert_eq!(take(&mut fq, t, 1 << 30).unwrap().flow.0, f[2]);
        // its queue, now empty, moves to the old list (old list not empty), then leaves it
        let rest: Vec<u32> = std::iter::from_fn(|| take(&mut fq, t, 1 << 30))
            .map(|p| p.flow.0)
            .collect();
        assert_eq!(rest.len(), 16);
        assert_eq!(fq.lists(), (0, 0));
    }

    /// DRR's byte fairness between old flows of different packet sizes: over many rounds each
    /// flow gets the same bytes within one quantum.
    #[test]
    fn old_flows_share_bytes_equally_whatever_their_packet_sizes() {
        let mut fq = FqCodel::new(&cfg(), 1500, 3);
        let f = distinct(&fq, 2);
        let t = SimTime::ZERO;
        for _ in 0..3000 {
            fq.enqueue(p(f[0], 300), t);
        }
        for _ in 0..600 {
            fq.enqueue(p(f[1], 1500), t);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..1000 {
            let pk = take(&mut fq, t, 1 << 30).unwrap();
            bytes[(pk.flow.0 == f[1]) as usize] += pk.size_bytes as u64;
        }
        assert!(bytes[0].abs_diff(bytes[1]) <= 1500, "{bytes:?}");
    }

    /// §4.1: an overflow drops from the head of the fattest queue, half its bytes or drop_batch
    /// packets, whichever comes first.
    #[test]
    fn overflow_drops_half_of_the_fattest_queue_from_its_head() {
        let mut fq = FqCodel::new(&cfg(), 1500, 5);
        let f = distinct(&fq, 2);
        let t = SimTime::ZERO;
        for s in 0..10u64 {
            let mut k = p(f[0], 1000);
            k.seq = s;
            fq.enqueue(k, t);
        }
        fq.enqueue(p(f[1], 1000), t);
        let mut dropped = vec![];
        fq.drop_from_fattest(|q| dropped.push((q.pkt.flow.0, q.pkt.seq)));
        assert_eq!(dropped, (0..5).map(|s| (f[0], s)).collect::<Vec<_>>());
        let mut small = cfg();
        small.drop_batch = 2;
        let mut fq = FqCodel::new(&small, 1500, 5);
        for _ in 0..10 {
            fq.enqueue(p(f[0], 1000), t);
        }
        let mut n = 0;
        fq.drop_from_fattest(|_| n += 1);
        assert_eq!(n, 2);
    }

    /// Each flow queue runs its own CoDel: a queue whose packets waited above target for an
    /// interval is dropped from, while another flow's fresh packets are sent.
    #[test]
    fn codel_judges_each_flow_queue_on_its_own_sojourn() {
        let mut fq = FqCodel::new(&cfg(), 1500, 9);
        let f = distinct(&fq, 2);
        let ms = |m: u64| SimTime(m * 1_000_000_000);
        for _ in 0..400 {
            fq.enqueue(p(f[0], 1500), ms(0));
        }
        // flow 0's packets sent 10 ms after queueing, for more than an interval: CoDel drops
        let mut drops = 0;
        let mut now = 10;
        while now < 200 {
            fq.enqueue(p(f[1], 1500), ms(now));
            for _ in 0..2 {
                match fq.dequeue(ms(now), 1 << 30) {
                    Taken::Dropped(q) => {
                        assert_eq!(q.pkt.flow.0, f[0]);
                        drops += 1;
                    }
                    Taken::Pkt(..) => {}
                    Taken::Empty => unreachable!(),
                }
            }
            now += 1;
        }
        assert!(
            drops >= 1,
            "flow 0 above target for 190 ms was never dropped from"
        );
    }
}
