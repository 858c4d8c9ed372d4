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
    /// A queue policy per class, one table per class (same tables as `aqm`: drop_tail, threshold, red, pie judge each arrival with its class's queue; codel and threshold_dequeue decide at the class's dequeue), replacing the port's `aqm` for every class. choke, qcn, asm, fq_codel and fq are refused. Default: every class runs the port's `aqm`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "option_aqm_list"
    )]
    pub class_aqm: Option<Vec<crate::aqm::AqmConfig>>,
}

/// `class_aqm`: a list of `aqm` tables, each read through `aqm::KINDS`.
fn option_aqm_list<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<crate::aqm::AqmConfig>>, D::Error> {
    Vec::<crate::aqm::AqmConfig>::deserialize(d).map(Some)
}

impl Default for SchedConfig {
    fn default() -> Self {
        SchedConfig {
            classes: 1,
            scheduler: SchedulerKind::Strict,
            weights: None,
            class_buffer_pkts: None,
            path: PathKind::Auto,
            class_aqm: None,
        }
    }
}

impl SchedConfig {
    /// Whether a port with this table needs the general path.
    pub fn needs_general_path(&self) -> bool {
        self.classes > 1 || self.path == PathKind::General || self.class_aqm.is_some()
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
                    format!("must give one weight per class ({n}) of {path}.classes"),
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
        if let Some(a) = &self.class_aqm {
            if a.len() != n {
                return Err(ScenarioError::new(
                    format!("{path}.class_aqm"),
                    format!("{} tables", a.len()),
                    format!("must give one queue policy per class ({n}) of {path}.classes"),
                ));
            }
            for (i, q) in a.iter().enumerate() {
                use crate::aqm::AqmConfig as A;
                if matches!(
                    q,
                    A::Choke(_) | A::Qcn(_) | A::Asm(_) | A::FqCodel(_) | A::Fq(_)
                ) {
                    return Err(ScenarioError::new(
                        format!("{path}.class_aqm[{i}].kind"),
                        q.kind_name(),
                        "a class's own policy is drop_tail, threshold, red, pie, codel or threshold_dequeue (choke, qcn and asm need the committed FIFO; fq_codel and fq go in the port's aqm)",
                    ));
                }
            }
        }
        if let Some(b) = &self.class_buffer_pkts {
            if b.len() != n {
                return Err(ScenarioError::new(
                    format!("{path}.class_buffer_pkts"),
                    format!("{} values", b.len()),
                    format!("must give one limit per class ({n}) of {path}.classes"),
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

impl SchedConfig {
    /// The ranges of each class's own policy (`class_aqm`) against the port's buffer, as the
    /// port's `aqm` is checked.
    pub(super) fn validate_class_aqm(
        &self,
        path: &str,
        buf_pkts: Option<u32>,
        buf_bytes: Option<u64>,
        packet_bytes: u32,
        buf_path: &str,
    ) -> Result<(), ScenarioError> {
        for (i, a) in self.class_aqm.iter().flatten().enumerate() {
            super::aqm::validate_aqm(
                &format!("{path}.class_aqm[{i}]"),
                a,
                buf_pkts,
                buf_bytes,
                packet_bytes,
                buf_path,
            )?;
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

fn d_lossless() -> Vec<u8> {
    vec![0]
}
fn d_quanta() -> u32 {
    65535
}

/// `[pfc]`: priority flow control (IEEE 802.1Qbb) at every switch (docs/engine.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfcConfig {
    /// Lossless traffic classes (0-7): a switch never drops their packets for lack of buffer and pauses the upstream port instead. Default [0].
    #[serde(default = "d_lossless")]
    pub classes: Vec<u8>,
    /// XOFF: bytes of a lossless class that arrived through one ingress link and still wait in the switch at which the switch sends PAUSE upstream (> 0).
    pub xoff_bytes: u64,
    /// XON: the count at or below which the switch sends a resume (PAUSE with quanta 0), bytes (< xoff_bytes).
    pub xon_bytes: u64,
    /// Pause time a PAUSE frame asks for, in quanta of 512 bit times at the paused link's rate (1 to 65535). The switch refreshes a pause at half this time while the count stays above XON. Default 65535 (802.1Qbb's largest).
    #[serde(default = "d_quanta")]
    pub pause_quanta: u32,
    /// Headroom above XOFF, bytes (0 to 2^40): what an ingress may still receive after its PAUSE is sent (IEEE 802.1Qbb Annex N; vendor practice: a round trip of the link at line rate plus two maximum frames). xoff_bytes + headroom_bytes must fit in every switch port's buffer (the pool with [shared_buffer]). The run counts the arrivals that take an ingress count above XOFF + headroom in classes.headroom_exceeded (lossless packets are never dropped). Default: none (not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom_bytes: Option<u64>,
}

impl PfcConfig {
    /// The lossless classes as a bit mask.
    pub fn mask(&self) -> u8 {
        self.classes.iter().fold(0u8, |m, &c| m | (1u8 << c.min(7)))
    }

    pub(super) fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if self.classes.is_empty() {
            return Err(ScenarioError::new(
                format!("{path}.classes"),
                "[]",
                "must name at least one lossless class (0 to 7)",
            ));
        }
        for (i, &c) in self.classes.iter().enumerate() {
            if c >= MAX_CLASSES {
                return Err(ScenarioError::new(
                    format!("{path}.classes[{i}]"),
                    c,
                    format!("must be a traffic class from 0 to {}", MAX_CLASSES - 1),
                ));
            }
        }
        if self.xoff_bytes == 0 || self.xoff_bytes > 1 << 40 {
            return Err(ScenarioError::new(
                format!("{path}.xoff_bytes"),
                self.xoff_bytes,
                "must be from 1 to 2^40 bytes",
            ));
        }
        if self.xon_bytes >= self.xoff_bytes {
            return Err(ScenarioError::new(
                format!("{path}.xon_bytes"),
                self.xon_bytes,
                format!(
                    "must be below xoff_bytes ({}): the switch resumes the upstream port once the count falls to XON",
                    self.xoff_bytes
                ),
            ));
        }
        if let Some(h) = self.headroom_bytes {
            if h > 1 << 40 {
                return Err(ScenarioError::new(
                    format!("{path}.headroom_bytes"),
                    h,
                    "must be from 0 to 2^40 bytes",
                ));
            }
        }
        if !(1..=65535).contains(&self.pause_quanta) {
            return Err(ScenarioError::new(
                format!("{path}.pause_quanta"),
                self.pause_quanta,
                "must be from 1 to 65535 (quanta of 512 bit times)",
            ));
        }
        Ok(())
    }

    /// XOFF and the headroom above it must fit in the buffer of a switch port (`buf_bytes`,
    /// `what`: how it is given, for the error).
    pub fn check_buffer(
        &self,
        path: &str,
        buf_bytes: u64,
        what: &str,
    ) -> Result<(), ScenarioError> {
        let Some(h) = self.headroom_bytes else {
            return Ok(());
        };
        if self.xoff_bytes.saturating_add(h) > buf_bytes {
            return Err(ScenarioError::new(
                format!("{path}.headroom_bytes"),
                h,
                format!(
                    "xoff_bytes + headroom_bytes must fit in the buffer of {what} ({buf_bytes} bytes): headroom_bytes at most {} with xoff_bytes = {}",
                    buf_bytes.saturating_sub(self.xoff_bytes),
                    self.xoff_bytes
                ),
            ));
        }
        Ok(())
    }
}
