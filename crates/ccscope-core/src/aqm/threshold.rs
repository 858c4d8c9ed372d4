//! DCTCP threshold marking (P000 §2.1, eq 8): CE-mark an arriving packet iff the
//! instantaneous queue it finds exceeds K. No averaging, no randomness.
//! E1: the paper says both "at least K" and "larger than K"; eq 8 (`q > K`) is the default,
//! `mark_at_or_above = true` gives `q >= K` (ns-2's RED-based DCTCP).

use super::{Decision, QueuePolicy, QueueView, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThresholdConfig {
    /// Marking threshold K, packets (exactly one of k_pkts / k_bytes). P000 Fig 2: 65 at 10 Gb/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k_pkts: Option<f64>,
    /// Marking threshold K, bytes (exactly one of k_pkts / k_bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k_bytes: Option<f64>,
    /// Mark when q >= K instead of q > K (E1). Default false.
    #[serde(default)]
    pub mark_at_or_above: bool,
}

#[derive(Clone, Debug)]
pub struct Threshold {
    /// K in packets (when counting packets).
    k_pkts: Option<f64>,
    /// K in bytes (when counting bytes).
    k_bytes: Option<f64>,
    at_or_above: bool,
}

impl Threshold {
    pub fn new(cfg: &ThresholdConfig, _packet_bytes: u32) -> Self {
        Threshold {
            k_pkts: cfg.k_pkts,
            k_bytes: cfg.k_bytes,
            at_or_above: cfg.mark_at_or_above,
        }
    }
}

impl QueuePolicy for Threshold {
    #[inline]
    fn on_enqueue(
        &mut self,
        _now: SimTime,
        _pkt: &Packet,
        q: &QueueView,
        _rng: &mut Rng,
    ) -> Decision {
        self.verdict(q).into()
    }
}

impl Threshold {
    /// Mark above K (at or above, with `mark_at_or_above`).
    #[inline]
    pub fn verdict(&self, q: &QueueView) -> Verdict {
        let (level, k) = match (self.k_pkts, self.k_bytes) {
            (Some(k), _) => (q.pkts as f64, k),
            (None, Some(k)) => (q.bytes as f64, k),
            (None, None) => return Verdict::Enqueue,
        };
        let over = if self.at_or_above {
            level >= k
        } else {
            level > k
        };
        if over {
            Verdict::Mark
        } else {
            Verdict::Enqueue
        }
    }
}
