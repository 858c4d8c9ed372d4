//! The `[sched]` table (and `topology.links[i].sched`): traffic classes at a port and the
//! scheduler that serves them at dequeue time (docs/engine.md).
//!
//! A port without this table, or with one class, FIFO service and enqueue-only policies, keeps
//! the committed-FIFO path (a packet's departure is fixed when it is accepted); any other port
//! takes the general path, which decides at each transmission's end which packet goes next.

use super::check::pos;
use super::fmt_f;
use crate::error::ScenarioError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most traffic classes a port has (802.1Q's eight priorities).
pub const MAX_CLASSES: u8 = 8;

/// How a port chooses the class of its next transmission.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    /// Strict priority: the lowest-numbered class with a packet waiting goes first (class 0 is
    /// the highest priority, as band 0 of ns-3's PrioQueueDisc).
    #[default]
    Strict,
    /// Deficit round robin (Shreedhar and Varghese, SIGCOMM 1995), as Linux sch_drr: each
    /// backlogged class gets a quantum of `weights[c] x packet_bytes` bytes per round.
    Drr,
}

/// Which path the port's packets take.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PathKind {
    /// The committed FIFO when nothing needs a decision at dequeue (one class), else the general path.
    #[default]
    Auto,
    /// Always the general path (for comparing the two paths' cost; results are the same for one class).
    General,
}

fn d_classes() -> u8 {
    1
}

/// Traffic classes and their scheduler at a port.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SchedConfig {
    /// Number of traffic classes, 1 to 8. A packet's class is its flow's `class` (ACKs: `tcp.ack_class` when set); a class at or above this number is served as the last class. Default 1.
    #[serde(default = "d_classes")]
    pub classes: u8,
    /// Scheduler between classes: "strict" (class 0 first) or "drr". Default strict.
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// DRR weights, one per class (> 0): a class's quantum is weight x packet_bytes bytes per round. Default 1 for every class. Only with scheduler = "drr".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<Vec<f64>>,
    /// Per-class buffer limits, packets (>= 1), one per class, within the port's buffer. Default: the port's buffer is shared by all classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_buffer_pkts: Option<Vec<u32>>,
    /// "auto" (the committed FIFO when one class is enough) or "general" (always decide at dequeue). Default auto.
    #[serde(default)]
    pub path: PathKind,
}

impl Default for SchedConfig {
    fn default() -> Self {
        SchedConfig {
            classes: 1,
            scheduler: SchedulerKind::Strict,
            weights: None,
            class_buffer_pkts: None,
            path: PathKind::Auto,
        }
    }
}

impl SchedConfig {
    /// Whether a port with this table needs the general path.
    pub fn needs_general_path(&self) -> bool {
        self.classes > 1 || self.path == PathKind::General
    }

    /// Check the class count, the weights and the per-class limits (`buf_pkts`: the port's
    /// buffer, when it has a packet limit).
    pub(super) fn validate(&self, path: &str, buf_pkts: Option<u32>) -> Result<(), ScenarioError> {
        if !(1..=MAX_CLASSES).contains(&self.classes) {
            return Err(ScenarioError::new(
                format!("{path}.classes"),
                self.classes,
                format!("must be between 1 and {MAX_CLASSES}"),
            ));
        }
        let n = self.classes as usize;
        if let Some(w) = &self.weights {
            if self.scheduler != SchedulerKind::Drr {
                return Err(ScenarioError::new(
                    format!("{path}.weights"),
                    format!("{w:?}"),
                    "weights are for scheduler = \"drr\"; strict priority has none",
                ));
            }
            if w.len() != n {
                return Err(ScenarioError::new(
                    format!("{path}.weights"),
                    format!("{} values", w.len()),
                    format!("must give one weight per class ({n})"),
                ));
            }
            for (i, &x) in w.iter().enumerate() {
                pos(&format!("{path}.weights[{i}]"), x)?;
                if x > 1e6 {
                    return Err(ScenarioError::new(
                        format!("{path}.weights[{i}]"),
                        fmt_f(x),
                        "must be at most 1e6",
                    ));
                }
            }
        }
        if let Some(b) = &self.class_buffer_pkts {
            if b.len() != n {
                return Err(ScenarioError::new(
                    format!("{path}.class_buffer_pkts"),
                    format!("{} values", b.len()),
                    format!("must give one limit per class ({n})"),
                ));
            }
            for (i, &x) in b.iter().enumerate() {
                if x < 1 {
                    return Err(ScenarioError::new(
                        format!("{path}.class_buffer_pkts[{i}]"),
                        x,
                        "must be at least 1 packet",
                    ));
                }
                if let Some(total) = buf_pkts {
                    if x > total {
                        return Err(ScenarioError::new(
                            format!("{path}.class_buffer_pkts[{i}]"),
                            x,
                            format!("must be at most the port's buffer ({total} packets)"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_name_the_field() {
        let bad = [
            (
                SchedConfig {
                    classes: 9,
                    ..Default::default()
                },
                "s.classes",
            ),
            (
                SchedConfig {
                    classes: 0,
                    ..Default::default()
                },
                "s.classes",
            ),
            (
                SchedConfig {
                    classes: 2,
                    scheduler: SchedulerKind::Drr,
                    weights: Some(vec![1.0, 0.0]),
                    ..Default::default()
                },
                "s.weights[1]",
            ),
            (
                SchedConfig {
                    classes: 2,
                    scheduler: SchedulerKind::Drr,
                    weights: Some(vec![1.0]),
                    ..Default::default()
                },
                "s.weights",
            ),
            (
                SchedConfig {
                    classes: 2,
                    weights: Some(vec![1.0, 2.0]),
                    ..Default::default()
                },
                "s.weights",
            ),
            (
                SchedConfig {
                    classes: 2,
                    class_buffer_pkts: Some(vec![10, 200]),
                    ..Default::default()
                },
                "s.class_buffer_pkts[1]",
            ),
        ];
        for (c, field) in bad {
            let e = c.validate("s", Some(100)).unwrap_err();
            assert_eq!(e.path, field, "{e}");
        }
        assert!(SchedConfig::default().validate("s", Some(100)).is_ok());
        assert!(!SchedConfig::default().needs_general_path());
    }
}
