//! The event queue: events ordered by `(time, seq)`, where `seq` is the insertion counter, so
//! simultaneous events run in the order they were scheduled (deterministic, FIFO ties).
//!
//! Events are small `Copy` values (a packet travels inside its arrival event), so the heap
//! holds everything in flight and nothing is allocated per event once the heap has grown to
//! its working size.

use crate::packet::Packet;
use crate::units::SimTime;
use crate::world::FlowId;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Everything that can happen.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A packet finishes crossing a link and arrives at the next node of its route.
    Arrive(Packet),
    /// A flow's sender starts.
    FlowStart(FlowId),
    /// A flow's retransmission timer may have expired (checked against its deadline).
    RtoTimer(FlowId),
    /// A flow's receiver delayed-ACK timer may have expired.
    DelAckTimer(FlowId),
    /// Periodic queue/link sampling.
    SampleQueues,
    /// Periodic per-flow sampling (cwnd, alpha, delivered bytes).
    SampleFlows,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap; the earliest (time, seq) must come out first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// A `(time, seq)`-ordered event queue.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(n), next_seq: 0, popped: 0 }
    }
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time, e.event))
    }
    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }
    pub fn peek(&self) -> Option<(SimTime, Event)> {
        self.heap.peek().map(|e| (e.time, e.event))
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }
    /// Packets currently travelling (inside arrival events).
    pub fn packets_in_flight(&self) -> u64 {
        self.heap.iter().filter(|e| matches!(e.event, Event::Arrive(_))).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn same_time_events_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(5), Event::RtoTimer(FlowId(1)));
        q.schedule(SimTime(3), Event::RtoTimer(FlowId(2)));
        q.schedule(SimTime(5), Event::RtoTimer(FlowId(3)));
        q.schedule(SimTime(3), Event::RtoTimer(FlowId(4)));
        let order: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Event::RtoTimer(f) => f.0,
                _ => 0,
            })
            .collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
    }
}
