//! Window congestion control: the hooks a TCP sender calls, in the spirit of Linux
//! `struct tcp_congestion_ops`. Loss and ECN detection stay in the transport; the controller
//! owns its window. Dispatch is a closed enum (no `Box<dyn>`, no allocation per event).
//!
//! Sans-IO: `now` is passed in; controllers never see the clock or the event queue.
//!
//! # Layout
//!
//! - [`CongestionControl`]: the hooks the transport calls; [`Cc`] (the closed enum) implements it
//!   by dispatching to its variant.
//! - [`RenoBased`] (`reno_based.rs`): default hooks for controllers on a [`RenoWindow`] (slow
//!   start, congestion avoidance, fast recovery, RTO, ECN halving, with the ns-2 options).
//!   The defaults *are* NewReno; a blanket impl makes every `RenoBased` type a
//!   `CongestionControl`.
//! - [`CcKind`] (`kind.rs`): the names scenarios use.

pub mod dctcp;
pub mod dx;
pub mod kind;
pub mod new_reno;
pub mod reno;
pub mod reno_based;

use crate::units::{SimDuration, SimTime};
pub use dctcp::{Dctcp, DctcpConfig};
pub use dx::{Dx, DxConfig};
pub use kind::CcKind;
pub use new_reno::NewReno;
pub use reno::{CaIncrease, RenoWindow};
pub use reno_based::RenoBased;

/// What the transport knows about one ACK, passed to [`CongestionControl::on_ack`].
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK (0 for a duplicate ACK).
    pub newly_acked_bytes: u64,
    /// The ACK carries ECN-Echo.
    pub ece: bool,
    /// RTT sample from this ACK (Karn's rule applied), if any.
    pub rtt: Option<SimDuration>,
    /// Cumulative ACK after this ACK, in segments.
    pub snd_una: u64,
    /// Next segment to be sent, in segments.
    pub snd_nxt: u64,
    /// The sender is in NewReno fast recovery (this ACK is a partial ACK if it acks data).
    pub in_recovery: bool,
    /// Bytes outstanding before this ACK.
    pub flight_bytes: u64,
}

/// A congestion signal the transport detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Congestion {
    /// Third duplicate ACK: entering NewReno fast recovery (RFC 6582).
    FastRetransmit,
    /// Retransmission timer expiry (RFC 6298).
    Timeout,
    /// ECN-Echo, at most once per window of data (RFC 3168 §6.1.2); only delivered to
    /// controllers whose `reacts_to_ecn_once_per_window()` is true.
    EcnEcho,
}

/// Snapshot of a controller for recorders.
#[derive(Clone, Copy, Debug, Default)]
pub struct CcProbe {
    pub cwnd_bytes: f64,
    pub ssthresh_bytes: f64,
    /// DCTCP's alpha (NaN for controllers without one).
    pub alpha: f64,
}

/// The hooks. Each has a one-line "called when".
pub trait CongestionControl {
    /// Called for every ACK that acknowledges new data (in or out of fast recovery).
    fn on_ack(&mut self, s: &AckSample);
    /// Called for every duplicate ACK (no new data acknowledged).
    fn on_dup_ack(&mut self, s: &AckSample);
    /// Called when the transport detects congestion of the given kind.
    fn on_congestion(&mut self, now: SimTime, kind: Congestion, flight_bytes: u64);
    /// Called when NewReno fast recovery ends with a full ACK.
    fn on_recovery_end(&mut self, flight_bytes: u64);
    /// The congestion window, bytes.
    fn cwnd_bytes(&self) -> f64;
    /// Whether data packets are sent ECN-capable (ECT).
    fn needs_ecn(&self) -> bool;
    /// Whether the transport should deliver [`Congestion::EcnEcho`] (once per window).
    fn reacts_to_ecn_once_per_window(&self) -> bool;
    /// Fill a snapshot for recorders.
    fn probe(&self, p: &mut CcProbe);
}

/// Closed set of window controllers, chosen by scenario name.
#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(NewReno),
    Dctcp(Dctcp),
    Dx(Dx),
}

/// Calls a [`CongestionControl`] hook on the variant (by path: the `RenoBased` hooks share the
/// names).
macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::NewReno($c) => $e,
            Cc::Dctcp($c) => $e,
            Cc::Dx($c) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, s: &AckSample) {
        dispatch!(self, c => CongestionControl::on_ack(c, s))
    }
    #[inline]
    fn on_dup_ack(&mut self, s: &AckSample) {
        dispatch!(self, c => CongestionControl::on_dup_ack(c, s))
    }
    fn on_congestion(&mut self, now: SimTime, kind: Congestion, flight_bytes: u64) {
        dispatch!(self, c => CongestionControl::on_congestion(c, now, kind, flight_bytes))
    }
    fn on_recovery_end(&mut self, flight_bytes: u64) {
        dispatch!(self, c => CongestionControl::on_recovery_end(c, flight_bytes))
    }
    #[inline]
    fn cwnd_bytes(&self) -> f64 {
        dispatch!(self, c => CongestionControl::cwnd_bytes(c))
    }
    fn needs_ecn(&self) -> bool {
        dispatch!(self, c => CongestionControl::needs_ecn(c))
    }
    fn reacts_to_ecn_once_per_window(&self) -> bool {
        dispatch!(self, c => CongestionControl::reacts_to_ecn_once_per_window(c))
    }
    fn probe(&self, p: &mut CcProbe) {
        dispatch!(self, c => CongestionControl::probe(c, p))
    }
}
