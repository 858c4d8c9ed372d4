//! Python congestion controllers (`ccscope.cc.register_cc`): the bridge between the engine's
//! [`ExtController`] hooks and a Python object, one per flow.
//!
//! The engine runs with the GIL released; each hook of a flow that uses a Python controller
//! takes it for the call only (built-in flows never touch it). A hook that raises, returns a
//! value of the wrong type or leaves a window that is not a finite number of bytes > 0 records
//! one error (controller, flow, simulated time, hook, traceback) for the thread that runs the
//! simulation; the controller then keeps its last window and calls nothing more, the driver
//! stops the run at the end of the chunk of events (`failed`) and raises the error
//! (`take_failure`). Nothing is written: the run never reaches `finish`.

use crate::py_rate::deadline_value;
use ccscope_core::cc::ext::{self, ExtController, ExtFactory, ExtFlow, ExtSpec};
use ccscope_core::cc::{AckSample, CcProbe, Congestion};
use ccscope_core::units::SimTime;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};
use std::cell::RefCell;
use std::sync::Arc;

create_exception!(
    _native,
    ControllerError,
    crate::SimulationError,
    "A Python congestion controller failed: the message names the controller, the flow, the simulated time and the hook, and ends with the controller's traceback."
);

thread_local! {
    /// (message, the failure is a Ctrl-C inside a hook).
    static FAILURE: RefCell<Option<(String, bool)>> = const { RefCell::new(None) };
}

/// A Python controller of this thread failed (the run should stop).
pub fn failed() -> bool {
    FAILURE.with(|f| f.borrow().is_some())
}

/// The error of the failed Python controller of this thread, cleared.
pub fn take_failure() -> Option<String> {
    FAILURE.with(|f| f.borrow_mut().take()).map(|(m, _)| m)
}

/// Raise the failure of this thread, if any, as a ControllerError (KeyboardInterrupt for a
/// Ctrl-C that arrived while a hook ran: the run stops as at any Ctrl-C, the controller intact
/// but for the hook it was in).
pub fn check() -> PyResult<()> {
    match FAILURE.with(|f| f.borrow_mut().take()) {
        Some((m, true)) => Err(PyKeyboardInterrupt::new_err(m)),
        Some((m, false)) => Err(ControllerError::new_err(m)),
        None => Ok(()),
    }
}

pub(crate) fn record(msg: String) {
    record_as(msg, false)
}

pub(crate) fn record_as(msg: String, interrupt: bool) {
    FAILURE.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some((msg, interrupt));
        }
    })
}

/// `type: message` and the traceback of a Python exception.
pub(crate) fn describe(py: Python<'_>, e: &PyErr) -> String {
    let tb = (|| -> PyResult<String> {
        let lines = py.import("traceback")?.call_method1(
            "format_exception",
            (e.get_type(py), e.value(py), e.traceback(py)),
        )?;
        let v: Vec<String> = lines.extract()?;
        Ok(v.concat())
    })();
    tb.unwrap_or_else(|_| e.to_string()).trim_end().to_string()
}

/// A value cut to ~80 characters.
pub(crate) fn shown(v: &Bound<'_, PyAny>) -> String {
    let r = v
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".into());
    if r.chars().count() > 80 {
        format!("{}...", r.chars().take(80).collect::<String>())
    } else {
        r
    }
}

/// A number of bytes (int or float, not bool), finite and > 0.
fn window_value(v: &Bound<'_, PyAny>, what: &str) -> Result<f64, String> {
    if v.is_instance_of::<PyBool>()
        || !(v.is_instance_of::<PyFloat>() || v.is_instance_of::<PyInt>())
    {
        return Err(format!(
            "{what} = {} ({}): must be a number of bytes (int or float)",
            shown(v),
            v.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ));
    }
    let x: f64 = v
        .extract()
        .map_err(|e| format!("{what} = {}: {e}", shown(v)))?;
    if !x.is_finite() || x <= 0.0 {
        return Err(format!(
            "{what} = {}: must be a finite number of bytes > 0",
            shown(v)
        ));
    }
    Ok(x)
}

/// The hook methods of one controller object, looked up once.
#[derive(Debug)]
struct Methods {
    on_ack: Py<PyAny>,
    on_dup_ack: Py<PyAny>,
    on_congestion: Py<PyAny>,
    on_recovery_end: Py<PyAny>,
    /// The class overrides `on_timer` (None: no timer; `deadline_s` is never read).
    on_timer: Option<Py<PyAny>>,
}

#[derive(Debug)]
struct PyController {
    name: &'static str,
    flow: u32,
    obj: Py<PyAny>,
    m: Option<Arc<Methods>>,
    cwnd: f64,
    /// `deadline_s` as read after the last hook (controllers with `on_timer` only).
    deadline: Option<SimTime>,
    dead: bool,
}

impl PyController {
    fn fail(&mut self, now: Option<SimTime>, hook: &str, msg: String) {
        self.dead = true;
        self.deadline = None;
        record(where_(self.name, self.flow, now, hook, &msg));
    }

    /// Call a hook, then take the window it returned or left in `cwnd_bytes`.
    fn call(
        &mut self,
        now: SimTime,
        hook: &'static str,
        f: impl FnOnce(Python<'_>, &Methods) -> PyResult<Py<PyAny>>,
    ) {
        if self.dead {
            return;
        }
        let Some(m) = self.m.clone() else { return };
        let timer = m.on_timer.is_some();
        let r = Python::attach(|py| -> Result<(f64, Option<SimTime>), Option<String>> {
            let ret = f(py, &m).map_err(|e| {
                (!e.is_instance_of::<PyKeyboardInterrupt>(py)).then(|| describe(py, &e))
            })?;
            let ret = ret.bind(py);
            let cwnd = if ret.is_none() {
                let v = self
                    .obj
                    .bind(py)
                    .getattr(intern!(py, "cwnd_bytes"))
                    .map_err(|e| Some(describe(py, &e)))?;
                window_value(&v, "cwnd_bytes").map_err(Some)?
            } else {
                window_value(ret, &format!("the value {hook} returned")).map_err(Some)?
            };
            let deadline = if timer {
                let d = self
                    .obj
                    .bind(py)
                    .getattr(intern!(py, "deadline_s"))
                    .map_err(|e| Some(describe(py, &e)))?;
                deadline_value(&d, Some(now), hook == "on_timer").map_err(Some)?
            } else {
                None
            };
            Ok((cwnd, deadline))
        });
        match r {
            Ok((c, d)) => {
                self.cwnd = c;
                self.deadline = d;
            }
            Err(Some(msg)) => self.fail(Some(now), hook, msg),
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

pub(crate) fn where_(name: &str, flow: u32, now: Option<SimTime>, hook: &str, msg: &str) -> String {
    let at = match now {
        Some(t) => format!(" at t = {:.9} s", t.as_secs_f64()),
        None => String::new(),
    };
    format!("controller {name:?} (flow[{flow}]){at}, in {hook}: {msg}")
}

fn congestion_name(k: Congestion) -> &'static str {
    match k {
        Congestion::FastRetransmit => "fast_retransmit",
        Congestion::Timeout => "timeout",
        Congestion::EcnEcho => "ecn",
    }
}

impl ExtController for PyController {
    fn on_ack(&mut self, s: &AckSample) {
        self.call(s.now, "on_ack", |py, m| {
            m.on_ack.call1(
                py,
                (
                    s.now.as_secs_f64(),
                    s.newly_acked_bytes,
                    s.ece,
                    s.rtt.map(|r| r.as_secs_f64()),
                    s.flight_bytes,
                    s.in_recovery,
                    s.snd_una,
                    s.snd_nxt,
                ),
            )
        })
    }
    fn on_dup_ack(&mut self, s: &AckSample) {
        self.call(s.now, "on_dup_ack", |py, m| {
            m.on_dup_ack.call1(
                py,
                (
                    s.now.as_secs_f64(),
                    s.ece,
                    s.flight_bytes,
                    s.in_recovery,
                    s.snd_una,
                    s.snd_nxt,
                ),
            )
        })
    }
    fn on_congestion(&mut self, now: SimTime, kind: Congestion, flight_bytes: u64) {
        self.call(now, "on_congestion", |py, m| {
            m.on_congestion
                .call1(py, (now.as_secs_f64(), congestion_name(kind), flight_bytes))
        })
    }
    fn on_recovery_end(&mut self, now: SimTime, flight_bytes: u64) {
        self.call(now, "on_recovery_end", |py, m| {
            m.on_recovery_end
                .call1(py, (now.as_secs_f64(), flight_bytes))
        })
    }
    fn cwnd_bytes(&self) -> f64 {
        self.cwnd
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        self.deadline
    }
    fn on_timer(&mut self, now: SimTime) {
        // the lazy deadline: an event for a deadline that has moved later does nothing
        match self.deadline {
            Some(d) if now >= d => self.call(now, "on_timer", |py, m| match &m.on_timer {
                Some(h) => h.call1(py, (now.as_secs_f64(),)),
                None => Ok(py.None()),
            }),
            _ => {}
        }
    }
    fn probe(&self, p: &mut CcProbe) {
        p.cwnd_bytes = self.cwnd;
        p.ssthresh_bytes = f64::INFINITY;
        p.alpha = f64::NAN;
        if self.dead {
            return;
        }
        let r = Python::attach(|py| -> Result<(), String> {
            let o = self.obj.bind(py);
            for (attr, slot) in [
                (intern!(py, "ssthresh_bytes"), &mut p.ssthresh_bytes),
                (intern!(py, "alpha"), &mut p.alpha),
            ] {
                if let Some(v) = o.getattr_opt(attr).map_err(|e| describe(py, &e))? {
                    if v.is_none() {
                        continue;
                    }
                    *slot = v.extract::<f64>().map_err(|_| {
                        format!("{} = {}: must be a number or None", attr, shown(&v))
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
    fn clone_box(&self) -> Box<dyn ExtController> {
        Python::attach(|py| {
            Box::new(PyController {
                name: self.name,
                flow: self.flow,
                obj: self.obj.clone_ref(py),
                m: self.m.clone(),
                cwnd: self.cwnd,
                deadline: self.deadline,
                dead: self.dead,
            })
        })
    }
}

/// Makes a controller per flow by calling the Python maker
/// `maker(flow, seed, mss_bytes, iw_pkts, dupack_threshold, ss_limit_pkts)`.
#[derive(Debug)]
struct PyFactory {
    maker: Py<PyAny>,
    /// The class overrides `on_timer`.
    timer_hook: bool,
}

impl ExtFactory for PyFactory {
    fn make(&self, name: &'static str, f: &ExtFlow) -> Box<dyn ExtController> {
        let mut c = PyController {
            name,
            flow: f.flow,
            obj: Python::attach(|py| py.None()),
            m: None,
            cwnd: f.mss_bytes as f64 * f.iw_pkts as f64,
            deadline: None,
            dead: false,
        };
        type Made = (Py<PyAny>, Methods, f64, Option<SimTime>);
        let r = Python::attach(|py| -> Result<Made, String> {
            let obj = self
                .maker
                .call1(
                    py,
                    (
                        f.flow,
                        f.seed,
                        f.mss_bytes,
                        f.iw_pkts,
                        f.dupack_threshold,
                        f.ss_limit_pkts,
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
                on_ack: get("on_ack")?,
                on_dup_ack: get("on_dup_ack")?,
                on_congestion: get("on_congestion")?,
                on_recovery_end: get("on_recovery_end")?,
                on_timer: if self.timer_hook {
                    Some(get("on_timer")?)
                } else {
                    None
                },
            };
            let cw = window_value(&get("cwnd_bytes")?.into_bound(py), "cwnd_bytes")?;
            let d = if self.timer_hook {
                deadline_value(&get("deadline_s")?.into_bound(py), None, false)?
            } else {
                None
            };
            Ok((obj, m, cw, d))
        });
        match r {
            Ok((obj, m, cw, d)) => {
                c.obj = obj;
                c.m = Some(Arc::new(m));
                c.cwnd = cw;
                c.deadline = d;
            }
            Err(msg) => c.fail(None, "__init__", msg),
        }
        Box::new(c)
    }
}

/// Register a Python controller under `name` (see ccscope.cc.register_cc, which checks the
/// class and builds `maker`). `timer_hook`: the class overrides `on_timer` (its `deadline_s`
/// is read after every hook and the engine calls `on_timer` there).
#[pyfunction]
#[pyo3(signature = (name, maker, ecn, ecn_once_per_window, dctcp_echo, timer_hook = false))]
fn register_cc(
    name: &str,
    maker: Py<PyAny>,
    ecn: bool,
    ecn_once_per_window: bool,
    dctcp_echo: bool,
    timer_hook: bool,
) -> PyResult<()> {
    ext::register(ExtSpec {
        name: ext::static_name(name),
        ecn,
        ecn_once_per_window,
        dctcp_echo,
        factory: Arc::new(PyFactory { maker, timer_hook }),
    })
    .map(|_| ())
    .map_err(PyValueError::new_err)
}

/// (built-in names, registered names).
#[pyfunction]
fn cc_names() -> (Vec<&'static str>, Vec<&'static str>) {
    (
        ccscope_core::cc::kind::BUILTIN
            .iter()
            .map(|k| k.name())
            .collect(),
        {
            let mut n = ext::names();
            n.extend(ccscope_core::rate::ext::names());
            n
        },
    )
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ControllerError", m.py().get_type::<ControllerError>())?;
    m.add_function(wrap_pyfunction!(register_cc, m)?)?;
    m.add_function(wrap_pyfunction!(cc_names, m)?)?;
    Ok(())
}
