//! The event queue: events ordered by `(time, seq)`, where `seq` is the insertion counter, so
//! simultaneous events run in the order they were scheduled (deterministic, FIFO ties).
//!
//! Packets in flight travel in sorted packet queues, and only the head of each non-empty queue
//! sits in the heap, so the merged order is exactly the global `(time, seq)` order:
//! - a port's *pipe* holds the packets that had to wait in its queue (a link is FIFO, so their
//!   arrival times never decrease); CHOKe finds the waiting packets at the pipe's end;
//! - a *lane* holds every packet that started transmission at once when offered, grouped by
//!   its link time `d` (transmission + propagation): it arrives at `now + d`, and `now` never
//!   decreases, so one lane serves all links with the same `d` (e.g. the 100 host links of a
//!   dumbbell share two lanes instead of taking 200 heap entries).
//!
//! The heap holds one entry per non-empty lane or pipe plus the periodic events; per-flow
//! timers have their own heap. Nothing is allocated per event once the rings have grown.

use crate::packet::Packet;
use crate::units::{SimDuration, SimTime};
use crate::world::{FlowId, PortId};
use std::collections::VecDeque;

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
    /// A flow's sender stops taking new data (it finishes what it has sent).
    FlowStop(FlowId),
    /// A workload's next action (Poisson arrival, incast round).
    Workload(u32),
    /// A rate-based source sends its next frame (pacing).
    RateSend(FlowId),
    /// A rate-based source's reaction-point timer may have expired.
    RateTimer(FlowId),
    /// A port on the general path ends a transmission and picks its next packet.
    TxDone(PortId),
    /// PFC (`sim::pfc`): a PAUSE or resume frame reaches a port, or a pause's refresh is due
    /// (the class and what it is, coded in the byte).
    Pfc(PortId, u8),
}

/// What a heap entry stands for: a small tag, never a packet (packets wait in pipes).
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// A packet queue: a port's pipe or a lane (index into `pipes`).
    Pipe(u32),
    /// A queue of transmission ends (index into `tx_lanes`).
    TxLane(u32),
    Loose(u32),
    FlowStart(FlowId),
    RtoTimer(FlowId),
    DelAckTimer(FlowId),
    SampleQueues,
    SampleFlows,
    FlowStop(FlowId),
    Workload(u32),
    RateSend(FlowId),
    RateTimer(FlowId),
    TxDone(PortId),
    Pfc(PortId, u8),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    slot: Slot,
}

impl Entry {
    #[inline(always)]
    fn before(&self, o: &Entry) -> bool {
        self.time < o.time || (self.time == o.time && self.seq < o.seq)
    }
}

/// Sets of the lane and transmission-end memo tables (two ways each).
const MEMO_SETS: usize = 64;

/// The memo set of link time `d`: the top bits of a multiplicative hash.
#[inline(always)]
fn memo_set(d: u64) -> usize {
    (d.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize
}

/// A small two-way table of the queues used lately (`(d, queue index)`, `u32::MAX` = none),
/// indexed by a hash of the time `d`. It only remembers its owner's map's answers.
type Memo = [[(u64, u32); 2]; MEMO_SETS];

/// The queue index `memo` remembers for `d` (the way found moves to the front).
#[inline(always)]
fn memo_get(memo: &mut Memo, d: u64) -> Option<u32> {
    let c = &mut memo[memo_set(d)];
    if c[0].0 == d && c[0].1 != u32::MAX {
        Some(c[0].1)
    } else if c[1].0 == d && c[1].1 != u32::MAX {
        c.swap(0, 1);
        Some(c[0].1)
    } else {
        None
    }
}

/// Remember queue `q` for `d` in front of its set, evicting the set's older way.
#[inline(always)]
fn memo_put(memo: &mut Memo, d: u64, q: u32) {
    let c = &mut memo[memo_set(d)];
    c[1] = c[0];
    c[0] = (d, q);
}

/// A binary min-heap of entries by `(time, seq)`. Unlike `std::collections::BinaryHeap` it
/// can replace its top in place with a value held in registers (the pipe-head case: one sift,
/// no write-then-read of the same slot), and it needs no reversed `Ord`.
#[derive(Debug, Default)]
struct MinHeap {
    v: Vec<Entry>,
}

impl MinHeap {
    fn with_capacity(n: usize) -> Self {
        MinHeap {
            v: Vec::with_capacity(n),
        }
    }
    #[inline(always)]
    fn peek(&self) -> Option<&Entry> {
        self.v.first()
    }
    #[inline(always)]
    fn len(&self) -> usize {
        self.v.len()
    }
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
    fn iter(&self) -> std::slice::Iter<'_, Entry> {
        self.v.iter()
    }
    #[inline]
    fn push(&mut self, e: Entry) {
        let mut pos = self.v.len();
        self.v.push(e);
        while pos > 0 {
            let parent = (pos - 1) / 2;
            let p = self.v[parent];
            if !e.before(&p) {
                break;
            }
            self.v[pos] = p;
            pos = parent;
        }
        self.v[pos] = e;
    }
    /// Put `e` where the top was and restore the order (sift down with a hole). Inlined into
    /// the event loop's pipe-head case (a call there costs more than the sift).
    #[inline(always)]
    fn replace_top(&mut self, e: Entry) {
        let len = self.v.len();
        let mut pos = 0;
        loop {
            let mut child = 2 * pos + 1;
            if child >= len {
                break;
            }
            if child + 1 < len {
                // the smaller child, chosen without a branch (the choice is unpredictable)
                child += self.v[child + 1].before(&self.v[child]) as usize;
            }
            let c = self.v[child];
            if !c.before(&e) {
                break;
            }
            self.v[pos] = c;
            pos = child;
        }
        self.v[pos] = e;
    }
    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        let top = self.v[0];
        self.replace_top(last);
        Some(top)
    }
}

/// A `(time, seq)`-ordered event queue: per-port packet pipes, a small heap of pipe heads and
/// periodic events, and a separate heap of per-flow timers (mostly stale, so kept apart from
/// the hot heap). Entries are 24 bytes.
#[derive(Debug)]
pub struct EventQueue {
    heap: MinHeap,
    timers: MinHeap,
    /// Packet queues in `(time, seq)` order: one per port (`0..n_ports`), then the lanes.
    pipes: Vec<VecDeque<(SimTime, u64, Packet)>>,
    /// Lanes: packets that started transmission the moment they were offered (never queued)
    /// arrive at `now + d` for their link's transmission + propagation time `d`; since `now`
    /// never decreases, all of them with the same `d`, whatever their link, form one sorted
    /// queue. One heap entry per lane replaces one per busy link (`d` → queue index).
    /// Keyed by `(d, clock)`: clock 0 is the simulation clock; a lookahead clock (a feeder
    /// port's FIFO arrival times, `Simulation::settle`) gets lanes of its own.
    lanes: std::collections::HashMap<(u64, u32), u32>,
    /// Per port, the last two lanes it used (`(d, clock, queue index)`, `u32::MAX` = none).
    lane_cache: Vec<[(u64, u32, u32); 2]>,
    /// The lanes of the general path's started transmissions used lately: a small two-way
    /// table (`(d, queue index)`, `u32::MAX` = none) indexed by a hash of `d`, shared by all
    /// ports (a fabric's links have a few link times; on a big fabric a table per port cost
    /// a cache miss per transmission). Like `lane_cache`, it only remembers `lanes`' answers.
    lane_memo: Memo,
    /// Transmission ends of the general path (`Event::TxDone`) in `(time, seq)` order, one
    /// queue per transmission time `d` (a transmission that starts at or a few ps after `now`
    /// ends at `now + d`; `now` never decreases): like the lanes, one heap entry per queue
    /// instead of one per busy port.
    tx_lanes: Vec<VecDeque<(SimTime, u64, PortId)>>,
    /// `d` → index into `tx_lanes`.
    tx_lane_of: std::collections::HashMap<u64, u32>,
    /// The transmission-end queues used lately, like `lane_memo` (`(d, index)`, `u32::MAX` =
    /// none), indexed by a hash of `d`.
    tx_memo: Memo,
    /// Transmission ends waiting in `tx_lanes`.
    in_tx: u64,
    /// Packets scheduled without a port (unit tests); slot index = position.
    loose: Vec<Option<Packet>>,
    next_seq: u64,
    popped: u64,
    in_pipes: u64,
    /// Heap entries whose pipe head was removed (CHOKe); while 0, no head can be stale.
    stale: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new(0, 0)
    }
}

impl EventQueue {
    /// A queue for a network of `n_ports` ports.
    pub fn new(n_ports: usize, capacity: usize) -> Self {
        EventQueue {
            heap: MinHeap::with_capacity(64),
            timers: MinHeap::with_capacity(capacity),
            pipes: vec![VecDeque::new(); n_ports],
            lanes: std::collections::HashMap::new(),
            lane_cache: vec![[(0, 0, u32::MAX); 2]; n_ports],
            lane_memo: [[(0, u32::MAX); 2]; MEMO_SETS],
            tx_lanes: Vec::new(),
            tx_lane_of: std::collections::HashMap::new(),
            tx_memo: [[(0, u32::MAX); 2]; MEMO_SETS],
            in_tx: 0,
            loose: Vec::new(),
            next_seq: 0,
            popped: 0,
            in_pipes: 0,
            stale: 0,
        }
    }
    pub fn with_capacity(n: usize) -> Self {
        Self::new(0, n)
    }
    #[inline]
    fn seq(&mut self) -> u64 {
        let s = self.next_seq;
        self.next_seq += 1;
        s
    }
    /// Schedule an event (packets normally go through [`EventQueue::schedule_arrival`]).
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let seq = self.seq();
        let (slot, timer) = match event {
            Event::Arrive(p) => {
                self.loose.push(Some(p));
                (Slot::Loose(self.loose.len() as u32 - 1), false)
            }
            Event::FlowStart(f) => (Slot::FlowStart(f), false),
            Event::RtoTimer(f) => (Slot::RtoTimer(f), true),
            Event::DelAckTimer(f) => (Slot::DelAckTimer(f), true),
            Event::SampleQueues => (Slot::SampleQueues, false),
            Event::SampleFlows => (Slot::SampleFlows, false),
            Event::FlowStop(f) => (Slot::FlowStop(f), false),
            Event::Workload(w) => (Slot::Workload(w), false),
            Event::RateSend(f) => (Slot::RateSend(f), false),
            Event::RateTimer(f) => (Slot::RateTimer(f), true),
            Event::TxDone(p) => (Slot::TxDone(p), false),
            Event::Pfc(p, c) => (Slot::Pfc(p, c), false),
        };
        let e = Entry { time, seq, slot };
        if timer {
            self.timers.push(e);
        } else {
            self.heap.push(e);
        }
    }
    /// Schedule the arrival of `pkt` at the far end of `port`'s link. Arrival times of one
    /// port never decrease (FIFO link), which keeps each pipe sorted.
    #[inline(always)]
    pub fn schedule_arrival(&mut self, port: PortId, time: SimTime, pkt: Packet) {
        self.push_queue(port.idx(), time, pkt);
    }

    /// Schedule the arrival of a packet that `port` began to transmit at `now`, without
    /// queueing: it joins the lane of its total link time `time - now` instead of the port's
    /// pipe. The merged `(time, seq)` order is the same as with [`Self::schedule_arrival`];
    /// the port's pipe still ends with its waiting packets (they are always queued).
    /// `clock` names the clock `now` comes from: 0 for the simulation clock, which never goes
    /// back; another value for a clock that only moves forward among its own calls.
    #[inline]
    pub fn schedule_unqueued(
        &mut self,
        port: PortId,
        now: SimTime,
        time: SimTime,
        pkt: Packet,
        clock: u32,
    ) {
        let d = time.0 - now.0;
        let c = &mut self.lane_cache[port.idx()];
        let qi = if c[0].0 == d && c[0].1 == clock && c[0].2 != u32::MAX {
            c[0].2
        } else if c[1].0 == d && c[1].1 == clock && c[1].2 != u32::MAX {
            c.swap(0, 1);
            c[0].2
        } else {
            // a link time not seen lately on this port (sizes other than the usual two, or a
            // rate that does not divide the bit time exactly): look the lane up, or open one
            let next = self.pipes.len() as u32;
            let q = *self.lanes.entry((d, clock)).or_insert(next);
            if q == next {
                self.pipes.push(VecDeque::new());
            }
            let c = &mut self.lane_cache[port.idx()];
            c[1] = c[0];
            c[0] = (d, clock, q);
            q
        };
        self.push_queue(qi as usize, time, pkt);
    }

    /// [`Self::schedule_unqueued`] on the simulation clock for a transmission the general path
    /// started (`Simulation::start_next`): the same lane, remembered in the table shared by
    /// all ports (`lane_memo`) instead of the port's own.
    #[inline]
    pub fn schedule_started(&mut self, now: SimTime, time: SimTime, pkt: Packet) {
        let d = time.0 - now.0;
        let qi = match memo_get(&mut self.lane_memo, d) {
            Some(q) => q,
            None => {
                let q = self.lane_of(d);
                memo_put(&mut self.lane_memo, d, q);
                q
            }
        };
        self.push_queue(qi as usize, time, pkt);
    }

    /// The lane of link time `d` on the simulation clock, opened if new.
    #[inline(never)]
    fn lane_of(&mut self, d: u64) -> u32 {
        let next = self.pipes.len() as u32;
        let q = *self.lanes.entry((d, 0)).or_insert(next);
        if q == next {
            self.pipes.push(VecDeque::new());
        }
        q
    }

    /// Schedule `Event::TxDone(port)` at `end` for a transmission that `port` started at `now`
    /// on the simulation clock (which never goes back): the same event, in the same `(time,
    /// seq)` order, as [`Self::schedule`] gives it, kept in the queue of its transmission time.
    #[inline]
    pub fn schedule_tx_done(&mut self, port: PortId, now: SimTime, end: SimTime) {
        let d = end.0 - now.0;
        let qi = match memo_get(&mut self.tx_memo, d) {
            Some(q) => q,
            None => {
                let next = self.tx_lanes.len() as u32;
                let q = *self.tx_lane_of.entry(d).or_insert(next);
                if q == next {
                    self.tx_lanes.push(VecDeque::new());
                }
                memo_put(&mut self.tx_memo, d, q);
                q
            }
        };
        let seq = self.seq();
        let lane = &mut self.tx_lanes[qi as usize];
        debug_assert!(lane.back().is_none_or(|b| b.0 <= end), "tx lane order");
        if lane.is_empty() {
            self.heap.push(Entry {
                time: end,
                seq,
                slot: Slot::TxLane(qi),
            });
        }
        lane.push_back((end, seq, port));
        self.in_tx += 1;
    }

    #[inline(always)]
    fn push_queue(&mut self, qi: usize, time: SimTime, pkt: Packet) {
        let seq = self.seq();
        let pipe = &mut self.pipes[qi];
        debug_assert!(pipe.back().is_none_or(|b| b.0 <= time), "pipe order");
        if pipe.is_empty() {
            self.heap.push(Entry {
                time,
                seq,
                slot: Slot::Pipe(qi as u32),
            });
        }
        pipe.push_back((time, seq, pkt));
        self.in_pipes += 1;
    }
    /// Packets on `port`'s link in arrival order; the last `q` of them are the ones still
    /// waiting in the port's queue.
    pub fn pipe(&self, port: PortId) -> &VecDeque<(SimTime, u64, Packet)> {
        &self.pipes[port.idx()]
    }

    /// Remove the packet at `idx` of `port`'s pipe and move the later ones earlier by
    /// `shift` (a queued packet dropped by CHOKe). Returns the packet.
    pub fn remove_from_pipe(
        &mut self,
        port: PortId,
        idx: usize,
        shift: SimDuration,
    ) -> Option<Packet> {
        let pipe = &mut self.pipes[port.idx()];
        let (_, _, pkt) = pipe.remove(idx)?;
        for e in pipe.range_mut(idx..) {
            e.0 = SimTime(e.0 .0 - shift.0);
        }
        self.in_pipes -= 1;
        if idx == 0 {
            // the head changed: its old heap entry goes stale (skipped by seq), index the new one
            self.stale += 1;
            if let Some(&(t, seq, _)) = pipe.front() {
                self.heap.push(Entry {
                    time: t,
                    seq,
                    slot: Slot::Pipe(port.0),
                });
            }
        }
        Some(pkt)
    }

    /// Set flags on the packet at `idx` of `port`'s pipe (a CHOKe mark on a queued packet).
    pub fn pipe_packet_mut(&mut self, port: PortId, idx: usize) -> Option<&mut Packet> {
        self.pipes[port.idx()].get_mut(idx).map(|e| &mut e.2)
    }

    /// Drop heap entries that point at a pipe head which is no longer there.
    #[inline(always)]
    fn clean(&mut self) {
        if self.stale == 0 {
            return;
        }
        while let Some(e) = self.heap.peek() {
            if let Slot::Pipe(port) = e.slot {
                if self.pipes[port as usize].front().map(|x| x.1) != Some(e.seq) {
                    self.heap.pop();
                    self.stale -= 1;
                    continue;
                }
            }
            break;
        }
    }

    /// The earliest entry of the two heaps (true = the timer heap).
    #[inline(always)]
    fn next_entry(&self) -> Option<(Entry, bool)> {
        match (self.heap.peek(), self.timers.peek()) {
            (Some(a), Some(b)) => Some(if b.before(a) { (*b, true) } else { (*a, false) }),
            (Some(a), None) => Some((*a, false)),
            (None, Some(b)) => Some((*b, true)),
            (None, None) => None,
        }
    }
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime(u64::MAX))
    }

    /// Pop the next event if it is due at or before `t` (one look at the queue instead of a
    /// peek and a pop).
    #[inline(always)]
    pub fn pop_until(&mut self, t: SimTime) -> Option<(SimTime, Event)> {
        let mut pkt = Packet::data_probe(FlowId(0), 0, 0, 0);
        let (at, ev) = self.pop_until_into(t, &mut pkt)?;
        Some((at, ev.unwrap_or(Event::Arrive(pkt))))
    }

    /// `pop_until` for the run loop: the arrival of a packet from a pipe comes back as `None`
    /// with its packet written to `pkt`, so that the packet is copied once on its way from the
    /// pipe to its handler instead of through the `Event` (a 40-byte value moved several times).
    #[inline(always)]
    pub fn pop_until_into(
        &mut self,
        t: SimTime,
        pkt: &mut Packet,
    ) -> Option<(SimTime, Option<Event>)> {
        self.clean();
        let (top, timer) = self.next_entry()?;
        if top.time > t {
            return None;
        }
        self.popped += 1;
        if timer {
            self.timers.pop();
        } else if let Slot::Pipe(port) = top.slot {
            // the common case: take the pipe's head and let its next packet take the heap
            // slot in place (one sift instead of a pop and a push)
            let pipe = &mut self.pipes[port as usize];
            let (_, _, head) = pipe.pop_front().expect("pipe head present");
            *pkt = head;
            self.in_pipes -= 1;
            match pipe.front() {
                Some(&(nt, nseq, _)) => {
                    self.heap.replace_top(Entry {
                        time: nt,
                        seq: nseq,
                        slot: top.slot,
                    });
                }
                None => {
                    self.heap.pop();
                }
            }
            return Some((top.time, None));
        } else if let Slot::TxLane(q) = top.slot {
            let (at, ev) = self.pop_tx_lane(q, top);
            return Some((at, Some(ev)));
        } else {
            self.heap.pop();
        }
        let ev = match top.slot {
            Slot::Loose(i) => Event::Arrive(self.loose[i as usize].take().expect("loose packet")),
            other => Self::timer_event(other),
        };
        Some((top.time, Some(ev)))
    }

    /// Take the head of transmission-end queue `q` (the heap's top, `top`): out of line, so
    /// that the committed FIFO's pop path keeps its shape.
    #[inline(never)]
    fn pop_tx_lane(&mut self, q: u32, top: Entry) -> (SimTime, Event) {
        let lane = &mut self.tx_lanes[q as usize];
        let (_, _, port) = lane.pop_front().expect("tx lane head present");
        self.in_tx -= 1;
        match lane.front() {
            Some(&(nt, nseq, _)) => self.heap.replace_top(Entry {
                time: nt,
                seq: nseq,
                slot: top.slot,
            }),
            None => {
                self.heap.pop();
            }
        }
        (top.time, Event::TxDone(port))
    }

    /// The event of a slot that carries no packet.
    #[inline(always)]
    fn timer_event(slot: Slot) -> Event {
        match slot {
            Slot::FlowStart(f) => Event::FlowStart(f),
            Slot::RtoTimer(f) => Event::RtoTimer(f),
            Slot::DelAckTimer(f) => Event::DelAckTimer(f),
            Slot::SampleQueues => Event::SampleQueues,
            Slot::SampleFlows => Event::SampleFlows,
            Slot::FlowStop(f) => Event::FlowStop(f),
            Slot::Workload(w) => Event::Workload(w),
            Slot::RateSend(f) => Event::RateSend(f),
            Slot::RateTimer(f) => Event::RateTimer(f),
            Slot::TxDone(p) => Event::TxDone(p),
            Slot::Pfc(p, c) => Event::Pfc(p, c),
            Slot::Pipe(_) | Slot::Loose(_) | Slot::TxLane(_) => {
                unreachable!("queue slots are resolved by the caller")
            }
        }
    }
    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.clean();
        self.next_entry().map(|(e, _)| e.time)
    }
    pub fn peek(&mut self) -> Option<(SimTime, Event)> {
        self.clean();
        let (e, _) = self.next_entry()?;
        let ev = match e.slot {
            Slot::Pipe(q) => Event::Arrive(self.pipes[q as usize].front().expect("head").2),
            Slot::TxLane(q) => Event::TxDone(self.tx_lanes[q as usize].front().expect("head").2),
            Slot::Loose(i) => Event::Arrive(self.loose[i as usize].expect("loose packet")),
            other => Self::timer_event(other),
        };
        Some((e.time, ev))
    }
    /// Pending events (each packet in a pipe counts as one).
    pub fn len(&self) -> usize {
        self.heap
            .iter()
            .filter(|e| !matches!(e.slot, Slot::Pipe(_) | Slot::TxLane(_)))
            .count()
            + self.timers.len()
            + self.in_pipes as usize
            + self.in_tx as usize
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.timers.is_empty()
    }
    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }
    /// Packets currently travelling on links.
    pub fn packets_in_flight(&self) -> u64 {
        self.in_pipes + self.loose.iter().filter(|p| p.is_some()).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;

    fn pkt(seq: u64) -> Packet {
        Packet::data_probe(FlowId(0), seq, 1, 0)
    }
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

    #[test]
    fn pipes_merge_with_timers_in_global_time_seq_order() {
        let mut q = EventQueue::new(2, 8);
        q.schedule_arrival(PortId(0), SimTime(5), pkt(1));
        q.schedule_arrival(PortId(1), SimTime(5), pkt(2));
        q.schedule(SimTime(5), Event::RtoTimer(FlowId(9)));
        q.schedule_arrival(PortId(0), SimTime(5), pkt(3));
        q.schedule_arrival(PortId(1), SimTime(7), pkt(4));
        q.schedule(SimTime(6), Event::RtoTimer(FlowId(8)));
        assert_eq!(q.packets_in_flight(), 4);
        let order: Vec<u64> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Event::Arrive(p) => p.seq,
                Event::RtoTimer(f) => 100 + f.0 as u64,
                _ => 0,
            })
            .collect();
        assert_eq!(order, vec![1, 2, 109, 3, 108, 4]);
    }

    /// Removing a pipe's head (a CHOKe victim) leaves a stale heap entry that is skipped; the
    /// later packets move up and still merge with timers in time order; pop_until stops at t.
    #[test]
    fn removed_pipe_head_is_skipped_and_pop_until_stops_at_t() {
        let mut q = EventQueue::new(1, 8);
        q.schedule_arrival(PortId(0), SimTime(10), pkt(1));
        q.schedule_arrival(PortId(0), SimTime(20), pkt(2));
        q.schedule_arrival(PortId(0), SimTime(30), pkt(3));
        q.schedule(SimTime(12), Event::RtoTimer(FlowId(7)));
        assert_eq!(
            q.remove_from_pipe(PortId(0), 0, SimDuration(10))
                .map(|p| p.seq),
            Some(1)
        );
        assert_eq!(q.packets_in_flight(), 2);
        let next = |q: &mut EventQueue, t| {
            q.pop_until(SimTime(t)).map(|(at, e)| match e {
                Event::Arrive(p) => (at.0, p.seq),
                Event::RtoTimer(f) => (at.0, 100 + f.0 as u64),
                _ => (at.0, 0),
            })
        };
        assert_eq!(next(&mut q, 9), None);
        assert_eq!(next(&mut q, 15), Some((10, 2)));
        assert_eq!(next(&mut q, 15), Some((12, 107)));
        assert_eq!(next(&mut q, 15), None);
        assert_eq!(next(&mut q, 100), Some((20, 3)));
        assert_eq!(next(&mut q, 100), None);
        assert!(q.is_empty());
    }

    /// Transmission ends kept in their queues (`schedule_tx_done`) pop exactly as the same
    /// `Event::TxDone`s scheduled one by one in the heap would, mixed with packets and timers,
    /// for transmission times that differ by a few ps (starts just after `now`).
    #[test]
    fn tx_lanes_pop_in_the_heap_order() {
        let mut rnd = crate::rng::xorshift(0x1234_5678_9ABC_DEF1);
        let n_ports = 8;
        let mut a = EventQueue::new(n_ports, 8);
        let mut b = EventQueue::new(n_ports, 8);
        let mut now = 0u64;
        let mut n = 0;
        for i in 0..50_000u64 {
            match rnd(4) {
                0 | 1 => {
                    let p = PortId(rnd(n_ports as u64) as u32);
                    let end = SimTime(now + [120, 5, 120][rnd(3) as usize] + rnd(3));
                    a.schedule_tx_done(p, SimTime(now), end);
                    b.schedule(end, Event::TxDone(p));
                }
                2 => {
                    let t = SimTime(now + rnd(200));
                    a.schedule(t, Event::RtoTimer(FlowId(i as u32)));
                    b.schedule(t, Event::RtoTimer(FlowId(i as u32)));
                }
                _ => {
                    assert_eq!(a.len(), b.len());
                    let (ea, eb) = (a.pop(), b.pop());
                    match (ea, eb) {
                        (None, None) => {}
                        (Some((ta, Event::TxDone(pa))), Some((tb, Event::TxDone(pb)))) => {
                            assert_eq!((ta, pa), (tb, pb));
                            now = ta.0;
                            n += 1;
                        }
                        (Some((ta, Event::RtoTimer(fa))), Some((tb, Event::RtoTimer(fb)))) => {
                            assert_eq!((ta, fa), (tb, fb));
                            now = ta.0;
                        }
                        other => panic!("different events: {other:?}"),
                    }
                }
            }
        }
        assert!(n > 1000);
        while let Some(e) = b.pop() {
            assert_eq!(format!("{:?}", a.pop()), format!("{:?}", Some(e)));
        }
        assert!(a.is_empty());
    }

    /// `schedule_started` (the lane remembered in the table shared by all ports) puts every
    /// packet where `schedule_unqueued` on the simulation clock does, for more link times than
    /// the table has ways (collisions, evictions): the two queues pop the same sequence.
    #[test]
    fn shared_lane_table_gives_the_per_port_lanes() {
        let mut rnd = crate::rng::xorshift(0x2545_F491_4F6C_DD1D);
        let n_ports = 16;
        let mut a = EventQueue::new(n_ports, 8);
        let mut b = EventQueue::new(n_ports, 8);
        let mut now = 0u64;
        let mut n = 0;
        for id in 0..60_000u64 {
            if rnd(3) > 0 {
                // 300 link times over 64 two-way sets
                let p = PortId(rnd(n_ports as u64) as u32);
                let at = SimTime(now + 1_000 + 7 * rnd(300));
                a.schedule_unqueued(p, SimTime(now), at, pkt(id), 0);
                b.schedule_started(SimTime(now), at, pkt(id));
            } else {
                match (a.pop(), b.pop()) {
                    (Some((ta, Event::Arrive(pa))), Some((tb, Event::Arrive(pb)))) => {
                        assert_eq!((ta, pa.seq), (tb, pb.seq));
                        now = ta.0;
                        n += 1;
                    }
                    (None, None) => {}
                    other => panic!("different events: {other:?}"),
                }
            }
        }
        assert!(n > 10_000);
        while let Some(e) = a.pop() {
            assert_eq!(format!("{:?}", b.pop()), format!("{:?}", Some(e)));
        }
        assert!(b.is_empty());
        assert!(b.lanes.len() >= 250, "lanes: {}", b.lanes.len());
    }

    /// Lanes (never-queued packets grouped by link time), port pipes and timers, driven like
    /// a simulation (time moves to each popped event; ports keep FIFO order, a packet is
    /// unqueued only when its port is idle): every packet comes out once, in global
    /// `(time, insertion)` order.
    #[test]
    fn lanes_pipes_and_timers_merge_in_global_order() {
        let mut rnd = crate::rng::xorshift(0x9E37_79B9_7F4A_7C15);
        let n_ports = 6;
        let delays = [5u64, 5, 5, 9, 9, 13];
        let mut q = EventQueue::new(n_ports, 8);
        let mut busy_until = vec![0u64; n_ports];
        let mut now = 0u64;
        let mut next_id = 0u64;
        let mut popped = vec![];
        for _ in 0..20_000 {
            if rnd(3) > 0 {
                let p = rnd(n_ports as u64) as usize;
                let tx = 1 + rnd(2) * 3;
                let start = busy_until[p].max(now);
                busy_until[p] = start + tx;
                let at = SimTime(start + tx + delays[p]);
                let id = next_id;
                next_id += 1;
                if start > now {
                    q.schedule_arrival(PortId(p as u32), at, pkt(id));
                } else {
                    q.schedule_unqueued(PortId(p as u32), SimTime(now), at, pkt(id), 0);
                }
            } else if rnd(4) == 0 {
                q.schedule(
                    SimTime(now + rnd(20)),
                    Event::RtoTimer(FlowId(next_id as u32)),
                );
                next_id += 1;
            } else if let Some((t, e)) = q.pop() {
                assert!(t.0 >= now);
                now = t.0;
                let id = match e {
                    Event::Arrive(p) => p.seq,
                    Event::RtoTimer(f) => f.0 as u64,
                    _ => unreachable!(),
                };
                popped.push((t.0, id));
            }
        }
        while let Some((t, e)) = q.pop() {
            let id = match e {
                Event::Arrive(p) => p.seq,
                Event::RtoTimer(f) => f.0 as u64,
                _ => unreachable!(),
            };
            popped.push((t.0, id));
        }
        assert_eq!(popped.len() as u64, next_id);
        assert!(q.lanes.len() >= 3, "lanes in use: {}", q.lanes.len());
        // events scheduled at the same time pop in insertion order; times never go back
        assert!(popped
            .windows(2)
            .all(|w| w[0] < w[1] || (w[0].0 == w[1].0 && w[0].1 < w[1].1)));
    }
}
