//! The `[dctcp]`, `[dx]`, `[cubic]` and `[swift]` sections: parameters of the window controllers of `cc/`, checked
//! here with the scenario's range rules.

use super::check::{nonneg, time_s, unit_interval};
use super::fmt_f;
use crate::cc::{CubicConfig, DctcpConfig, DxConfig, SwiftConfig};
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

/// Largest accepted Swift window bound, packets.
pub const SWIFT_MAX_CWND: f64 = 1e6;

impl SwiftConfig {
    /// Check each parameter's range and the order of the window pairs (min_cwnd <= max_cwnd,
    /// fs_min_cwnd < fs_max_cwnd).
    pub(super) fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let err = |f: &str, v: String, allowed: String| {
            Err(ScenarioError::new(format!("{path}.{f}"), v, allowed))
        };
        if !self.ai.is_finite() || self.ai <= 0.0 || self.ai > 1e3 {
            return err(
                "ai",
                fmt_f(self.ai),
                "must be > 0 and at most 1000 packets per RTT (default 1)".into(),
            );
        }
        for (f, v, d) in [("beta", self.beta, 0.8), ("max_mdf", self.max_mdf, 0.5)] {
            if !v.is_finite() || v <= 0.0 || v >= 1.0 {
                return err(
                    f,
                    fmt_f(v),
                    format!("must be strictly between 0 and 1 (default {d})"),
                );
            }
        }
        for (f, v, zero_ok) in [
            ("base_target_s", self.base_target_s, false),
            ("hop_scale_s", self.hop_scale_s, true),
            ("fs_range_s", self.fs_range_s, true),
        ] {
            if !v.is_finite() || v < 0.0 || (v == 0.0 && !zero_ok) || v > 1.0 {
                let lo = if zero_ok { ">= 0" } else { "> 0" };
                return err(f, fmt_f(v), format!("must be {lo} and at most 1 second"));
            }
        }
        for (f, v) in [
            ("fs_min_cwnd", self.fs_min_cwnd),
            ("fs_max_cwnd", self.fs_max_cwnd),
            ("min_cwnd", self.min_cwnd),
            ("max_cwnd", self.max_cwnd),
        ] {
            if !v.is_finite() || v <= 0.0 || v > SWIFT_MAX_CWND {
                return err(
                    f,
                    fmt_f(v),
                    format!("must be > 0 and at most {SWIFT_MAX_CWND} packets"),
                );
            }
        }
        if self.fs_min_cwnd >= self.fs_max_cwnd {
            return err(
                "fs_min_cwnd",
                fmt_f(self.fs_min_cwnd),
                format!("must be < {path}.fs_max_cwnd ({})", fmt_f(self.fs_max_cwnd)),
            );
        }
        if self.min_cwnd > self.max_cwnd {
            return err(
                "min_cwnd",
                fmt_f(self.min_cwnd),
                format!("must be <= {path}.max_cwnd ({})", fmt_f(self.max_cwnd)),
            );
        }
        if self.retx_reset_threshold == 0 {
            return err(
                "retx_reset_threshold",
                "0".into(),
                "must be >= 1 (default 5)".into(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{parse, Format};

    const BASE: &str = r#"
seed = 3
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 20e-6
[flows]
count = 2
cc = "swift"
"#;

    fn err(swift: &str) -> String {
        let text = format!("{BASE}[swift]\n{swift}\n");
        parse(&text, Format::Toml).unwrap_err().to_string()
    }

    #[test]
    fn swift_section_defaults_parse_and_bad_values_name_the_field() {
        let sc = parse(BASE, Format::Toml).unwrap();
        assert_eq!(sc.swift, crate::cc::SwiftConfig::default());
        assert_eq!(
            err("ai = 0.0"),
            "swift.ai = 0: must be > 0 and at most 1000 packets per RTT (default 1)"
        );
        assert_eq!(
            err("beta = 1.0"),
            "swift.beta = 1: must be strictly between 0 and 1 (default 0.8)"
        );
        assert_eq!(
            err("max_mdf = -0.5"),
            "swift.max_mdf = -0.5: must be strictly between 0 and 1 (default 0.5)"
        );
        assert_eq!(
            err("base_target_s = 0.0"),
            "swift.base_target_s = 0: must be > 0 and at most 1 second"
        );
        assert_eq!(
            err("hop_scale_s = nan"),
            "swift.hop_scale_s = nan: must be >= 0 and at most 1 second"
        );
        assert_eq!(
            err("fs_min_cwnd = 200.0"),
            "swift.fs_min_cwnd = 200: must be < swift.fs_max_cwnd (100)"
        );
        assert_eq!(
            err("min_cwnd = 5.0\nmax_cwnd = 2.0"),
            "swift.min_cwnd = 5: must be <= swift.max_cwnd (2)"
        );
        assert_eq!(
            err("max_cwnd = 0.0"),
            "swift.max_cwnd = 0: must be > 0 and at most 1000000 packets"
        );
        assert_eq!(
            err("retx_reset_threshold = 0"),
            "swift.retx_reset_threshold = 0: must be >= 1 (default 5)"
        );
        assert!(err("gamma = 1.0").contains("unknown field `gamma`"));
        // flow scaling off is allowed
        let ok = format!("{BASE}[swift]\nfs_range_s = 0.0\nhop_scale_s = 0.0\n");
        assert_eq!(parse(&ok, Format::Toml).unwrap().swift.fs_range_s, 0.0);
    }
}
