//! Range rules shared by every section: positive and non-negative numbers, times the engine
//! can represent, link rates, fractions, counts; and the float text errors print.

use super::{MAX_RATE_BPS, MAX_TIME_S};
use crate::error::ScenarioError;

pub(super) fn pos(path: &str, v: f64) -> Result<(), ScenarioError> {
    if !v.is_finite() || v <= 0.0 {
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            "must be a finite number > 0",
        ));
    }
    Ok(())
}

pub(super) fn nonneg(path: &str, v: f64) -> Result<(), ScenarioError> {
    if !v.is_finite() || v < 0.0 {
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            "must be a finite number >= 0",
        ));
    }
    Ok(())
}
/// The smallest positive duration the engine can represent: 1 ps (`units::SimTime`). A positive
/// time below it would round to zero, and a zero-length timer that backs off by doubling stays
/// zero and fires without end.
const MIN_POSITIVE_TIME_S: f64 = 1e-12;

pub(super) fn time_s(path: &str, v: f64, allow_zero: bool) -> Result<(), ScenarioError> {
    if allow_zero {
        nonneg(path, v)?
    } else {
        pos(path, v)?;
        if v < MIN_POSITIVE_TIME_S {
            return Err(ScenarioError::new(
                path,
                fmt_f(v),
                format!(
                    "must be >= {MIN_POSITIVE_TIME_S:e} s (1 ps, the engine's time resolution)"
                ),
            ));
        }
    }
    if v > MAX_TIME_S {
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            format!("must be <= {MAX_TIME_S} s"),
        ));
    }
    Ok(())
}

pub(super) fn rate(path: &str, v: f64) -> Result<(), ScenarioError> {
    pos(path, v)?;
    if !(1.0..=MAX_RATE_BPS).contains(&v) {
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            format!("must be between 1 and {MAX_RATE_BPS:e} bits/s"),
        ));
    }
    Ok(())
}

pub(super) fn unit_interval(path: &str, v: f64, lo_open: bool) -> Result<(), ScenarioError> {
    let ok = v.is_finite() && v <= 1.0 && if lo_open { v > 0.0 } else { v >= 0.0 };
    if !ok {
        let range = if lo_open { "in (0, 1]" } else { "in [0, 1]" };
        return Err(ScenarioError::new(
            path,
            fmt_f(v),
            format!("must be {range}"),
        ));
    }
    Ok(())
}

pub(super) fn at_least(path: &str, v: u64, min: u64) -> Result<(), ScenarioError> {
    if v < min {
        return Err(ScenarioError::new(path, v, format!("must be >= {min}")));
    }
    Ok(())
}

/// Shortest float text that round-trips (and `nan`/`inf` as TOML writes them).
pub fn fmt_f(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if v != 0.0 && !(1e-4..1e16).contains(&v.abs()) {
        // `{}` would print 5e-324 as 324 digits
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}
