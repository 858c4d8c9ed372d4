//! The `[record]` section: which traces to keep, how often to sample them, which ports.

use super::check::time_s;
use super::fmt_f;
use crate::error::ScenarioError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A trace the recorder can keep.
#[derive(
    Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// Queue length of the recorded ports, sampled every queue_interval_s (or at every change).
    Queue,
    /// Cumulative bytes sent by the recorded ports, sampled with the queue.
    Link,
    /// cwnd, ssthresh and the fast-recovery flag of every flow, sampled every flow_interval_s.
    Cwnd,
    /// DCTCP alpha of every flow, sampled every flow_interval_s.
    Alpha,
    /// In-order bytes delivered per flow, sampled every flow_interval_s.
    Delivered,
    /// Every drop and mark at any port.
    Drops,
    /// Sending rate (and QCN target rate) of every rate-based flow, sampled every flow_interval_s.
    Rate,
    /// Every 802.1Qau feedback frame: when a congestion point sends it (queue, quantized
    /// values) and when its source applies it (rate before and after).
    Feedback,
    /// Every PFC frame (`[pfc]`) as it reaches the port it pauses or resumes: time, port, class,
    /// event (pause or resume), the pause quanta it carries and when the switch sent it. Not in
    /// the default list: ask for it by name.
    Pfc,
}

/// The traces kept by default ("pfc" is kept only when asked for).
pub const ALL_TRACES: [TraceKind; 8] = [
    TraceKind::Queue,
    TraceKind::Link,
    TraceKind::Cwnd,
    TraceKind::Alpha,
    TraceKind::Delivered,
    TraceKind::Drops,
    TraceKind::Rate,
    TraceKind::Feedback,
];

fn d_qint() -> f64 {
    1e-5
}
fn d_fint() -> f64 {
    1e-4
}
fn d_traces() -> Vec<TraceKind> {
    ALL_TRACES.to_vec()
}

/// Recording options (ALGORITHMS.md §8 metric definitions).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordConfig {
    /// Traces to keep. Default: "queue", "link", "cwnd", "alpha", "delivered", "drops", "rate", "feedback"; "pfc" (every PFC pause and resume frame, with `[pfc]`) only when listed.
    #[serde(default = "d_traces")]
    pub traces: Vec<TraceKind>,
    /// Queue and link sampling interval, seconds (> 0; at most 1e8 samples per series over until_s). Default 1e-5. Memory: recorded ports x samples, counted by the memory budget.
    #[serde(default = "d_qint")]
    pub queue_interval_s: f64,
    /// Record the queue at every change instead of sampling (exact, larger; capped inside the memory budget, see the `truncated` table). Default false.
    #[serde(default)]
    pub queue_every_change: bool,
    /// Per-flow sampling interval (cwnd, alpha, delivered), seconds (> 0; at most 1e8 samples per series over until_s). Default 1e-4. Memory: flows x samples, counted by the memory budget.
    #[serde(default = "d_fint")]
    pub flow_interval_s: f64,
    /// Ports to record, by name "from->to". Default: the template's bottleneck(s); in a graph every switch port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<String>>,
}

impl Default for RecordConfig {
    fn default() -> Self {
        RecordConfig {
            traces: d_traces(),
            queue_interval_s: d_qint(),
            queue_every_change: false,
            flow_interval_s: d_fint(),
            ports: None,
        }
    }
}

impl RecordConfig {
    /// Check the sampling intervals; `until_s` bounds the number of samples per series.
    pub(super) fn validate(&self, path: &str, until_s: f64) -> Result<(), ScenarioError> {
        let qp = format!("{path}.queue_interval_s");
        let fp = format!("{path}.flow_interval_s");
        time_s(&qp, self.queue_interval_s, false)?;
        time_s(&fp, self.flow_interval_s, false)?;
        // bound the number of samples so a typo cannot exhaust memory
        for (p, iv) in [(&qp, self.queue_interval_s), (&fp, self.flow_interval_s)] {
            if until_s / iv > 1e8 {
                return Err(ScenarioError::new(
                    p.as_str(),
                    fmt_f(iv),
                    format!(
                        "gives more than 1e8 samples per series over until_s = {}; use an interval >= {:e} s",
                        fmt_f(until_s),
                        until_s / 1e8
                    ),
                ));
            }
        }
        Ok(())
    }
}
