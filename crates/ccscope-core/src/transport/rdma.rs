//! RDMA-style transport (RoCEv2 reliable connection, simplified): message flows paced at the
//! controller's rate from line rate (no slow start, no window unless the controller has one),
//! go-back-N loss recovery, cumulative ACKs every `ack_every` packets, and the DCQCN
//! notification point (NP) at the receiver. Sans-IO: both halves take `now` and packet fields
//! and say what to send; `sim::hosts` puts it on the wire.
//!
//! - **Receiver** ([`RdmaReceiver::on_data`]): accepts only the expected segment. An
//!   out-of-order segment is discarded and answered by a NACK carrying the expected segment,
//!   once per expected segment (a RoCE NIC's "NAK sequence error" is sent once until the gap is
//!   filled, not once per discarded packet; htsim's `RoceSink` sends one per packet). A
//!   duplicate (a segment below the expected one, after a rewind went further back than
//!   needed) is answered by an immediate cumulative ACK. In-order segments are acknowledged
//!   cumulatively every `ack_every` segments and at the last one.
//! - **Notification point** (DCQCN, Zhu et al. SIGCOMM 2015 §3.1 "NP algorithm"): a CE-marked
//!   data packet makes the receiver send a CNP to the source, at most one per flow per
//!   `cnp_interval_s` (the paper's N = 50 us).
//! - **Sender** ([`RdmaSender`]): sends segment `next_seq` when the pacer and the controller's
//!   window allow; a NACK(s) acknowledges everything below s and rewinds `next_seq` to s; the
//!   retransmission timer (restarted on every ACK that advances, armed while data is
//!   outstanding) rewinds `next_seq` to `snd_una`.
//!
//! Sequence numbers count segments (MSS-sized; the last one of a message may be shorter).
//! ACKs, NACKs and CNPs travel in the flow's ACK class (`tcp.ack_class`, else the data class).

use crate::error::ScenarioError;
use crate::units::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The IBTA "Local ACK Timeout" of a queue pair is 4.096 us x 2^timeout; 14 is the value
/// perftest (`ib_write_bw --qp-timeout`, default 14) and most RoCE deployments use:
/// 4.096e-6 x 16384 = 67.108864 ms.
pub const IBTA_LOCAL_ACK_TIMEOUT_14_S: f64 = 4.096e-6 * 16384.0;

fn d_rto() -> f64 {
    IBTA_LOCAL_ACK_TIMEOUT_14_S
}
fn d_ack_every() -> u32 {
    1
}
fn d_cnp_interval() -> f64 {
    50e-6
}

/// Options of the RDMA transport (flows with cc = "rdma" or "dcqcn").
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RdmaConfig {
    /// Retransmission timeout, seconds (> 0): with data outstanding and no ACK advancing for
    /// this long, the sender goes back to the first unacknowledged segment. Default 0.067108864
    /// (IBTA Local ACK Timeout 4.096 us x 2^14, perftest's default timeout 14).
    #[serde(default = "d_rto")]
    pub rto_s: f64,
    /// The receiver sends a cumulative ACK every this many in-order segments (>= 1; and at the
    /// last segment of a message). Default 1.
    #[serde(default = "d_ack_every")]
    pub ack_every: u32,
    /// DCQCN notification point: at most one CNP per flow per this interval, seconds (> 0).
    /// Default 50e-6 (Zhu et al. SIGCOMM 2015 §3.1, N = 50 us; `tau_s` of the fluid model).
    #[serde(default = "d_cnp_interval")]
    pub cnp_interval_s: f64,
}

impl Default for RdmaConfig {
    fn default() -> Self {
        RdmaConfig {
            rto_s: d_rto(),
            ack_every: d_ack_every(),
            cnp_interval_s: d_cnp_interval(),
        }
    }
}

/// Largest accepted `ack_every` (an ACK per million segments is already no feedback at all).
pub const MAX_ACK_EVERY: u32 = 1_000_000;

impl RdmaConfig {
    /// Range checks; `path` is the section's name (`"rdma"`).
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let time = |field: &str, v: f64| -> Result<(), ScenarioError> {
            if !(1e-12..=crate::scenario::MAX_TIME_S).contains(&v) {
                return Err(ScenarioError::new(
                    format!("{path}.{field}"),
                    crate::scenario::fmt_f(v),
                    format!(
                        "must be a time > 0 s (at least 1e-12 s, at most {} s)",
                        crate::scenario::MAX_TIME_S
                    ),
                ));
            }
            Ok(())
        };
        time("rto_s", self.rto_s)?;
        if !(1..=MAX_ACK_EVERY).contains(&self.ack_every) {
            return Err(ScenarioError::new(
                format!("{path}.ack_every"),
                self.ack_every,
                format!("must be between 1 and {MAX_ACK_EVERY} segments"),
            ));
        }
        time("cnp_interval_s", self.cnp_interval_s)?;
        Ok(())
    }
}

/// Counters of one RDMA flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RdmaStats {
    /// Data segments put on the wire (retransmissions included).
    pub sent: u64,
    /// Segments sent again (below the highest sent).
    pub retransmits: u64,
    /// NACKs received by the sender.
    pub nacks: u64,
    /// Retransmission-timer expiries.
    pub timeouts: u64,
    /// CNPs received by the sender.
    pub cnps: u64,
    /// ACKs received that echo a CE mark.
    pub ece_acks: u64,
}

/// The sending half: go-back-N over segment numbers.
#[derive(Clone, Debug)]
pub struct RdmaSender {
    mss: u32,
    total_segs: u64,
    last_seg_bytes: u32,
    /// First unacknowledged segment.
    pub snd_una: u64,
    /// Next segment to send (moves back on NACK and timeout).
    pub next_seq: u64,
    /// One past the highest segment sent so far.
    pub high_tx: u64,
    rto: SimDuration,
    rto_deadline: Option<SimTime>,
    /// When an ACK (or NACK) first acknowledged every segment: the sender-side end of the
    /// message (the `flows` table's `fct_sender_s`); None until then and for an unbounded one.
    pub done_at: Option<SimTime>,
    pub stats: RdmaStats,
}

/// One segment to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RdmaSegment {
    pub seq: u64,
    pub bytes: u32,
    /// Sent before (a go-back-N resend).
    pub retx: bool,
}

impl RdmaSender {
    /// A sender of `size_bytes` (None: unbounded) in `mss`-byte segments.
    pub fn new(cfg: &RdmaConfig, size_bytes: Option<u64>, mss: u32) -> Self {
        let (total_segs, last) = match size_bytes {
            None => (u64::MAX, mss),
            Some(b) => {
                let n = b.div_ceil(mss as u64).max(1);
                (n, (b - (n - 1) * mss as u64).max(1) as u32)
            }
        };
        RdmaSender {
            mss,
            total_segs,
            last_seg_bytes: last,
            snd_una: 0,
            next_seq: 0,
            high_tx: 0,
            rto: SimDuration::from_secs_f64(cfg.rto_s).max(SimDuration(1)),
            rto_deadline: None,
            done_at: None,
            stats: RdmaStats::default(),
        }
    }

    /// Segments of the message (u64::MAX: unbounded).
    pub fn total_segments(&self) -> u64 {
        self.total_segs
    }

    /// Wire size of segment `seq`.
    pub fn seg_bytes(&self, seq: u64) -> u32 {
        if seq + 1 == self.total_segs {
            self.last_seg_bytes
        } else {
            self.mss
        }
    }

    /// Bytes sent and not yet acknowledged, counted from `snd_una` to `next_seq` (after a
    /// rewind, what will be sent again is not in flight).
    pub fn in_flight_bytes(&self) -> u64 {
        self.next_seq.saturating_sub(self.snd_una) * self.mss as u64
    }

    /// A segment is waiting to be sent and the window (`window_bytes`, if any) has room.
    pub fn may_send(&self, window_bytes: Option<u64>) -> bool {
        self.next_seq < self.total_segs && window_bytes.is_none_or(|w| self.in_flight_bytes() < w)
    }

    /// Every segment is acknowledged.
    pub fn done(&self) -> bool {
        self.snd_una >= self.total_segs
    }

    /// Take the next segment (call only when [`Self::may_send`]); arms the timer if idle.
    pub fn on_send(&mut self, now: SimTime) -> RdmaSegment {
        let seq = self.next_seq;
        let retx = seq < self.high_tx;
        self.next_seq += 1;
        self.high_tx = self.high_tx.max(self.next_seq);
        self.stats.sent += 1;
        if retx {
            self.stats.retransmits += 1;
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto);
        }
        RdmaSegment {
            seq,
            bytes: self.seg_bytes(seq),
            retx,
        }
    }

    /// A cumulative ACK: everything below `ackno` has arrived. Returns the bytes newly
    /// acknowledged (0 for an old or duplicate ACK).
    pub fn on_ack(&mut self, now: SimTime, ackno: u64) -> u64 {
        let ackno = ackno.min(self.high_tx);
        if ackno <= self.snd_una {
            return 0;
        }
        let acked: u64 = if ackno == self.total_segs {
            (ackno - self.snd_una - 1) * self.mss as u64 + self.last_seg_bytes as u64
        } else {
            (ackno - self.snd_una) * self.mss as u64
        };
        self.snd_una = ackno;
        if self.next_seq < ackno {
            self.next_seq = ackno;
        }
        if self.snd_una >= self.total_segs && self.done_at.is_none() {
            self.done_at = Some(now);
        }
        self.rto_deadline = (self.snd_una < self.high_tx).then(|| now + self.rto);
        acked
    }

    /// A NACK: everything below `expected` has arrived and the receiver discarded what came
    /// after a gap at `expected`: go back to it. Returns the bytes newly acknowledged.
    pub fn on_nack(&mut self, now: SimTime, expected: u64) -> u64 {
        self.stats.nacks += 1;
        let acked = self.on_ack(now, expected);
        let expected = expected.min(self.high_tx);
        if expected < self.next_seq {
            self.next_seq = expected.max(self.snd_una);
        }
        if self.rto_deadline.is_none() && self.snd_una < self.high_tx {
            self.rto_deadline = Some(now + self.rto);
        }
        acked
    }

    /// The retransmission timer's deadline, if armed.
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_deadline
    }

    /// The timer's event fired at `now`: if the deadline has passed with data outstanding, go
    /// back to `snd_una` (returns true) and restart the timer.
    pub fn on_timer(&mut self, now: SimTime) -> bool {
        match self.rto_deadline {
            Some(d) if now >= d => {
                if self.snd_una < self.high_tx {
                    self.stats.timeouts += 1;
                    self.next_seq = self.snd_una;
                    self.rto_deadline = Some(now + self.rto);
                    true
                } else {
                    self.rto_deadline = None;
                    false
                }
            }
            _ => false,
        }
    }

    /// The flow stops taking new data: the message ends after what has been sent (at least
    /// one segment). Returns the new segment count.
    pub fn stop(&mut self) -> u64 {
        let n = self.high_tx.max(1).min(self.total_segs);
        if n < self.total_segs {
            self.total_segs = n;
            self.last_seg_bytes = self.mss;
        }
        self.total_segs
    }
}

/// What the receiver sends back for one data packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxOut {
    /// The packet was the expected one (it is delivered).
    pub accepted: bool,
    /// Send a cumulative ACK with this number.
    pub ack: Option<u64>,
    /// Send a NACK with this (expected) number.
    pub nack: Option<u64>,
    /// Send a CNP (the packet was CE-marked and the CNP interval has passed).
    pub cnp: bool,
}

/// The receiving half: go-back-N acceptance and the DCQCN notification point.
#[derive(Clone, Debug)]
pub struct RdmaReceiver {
    /// Next segment expected.
    pub expected: u64,
    total_segs: u64,
    ack_every: u32,
    since_ack: u32,
    /// The expected segment a NACK was last sent for.
    nacked: Option<u64>,
    cnp_interval: SimDuration,
    last_cnp: Option<SimTime>,
    /// NACKs sent.
    pub nacks_sent: u64,
    /// CNPs sent.
    pub cnps_sent: u64,
    /// Out-of-order and duplicate segments discarded.
    pub discarded: u64,
}

impl RdmaReceiver {
    pub fn new(cfg: &RdmaConfig, total_segs: u64) -> Self {
        RdmaReceiver {
            expected: 0,
            total_segs,
            ack_every: cfg.ack_every.max(1),
            since_ack: 0,
            nacked: None,
            cnp_interval: SimDuration::from_secs_f64(cfg.cnp_interval_s),
            last_cnp: None,
            nacks_sent: 0,
            cnps_sent: 0,
            discarded: 0,
        }
    }

    /// The message has `n` segments (a flow stopped early).
    pub fn set_total_segments(&mut self, n: u64) {
        self.total_segs = n;
    }

    /// A data packet with segment number `seq` arrives at `now`, CE-marked or not.
    pub fn on_data(&mut self, now: SimTime, seq: u64, ce: bool) -> RxOut {
        let mut out = RxOut::default();
        if ce && self.last_cnp.is_none_or(|t| now >= t + self.cnp_interval) {
            self.last_cnp = Some(now);
            self.cnps_sent += 1;
            out.cnp = true;
        }
        if seq == self.expected {
            self.expected += 1;
            out.accepted = true;
            self.since_ack += 1;
            if self.since_ack >= self.ack_every || self.expected >= self.total_segs {
                self.since_ack = 0;
                out.ack = Some(self.expected);
            }
        } else if seq > self.expected {
            self.discarded += 1;
            if self.nacked != Some(self.expected) {
                self.nacked = Some(self.expected);
                self.nacks_sent += 1;
                out.nack = Some(self.expected);
            }
        } else {
            self.discarded += 1;
            self.since_ack = 0;
            out.ack = Some(self.expected);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000_000;

    fn cfg() -> RdmaConfig {
        RdmaConfig {
            rto_s: 100e-6,
            ..Default::default()
        }
    }

    #[test]
    fn defaults_are_the_cited_values() {
        let c = RdmaConfig::default();
        assert!((c.rto_s - 0.067108864).abs() < 1e-12);
        assert_eq!(c.ack_every, 1);
        assert_eq!(c.cnp_interval_s, 50e-6);
        c.validate("rdma").unwrap();
    }

    #[test]
    fn validation_names_the_field_the_value_and_the_range() {
        let bad = RdmaConfig {
            cnp_interval_s: 0.0,
            ..Default::default()
        };
        let e = bad.validate("rdma").unwrap_err().to_string();
        assert!(
            e.starts_with("rdma.cnp_interval_s = 0: must be a time > 0 s"),
            "{e}"
        );
        let bad = RdmaConfig {
            ack_every: 0,
            ..Default::default()
        };
        let e = bad.validate("rdma").unwrap_err().to_string();
        assert!(
            e.starts_with("rdma.ack_every = 0: must be between 1"),
            "{e}"
        );
        let bad = RdmaConfig {
            rto_s: f64::NAN,
            ..Default::default()
        };
        assert!(bad
            .validate("rdma")
            .unwrap_err()
            .to_string()
            .starts_with("rdma.rto_s"));
    }

    #[test]
    fn receiver_accepts_only_the_expected_segment_and_nacks_once_per_gap() {
        let mut rx = RdmaReceiver::new(&cfg(), 100);
        assert_eq!(rx.on_data(SimTime(0), 0, false).ack, Some(1));
        // segment 1 lost: 2, 3, 4 are discarded, one NACK(1) only
        let o = rx.on_data(SimTime(1), 2, false);
        assert_eq!((o.accepted, o.nack, o.ack), (false, Some(1), None));
        for s in [3, 4] {
            let o = rx.on_data(SimTime(2), s, false);
            assert_eq!((o.accepted, o.nack, o.ack), (false, None, None));
        }
        assert_eq!(rx.nacks_sent, 1);
        // the resend of 1 fills the gap; a later gap gets its own NACK
        assert_eq!(rx.on_data(SimTime(3), 1, false).ack, Some(2));
        assert_eq!(rx.on_data(SimTime(4), 3, false).nack, Some(2));
        assert_eq!(rx.nacks_sent, 2);
        // a duplicate is answered by a cumulative ACK
        let o = rx.on_data(SimTime(5), 0, false);
        assert_eq!((o.accepted, o.ack), (false, Some(2)));
        assert_eq!(rx.expected, 2);
    }

    #[test]
    fn ack_every_n_and_at_the_last_segment() {
        let c = RdmaConfig {
            ack_every: 4,
            ..cfg()
        };
        let mut rx = RdmaReceiver::new(&c, 6);
        let acks: Vec<Option<u64>> = (0..6)
            .map(|s| rx.on_data(SimTime(0), s, false).ack)
            .collect();
        assert_eq!(acks, vec![None, None, None, Some(4), None, Some(6)]);
    }

    #[test]
    fn at_most_one_cnp_per_interval() {
        let mut rx = RdmaReceiver::new(&cfg(), u64::MAX);
        let mut cnps = Vec::new();
        // a CE mark every 10 us for 200 us: CNPs at 0, 50, 100, 150 us
        for i in 0..20u64 {
            if rx.on_data(SimTime(i * 10 * US), i, true).cnp {
                cnps.push(i * 10);
            }
        }
        assert_eq!(cnps, vec![0, 50, 100, 150]);
        assert_eq!(rx.cnps_sent, 4);
        // unmarked packets never send one
        assert!(!rx.on_data(SimTime(10_000 * US), 20, false).cnp);
    }

    #[test]
    fn sender_goes_back_to_the_nacked_segment() {
        let mut tx = RdmaSender::new(&cfg(), Some(10 * 1000), 1000);
        for _ in 0..6 {
            assert!(tx.may_send(None));
            tx.on_send(SimTime(0));
        }
        assert_eq!(tx.on_ack(SimTime(1), 2), 2000);
        assert_eq!(tx.on_nack(SimTime(2), 3), 1000);
        assert_eq!((tx.snd_una, tx.next_seq, tx.high_tx), (3, 3, 6));
        let s = tx.on_send(SimTime(3));
        assert_eq!((s.seq, s.retx), (3, true));
        assert_eq!(tx.stats.retransmits, 1);
        // an ACK past next_seq (the receiver had more) moves next_seq up
        tx.on_ack(SimTime(4), 5);
        assert_eq!(tx.next_seq, 5);
    }

    #[test]
    fn timer_rewinds_to_snd_una_and_restarts_on_progress() {
        let mut tx = RdmaSender::new(&cfg(), Some(5000), 1000);
        for _ in 0..5 {
            tx.on_send(SimTime(0));
        }
        assert_eq!(tx.rto_deadline(), Some(SimTime(100 * US)));
        tx.on_ack(SimTime(50 * US), 2);
        assert_eq!(tx.rto_deadline(), Some(SimTime(150 * US)));
        assert!(
            !tx.on_timer(SimTime(100 * US)),
            "a moved deadline makes the early event a no-op"
        );
        assert!(tx.on_timer(SimTime(150 * US)));
        assert_eq!((tx.next_seq, tx.stats.timeouts), (2, 1));
        // everything acknowledged: the timer stops; the last segment's bytes count
        assert_eq!(tx.on_ack(SimTime(160 * US), 5), 3000);
        assert!(tx.done());
        assert_eq!(tx.rto_deadline(), None);
    }

    #[test]
    fn done_at_is_the_first_ack_or_nack_that_covers_the_last_segment() {
        let mut tx = RdmaSender::new(&cfg(), Some(3000), 1000);
        for _ in 0..3 {
            tx.on_send(SimTime(0));
        }
        tx.on_ack(SimTime(10), 2);
        assert_eq!(tx.done_at, None);
        tx.on_nack(SimTime(20), 3); // a NACK that acknowledges everything also ends it
        assert_eq!(tx.done_at, Some(SimTime(20)));
        tx.on_ack(SimTime(30), 3); // a later duplicate leaves the first time
        assert_eq!(tx.done_at, Some(SimTime(20)));
        // an unbounded sender never ends
        let mut u = RdmaSender::new(&cfg(), None, 1000);
        u.on_send(SimTime(0));
        u.on_ack(SimTime(1), 1);
        assert_eq!(u.done_at, None);
    }

    #[test]
    fn window_caps_bytes_in_flight() {
        let mut tx = RdmaSender::new(&cfg(), None, 1000);
        let w = Some(3000);
        let mut n = 0;
        while tx.may_send(w) {
            tx.on_send(SimTime(0));
            n += 1;
        }
        assert_eq!(n, 3);
        tx.on_ack(SimTime(1), 1);
        assert!(tx.may_send(w));
    }

    #[test]
    fn short_last_segment() {
        let tx = RdmaSender::new(&cfg(), Some(2500), 1000);
        assert_eq!(tx.total_segments(), 3);
        assert_eq!(tx.seg_bytes(2), 500);
        assert_eq!(tx.seg_bytes(1), 1000);
    }
}
