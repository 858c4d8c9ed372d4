//! The `[flows]` template and the explicit `[[flow]]` entries.

use super::check::{at_least, rate, time_s};
use super::topology::{check_host, NodeKind, Topology};
use super::{fmt_f, MAX_TEMPLATE_COUNT};
use crate::cc::CcKind;
use crate::error::ScenarioError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// `count` flows of one kind; flow k runs from sender k mod S to receiver k mod R.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowsTemplate {
    /// Number of flows (>= 1).
    pub count: u32,
    /// Congestion control: "new_reno", "reno", "dctcp", "dctcp_per_ack", "dx", "cubic", "swift", the rate-based "qcn" / "asm", or the unresponsive "cbr". Default "new_reno".
    #[serde(default)]
    pub cc: CcKind,
    /// Start time of the first flow, seconds (>= 0). Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// Each flow starts at start_s + U(0, start_jitter_s) drawn from its own stream, seconds (>= 0). Default 0.
    #[serde(default)]
    pub start_jitter_s: f64,
    /// Flow size, bytes (>= 1). Default: long-lived (infinite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// Traffic class of the flows' data packets, 0 to 7 (`[sched]`; class 0 is served first under strict priority). Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub class: u8,
}

pub(super) fn is_zero(c: &u8) -> bool {
    *c == 0
}

/// Check a traffic class (`[sched]`): 0 to 7.
pub(super) fn check_class(path: &str, c: u8) -> Result<(), ScenarioError> {
    if c >= super::sched::MAX_CLASSES {
        return Err(ScenarioError::new(
            path,
            c,
            format!("must be between 0 and {}", super::sched::MAX_CLASSES - 1),
        ));
    }
    Ok(())
}

/// One explicit flow.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Sending host.
    pub src: String,
    /// Receiving host.
    pub dst: String,
    /// Congestion control: "new_reno", "dctcp", "dctcp_per_ack", "dx", "cubic" or "swift". Default "new_reno".
    #[serde(default)]
    pub cc: CcKind,
    /// Start time, seconds (>= 0). Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// Flow size, bytes (>= 1). Default: long-lived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// The sender stops taking new data at this time, seconds (> start_s); it finishes what it has sent. Default: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    /// Sending rate of a cc = "cbr" flow, bits/s (> 0). Default: its host link rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bps: Option<f64>,
    /// Traffic class of the flow's data packets, 0 to 7 (`[sched]`). Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub class: u8,
}

impl FlowsTemplate {
    /// Check counts, times and size; the template needs the dumbbell topology.
    pub(super) fn validate(&self, path: &str, topology: &Topology) -> Result<(), ScenarioError> {
        at_least(&format!("{path}.count"), self.count as u64, 1)?;
        if self.count > MAX_TEMPLATE_COUNT {
            return Err(ScenarioError::new(
                format!("{path}.count"),
                self.count,
                format!("must be <= {MAX_TEMPLATE_COUNT}"),
            ));
        }
        time_s(&format!("{path}.start_s"), self.start_s, true)?;
        time_s(&format!("{path}.start_jitter_s"), self.start_jitter_s, true)?;
        if let Some(s) = self.size_bytes {
            at_least(&format!("{path}.size_bytes"), s, 1)?;
        }
        check_class(&format!("{path}.class"), self.class)?;
        if !matches!(topology, Topology::Dumbbell(_)) {
            return Err(ScenarioError::new(path, "{...}", "the [flows] template needs the dumbbell topology; otherwise list flows as [[flow]] or use a [[workload]]"));
        }
        Ok(())
    }
}

impl FlowSpec {
    /// Check times, size and rate; in a graph (`hosts`) src and dst must be distinct hosts.
    pub(super) fn validate(
        &self,
        p: &str,
        hosts: Option<&HashMap<&str, NodeKind>>,
    ) -> Result<(), ScenarioError> {
        let f = self;
        time_s(&format!("{p}.start_s"), f.start_s, true)?;
        if let Some(r) = f.rate_bps {
            rate(&format!("{p}.rate_bps"), r)?;
            if f.cc != CcKind::Cbr {
                return Err(ScenarioError::new(
                    format!("{p}.rate_bps"),
                    fmt_f(r),
                    "only for cc = \"cbr\" flows",
                ));
            }
        }
        if let Some(st) = f.stop_s {
            time_s(&format!("{p}.stop_s"), st, false)?;
            if st <= f.start_s {
                return Err(ScenarioError::new(
                    format!("{p}.stop_s"),
                    fmt_f(st),
                    format!("must be > start_s ({})", fmt_f(f.start_s)),
                ));
            }
        }
        if let Some(s) = f.size_bytes {
            at_least(&format!("{p}.size_bytes"), s, 1)?;
        }
        check_class(&format!("{p}.class"), f.class)?;
        if let Some(h) = hosts {
            for (k, v) in [("src", &f.src), ("dst", &f.dst)] {
                check_host(Some(h), format!("{p}.{k}"), v)?;
            }
            if f.src == f.dst {
                return Err(ScenarioError::new(
                    format!("{p}.dst"),
                    format!("{:?}", f.dst),
                    "must differ from src",
                ));
            }
        }
        Ok(())
    }
}
