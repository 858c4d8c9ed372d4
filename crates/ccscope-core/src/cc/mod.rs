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
//! - [`Cc::new`] (`factory.rs`): kind + [`CcParams`] (the scenario's settings) -> controller.
//! - [`CcKind`] (`kind.rs`): the names scenarios use.
//! - [`ExtCc`] (`ext.rs`): controllers from outside the engine (Python classes registered with
//!   `ccscope.cc.register_cc`, or any [`ExtFactory`]), by name through a process-wide registry;
//!   [`Cc::Ext`] boxes them, so the built-ins' dispatch is unchanged. Tutorial:
//!   docs/extending.md.
//!
//! # Adding a window algorithm
//!
//! 1. Write the controller in its own file, `cc/my_cc.rs`: a struct holding a
//!    `pub w: RenoWindow` and its own state, and a constructor taking what it needs (its config,
//!    `mss_bytes`, `iw_pkts`, `dupack_threshold`; set `w.dupack_threshold`, and `w.ecn = true`
//!    if it sends ECN-capable packets).
//! 2. `impl RenoBased for MyCc`: `window` and `window_mut` (return `&self.w` / `&mut self.w`),
//!    then only the hooks that differ from NewReno. Usually `on_ack` (growth on a new ACK; call
//!    `self.w.deflate(..)` when `s.in_recovery`, as the default does), `on_ecn_echo` (the ECN cut),
//!    `reacts_to_ecn_once_per_window` (false to see every ECN-Echo ACK in `on_ack` instead) and
//!    `probe` (extra state for the recorders). Loss reaction: override `on_congestion`. The
//!    window pieces (`grow`, `slow_start`, `cong_avoid`, `enter_fast_recovery`, ...) are on
//!    [`RenoWindow`]. [`Dctcp`], [`Dx`], [`Cubic`] and [`Swift`] are worked examples; [`NewReno`] overrides nothing.
//! 3. Register it: `pub mod my_cc;` here, a variant `Cc::MyCc(MyCc)` of [`Cc`] and its arm in
//!    `dispatch!`, `Cc::window`/`Cc::window_mut` and `Cc::new` (factory.rs; add the algorithm's
//!    config to [`CcParams`] if it has one), and a [`CcKind`] variant with its `name()`
//!    (kind.rs). The compiler points at every `match` still missing an arm.
//! 4. Schema, docs and tests: the scenario schema takes the new name from [`CcKind`] (serde,
//!    schemars); a config section goes into `scenario/` beside `[dctcp]`/`[dx]` (with its
//!    validation) and is handed over in [`CcParams`]; list the name in the `cc` field docs
//!    (scenario/flows.rs) and docs/scenario.md; unit tests of the rules next to the controller
//!    (as in dctcp.rs), and a scenario test that runs it end to end.
//!
//! Hooks run once per ACK: keep them allocation-free, and mark them `#[inline]` as the
//! built-ins do.

pub mod cubic;
pub mod dctcp;
pub mod dx;
pub mod ext;
pub mod factory;
pub mod kind;
pub mod new_reno;
pub mod reno;
pub mod reno_based;
pub mod swift;

use crate::units::{SimDuration, SimTime};
pub use cubic::{Cubic, CubicConfig};
pub use dctcp::{Dctcp, DctcpConfig};
pub use dx::{Dx, DxConfig};
pub use ext::{ExtCc, ExtController, ExtFactory, ExtFlow, ExtId, ExtSpec};
pub use factory::CcParams;
pub use kind::CcKind;
pub use new_reno::NewReno;
pub use reno::{CaIncrease, RenoWindow};
pub use reno_based::RenoBased;
pub use swift::{Swift, SwiftConfig};

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
    fn on_recovery_end(&mut self, now: SimTime, flight_bytes: u64);
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
    Cubic(Cubic),
    Swift(Swift),
    // new-cc: Cc variants (`ccscope new-cc` inserts above this line)
    /// A registered external controller (`cc/ext.rs`; boxed: cold for the built-ins).
    Ext(Box<ExtCc>),
}

/// Calls a [`CongestionControl`] hook on the variant (by path: the `RenoBased` hooks share the
/// names).
macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::NewReno($c) => $e,
            Cc::Dctcp($c) => $e,
            Cc::Dx($c) => $e,
            Cc::Cubic($c) => $e,
            Cc::Swift($c) => $e,
            // new-cc: dispatch! arms (`ccscope new-cc` inserts above this line)
            Cc::Ext($c) => $e,
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
    fn on_recovery_end(&mut self, now: SimTime, flight_bytes: u64) {
        dispatch!(self, c => CongestionControl::on_recovery_end(c, now, flight_bytes))
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
