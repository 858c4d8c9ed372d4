//! In-band network telemetry (INT) as HPCC needs it (Li et al., "HPCC: High Precision
//! Congestion Control", SIGCOMM 2019, section 3.2 and Figure 5: each switch egress port pushes
//! (ts, txBytes, qLen, B) into the data packet at dequeue; the receiver copies the list into
//! the ACK; the sender reads it when the ACK arrives).
//!
//! Packets stay 32-byte `Copy` values: the hop records live in a side arena keyed by
//! (flow, seq). Each flow that gets a stamp owns a ring of slots indexed by `seq` modulo a
//! power-of-two capacity; a slot holds the records of one transmission of one segment, one
//! per INT port on the flow's route, in path order. A port stamps the record of hop `h` when it
//! starts the packet's transmission (`Simulation::start_next`, general path only: the
//! committed FIFO fixes a departure at enqueue, before the queue it will leave behind is
//! known). The ACK "carries" the list logically: the sender reads the slot of the segment the
//! ACK acknowledges ([`IntArena::echo`]).
//!
//! **When reading the slot equals carrying the list.** The read finds the records the ACK
//! would carry as long as (1) the ACK was sent for that segment (an ACK for segment `s` reads
//! slot `s`; a cumulative ACK `a` sent on the in-order arrival of `a - 1` reads `a - 1`), and
//! (2) no later transmission took the slot before the ACK arrived. (2) holds for a window-based
//! sender whose segments in flight never exceed the ring's capacity: segment `s + cap` is sent
//! only once `s` is acknowledged. A retransmission of the same segment restarts its slot, so an
//! ACK of the first copy that arrives after the retransmission was stamped reads the
//! retransmission's (partial) list: [`Echo::Incomplete`] when it has not crossed every INT port
//! yet. Both failure modes are detected and counted ([`IntStats`]), never silent:
//! - a stamp for hop 0 that would overwrite a slot whose segment is still unacknowledged
//!   (`seq >= frontier`, the sender's cumulative ACK point passed in by the engine) doubles
//!   the ring instead (rare: capacity starts at twice the path's bandwidth-delay product in
//!   packets; a doubling re-homes the live slots), and past `max_slots` counts an overwrite;
//! - a later hop that finds its slot taken by another segment counts a lost stamp;
//! - a read that finds another segment, or fewer records than INT ports on the route, reports
//!   it ([`Echo::Missing`], [`Echo::Incomplete`]) and counts it.
//!
//! Hot path: a stamp is a few loads and stores into preallocated vectors; a ring is allocated
//! when a flow's first packet is stamped and grows by doubling only (never per event).

use crate::error::ScenarioError;
use crate::units::SimTime;
use crate::world::FlowId;

/// Most hop records one packet's telemetry holds, hence the most INT ports on the route of a
/// flow whose controller reads them (HPCC keeps the previous ACK's list of this many records,
/// `rate::hpcc`; the authors' ns-3 INT header holds 5, htsim's 5: a 3-tier fat-tree path
/// crosses 5 switch ports). A longer route is refused when the scenario is built
/// ([`check_route_hops`]), never cut.
pub const MAX_INT_HOPS: usize = 8;

/// Refuse a route of an INT-reading flow that crosses more than [`MAX_INT_HOPS`] INT ports:
/// `path` names the field that chose the route (e.g. `flow[3].dst`, `workload[0].dst`),
/// `value` its value, `route` says between which hosts, `hops` the INT ports on it and
/// `ports` the `[int]` ports setting.
pub fn check_route_hops(
    path: &str,
    value: &str,
    route: &str,
    hops: usize,
    ports: &str,
) -> Result<(), ScenarioError> {
    if hops <= MAX_INT_HOPS {
        return Ok(());
    }
    let fix = if ports == "all" {
        "fewer switches, or int.ports = \"switches\""
    } else {
        "fewer switches"
    };
    Err(ScenarioError::new(
        path,
        value,
        format!(
            "the route {route} crosses {hops} INT ports (int.ports = \"{ports}\"); an HPCC flow's telemetry holds 1 to {MAX_INT_HOPS} hop records: use a route of at most {MAX_INT_HOPS} INT ports ({fix})"
        ),
    ))
}

/// One hop's telemetry, stamped by a port when it starts the packet's transmission
/// (HPCC section 3.2: ts, txBytes, qLen, B). 32 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntRecord {
    /// Start of the packet's transmission at the port, picoseconds.
    pub ts: SimTime,
    /// Bytes the port has put on its link so far, this packet included.
    pub tx_bytes: u64,
    /// Bytes waiting in the port's queues once the packet left them (the packet in
    /// transmission is not counted, as everywhere in ccscope).
    pub qlen_bytes: u64,
    /// The port's link rate, bits/s.
    pub rate_bps: u64,
}

/// What a read of a segment's slot found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Echo<'a> {
    /// One record per INT port on the route, in path order.
    Full(&'a [IntRecord]),
    /// The slot holds this segment but fewer records than INT ports on its route (a
    /// retransmission still on its way, or a packet dropped after some hops).
    Incomplete(&'a [IntRecord]),
    /// The slot holds another segment (overwritten, or this segment never stamped), or the
    /// flow has no ring.
    Missing,
}

/// Counters of the arena (docs/engine.md, "In-band telemetry").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntStats {
    /// Records written.
    pub stamps: u64,
    /// Ring doublings (a slot of an unacknowledged segment was about to be overwritten).
    pub grows: u64,
    /// Slots of unacknowledged segments overwritten at the ring's largest size.
    pub overwrites: u64,
    /// Stamps of hop > 0 that found their slot taken by another segment (dropped).
    pub lost_stamps: u64,
    /// Reads that found a full list.
    pub echoes: u64,
    /// Reads that found another segment.
    pub echo_missing: u64,
    /// Reads that found a partial list.
    pub echo_incomplete: u64,
}

/// Slot marker: no segment.
const EMPTY: u64 = u64::MAX;
/// `ring_of` marker: no ring yet.
const NONE: u32 = u32::MAX;
/// `ring_of` marker: the flow's ring was released (the flow completed); never stamped again.
const RELEASED: u32 = u32::MAX - 1;

/// One flow's ring.
#[derive(Clone, Debug)]
struct Ring {
    /// Records per slot: the INT ports on the flow's route.
    stride: usize,
    mask: u64,
    /// Segment held by each slot (`EMPTY` if none).
    seqs: Vec<u64>,
    /// Records stamped in each slot so far.
    filled: Vec<u8>,
    /// `capacity x stride` records.
    recs: Vec<IntRecord>,
}

impl Ring {
    fn new(cap: usize, stride: usize) -> Ring {
        Ring {
            stride,
            mask: cap as u64 - 1,
            seqs: vec![EMPTY; cap],
            filled: vec![0; cap],
            recs: vec![IntRecord::default(); cap * stride],
        }
    }

    fn cap(&self) -> usize {
        self.seqs.len()
    }

    /// Double the capacity, re-homing every slot (distinct slots stay distinct: their seqs
    /// differ modulo the old capacity, hence modulo the new one).
    fn grow(&mut self) {
        let mut n = Ring::new(self.cap() * 2, self.stride);
        for i in 0..self.cap() {
            let s = self.seqs[i];
            if s == EMPTY {
                continue;
            }
            let j = (s & n.mask) as usize;
            n.seqs[j] = s;
            n.filled[j] = self.filled[i];
            n.recs[j * self.stride..(j + 1) * self.stride]
                .copy_from_slice(&self.recs[i * self.stride..(i + 1) * self.stride]);
        }
        *self = n;
    }
}

/// The side arena of every flow's ring (one per run, when some port stamps).
#[derive(Clone, Debug)]
pub struct IntArena {
    ring_of: Vec<u32>,
    rings: Vec<Ring>,
    /// Rings of completed flows, kept for reuse by later flows of the same stride.
    free: Vec<u32>,
    /// Largest ring capacity (slots, a power of two).
    max_slots: usize,
    stats: IntStats,
}

impl IntArena {
    /// `max_slots`: largest ring (rounded up to a power of two, at least 2).
    pub fn new(max_slots: u32) -> IntArena {
        IntArena {
            ring_of: Vec::new(),
            rings: Vec::new(),
            free: Vec::new(),
            max_slots: (max_slots.max(2) as usize).next_power_of_two(),
            stats: IntStats::default(),
        }
    }

    pub fn stats(&self) -> IntStats {
        self.stats
    }

    /// Whether `flow` has a ring (it was stamped and is not released).
    pub fn has_ring(&self, flow: FlowId) -> bool {
        self.ring_of.get(flow.idx()).is_some_and(|&r| r < RELEASED)
    }

    /// Capacity (slots) of the flow's ring, if it has one.
    pub fn capacity(&self, flow: FlowId) -> Option<usize> {
        let r = *self.ring_of.get(flow.idx())?;
        (r < RELEASED).then(|| self.rings[r as usize].cap())
    }

    /// Give the ring of a completed flow back for reuse; the flow is never stamped again.
    pub fn release(&mut self, flow: FlowId) {
        if let Some(r) = self.ring_of.get_mut(flow.idx()) {
            if *r < RELEASED {
                self.free.push(*r);
            }
            *r = RELEASED;
        }
    }

    /// The ring of `flow`, made on its first stamp: `stride` records per slot, capacity
    /// `slots_hint` rounded up to a power of two (at least 8, at most `max_slots`).
    #[cold]
    fn make_ring(&mut self, flow: FlowId, stride: usize, slots_hint: u64) -> Option<u32> {
        let i = flow.idx();
        if self.ring_of.len() <= i {
            self.ring_of.resize(i + 1, NONE);
        }
        if self.ring_of[i] == RELEASED || stride == 0 {
            return None;
        }
        let cap = (slots_hint.clamp(8, self.max_slots as u64) as usize).next_power_of_two();
        let cap = cap.min(self.max_slots);
        let r = match self
            .free
            .iter()
            .position(|&r| self.rings[r as usize].stride == stride)
        {
            Some(k) => {
                let r = self.free.swap_remove(k);
                let ring = &mut self.rings[r as usize];
                ring.seqs.fill(EMPTY);
                ring.filled.fill(0);
                r
            }
            None => {
                self.rings.push(Ring::new(cap, stride));
                (self.rings.len() - 1) as u32
            }
        };
        self.ring_of[i] = r;
        Some(r)
    }

    /// Stamp the record of INT hop `hop` (0 = the first INT port on the route) for segment
    /// `seq` of `flow`. `stride`: INT ports on the flow's route and `slots_hint`: the ring's
    /// first capacity (both used only when the flow gets its ring); `frontier`: the flow's
    /// cumulative ACK point (segments below it are acknowledged: their slots are free).
    #[inline]
    pub fn stamp(
        &mut self,
        flow: FlowId,
        seq: u64,
        hop: usize,
        rec: IntRecord,
        frontier: u64,
        stride: impl FnOnce() -> (usize, u64),
    ) {
        let r = match self.ring_of.get(flow.idx()) {
            Some(&r) if r < RELEASED => r,
            Some(&RELEASED) => return,
            _ => {
                let (s, hint) = stride();
                match self.make_ring(flow, s, hint) {
                    Some(r) => r,
                    None => return,
                }
            }
        };
        let max_slots = self.max_slots;
        let ring = &mut self.rings[r as usize];
        if hop >= ring.stride {
            // more INT ports than the route the ring was sized for (cannot happen on equal-cost
            // routes); the record is lost, not written out of place
            self.stats.lost_stamps += 1;
            return;
        }
        let mut j = (seq & ring.mask) as usize;
        if hop == 0 {
            let held = ring.seqs[j];
            if held != EMPTY && held != seq && held >= frontier {
                // the slot's segment is still unacknowledged: make room rather than lose it
                while ring.cap() < max_slots {
                    ring.grow();
                    self.stats.grows += 1;
                    j = (seq & ring.mask) as usize;
                    let h = ring.seqs[j];
                    if h == EMPTY || h == seq || h < frontier {
                        break;
                    }
                }
                let h = ring.seqs[j];
                if h != EMPTY && h != seq && h >= frontier {
                    self.stats.overwrites += 1;
                }
            }
            ring.seqs[j] = seq;
            ring.filled[j] = 0;
        } else if ring.seqs[j] != seq || ring.filled[j] as usize != hop {
            self.stats.lost_stamps += 1;
            return;
        }
        ring.recs[j * ring.stride + hop] = rec;
        ring.filled[j] = hop as u8 + 1;
        self.stats.stamps += 1;
    }

    /// Read the list of segment `seq` of `flow` (the ACK's echo).
    pub fn echo(&mut self, flow: FlowId, seq: u64) -> Echo<'_> {
        let r = match self.ring_of.get(flow.idx()) {
            Some(&r) if r < RELEASED => r,
            _ => {
                self.stats.echo_missing += 1;
                return Echo::Missing;
            }
        };
        let ring = &self.rings[r as usize];
        let j = (seq & ring.mask) as usize;
        if ring.seqs[j] != seq {
            self.stats.echo_missing += 1;
            return Echo::Missing;
        }
        let n = ring.filled[j] as usize;
        let recs = &ring.recs[j * ring.stride..j * ring.stride + n];
        if n < ring.stride {
            self.stats.echo_incomplete += 1;
            Echo::Incomplete(recs)
        } else {
            self.stats.echoes += 1;
            Echo::Full(recs)
        }
    }

    /// Look at a slot without counting (tests, diagnostics).
    pub fn peek(&self, flow: FlowId, seq: u64) -> Option<&[IntRecord]> {
        let &r = self.ring_of.get(flow.idx())?;
        if r >= RELEASED {
            return None;
        }
        let ring = &self.rings[r as usize];
        let j = (seq & ring.mask) as usize;
        (ring.seqs[j] == seq)
            .then(|| &ring.recs[j * ring.stride..j * ring.stride + ring.filled[j] as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(t: u64) -> IntRecord {
        IntRecord {
            ts: SimTime(t),
            tx_bytes: t * 10,
            qlen_bytes: t,
            rate_bps: 1,
        }
    }

    #[test]
    fn a_record_is_32_bytes() {
        assert_eq!(std::mem::size_of::<IntRecord>(), 32);
    }

    #[test]
    fn stamps_in_path_order_are_read_back_whole() {
        let mut a = IntArena::new(1024);
        let f = FlowId(3);
        for h in 0..3 {
            a.stamp(f, 5, h, rec(h as u64 + 1), 0, || (3, 8));
        }
        assert_eq!(a.echo(f, 5), Echo::Full(&[rec(1), rec(2), rec(3)]));
        // a partial list and another segment's slot are reported, not passed off as whole
        a.stamp(f, 6, 0, rec(9), 0, || unreachable!());
        assert_eq!(a.echo(f, 6), Echo::Incomplete(&[rec(9)]));
        assert_eq!(a.echo(f, 14), Echo::Missing);
        assert_eq!(a.echo(FlowId(0), 5), Echo::Missing);
        let s = a.stats();
        assert_eq!(
            (s.stamps, s.echoes, s.echo_incomplete, s.echo_missing),
            (4, 1, 1, 2)
        );
    }

    #[test]
    fn an_unacknowledged_slot_makes_the_ring_grow_an_acknowledged_one_is_reused() {
        let mut a = IntArena::new(16);
        let f = FlowId(0);
        for s in 0..8 {
            a.stamp(f, s, 0, rec(s), 0, || (1, 8));
        }
        assert_eq!(a.capacity(f), Some(8));
        // segment 8 takes slot 0; segment 0 is acknowledged (frontier 1): no growth
        a.stamp(f, 8, 0, rec(8), 1, || unreachable!());
        assert_eq!((a.capacity(f), a.stats().grows), (Some(8), 0));
        // segment 9 would take slot 1 of unacknowledged segment 1: the ring doubles, and
        // every live slot keeps its records
        a.stamp(f, 9, 0, rec(9), 1, || unreachable!());
        assert_eq!((a.capacity(f), a.stats().grows), (Some(16), 1));
        for s in 1..10 {
            assert_eq!(a.peek(f, s), Some(&[rec(s)][..]), "seq {s}");
        }
        // at the largest size an unacknowledged slot is overwritten and counted
        for s in 10..17 {
            a.stamp(f, s, 0, rec(s), 1, || unreachable!());
        }
        assert_eq!(a.stats().overwrites, 0);
        a.stamp(f, 17, 0, rec(17), 1, || unreachable!());
        assert_eq!((a.capacity(f), a.stats().overwrites), (Some(16), 1));
        assert_eq!(a.echo(f, 1), Echo::Missing);
    }

    #[test]
    fn a_later_hop_whose_slot_was_taken_is_lost_and_a_retransmission_restarts_its_slot() {
        let mut a = IntArena::new(8);
        let f = FlowId(1);
        a.stamp(f, 2, 0, rec(1), 0, || (2, 8));
        a.stamp(f, 10, 0, rec(2), 3, || unreachable!()); // segment 2 acknowledged: reused
        a.stamp(f, 2, 1, rec(3), 3, || unreachable!());
        assert_eq!(a.stats().lost_stamps, 1);
        assert_eq!(a.peek(f, 10), Some(&[rec(2)][..]));
        // a retransmission of 10 starts over at hop 0
        a.stamp(f, 10, 1, rec(4), 3, || unreachable!());
        a.stamp(f, 10, 0, rec(5), 3, || unreachable!());
        assert_eq!(a.peek(f, 10), Some(&[rec(5)][..]));
    }

    #[test]
    fn a_released_flow_is_never_stamped_and_its_ring_is_reused() {
        let mut a = IntArena::new(64);
        a.stamp(FlowId(0), 1, 0, rec(1), 0, || (2, 8));
        a.release(FlowId(0));
        a.stamp(FlowId(0), 2, 0, rec(1), 0, || (2, 8));
        assert!(!a.has_ring(FlowId(0)));
        a.stamp(FlowId(1), 1, 0, rec(7), 0, || (2, 8));
        assert_eq!(a.rings.len(), 1, "the released ring was reused");
        assert_eq!(a.peek(FlowId(1), 1), Some(&[rec(7)][..]));
        assert_eq!(a.peek(FlowId(1), 9), None);
    }
}
