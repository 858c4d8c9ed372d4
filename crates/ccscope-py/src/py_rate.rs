//! Python rate controllers (`ccscope.cc.register_cc(name, cls)` with `cls` a
//! `ccscope.cc.RateController`): the bridge between the engine's [`ExtRateController`] hooks
//! (those of a reaction point, `RateControl`) and a Python object, one per flow.
//!
//! As for window controllers (`py_cc`): the engine runs with the GIL released and each hook of
//! a flow that uses a Python rate controller takes it for the call only; built-in flows never
//! touch it. After each hook the bridge reads the rate (the number the hook returned, else the
//! object's `rate_bps`: finite, > 0, bits/s) and the timer deadline (`deadline_s`: None or a
//! time in seconds, not in the past; after `on_timer`, later than now) and keeps both, so the
//! engine's per-frame `rate_bps()` and `poll_timeout()` never call Python. The timer is the
//! engine's lazy deadline: the bridge calls the Python `on_timer` only once the deadline it read
//! has passed (stale timer events do nothing), so the Python side never compares times.
//!
//! RDMA controllers also get `on_cnp`, `on_ack`, `on_nack`, `on_timeout` and `on_int`, each only
//! if the class overrides it (the factory holds `None` otherwise and the bridge returns before
//! taking the GIL). `on_int`'s hop records are `ccscope.cc.IntHop` named tuples, made with
//! `tuple.__new__` (no Python frame per record).
//!
//! A hook that raises, returns a value of the wrong type, or leaves a bad rate or deadline
//! records one error (controller, flow, simulated time, hook, traceback) through `py_cc`'s
//! per-thread failure slot; the controller keeps its last rate, disarms its timer and calls
//! nothing more; the driver stops the run at the end of the chunk and raises the error, and
//! nothing is written.

use crate::bridge::{number, shown, Bridge};
use ccscope_core::int::IntRecord;
use ccscope_core::rate::ext::{self, ExtRateController, ExtRateFactory, ExtRateFlow, ExtRateSpec};
use ccscope_core::rate::{AckSample, Feedback, FeedbackKind, RateControl, RateProbe};
use ccscope_core::units::SimTime;
use pyo3::call::PyCallArgs;
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// A rate, bits/s: finite and > 0.
fn rate_value(v: &Bound<'_, PyAny>, what: &str) -> Result<f64, String> {
    let x = number(v, what, "bits per second")?;
    if !x.is_finite() || x <= 0.0 {
        return Err(format!(
            "{what} = {}: must be a finite number of bits per second > 0",
            shown(v)
        ));
    }
    Ok(x)
}

/// The window cap in `window_bytes`: None, or a number of bytes >= 1 (rounded down).
fn window_value(v: &Bound<'_, PyAny>) -> Result<Option<u64>, String> {
    if v.is_none() {
        return Ok(None);
    }
    let x = number(v, "window_bytes", "bytes (or None)")?;
    if !x.is_finite() || x < 1.0 {
        return Err(format!(
            "window_bytes = {}: must be None or a finite number of bytes >= 1",
            shown(v)
        ));
    }
    Ok(Some(x.min(u64::MAX as f64) as u64))
}

/// The hook methods of one controller object, looked up once.
#[derive(Debug)]
struct Methods {
    on_feedback: Py<PyAny>,
    /// None: the class keeps the default (does nothing), and the bridge skips the call.
    on_bytes_sent: Option<Py<PyAny>>,
    on_timer: Py<PyAny>,
    /// RDMA controllers only (None: the default, never called).
    on_cnp: Option<Py<PyAny>>,
    on_ack: Option<Py<PyAny>>,
    /// RDMA controllers that override `on_int`, `on_nack`, `on_timeout` (None: never called).
    on_int: Option<Py<PyAny>>,
    on_nack: Option<Py<PyAny>>,
    on_timeout: Option<Py<PyAny>>,
    /// `tuple.__new__` and `ccscope.cc.IntHop`, to make the hop records (with `on_int`).
    int_hop: Option<(Py<PyAny>, Py<PyAny>)>,
}

#[derive(Debug)]
struct PyRate {
    /// The object, its methods and `deadline_s` as read after the last hook.
    b: Bridge<Methods>,
    rate: f64,
    /// The window cap read after each hook (RDMA controllers: `window_bytes`, None: none).
    window: Option<u64>,
    rdma: bool,
    feedbacks: u64,
}

impl PyRate {
    /// Call a hook, then take the rate it returned (or left in `rate_bps`), `deadline_s` and
    /// (RDMA controllers) `window_bytes`. `f` returns None when it called nothing.
    fn call(
        &mut self,
        now: SimTime,
        hook: &'static str,
        f: impl FnOnce(Python<'_>, &Methods) -> PyResult<Option<Py<PyAny>>>,
    ) {
        let rdma = self.rdma;
        let after = self.b.call(now, hook, f, |o, ret, _| {
            let rate = if ret.is_none() {
                rate_value(&o.get(intern!(o.py(), "rate_bps"))?, "rate_bps")?
            } else {
                rate_value(ret, &format!("the value {hook} returned"))?
            };
            let deadline = o.deadline(Some(now), hook == "on_timer")?;
            let window = if rdma {
                window_value(&o.get(intern!(o.py(), "window_bytes"))?)?
            } else {
                None
            };
            Ok(((rate, window), deadline))
        });
        if let Some((rate, window)) = after {
            self.rate = rate;
            self.window = window;
        }
    }

    /// Call the hook `pick` finds with `args` if the class overrides it (else nothing: a class
    /// that keeps the default is never called, and no GIL is taken).
    fn call_optional<A: for<'py> PyCallArgs<'py>>(
        &mut self,
        now: SimTime,
        hook: &'static str,
        pick: fn(&Methods) -> Option<&Py<PyAny>>,
        args: A,
    ) {
        if self.b.methods().and_then(pick).is_none() {
            return;
        }
        self.call(now, hook, |py, m| match pick(m) {
            Some(h) => h.call1(py, args).map(Some),
            None => Ok(None),
        })
    }
}

impl RateControl for PyRate {
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
        self.feedbacks += 1;
        self.call(now, "on_feedback", |py, m| {
            let t = now.as_secs_f64();
            let r = match fb.kind {
                FeedbackKind::Qcn { fb_q } => m
                    .on_feedback
                    .call1(py, (t, intern!(py, "qcn"), fb.cpid, fb_q)),
                FeedbackKind::Asm { qf, dq } => m
                    .on_feedback
                    .call1(py, (t, intern!(py, "asm"), fb.cpid, (qf, dq))),
            };
            r.map(Some)
        })
    }
    fn on_bytes_sent(&mut self, now: SimTime, bytes: u32) {
        // a class that keeps the default hook is never called (no GIL per frame)
        self.call_optional(
            now,
            "on_bytes_sent",
            |m| m.on_bytes_sent.as_ref(),
            (now.as_secs_f64(), bytes),
        )
    }
    fn on_timer(&mut self, now: SimTime) {
        // the lazy deadline: an event for a deadline that has moved later does nothing
        match self.b.deadline {
            Some(d) if now >= d => self.call(now, "on_timer", |py, m| {
                m.on_timer.call1(py, (now.as_secs_f64(),)).map(Some)
            }),
            _ => {}
        }
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        self.b.deadline
    }
    fn rate_bps(&self) -> f64 {
        self.rate
    }
    fn on_cnp(&mut self, now: SimTime) {
        self.feedbacks += 1;
        self.call_optional(now, "on_cnp", |m| m.on_cnp.as_ref(), (now.as_secs_f64(),))
    }
    fn on_ack(&mut self, now: SimTime, a: &AckSample) {
        let args = (
            now.as_secs_f64(),
            a.acked_bytes,
            a.ackno,
            a.rtt.as_secs_f64(),
            a.ecn,
            a.data_seq,
        );
        self.call_optional(now, "on_ack", |m| m.on_ack.as_ref(), args)
    }
    fn window_bytes(&self) -> Option<u64> {
        self.window
    }
    fn on_int(&mut self, now: SimTime, a: &AckSample, snd_nxt: u64, int: &[IntRecord]) {
        if self.b.methods().is_none_or(|m| m.on_int.is_none()) {
            return;
        }
        self.call(now, "on_int", |py, m| match (&m.on_int, &m.int_hop) {
            (Some(h), Some((new, cls))) => {
                // one IntHop(ts_s, tx_bytes, qlen_bytes, rate_bps, ts_ps) per hop: a tuple
                // subclass made by tuple.__new__ (no Python frame per record)
                let mut hops = Vec::with_capacity(int.len());
                for r in int {
                    let fields = (
                        r.ts.as_secs_f64(),
                        r.tx_bytes,
                        r.qlen_bytes,
                        r.rate_bps,
                        r.ts.0,
                    );
                    hops.push(new.call1(py, (cls, fields))?);
                }
                let hops = PyTuple::new(py, hops)?;
                h.call1(py, (now.as_secs_f64(), a.ackno, snd_nxt, hops))
                    .map(Some)
            }
            _ => Ok(None),
        })
    }
    fn on_nack(&mut self, now: SimTime, expected: u64) {
        let args = (now.as_secs_f64(), expected);
        self.call_optional(now, "on_nack", |m| m.on_nack.as_ref(), args)
    }
    fn on_timeout(&mut self, now: SimTime) {
        let args = (now.as_secs_f64(),);
        self.call_optional(now, "on_timeout", |m| m.on_timeout.as_ref(), args)
    }
    fn probe(&self, p: &mut RateProbe) {
        p.rate_bps = self.rate;
        p.target_rate_bps = f64::NAN;
        p.active = true;
        p.feedbacks = self.feedbacks;
        self.b.probe(|o| {
            if let Some(v) = o.optional_number(intern!(o.py(), "target_rate_bps"))? {
                p.target_rate_bps = v;
            }
            Ok(())
        })
    }
}

impl ExtRateController for PyRate {
    fn clone_box(&self) -> Box<dyn ExtRateController> {
        Python::attach(|py| {
            Box::new(PyRate {
                b: self.b.clone_ref(py),
                rate: self.rate,
                window: self.window,
                rdma: self.rdma,
                feedbacks: self.feedbacks,
            })
        })
    }
}

/// Makes a rate controller per flow by calling the Python maker
/// `maker(flow, seed, line_rate_bps, packet_bytes, base_rtt_s)`.
#[derive(Debug)]
struct PyRateFactory {
    maker: Py<PyAny>,
    bytes_sent_hook: bool,
    cnp_hook: bool,
    ack_hook: bool,
    rdma: bool,
    nack_hook: bool,
    timeout_hook: bool,
    /// `tuple.__new__` and the `IntHop` class, when the class overrides `on_int`.
    int_hop: Option<(Py<PyAny>, Py<PyAny>)>,
}

impl ExtRateFactory for PyRateFactory {
    fn make(&self, name: &'static str, f: &ExtRateFlow) -> Box<dyn ExtRateController> {
        let args = (
            f.flow,
            f.seed,
            f.line_rate_bps,
            f.packet_bytes,
            f.base_rtt_s,
        );
        let (b, made) = Bridge::make(name, f.flow, &self.maker, args, |o| {
            let m = Methods {
                on_feedback: o.method("on_feedback")?,
                on_bytes_sent: o.hook(self.bytes_sent_hook, "on_bytes_sent")?,
                on_timer: o.method("on_timer")?,
                on_cnp: o.hook(self.cnp_hook, "on_cnp")?,
                on_ack: o.hook(self.ack_hook, "on_ack")?,
                on_int: o.hook(self.int_hop.is_some(), "on_int")?,
                on_nack: o.hook(self.nack_hook, "on_nack")?,
                on_timeout: o.hook(self.timeout_hook, "on_timeout")?,
                int_hop: self
                    .int_hop
                    .as_ref()
                    .map(|(n, c)| (n.clone_ref(o.py()), c.clone_ref(o.py()))),
            };
            let rate = rate_value(&o.get("rate_bps")?, "rate_bps")?;
            let deadline = o.deadline(None, false)?;
            let window = if self.rdma {
                window_value(&o.get("window_bytes")?)?
            } else {
                None
            };
            Ok((m, deadline, (rate, window)))
        });
        let (rate, window) = made.unwrap_or((f.line_rate_bps, None));
        Box::new(PyRate {
            b,
            rate,
            window,
            rdma: self.rdma,
            feedbacks: 0,
        })
    }
}

/// Register a Python rate controller under `name` (see ccscope.cc.register_cc, which checks
/// the class and builds `maker`). `bytes_sent_hook`, `cnp_hook`, `ack_hook`, `nack_hook`,
/// `timeout_hook`: the class overrides `on_bytes_sent`, `on_cnp`, `on_ack`, `on_nack`,
/// `on_timeout` (false: the default does nothing and is never called). `rdma`: the flow runs on
/// the RDMA transport (and `window_bytes` is read). `int_hop`: the `IntHop` class when the
/// class overrides `on_int` (the run then stamps in-band telemetry and each ACK's complete
/// list reaches `on_int`); None: no telemetry.
#[pyfunction]
#[pyo3(signature = (name, maker, bytes_sent_hook, cnp_hook = false, ack_hook = false, rdma = false,
                    nack_hook = false, timeout_hook = false, int_hop = None))]
#[allow(clippy::too_many_arguments)] // one flag per optional hook, as ccscope.cc passes them
fn register_rate_cc(
    py: Python<'_>,
    name: &str,
    maker: Py<PyAny>,
    bytes_sent_hook: bool,
    cnp_hook: bool,
    ack_hook: bool,
    rdma: bool,
    nack_hook: bool,
    timeout_hook: bool,
    int_hop: Option<Py<PyAny>>,
) -> PyResult<()> {
    let int_hop = match int_hop {
        Some(cls) => Some((py.get_type::<PyTuple>().getattr("__new__")?.unbind(), cls)),
        None => None,
    };
    ext::register(ExtRateSpec {
        name: ccscope_core::cc::ext::static_name(name),
        rdma,
        int: rdma && int_hop.is_some(),
        factory: Arc::new(PyRateFactory {
            maker,
            bytes_sent_hook,
            cnp_hook,
            ack_hook,
            rdma,
            nack_hook: rdma && nack_hook,
            timeout_hook: rdma && timeout_hook,
            int_hop: if rdma { int_hop } else { None },
        }),
    })
    .map(|_| ())
    .map_err(PyValueError::new_err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(register_rate_cc, m)?)?;
    Ok(())
}
