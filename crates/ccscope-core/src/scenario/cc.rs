//! The `[dctcp]`, `[dx]` and `[cubic]` sections: parameters of the window controllers of `cc/`, checked
//! here with the scenario's range rules.

use super::check::{nonneg, time_s, unit_interval};
use super::fmt_f;
use crate::cc::{CubicConfig, DctcpConfig, DxConfig};
use crate::error::ScenarioError;

impl DctcpConfig {
    /// Check the estimator gain, alpha's initial and reset values and the window floor.
    pub(super) fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        unit_interval(&format!("{path}.g"), self.g, true)?;
        unit_interval(&format!("{path}.alpha_init"), self.alpha_init, false)?;
        if let Some(t) = self.alpha_reset_s {
            time_s(&format!("{path}.alpha_reset_s"), t, true)?;
        }
        unit_interval(
            &format!("{path}.alpha_reset_to"),
            self.alpha_reset_to,
            false,
        )?;
        if !self.min_cwnd_pkts.is_finite() || self.min_cwnd_pkts < 1.0 || self.min_cwnd_pkts > 1e6 {
            return Err(ScenarioError::new(
                format!("{path}.min_cwnd_pkts"),
                fmt_f(self.min_cwnd_pkts),
                "must be between 1 and 1e6 packets",
            ));
        }
        Ok(())
    }
}

impl DxConfig {
    /// Check the queueing-delay tolerance and the base RTT (given, or taken from the path).
    pub(super) fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        nonneg(&format!("{path}.q_eps_s"), self.q_eps_s)?;
        if let Some(r) = self.base_rtt_s {
            time_s(&format!("{path}.base_rtt_s"), r, false)?;
            if self.base_rtt_from_path {
                return Err(ScenarioError::new(
                    format!("{path}.base_rtt_from_path"),
                    "true",
                    format!(
                        "give either {path}.base_rtt_s or {path}.base_rtt_from_path = true, not both"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Largest accepted CUBIC C, segments/s^3 (250 times RFC 9438's 0.4).
pub const CUBIC_MAX_C: f64 = 100.0;

impl CubicConfig {
    /// Check C (> 0, at most [`CUBIC_MAX_C`]) and beta_cubic (strictly between 0 and 1).
    pub(super) fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if !self.c.is_finite() || self.c <= 0.0 || self.c > CUBIC_MAX_C {
            return Err(ScenarioError::new(
                format!("{path}.c"),
                fmt_f(self.c),
                format!(
                    "must be > 0 and at most {CUBIC_MAX_C} segments/s^3 (RFC 9438 default 0.4)"
                ),
            ));
        }
        if !self.beta.is_finite() || self.beta <= 0.0 || self.beta >= 1.0 {
            return Err(ScenarioError::new(
                format!("{path}.beta"),
                fmt_f(self.beta),
                "must be strictly between 0 and 1 (RFC 9438 default 0.7)",
            ));
        }
        Ok(())
    }
}
