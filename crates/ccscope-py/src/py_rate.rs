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

use crate::py_cc::{describe, record, record_as, shown, where_};
use ccscope_core::int::IntRecord;
use ccscope_core::rate::ext::{self, ExtRateController, ExtRateFactory, ExtRateFlow, ExtRateSpec};
use ccscope_core::rate::{AckSample, Feedback, FeedbackKind, RateControl, RateProbe};
use ccscope_core::units::SimTime;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyTuple};
use std::sync::Arc;

/// A number (int or float, not bool) named `what`.
fn number(v: &Bound<'_, PyAny>, what: &str, unit: &str) -> Result<f64, String> {
    if v.is_instance_of::<PyBool>()
        || !(v.is_instance_of::<PyFloat>() || v.is_instance_of::<PyInt>())
    {
        return Err(format!(
            "{what} = {} ({}): must be a number of {unit} (int or float)",
            shown(v),
            v.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ));
    }
    v.extract::<f64>()
        .map_err(|e| format!("{what} = {}: {e}", shown(v)))
}

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

/// The deadline in `deadline_s`: None, or a finite time in seconds, at or after `now` (after
/// `now` when `strict`: the timer that just fired must move or disarm).
pub(crate) fn deadline_value(
    v: &Bound<'_, PyAny>,
    now: Option<SimTime>,
    strict: bool,
) -> Result<Option<SimTime>, String> {
    if v.is_none() {
        return Ok(None);
    }
    let x = number(v, "deadline_s", "seconds (or None)")?;
    if !x.is_finite() || x < 0.0 {
        return Err(format!(
            "deadline_s = {}: must be None or a finite time in seconds >= 0",
            shown(v)
        ));
    }
    let d = SimTime::from_secs_f64(x);
    if let Some(now) = now {
        if d < now || (strict && d == now) {
            return Err(format!(
                "deadline_s = {}: must be None or {} now_s = {:.12} (the timer would fire in the past{})",
                shown(v),
                if strict { "later than" } else { "at or after" },
                now.as_secs_f64(),
                if strict { " or again at once, forever" } else { "" }
            ));
        }
    }
    Ok(Some(d))
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

/// What a hook left: the rate, the timer deadline and the window cap.
type After = (f64, Option<SimTime>, Option<u64>);

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
    name: &'static str,
    flow: u32,
    obj: Py<PyAny>,
    m: Option<Arc<Methods>>,
    rate: f64,
    deadline: Option<SimTime>,
    /// The window cap read after each hook (RDMA controllers: `window_bytes`, None: none).
    window: Option<u64>,
    rdma: bool,
    feedbacks: u64,
    dead: bool,
}

impl PyRate {
    fn fail(&mut self, now: Option<SimTime>, hook: &str, msg: String) {
        self.dead = true;
        self.deadline = None;
        record(where_(self.name, self.flow, now, hook, &msg));
    }

    /// Call a hook, then take the rate it returned (or left in `rate_bps`) and `deadline_s`.
    fn call(
        &mut self,
        now: SimTime,
        hook: &'static str,
        f: impl FnOnce(Python<'_>, &Methods) -> PyResult<Option<Py<PyAny>>>,
    ) {
        if self.dead {
            return;
        }
        let Some(m) = self.m.clone() else { return };
        let strict = hook == "on_timer";
        let rdma = self.rdma;
        let r = Python::attach(|py| -> Result<Option<After>, Option<String>> {
            let ret = f(py, &m).map_err(|e| {
                (!e.is_instance_of::<PyKeyboardInterrupt>(py)).then(|| describe(py, &e))
            })?;
            let Some(ret) = ret else { return Ok(None) };
            let ret = ret.bind(py);
            let o = self.obj.bind(py);
            let rate = if ret.is_none() {
                let v = o
                    .getattr(intern!(py, "rate_bps"))
                    .map_err(|e| Some(describe(py, &e)))?;
                rate_value(&v, "rate_bps").map_err(Some)?
            } else {
                rate_value(ret, &format!("the value {hook} returned")).map_err(Some)?
            };
            let d = o
                .getattr(intern!(py, "deadline_s"))
                .map_err(|e| Some(describe(py, &e)))?;
            let d = deadline_value(&d, Some(now), strict).map_err(Some)?;
            let w = if rdma {
                let w = o
                    .getattr(intern!(py, "window_bytes"))
                    .map_err(|e| Some(describe(py, &e)))?;
                window_value(&w).map_err(Some)?
            } else {
                None
            };
            Ok(Some((rate, d, w)))
        });
        match r {
            Ok(Some((rate, d, w))) => {
                self.rate = rate;
                self.deadline = d;
                self.window = w;
            }
            Ok(None) => {}
            Err(Some(msg)) => self.fail(Some(now), hook, msg),
            // a Ctrl-C: the run stops as at any Ctrl-C and may go on; the controller keeps its
            // rate and deadline (the interrupted hook is left where it stopped)
            Err(None) => record_as(
                where_(
                    self.name,
                    self.flow,
                    Some(now),
                    hook,
                    "interrupted (Ctrl-C)",
                ),
                true,
            ),
        }
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
        if self.m.as_ref().is_none_or(|m| m.on_bytes_sent.is_none()) {
            return;
        }
        self.call(now, "on_bytes_sent", |py, m| match &m.on_bytes_sent {
            Some(h) => h.call1(py, (now.as_secs_f64(), bytes)).map(Some),
            None => Ok(None),
        })
    }
    fn on_timer(&mut self, now: SimTime) {
        // the lazy deadline: an event for a deadline that has moved later does nothing
        match self.deadline {
            Some(d) if now >= d => self.call(now, "on_timer", |py, m| {
                m.on_timer.call1(py, (now.as_secs_f64(),)).map(Some)
            }),
            _ => {}
        }
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        self.deadline
    }
    fn rate_bps(&self) -> f64 {
        self.rate
    }
    fn on_cnp(&mut self, now: SimTime) {
        self.feedbacks += 1;
        if self.m.as_ref().is_none_or(|m| m.on_cnp.is_none()) {
            return;
        }
        self.call(now, "on_cnp", |py, m| match &m.on_cnp {
            Some(h) => h.call1(py, (now.as_secs_f64(),)).map(Some),
            None => Ok(None),
        })
    }
    fn on_ack(&mut self, now: SimTime, a: &AckSample) {
        if self.m.as_ref().is_none_or(|m| m.on_ack.is_none()) {
            return;
        }
        self.call(now, "on_ack", |py, m| match &m.on_ack {
            Some(h) => h
                .call1(
                    py,
                    (
                        now.as_secs_f64(),
                        a.acked_bytes,
                        a.ackno,
                        a.rtt.as_secs_f64(),
                        a.ecn,
                        a.data_seq,
                    ),
                )
                .map(Some),
            None => Ok(None),
        })
    }
    fn window_bytes(&self) -> Option<u64> {
        self.window
    }
    fn on_int(&mut self, now: SimTime, a: &AckSample, snd_nxt: u64, int: &[IntRecord]) {
        if self.m.as_ref().is_none_or(|m| m.on_int.is_none()) {
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
        if self.m.as_ref().is_none_or(|m| m.on_nack.is_none()) {
            return;
        }
        self.call(now, "on_nack", |py, m| match &m.on_nack {
            Some(h) => h.call1(py, (now.as_secs_f64(), expected)).map(Some),
            None => Ok(None),
        })
    }
    fn on_timeout(&mut self, now: SimTime) {
        if self.m.as_ref().is_none_or(|m| m.on_timeout.is_none()) {
            return;
        }
        self.call(now, "on_timeout", |py, m| match &m.on_timeout {
            Some(h) => h.call1(py, (now.as_secs_f64(),)).map(Some),
            None => Ok(None),
        })
    }
    fn probe(&self, p: &mut RateProbe) {
        p.rate_bps = self.rate;
        p.target_rate_bps = f64::NAN;
        p.active = true;
        p.feedbacks = self.feedbacks;
        if self.dead {
            return;
        }
        let r = Python::attach(|py| -> Result<(), String> {
            let o = self.obj.bind(py);
            if let Some(v) = o
                .getattr_opt(intern!(py, "target_rate_bps"))
                .map_err(|e| describe(py, &e))?
            {
                if !v.is_none() {
                    p.target_rate_bps = v.extract::<f64>().map_err(|_| {
                        format!("target_rate_bps = {}: must be a number or None", shown(&v))
                    })?;
                }
            }
            Ok(())
        });
        if let Err(msg) = r {
            record(where_(
                self.name,
                self.flow,
                None,
                "probe (recording)",
                &msg,
            ));
        }
    }
}

impl ExtRateController for PyRate {
    fn clone_box(&self) -> Box<dyn ExtRateController> {
        Python::attach(|py| {
            Box::new(PyRate {
                name: self.name,
                flow: self.flow,
                obj: self.obj.clone_ref(py),
                m: self.m.clone(),
                rate: self.rate,
                deadline: self.deadline,
                window: self.window,
                rdma: self.rdma,
                feedbacks: self.feedbacks,
                dead: self.dead,
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
        let mut c = PyRate {
            name,
            flow: f.flow,
            obj: Python::attach(|py| py.None()),
            m: None,
            rate: f.line_rate_bps,
            deadline: None,
            window: None,
            rdma: self.rdma,
            feedbacks: 0,
            dead: false,
        };
        type Made = (Py<PyAny>, Methods, f64, Option<SimTime>, Option<u64>);
        let r = Python::attach(|py| -> Result<Made, String> {
            let obj = self
                .maker
                .call1(
                    py,
                    (
                        f.flow,
                        f.seed,
                        f.line_rate_bps,
                        f.packet_bytes,
                        f.base_rtt_s,
                    ),
                )
                .map_err(|e| describe(py, &e))?;
            let b = obj.bind(py);
            let get = |n: &str| -> Result<Py<PyAny>, String> {
                b.getattr(n)
                    .map(|m| m.unbind())
                    .map_err(|e| describe(py, &e))
            };
            let m = Methods {
                on_feedback: get("on_feedback")?,
                on_bytes_sent: if self.bytes_sent_hook {
                    Some(get("on_bytes_sent")?)
                } else {
                    None
                },
                on_timer: get("on_timer")?,
                on_cnp: if self.cnp_hook {
                    Some(get("on_cnp")?)
                } else {
                    None
                },
                on_ack: if self.ack_hook {
                    Some(get("on_ack")?)
                } else {
                    None
                },
                on_int: if self.int_hop.is_some() {
                    Some(get("on_int")?)
                } else {
                    None
                },
                on_nack: if self.nack_hook {
                    Some(get("on_nack")?)
                } else {
                    None
                },
                on_timeout: if self.timeout_hook {
                    Some(get("on_timeout")?)
                } else {
                    None
                },
                int_hop: self
                    .int_hop
                    .as_ref()
                    .map(|(n, c)| (n.clone_ref(py), c.clone_ref(py))),
            };
            let rate = rate_value(&get("rate_bps")?.into_bound(py), "rate_bps")?;
            let d = deadline_value(&get("deadline_s")?.into_bound(py), None, false)?;
            let w = if self.rdma {
                window_value(&get("window_bytes")?.into_bound(py))?
            } else {
                None
            };
            Ok((obj, m, rate, d, w))
        });
        match r {
            Ok((obj, m, rate, d, w)) => {
                c.obj = obj;
                c.m = Some(Arc::new(m));
                c.rate = rate;
                c.deadline = d;
                c.window = w;
            }
            Err(msg) => c.fail(None, "__init__", msg),
        }
        Box::new(c)
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
