//! An output port: a FIFO buffer with a byte and/or packet limit and an AQM, feeding one
//! direction of a link (rate + propagation delay). Switches are output-queued and
//! store-and-forward; a host's NIC is a port too. There is no other queue anywhere: the buffer
//! configured here is the only one a packet can wait in.
//!
//! **Committed FIFO.** The link is FIFO and work-conserving at a fixed rate, so the moment a
//! packet is accepted its transmission start and finish are known:
//! `start = max(now, busy_until)`, `finish = start + tx_time`. The port therefore schedules the
//! packet's arrival at the next node right away (one event per hop) and keeps only the start
//! times of packets still waiting; the queue length at any time is the number of those with
//! `start > now`, advanced lazily. Statistics (time-weighted queue, bytes sent) are exact
//! because every start time is known. A policy that takes back queued packets (CHOKe's victims)
//! is served by [`Port::remove_waiting`], which moves the later start times earlier; the engine
//! moves the packets already scheduled on the link with them.
//!
//! Arrivals at a port whose policy needs no engine help take [`Port::offer`]; the others
//! ([`Aqm::needs_engine`]) take [`Port::judge`], then the engine applies the decision's
//! victims and feedback, then [`Port::admit`].
//!
//! **General path.** A port with traffic classes (`[sched]`, [`Port::set_sched`]) does not
//! commit departures: [`Port::enqueue`] queues an accepted packet in its class, and
//! [`Port::start_next`] takes the packet the scheduler picks when the link is free, at the end
//! of each transmission (`Event::TxDone`). See `sched` and docs/engine.md.

use crate::aqm::{Aqm, Decision, QueuePolicy, QueueView, Queued, Verdict};
use crate::net::sched::{Next, Sched};
use crate::packet::{flags, Packet};
use crate::rng::Rng;
use crate::units::{BitsPerSec, Serializer, SimDuration, SimTime};

/// Events closer than this are simultaneous at a port, picoseconds. Each link carries the
/// remainder of its serialization times (`Serializer`), so its own clock is exact to < 1 ps, but
/// an arrival that exact arithmetic puts at the very instant a transmission starts reaches the
/// port through a few other serializations (the ACK's and the data's hops of one loop), each
/// rounded by < 1 ps: the two can come out a few ps apart in either order. 10 ps covers that and
/// is 1/8 of a byte time at 100 Gb/s. Found by comparing P001's runs with ns-2 drop by drop
/// (docs/models/periodic_ns2.md, item 14): with a 1-ps split the arrival was dropped as if the
/// departure came after it, which ns-2 orders first.
pub const SIMULTANEOUS_PS: u64 = 10;

#[derive(Clone, Copy, Debug)]
struct Waiting {
    start: SimTime,
    bytes: u32,
    /// Serialization time (to shift later packets when this one is removed).
    dur: SimDuration,
}

/// A FIFO in a `Vec` with a head index: what the committed FIFO's start times need (push at
/// the back, look at and take from the front, rarely remove from the middle) for fewer
/// instructions than a `VecDeque`'s ring arithmetic. The taken slots are reclaimed when the
/// queue empties, or when the vector is full and at least half of it is taken (one move of the
/// live part), so each operation costs O(1) amortized and the memory stays within twice the
/// longest queue (plus the vector's growth).
#[derive(Clone, Debug)]
struct Fifo<T> {
    v: Vec<T>,
    head: usize,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Fifo {
            v: Vec::new(),
            head: 0,
        }
    }
}

impl<T: Copy> Fifo<T> {
    #[inline(always)]
    fn front(&self) -> Option<&T> {
        self.v.get(self.head)
    }
    #[inline(always)]
    fn back(&self) -> Option<&T> {
        self.v[self.head..].last()
    }
    #[inline(always)]
    fn pop_front(&mut self) -> Option<T> {
        let x = *self.v.get(self.head)?;
        self.head += 1;
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
        }
        Some(x)
    }
    #[inline(always)]
    fn push_back(&mut self, x: T) {
        if self.v.len() == self.v.capacity() && self.head * 2 >= self.v.len() && self.head > 0 {
            self.v.drain(..self.head);
            self.head = 0;
        }
        self.v.push(x);
    }
    /// Remove the j-th element from the front.
    fn remove(&mut self, j: usize) -> Option<T> {
        let i = self.head.checked_add(j)?;
        if i >= self.v.len() {
            return None;
        }
        let x = self.v.remove(i);
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
        }
        Some(x)
    }
    /// The elements from the j-th on.
    fn tail_mut(&mut self, j: usize) -> &mut [T] {
        let i = (self.head + j).min(self.v.len());
        &mut self.v[i..]
    }
}

/// Counters of one port over the whole run. Laid out in declaration order (`repr(C)`): what
/// every arrival and departure updates first (the queue integral, arrivals, transmissions, marks
/// and the longest queue), the drops last.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct PortStats {
    /// Integral of the queue (packets) over time, packet-picoseconds.
    pub q_integral_pkt_ps: u128,
    pub q_integral_byte_ps: u128,
    pub arrivals: u64,
    pub arrival_bytes: u64,
    /// Packets/bytes whose transmission has started.
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub marks: u64,
    pub max_q_pkts: u32,
    pub drops_overflow: u64,
    pub drops_aqm: u64,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer limit (packets or bytes) was reached.
    Overflow,
    /// The AQM dropped it (early drop, or a mark for a non-ECT packet).
    Aqm,
}

/// Result of offering a packet to a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Accepted; the packet reaches the far end of the link at `arrive_at`.
    Accepted {
        arrive_at: SimTime,
        marked: bool,
        /// It waits behind other packets (false: its transmission starts at once).
        queued: bool,
    },
    Dropped(DropReason),
}

/// Which path a port's arrivals take (fixed when the port is built).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortPath {
    /// Committed FIFO, the policy needs nothing from the engine ([`Port::offer`]).
    Fifo,
    /// Committed FIFO, the policy needs the engine ([`Aqm::needs_engine`], [`Port::judge`]).
    Judged,
    /// Classes and a scheduler that decide at dequeue ([`Port::enqueue`], [`Port::start_next`]).
    General,
}

/// Laid out in declaration order (`repr(C)`), what every arrival and departure touches first:
/// on a big fabric each event meets a port that is not in cache, and the lines it reads decide
/// its cost. The first 320 bytes hold all the general path reads per packet: clocks, queue,
/// limits, delay, serializer and path, the counters (queue integral first), the enqueue-time
/// policy, and the head of the scheduler (its classes, kind and PFC mask; `Sched` is `repr(C)`
/// for that). The change log, what only the committed FIFO reads (the start times: a
/// dumbbell's few ports stay in cache) and the random stream follow. (Not aligned to a line: a
/// 64-byte alignment makes the port 576 bytes, whose index takes two instructions instead of
/// one multiply on the dumbbell's path.)
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Port {
    busy_until: SimTime,
    last_start: SimTime,
    last_change: SimTime,
    q_bytes: u64,
    limit_bytes: u64,
    pub delay: SimDuration,
    ser: Serializer,
    q_pkts: u32,
    limit_pkts: u32,
    path: PortPath,
    /// The port stamps in-band telemetry into the data packets it starts (`[int]`; general
    /// path only).
    int: bool,
    pub stats: PortStats,
    pub aqm: Aqm,
    /// Classes and scheduler of the general path (None on the committed FIFO).
    pub sched: Option<Sched>,
    /// (time, queue pkts, queue bytes) at every change, when enabled.
    pub change_log: Option<crate::record::ChangeLog>,
    waiting: Fifo<Waiting>,
    rng: Rng,
}

impl Port {
    /// `limit_pkts`/`limit_bytes`: None = unlimited.
    pub fn new(
        rate: BitsPerSec,
        delay: SimDuration,
        limit_pkts: Option<u32>,
        limit_bytes: Option<u64>,
        aqm: Aqm,
        rng: Rng,
    ) -> Self {
        let aqm_needs_engine = aqm.needs_engine();
        Port {
            ser: Serializer::new(rate),
            delay,
            limit_pkts: limit_pkts.unwrap_or(u32::MAX),
            limit_bytes: limit_bytes.unwrap_or(u64::MAX),
            aqm,
            rng,
            busy_until: SimTime::ZERO,
            last_start: SimTime::ZERO,
            waiting: Fifo::default(), // grows with the queue: most ports of a big topology stay short
            q_pkts: 0,
            q_bytes: 0,
            last_change: SimTime::ZERO,
            stats: PortStats::default(),
            change_log: None,
            path: if aqm_needs_engine {
                PortPath::Judged
            } else {
                PortPath::Fifo
            },
            sched: None,
            int: false,
        }
    }

    /// Make the port stamp in-band telemetry (`crate::int`); it must be on the general path.
    pub fn set_int(&mut self) {
        debug_assert!(
            self.path == PortPath::General,
            "INT needs the dequeue moment"
        );
        self.int = true;
    }

    /// Whether the port stamps in-band telemetry.
    #[inline(always)]
    pub fn int_on(&self) -> bool {
        self.int
    }

    /// The telemetry record of the transmission [`Port::start_next`] just started: its start
    /// time, the bytes sent so far (this packet included), the bytes it left waiting, the rate.
    pub fn int_record(&self) -> crate::int::IntRecord {
        crate::int::IntRecord {
            ts: self.last_start,
            tx_bytes: self.stats.tx_bytes,
            qlen_bytes: self.q_bytes,
            rate_bps: self.ser.rate().0,
        }
    }

    /// Put the port on the general path with these classes and scheduler (before the run).
    pub fn set_sched(&mut self, s: Sched) {
        self.sched = Some(s);
        self.path = PortPath::General;
    }

    /// The path its arrivals take.
    #[inline(always)]
    pub fn path(&self) -> PortPath {
        self.path
    }

    pub fn rate(&self) -> BitsPerSec {
        self.ser.rate()
    }

    #[inline]
    fn integrate(&mut self, t: SimTime) {
        let dt = (t.0 - self.last_change.0) as u128;
        if dt > 0 {
            if self.q_pkts > 0 {
                // an empty queue adds nothing (the common case on access links)
                self.stats.q_integral_pkt_ps += self.q_pkts as u128 * dt;
                self.stats.q_integral_byte_ps += self.q_bytes as u128 * dt;
            }
            self.last_change = t;
        }
    }

    #[inline]
    fn log_change(&mut self, t: SimTime) {
        if let Some(log) = self.change_log.as_mut() {
            log.push((t, self.q_pkts, self.q_bytes));
        }
    }

    /// Bring the port up to `t` at the end of a run, or up to its own clock when that is later:
    /// a port fed ahead of time (`Simulation::settle`) holds arrivals up to one link time past
    /// the simulation clock when a run stopped early (`Simulation::run_until_bounded`) is
    /// finished, and time never runs backwards for it.
    pub fn close(&mut self, t: SimTime) {
        self.advance(SimTime(t.0.max(self.last_change.0)));
    }

    /// Bring the queue up to time `t`: packets whose transmission starts by `t` leave it, so an
    /// arrival at the instant a transmission starts sees the queue after that departure (as in
    /// ns-2, whose departure event was scheduled first). "By `t`" allows `SIMULTANEOUS_PS`: the
    /// exact arithmetic would make such events coincide, and rounding serialization times to
    /// whole picoseconds can split them by a few ps either way.
    #[inline(always)]
    pub fn advance(&mut self, t: SimTime) {
        // the common case, inlined into the caller: nobody starts transmission by `t`, so only
        // the queue integral moves (no call, no callee-saved registers to spill)
        match self.waiting.front() {
            Some(w) if w.start.0 <= t.0 + SIMULTANEOUS_PS => self.advance_departures(t),
            _ => self.integrate(t),
        }
    }

    /// [`Port::advance`] when at least one waiting packet starts transmission by `t`.
    #[inline(never)]
    fn advance_departures(&mut self, t: SimTime) {
        while let Some(&w) = self.waiting.front() {
            if w.start.0 > t.0 + SIMULTANEOUS_PS {
                break;
            }
            let at = SimTime(w.start.0.min(t.0));
            self.integrate(at);
            self.waiting.pop_front();
            self.q_pkts -= 1;
            self.q_bytes -= w.bytes as u64;
            self.stats.tx_pkts += 1;
            self.stats.tx_bytes += w.bytes as u64;
            self.log_change(at);
        }
        self.integrate(t);
    }

    /// A host's NIC (the first port of a route) asks whether a new packet of class `class`
    /// would wait at `now` behind a packet that is already waiting (beyond the one being
    /// serialized) or behind a PFC pause of its class (RDMA sources hold their next packet
    /// then, `sim::rdma`).
    pub fn nic_hold(&mut self, now: SimTime, class: u8) -> NicHold {
        match self.sched.as_ref() {
            None => {
                if now >= self.last_change {
                    self.advance(now);
                }
                match self.waiting.front() {
                    Some(w) if self.q_pkts > 0 => NicHold::RetryAt(w.start.max(now)),
                    _ => NicHold::Free,
                }
            }
            Some(s) => {
                let c = &s.classes[s.class_index(class)];
                if c.paused(now) || !c.is_empty() {
                    NicHold::UntilWoken
                } else {
                    NicHold::Free
                }
            }
        }
    }

    /// Queue length (packets, bytes) after [`Port::advance`].
    pub fn queue(&self) -> (u32, u64) {
        (self.q_pkts, self.q_bytes)
    }

    /// What an arriving packet sees (after [`Port::advance`]), without a view of the queued
    /// packets and with no feedback to send (the fast path's view).
    #[inline]
    pub fn view(&self) -> QueueView<'static> {
        QueueView {
            drained_at: self.busy_until,
            ..QueueView::of_size(
                self.q_pkts,
                self.q_bytes,
                if self.q_pkts == 0 {
                    Some(self.last_start)
                } else {
                    None
                },
                self.ser.rate().as_f64(),
            )
        }
    }

    /// Offer a packet arriving at `now`. The AQM decides first (it sees every arrival), then
    /// the buffer limit; a mark on a non-ECT packet becomes an AQM drop. For policies that need
    /// no engine help (not [`Aqm::needs_engine`]).
    #[inline(always)]
    pub fn offer(&mut self, now: SimTime, pkt: &mut Packet) -> Admit {
        debug_assert!(!self.aqm.needs_engine(), "Port::judge serves this policy");
        self.advance(now);
        let verdict = self.policy_verdict(now, pkt, false);
        self.admit(now, pkt, verdict)
    }

    /// The enqueue-time policy's verdict on an arrival, with a view of the queue's size alone
    /// (the port advanced to `now`): the committed FIFO's fast path and the general path
    /// (`general`, a constant at each call: there `busy_until` ends the transmission in
    /// progress and the waiting bytes follow at line rate).
    #[inline(always)]
    fn policy_verdict(&mut self, now: SimTime, pkt: &Packet, general: bool) -> Verdict {
        if let Aqm::DropTail = self.aqm {
            // no policy to consult (most host and reverse-path ports)
            Verdict::Enqueue
        } else {
            let mut view = self.view();
            if general {
                let waiting = SimDuration::from_secs_f64(self.q_bytes as f64 * 8.0 / view.rate_bps);
                // not max(busy_until, now): a link idle since busy_until drained then
                view.drained_at = self.busy_until + waiting;
            }
            self.aqm.on_enqueue(now, pkt, &view, &mut self.rng).verdict
        }
    }

    /// Count an arrival and apply its verdict and the buffer limits (`class_full`: a limit of
    /// the general path's class): a mark on a non-ECT packet is an AQM drop; an accepted marked
    /// packet gets CE. Returns whether it was marked.
    #[inline(always)]
    fn screen(
        &mut self,
        pkt: &mut Packet,
        verdict: Verdict,
        class_full: bool,
        bounded: bool,
    ) -> Result<bool, DropReason> {
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += pkt.size_bytes as u64;
        let mut marked = false;
        match verdict {
            Verdict::Enqueue => {}
            Verdict::Mark => {
                if pkt.has(flags::ECT) {
                    marked = true;
                } else {
                    self.stats.drops_aqm += 1;
                    return Err(DropReason::Aqm);
                }
            }
            Verdict::Drop => {
                self.stats.drops_aqm += 1;
                return Err(DropReason::Aqm);
            }
        }
        if bounded
            && (self.q_pkts >= self.limit_pkts
                || self.q_bytes + pkt.size_bytes as u64 > self.limit_bytes
                || class_full)
        {
            self.stats.drops_overflow += 1;
            return Err(DropReason::Overflow);
        }
        if marked {
            pkt.flags |= flags::CE;
            self.stats.marks += 1;
        }
        Ok(marked)
    }

    /// A packet joins the waiting queue at `now`.
    #[inline(always)]
    fn grow_queue(&mut self, now: SimTime, bytes: u32) {
        self.q_pkts += 1;
        self.q_bytes += bytes as u64;
        if self.q_pkts > self.stats.max_q_pkts {
            self.stats.max_q_pkts = self.q_pkts;
        }
        self.log_change(now);
    }

    /// The policy's decision for a packet arriving at `now` (the port must be advanced to
    /// `now`), on the engine's general path: `queued` names the flows of the waiting packets
    /// (a policy that [`Aqm::inspects_queue`]), `feedback_to_source` says whether the arrival's
    /// source takes feedback frames (a policy that [`Aqm::sends_feedback`]). The engine then
    /// takes back the victims, collects the feedback and calls [`Port::admit`].
    #[inline]
    pub fn judge(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        queued: Queued<'_>,
        feedback_to_source: bool,
    ) -> Decision {
        let view = QueueView {
            queued,
            feedback_to_source,
            ..self.view()
        };
        self.aqm.on_enqueue(now, pkt, &view, &mut self.rng)
    }

    /// Remove the j-th waiting packet (oldest first) from the queue; later packets move up by
    /// its serialization time. Returns that time. Counts as an AQM drop.
    pub fn remove_waiting(&mut self, j: usize) -> SimDuration {
        let Some(w) = self.waiting.remove(j) else {
            return SimDuration::ZERO;
        };
        for later in self.waiting.tail_mut(j) {
            later.start = SimTime(later.start.0 - w.dur.0);
        }
        self.busy_until = SimTime(self.busy_until.0 - w.dur.0);
        if let Some(last) = self.waiting.back() {
            self.last_start = last.start;
        }
        self.q_pkts -= 1;
        self.q_bytes -= w.bytes as u64;
        self.stats.drops_aqm += 1;
        self.log_change(self.last_change);
        w.dur
    }

    /// Count a mark set on an already queued packet.
    pub fn count_mark(&mut self) {
        self.stats.marks += 1;
    }

    /// Accept or drop a packet the AQM has judged (`verdict`); the port must be advanced to `now`.
    #[inline(always)]
    pub fn admit(&mut self, now: SimTime, pkt: &mut Packet, verdict: Verdict) -> Admit {
        let marked = match self.screen(pkt, verdict, false, true) {
            Ok(m) => m,
            Err(reason) => return Admit::Dropped(reason),
        };
        let start = if self.busy_until > now {
            self.busy_until
        } else {
            now
        };
        let dur = self.ser.tx_time(pkt.size_bytes);
        let finish = start + dur;
        self.busy_until = finish;
        self.last_start = start;
        if start > now {
            self.waiting.push_back(Waiting {
                start,
                bytes: pkt.size_bytes,
                dur,
            });
            self.grow_queue(now, pkt.size_bytes);
        } else {
            self.stats.tx_pkts += 1;
            self.stats.tx_bytes += pkt.size_bytes as u64;
        }
        Admit::Accepted {
            arrive_at: finish + self.delay,
            marked,
            queued: start > now,
        }
    }
}

impl Port {
    /// General path: the policy judges a packet arriving at `now` (with the size of the whole
    /// queue, as on the committed FIFO), then the port's and the class's limits; an accepted
    /// packet waits in class `class` (`Sched::class_index`). `pool`: at a switch with a shared
    /// buffer, whether its dynamic threshold admits the packet (such a port is built without
    /// limits of its own). Returns whether it was marked.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        pkt: &mut Packet,
        class: u8,
        pool: Option<bool>,
    ) -> Result<bool, DropReason> {
        self.integrate(now);
        // a class with its own policy (`sched.class_aqm`) is judged by it, with its own queue
        let rate = self.ser.rate().as_f64();
        let own = self
            .sched
            .as_mut()
            .filter(|s| s.own_policies)
            .and_then(|s| s.class_verdict(class, now, pkt, rate, self.busy_until, &mut self.rng));
        let verdict = match own {
            Some(v) => v,
            None => self.policy_verdict(now, pkt, true),
        };
        let Some(s) = self.sched.as_ref() else {
            unreachable!("Port::enqueue on a port without classes");
        };
        let c = s.class_index(class);
        // a switch's shared buffer (its ports have no limits of their own) refuses like a full
        // class
        let class_full = s.classes[c].len() >= s.classes[c].limit_pkts || pool == Some(false);
        if s.classes[c].is_fq() {
            return Ok(self.enqueue_fq(now, pkt, c, class_full));
        }
        // a lossless class at a switch (PFC) is never dropped for lack of buffer: the switch
        // pauses the upstream port instead
        let bounded = s.lossless & (1u8 << class.min(7)) == 0;
        let result = self.screen(pkt, verdict, class_full, bounded);
        let Some(s) = self.sched.as_mut() else {
            unreachable!("Port::enqueue on a port without classes");
        };
        let cs = &mut s.classes[c].stats;
        cs.arrivals += 1;
        let marked = match result {
            Ok(m) => m,
            Err(reason) => {
                cs.drops += 1;
                return Err(reason);
            }
        };
        if marked {
            cs.marks += 1;
        }
        s.push(c, *pkt, now);
        s.note_len(c);
        self.grow_queue(now, pkt.size_bytes);
        Ok(marked)
    }

    /// FQ-CoDel's enqueue (RFC 8290 §4.1): the arrival joins its flow queue, then a full buffer
    /// (or class cap) drops from the head of the fattest flow queue, the arrival's own queue
    /// possibly; the dropped packets wait in `Sched::evicted` for the engine to record. Nothing
    /// is marked at enqueue.
    #[inline(never)]
    fn enqueue_fq(&mut self, now: SimTime, pkt: &Packet, c: usize, class_full: bool) -> bool {
        let size = pkt.size_bytes as u64;
        let over =
            self.q_pkts >= self.limit_pkts || self.q_bytes + size > self.limit_bytes || class_full;
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += size;
        let Some(s) = self.sched.as_mut() else {
            unreachable!("Port::enqueue on a port without classes");
        };
        s.classes[c].stats.arrivals += 1;
        s.push(c, *pkt, now);
        self.q_pkts += 1;
        self.q_bytes += size;
        if over {
            let (n, b) = s.evict_fattest(c);
            self.q_pkts -= n;
            self.q_bytes -= b;
            self.stats.drops_overflow += n as u64;
        }
        s.note_len(c);
        if self.q_pkts > self.stats.max_q_pkts {
            self.stats.max_q_pkts = self.q_pkts;
        }
        self.log_change(now);
        false
    }

    /// General path: when the link is free at `now` (its transmission ends by `now`, within
    /// `SIMULTANEOUS_PS`, as on the committed FIFO), start transmitting the packet the scheduler
    /// picks, at the end of the previous transmission or now. Returns it with its arrival time
    /// at the far end and the end of its transmission (an `Event::TxDone` then); None when the
    /// link is busy or nothing waits.
    pub fn start_next(&mut self, now: SimTime) -> Started {
        if self.busy_until.0 > now.0 + SIMULTANEOUS_PS {
            return Started::Busy;
        }
        let Some(s) = self.sched.as_mut() else {
            return Started::Busy;
        };
        let (c, mut q, marked) = match s.next(now) {
            Next::Idle => return Started::Busy,
            Next::Dropped(c, q) => {
                // a dequeue-time drop (CoDel): the packet leaves the queue without a transmission
                let bytes = q.pkt.size_bytes as u64;
                s.classes[c].stats.drops += 1;
                self.integrate(now);
                self.q_pkts -= 1;
                self.q_bytes -= bytes;
                self.stats.drops_aqm += 1;
                self.log_change(now);
                return Started::Dropped(q.pkt);
            }
            Next::Send(c, q, marked) => (c, q, marked),
        };
        let bytes = q.pkt.size_bytes as u64;
        let cs = &mut s.classes[c].stats;
        cs.tx_pkts += 1;
        cs.tx_bytes += bytes;
        cs.sojourn_ps += now.0.saturating_sub(q.since.0) as u128;
        if marked && !q.pkt.has(flags::CE) {
            q.pkt.flags |= flags::CE;
            cs.marks += 1;
            self.stats.marks += 1;
        }
        let start = if self.busy_until > now {
            self.busy_until
        } else {
            now
        };
        self.integrate(now);
        self.q_pkts -= 1;
        self.q_bytes -= bytes;
        self.stats.tx_pkts += 1;
        self.stats.tx_bytes += bytes;
        let end = start + self.ser.tx_time(q.pkt.size_bytes);
        self.busy_until = end;
        self.last_start = start;
        self.log_change(now);
        Started::Sent(q.pkt, end + self.delay, end, marked)
    }
}

/// What [`Port::nic_hold`] says about a host's next packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NicHold {
    /// Nothing waits: send now.
    Free,
    /// The committed FIFO holds a waiting packet whose transmission starts at this time: look
    /// again then.
    RetryAt(SimTime),
    /// A class queue holds a waiting packet or is paused: the port's next transmission end
    /// (`Event::TxDone`) or PFC resume wakes the sender.
    UntilWoken,
}

/// What [`Port::start_next`] did.
#[derive(Clone, Copy, Debug)]
pub enum Started {
    /// The link is busy, or nothing waits.
    Busy,
    /// The class's dequeue policy dropped this packet; call again.
    Dropped(Packet),
    /// This packet's transmission started: it arrives at the far end at the first time; the
    /// transmission ends at the second; `true` if the dequeue policy marked it.
    Sent(Packet, SimTime, SimTime, bool),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FlowId;

    /// What the general path reads per packet stays in the port's first 320 bytes (clocks,
    /// limits and the serializer, the counters next, the policy and the scheduler's head after
    /// them).
    #[test]
    fn the_per_packet_fields_fill_the_first_lines() {
        use std::mem::{offset_of, size_of};
        assert!(offset_of!(Port, int) < 112);
        let stats = offset_of!(Port, stats);
        assert!(stats + offset_of!(PortStats, max_q_pkts) + 4 <= 192);
        assert!(offset_of!(Port, aqm) + size_of::<Aqm>() <= 256);
        // Option<Sched> keeps Sched at offset 0 (its niche is the classes' pointer)
        assert!(offset_of!(Port, sched) + 32 <= 320);
        assert!(offset_of!(Port, waiting) >= 320);
    }

    /// The Vec-with-head FIFO behaves as a VecDeque under any mix of pushes, pops, removals
    /// from the middle and shifts of the tail (the committed FIFO's uses), and its memory stays
    /// bounded by its longest queue.
    #[test]
    fn fifo_matches_vecdeque() {
        use std::collections::VecDeque;
        let mut rnd = crate::rng::xorshift(0x2545_F491_4F6C_DD1D);
        let mut f: Fifo<u64> = Fifo::default();
        let mut d: VecDeque<u64> = VecDeque::new();
        let mut longest = 0;
        for i in 0..200_000u64 {
            match rnd(10) {
                0..=4 => {
                    f.push_back(i);
                    d.push_back(i);
                }
                5..=7 => assert_eq!(f.pop_front(), d.pop_front()),
                8 => {
                    // j past the end too: nothing is removed
                    let j = rnd(d.len() as u64 + 2) as usize;
                    let removed = d.remove(j);
                    assert_eq!(f.remove(j), removed);
                    if removed.is_some() {
                        // the later ones move up (as `Port::remove_waiting` shifts them)
                        assert_eq!(f.tail_mut(j).len(), d.len() - j);
                        for (a, b) in f.tail_mut(j).iter_mut().zip(d.range_mut(j..)) {
                            *a += 1;
                            *b += 1;
                        }
                    }
                }
                _ => {}
            }
            longest = longest.max(d.len());
            assert_eq!(f.front(), d.front());
            assert_eq!(f.back(), d.back());
            assert_eq!(f.v.len() - f.head, d.len());
        }
        assert!(
            f.v.capacity() <= 4 * longest.max(4),
            "{} > 4 x {longest}",
            f.v.capacity()
        );
    }

    fn pkt(flags: u8) -> Packet {
        Packet::data_probe(FlowId(0), 0, 1500, flags)
    }

    #[test]
    fn back_to_back_packets_leave_at_line_rate_and_the_queue_drains_on_time() {
        let mut p = Port::new(
            BitsPerSec(10_000_000_000),
            SimDuration(5_000_000),
            Some(3),
            None,
            Aqm::DropTail,
            Rng::stream(1, "p"),
        );
        let mut arr = vec![];
        for _ in 0..5 {
            arr.push(p.offer(SimTime(0), &mut pkt(0)));
        }
        // first goes on the wire, three wait, the fifth overflows
        assert_eq!(
            arr[0],
            Admit::Accepted {
                arrive_at: SimTime(1_200_000 + 5_000_000),
                marked: false,
                queued: false
            }
        );
        assert_eq!(
            arr[3],
            Admit::Accepted {
                arrive_at: SimTime(4 * 1_200_000 + 5_000_000),
                marked: false,
                queued: true
            }
        );
        assert_eq!(arr[4], Admit::Dropped(DropReason::Overflow));
        assert_eq!(p.queue().0, 3);
        p.advance(SimTime(1_200_000));
        assert_eq!(p.queue().0, 2);
        p.advance(SimTime(3_600_000));
        assert_eq!(p.queue().0, 0);
        // integral: 3 pkts for 1.2us, 2 for 1.2us, 1 for 1.2us = 6 * 1.2e6
        assert_eq!(p.stats.q_integral_pkt_ps, 6 * 1_200_000);
        assert_eq!(p.stats.tx_bytes, 4 * 1500);
    }

    #[test]
    fn an_arrival_at_the_start_of_a_transmission_sees_the_queue_after_it() {
        // 1000 B at 1.5 Mb/s = 5 333 333 333.3 ps, rounded down with the remainder carried: the
        // waiting packet starts at 5 333 333 333 ps, and an arrival that exact arithmetic puts at
        // that instant can come out a few ps to either side of it
        let full = |at_ps: u64| {
            let mut p = Port::new(
                BitsPerSec(1_500_000),
                SimDuration::ZERO,
                Some(1),
                None,
                Aqm::DropTail,
                Rng::stream(1, "p"),
            );
            for _ in 0..2 {
                // one on the wire, one waiting: full
                assert!(matches!(
                    p.offer(SimTime(0), &mut Packet::data_probe(FlowId(0), 0, 1000, 0)),
                    Admit::Accepted { .. }
                ));
            }
            p.offer(
                SimTime(at_ps),
                &mut Packet::data_probe(FlowId(0), 0, 1000, 0),
            )
        };
        let start = 5_333_333_333;
        // the waiting packet starts at `start`: an arrival then, or within SIMULTANEOUS_PS before
        // it, finds room; one a byte time earlier finds the queue full
        assert!(matches!(full(start), Admit::Accepted { .. }));
        assert!(matches!(
            full(start - SIMULTANEOUS_PS),
            Admit::Accepted { .. }
        ));
        assert_eq!(
            full(start - 5_333_333),
            Admit::Dropped(DropReason::Overflow)
        );
    }

    #[test]
    fn threshold_marks_ect_and_drops_non_ect_above_k() {
        use crate::aqm::{Threshold, ThresholdConfig};
        let cfg = ThresholdConfig {
            k_pkts: Some(1.0),
            k_bytes: None,
            mark_at_or_above: false,
        };
        let mut p = Port::new(
            BitsPerSec(1_000_000_000),
            SimDuration(0),
            None,
            None,
            Aqm::Threshold(Threshold::new(&cfg, 1500)),
            Rng::stream(1, "p"),
        );
        let r: Vec<Admit> = (0..4)
            .map(|_| p.offer(SimTime(0), &mut pkt(flags::ECT)))
            .collect();
        // queue seen: 0 (on wire), 0, 1, 2 -> only the last exceeds K = 1
        assert!(matches!(r[2], Admit::Accepted { marked: false, .. }));
        assert!(matches!(r[3], Admit::Accepted { marked: true, .. }));
        assert_eq!(
            p.offer(SimTime(0), &mut pkt(0)),
            Admit::Dropped(DropReason::Aqm)
        );
    }
}
