//! Controllers from outside the engine (Python classes registered with
//! `ccscope.cc.register_cc`), chosen by name in scenarios like a built-in.
//!
//! The engine knows them only through [`ExtController`] (the hooks, as [`CongestionControl`]'s)
//! and [`ExtFactory`] (one controller per flow). A process-wide registry maps a name to an
//! [`ExtId`]; [`super::CcKind::Ext`] carries that id, so `CcKind` stays `Copy` and the built-in
//! kinds' dispatch is unchanged (one more arm, boxed, in the closed enum [`super::Cc`]).
//!
//! A controller cannot fail inside a hook: the bridge that implements [`ExtController`] records
//! the error (with the flow and the simulated time) where its driver looks between chunks of
//! events, and keeps the window it had.
//!
//! ns-2 options (`tcp.ns2_*`) apply to the built-in NewReno and DCTCP only: an external
//! controller sees the RFC behaviour of the transport.

use super::{AckSample, CcProbe, Congestion, CongestionControl, RenoWindow};
use crate::units::SimTime;
use std::sync::{Arc, RwLock};

/// Index of a registered controller in the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExtId(pub u16);

/// The hooks of an external controller (see [`CongestionControl`] for when each is called).
pub trait ExtController: Send + Sync + std::fmt::Debug {
    fn on_ack(&mut self, s: &AckSample);
    fn on_dup_ack(&mut self, s: &AckSample);
    fn on_congestion(&mut self, now: SimTime, kind: Congestion, flight_bytes: u64);
    fn on_recovery_end(&mut self, now: SimTime, flight_bytes: u64);
    /// The window after the last hook, bytes (the bridge checked it: finite and > 0).
    fn cwnd_bytes(&self) -> f64;
    fn probe(&self, p: &mut CcProbe);
    /// A second handle on the same controller.
    fn clone_box(&self) -> Box<dyn ExtController>;
    /// The controller's own timer deadline, if armed: the engine reads it after every event of
    /// the flow's sender and schedules an event there (a lazy deadline, as a rate controller's
    /// [`crate::rate::RateControl::poll_timeout`]).
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    /// Called when the event scheduled at a `poll_timeout()` deadline fires; acts only if that
    /// deadline has passed (a deadline moved later makes the earlier event a no-op).
    fn on_timer(&mut self, _now: SimTime) {}
}

/// What a controller is made from: the flow and its TCP settings.
#[derive(Clone, Copy, Debug)]
pub struct ExtFlow {
    /// The flow's index in the run (scenario flows first, then workload flows as they start).
    pub flow: u32,
    /// Seed of the flow's own random stream (from the scenario seed and the flow index).
    pub seed: u64,
    pub mss_bytes: u32,
    pub iw_pkts: u32,
    pub dupack_threshold: u32,
    /// Slow-start growth limit per ACK, segments (2 with delayed ACKs, RFC 3465; else 1).
    pub ss_limit_pkts: f64,
}

/// Makes one controller per flow.
pub trait ExtFactory: Send + Sync + std::fmt::Debug {
    fn make(&self, name: &'static str, f: &ExtFlow) -> Box<dyn ExtController>;
}

/// A registered controller: its name, its static properties and its factory.
#[derive(Clone, Debug)]
pub struct ExtSpec {
    pub name: &'static str,
    /// Data packets are ECN-capable (ECT).
    pub ecn: bool,
    /// ECN-Echo reaches `on_congestion` at most once per window (RFC 3168); false: the
    /// controller sees every ECN-Echo in `on_ack` only.
    pub ecn_once_per_window: bool,
    /// The receiver echoes CE per packet with DCTCP's delayed-ACK state machine, and
    /// retransmissions stay ECT unless `tcp.ect_on_retransmissions` says otherwise.
    pub dctcp_echo: bool,
    pub factory: Arc<dyn ExtFactory>,
}

/// A process-wide registry of named specs, one per kind of external controller (window
/// controllers here, rate controllers in [`crate::rate::ext`]): registering a name again
/// replaces its spec under the same index; indices are u16 (the ids `CcKind` carries).
#[derive(Debug)]
pub(crate) struct Registry<T> {
    specs: RwLock<Vec<T>>,
    /// "controllers" or "rate controllers", for the error past u16::MAX entries.
    what: &'static str,
}

/// A spec with a name (what [`Registry`] keys on).
pub(crate) trait Named: Clone {
    fn name(&self) -> &'static str;
}

impl<T: Named> Registry<T> {
    pub(crate) const fn new(what: &'static str) -> Self {
        Registry {
            specs: RwLock::new(Vec::new()),
            what,
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<T>> {
        self.specs.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Register (or replace, under the same index) `spec`; the caller checked the name.
    pub(crate) fn register(&self, spec: T) -> Result<u16, String> {
        let mut r = self.specs.write().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = r.iter().position(|s| s.name() == spec.name()) {
            r[i] = spec;
            return Ok(i as u16);
        }
        if r.len() >= u16::MAX as usize {
            return Err(format!("too many registered {}", self.what));
        }
        r.push(spec);
        Ok((r.len() - 1) as u16)
    }

    /// The index of a registered name.
    pub(crate) fn lookup(&self, name: &str) -> Option<u16> {
        self.read()
            .iter()
            .position(|s| s.name() == name)
            .map(|i| i as u16)
    }

    /// Registered names, in registration order.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        self.read().iter().map(|s| s.name()).collect()
    }

    /// The spec at index `i` (an index from [`Self::register`]).
    pub(crate) fn spec(&self, i: u16) -> T {
        self.read()[i as usize].clone()
    }
}

impl Named for ExtSpec {
    fn name(&self) -> &'static str {
        self.name
    }
}

static REGISTRY: Registry<ExtSpec> = Registry::new("controllers");

/// Refuse a name a new controller may not take: a built-in kind's, one the other registry
/// (`other`: "window" or "rate") already holds, or one with characters a scenario cannot name.
pub(crate) fn check_new_name(name: &str, taken_by_other: bool, other: &str) -> Result<(), String> {
    if let Some(k) = super::CcKind::builtin(name) {
        return Err(format!(
            "cc name {:?} is a built-in controller ({}); choose another name",
            name,
            k.name()
        ));
    }
    if taken_by_other {
        return Err(format!(
            "cc name {name:?} is registered as a {other} controller; choose another name"
        ));
    }
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    if !ok {
        return Err(format!(
            "cc name {name:?}: must be non-empty letters, digits, '_', '-' or '.'"
        ));
    }
    Ok(())
}

/// Register (or replace, under the same id) a controller. Built-in names are refused.
pub fn register(spec: ExtSpec) -> Result<ExtId, String> {
    check_new_name(
        spec.name,
        crate::rate::ext::lookup(spec.name).is_some(),
        "rate",
    )?;
    REGISTRY.register(spec).map(ExtId)
}

/// The id of a registered name.
pub fn lookup(name: &str) -> Option<ExtId> {
    REGISTRY.lookup(name).map(ExtId)
}

/// Registered names, in registration order.
pub fn names() -> Vec<&'static str> {
    REGISTRY.names()
}

/// The registered controller `id`.
pub fn spec(id: ExtId) -> ExtSpec {
    REGISTRY.spec(id.0)
}

/// A leaked copy of `name` (names live as long as the process, as the registry).
pub fn static_name(name: &str) -> &'static str {
    if let Some(s) = REGISTRY.names().into_iter().find(|&s| s == name) {
        return s;
    }
    Box::leak(name.to_owned().into_boxed_str())
}

/// An external controller in the closed enum: the hooks go to the boxed controller; the
/// static properties are copied from the registry at creation.
#[derive(Debug)]
pub struct ExtCc {
    pub id: ExtId,
    pub name: &'static str,
    pub inner: Box<dyn ExtController>,
    /// The time of the engine's pending timer event for [`ExtController::poll_timeout`].
    pub timer_event: Option<SimTime>,
    ecn: bool,
    once_per_window: bool,
    /// Only for `Cc::window` (the ns-2 mechanisms of the transport, which are off for
    /// external controllers); never read by the hooks.
    w: RenoWindow,
}

impl Clone for ExtCc {
    fn clone(&self) -> Self {
        ExtCc {
            id: self.id,
            name: self.name,
            inner: self.inner.clone_box(),
            timer_event: self.timer_event,
            ecn: self.ecn,
            once_per_window: self.once_per_window,
            w: self.w,
        }
    }
}

impl ExtCc {
    pub fn new(id: ExtId, f: &ExtFlow) -> Self {
        let s = spec(id);
        let mut w = RenoWindow::new(f.mss_bytes, f.iw_pkts, 1.0);
        w.dupack_threshold = f.dupack_threshold;
        w.ecn = s.ecn;
        ExtCc {
            id,
            name: s.name,
            inner: s.factory.make(s.name, f),
            timer_event: None,
            ecn: s.ecn,
            once_per_window: s.ecn_once_per_window,
            w,
        }
    }
    pub fn window(&self) -> &RenoWindow {
        &self.w
    }
    pub fn window_mut(&mut self) -> &mut RenoWindow {
        &mut self.w
    }
}

/// The boxed form [`super::Cc::Ext`] holds.
impl CongestionControl for Box<ExtCc> {
    fn on_ack(&mut self, s: &AckSample) {
        self.inner.on_ack(s)
    }
    fn on_dup_ack(&mut self, s: &AckSample) {
        self.inner.on_dup_ack(s)
    }
    fn on_congestion(&mut self, now: SimTime, kind: Congestion, flight_bytes: u64) {
        self.inner.on_congestion(now, kind, flight_bytes)
    }
    fn on_recovery_end(&mut self, now: SimTime, flight_bytes: u64) {
        self.inner.on_recovery_end(now, flight_bytes)
    }
    fn cwnd_bytes(&self) -> f64 {
        self.inner.cwnd_bytes()
    }
    fn needs_ecn(&self) -> bool {
        self.ecn
    }
    fn reacts_to_ecn_once_per_window(&self) -> bool {
        self.once_per_window
    }
    fn probe(&self, p: &mut CcProbe) {
        self.inner.probe(p)
    }
}

/// A finished run of a TOML scenario as (events, ledger, every table but `flows`), for tests
/// that compare a controller behind the interface with its built-in twin (the flows table holds
/// the cc names, which differ).
#[cfg(test)]
pub(crate) fn run_fingerprint(text: &str) -> (u64, String, String) {
    let sc = crate::scenario::parse(text, crate::scenario::Format::Toml).unwrap();
    let mut sim = crate::Simulation::new(&sc, None).unwrap();
    let end = sim.end();
    sim.run_until(end);
    let out = sim.finish().unwrap();
    (
        out.events,
        format!("{:?}", out.ledger),
        format!(
            "{:?}",
            out.tables
                .iter()
                .filter(|t| t.name != "flows")
                .collect::<Vec<_>>()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::{CcKind, CongestionControl, NewReno};
    use super::*;

    /// NewReno behind the external interface.
    #[derive(Debug, Clone)]
    struct Wrapped(NewReno);
    impl ExtController for Wrapped {
        fn on_ack(&mut self, s: &AckSample) {
            CongestionControl::on_ack(&mut self.0, s)
        }
        fn on_dup_ack(&mut self, s: &AckSample) {
            CongestionControl::on_dup_ack(&mut self.0, s)
        }
        fn on_congestion(&mut self, now: SimTime, kind: Congestion, flight_bytes: u64) {
            CongestionControl::on_congestion(&mut self.0, now, kind, flight_bytes)
        }
        fn on_recovery_end(&mut self, now: SimTime, flight_bytes: u64) {
            CongestionControl::on_recovery_end(&mut self.0, now, flight_bytes)
        }
        fn cwnd_bytes(&self) -> f64 {
            CongestionControl::cwnd_bytes(&self.0)
        }
        fn probe(&self, p: &mut CcProbe) {
            CongestionControl::probe(&self.0, p)
        }
        fn clone_box(&self) -> Box<dyn ExtController> {
            Box::new(self.clone())
        }
    }
    #[derive(Debug)]
    struct Make;
    impl ExtFactory for Make {
        fn make(&self, _name: &'static str, f: &ExtFlow) -> Box<dyn ExtController> {
            Box::new(Wrapped(NewReno::new(
                f.mss_bytes,
                f.iw_pkts,
                false,
                f.dupack_threshold,
            )))
        }
    }
    fn spec(name: &str) -> ExtSpec {
        ExtSpec {
            name: static_name(name),
            ecn: false,
            ecn_once_per_window: true,
            dctcp_echo: false,
            factory: Arc::new(Make),
        }
    }

    #[test]
    fn built_in_names_are_refused_and_unknown_names_list_both_kinds() {
        let e = register(spec("dctcp")).unwrap_err();
        assert!(e.contains("built-in"), "{e}");
        assert!(register(spec("a b")).is_err());
        let id = register(spec("ext_test_reno")).unwrap();
        assert_eq!(
            register(spec("ext_test_reno")).unwrap(),
            id,
            "same name, same id"
        );
        assert_eq!(CcKind::from_name("ext_test_reno"), Ok(CcKind::Ext(id)));
        assert_eq!(CcKind::Ext(id).name(), "ext_test_reno");
        let e = CcKind::from_name("bbr").unwrap_err();
        assert!(
            e.starts_with("unknown variant `bbr`, expected one of `new_reno`"),
            "{e}"
        );
        assert!(e.contains("`ext_test_reno`"), "{e}");
    }

    /// A scenario naming the registered controller runs it: NewReno behind the interface gives
    /// the built-in's run exactly.
    #[test]
    fn a_registered_controller_runs_a_scenario_like_the_built_in() {
        register(spec("ext_test_reno2")).unwrap();
        let text = |cc: &str| {
            format!(
                "seed = 1\nuntil_s = 0.02\n[topology]\nkind = \"dumbbell\"\nbottleneck_bps = 1e9\nrtt_s = 100e-6\nbuffer_pkts = 30\n[flows]\ncount = 2\ncc = \"{cc}\"\n"
            )
        };
        let run = |cc: &str| crate::cc::ext::run_fingerprint(&text(cc));
        assert_eq!(run("ext_test_reno2"), run("new_reno"));
    }
}
