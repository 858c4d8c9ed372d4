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

use crate::bridge::{number, Bridge};
use ccscope_core::cc::ext::{self, ExtController, ExtFactory, ExtFlow, ExtSpec};
use ccscope_core::cc::{AckSample, CcProbe, Congestion};
use ccscope_core::units::SimTime;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
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

/// A number of bytes (int or float, not bool), finite and > 0.
fn window_value(v: &Bound<'_, PyAny>, what: &str) -> Result<f64, String> {
    let x = number(v, what, "bytes")?;
    if !x.is_finite() || x <= 0.0 {
        return Err(format!(
            "{what} = {}: must be a finite number of bytes > 0",
            crate::bridge::shown(v)
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
    /// The object, its methods and `deadline_s` as read after the last hook (controllers with
    /// `on_timer` only).
    b: Bridge<Methods>,
    cwnd: f64,
}

impl PyController {
    /// Call a hook, then take the window it returned or left in `cwnd_bytes`.
    fn call(
        &mut self,
        now: SimTime,
        hook: &'static str,
        f: impl FnOnce(Python<'_>, &Methods) -> PyResult<Py<PyAny>>,
    ) {
        let cwnd = self.b.call(
            now,
            hook,
            |py, m| f(py, m).map(Some),
            |o, ret, m| {
                let cwnd = if ret.is_none() {
                    window_value(&o.get(intern!(o.py(), "cwnd_bytes"))?, "cwnd_bytes")?
                } else {
                    window_value(ret, &format!("the value {hook} returned"))?
                };
                let deadline = if m.on_timer.is_some() {
                    o.deadline(Some(now), hook == "on_timer")?
                } else {
                    None
                };
                Ok((cwnd, deadline))
            },
        );
        if let Some(c) = cwnd {
            self.cwnd = c;
        }
    }
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
        self.b.deadline
    }
    fn on_timer(&mut self, now: SimTime) {
        // the lazy deadline: an event for a deadline that has moved later does nothing
        match self.b.deadline {
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
        self.b.probe(|o| {
            let py = o.py();
            for (attr, slot) in [
                (intern!(py, "ssthresh_bytes"), &mut p.ssthresh_bytes),
                (intern!(py, "alpha"), &mut p.alpha),
            ] {
                if let Some(v) = o.optional_number(attr)? {
                    *slot = v;
                }
            }
            Ok(())
        })
    }
    fn clone_box(&self) -> Box<dyn ExtController> {
        Python::attach(|py| {
            Box::new(PyController {
                b: self.b.clone_ref(py),
                cwnd: self.cwnd,
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
        let args = (
            f.flow,
            f.seed,
            f.mss_bytes,
            f.iw_pkts,
            f.dupack_threshold,
            f.ss_limit_pkts,
        );
        let (b, cwnd) = Bridge::make(name, f.flow, &self.maker, args, |o| {
            let m = Methods {
                on_ack: o.method("on_ack")?,
                on_dup_ack: o.method("on_dup_ack")?,
                on_congestion: o.method("on_congestion")?,
                on_recovery_end: o.method("on_recovery_end")?,
                on_timer: o.hook(self.timer_hook, "on_timer")?,
            };
            let cwnd = window_value(&o.get("cwnd_bytes")?, "cwnd_bytes")?;
            let deadline = if self.timer_hook {
                o.deadline(None, false)?
            } else {
                None
            };
            Ok((m, deadline, cwnd))
        });
        Box::new(PyController {
            b,
            cwnd: cwnd.unwrap_or(f.mss_bytes as f64 * f.iw_pkts as f64),
        })
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
