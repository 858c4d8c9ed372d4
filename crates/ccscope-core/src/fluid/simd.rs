//! The normalized DCTCP model (P000 eqs 11-14, [`models::Normalized`]) integrated `W`
//! trajectories at a time in structure-of-arrays form, every branch written as a select, so the
//! compiler turns each operation into one vector instruction over the lanes (AVX2 when the CPU
//! has it, chosen at run time). This is the model of the stability maps (10^4-10^6 points).
//!
//! Same arithmetic as the scalar path ([`super::integrate`]): IEEE add/mul/div/compare are
//! the same operations in a vector register, and Rust never fuses a multiply and an add, so each
//! lane's trajectory is bit-identical to the scalar one (tests below and tests/fluid/test_native.py).

use super::models::Normalized;
use super::{Outcome, Steps, Trajectory, MONITOR_FIELDS};

/// Trajectories per group (two AVX2 registers of f64).
pub const WIDTH: usize = 8;

type V = [f64; WIDTH];

#[inline(always)]
fn max_v(a: f64, b: f64) -> f64 {
    // numpy's maximum: NaN in `a` propagates, ties keep `a` (as super::np_max)
    if a >= b || a.is_nan() {
        a
    } else {
        b
    }
}

#[inline(always)]
fn min_v(a: f64, b: f64) -> f64 {
    if a <= b || a.is_nan() {
        a
    } else {
        b
    }
}

#[inline(always)]
fn fraction_above_v(y_lo: f64, y_hi: f64) -> f64 {
    // super::fraction_above(y_lo, y_hi, 0.0), branch-free
    let a = y_lo - 0.0;
    let b = y_hi - 0.0;
    let (ap, bp) = (a > 0.0, b > 0.0);
    let span = a.abs() + b.abs();
    let safe = if span > 0.0 { span } else { 1.0 };
    let num = if ap { a } else { b };
    let frac = min_v(max_v(num / safe, 0.0), 1.0);
    let cross = if ap != bp { frac } else { 0.0 };
    if ap && bp {
        1.0
    } else {
        cross
    }
}

struct Params {
    wbar: V,
    g: V,
    floor: V,
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn rhs(p: &Params, w: &V, a: &V, q: &V, lo: &V, hi: &V, dw: &mut V, da: &mut V, dq: &mut V) {
    for l in 0..WIDTH {
        let u = fraction_above_v(lo[l], hi[l]);
        let den = 1.0 + q[l];
        dw[l] = (1.0 - w[l] * a[l] * u / 2.0) / den;
        da[l] = p.g[l] * (u - a[l]) / den;
        let d = w[l] / (p.wbar[l] * den) - 1.0;
        dq[l] = if q[l] <= p.floor[l] { max_v(d, 0.0) } else { d };
    }
}

#[inline(always)]
fn run_group(
    models: &[Normalized; WIDTH],
    steps: &Steps,
    trs: &[Trajectory<'_>; WIDTH],
) -> [Outcome; WIDTH] {
    let p = Params {
        wbar: std::array::from_fn(|l| models[l].wbar),
        g: std::array::from_fn(|l| models[l].g),
        floor: std::array::from_fn(|l| models[l].q_floor),
    };
    let ring_len = steps.ring_len;
    let (dt, half_dt) = (steps.dt, 0.5 * steps.dt);
    let f = trs[0].f_lag[0];
    let level: V = std::array::from_fn(|l| trs[l].level);
    let mut w: V = std::array::from_fn(|l| trs[l].x0[0]);
    let mut a: V = std::array::from_fn(|l| trs[l].x0[1]);
    let mut q: V = std::array::from_fn(|l| max_v(trs[l].x0[2], p.floor[l]));
    let mut ring: Vec<V> = vec![std::array::from_fn(|l| trs[l].history[0]); ring_len];
    ring[0] = q;
    let rate = |w: &V, q: &V| -> V { std::array::from_fn(|l| w[l] / (p.wbar[l] * (1.0 + q[l]))) };
    let mut z = q;
    let mut r = rate(&w, &q);
    let (mut mn, mut mx): (V, V) = ([f64::INFINITY; WIDTH], [f64::NEG_INFINITY; WIDTH]);
    let (mut t_first, mut t_last, mut int_first, mut int_last) = (
        [f64::NAN; WIDTH],
        [f64::NAN; WIDTH],
        [f64::NAN; WIDTH],
        [f64::NAN; WIDTH],
    );
    let (mut n_cross, mut int_cum): (V, V) = ([0.0; WIDTH], [0.0; WIDTH]);
    let mut mid = (-trs[0].k_lag[0]).rem_euclid(ring_len as i64) as usize;
    let mut slot = 0usize;
    let wrap = |i: usize| if i + 1 == ring_len { 0 } else { i + 1 };
    let (mut k1w, mut k1a, mut k1q, mut k2w, mut k2a, mut k2q) = (
        [0.0; WIDTH],
        [0.0; WIDTH],
        [0.0; WIDTH],
        [0.0; WIDTH],
        [0.0; WIDTH],
        [0.0; WIDTH],
    );
    for step in 0..steps.n_steps {
        let (y_new, y_mid, y_old) = (
            ring[wrap(mid)],
            ring[mid],
            ring[if mid == 0 { ring_len - 1 } else { mid - 1 }],
        );
        mid = wrap(mid);
        let lo: V = std::array::from_fn(|l| (1.0 - f) * y_mid[l] + f * y_old[l]);
        let hi: V = std::array::from_fn(|l| (1.0 - f) * y_new[l] + f * y_mid[l]);
        rhs(&p, &w, &a, &q, &lo, &hi, &mut k1w, &mut k1a, &mut k1q);
        let ew: V = std::array::from_fn(|l| w[l] + dt * k1w[l]);
        let ea: V = std::array::from_fn(|l| a[l] + dt * k1a[l]);
        let eq: V = std::array::from_fn(|l| max_v(q[l] + dt * k1q[l], p.floor[l]));
        rhs(&p, &ew, &ea, &eq, &lo, &hi, &mut k2w, &mut k2a, &mut k2q);
        for l in 0..WIDTH {
            w[l] += half_dt * (k1w[l] + k2w[l]);
            a[l] += half_dt * (k1a[l] + k2a[l]);
            q[l] = max_v(q[l] + half_dt * (k1q[l] + k2q[l]), p.floor[l]);
        }
        slot = wrap(slot);
        ring[slot] = q;
        let z1 = q;
        let ns = step as i64;
        let r1 = if ns + 2 > steps.settle_steps {
            rate(&w, &q)
        } else {
            [0.0; WIDTH]
        };
        if ns + 1 > steps.settle_steps {
            // super::Monitor::update with active = true, lane by lane as selects
            let t0 = step as f64 * dt;
            for l in 0..WIDTH {
                let int_new = int_cum[l] + 0.5 * dt * (r[l] + r1[l]);
                let down = (z[l] > level[l]) & (z1[l] <= level[l]);
                let den = if down { z[l] - z1[l] } else { 1.0 };
                let frac = if down { (z[l] - level[l]) / den } else { 0.0 };
                let t_c = t0 + frac * dt;
                let int_c = int_cum[l] + frac * (int_new - int_cum[l]);
                let first = down & (n_cross[l] == 0.0);
                mn[l] = min_v(mn[l], z1[l]);
                mx[l] = max_v(mx[l], z1[l]);
                t_first[l] = if first { t_c } else { t_first[l] };
                int_first[l] = if first { int_c } else { int_first[l] };
                t_last[l] = if down { t_c } else { t_last[l] };
                int_last[l] = if down { int_c } else { int_last[l] };
                n_cross[l] += if down { 1.0 } else { 0.0 };
                int_cum[l] = int_new;
            }
        }
        z = z1;
        r = r1;
    }
    std::array::from_fn(|l| {
        let monitor: [f64; MONITOR_FIELDS] = [
            mn[l],
            mx[l],
            t_first[l],
            t_last[l],
            n_cross[l],
            int_first[l],
            int_last[l],
        ];
        Outcome {
            x_final: vec![w[l], a[l], q[l]],
            records: Vec::new(),
            monitor,
        }
    })
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_group_avx2(
    models: &[Normalized; WIDTH],
    steps: &Steps,
    trs: &[Trajectory<'_>; WIDTH],
) -> [Outcome; WIDTH] {
    run_group(models, steps, trs)
}

/// Whether [`integrate_normalized`] applies: no recorded trace and one lag (steps and fraction)
/// shared by every trajectory (the maps: delay 1 R*, one step).
pub fn applies(steps: &Steps, trs: &[Trajectory<'_>]) -> bool {
    steps.record_every == 0
        && trs.iter().all(|t| {
            t.k_lag.len() == 1
                && t.f_lag.len() == 1
                && t.k_lag[0] == trs[0].k_lag[0]
                && t.f_lag[0].to_bits() == trs[0].f_lag[0].to_bits()
                && t.history.len() == 1
                && t.x0.len() == 3
                && t.monitor_index == 2
        })
}

/// Integrate normalized-DCTCP trajectories, [`WIDTH`] at a time (the remainder on the scalar
/// path). The caller has checked [`applies`] and [`super::check_trajectory`].
pub fn integrate_normalized(
    models: &[Normalized],
    steps: &Steps,
    trs: &[Trajectory<'_>],
) -> Vec<Outcome> {
    let mut out = Vec::with_capacity(models.len());
    let mut i = 0;
    while i + WIDTH <= models.len() {
        let ms: &[Normalized; WIDTH] = models[i..i + WIDTH].try_into().expect("WIDTH models");
        let ts: &[Trajectory<'_>; WIDTH] =
            trs[i..i + WIDTH].try_into().expect("WIDTH trajectories");
        #[cfg(target_arch = "x86_64")]
        let group = if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { run_group_avx2(ms, steps, ts) }
        } else {
            run_group(ms, steps, ts)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let group = run_group(ms, steps, ts);
        out.extend(group);
        i += WIDTH;
    }
    out.extend(super::integrate_many(&models[i..], steps, &trs[i..]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_lanes_equal_the_scalar_path_bit_for_bit() {
        let wbars = [1.5, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0, 100.0, 3.0, 7.0, 12.0];
        let gs = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 0.0625, 0.9, 0.4, 0.15];
        let models: Vec<Normalized> = wbars
            .iter()
            .zip(gs)
            .enumerate()
            .map(|(i, (&wbar, g))| Normalized {
                wbar,
                g,
                q_floor: if i % 3 == 0 { -0.2 } else { -1.0 },
            })
            .collect();
        let x0: Vec<[f64; 3]> = wbars
            .iter()
            .map(|&w| [w, (2.0 / w).sqrt().min(1.0), 0.0])
            .collect();
        let trs: Vec<Trajectory<'_>> = x0
            .iter()
            .map(|x| Trajectory {
                x0: x,
                k_lag: &[100],
                f_lag: &[0.0],
                history: &[-1.0],
                level: 0.0,
                monitor_index: 2,
            })
            .collect();
        let steps = Steps {
            dt: 0.01,
            n_steps: 12_000,
            record_every: 0,
            settle_steps: 6_000,
            ring_len: 102,
        };
        assert!(applies(&steps, &trs));
        let fast = integrate_normalized(&models, &steps, &trs);
        for ((m, t), o) in models.iter().zip(&trs).zip(&fast) {
            let slow = super::super::integrate(m, &steps, t);
            assert_eq!(slow.x_final, o.x_final);
            for (a, b) in slow.monitor.iter().zip(o.monitor) {
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "{:?} vs {:?}",
                    slow.monitor,
                    o.monitor
                );
            }
        }
        assert!(
            fast.iter().any(|o| o.monitor[4] >= 3.0) && fast.iter().any(|o| o.monitor[4] == 0.0)
        );
    }
}
