//! Python binding of the native fluid solver (`ccscope_core::fluid`): `fluid_integrate`, called by
//! `ccscope.fluid.solver.integrate(..., backend="native")`. The trajectories of a batch are
//! independent and run in parallel on rayon's pool, without the GIL.

use ccscope_core::fluid::{models, simd, ModelKind, Steps, Trajectory, MONITOR_FIELDS};
use numpy::ndarray::{Array2, Array3};
use numpy::{
    IntoPyArray, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Tasks per thread a batch is cut into (smooths out trajectories of unequal cost).
const CHUNKS_PER_THREAD: usize = 8;
/// Most trajectories per task (a 16 000-step map point costs ~0.1 ms: a wave lasts ~25 ms).
const MAX_CHUNK: usize = 256;

/// Threads for a batch: `RAYON_NUM_THREADS` when set to a positive integer, else every core.
fn fluid_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

type Integrated<'py> = (
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray3<f64>>,
    Bound<'py, PyArray2<f64>>,
);

fn slice2<'a, T: numpy::Element>(
    name: &str,
    a: &'a PyReadonlyArray2<'_, T>,
    rows: usize,
    cols: usize,
) -> PyResult<&'a [T]> {
    let shape = a.shape();
    if shape != [rows, cols] {
        return Err(PyValueError::new_err(format!(
            "{name}: shape {shape:?}, expected [{rows}, {cols}]"
        )));
    }
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name}: must be C-contiguous")))
}

/// Integrate a batch of B trajectories of `model` (see `ccscope_core::fluid::models::ModelKind`).
///
/// params: (B, row_len) in the order of the model's parameter names; x0: (B, n); k_lag, f_lag:
/// (B, m); history: (B, k); level: (B,). Returns (x_final (B, n), records (R, B, n), monitor
/// (B, 7) in the order min, max, t_first, t_last, n_cross, int_first, int_last).
#[pyfunction]
#[pyo3(signature = (model, m, params, x0, k_lag, f_lag, history, level, dt, n_steps, record_every, settle_steps,
                    ring_len, monitor_index))]
#[allow(clippy::too_many_arguments)]
pub fn fluid_integrate<'py>(
    py: Python<'py>,
    model: &str,
    m: usize,
    params: PyReadonlyArray2<'py, f64>,
    x0: PyReadonlyArray2<'py, f64>,
    k_lag: PyReadonlyArray2<'py, i64>,
    f_lag: PyReadonlyArray2<'py, f64>,
    history: PyReadonlyArray2<'py, f64>,
    level: PyReadonlyArray1<'py, f64>,
    dt: f64,
    n_steps: usize,
    record_every: usize,
    settle_steps: i64,
    ring_len: usize,
    monitor_index: usize,
) -> PyResult<Integrated<'py>> {
    let kind = ModelKind::from_name(model).ok_or_else(|| {
        let names: Vec<&str> = ModelKind::ALL.iter().map(|k| k.name()).collect();
        PyValueError::new_err(format!(
            "model = {model:?}: the native solver has {}",
            names.join(", ")
        ))
    })?;
    let batch = x0.shape()[0];
    let n = x0.shape()[1];
    let row = kind.row_len(m);
    let k = history.shape()[1];
    let p = slice2("params", &params, batch, row)?;
    let xs = slice2("x0", &x0, batch, n)?;
    let ks = slice2("k_lag", &k_lag, batch, m)?;
    let fs = slice2("f_lag", &f_lag, batch, m)?;
    let hs = slice2("history", &history, batch, k)?;
    let lv = level
        .as_slice()
        .map_err(|_| PyValueError::new_err("level: must be C-contiguous"))?;
    if lv.len() != batch {
        return Err(PyValueError::new_err(format!(
            "level: {} values, expected {batch}",
            lv.len()
        )));
    }
    let steps = Steps {
        dt,
        n_steps,
        record_every,
        settle_steps,
        ring_len,
    };
    let n_rec = steps.n_records();
    let cells = n_rec.checked_mul(batch).and_then(|v| v.checked_mul(n));
    if !matches!(cells, Some(v) if v <= isize::MAX as usize / 8) {
        return Err(PyValueError::new_err(format!(
            "record_every = {record_every}: {n_rec} records x batch {batch} is too large"
        )));
    }
    let traj = |b: usize| Trajectory {
        x0: &xs[b * n..(b + 1) * n],
        k_lag: &ks[b * m..(b + 1) * m],
        f_lag: &fs[b * m..(b + 1) * m],
        history: &hs[b * k..(b + 1) * k],
        level: lv[b],
        monitor_index,
    };
    // Tasks of at most MAX_CHUNK trajectories (a multiple of the trajectories integrated
    // together), run a wave of one per thread at a time with pending signals handled between
    // waves (Ctrl-C stops a long batch), on a pool built for this call: a global pool would not
    // survive a fork of this process.
    let threads = fluid_threads();
    let chunk = batch
        .div_ceil(CHUNKS_PER_THREAD * threads)
        .clamp(1, MAX_CHUNK)
        .next_multiple_of(simd::WIDTH);
    let run_chunk = |c: usize| {
        let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(batch));
        let trs: Vec<Trajectory<'_>> = (lo..hi).map(traj).collect();
        models::run(kind, m, &p[lo * row..hi * row], &steps, &trs)
    };
    let n_chunks = batch.div_ceil(chunk);
    let threads = threads.min(n_chunks);
    let pool = if threads >= 2 {
        Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("ccscope-fluid-{i}"))
                .build()
                .map_err(|e| {
                    PyRuntimeError::new_err(format!("cannot start {threads} threads: {e}"))
                })?,
        )
    } else {
        None
    };
    let mut outcomes = Vec::with_capacity(batch);
    let mut c0 = 0;
    while c0 < n_chunks {
        let c1 = (c0 + threads.max(1)).min(n_chunks);
        let wave = py.detach(|| {
            catch_unwind(AssertUnwindSafe(|| {
                let parts: Result<Vec<Vec<_>>, String> = match &pool {
                    Some(pool) => pool.install(|| {
                        use rayon::prelude::*;
                        (c0..c1).into_par_iter().map(run_chunk).collect()
                    }),
                    None => (c0..c1).map(run_chunk).collect(),
                };
                parts
            }))
        });
        match wave {
            Ok(Ok(parts)) => outcomes.extend(parts.into_iter().flatten()),
            Ok(Err(e)) => return Err(PyValueError::new_err(e)),
            Err(_) => {
                return Err(PyRuntimeError::new_err(
                    "native fluid solver: internal error (panic)",
                ))
            }
        }
        c0 = c1;
        if c0 < n_chunks {
            py.check_signals()?;
        }
    }
    let mut x_final = Array2::<f64>::zeros((batch, n));
    let mut records = Array3::<f64>::zeros((n_rec, batch, n));
    let mut monitor = Array2::<f64>::zeros((batch, MONITOR_FIELDS));
    for (b, o) in outcomes.iter().enumerate() {
        for i in 0..n {
            x_final[[b, i]] = o.x_final[i];
        }
        for r in 0..n_rec {
            for i in 0..n {
                records[[r, b, i]] = o.records[r * n + i];
            }
        }
        for (f, v) in o.monitor.iter().enumerate() {
            monitor[[b, f]] = *v;
        }
    }
    Ok((
        x_final.into_pyarray(py),
        records.into_pyarray(py),
        monitor.into_pyarray(py),
    ))
}

/// Register the fluid functions in the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fluid_integrate, m)?)?;
    Ok(())
}
