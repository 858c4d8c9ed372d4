//! CoDel, "Controlled Delay" (K. Nichols, V. Jacobson, A. McGregor, J. Iyengar, RFC 8289,
//! January 2018): a dequeue-time policy on a packet's sojourn time.
//!
//! The state machine is RFC 8289 §5's pseudocode (`dodequeue` and `dequeue`), restated per
//! dequeued packet so that a port's scheduler can ask it about each packet it takes:
//! - `dodequeue` (§5.5): a packet whose sojourn is below `target`, or that leaves at most one
//!   MTU queued, resets `first_above_time`; otherwise the first such packet sets
//!   `first_above_time = now + interval`, and a packet at or after that time is `ok_to_drop`.
//! - `dequeue` (§5.6): in the dropping state, a packet that is not `ok_to_drop` ends it; while
//!   `now >= drop_next` packets are dropped, `count` rises and `drop_next = control_law(drop_next,
//!   count)` once the next packet is also `ok_to_drop`. Outside it, an `ok_to_drop` packet is
//!   dropped, the state is entered, and the next packet is sent whatever it is; `count` restarts
//!   at 1, or at `count - lastcount` when the state was left less than 16 intervals ago and that
//!   difference exceeds 1.
//! - control law (§5.7): `t + interval / sqrt(count)`.
//!
//! Parameters (§4.2, §4.3): `target` 5 ms, `interval` 100 ms; MAXPACKET = the port's MTU (the
//! scenario's packet_bytes). With `ecn = true` an ECN-capable packet is marked instead of dropped,
//! as Linux's `codel ecn` option (tc-codel(8)) and ns-3's CoDelQueueDisc `UseEcn` do; the control
//! law counts a mark as it counts a drop.

use crate::units::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn d_target() -> f64 {
    0.005
}
fn d_interval() -> f64 {
    0.1
}

/// `aqm.kind = "codel"`: RFC 8289's parameters.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelConfig {
    /// Acceptable standing queue delay, seconds (> 0, < interval_s). Default 0.005 (RFC 8289 §4.3).
    #[serde(default = "d_target")]
    pub target_s: f64,
    /// Sliding window over which the minimum sojourn must stay above target before dropping starts, seconds (> target_s). Default 0.1 (RFC 8289 §4.2).
    #[serde(default = "d_interval")]
    pub interval_s: f64,
    /// Mark ECN-capable packets instead of dropping them. Default false.
    #[serde(default)]
    pub ecn: bool,
}

impl CodelConfig {
    /// The state machine's parameters at a port whose MTU is `mtu_bytes`.
    pub fn params(&self, mtu_bytes: u32) -> CodelParams {
        CodelParams {
            target: SimDuration::from_secs_f64(self.target_s),
            interval: SimDuration::from_secs_f64(self.interval_s),
            mtu_bytes: mtu_bytes as u64,
        }
    }
}

/// CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: SimDuration,
    pub interval: SimDuration,
    /// MAXPACKET, bytes: a queue of at most this much is never judged above target.
    pub mtu_bytes: u64,
}

/// What to do with a dequeued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dequeue {
    Send,
    /// Drop it (or mark it, for an ECN-capable packet when ECN is on).
    Drop,
}

/// CoDel's state at one queue.
#[derive(Clone, Debug)]
pub struct Codel {
    p: CodelParams,
    first_above_time: Option<SimTime>,
    drop_next: SimTime,
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// The packet after the one that entered the dropping state is sent whatever it is (§5.6:
    /// the entering branch returns it).
    entered: bool,
    /// A packet was dropped in the dropping state; `drop_next` moves on if the next packet is
    /// also `ok_to_drop` (§5.6's loop).
    advance_pending: bool,
}

impl Codel {
    pub fn new(p: CodelParams) -> Self {
        Codel {
            p,
            first_above_time: None,
            drop_next: SimTime::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
            entered: false,
            advance_pending: false,
        }
    }

    /// §5.7.
    fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        let d = self.p.interval.as_secs_f64() / (count.max(1) as f64).sqrt();
        t + SimDuration::from_secs_f64(d)
    }

    /// §5.5's `dodequeue` for a packet that waited `sojourn`, leaving `bytes_after` queued.
    fn ok_to_drop(&mut self, now: SimTime, sojourn: SimDuration, bytes_after: u64) -> bool {
        if sojourn < self.p.target || bytes_after <= self.p.mtu_bytes {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + self.p.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// The queue had nothing to send at `now` (§5.5, §5.6: an empty dequeue leaves the dropping
    /// state and resets `first_above_time`).
    pub fn on_empty(&mut self) {
        self.first_above_time = None;
        self.dropping = false;
        self.entered = false;
        self.advance_pending = false;
    }

    /// A packet dequeued at `now` after waiting `sojourn`, leaving `bytes_after` queued.
    pub fn on_dequeue(&mut self, now: SimTime, sojourn: SimDuration, bytes_after: u64) -> Dequeue {
        let ok = self.ok_to_drop(now, sojourn, bytes_after);
        if self.dropping {
            if self.entered {
                self.entered = false;
                return Dequeue::Send;
            }
            if !ok {
                self.dropping = false;
                self.advance_pending = false;
                return Dequeue::Send;
            }
            if self.advance_pending {
                self.drop_next = self.control_law(self.drop_next, self.count);
                self.advance_pending = false;
            }
            if now >= self.drop_next {
                self.count += 1;
                self.advance_pending = true;
                return Dequeue::Drop;
            }
            return Dequeue::Send;
        }
        if ok {
            self.dropping = true;
            self.entered = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            if delta > 1
                && delta < u32::MAX / 2
                && now < self.drop_next + SimDuration(self.p.interval.0 * 16)
            {
                self.count = delta;
            }
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
            return Dequeue::Drop;
        }
        Dequeue::Send
    }

    /// Drops (or marks) so far in the current or last dropping state.
    pub fn count(&self) -> u32 {
        self.count
    }
    pub fn dropping(&self) -> bool {
        self.dropping
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000_000;

    fn codel() -> Codel {
        Codel::new(CodelParams {
            target: SimDuration(5 * MS),
            interval: SimDuration(100 * MS),
            mtu_bytes: 1500,
        })
    }

    #[test]
    fn a_sojourn_below_target_or_a_short_queue_never_drops() {
        let mut c = codel();
        for i in 0..10_000u64 {
            let now = SimTime(i * MS);
            assert_eq!(
                c.on_dequeue(now, SimDuration(4 * MS), 1_000_000),
                Dequeue::Send
            );
            assert_eq!(c.on_dequeue(now, SimDuration(50 * MS), 1500), Dequeue::Send);
        }
    }

    /// A standing queue of 10 ms sojourn, one packet dequeued every 1 ms: the first packet above
    /// target starts the interval at t0; the first drop is the first dequeue at or after
    /// t0 + 100 ms; the k-th later drop follows the (k-1)-th by interval / sqrt(k) (§5.7's law
    /// with the count before it: 100, 70.7, 57.7 ... ms), each at the first dequeue at or after it.
    #[test]
    fn drops_start_one_interval_after_the_sojourn_rises_and_follow_the_control_law() {
        let mut c = codel();
        let mut drops = Vec::new();
        for i in 0..2000u64 {
            let now = SimTime(1000 * MS + i * MS);
            if c.on_dequeue(now, SimDuration(10 * MS), 100_000) == Dequeue::Drop {
                drops.push(now.0);
            }
        }
        assert_eq!(
            drops[0],
            1100 * MS,
            "first drop one interval after t0 = 1000 ms"
        );
        // drop_next moves by the law from the previous drop_next (not from the dequeue that
        // dropped): the k-th drop is the first dequeue at or after t1 + sum_{j<=k} 100/sqrt(j)
        let mut next = drops[0] as f64 / MS as f64;
        for (k, &d) in drops.iter().enumerate().skip(1) {
            next += 100.0 / (k as f64).sqrt();
            let at = d as f64 / MS as f64;
            assert!(
                at >= next - 1e-6 && at < next + 1.0,
                "drop {k} at {at} ms, control law {next} ms"
            );
        }
        assert!(drops.len() > 20);
        assert!(c.dropping());
    }

    #[test]
    fn a_sojourn_back_below_target_ends_the_dropping_state_and_a_quick_return_resumes_the_count() {
        let mut c = codel();
        let mut t = 0u64;
        let mut step = |c: &mut Codel, sojourn_ms: u64| {
            t += MS;
            c.on_dequeue(SimTime(t), SimDuration(sojourn_ms * MS), 100_000)
        };
        for _ in 0..400 {
            step(&mut c, 10);
        }
        assert!(c.dropping());
        let count = c.count();
        assert!(count > 3);
        assert_eq!(step(&mut c, 1), Dequeue::Send);
        assert!(!c.dropping());
        // back above target within 16 intervals: after one interval, the state is entered with
        // count = count - lastcount (lastcount was 1 at the last entry)
        // the first packet above target starts a new interval; 100 dequeues later it ends
        for _ in 0..100 {
            assert_eq!(step(&mut c, 10), Dequeue::Send);
        }
        assert_eq!(step(&mut c, 10), Dequeue::Drop);
        assert_eq!(c.count(), count - 1);
    }

    #[test]
    fn an_empty_queue_ends_the_dropping_state() {
        let mut c = codel();
        for i in 0..300u64 {
            c.on_dequeue(SimTime(i * MS), SimDuration(10 * MS), 100_000);
        }
        assert!(c.dropping());
        c.on_empty();
        assert!(!c.dropping());
        // and the next packet above target starts a new interval
        assert_eq!(
            c.on_dequeue(SimTime(301 * MS), SimDuration(10 * MS), 100_000),
            Dequeue::Send
        );
    }
}
