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
//! Allocation: the class queues grow with the backlog and keep their capacity; the DRR list
//! holds at most 8 entries (allocated once). Nothing is allocated per packet in steady state.

use crate::aqm::codel::{Codel, CodelParams, Dequeue};
use crate::packet::{flags, Packet};
use crate::scenario::{SchedConfig, SchedulerKind};
use crate::units::SimTime;
use std::collections::VecDeque;

/// A packet waiting in a class queue, with the time it was queued.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub pkt: Packet,
    pub since: SimTime,
}

/// One traffic class of a port.
#[derive(Clone, Debug, Default)]
pub struct ClassQueue {
    pub q: VecDeque<Queued>,
    pub bytes: u64,
    /// Packets this class may hold (u32::MAX: only the port's buffer limits it).
    pub limit_pkts: u32,
    /// DRR quantum, bytes.
    quantum: u64,
    deficit: u64,
    in_list: bool,
    /// A dequeue-time policy of this class (CoDel), with its ECN choice.
    codel: Option<(Codel, bool)>,
    pub stats: ClassStats,
}

/// Counters of one class over the run.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClassStats {
    pub arrivals: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub marks: u64,
    pub max_q_pkts: u32,
    /// Sum of the sojourn times of the packets sent, picoseconds (mean sojourn = this / tx_pkts).
    pub sojourn_ps: u128,
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

/// The scheduler state of a port on the general path.
#[derive(Clone, Debug)]
pub struct Sched {
    pub kind: SchedulerKind,
    pub classes: Vec<ClassQueue>,
    /// DRR's list of backlogged classes (head first).
    active: VecDeque<u8>,
}

impl Sched {
    /// The scheduler of a port from its `[sched]` table (validated); `packet_bytes` sizes the
    /// DRR quanta.
    /// `codel`: every class runs CoDel at dequeue with these parameters (and marks ECN-capable
    /// packets instead of dropping them when the flag is set).
    pub fn new(cfg: &SchedConfig, packet_bytes: u32, codel: Option<(CodelParams, bool)>) -> Self {
        let n = cfg.classes.max(1) as usize;
        let classes = (0..n)
            .map(|c| ClassQueue {
                limit_pkts: cfg.class_buffer_pkts.as_ref().map_or(u32::MAX, |b| b[c]),
                quantum: (cfg.weights.as_ref().map_or(1.0, |w| w[c]) * packet_bytes as f64)
                    .round()
                    .max(1.0) as u64,
                codel: codel.map(|(p, ecn)| (Codel::new(p), ecn)),
                ..Default::default()
            })
            .collect();
        Sched {
            kind: cfg.scheduler,
            classes,
            active: VecDeque::with_capacity(n),
        }
    }

    /// The class that serves `class` (a class the port lacks is served as its last one).
    #[inline]
    pub fn class_index(&self, class: u8) -> usize {
        (class as usize).min(self.classes.len() - 1)
    }

    /// Packets waiting in all classes.
    pub fn queued_pkts(&self) -> u64 {
        self.classes.iter().map(|c| c.q.len() as u64).sum()
    }

    /// Queue `pkt` in class `c` (the caller checked the limits).
    #[inline]
    pub fn push(&mut self, c: usize, pkt: Packet, now: SimTime) {
        let cl = &mut self.classes[c];
        cl.q.push_back(Queued { pkt, since: now });
        cl.bytes += pkt.size_bytes as u64;
        cl.stats.max_q_pkts = cl.stats.max_q_pkts.max(cl.q.len() as u32);
        if self.kind == SchedulerKind::Drr && !cl.in_list {
            cl.in_list = true;
            cl.deficit = cl.quantum;
            self.active.push_back(c as u8);
        }
    }

    /// The next packet at `now`: the scheduler's pick, judged by its class's dequeue policy.
    #[inline]
    pub fn next(&mut self, now: SimTime) -> Next {
        let Some((c, q)) = self.pop() else {
            for cl in self.classes.iter_mut() {
                if let Some((cd, _)) = cl.codel.as_mut() {
                    cd.on_empty();
                }
            }
            return Next::Idle;
        };
        let cl = &mut self.classes[c];
        let Some((cd, ecn)) = cl.codel.as_mut() else {
            return Next::Send(c, q, false);
        };
        let sojourn = crate::units::SimDuration(now.0.saturating_sub(q.since.0));
        match cd.on_dequeue(now, sojourn, cl.bytes) {
            Dequeue::Send => Next::Send(c, q, false),
            Dequeue::Drop if *ecn && q.pkt.has(flags::ECT) => Next::Send(c, q, true),
            Dequeue::Drop => {
                if cl.q.is_empty() {
                    cd.on_empty();
                }
                Next::Dropped(c, q)
            }
        }
    }

    /// Take the packet the scheduler sends next, with its class; None when every class is empty.
    #[inline]
    pub fn pop(&mut self) -> Option<(usize, Queued)> {
        match self.kind {
            SchedulerKind::Strict => {
                let c = self.classes.iter().position(|c| !c.q.is_empty())?;
                let cl = &mut self.classes[c];
                let q = cl.q.pop_front()?;
                cl.bytes -= q.pkt.size_bytes as u64;
                Some((c, q))
            }
            SchedulerKind::Drr => loop {
                let &c = self.active.front()?;
                let cl = &mut self.classes[c as usize];
                let Some(head) = cl.q.front() else {
                    // cannot happen (an empty class leaves the list), kept safe
                    cl.in_list = false;
                    self.active.pop_front();
                    continue;
                };
                let size = head.pkt.size_bytes as u64;
                if size <= cl.deficit {
                    cl.deficit -= size;
                    let q = cl.q.pop_front()?;
                    cl.bytes -= size;
                    if cl.q.is_empty() {
                        cl.in_list = false;
                        cl.deficit = 0;
                        self.active.pop_front();
                    }
                    return Some((c as usize, q));
                }
                cl.deficit += cl.quantum;
                self.active.rotate_left(1);
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FlowId;

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
        let mut s = Sched::new(&cfg(3, SchedulerKind::Strict, None), 1500, None);
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

    #[test]
    fn a_class_the_port_lacks_is_served_as_its_last() {
        let s = Sched::new(&cfg(2, SchedulerKind::Strict, None), 1500, None);
        assert_eq!(s.class_index(0), 0);
        assert_eq!(s.class_index(1), 1);
        assert_eq!(s.class_index(7), 1);
    }
}
