//! The `[shared_buffer]` table: one buffer pool per switch, shared by its output queues under
//! Choudhury and Hahne's dynamic thresholds ("Dynamic queue length thresholds for shared-memory
//! packet switches", IEEE/ACM ToN 6(2), 1998, section II: a queue may take an arrival while its
//! length is below T(t) = alpha x (B - Q(t)), Q(t) the pool's total occupancy).

use super::check::pos;
use super::fmt_f;
use super::sched::MAX_CLASSES;
use crate::error::ScenarioError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn d_alpha() -> Vec<f64> {
    vec![1.0]
}

/// `alpha`: one number (every class) or a list (one per class).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(f64),
        Many(Vec<f64>),
    }
    match OneOrMany::deserialize(d).map_err(|_| {
        serde::de::Error::custom("expected a number or a list of numbers (one per class)")
    })? {
        OneOrMany::One(x) => Ok(vec![x]),
        OneOrMany::Many(v) => Ok(v),
    }
}

/// `[shared_buffer]`: a buffer pool per switch with dynamic thresholds (docs/engine.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedBufferConfig {
    /// Pool size B of each switch, bytes (1 to 2^40). It replaces the buffer limits of the switch's ports (buffer_pkts, buffer_bytes); class_buffer_pkts still apply.
    pub bytes: u64,
    /// Dynamic-threshold factor alpha (> 0, at most 1e6): a queue (one class of one port) takes an arrival while its bytes are below alpha x (bytes - the pool's occupancy). One number for every class, or a list of 1 to 8 values, one per class (a class past the list's end uses its last value). Default 1 (one congested queue settles at B/2, N at B/(1+N)).
    #[serde(default = "d_alpha", deserialize_with = "one_or_many")]
    pub alpha: Vec<f64>,
    /// Static reservation per queue, bytes (0 to bytes - 1): a queue holding less than this takes an arrival whatever the threshold, as long as the pool has room for it. Default 0.
    #[serde(default)]
    pub reserve_bytes: u64,
}

impl SharedBufferConfig {
    /// alpha of class index `c` (the list's last value past its end).
    pub fn alpha_of(&self, c: usize) -> f64 {
        self.alpha
            .get(c)
            .or(self.alpha.last())
            .copied()
            .unwrap_or(1.0)
    }

    pub(super) fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if self.bytes == 0 || self.bytes > 1 << 40 {
            return Err(ScenarioError::new(
                format!("{path}.bytes"),
                self.bytes,
                "must be from 1 to 2^40 bytes",
            ));
        }
        if self.alpha.is_empty() || self.alpha.len() > MAX_CLASSES as usize {
            return Err(ScenarioError::new(
                format!("{path}.alpha"),
                format!("{} values", self.alpha.len()),
                format!("must be one number or a list of 1 to {MAX_CLASSES} values, one per class"),
            ));
        }
        for (i, &a) in self.alpha.iter().enumerate() {
            let p = if self.alpha.len() == 1 {
                format!("{path}.alpha")
            } else {
                format!("{path}.alpha[{i}]")
            };
            pos(&p, a)?;
            if a > 1e6 {
                return Err(ScenarioError::new(p, fmt_f(a), "must be at most 1e6"));
            }
        }
        if self.reserve_bytes >= self.bytes {
            return Err(ScenarioError::new(
                format!("{path}.reserve_bytes"),
                self.reserve_bytes,
                format!(
                    "must be below bytes ({}): the reservation is part of the pool",
                    self.bytes
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_name_the_field() {
        let ok = SharedBufferConfig {
            bytes: 100_000,
            alpha: vec![1.0],
            reserve_bytes: 0,
        };
        assert!(ok.validate("b").is_ok());
        let bad = [
            (
                SharedBufferConfig {
                    bytes: 0,
                    ..ok.clone()
                },
                "b.bytes",
            ),
            (
                SharedBufferConfig {
                    alpha: vec![0.0],
                    ..ok.clone()
                },
                "b.alpha",
            ),
            (
                SharedBufferConfig {
                    alpha: vec![1.0, -2.0],
                    ..ok.clone()
                },
                "b.alpha[1]",
            ),
            (
                SharedBufferConfig {
                    alpha: vec![],
                    ..ok.clone()
                },
                "b.alpha",
            ),
            (
                SharedBufferConfig {
                    alpha: vec![1.0; 9],
                    ..ok.clone()
                },
                "b.alpha",
            ),
            (
                SharedBufferConfig {
                    reserve_bytes: 100_000,
                    ..ok.clone()
                },
                "b.reserve_bytes",
            ),
        ];
        for (c, field) in bad {
            let e = c.validate("b").unwrap_err();
            assert_eq!(e.path, field, "{e}");
        }
        let two = SharedBufferConfig {
            alpha: vec![0.5, 2.0],
            ..ok
        };
        assert_eq!(two.alpha_of(0), 0.5);
        assert_eq!(two.alpha_of(5), 2.0);
    }
}
