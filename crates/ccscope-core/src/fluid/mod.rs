//! Compiled fixed-step solver of the delay-differential fluid models (the `native` backend of
//! `ccscope.fluid.solver.integrate`).
//!
//! This is a line-by-line port of the numpy reference backend (`_integrate_numpy` in
//! `python/ccscope/fluid/solver.py`), one trajectory at a time: the same Heun step with the
//! delayed observable frozen at its step average, the same ring buffer of the observable
//! (length `ring_len`, linear interpolation between stored steps), the same projections and the
//! same limit-cycle monitor. Every arithmetic expression keeps numpy's order of operations and
//! numpy's `minimum`/`maximum`/`sum` semantics, so a trajectory is normally bit-identical to the
//! reference (the Python tests require 1e-9 relative). The models' right-hand sides are in
//! [`models`]; a batch is a set of independent trajectories, which the Python binding runs in
//! parallel.
//!
//! Nothing here panics on bad input: [`Problem::check`] reports shape errors as `Err(String)`.

pub mod models;
pub mod simd;

pub use models::{Dde, ModelKind};

/// Number of limit-cycle monitor fields, in the order of [`MONITOR_KEYS`].
pub const MONITOR_FIELDS: usize = 7;
/// Names of the monitor fields (the keys of `Integration.monitor` in Python).
pub const MONITOR_KEYS: [&str; MONITOR_FIELDS] = [
    "min",
    "max",
    "t_first",
    "t_last",
    "n_cross",
    "int_first",
    "int_last",
];

/// numpy's `np.maximum(a, b)` for scalars: NaN in `a` propagates, else the larger (ties: `a`).
#[inline(always)]
pub fn np_max(a: f64, b: f64) -> f64 {
    if a >= b || a.is_nan() {
        a
    } else {
        b
    }
}

/// numpy's `np.minimum(a, b)` for scalars.
#[inline(always)]
pub fn np_min(a: f64, b: f64) -> f64 {
    if a <= b || a.is_nan() {
        a
    } else {
        b
    }
}

/// numpy's `np.clip(x, lo, hi)` = minimum(maximum(x, lo), hi).
#[inline(always)]
pub fn np_clip(x: f64, lo: f64, hi: f64) -> f64 {
    np_min(np_max(x, lo), hi)
}

/// numpy's `np.sum` over a contiguous axis (pairwise summation: 8 accumulators, blocks of 128).
pub fn np_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut s = 0.0;
        for &v in a {
            s += v;
        }
        s
    } else if n <= 128 {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let mut i = 8;
        while i < n - n % 8 {
            for (j, rj) in r.iter_mut().enumerate() {
                *rj += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &a[i..] {
            res += v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        np_sum(&a[..n2]) + np_sum(&a[n2..])
    }
}

/// Fraction of a step during which a linearly interpolated signal is strictly above `threshold`
/// (`solver.fraction_above`).
#[inline(always)]
pub fn fraction_above(y_lo: f64, y_hi: f64, threshold: f64) -> f64 {
    let a = y_lo - threshold;
    let b = y_hi - threshold;
    let (ap, bp) = (a > 0.0, b > 0.0);
    if ap && bp {
        1.0
    } else if ap != bp {
        let span = a.abs() + b.abs();
        let safe = if span > 0.0 { span } else { 1.0 };
        let num = if ap { a } else { b };
        np_clip(num / safe, 0.0, 1.0)
    } else {
        0.0
    }
}

/// Step average of a continuous delayed signal (`solver.lag_mean`).
#[inline(always)]
pub fn lag_mean(y_lo: f64, y_hi: f64) -> f64 {
    0.5 * (y_lo + y_hi)
}

/// Step and horizon shared by every trajectory of a batch (as computed by `solver.integrate`).
#[derive(Clone, Copy, Debug)]
pub struct Steps {
    pub dt: f64,
    pub n_steps: usize,
    /// Store the state every that many steps (0: only the final state).
    pub record_every: usize,
    /// The monitor is active for steps n with n + 1 > settle_steps.
    pub settle_steps: i64,
    /// Length of the observable's ring buffer (> every lag + 1).
    pub ring_len: usize,
}

impl Steps {
    /// Recorded samples per trajectory (the initial state included), 0 when not recording.
    pub fn n_records(&self) -> usize {
        self.n_steps
            .checked_div(self.record_every)
            .map_or(0, |v| v + 1)
    }
}

/// One trajectory's inputs: initial state (n), lag steps and fractions per group (m), constant
/// history of the observables (k), monitor level and monitored component.
#[derive(Clone, Copy, Debug)]
pub struct Trajectory<'a> {
    pub x0: &'a [f64],
    pub k_lag: &'a [i64],
    pub f_lag: &'a [f64],
    pub history: &'a [f64],
    pub level: f64,
    pub monitor_index: usize,
}

/// What one trajectory returns: final state, recorded states (n_records x n, row-major) and the
/// monitor fields in the order of [`MONITOR_KEYS`].
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub x_final: Vec<f64>,
    pub records: Vec<f64>,
    pub monitor: [f64; MONITOR_FIELDS],
}

/// Largest state, group and observable counts the solver's fixed-size buffers hold.
pub const MAX_STATE: usize = 2 * models::MAX_GROUPS + 1;
/// Largest number of delayed observables.
pub const MAX_OBS: usize = 2;
const MAX_LAGS: usize = models::MAX_GROUPS * MAX_OBS;

/// Shape checks shared by the binding: every slice length against the model's dimensions.
pub fn check_trajectory<M: Dde>(
    model: &M,
    steps: &Steps,
    tr: &Trajectory<'_>,
) -> Result<(), String> {
    let (n, m, k) = (model.n_state(), model.n_groups(), model.n_obs());
    if n > MAX_STATE || m > models::MAX_GROUPS || k > MAX_OBS || n == 0 || m == 0 || k == 0 {
        return Err(format!(
            "state {n}, groups {m}, observables {k}: the native solver holds at most {MAX_STATE}, {}, {MAX_OBS}",
            models::MAX_GROUPS
        ));
    }
    if tr.x0.len() != n || tr.k_lag.len() != m || tr.f_lag.len() != m || tr.history.len() != k {
        return Err(format!(
            "x0/k_lag/f_lag/history lengths {}/{}/{}/{}: expected {n}/{m}/{m}/{k}",
            tr.x0.len(),
            tr.k_lag.len(),
            tr.f_lag.len(),
            tr.history.len()
        ));
    }
    if tr.monitor_index >= n {
        return Err(format!(
            "monitor_index {}: the state has {n} components",
            tr.monitor_index
        ));
    }
    if !(steps.dt.is_finite() && steps.dt > 0.0) {
        return Err(format!("dt = {}: must be finite and > 0", steps.dt));
    }
    for &kl in tr.k_lag {
        if kl < 0 || (kl as u64) + 2 > steps.ring_len as u64 {
            return Err(format!(
                "k_lag = {kl}: must lie in [0, ring_len - 2] (ring_len {})",
                steps.ring_len
            ));
        }
    }
    Ok(())
}

/// Limit-cycle monitor state (`solver.monitor_init` / `monitor_update`).
#[derive(Clone, Copy)]
struct Monitor {
    min: f64,
    max: f64,
    t_first: f64,
    t_last: f64,
    n_cross: f64,
    int_first: f64,
    int_last: f64,
    int_cum: f64,
}

impl Monitor {
    fn new() -> Self {
        Monitor {
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            t_first: f64::NAN,
            t_last: f64::NAN,
            n_cross: 0.0,
            int_first: f64::NAN,
            int_last: f64::NAN,
            int_cum: 0.0,
        }
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn update(
        &mut self,
        z0: f64,
        z1: f64,
        r0: f64,
        r1: f64,
        t0: f64,
        dt: f64,
        level: f64,
        active: bool,
    ) {
        let int_new = self.int_cum + if active { 0.5 * dt * (r0 + r1) } else { 0.0 };
        let down = active && (z0 > level) && (z1 <= level);
        let frac = if down { (z0 - level) / (z0 - z1) } else { 0.0 };
        let t_c = t0 + frac * dt;
        let int_c = self.int_cum + frac * (int_new - self.int_cum);
        let first = down && (self.n_cross == 0.0);
        if active {
            self.min = np_min(self.min, z1);
            self.max = np_max(self.max, z1);
        }
        if first {
            self.t_first = t_c;
            self.int_first = int_c;
        }
        if down {
            self.t_last = t_c;
            self.int_last = int_c;
        }
        self.n_cross += if down { 1.0 } else { 0.0 };
        self.int_cum = int_new;
    }

    fn fields(&self) -> [f64; MONITOR_FIELDS] {
        [
            self.min,
            self.max,
            self.t_first,
            self.t_last,
            self.n_cross,
            self.int_first,
            self.int_last,
        ]
    }
}

/// One trajectory in flight: state, observable ring, lag positions, monitor, records.
struct Lane<'a, M: Dde> {
    model: &'a M,
    tr: Trajectory<'a>,
    n: usize,
    m: usize,
    k: usize,
    x: [f64; MAX_STATE],
    /// ring[slot * k + c]: observable c stored at step `slot` (mod ring_len)
    ring: Vec<f64>,
    /// ring slot of y(t_n - k_lag dt) per group, (n - k_lag) mod ring_len, advanced each step
    mid: [usize; models::MAX_GROUPS],
    slot: usize,
    z: f64,
    r: f64,
    mon: Monitor,
    records: Vec<f64>,
    lag_lo: [f64; MAX_LAGS],
    lag_hi: [f64; MAX_LAGS],
    k1: [f64; MAX_STATE],
    k2: [f64; MAX_STATE],
    xe: [f64; MAX_STATE],
}

impl<'a, M: Dde> Lane<'a, M> {
    fn new(model: &'a M, steps: &Steps, tr: Trajectory<'a>) -> Self {
        let (n, m, k) = (model.n_state(), model.n_groups(), model.n_obs());
        let mut ring = vec![0.0; steps.ring_len * k];
        for slot in ring.chunks_exact_mut(k) {
            slot.copy_from_slice(tr.history);
        }
        let mut x = [0.0; MAX_STATE];
        x[..n].copy_from_slice(tr.x0);
        model.project(&mut x[..n]);
        model.observable(&x[..n], &mut ring[..k]);
        let n_rec = steps.n_records();
        let mut records = Vec::with_capacity(n_rec * n);
        if n_rec > 0 {
            records.extend_from_slice(&x[..n]);
        }
        let mut mid = [0usize; models::MAX_GROUPS];
        for (mj, &kl) in mid.iter_mut().zip(tr.k_lag) {
            *mj = (-kl).rem_euclid(steps.ring_len as i64) as usize;
        }
        let z = x[tr.monitor_index];
        let r = model.rate(&x[..n]);
        Lane {
            model,
            tr,
            n,
            m,
            k,
            x,
            ring,
            mid,
            slot: 0,
            z,
            r,
            mon: Monitor::new(),
            records,
            lag_lo: [0.0; MAX_LAGS],
            lag_hi: [0.0; MAX_LAGS],
            k1: [0.0; MAX_STATE],
            k2: [0.0; MAX_STATE],
            xe: [0.0; MAX_STATE],
        }
    }

    /// Advance by one step (`step` = n, from t_n to t_n + dt): `_integrate_numpy`'s loop body.
    #[inline(always)]
    fn step(&mut self, steps: &Steps, step: usize, record: bool) {
        let (n, m, k) = (self.n, self.m, self.k);
        let ring_len = steps.ring_len;
        let wrap = |i: usize| if i + 1 == ring_len { 0 } else { i + 1 };
        let (lag_lo, lag_hi) = (&mut self.lag_lo, &mut self.lag_hi);
        for j in 0..m {
            let f = self.tr.f_lag[j];
            let i_mid = self.mid[j];
            let i_new = wrap(i_mid) * k;
            let i_old = (if i_mid == 0 { ring_len - 1 } else { i_mid - 1 }) * k;
            self.mid[j] = wrap(i_mid);
            let i_mid = i_mid * k;
            for c in 0..k {
                let (y_new, y_mid, y_old) = (
                    self.ring[i_new + c],
                    self.ring[i_mid + c],
                    self.ring[i_old + c],
                );
                lag_lo[j * k + c] = (1.0 - f) * y_mid + f * y_old;
                lag_hi[j * k + c] = (1.0 - f) * y_new + f * y_mid;
            }
        }
        let (lo, hi) = (&lag_lo[..m * k], &lag_hi[..m * k]);
        // Heun step (solver.heun_step)
        let dt = steps.dt;
        let (k1, k2, xe) = (&mut self.k1, &mut self.k2, &mut self.xe);
        let model = self.model;
        let x = &mut self.x;
        model.rhs(&x[..n], lo, hi, &mut k1[..n]);
        for i in 0..n {
            xe[i] = x[i] + dt * k1[i];
        }
        model.project(&mut xe[..n]);
        model.rhs(&xe[..n], lo, hi, &mut k2[..n]);
        let half_dt = 0.5 * dt;
        for i in 0..n {
            x[i] += half_dt * (k1[i] + k2[i]);
        }
        model.project(&mut x[..n]);
        self.slot = wrap(self.slot);
        let s0 = self.slot * k;
        model.observable(&x[..n], &mut self.ring[s0..s0 + k]);
        let z1 = x[self.tr.monitor_index];
        // The monitor reads the rate only from the first active step on (r0 of step n + 1 is
        // r1 of step n), and an inactive update changes nothing: skipping both before the
        // settling time gives the same values as computing them.
        let active = step as i64 + 1 > steps.settle_steps;
        let r1 = if step as i64 + 2 > steps.settle_steps {
            model.rate(&x[..n])
        } else {
            0.0
        };
        if active {
            self.mon.update(
                self.z,
                z1,
                self.r,
                r1,
                step as f64 * dt,
                dt,
                self.tr.level,
                true,
            );
        }
        self.z = z1;
        self.r = r1;
        if record {
            self.records.extend_from_slice(&x[..n]);
        }
    }

    fn finish(self) -> Outcome {
        Outcome {
            x_final: self.x[..self.n].to_vec(),
            records: self.records,
            monitor: self.mon.fields(),
        }
    }
}

/// Integrate `L` trajectories in lock-step, one step of each in turn: their dependency chains
/// (each step waits for the previous one's divisions) are independent, so the CPU overlaps them.
/// Results are exactly those of integrating each alone. The caller has run [`check_trajectory`].
pub fn integrate_lanes<M: Dde, const L: usize>(
    models: [&M; L],
    steps: &Steps,
    trs: [Trajectory<'_>; L],
) -> [Outcome; L] {
    let mut lanes: [Lane<'_, M>; L] = std::array::from_fn(|l| Lane::new(models[l], steps, trs[l]));
    let mut until_record = steps.record_every;
    for step in 0..steps.n_steps {
        let mut record = false;
        if steps.record_every != 0 {
            until_record -= 1;
            if until_record == 0 {
                record = true;
                until_record = steps.record_every;
            }
        }
        for lane in lanes.iter_mut() {
            lane.step(steps, step, record);
        }
    }
    lanes.map(Lane::finish)
}

/// Integrate one trajectory (the caller has run [`check_trajectory`]).
pub fn integrate<M: Dde>(model: &M, steps: &Steps, tr: &Trajectory<'_>) -> Outcome {
    let [out] = integrate_lanes([model], steps, [*tr]);
    out
}

/// Trajectories interleaved by [`integrate_many`].
pub const LANES: usize = 4;

/// Integrate a set of trajectories of one model type, [`LANES`] at a time (the caller has run
/// [`check_trajectory`] on each).
pub fn integrate_many<M: Dde>(models: &[M], steps: &Steps, trs: &[Trajectory<'_>]) -> Vec<Outcome> {
    let mut out = Vec::with_capacity(models.len());
    let mut i = 0;
    while i + LANES <= models.len() {
        let ms: [&M; LANES] = std::array::from_fn(|l| &models[i + l]);
        let ts: [Trajectory<'_>; LANES] = std::array::from_fn(|l| trs[i + l]);
        out.extend(integrate_lanes(ms, steps, ts));
        i += LANES;
    }
    while i < models.len() {
        out.push(integrate(&models[i], steps, &trs[i]));
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn np_sum_matches_sequential_below_eight_and_pairwise_above() {
        assert_eq!(np_sum(&[1.0, 1e16, 1.0, -1e16]), 0.0);
        let a: Vec<f64> = (0..20).map(|i| 1.0 / (i as f64 + 1.0)).collect();
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        for (j, rj) in r.iter_mut().enumerate() {
            *rj += a[8 + j];
        }
        let mut want = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &a[16..] {
            want += v;
        }
        assert_eq!(np_sum(&a), want);
    }

    #[test]
    fn fraction_above_is_the_step_average_of_the_indicator() {
        assert_eq!(fraction_above(1.0, 2.0, 0.0), 1.0);
        assert_eq!(fraction_above(-1.0, -2.0, 0.0), 0.0);
        assert_eq!(fraction_above(-1.0, 3.0, 0.0), 0.75);
        assert_eq!(fraction_above(3.0, -1.0, 0.0), 0.75);
    }

    #[test]
    fn np_min_max_propagate_nan_like_numpy() {
        assert!(np_max(f64::NAN, 1.0).is_nan());
        assert!(np_max(1.0, f64::NAN).is_nan());
        assert!(np_min(f64::NAN, 1.0).is_nan());
        assert!(np_min(1.0, f64::NAN).is_nan());
        assert_eq!(np_clip(5.0, 0.0, 2.0), 2.0);
    }

    #[test]
    fn normalized_dctcp_settles_on_a_limit_cycle() {
        let model = models::Normalized {
            wbar: 10.0,
            g: 1.0 / 16.0,
            q_floor: -1.0,
        };
        let steps = Steps {
            dt: 0.01,
            n_steps: 20_000,
            record_every: 0,
            settle_steps: 10_000,
            ring_len: 102,
        };
        let tr = Trajectory {
            x0: &[10.0, (0.2f64).sqrt(), 0.0],
            k_lag: &[100],
            f_lag: &[0.0],
            history: &[-1.0],
            level: 0.0,
            monitor_index: 2,
        };
        check_trajectory(&model, &steps, &tr).unwrap();
        let out = integrate(&model, &steps, &tr);
        // interleaved lanes give exactly the single-trajectory result
        let many = integrate_many(&[model; 5], &steps, &[tr; 5]);
        assert!(many.iter().all(|o| *o == out));
        assert!(out.monitor[4] >= 5.0, "crossings {}", out.monitor[4]);
        assert!(out.monitor[0] < 0.0 && out.monitor[1] > 0.0);
    }

    #[test]
    fn shape_errors_are_reported_not_panicked() {
        let model = models::Normalized {
            wbar: 10.0,
            g: 0.5,
            q_floor: -1.0,
        };
        let steps = Steps {
            dt: 0.01,
            n_steps: 10,
            record_every: 0,
            settle_steps: 0,
            ring_len: 3,
        };
        let tr = Trajectory {
            x0: &[1.0, 0.5, 0.0],
            k_lag: &[5],
            f_lag: &[0.0],
            history: &[0.0],
            level: 0.0,
            monitor_index: 2,
        };
        assert!(check_trajectory(&model, &steps, &tr)
            .unwrap_err()
            .contains("k_lag = 5"));
        let tr = Trajectory { x0: &[1.0], ..tr };
        assert!(check_trajectory(&model, &steps, &tr).is_err());
    }
}
