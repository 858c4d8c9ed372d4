//! Rate controllers from outside the engine (Python classes registered with
//! `ccscope.cc.register_cc(name, cls)` where `cls` is a `ccscope.cc.RateController`), chosen by
//! name in scenarios like the built-in reaction points (`flows.cc = "myrate"`).
//!
//! The engine knows them only through [`ExtRateController`] (the hooks of [`RateControl`]) and
//! [`ExtRateFactory`] (one controller per flow). A process-wide registry maps a name to an
//! [`ExtRateId`]; [`crate::cc::CcKind::ExtRate`] carries that id, so `CcKind` stays `Copy`, and
//! [`super::Rate::Ext`] holds the boxed controller (one more arm in the closed enum; the
//! built-in reaction points' dispatch is unchanged).
//!
//! The names share one namespace with the window controllers of [`crate::cc::ext`]: a name
//! registered as one kind cannot be registered as the other, and built-in names are refused.
//!
//! A controller cannot fail inside a hook: the bridge that implements [`ExtRateController`]
//! records the error (with the flow and the simulated time) where its driver looks between
//! chunks of events, and keeps the rate it had with its timer disarmed.

use super::{AckSample, Feedback, RateControl, RateProbe};
use crate::units::SimTime;
use std::sync::{Arc, RwLock};

/// Index of a registered rate controller in the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExtRateId(pub u16);

/// The hooks of an external rate controller: [`RateControl`]'s, with the same contract (lazy
/// timer deadlines: `on_timer` may be called before its deadline and must then do nothing).
pub trait ExtRateController: RateControl + Send + Sync + std::fmt::Debug {
    /// A second handle on the same controller.
    fn clone_box(&self) -> Box<dyn ExtRateController>;
}

/// What a rate controller is made from: the flow and its source.
#[derive(Clone, Copy, Debug)]
pub struct ExtRateFlow {
    /// The flow's index in the run (scenario flows first, then workload flows as they start).
    pub flow: u32,
    /// Seed of the flow's own random stream (from the scenario seed and the flow index).
    pub seed: u64,
    /// The source's line rate (its first hop), bits/s.
    pub line_rate_bps: f64,
    /// Data frame size, bytes (`packet_bytes`).
    pub packet_bytes: u32,
}

/// Makes one rate controller per flow.
pub trait ExtRateFactory: Send + Sync + std::fmt::Debug {
    fn make(&self, name: &'static str, f: &ExtRateFlow) -> Box<dyn ExtRateController>;
}

/// A registered rate controller: its name, its transport and its factory.
#[derive(Clone, Debug)]
pub struct ExtRateSpec {
    pub name: &'static str,
    /// The flow runs on the RDMA transport (`transport::rdma`: go-back-N, ACKs, NACKs, CNPs;
    /// the controller also gets `on_cnp`, `on_ack` and may cap the window), as the built-in
    /// `rdma` kind; false: a paced 802.1Qau source (feedback frames), as `qcn`.
    pub rdma: bool,
    pub factory: Arc<dyn ExtRateFactory>,
}

static REGISTRY: RwLock<Vec<ExtRateSpec>> = RwLock::new(Vec::new());

fn read() -> std::sync::RwLockReadGuard<'static, Vec<ExtRateSpec>> {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner())
}

/// Register (or replace, under the same id) a rate controller. Built-in names and names of
/// registered window controllers are refused.
pub fn register(spec: ExtRateSpec) -> Result<ExtRateId, String> {
    if let Some(k) = crate::cc::CcKind::builtin(spec.name) {
        return Err(format!(
            "cc name {:?} is a built-in controller ({}); choose another name",
            spec.name,
            k.name()
        ));
    }
    if crate::cc::ext::lookup(spec.name).is_some() {
        return Err(format!(
            "cc name {:?} is registered as a window controller; choose another name",
            spec.name
        ));
    }
    let ok = !spec.name.is_empty()
        && spec
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    if !ok {
        return Err(format!(
            "cc name {:?}: must be non-empty letters, digits, '_', '-' or '.'",
            spec.name
        ));
    }
    let mut r = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = r.iter().position(|s| s.name == spec.name) {
        r[i] = spec;
        return Ok(ExtRateId(i as u16));
    }
    if r.len() >= u16::MAX as usize {
        return Err("too many registered rate controllers".into());
    }
    r.push(spec);
    Ok(ExtRateId((r.len() - 1) as u16))
}

/// The id of a registered name.
pub fn lookup(name: &str) -> Option<ExtRateId> {
    read()
        .iter()
        .position(|s| s.name == name)
        .map(|i| ExtRateId(i as u16))
}

/// Registered names, in registration order.
pub fn names() -> Vec<&'static str> {
    read().iter().map(|s| s.name).collect()
}

/// The registered rate controller `id`.
pub fn spec(id: ExtRateId) -> ExtRateSpec {
    read()[id.0 as usize].clone()
}

/// An external rate controller in the closed enum [`super::Rate`].
#[derive(Debug)]
pub struct ExtRate {
    pub id: ExtRateId,
    pub name: &'static str,
    pub inner: Box<dyn ExtRateController>,
}

impl Clone for ExtRate {
    fn clone(&self) -> Self {
        ExtRate {
            id: self.id,
            name: self.name,
            inner: self.inner.clone_box(),
        }
    }
}

impl ExtRate {
    pub fn new(id: ExtRateId, f: &ExtRateFlow) -> Self {
        let s = spec(id);
        ExtRate {
            id,
            name: s.name,
            inner: s.factory.make(s.name, f),
        }
    }
}

impl RateControl for ExtRate {
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
        self.inner.on_feedback(now, fb)
    }
    fn on_bytes_sent(&mut self, now: SimTime, bytes: u32) {
        self.inner.on_bytes_sent(now, bytes)
    }
    fn on_timer(&mut self, now: SimTime) {
        self.inner.on_timer(now)
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        self.inner.poll_timeout()
    }
    fn rate_bps(&self) -> f64 {
        self.inner.rate_bps()
    }
    fn probe(&self, p: &mut RateProbe) {
        self.inner.probe(p)
    }
    fn on_cnp(&mut self, now: SimTime) {
        self.inner.on_cnp(now)
    }
    fn on_ack(&mut self, now: SimTime, ack: &AckSample) {
        self.inner.on_ack(now, ack)
    }
    fn window_bytes(&self) -> Option<u64> {
        self.inner.window_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{QcnRp, QcnRpConfig};
    use super::*;
    use crate::cc::CcKind;

    /// The built-in QCN reaction point behind the external interface.
    #[derive(Debug, Clone)]
    struct Wrapped(QcnRp);
    impl RateControl for Wrapped {
        fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
            self.0.on_feedback(now, fb)
        }
        fn on_bytes_sent(&mut self, now: SimTime, bytes: u32) {
            self.0.on_bytes_sent(now, bytes)
        }
        fn on_timer(&mut self, now: SimTime) {
            self.0.on_timer(now)
        }
        fn poll_timeout(&self) -> Option<SimTime> {
            self.0.poll_timeout()
        }
        fn rate_bps(&self) -> f64 {
            self.0.rate_bps()
        }
        fn probe(&self, p: &mut RateProbe) {
            self.0.probe(p)
        }
    }
    impl ExtRateController for Wrapped {
        fn clone_box(&self) -> Box<dyn ExtRateController> {
            Box::new(self.clone())
        }
    }
    #[derive(Debug)]
    struct Make;
    impl ExtRateFactory for Make {
        fn make(&self, _name: &'static str, f: &ExtRateFlow) -> Box<dyn ExtRateController> {
            Box::new(Wrapped(QcnRp::new(
                &QcnRpConfig::default(),
                f.line_rate_bps,
            )))
        }
    }
    fn spec(name: &str) -> ExtRateSpec {
        ExtRateSpec {
            name: crate::cc::ext::static_name(name),
            rdma: false,
            factory: Arc::new(Make),
        }
    }

    #[test]
    fn built_in_and_window_names_are_refused_and_unknown_names_list_rate_ones() {
        let e = register(spec("qcn")).unwrap_err();
        assert!(e.contains("built-in"), "{e}");
        assert!(register(spec("a b")).is_err());
        let id = register(spec("ext_test_qcn")).unwrap();
        assert_eq!(register(spec("ext_test_qcn")).unwrap(), id);
        assert_eq!(CcKind::from_name("ext_test_qcn"), Ok(CcKind::ExtRate(id)));
        assert_eq!(CcKind::ExtRate(id).name(), "ext_test_qcn");
        assert!(CcKind::ExtRate(id).is_rate_based());
        assert!(!CcKind::ExtRate(id).dctcp_echo());
        let e = CcKind::from_name("nope").unwrap_err();
        assert!(e.contains("`ext_test_qcn`"), "{e}");
    }

    /// A scenario naming the registered rate controller runs it: QCN behind the interface gives
    /// the built-in's run exactly (every table but the flows' names).
    #[test]
    fn a_registered_rate_controller_runs_a_scenario_like_the_built_in() {
        register(spec("ext_test_qcn2")).unwrap();
        let text = |cc: &str| {
            format!(
                "seed = 3\nuntil_s = 0.03\n[topology]\nkind = \"dumbbell\"\nbottleneck_bps = 1e9\nrtt_s = 12e-6\nbuffer_pkts = 87\n[aqm]\nkind = \"qcn\"\nq_eq_bytes = 7500\nsampling_p = 0.01\n[flows]\ncount = 4\ncc = \"{cc}\"\n"
            )
        };
        let run = |cc: &str| {
            let sc = crate::scenario::parse(&text(cc), crate::scenario::Format::Toml).unwrap();
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
        };
        let (a, b) = (run("ext_test_qcn2"), run("qcn"));
        for t in ["name: \"rate\"", "name: \"feedback\""] {
            assert!(b.2.contains(t), "the {t} table is compared");
        }
        assert_eq!(a, b);
    }
}
