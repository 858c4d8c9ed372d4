//! ccscope._native: the only PyO3 code. A thin layer over ccscope-core: JSON in, numpy
//! columns out, Rust errors mapped to typed Python exceptions, panics caught at the boundary,
//! and the GIL released while the engine runs.

mod fluid;
mod py_cc;
mod py_rate;

use ccscope_core::output::{Column, RunOutput, Segment};
use ccscope_core::scenario::{self, Format, Scenario};
use ccscope_core::units::SimTime;
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

create_exception!(_native, ScenarioError, PyValueError, "A scenario that cannot be read or does not validate; the message names the field path, the value and what is allowed.");
create_exception!(
    _native,
    SimulationError,
    PyRuntimeError,
    "A run failed an internal check (a bug: please report it with the scenario)."
);

fn format_of(name: &str) -> PyResult<Format> {
    match name {
        "toml" => Ok(Format::Toml),
        "json" => Ok(Format::Json),
        other => Err(PyValueError::new_err(format!(
            "format = {other:?}: must be \"toml\" or \"json\""
        ))),
    }
}

fn guarded<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => Err(SimulationError::new_err(format!(
            "internal error in {what}: {}",
            panic_message(&*e)
        ))),
    }
}

/// The message of a caught panic.
fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Parse and validate, after checking that parsing `text` fits the memory budget (None: the
/// default budget).
fn parse(text: &str, format: &str, max_memory_bytes: Option<u64>) -> PyResult<Scenario> {
    let fmt = format_of(format)?;
    ccscope_core::budget::parse_within(text, fmt, max_memory_bytes)
        .map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Parse and validate a scenario; return it as canonical JSON with every default filled in.
#[pyfunction]
#[pyo3(signature = (text, format = "json"))]
fn validate(text: &str, format: &str) -> PyResult<String> {
    guarded("validate", || Ok(parse(text, format, None)?.to_json()))
}

/// Validate exactly as a run does, parsing once: the schema checks, the memory budget and the
/// build (topology, hosts, routes, congestion points), whose simulation is then dropped; returns
/// the scenario as canonical JSON with every default filled in.
#[pyfunction]
#[pyo3(signature = (text, max_memory_bytes = None))]
fn validate_build(text: &str, max_memory_bytes: Option<u64>) -> PyResult<String> {
    guarded("validate", || {
        let sc = parse(text, "json", max_memory_bytes)?;
        ccscope_core::Simulation::with_budget(&sc, None, max_memory_bytes)
            .map_err(|e| ScenarioError::new_err(e.to_string()))?;
        Ok(sc.to_json())
    })
}

/// Parse, validate and expand a scenario to its explicit form (graph + flow list), as JSON.
///
/// `max_memory_bytes` is the memory budget (None: half the machine's memory): a scenario whose
/// explicit form (topology and flow list, estimated before anything is expanded) exceeds it is
/// refused with the same error as a run's.
#[pyfunction]
#[pyo3(signature = (text, format = "json", max_memory_bytes = None))]
fn expand(text: &str, format: &str, max_memory_bytes: Option<u64>) -> PyResult<String> {
    guarded("expand", || {
        let sc = parse(text, format, max_memory_bytes)?;
        let budget = max_memory_bytes.unwrap_or_else(ccscope_core::budget::default_budget_bytes);
        ccscope_core::budget::check_expansion(&sc, budget)
            .map_err(|e| ScenarioError::new_err(e.to_string()))?;
        let ex = sc
            .expand()
            .map_err(|e| ScenarioError::new_err(e.to_string()))?;
        Ok(ex.to_json())
    })
}

/// Render a scenario (JSON text) as TOML.
#[pyfunction]
fn to_toml(json_text: &str) -> PyResult<String> {
    guarded("to_toml", || {
        let sc = parse(json_text, "json", None)?;
        sc.to_toml().map_err(SimulationError::new_err)
    })
}

/// JSON Schema of the scenario, with field docs, units and defaults.
#[pyfunction]
fn schema() -> String {
    scenario::json_schema()
}

/// The builtin flow-size CDFs: {name: [[bytes, P(size <= bytes)], ...]} (the tables the
/// engine samples for `size = { kind = "cdf", builtin = NAME }`).
#[pyfunction]
fn cdf_builtins() -> Vec<(&'static str, Vec<[f64; 2]>)> {
    ccscope_core::workload::CdfBuiltin::ALL
        .iter()
        .map(|b| (b.name(), b.points().to_vec()))
        .collect()
}

/// Longest stretch of engine time between two looks at pending Python signals (Ctrl-C): a
/// KeyboardInterrupt comes within about this much of the signal (the promise is 0.5 s); each
/// look costs a GIL release and re-acquire, microseconds.
const SIGNAL_CHECK_INTERVAL: Duration = Duration::from_millis(50);
/// Wall time one chunk of events should take: the driver looks at the clock and the stop flag
/// once per chunk, so the chunk size adapts to the cost of an event (a sampling event over
/// 10^5 flows costs as much as 10^4 packet events).
const CHUNK_TARGET: Duration = Duration::from_millis(2);
/// Events in the first chunk of a run (the size then doubles or halves towards CHUNK_TARGET).
const CHUNK_START_EVENTS: u64 = 1024;
/// Largest chunk: bounds the time between two looks at the clock if events get costlier.
const CHUNK_MAX_EVENTS: u64 = 1 << 20;

/// Drives a run in bounded chunks of events (`run_until_bounded`), so that the caller can look
/// at signals or a stop flag between them; the result is identical to one `run_until` call.
struct Slicer {
    chunk: u64,
}

impl Slicer {
    fn new() -> Self {
        Slicer {
            chunk: CHUNK_START_EVENTS,
        }
    }

    /// Run towards `t` until it is reached (true), or until `budget` of wall time has passed
    /// or `stop` is set (false: the simulation stands at an event boundary and another call
    /// goes on from there).
    fn run(
        &mut self,
        sim: &mut ccscope_core::Simulation,
        t: SimTime,
        budget: Duration,
        stop: &AtomicBool,
    ) -> bool {
        let start = Instant::now();
        let mut last = start;
        loop {
            if sim.run_until_bounded(t, self.chunk) {
                return true;
            }
            let now = Instant::now();
            let took = now - last;
            last = now;
            if took < CHUNK_TARGET / 2 {
                self.chunk = (self.chunk * 2).min(CHUNK_MAX_EVENTS);
            } else if took > CHUNK_TARGET * 2 {
                self.chunk = (self.chunk / 2).max(1);
            }
            if stop.load(Ordering::Relaxed) || now - start >= budget || py_cc::failed() {
                return false;
            }
        }
    }
}

/// A simulation in progress. Drive it with run_until / step; finish() returns the tables.
#[pyclass(module = "ccscope._native")]
struct Simulation {
    inner: Option<ccscope_core::Simulation>,
    /// The memory budget the run was built under (bytes).
    budget_bytes: u64,
}

impl Simulation {
    fn sim(&mut self) -> PyResult<&mut ccscope_core::Simulation> {
        self.inner
            .as_mut()
            .ok_or_else(|| SimulationError::new_err("this simulation has finished"))
    }
}

#[pymethods]
impl Simulation {
    /// Build from scenario JSON; `until_s` overrides the scenario's until_s;
    /// `max_memory_bytes` is the memory budget (None: half the machine's memory).
    ///
    /// `spill_dir`: event-driven series (drops/marks, every queue change, feedback frames)
    /// spill there in chunks instead of stopping at their row caps (created on the first chunk;
    /// None: they stop at their caps). `spill_disk_cap_bytes`: the most all chunks may use
    /// (required with `spill_dir`). `spill_chunk_rows`: rows per chunk (default 2^16; a
    /// smaller value is for tests).
    #[new]
    #[pyo3(signature = (scenario_json, until_s = None, max_memory_bytes = None, spill_dir = None, spill_disk_cap_bytes = None, spill_chunk_rows = None))]
    fn new(
        scenario_json: &str,
        until_s: Option<f64>,
        max_memory_bytes: Option<u64>,
        spill_dir: Option<std::path::PathBuf>,
        spill_disk_cap_bytes: Option<u64>,
        spill_chunk_rows: Option<u64>,
    ) -> PyResult<Self> {
        guarded("build", || {
            let sc = parse(scenario_json, "json", max_memory_bytes)?;
            check_until(until_s).map_err(ScenarioError::new_err)?;
            if spill_chunk_rows == Some(0) {
                return Err(PyValueError::new_err(
                    "spill_chunk_rows = 0: must be an integer >= 1",
                ));
            }
            py_cc::take_failure();
            let mut sim = ccscope_core::Simulation::with_budget(&sc, until_s, max_memory_bytes)
                .map_err(|e| ScenarioError::new_err(e.to_string()))?;
            py_cc::check()?;
            if let Some(dir) = spill_dir {
                let cap = spill_disk_cap_bytes.ok_or_else(|| {
                    PyValueError::new_err(
                        "spill_disk_cap_bytes = None: give the disk cap (bytes) with spill_dir",
                    )
                })?;
                sim.set_spill(
                    std::sync::Arc::new(ccscope_core::record::SpillDir::new(dir, cap)),
                    spill_chunk_rows.unwrap_or(ccscope_core::record::SPILL_CHUNK_ROWS),
                );
            }
            Ok(Simulation {
                inner: Some(sim),
                budget_bytes: max_memory_bytes
                    .unwrap_or_else(ccscope_core::budget::default_budget_bytes),
            })
        })
    }

    /// Run every event up to time t_s (seconds), with the GIL released.
    ///
    /// Interruptible: the engine runs in slices of at most `SIGNAL_CHECK_INTERVAL`, and pending
    /// signals are handled between them, so Ctrl-C raises KeyboardInterrupt here within about
    /// that time. The simulation then stands at an event boundary before t_s, intact: call
    /// run_until again to go on (the same events and traces as an uninterrupted run) or
    /// finish() to keep what was simulated so far.
    fn run_until(&mut self, py: Python<'_>, t_s: f64) -> PyResult<()> {
        if !t_s.is_finite() || t_s < 0.0 {
            return Err(PyValueError::new_err(format!(
                "t_s = {t_s}: must be a finite number of seconds >= 0"
            )));
        }
        let sim = self.sim()?;
        let t = SimTime::from_secs_f64(t_s);
        let mut slicer = Slicer::new();
        let never = AtomicBool::new(false);
        loop {
            let done = py.detach(|| {
                guarded("run", || {
                    Ok(slicer.run(sim, t, SIGNAL_CHECK_INTERVAL, &never))
                })
            })?;
            py_cc::check()?;
            if done {
                return Ok(());
            }
            py.check_signals()?;
        }
    }

    /// Process one event; returns its time in seconds, or None when no event is left.
    ///
    /// A bounded run of one event up to the next event's time, which is exactly what the
    /// engine's `step` does (the same event, clock and look-ahead horizon). Not `sim.step()`:
    /// that would be a second caller of the engine's event handler, and with two callers LLVM
    /// keeps the handler out of line, so the run loop of `run_until` pays a call and loses
    /// the optimizations across it: the extension ran 1.5x slower than the bench binary
    /// (BENCHMARKS.md). tests/test_run_speed_path.py checks the handler stays inlined.
    fn step(&mut self) -> PyResult<Option<f64>> {
        let sim = self.sim()?;
        let t = guarded("step", || {
            Ok(sim.peek().map(|t| {
                sim.run_until_bounded(t, 1);
                t.as_secs_f64()
            }))
        })?;
        py_cc::check()?;
        Ok(t)
    }

    /// Time of the next event in seconds, or None.
    fn peek(&mut self) -> PyResult<Option<f64>> {
        Ok(self.sim()?.peek().map(|t| t.as_secs_f64()))
    }

    /// Current simulated time, seconds.
    #[getter]
    fn now_s(&mut self) -> PyResult<f64> {
        Ok(self.sim()?.now().as_secs_f64())
    }

    /// Scheduled end of the run, seconds.
    #[getter]
    fn end_s(&mut self) -> PyResult<f64> {
        Ok(self.sim()?.end().as_secs_f64())
    }

    /// Events processed so far.
    #[getter]
    fn events(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.events_processed())
    }

    /// Each flow's routes as the engine forwards on them: one (data route, ACK route) per flow,
    /// in flow id order, each the port names "from->to" in crossing order. Flows a workload
    /// creates appear once created: call it at the end of the run, before finish().
    #[allow(clippy::type_complexity)]
    fn flow_routes(&mut self) -> PyResult<Vec<(Vec<String>, Vec<String>)>> {
        let sim = self.sim()?;
        let names = sim.port_names();
        let named = |r| {
            sim.route_port_ids(r)
                .iter()
                .map(|p| names[p.idx()].clone())
                .collect::<Vec<_>>()
        };
        Ok(sim
            .flows()
            .iter()
            .map(|f| (named(f.fwd), named(f.rev)))
            .collect())
    }

    /// The expanded scenario, JSON.
    fn scenario_json(&mut self) -> PyResult<String> {
        Ok(self.sim()?.scenario().to_json())
    }

    /// End the run: check packet conservation and return every table.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sim = self
            .inner
            .take()
            .ok_or_else(|| SimulationError::new_err("this simulation has finished"))?;
        let out = py.detach(|| {
            guarded("finish", || {
                sim.finish()
                    .map_err(|e| SimulationError::new_err(e.to_string()))
            })
        })?;
        py_cc::check()?;
        let d = output_to_dict(py, out)?;
        d.set_item("max_memory_bytes", self.budget_bytes)?;
        Ok(d)
    }
}

/// Why one item of a batch failed: a scenario error or an internal one, with its message.
enum ItemFailure {
    Scenario(String),
    Simulation(String),
    Skipped,
    /// The batch was cancelled (Ctrl-C) before or while this item ran.
    Cancelled,
}

fn check_until(until_s: Option<f64>) -> Result<(), String> {
    match until_s {
        Some(u) if !u.is_finite() || u <= 0.0 || u > scenario::MAX_TIME_S => Err(format!(
            "until_s = {}: must be a finite number of seconds in (0, {}]",
            scenario::fmt_f(u),
            scenario::MAX_TIME_S
        )),
        _ => Ok(()),
    }
}

/// One batch item from JSON to its tables, with no Python object touched (runs off the GIL).
/// It stops within one chunk of events once `cancel` is set.
fn run_item(
    json: &str,
    until_s: Option<f64>,
    max_memory_bytes: Option<u64>,
    cancel: &AtomicBool,
) -> Result<(RunOutput, f64), ItemFailure> {
    let t0 = std::time::Instant::now();
    let run = || -> Result<RunOutput, ItemFailure> {
        check_until(until_s).map_err(ItemFailure::Scenario)?;
        let sc = ccscope_core::budget::parse_within(json, Format::Json, max_memory_bytes)
            .map_err(|e| ItemFailure::Scenario(e.to_string()))?;
        py_cc::take_failure();
        let mut sim = ccscope_core::Simulation::with_budget(&sc, until_s, max_memory_bytes)
            .map_err(|e| ItemFailure::Scenario(e.to_string()))?;
        let end = sim.end();
        let done = Slicer::new().run(&mut sim, end, Duration::MAX, cancel);
        if let Some(m) = py_cc::take_failure() {
            return Err(ItemFailure::Simulation(m));
        }
        if !done {
            return Err(ItemFailure::Cancelled);
        }
        let out = sim
            .finish()
            .map_err(|e| ItemFailure::Simulation(e.to_string()))?;
        match py_cc::take_failure() {
            Some(m) => Err(ItemFailure::Simulation(m)),
            None => Ok(out),
        }
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(r) => r.map(|out| (out, t0.elapsed().as_secs_f64())),
        Err(e) => Err(ItemFailure::Simulation(format!(
            "internal error in run: {}",
            panic_message(&*e)
        ))),
    }
}

/// One batch result as Python sees it: (tables, None), (None, error) or (None, None) if skipped.
type BatchItem<'py> = (Option<Bound<'py, PyDict>>, Option<Bound<'py, PyAny>>);

/// Run a batch of scenarios (JSON, until_s) on `jobs` Rust threads with the GIL released.
///
/// Interruptible: the calling thread waits in slices of `SIGNAL_CHECK_INTERVAL` and handles
/// pending signals between them; on Ctrl-C it cancels every running and pending item (each
/// stops within one chunk of events), waits for the workers to stop, and raises
/// KeyboardInterrupt. No thread of the batch outlives the call.
///
/// `max_memory_bytes`: the memory budget of each item (None: half the machine's memory). Up to
/// `jobs` items run at once, so the batch may hold up to `jobs` times the budget.
///
/// Returns one entry per item, in input order: (tables dict, wall seconds) on success, or
/// (None, error) where error is a ScenarioError/SimulationError instance, or (None, None) for an
/// item skipped because an earlier-started item failed while `stop_on_error` was set.
#[pyfunction]
#[pyo3(signature = (items, jobs, stop_on_error = false, max_memory_bytes = None))]
fn run_many<'py>(
    py: Python<'py>,
    items: Vec<(String, Option<f64>)>,
    jobs: usize,
    stop_on_error: bool,
    max_memory_bytes: Option<u64>,
) -> PyResult<Vec<BatchItem<'py>>> {
    use rayon::prelude::*;
    use std::sync::mpsc;
    if jobs == 0 {
        return Err(PyValueError::new_err("jobs = 0: must be an integer >= 1"));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("ccscope-sim-{i}"))
        .build()
        .map_err(|e| SimulationError::new_err(format!("cannot start {jobs} threads: {e}")))?;
    let failed = AtomicBool::new(false);
    let cancel = AtomicBool::new(false);
    type Results = Vec<Result<(RunOutput, f64), ItemFailure>>;
    let (tx, mut rx) = mpsc::channel::<std::thread::Result<Results>>();
    let results: Results = std::thread::scope(|scope| -> PyResult<Results> {
        let (items, failed, cancel, pool) = (&items, &failed, &cancel, &pool);
        scope.spawn(move || {
            let batch = || {
                pool.install(|| {
                    items
                        .par_iter()
                        .with_max_len(1)
                        .map(|(json, until)| {
                            if cancel.load(Ordering::Relaxed) {
                                return Err(ItemFailure::Cancelled);
                            }
                            if stop_on_error && failed.load(Ordering::Relaxed) {
                                return Err(ItemFailure::Skipped);
                            }
                            let r = run_item(json, *until, max_memory_bytes, cancel);
                            if matches!(
                                r,
                                Err(ItemFailure::Scenario(_) | ItemFailure::Simulation(_))
                            ) {
                                failed.store(true, Ordering::Relaxed);
                            }
                            r
                        })
                        .collect()
                })
            };
            // the receiver waits for this message in every case, a panic included
            let _ = tx.send(catch_unwind(AssertUnwindSafe(batch)));
        });
        let mut wait = |limit: Option<Duration>| {
            let rx = &mut rx;
            py.detach(move || match limit {
                Some(d) => rx.recv_timeout(d),
                None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            })
        };
        loop {
            match wait(Some(SIGNAL_CHECK_INTERVAL)) {
                Ok(r) => {
                    return r.map_err(|e| {
                        SimulationError::new_err(format!(
                            "internal error in run_many: {}",
                            panic_message(&*e)
                        ))
                    })
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(SimulationError::new_err(
                        "internal error in run_many: the batch thread stopped without a result",
                    ))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if let Err(e) = py.check_signals() {
                // Ctrl-C (or another signal handler raised): stop every item, wait for the
                // workers (each looks at `cancel` once per chunk), then raise
                cancel.store(true, Ordering::Relaxed);
                let _ = wait(None);
                return Err(e);
            }
        }
    })?;
    let mut out = Vec::with_capacity(results.len());
    for r in results {
        out.push(match r {
            Ok((o, wall)) => {
                let d = output_to_dict(py, o)?;
                d.set_item("wall_s", wall)?;
                (Some(d), None)
            }
            Err(ItemFailure::Scenario(m)) => (
                None,
                Some(
                    ScenarioError::new_err(m)
                        .into_value(py)
                        .into_any()
                        .into_bound(py),
                ),
            ),
            Err(ItemFailure::Simulation(m)) => (
                None,
                Some(
                    SimulationError::new_err(m)
                        .into_value(py)
                        .into_any()
                        .into_bound(py),
                ),
            ),
            Err(ItemFailure::Skipped | ItemFailure::Cancelled) => (None, None),
        });
    }
    Ok(out)
}

/// Replay a synthetic queue trace through the engine's RED (see `ccscope.aqm.red_replay`).
///
/// Columns in: time_s, q_pkts, q_bytes, empty_since_s (NaN = not empty), size_bytes, ect.
/// Returns a dict of columns avg, p_b, p_a, count, verdict (0 enqueue, 1 mark, 2 drop).
#[pyfunction]
#[pyo3(signature = (aqm_json, packet_bytes, rate_bps, time_s, q_pkts, q_bytes, empty_since_s, size_bytes, ect, seed = 1, port_name = "replay"))]
#[allow(clippy::too_many_arguments)]
fn red_replay<'py>(
    py: Python<'py>,
    aqm_json: &str,
    packet_bytes: u32,
    rate_bps: f64,
    time_s: Vec<f64>,
    q_pkts: Vec<u32>,
    q_bytes: Vec<u64>,
    empty_since_s: Vec<f64>,
    size_bytes: Vec<u32>,
    ect: Vec<bool>,
    seed: u64,
    port_name: &str,
) -> PyResult<Bound<'py, PyDict>> {
    use ccscope_core::aqm::red::{replay, ReplayArrival};
    use ccscope_core::aqm::{AqmConfig, Verdict};
    let n = time_s.len();
    for (name, len) in [
        ("q_pkts", q_pkts.len()),
        ("q_bytes", q_bytes.len()),
        ("empty_since_s", empty_since_s.len()),
        ("size_bytes", size_bytes.len()),
        ("ect", ect.len()),
    ] {
        if len != n {
            return Err(PyValueError::new_err(format!(
                "{name}: {len} values for {n} arrivals; give one per arrival"
            )));
        }
    }
    if !rate_bps.is_finite() || rate_bps <= 0.0 {
        return Err(PyValueError::new_err(format!(
            "rate_bps = {rate_bps}: must be a finite rate > 0 (bits/s)"
        )));
    }
    if packet_bytes == 0 {
        return Err(PyValueError::new_err("packet_bytes = 0: must be >= 1"));
    }
    let cfg = match scenario::parse_aqm(aqm_json, packet_bytes)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?
    {
        AqmConfig::Red(c) => c,
        other => {
            return Err(ScenarioError::new_err(format!(
                "aqm.kind = \"{}\": red_replay takes a \"red\" AQM",
                other.kind_name()
            )))
        }
    };
    let mut last = f64::NEG_INFINITY;
    let mut arrivals = Vec::with_capacity(n);
    for i in 0..n {
        let t = time_s[i];
        if !t.is_finite() || t < 0.0 || t < last || t > scenario::MAX_TIME_S {
            return Err(PyValueError::new_err(format!(
                "time_s[{i}] = {t}: arrival times must be finite, >= 0, non-decreasing and <= {}",
                scenario::MAX_TIME_S
            )));
        }
        last = t;
        let es = empty_since_s[i];
        if !es.is_nan() && (!es.is_finite() || es < 0.0 || es > t) {
            return Err(PyValueError::new_err(format!(
                "empty_since_s[{i}] = {es}: must be NaN (queue not empty) or a time in [0, time_s[{i}]]"
            )));
        }
        if size_bytes[i] == 0 {
            return Err(PyValueError::new_err(format!(
                "size_bytes[{i}] = 0: must be >= 1"
            )));
        }
        arrivals.push(ReplayArrival {
            time: SimTime::from_secs_f64(t),
            q_pkts: q_pkts[i],
            q_bytes: q_bytes[i],
            empty_since: (!es.is_nan()).then(|| SimTime::from_secs_f64(es)),
            size_bytes: size_bytes[i],
            ect: ect[i],
        });
    }
    let steps = guarded("red_replay", || {
        Ok(replay(
            &cfg,
            packet_bytes,
            rate_bps,
            &arrivals,
            seed,
            port_name,
        ))
    })?;
    let d = PyDict::new(py);
    d.set_item(
        "avg",
        steps
            .iter()
            .map(|s| s.avg)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "p_b",
        steps
            .iter()
            .map(|s| s.p_b)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "p_a",
        steps
            .iter()
            .map(|s| s.p_a)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "count",
        steps
            .iter()
            .map(|s| s.count)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "verdict",
        steps
            .iter()
            .map(|s| match s.verdict {
                Verdict::Enqueue => 0u8,
                Verdict::Mark => 1,
                Verdict::Drop => 2,
            })
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    Ok(d)
}

fn output_to_dict<'py>(py: Python<'py>, out: RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let tables = PyDict::new(py);
    for t in out.tables {
        let td = PyDict::new(py);
        for (name, col) in t.columns {
            match col {
                Column::F64(v) => td.set_item(name, v.into_pyarray(py))?,
                Column::U64(v) => td.set_item(name, v.into_pyarray(py))?,
                Column::U32(v) => td.set_item(name, v.into_pyarray(py))?,
                Column::U8(v) => td.set_item(name, v.into_pyarray(py))?,
                Column::Str(v) => td.set_item(name, v)?,
            }
        }
        tables.set_item(t.name, td)?;
    }
    d.set_item("tables", tables)?;
    // tables with rows on disk: {name: {"columns": [(name, code)], "segments": [("file", path,
    // rows) | ("memory", start, rows)], "rows": n}}
    let spilled = PyDict::new(py);
    for sp in out.spilled {
        let td = PyDict::new(py);
        td.set_item("columns", sp.columns)?;
        let segs: Vec<(&str, Py<PyAny>, u64)> = sp
            .segments
            .into_iter()
            .map(|s| -> PyResult<_> {
                Ok(match s {
                    Segment::File { path, rows } => {
                        ("file", path.into_pyobject(py)?.into_any().unbind(), rows)
                    }
                    Segment::Memory { start, rows } => {
                        ("memory", start.into_pyobject(py)?.into_any().unbind(), rows)
                    }
                })
            })
            .collect::<PyResult<_>>()?;
        td.set_item("segments", segs)?;
        td.set_item("rows", sp.rows)?;
        spilled.set_item(sp.table, td)?;
    }
    d.set_item("spilled", spilled)?;
    d.set_item("scenario_json", out.scenario_json)?;
    let l = PyDict::new(py);
    l.set_item("sent", out.ledger.sent)?;
    l.set_item("delivered", out.ledger.delivered)?;
    l.set_item("dropped", out.ledger.dropped)?;
    l.set_item("in_flight", out.ledger.in_flight)?;
    d.set_item("ledger", l)?;
    d.set_item("events", out.events)?;
    d.set_item("sim_time_s", out.sim_time_s)?;
    d.set_item("ideal_fct_s", out.ideal_fct_s.into_pyarray(py))?;
    d.set_item("fct_sender_s", out.fct_sender_s.into_pyarray(py))?;
    d.set_item(
        "ideal_fct_sender_s",
        out.ideal_fct_sender_s.into_pyarray(py),
    )?;
    Ok(d)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(validate_build, m)?)?;
    m.add_function(wrap_pyfunction!(expand, m)?)?;
    m.add_function(wrap_pyfunction!(to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(cdf_builtins, m)?)?;
    m.add_function(wrap_pyfunction!(run_many, m)?)?;
    m.add_function(wrap_pyfunction!(red_replay, m)?)?;
    fluid::register(m)?;
    py_cc::register(m)?;
    py_rate::register(m)?;
    m.add_class::<Simulation>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
