//! Rate control: the reaction points (RP) of the IEEE 802.1Qau framework (QCN, ASM).
//!
//! Place in the pipeline: a congestion point at a switch port ([`crate::aqm::qcn_cp`],
//! [`crate::aqm::asm_cp`]) samples arriving frames and returns a [`Feedback`]; the engine
//! carries it back to the sampled frame's source over the reverse path, where the source's
//! [`Rate`] turns it into a new sending rate for its rate-limited (paced, window-less)
//! sender. QCN's RP also raises the rate on its own, driven by a byte counter
//! ([`RateControl::on_bytes_sent`]) and a timer ([`RateControl::on_timer`]).
//!
//! Sources: P002 (ASM paper) §2.1, §2.3.1 eqs 4-8 (QCN), §4.1 eqs 11-12 and §4.3-§4.5 (ASM);
//! IEEE 802.1Qau and its MIB for the QCN defaults; ALGORITHMS.md §4 and §5.1.
//!
//! Sans-IO: `now` is passed in; a reaction point never reads a clock or touches the event
//! queue. Timers are *lazy deadlines*: [`RateControl::poll_timeout`] says when the RP wants
//! to be woken; the engine schedules one event at that time and calls
//! [`RateControl::on_timer`], which acts only if the deadline has passed (a deadline moved
//! later by a feedback frame makes the earlier event a no-op). After every hook the engine
//! re-reads `poll_timeout()` and schedules a new event if the deadline differs from the one
//! it has pending. Dispatch is a closed enum (no `Box<dyn>`, no allocation per event).

pub mod asm_rp;
pub mod dcqcn;
pub mod ext;
pub mod hpcc;
pub mod qcn_rp;
pub mod timely;

use crate::error::ScenarioError;
use crate::int::IntRecord;
use crate::units::{SimDuration, SimTime};
pub use asm_rp::{AsmGainSet, AsmGains, AsmRegion, AsmRp, AsmRpConfig, GainBranch};
pub use dcqcn::{DcqcnConfig, DcqcnPhase, DcqcnRp};
pub use hpcc::{Hpcc, HpccConfig, HpccStep};
pub use qcn_rp::{QcnPhase, QcnRp, QcnRpConfig};
pub use timely::{Timely, TimelyConfig};

/// What a congestion point tells a source. Small and `Copy` (8 bytes): it travels inside an
/// engine event like a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feedback {
    /// Congestion point id (the CP's port), used by ASM's CPID rule (P002 §4.5).
    pub cpid: u32,
    /// The algorithm-specific payload.
    pub kind: FeedbackKind,
}

/// The payload of a feedback frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeedbackKind {
    /// QCN congestion notification message (CNM): the 6-bit quantized |Fb|, 0..=63
    /// (ALGORITHMS.md §4.1; sent only when Fb < 0).
    Qcn {
        /// `min(63, floor(-Fb * 63 / (Qeq (2w + 1))))`.
        fb_q: u8,
    },
    /// ASM feedback (P002 §4.1): queue offset and queue change since the previous sample,
    /// carried separately, each quantized to a signed 8-bit value in units of the CP's quantum
    /// (1 packet by default, E36), saturating at ±[`ASM_FEEDBACK_MAX_UNITS`].
    Asm {
        /// `Qf = q - q0`, quantum units.
        qf: i8,
        /// `dQ = q - q_old`, quantum units.
        dq: i8,
    },
}

/// Largest QCN quantized feedback: 6 bits (IEEE 802.1Qau CNM `qntzFb`; ALGORITHMS.md §4.1).
pub const QCN_FB_MAX: u8 = 63;

/// Largest magnitude of ASM's quantized Qf and dQ: 8-bit signed, symmetric so that the sign
/// never changes the scale (P002 §5.1 "quantized into 8 bits"; symmetric range [CHOICE], E36).
pub const ASM_FEEDBACK_MAX_UNITS: i8 = 127;

/// Snapshot of a reaction point for recorders.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateProbe {
    /// Current sending rate (QCN CR, ASM r), bits/s.
    pub rate_bps: f64,
    /// QCN target rate TR, bits/s (NaN for ASM, which has none).
    pub target_rate_bps: f64,
    /// QCN byte-counter stage (0 for ASM).
    pub bc_stage: u32,
    /// QCN timer stage (0 for ASM).
    pub timer_stage: u32,
    /// The rate limiter is installed (QCN: since the first CNM, until released at line rate;
    /// ASM: always).
    pub active: bool,
    /// Feedback frames received so far.
    pub feedbacks: u64,
}

/// What an RDMA source learns from one ACK (`transport::rdma`), for controllers that act on
/// ACKs (TIMELY's RTT gradient, HPCC's per-ACK window). Small and `Copy`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AckSample {
    /// Bytes this ACK newly acknowledges (0 for a duplicate).
    pub acked_bytes: u64,
    /// Cumulative ACK: the next segment the receiver expects (everything below has arrived).
    pub ackno: u64,
    /// RTT sample: now minus the send time the ACK echoes (the data packet that caused it).
    pub rtt: SimDuration,
    /// The data packet that caused the ACK arrived CE-marked.
    pub ecn: bool,
    /// Segment number of the data packet that caused the ACK (`ackno - 1` for an ACK of an
    /// in-order packet; for a duplicate's ACK, the duplicate's own number is not carried and
    /// this is `ackno - 1` too).
    pub data_seq: u64,
}

/// The hooks of a reaction point. Each has a one-line "called when".
///
/// The RDMA transport (`transport::rdma`) adds hooks with default no-op bodies, so the
/// 802.1Qau reaction points (QCN, ASM) and the constant source ignore them: [`Self::on_cnp`],
/// [`Self::on_ack`], [`Self::window_bytes`], [`Self::on_int`], [`Self::on_nack`] and
/// [`Self::on_timeout`].
pub trait RateControl {
    /// Called when a feedback frame addressed to this source arrives (default: ignored).
    #[inline]
    fn on_feedback(&mut self, _now: SimTime, _fb: &Feedback) {}
    /// Called after the sender has put a data frame of `bytes` bytes on the wire (byte counter;
    /// default: nothing counted).
    #[inline]
    fn on_bytes_sent(&mut self, _now: SimTime, _bytes: u32) {}
    /// Called when the event scheduled at a `poll_timeout()` deadline fires; acts only if that
    /// deadline has passed (default: no timer).
    #[inline]
    fn on_timer(&mut self, _now: SimTime) {}
    /// The RP timer's deadline, if armed (the engine schedules an event there; default: none).
    #[inline]
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    /// The current sending rate, bits/s (in [MinRate, line rate]).
    fn rate_bps(&self) -> f64;
    /// Fill a snapshot for recorders.
    fn probe(&self, p: &mut RateProbe);
    /// Called when a congestion notification packet (DCQCN CNP) for this source arrives.
    fn on_cnp(&mut self, _now: SimTime) {}
    /// Called when an ACK of this RDMA source arrives (after the transport has processed it).
    fn on_ack(&mut self, _now: SimTime, _ack: &AckSample) {}
    /// A cap on the bytes in flight (sent, not yet acknowledged), if the controller has one
    /// (HPCC's window); None: paced by `rate_bps` alone.
    fn window_bytes(&self) -> Option<u64> {
        None
    }
    /// Called after [`Self::on_ack`] with the ACK's in-band telemetry (one record per INT port
    /// on the route, path order; only a complete list) for a controller that asks for it
    /// ([`ext::ExtRateSpec::int`]; the built-in HPCC is fed through `Hpcc::on_int_ack`).
    /// `snd_nxt`: the next segment the sender would send.
    fn on_int(&mut self, _now: SimTime, _ack: &AckSample, _snd_nxt: u64, _int: &[IntRecord]) {}
    /// Called when a NACK of this RDMA source arrives, after the transport went back to
    /// `expected` (the receiver's next expected segment; everything below it has arrived).
    fn on_nack(&mut self, _now: SimTime, _expected: u64) {}
    /// Called when this RDMA source's retransmission timer expired with data outstanding,
    /// after the transport went back to the first unacknowledged segment.
    fn on_timeout(&mut self, _now: SimTime) {}
}

/// Closed set of reaction points, chosen by scenario name (`"qcn"`, `"asm"`, `"cbr"`,
/// `"rdma"`, `"dcqcn"`, or a registered external controller's).
#[derive(Clone, Debug)]
pub enum Rate {
    /// IEEE 802.1Qau QCN reaction point.
    Qcn(QcnRp),
    /// ASM reaction point (P002).
    Asm(AsmRp),
    /// A constant-rate, unresponsive source (UDP-like; the CHOKe experiments' "bad" flow).
    Constant(ConstantRate),
    /// HPCC's window and pacing rate (boxed: it keeps the previous ACK's hop records).
    Hpcc(Box<Hpcc>),
    /// TIMELY (RTT gradient; on the RDMA transport's ACKs).
    Timely(Timely),
    /// DCQCN reaction point (Zhu et al. SIGCOMM 2015) of an RDMA source.
    Dcqcn(DcqcnRp),
    /// A registered external rate controller (`ccscope.cc.register_cc`; boxed: cold).
    Ext(Box<ext::ExtRate>),
}

/// Sends at a fixed rate and ignores every feedback.
#[derive(Clone, Copy, Debug)]
pub struct ConstantRate {
    pub rate_bps: f64,
}

impl RateControl for ConstantRate {
    fn rate_bps(&self) -> f64 {
        self.rate_bps
    }
    fn probe(&self, p: &mut RateProbe) {
        p.rate_bps = self.rate_bps;
        p.target_rate_bps = f64::NAN;
        p.active = true;
    }
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            Rate::Qcn($r) => $e,
            Rate::Asm($r) => $e,
            Rate::Constant($r) => $e,
            Rate::Hpcc($r) => $e,
            Rate::Timely($r) => $e,
            Rate::Dcqcn($r) => $e,
            Rate::Ext($r) => $e,
        }
    };
}

impl RateControl for Rate {
    #[inline]
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
        dispatch!(self, r => r.on_feedback(now, fb))
    }
    #[inline]
    fn on_bytes_sent(&mut self, now: SimTime, bytes: u32) {
        dispatch!(self, r => r.on_bytes_sent(now, bytes))
    }
    #[inline]
    fn on_timer(&mut self, now: SimTime) {
        dispatch!(self, r => r.on_timer(now))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<SimTime> {
        dispatch!(self, r => r.poll_timeout())
    }
    #[inline]
    fn rate_bps(&self) -> f64 {
        dispatch!(self, r => r.rate_bps())
    }
    fn probe(&self, p: &mut RateProbe) {
        dispatch!(self, r => r.probe(p))
    }
    #[inline]
    fn on_cnp(&mut self, now: SimTime) {
        dispatch!(self, r => r.on_cnp(now))
    }
    #[inline]
    fn on_ack(&mut self, now: SimTime, ack: &AckSample) {
        dispatch!(self, r => r.on_ack(now, ack))
    }
    #[inline]
    fn window_bytes(&self) -> Option<u64> {
        dispatch!(self, r => r.window_bytes())
    }
    #[inline]
    fn on_int(&mut self, now: SimTime, ack: &AckSample, snd_nxt: u64, int: &[IntRecord]) {
        dispatch!(self, r => r.on_int(now, ack, snd_nxt, int))
    }
    #[inline]
    fn on_nack(&mut self, now: SimTime, expected: u64) {
        dispatch!(self, r => r.on_nack(now, expected))
    }
    #[inline]
    fn on_timeout(&mut self, now: SimTime) {
        dispatch!(self, r => r.on_timeout(now))
    }
}

// ------------------------------------------------------------------ config validation helpers
// Shared by the RP configs here and the CP configs in `aqm/`; every error names the field path,
// the value and what is allowed (DESIGN.md conventions 6).

/// `v` finite and > 0.
pub(crate) fn check_pos(path: &str, field: &str, v: f64) -> Result<(), ScenarioError> {
    if !v.is_finite() || v <= 0.0 {
        return Err(ScenarioError::new(
            format!("{path}.{field}"),
            v,
            "must be a finite number > 0",
        ));
    }
    Ok(())
}

/// `v` finite and >= 0.
pub(crate) fn check_nonneg(path: &str, field: &str, v: f64) -> Result<(), ScenarioError> {
    if !v.is_finite() || v < 0.0 {
        return Err(ScenarioError::new(
            format!("{path}.{field}"),
            v,
            "must be a finite number >= 0",
        ));
    }
    Ok(())
}

/// `v` in (0, 1] (`lo_open`) or [0, 1].
pub(crate) fn check_unit(
    path: &str,
    field: &str,
    v: f64,
    lo_open: bool,
) -> Result<(), ScenarioError> {
    let ok = v.is_finite() && v <= 1.0 && if lo_open { v > 0.0 } else { v >= 0.0 };
    if !ok {
        let range = if lo_open { "in (0, 1]" } else { "in [0, 1]" };
        return Err(ScenarioError::new(
            format!("{path}.{field}"),
            v,
            format!("must be {range}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feedback_is_small_and_copy() {
        assert!(std::mem::size_of::<Feedback>() <= 8);
        let f = Feedback {
            cpid: 3,
            kind: FeedbackKind::Qcn { fb_q: 5 },
        };
        let g = f; // Copy
        assert_eq!(f, g);
    }

    #[test]
    fn enum_dispatch_reaches_each_reaction_point() {
        let line = 10e9;
        let mut q = Rate::Qcn(QcnRp::new(&QcnRpConfig::default(), line));
        let mut a = Rate::Asm(AsmRp::new(&AsmRpConfig::default(), line));
        assert_eq!(q.rate_bps(), line);
        assert_eq!(a.rate_bps(), line);
        q.on_feedback(
            SimTime(0),
            &Feedback {
                cpid: 1,
                kind: FeedbackKind::Qcn { fb_q: 63 },
            },
        );
        a.on_feedback(
            SimTime(0),
            &Feedback {
                cpid: 1,
                kind: FeedbackKind::Asm { qf: 10, dq: 0 },
            },
        );
        assert!(q.rate_bps() < line && a.rate_bps() < line);
        assert!(q.poll_timeout().is_some());
        assert!(a.poll_timeout().is_none());
        let mut p = RateProbe::default();
        q.probe(&mut p);
        assert_eq!(p.target_rate_bps, line);
        assert_eq!(p.feedbacks, 1);
        a.probe(&mut p);
        assert!(p.target_rate_bps.is_nan());
    }

    #[test]
    fn a_reaction_point_ignores_the_other_algorithms_feedback() {
        let line = 10e9;
        let mut q = QcnRp::new(&QcnRpConfig::default(), line);
        q.on_feedback(
            SimTime(0),
            &Feedback {
                cpid: 1,
                kind: FeedbackKind::Asm { qf: 100, dq: 100 },
            },
        );
        assert_eq!(q.rate_bps(), line);
        let mut a = AsmRp::new(&AsmRpConfig::default(), line);
        a.on_feedback(
            SimTime(0),
            &Feedback {
                cpid: 1,
                kind: FeedbackKind::Qcn { fb_q: 63 },
            },
        );
        assert_eq!(a.rate_bps(), line);
    }

    #[test]
    fn validation_names_the_field_and_the_range() {
        let e = check_unit("flows[0].qcn", "gd", 1.5, true).unwrap_err();
        assert_eq!(e.to_string(), "flows[0].qcn.gd = 1.5: must be in (0, 1]");
        assert!(check_pos("x", "y", f64::NAN).is_err());
        assert!(check_nonneg("x", "y", 0.0).is_ok());
    }
}

impl Feedback {
    /// Pack into a packet's 64-bit `seq` field: cpid (32 bits) | tag (8) | a (8) | b (8).
    pub fn encode(&self) -> u64 {
        let (tag, a, b) = match self.kind {
            FeedbackKind::Qcn { fb_q } => (1u64, fb_q, 0u8),
            FeedbackKind::Asm { qf, dq } => (2u64, qf as u8, dq as u8),
        };
        ((self.cpid as u64) << 32) | (tag << 16) | ((a as u64) << 8) | b as u64
    }
    /// Inverse of [`Feedback::encode`].
    pub fn decode(v: u64) -> Option<Feedback> {
        let cpid = (v >> 32) as u32;
        let a = ((v >> 8) & 0xff) as u8;
        let b = (v & 0xff) as u8;
        let kind = match (v >> 16) & 0xff {
            1 => FeedbackKind::Qcn { fb_q: a },
            2 => FeedbackKind::Asm {
                qf: a as i8,
                dq: b as i8,
            },
            _ => return None,
        };
        Some(Feedback { cpid, kind })
    }
}

#[cfg(test)]
mod encode_tests {
    use super::*;
    #[test]
    fn feedback_round_trips_through_a_packet_field() {
        for fb in [
            Feedback {
                cpid: 7,
                kind: FeedbackKind::Qcn { fb_q: 63 },
            },
            Feedback {
                cpid: u32::MAX,
                kind: FeedbackKind::Asm { qf: -127, dq: 5 },
            },
        ] {
            assert_eq!(Feedback::decode(fb.encode()), Some(fb));
        }
    }
}
