//! What the Python window controllers (`py_cc`) and rate controllers (`py_rate`) share: the
//! bridge from one flow's engine-side controller to its Python object.
//!
//! [`Bridge::make`] instantiates the object (the maker's call, then its hook methods looked up
//! and its first values read, once); [`Bridge::call`] runs a hook with the GIL and reads what
//! the hook left; [`Bridge::probe`] reads the optional values the recording samples. Every
//! failure becomes one error naming the controller, the flow, the simulated time and the hook
//! ([`where_`]), recorded in `py_cc`'s per-thread failure slot; after one the controller disarms
//! its timer and calls nothing more. A Ctrl-C inside a hook is recorded as an interrupt and
//! leaves the controller as it was.

use crate::py_cc::{record, record_as};
use ccscope_core::units::SimTime;
use pyo3::call::PyCallArgs;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};
use std::sync::Arc;

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

/// Where a controller failed: `controller "name" (flow[i]) at t = ... s, in hook: msg` (no time
/// when `now` is None: at `__init__` or while recording).
pub(crate) fn where_(name: &str, flow: u32, now: Option<SimTime>, hook: &str, msg: &str) -> String {
    let at = match now {
        Some(t) => format!(" at t = {:.9} s", t.as_secs_f64()),
        None => String::new(),
    };
    format!("controller {name:?} (flow[{flow}]){at}, in {hook}: {msg}")
}

/// A number (int or float, not bool) named `what`, of `unit`.
pub(crate) fn number(v: &Bound<'_, PyAny>, what: &str, unit: &str) -> Result<f64, String> {
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

/// A controller object while the GIL is held: attribute reads whose errors are messages.
#[derive(Clone, Copy)]
pub(crate) struct Obj<'a, 'py>(&'a Bound<'py, PyAny>);

impl<'py> Obj<'_, 'py> {
    pub fn py(self) -> Python<'py> {
        self.0.py()
    }

    /// The attribute `name`.
    pub fn get<N: IntoPyObject<'py, Target = PyString>>(
        self,
        name: N,
    ) -> Result<Bound<'py, PyAny>, String> {
        self.0.getattr(name).map_err(|e| describe(self.py(), &e))
    }

    /// The method `name`, kept for the controller's life.
    pub fn method(self, name: &str) -> Result<Py<PyAny>, String> {
        self.get(name).map(Bound::unbind)
    }

    /// The method `name` when the class overrides it (None: it keeps the default, never called).
    pub fn hook(self, overridden: bool, name: &str) -> Result<Option<Py<PyAny>>, String> {
        overridden.then(|| self.method(name)).transpose()
    }

    /// The timer deadline in `deadline_s` (see [`deadline_value`]).
    pub fn deadline(self, now: Option<SimTime>, strict: bool) -> Result<Option<SimTime>, String> {
        deadline_value(&self.get(intern!(self.py(), "deadline_s"))?, now, strict)
    }

    /// An attribute the recording samples if the object has it: None when it has none or it is
    /// None, else a number.
    pub fn optional_number(self, name: &Bound<'py, PyString>) -> Result<Option<f64>, String> {
        match self
            .0
            .getattr_opt(name)
            .map_err(|e| describe(self.py(), &e))?
        {
            Some(v) if !v.is_none() => v
                .extract::<f64>()
                .map(Some)
                .map_err(|_| format!("{} = {}: must be a number or None", name, shown(&v))),
            _ => Ok(None),
        }
    }
}

/// One flow's Python controller object, its hook methods `M` and its timer deadline.
#[derive(Debug)]
pub(crate) struct Bridge<M> {
    name: &'static str,
    flow: u32,
    obj: Py<PyAny>,
    /// The hook methods, looked up once (None: the object was never made).
    m: Option<Arc<M>>,
    /// `deadline_s` as read after the last hook (None: no timer).
    pub deadline: Option<SimTime>,
    /// A hook failed: nothing more is called.
    dead: bool,
}

impl<M> Bridge<M> {
    /// The controller `name` of flow `flow`: calls `maker(*args)`, then `init` looks up the
    /// object's hook methods and reads its first values (the deadline and the caller's `T`).
    /// A failure is the flow's error in `__init__`: the bridge is then dead and the values None
    /// (the caller keeps its defaults).
    pub fn make<A, T>(
        name: &'static str,
        flow: u32,
        maker: &Py<PyAny>,
        args: A,
        init: impl FnOnce(Obj<'_, '_>) -> Result<(M, Option<SimTime>, T), String>,
    ) -> (Self, Option<T>)
    where
        A: for<'py> PyCallArgs<'py>,
    {
        let r = Python::attach(|py| -> Result<_, String> {
            let obj = maker.call1(py, args).map_err(|e| describe(py, &e))?;
            let (m, deadline, v) = init(Obj(obj.bind(py)))?;
            Ok((obj, m, deadline, v))
        });
        match r {
            Ok((obj, m, deadline, v)) => {
                let b = Bridge {
                    name,
                    flow,
                    obj,
                    m: Some(Arc::new(m)),
                    deadline,
                    dead: false,
                };
                (b, Some(v))
            }
            Err(msg) => {
                let mut b = Bridge {
                    name,
                    flow,
                    obj: Python::attach(|py| py.None()),
                    m: None,
                    deadline: None,
                    dead: false,
                };
                b.fail(None, "__init__", &msg);
                (b, None)
            }
        }
    }

    /// The hook methods (None: the object was never made).
    pub fn methods(&self) -> Option<&M> {
        self.m.as_deref()
    }

    fn fail(&mut self, now: Option<SimTime>, hook: &str, msg: &str) {
        self.dead = true;
        self.deadline = None;
        record(where_(self.name, self.flow, now, hook, msg));
    }

    /// Run `hook` at `now` with the GIL (nothing once failed or never made): `f` calls it (None:
    /// it called nothing), then `after` reads what it left from its return value and the
    /// object: the caller's `T` and the new deadline, which the bridge keeps. An exception or
    /// a bad value is the flow's error; a Ctrl-C is recorded as an interrupt and changes nothing.
    pub fn call<T>(
        &mut self,
        now: SimTime,
        hook: &'static str,
        f: impl FnOnce(Python<'_>, &M) -> PyResult<Option<Py<PyAny>>>,
        after: impl FnOnce(Obj<'_, '_>, &Bound<'_, PyAny>, &M) -> Result<(T, Option<SimTime>), String>,
    ) -> Option<T> {
        if self.dead {
            return None;
        }
        let m = self.m.clone()?;
        let r = Python::attach(
            |py| -> Result<Option<(T, Option<SimTime>)>, Option<String>> {
                let ret = f(py, &m).map_err(|e| {
                    (!e.is_instance_of::<PyKeyboardInterrupt>(py)).then(|| describe(py, &e))
                })?;
                let Some(ret) = ret else { return Ok(None) };
                after(Obj(self.obj.bind(py)), ret.bind(py), &m)
                    .map(Some)
                    .map_err(Some)
            },
        );
        match r {
            Ok(Some((v, deadline))) => {
                self.deadline = deadline;
                Some(v)
            }
            Ok(None) => None,
            Err(Some(msg)) => {
                self.fail(Some(now), hook, &msg);
                None
            }
            // a Ctrl-C: the run stops as at any Ctrl-C and may go on; the controller keeps its
            // values and deadline (the interrupted hook is left where it stopped)
            Err(None) => {
                record_as(
                    where_(
                        self.name,
                        self.flow,
                        Some(now),
                        hook,
                        "interrupted (Ctrl-C)",
                    ),
                    true,
                );
                None
            }
        }
    }

    /// Read what the recording samples with `read` (nothing once failed); its error is the
    /// flow's error in "probe (recording)".
    pub fn probe(&self, read: impl FnOnce(Obj<'_, '_>) -> Result<(), String>) {
        if self.dead {
            return;
        }
        if let Err(msg) = Python::attach(|py| read(Obj(self.obj.bind(py)))) {
            record(where_(
                self.name,
                self.flow,
                None,
                "probe (recording)",
                &msg,
            ));
        }
    }

    /// A copy that shares the Python object (the engine clones controllers with their flows).
    pub fn clone_ref(&self, py: Python<'_>) -> Self {
        Bridge {
            name: self.name,
            flow: self.flow,
            obj: self.obj.clone_ref(py),
            m: self.m.clone(),
            deadline: self.deadline,
            dead: self.dead,
        }
    }
}
