//! The general path of a port (docs/engine.md): packets wait in per-class queues and the port
//! decides at each transmission's end which one goes next, instead of fixing every departure
//! when the packet is accepted (the committed FIFO of `port`).
//!
//! Schedulers:
//! - strict priority: the lowest-numbered backlogged class (class 0 first, as band 0 of ns-3's
//!   PrioQueueDisc); a high-class packet waits at most for the transmission in progress.
//! - deficit round robin (M. Shreedhar and G. Varghese, "Efficient fair queueing using deficit
//!   round robin", SIGCOMM 1995), in the form of Linux `sch_drr`: the backlogged classes form a
//!   list; the class at its head sends its head packet when the packet fits its deficit
//!   (`deficit -= size`), otherwise it adds its quantum and moves to the tail; a class that
//!   becomes backlogged joins the tail with `deficit = quantum`, one that empties leaves the list.
//!
//! A class's queue is a FIFO, judged by CoDel at dequeue when the port's policy is `codel`, or
//! FQ-CoDel's flow queues (`aqm::fq_codel`) when it is `fq_codel`. DRR asks a class for its next
//! packet before deciding whether it fits the deficit, and keeps it aside until it does (as Linux
//! `sch_drr` peeks its child qdisc, which dequeues and holds the packet): a dequeue-time policy
//! therefore judges a packet when its class reaches the head of the DRR list, and a packet it
//! drops costs no deficit.
//!
//! Allocation: the class queues grow with the backlog and keep their capacity; the DRR list
//! holds at most 8 entries (allocated once); FQ-CoDel's lists hold at most `flows` entries
//! (allocated once). Nothing is allocated per packet in steady state.

use crate::aqm::codel::{Codel, CodelParams, Dequeue};
use crate::aqm::fq_codel::{FqCodel, FqCodelConfig, Taken};
use crate::aqm::red::RedDequeue;
use crate::aqm::threshold_dequeue::ThresholdDequeue;
use crate::aqm::{Aqm, AqmConfig, QueuePolicy, QueueView, RedMarkAt, Verdict};
use crate::packet::{flags, Packet};
use crate::rng::Rng;
use crate::scenario::{SchedConfig, SchedulerKind};
use crate::units::SimTime;
use std::collections::VecDeque;

/// A packet waiting in a class queue, with the time it was queued.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub pkt: Packet,
    pub since: SimTime,
}

/// The dequeue-time policy of a port's classes (each class gets its own state).
#[derive(Clone, Debug)]
pub enum DequeuePolicy {
    /// CoDel on the class's FIFO, marking ECN-capable packets instead of dropping if the flag is set.
    Codel(CodelParams, bool),
    /// FQ-CoDel's flow queues, hashed with this seed.
    FqCodel(FqCodelConfig, u64),
    /// Threshold marking at dequeue (`aqm::threshold_dequeue`).
    ThresholdDequeue(crate::aqm::ThresholdConfig),
    /// RED deciding at dequeue (`mark_at = "dequeue"`, `aqm::red::RedDequeue`).
    Red(Box<crate::aqm::RedConfig>),
}

/// What a class's dequeue-time RED needs of its port: the line rate (its idle correction) and
/// the seed of the port's streams (class c draws from `Rng::stream(seed, "red_dequeue/c")`).
#[derive(Clone, Copy, Debug)]
pub struct PortEnv {
    pub rate_bps: f64,
    pub seed: u64,
}

/// One traffic class of a port.
///
/// Laid out for a big fabric, where a port's class is rarely in cache when a packet comes:
/// the first 64-byte line holds what every enqueue and dequeue reads (the FIFO's ring header,
/// the counts, the pause and which optional parts the class has), the second the counters
/// every arrival and transmission updates (`ClassStats`' first line); the optional policies
/// follow and are read only when `parts` says they are there.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct ClassQueue {
    /// The FIFO (unused when `fq` holds the packets).
    q: VecDeque<Queued>,
    /// Bytes and packets held, the packet DRR keeps aside included.
    pub bytes: u64,
    pkts: u32,
    /// Packets this class may hold (u32::MAX: only the port's buffer limits it).
    pub limit_pkts: u32,
    /// PFC: the class may not start a transmission before this time.
    paused_until: SimTime,
    /// Which of the optional parts below are present (`parts::*` bits): 0 on a plain FIFO.
    parts: u8,
    in_list: bool,
    pub stats: ClassStats,
    /// DRR quantum, bytes.
    quantum: u64,
    deficit: u64,
    /// When the class last became empty (for its own policy's idle rules).
    empty_since: SimTime,
    /// PFC: since when the class has been paused (None while it is not).
    pause_from: Option<SimTime>,
    /// A dequeue-time policy of this class (CoDel), with its ECN choice.
    codel: Option<(Codel, bool)>,
    /// FQ-CoDel's flow queues, holding this class's packets instead of `q`.
    fq: Option<Box<FqCodel>>,
    /// Threshold marking at dequeue, on the class's FIFO.
    mark_at_dequeue: Option<ThresholdDequeue>,
    /// RED deciding at dequeue, on the class's FIFO.
    red_at_dequeue: Option<Box<RedDequeue>>,
    /// The class's own enqueue-time policy (`sched.class_aqm`), judging arrivals with the
    /// class's queue; None: the port's policy judges them with the port's queue.
    aqm: Option<Aqm>,
    /// The packet DRR took from the class but has not sent yet (with its CE mark).
    aside: Option<(Queued, bool)>,
}

/// Bits of `ClassQueue::parts`.
mod parts {
    pub const FQ: u8 = 1;
    pub const CODEL: u8 = 2;
    pub const MARK_AT_DEQUEUE: u8 = 4;
    pub const RED_AT_DEQUEUE: u8 = 8;
    /// `aside` holds a packet.
    pub const ASIDE: u8 = 16;
}

impl ClassQueue {
    /// Packets held.
    #[inline]
    pub fn len(&self) -> u32 {
        self.pkts
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pkts == 0
    }
    /// PFC has paused this class at `now`.
    #[inline]
    pub fn paused(&self, now: SimTime) -> bool {
        now < self.paused_until
    }

    /// Close a pause that has expired by `now` into the paused-time counter.
    fn settle_pause(&mut self, now: SimTime) {
        if let Some(f) = self.pause_from {
            if now >= self.paused_until {
                self.stats.paused_ps += (self.paused_until.0 - f.0) as u128;
                self.pause_from = None;
            }
        }
    }

    /// Paused time up to `end`, picoseconds.
    pub fn paused_ps_at(&self, end: SimTime) -> u128 {
        self.stats.paused_ps
            + self.pause_from.map_or(0, |f| {
                (self.paused_until.min(end).0.saturating_sub(f.0)) as u128
            })
    }

    /// Whether FQ-CoDel holds this class's packets.
    #[inline]
    pub fn is_fq(&self) -> bool {
        self.parts & parts::FQ != 0
    }

    /// The class's next packet at `now`, judged by its dequeue policy. A packet handed out as
    /// `Pkt` or `Dropped` has left the class's counts.
    #[inline]
    fn take(&mut self, now: SimTime) -> Taken {
        if self.parts == 0 {
            // a plain FIFO (what the general path's switch ports mostly are): the line of
            // `parts` is the only one of the class read
            let Some(q) = self.q.pop_front() else {
                return Taken::Empty;
            };
            self.leave(&q);
            if self.pkts == 0 {
                self.empty_since = now;
            }
            return Taken::Pkt(q, false);
        }
        self.take_with_parts(now)
    }

    /// [`Self::take`] of a class with a dequeue-time policy, FQ-CoDel or a packet held aside.
    #[inline(never)]
    fn take_with_parts(&mut self, now: SimTime) -> Taken {
        if let Some((q, m)) = self.aside.take() {
            self.parts &= !parts::ASIDE;
            self.leave(&q);
            return Taken::Pkt(q, m);
        }
        let t = if let Some(fq) = self.fq.as_mut() {
            fq.dequeue(now, self.bytes)
        } else {
            let Some(q) = self.q.pop_front() else {
                if let Some((cd, _)) = self.codel.as_mut() {
                    cd.on_empty();
                }
                return Taken::Empty;
            };
            match self.codel.as_mut() {
                None => {
                    // the queue the packet leaves behind: the class less the packet itself
                    let (left_pkts, left_bytes) =
                        (self.pkts - 1, self.bytes - q.pkt.size_bytes as u64);
                    let marked = self
                        .mark_at_dequeue
                        .as_ref()
                        .is_some_and(|t| t.marks(&q.pkt, left_pkts, left_bytes))
                        || self
                            .red_at_dequeue
                            .as_mut()
                            .is_some_and(|r| r.marks(now, &q.pkt, left_pkts, left_bytes));
                    Taken::Pkt(q, marked)
                }
                Some((cd, ecn)) => {
                    let sojourn = crate::units::SimDuration(now.0.saturating_sub(q.since.0));
                    match cd.on_dequeue(now, sojourn, self.bytes - q.pkt.size_bytes as u64) {
                        Dequeue::Send => Taken::Pkt(q, false),
                        Dequeue::Drop if *ecn && q.pkt.has(flags::ECT) => Taken::Pkt(q, true),
                        Dequeue::Drop => {
                            if self.q.is_empty() {
                                cd.on_empty();
                            }
                            Taken::Dropped(q)
                        }
                    }
                }
            }
        };
        match &t {
            Taken::Pkt(q, _) | Taken::Dropped(q) => {
                self.leave(q);
                if self.pkts == 0 {
                    self.empty_since = now;
                }
            }
            Taken::Empty => {}
        }
        t
    }

    #[inline]
    fn leave(&mut self, q: &Queued) {
        self.pkts -= 1;
        self.bytes -= q.pkt.size_bytes as u64;
    }
}

/// Counters of one class over the run. The first 64 bytes are the ones every arrival and
/// transmission updates (`repr(C)`: they stay together, in the line after the class's queue).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct ClassStats {
    /// Sum of the sojourn times of the packets sent, picoseconds (mean sojourn = this / tx_pkts).
    pub sojourn_ps: u128,
    pub arrivals: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub marks: u64,
    pub drops: u64,
    pub max_q_pkts: u32,
    /// PFC frames received for this class (pauses, refreshes and resumes).
    pub pause_rx: u64,
    /// Time the class spent paused by PFC, picoseconds (closed pauses; see `paused_ps_at`).
    pub paused_ps: u128,
}

/// What the scheduler does next at a free link.
#[derive(Clone, Copy, Debug)]
pub enum Next {
    /// Send this packet (of this class; marked CE by the dequeue policy if `marked`).
    Send(usize, Queued, bool),
    /// The class's dequeue policy dropped this packet; ask again.
    Dropped(usize, Queued),
    /// Nothing waits.
    Idle,
}

/// The scheduler state of a port on the general path. Laid out in declaration order
/// (`repr(C)`): what every enqueue and dequeue reads (the classes, the kind, the PFC mask and
/// whether a class has its own policy) fills the first 32 bytes, which `Port` keeps in one of
/// its hot lines; DRR's list and FQ-CoDel's evictions follow.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Sched {
    pub classes: Vec<ClassQueue>,
    pub kind: SchedulerKind,
    /// PFC: the lossless classes (bit c for class c) of a switch port; 0 elsewhere.
    pub lossless: u8,
    /// Some class has its own queue policy (`sched.class_aqm`): see `class_verdict`.
    pub own_policies: bool,
    /// DRR's list of backlogged classes (head first).
    active: VecDeque<u8>,
    /// The packets FQ-CoDel's overflow rule dropped at the last arrival; the engine records and
    /// clears them (capacity `drop_batch`, allocated once).
    pub evicted: Vec<Packet>,
}

impl Sched {
    /// The scheduler of a port from its `[sched]` table (validated); `packet_bytes` sizes the
    /// DRR quanta.
    /// `policy`: every class runs this dequeue-time policy (its own state per class).
    /// `port`: the port's rate and seed (a dequeue-time RED's idle correction and random streams).
    pub fn new(
        cfg: &SchedConfig,
        packet_bytes: u32,
        policy: Option<DequeuePolicy>,
        port: PortEnv,
    ) -> Self {
        let n = cfg.classes.max(1) as usize;
        let classes = (0..n)
            .map(|c| {
                // a class's own policy (`class_aqm`) replaces the port's, at enqueue and dequeue
                let own = cfg.class_aqm.as_ref().and_then(|a| a.get(c));
                let policy = match own {
                    None => policy.clone(),
                    Some(AqmConfig::Codel(k)) => {
                        Some(DequeuePolicy::Codel(k.params(packet_bytes), k.ecn))
                    }
                    Some(AqmConfig::ThresholdDequeue(t)) => {
                        Some(DequeuePolicy::ThresholdDequeue(t.clone()))
                    }
                    Some(AqmConfig::Red(r)) if r.mark_at == RedMarkAt::Dequeue => {
                        Some(DequeuePolicy::Red(Box::new(r.clone())))
                    }
                    Some(_) => None,
                };
                (own.map(|a| Aqm::from_config(a, packet_bytes, 0)), policy)
            })
            .enumerate()
            .map(|(c, (aqm, policy))| ClassQueue {
                aqm,
                limit_pkts: cfg.class_buffer_pkts.as_ref().map_or(u32::MAX, |b| b[c]),
                quantum: (cfg.weights.as_ref().map_or(1.0, |w| w[c]) * packet_bytes as f64)
                    .round()
                    .max(1.0) as u64,
                codel: match policy {
                    Some(DequeuePolicy::Codel(p, ecn)) => Some((Codel::new(p), ecn)),
                    _ => None,
                },
                fq: match policy {
                    Some(DequeuePolicy::FqCodel(f, seed)) => {
                        Some(Box::new(FqCodel::new(&f, packet_bytes, seed ^ c as u64)))
                    }
                    _ => None,
                },
                mark_at_dequeue: match &policy {
                    Some(DequeuePolicy::ThresholdDequeue(t)) => {
                        Some(ThresholdDequeue::new(t, packet_bytes))
                    }
                    _ => None,
                },
                red_at_dequeue: match &policy {
                    Some(DequeuePolicy::Red(r)) => Some(Box::new(RedDequeue::new(
                        r,
                        packet_bytes,
                        port.rate_bps,
                        Rng::stream(port.seed, &format!("red_dequeue/{c}")),
                    ))),
                    _ => None,
                },
                ..Default::default()
            })
            .map(|mut cl| {
                cl.parts = (cl.fq.is_some() as u8 * parts::FQ)
                    | (cl.codel.is_some() as u8 * parts::CODEL)
                    | (cl.mark_at_dequeue.is_some() as u8 * parts::MARK_AT_DEQUEUE)
                    | (cl.red_at_dequeue.is_some() as u8 * parts::RED_AT_DEQUEUE);
                cl
            })
            .collect();
        let batch = match policy {
            Some(DequeuePolicy::FqCodel(f, _)) => f.drop_batch.max(1) as usize,
            _ => 0,
        };
        Sched {
            kind: cfg.scheduler,
            classes,
            active: VecDeque::with_capacity(n),
            evicted: Vec::with_capacity(batch),
            lossless: 0,
            own_policies: cfg.class_aqm.is_some(),
        }
    }

    /// The class that serves `class` (a class the port lacks is served as its last one).
    #[inline]
    pub fn class_index(&self, class: u8) -> usize {
        (class as usize).min(self.classes.len() - 1)
    }

    /// Packets waiting in all classes.
    pub fn queued_pkts(&self) -> u64 {
        self.classes.iter().map(|c| c.pkts as u64).sum()
    }

    /// Queue `pkt` in class `c` (the caller checked the limits).
    #[inline]
    pub fn push(&mut self, c: usize, pkt: Packet, now: SimTime) {
        let cl = &mut self.classes[c];
        match cl.parts & parts::FQ {
            0 => cl.q.push_back(Queued { pkt, since: now }),
            _ => match cl.fq.as_mut() {
                Some(fq) => fq.enqueue(pkt, now),
                None => unreachable!("parts::FQ without FQ-CoDel's queues"),
            },
        }
        cl.bytes += pkt.size_bytes as u64;
        cl.pkts += 1;
        if self.kind == SchedulerKind::Drr && !cl.in_list {
            cl.in_list = true;
            cl.deficit = cl.quantum;
            self.active.push_back(c as u8);
        }
    }

    /// FQ-CoDel's overflow rule in class `c` (RFC 8290 §4.1): drop from the head of its fattest
    /// flow queue into `evicted`; returns the packets and bytes dropped.
    pub fn evict_fattest(&mut self, c: usize) -> (u32, u64) {
        let cl = &mut self.classes[c];
        let Some(fq) = cl.fq.as_mut() else {
            return (0, 0);
        };
        let (mut n, mut b) = (0u32, 0u64);
        let evicted = &mut self.evicted;
        fq.drop_from_fattest(|q| {
            n += 1;
            b += q.pkt.size_bytes as u64;
            evicted.push(q.pkt);
        });
        cl.pkts -= n;
        cl.bytes -= b;
        cl.stats.drops += n as u64;
        (n, b)
    }

    /// The verdict of the own policy of the class serving `class` (`sched.class_aqm`) on an
    /// arrival, judged with that class's queue (packets and bytes waiting in it, its empty time,
    /// and `drained_at`: the end of the transmission in progress, `busy_until`, plus the class's
    /// bytes at line rate, its delay if it were served alone); None when the class runs the
    /// port's policy.
    #[inline(never)]
    pub fn class_verdict(
        &mut self,
        class: u8,
        now: SimTime,
        pkt: &Packet,
        rate_bps: f64,
        busy_until: SimTime,
        rng: &mut Rng,
    ) -> Option<Verdict> {
        let c = self.class_index(class);
        let cl = &mut self.classes[c];
        let aqm = cl.aqm.as_mut()?;
        let waiting = crate::units::SimDuration::from_secs_f64(cl.bytes as f64 * 8.0 / rate_bps);
        let view = QueueView {
            drained_at: busy_until + waiting,
            ..QueueView::of_size(
                cl.pkts,
                cl.bytes,
                (cl.pkts == 0).then_some(cl.empty_since),
                rate_bps,
            )
        };
        Some(aqm.on_enqueue(now, pkt, &view, rng).verdict)
    }

    /// Record class `c`'s queue length in its largest-queue counter.
    #[inline]
    pub fn note_len(&mut self, c: usize) {
        let cl = &mut self.classes[c];
        cl.stats.max_q_pkts = cl.stats.max_q_pkts.max(cl.pkts);
    }

    /// A PFC frame for class `c` reached this port at `now`: pause the class until `until`, or
    /// resume it when `until <= now`.
    pub fn pause(&mut self, c: usize, now: SimTime, until: SimTime) {
        let cl = &mut self.classes[c];
        cl.stats.pause_rx += 1;
        cl.settle_pause(now);
        if until > now {
            if cl.pause_from.is_none() {
                cl.pause_from = Some(now);
            }
            cl.paused_until = until;
        } else {
            if let Some(f) = cl.pause_from.take() {
                cl.stats.paused_ps += (now.0 - f.0) as u128;
            }
            cl.paused_until = now;
        }
    }

    /// The next packet at `now`: the scheduler's pick, judged by its class's dequeue policy.
    /// Classes paused by PFC are passed over.
    #[inline]
    pub fn next(&mut self, now: SimTime) -> Next {
        match self.kind {
            SchedulerKind::Strict => loop {
                let Some(c) = self
                    .classes
                    .iter()
                    .position(|c| c.pkts > 0 && !c.paused(now))
                else {
                    return self.idle();
                };
                match self.classes[c].take(now) {
                    Taken::Pkt(q, m) => return Next::Send(c, q, m),
                    Taken::Dropped(q) => return Next::Dropped(c, q),
                    Taken::Empty => continue,
                }
            },
            SchedulerKind::Drr => {
                let mut passed = 0;
                loop {
                    let Some(&c) = self.active.front() else {
                        return self.idle();
                    };
                    let cl = &mut self.classes[c as usize];
                    if cl.paused(now) {
                        // a paused class keeps its place and deficit; every active class paused:
                        // nothing can start now
                        if passed >= self.active.len() {
                            return Next::Idle;
                        }
                        passed += 1;
                        self.active.rotate_left(1);
                        continue;
                    }
                    if cl.aside.is_none() {
                        match cl.take(now) {
                            Taken::Pkt(q, m) => {
                                // held aside, still counted in the class until it is sent
                                cl.pkts += 1;
                                cl.bytes += q.pkt.size_bytes as u64;
                                cl.aside = Some((q, m));
                                cl.parts |= parts::ASIDE;
                            }
                            Taken::Dropped(q) => {
                                if cl.pkts == 0 {
                                    cl.in_list = false;
                                    cl.deficit = 0;
                                    self.active.pop_front();
                                }
                                return Next::Dropped(c as usize, q);
                            }
                            Taken::Empty => {
                                cl.in_list = false;
                                cl.deficit = 0;
                                self.active.pop_front();
                                continue;
                            }
                        }
                    }
                    let size = cl
                        .aside
                        .as_ref()
                        .map_or(0, |(q, _)| q.pkt.size_bytes as u64);
                    if size <= cl.deficit {
                        cl.deficit -= size;
                        let Taken::Pkt(q, m) = cl.take(now) else {
                            unreachable!("the packet held aside")
                        };
                        if cl.pkts == 0 {
                            cl.in_list = false;
                            cl.deficit = 0;
                            self.active.pop_front();
                        }
                        return Next::Send(c as usize, q, m);
                    }
                    cl.deficit += cl.quantum;
                    self.active.rotate_left(1);
                }
            }
        }
    }

    /// No class can send: CoDel's states see an empty queue if their class is empty (a class
    /// paused by PFC is not).
    #[cold]
    fn idle(&mut self) -> Next {
        for cl in self
            .classes
            .iter_mut()
            .filter(|c| c.pkts == 0 && c.parts & parts::CODEL != 0)
        {
            if let Some((cd, _)) = cl.codel.as_mut() {
                cd.on_empty();
            }
        }
        Next::Idle
    }

    /// Take the packet the scheduler sends next, with its class, with no dequeue policy
    /// consulted; None when every class is empty (tests).
    #[cfg(test)]
    fn pop(&mut self) -> Option<(usize, Queued)> {
        match self.next(SimTime::ZERO) {
            Next::Send(c, q, _) => Some((c, q)),
            Next::Dropped(..) | Next::Idle => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FlowId;

    const ENV: PortEnv = PortEnv {
        rate_bps: 1e9,
        seed: 1,
    };

    fn cfg(classes: u8, kind: SchedulerKind, weights: Option<Vec<f64>>) -> SchedConfig {
        SchedConfig {
            classes,
            scheduler: kind,
            weights,
            ..Default::default()
        }
    }
    fn p(flow: u32, size: u32) -> Packet {
        Packet::data_probe(FlowId(flow), 0, size, 0)
    }

    #[test]
    fn strict_priority_serves_the_lowest_class_first_and_fifo_within_a_class() {
        let mut s = Sched::new(&cfg(3, SchedulerKind::Strict, None), 1500, None, ENV);
        for (c, f) in [(2, 20), (1, 10), (2, 21), (0, 0), (1, 11)] {
            s.push(c, p(f, 100), SimTime(0));
        }
        let order: Vec<u32> = std::iter::from_fn(|| s.pop())
            .map(|(_, q)| q.pkt.flow.0)
            .collect();
        assert_eq!(order, vec![0, 10, 11, 20, 21]);
    }

    /// Shreedhar-Varghese's example shape: quanta in the ratio of the weights; with packets
    /// of different sizes the bytes served per round follow the quanta, not the packet counts.
    #[test]
    fn drr_serves_bytes_in_the_ratio_of_the_weights() {
        let mut s = Sched::new(
            &cfg(2, SchedulerKind::Drr, Some(vec![1.0, 3.0])),
            1000,
            None,
            ENV,
        );
        let mut sent = [0u64; 2];
        for _ in 0..4000 {
            s.push(0, p(0, 700), SimTime(0));
            s.push(1, p(1, 1300), SimTime(0));
        }
        for _ in 0..4000 {
            let (c, q) = s.pop().unwrap();
            sent[c] += q.pkt.size_bytes as u64;
        }
        let share = sent[1] as f64 / (sent[0] + sent[1]) as f64;
        assert!((share - 0.75).abs() < 0.01 * 0.75, "share {share}");
    }

    /// Dequeue-time threshold marking: a packet is marked when the queue it leaves behind in
    /// its class exceeds K; packets that are not ECN-capable go unmarked.
    /// Ten 1500-byte packets into class 0 at t = 0, all ECN-capable but the second; then the
    /// mark decision of each departure in order.
    fn ten_in_class_0_then_marks(s: &mut Sched) -> Vec<bool> {
        for i in 0..10 {
            let mut pkt = p(i, 1500);
            if i != 1 {
                pkt.flags |= crate::packet::flags::ECT;
            }
            s.push(0, pkt, SimTime(0));
        }
        (0..10)
            .map(|_| match s.next(SimTime(0)) {
                Next::Send(_, _, m) => m,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn threshold_dequeue_marks_by_the_queue_left_behind() {
        let t = crate::aqm::ThresholdConfig {
            k_pkts: Some(5.0),
            ..Default::default()
        };
        let mut s = Sched::new(
            &cfg(1, SchedulerKind::Strict, None),
            1500,
            Some(DequeuePolicy::ThresholdDequeue(t)),
            ENV,
        );
        let marks = ten_in_class_0_then_marks(&mut s);
        // left behind: 9, 8, ..., 0; above 5 for the first four; the second is not ECT
        let want = [
            true, false, true, true, false, false, false, false, false, false,
        ];
        assert_eq!(marks, want);
    }

    /// Dequeue-time RED (w_q = 1, min_th 2, max_th 5): a packet is judged by the queue it leaves
    /// behind in its class: at or above max_th always marked, at or below min_th never, and a
    /// packet that is not ECN-capable goes unmarked. Each class keeps its own RED state.
    #[test]
    fn red_dequeue_marks_by_the_queue_left_behind() {
        let r = crate::aqm::RedConfig {
            min_th_pkts: 2.0,
            max_th_pkts: 5.0,
            max_p: 0.1,
            w_q: 1.0,
            gentle: false,
            action: crate::aqm::RedAction::Mark,
            byte_mode: false,
            ns2_wait: false,
            ns2_drop_ecn_above_p: None,
            ns2_small_queue: false,
            ns2_idle_truncate: false,
            independent_marks: true,
            mark_at: RedMarkAt::Dequeue,
        };
        let mut s = Sched::new(
            &cfg(2, SchedulerKind::Strict, None),
            1500,
            Some(DequeuePolicy::Red(Box::new(r))),
            ENV,
        );
        let marks = ten_in_class_0_then_marks(&mut s);
        // left behind: 9, 8, ..., 0: the first five at or above max_th (the second not ECT),
        // 4 and 3 on the ramp (random), 2, 1, 0 at or below min_th
        assert_eq!(&marks[..5], &[true, false, true, true, true]);
        assert_eq!(&marks[7..], &[false, false, false]);
        // class 1's state is its own: one packet leaving nothing behind is not marked
        let mut pkt = p(99, 1500);
        pkt.flags |= crate::packet::flags::ECT;
        s.push(1, pkt, SimTime(0));
        assert!(matches!(s.next(SimTime(0)), Next::Send(1, _, false)));
    }

    #[test]
    fn a_class_the_port_lacks_is_served_as_its_last() {
        let s = Sched::new(&cfg(2, SchedulerKind::Strict, None), 1500, None, ENV);
        assert_eq!(s.class_index(0), 0);
        assert_eq!(s.class_index(1), 1);
        assert_eq!(s.class_index(7), 1);
    }
}
