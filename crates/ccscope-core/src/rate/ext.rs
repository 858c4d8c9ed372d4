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
use crate::cc::ext::Registry;
use crate::int::IntRecord;
use crate::units::SimTime;
use std::sync::Arc;

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
    /// The flow's path RTT (propagation plus one data packet's and one ACK's serialization per
    /// hop; HPCC's default T), seconds, rounded to the picosecond; 0 when the path is unknown.
    pub base_rtt_s: f64,
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
    /// The controller reads in-band telemetry (RDMA only): the run stamps it (the `[int]`
    /// defaults when the scenario has no `[int]` table, as for the built-in `hpcc`) and the
    /// controller's [`RateControl::on_int`] gets each ACK's complete list.
    pub int: bool,
    pub factory: Arc<dyn ExtRateFactory>,
}

impl crate::cc::ext::Named for ExtRateSpec {
    fn name(&self) -> &'static str {
        self.name
    }
}

static REGISTRY: Registry<ExtRateSpec> = Registry::new("rate controllers");

/// Register (or replace, under the same id) a rate controller. Built-in names and names of
/// registered window controllers are refused.
pub fn register(spec: ExtRateSpec) -> Result<ExtRateId, String> {
    crate::cc::ext::check_new_name(
        spec.name,
        crate::cc::ext::lookup(spec.name).is_some(),
        "window",
    )?;
    REGISTRY.register(spec).map(ExtRateId)
}

/// The id of a registered name.
pub fn lookup(name: &str) -> Option<ExtRateId> {
    REGISTRY.lookup(name).map(ExtRateId)
}

/// Registered names, in registration order.
pub fn names() -> Vec<&'static str> {
    REGISTRY.names()
}

/// The registered rate controller `id`.
pub fn spec(id: ExtRateId) -> ExtRateSpec {
    REGISTRY.spec(id.0)
}

/// An external rate controller in the closed enum [`super::Rate`].
#[derive(Debug)]
pub struct ExtRate {
    pub id: ExtRateId,
    pub name: &'static str,
    /// The spec's `int`: the engine hands this controller each ACK's telemetry.
    pub int: bool,
    pub inner: Box<dyn ExtRateController>,
}

impl Clone for ExtRate {
    fn clone(&self) -> Self {
        ExtRate {
            id: self.id,
            name: self.name,
            int: self.int,
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
            int: s.int,
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
    fn on_int(&mut self, now: SimTime, ack: &AckSample, snd_nxt: u64, int: &[IntRecord]) {
        self.inner.on_int(now, ack, snd_nxt, int)
    }
    fn on_nack(&mut self, now: SimTime, expected: u64) {
        self.inner.on_nack(now, expected)
    }
    fn on_timeout(&mut self, now: SimTime) {
        self.inner.on_timeout(now)
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
            int: false,
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
        let run = |cc: &str| crate::cc::ext::run_fingerprint(&text(cc));
        let (a, b) = (run("ext_test_qcn2"), run("qcn"));
        for t in ["name: \"rate\"", "name: \"feedback\""] {
            assert!(b.2.contains(t), "the {t} table is compared");
        }
        assert_eq!(a, b);
    }

    /// (flow, 'n' for a NACK or 't' for a timeout, time, expected segment)
    type Log = Arc<std::sync::Mutex<Vec<(u32, char, SimTime, u64)>>>;

    /// An RDMA source whose AIMD loses packets now and then: it starts at 4 Gb/s, adds 1 Mb/s per
    /// ACK and drops to 3 Gb/s on a NACK; it logs every NACK and timeout it is told of.
    #[derive(Debug, Clone)]
    struct LossLog {
        rate: f64,
        line: f64,
        log: Log,
        flow: u32,
    }
    impl RateControl for LossLog {
        fn rate_bps(&self) -> f64 {
            self.rate
        }
        fn probe(&self, p: &mut RateProbe) {
            p.rate_bps = self.rate;
        }
        fn on_ack(&mut self, _now: SimTime, _ack: &AckSample) {
            self.rate = (self.rate + 1e6).min(self.line);
        }
        fn on_nack(&mut self, now: SimTime, expected: u64) {
            self.rate = 3e9;
            self.log
                .lock()
                .unwrap()
                .push((self.flow, 'n', now, expected));
        }
        fn on_timeout(&mut self, now: SimTime) {
            self.log.lock().unwrap().push((self.flow, 't', now, 0));
        }
    }
    impl ExtRateController for LossLog {
        fn clone_box(&self) -> Box<dyn ExtRateController> {
            Box::new(self.clone())
        }
    }
    #[derive(Debug)]
    struct MakeLossLog(Log);
    impl ExtRateFactory for MakeLossLog {
        fn make(&self, _name: &'static str, f: &ExtRateFlow) -> Box<dyn ExtRateController> {
            Box::new(LossLog {
                rate: 4e9,
                line: f.line_rate_bps,
                log: self.0.clone(),
                flow: f.flow,
            })
        }
    }

    /// The RDMA transport tells an external controller of every NACK its source takes (with the
    /// receiver's expected segment) and every retransmission timeout, after the transport acted:
    /// the calls match the sender's and the receiver's own counters exactly.
    #[test]
    fn an_rdma_controller_hears_every_nack_and_timeout_of_its_flow() {
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        register(ExtRateSpec {
            name: crate::cc::ext::static_name("ext_test_loss_log"),
            rdma: true,
            int: false,
            factory: Arc::new(MakeLossLog(log.clone())),
        })
        .unwrap();
        let text = "seed = 1\nuntil_s = 0.02\npacket_bytes = 1000\nack_bytes = 64\n[topology]\nkind = \"dumbbell\"\nsenders = 2\nbottleneck_bps = 10e9\naccess_bps = 10e9\nrtt_s = 8e-6\nbuffer_pkts = 100\n[rdma]\nrto_s = 1e-3\n[flows]\ncount = 2\ncc = \"ext_test_loss_log\"\n";
        let sc = crate::scenario::parse(text, crate::scenario::Format::Toml).unwrap();
        let mut sim = crate::Simulation::new(&sc, None).unwrap();
        let end = sim.end();
        sim.run_until(end);
        let log = log.lock().unwrap().clone();
        let (mut nacks, mut timeouts) = (0, 0);
        for (i, fl) in sim.flows.iter().enumerate() {
            let d = fl.rate.as_ref().unwrap().rdma.as_ref().unwrap();
            let mine = |k: char| log.iter().filter(move |e| e.0 == i as u32 && e.1 == k);
            assert_eq!(mine('n').count() as u64, d.tx.stats.nacks, "flow {i}");
            assert_eq!(mine('t').count() as u64, d.tx.stats.timeouts, "flow {i}");
            assert_eq!(d.tx.stats.timeouts, fl.sender.stats.timeouts);
            // each NACK names a segment that was sent and is not acknowledged before it
            assert!(mine('n').all(|e| e.3 < d.tx.high_tx));
            nacks += d.tx.stats.nacks;
            timeouts += d.tx.stats.timeouts;
            // the receiver's NACKs all arrived (the reverse path does not drop)
            assert_eq!(d.rx.nacks_sent, d.tx.stats.nacks, "flow {i}");
        }
        assert!(
            nacks >= 3 && timeouts >= 1,
            "{nacks} NACKs, {timeouts} timeouts"
        );
        // in time order, as the engine delivered them
        assert!(log.windows(2).all(|w| w[0].2 <= w[1].2));
    }
}
