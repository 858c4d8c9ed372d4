//! The `[[workload]]` entries (schema types in `crate::workload`): hosts, sizes, times and
//! the number of flows an entry may create.

use super::check::{at_least, time_s};
use super::fmt_f;
use super::topology::NodeKind;
use crate::error::ScenarioError;
use crate::workload::WorkloadSpec;
use std::collections::HashMap;

/// Largest `reference_bps` of a Poisson workload, bits/s: the rate of a whole fabric, not of one link.
pub const MAX_REFERENCE_BPS: f64 = 1e17;

impl WorkloadSpec {
    /// Check one entry at `p`; in a graph (`hosts`) every host it names must be a host;
    /// `until_s` bounds the flows a Poisson entry may create.
    pub(super) fn validate(
        &self,
        p: &str,
        hosts: Option<&HashMap<&str, NodeKind>>,
        until_s: f64,
    ) -> Result<(), ScenarioError> {
        let check_host = |path: String, name: &str| super::topology::check_host(hosts, path, name);
        match self {
            WorkloadSpec::Incast(x) => {
                super::flows::check_class(&format!("{p}.class"), x.class)?;
                check_host(format!("{p}.client"), &x.client)?;
                if x.servers.is_empty() {
                    return Err(ScenarioError::new(
                        format!("{p}.servers"),
                        "[]",
                        "must list at least one host",
                    ));
                }
                for (j, s) in x.servers.iter().enumerate() {
                    check_host(format!("{p}.servers[{j}]"), s)?;
                    if *s == x.client {
                        return Err(ScenarioError::new(
                            format!("{p}.servers[{j}]"),
                            format!("{s:?}"),
                            "must differ from the client",
                        ));
                    }
                }
                match (x.block_bytes, x.total_bytes) {
                    (Some(_), Some(_)) => {
                        return Err(ScenarioError::new(
                            format!("{p}.total_bytes"),
                            "",
                            "give either block_bytes or total_bytes, not both",
                        ))
                    }
                    (None, None) => {
                        return Err(ScenarioError::new(
                            format!("{p}.block_bytes"),
                            "",
                            "missing: give block_bytes (per server) or total_bytes (split evenly)",
                        ))
                    }
                    (Some(b), None) => at_least(&format!("{p}.block_bytes"), b, 1)?,
                    (None, Some(t)) => {
                        at_least(&format!("{p}.total_bytes"), t, x.servers.len() as u64)?
                    }
                }
                at_least(&format!("{p}.rounds"), x.rounds as u64, 1)?;
                time_s(&format!("{p}.gap_s"), x.gap_s, true)?;
                time_s(&format!("{p}.start_s"), x.start_s, true)?;
                time_s(&format!("{p}.jitter_s"), x.jitter_s, true)?;
                if x.cc.is_empty() {
                    return Err(ScenarioError::new(
                        format!("{p}.cc"),
                        "[]",
                        "must list at least one algorithm",
                    ));
                }
            }
            WorkloadSpec::Poisson(x) => {
                super::flows::check_class(&format!("{p}.class"), x.class)?;
                for (f, list) in [("src", &x.src), ("dst", &x.dst)] {
                    if list.is_empty() {
                        return Err(ScenarioError::new(
                            format!("{p}.{f}"),
                            "[]",
                            "must list at least one host",
                        ));
                    }
                    for (j, s) in list.iter().enumerate() {
                        check_host(format!("{p}.{f}[{j}]"), s)?;
                    }
                }
                if x.src.len() == 1 && x.dst.len() == 1 && x.src[0] == x.dst[0] {
                    return Err(ScenarioError::new(
                        format!("{p}.dst"),
                        format!("{:?}", x.dst[0]),
                        "must contain a host other than the only source",
                    ));
                }
                if !(x.load.is_finite() && x.load > 0.0 && x.load <= 1.0) {
                    return Err(ScenarioError::new(
                        format!("{p}.load"),
                        fmt_f(x.load),
                        "must be in (0, 1] (a fraction of reference_bps; to offer more than a fabric carries, give a larger reference_bps)",
                    ));
                }
                // the sum of many links' rates (a whole fabric): up to a million 100 Gb/s hosts
                if !(x.reference_bps.is_finite()
                    && (1.0..=MAX_REFERENCE_BPS).contains(&x.reference_bps))
                {
                    return Err(ScenarioError::new(
                        format!("{p}.reference_bps"),
                        fmt_f(x.reference_bps),
                        format!("must be between 1 and {MAX_REFERENCE_BPS:e} bits/s"),
                    ));
                }
                x.size.validate(&format!("{p}.size"))?;
                time_s(&format!("{p}.start_s"), x.start_s, true)?;
                time_s(&format!("{p}.jitter_s"), x.jitter_s, true)?;
                if let Some(st) = x.stop_s {
                    time_s(&format!("{p}.stop_s"), st, false)?;
                }
                if x.cc.is_empty() {
                    return Err(ScenarioError::new(
                        format!("{p}.cc"),
                        "[]",
                        "must list at least one algorithm",
                    ));
                }
                // bound the number of flows a typo can create
                let horizon = x.stop_s.unwrap_or(until_s).min(until_s) - x.start_s;
                if x.arrival_rate() * horizon.max(0.0) > 5e6 {
                    return Err(ScenarioError::new(
                        format!("{p}.load"),
                        fmt_f(x.load),
                        format!(
                            "would create about {:.0} flows before until_s; at most 5e6",
                            x.arrival_rate() * horizon
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}
