//! The `[int]` table: in-band network telemetry (docs/engine.md, "In-band telemetry"). Ports
//! that stamp take the general path (a record needs the dequeue moment).

use crate::error::ScenarioError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which ports stamp telemetry into the data packets they send.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IntPorts {
    /// Every switch egress port (HPCC's setting: hosts' NICs do not stamp).
    #[default]
    Switches,
    /// Every port, hosts' NICs included.
    All,
}

fn d_max_slots() -> u32 {
    1 << 16
}

/// Largest `max_slots` accepted.
pub const MAX_INT_SLOTS: u32 = 1 << 24;

/// `[int]`: in-band telemetry at dequeue (HPCC, Li et al. SIGCOMM 2019, section 3.2).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IntConfig {
    /// Ports that stamp a record (transmission start time, bytes sent so far, queue length in bytes left behind, link rate) into each data packet when its transmission starts: "switches" (every switch port) or "all" (hosts' NICs too). These ports take the general path. Default "switches".
    #[serde(default)]
    pub ports: IntPorts,
    /// Largest ring of hop-record slots per flow, segments (2 to 2^24, rounded up to a power of two). A flow's ring starts at twice its path's bandwidth-delay product in packets and doubles when a segment still unacknowledged would lose its slot; past this size such a slot is overwritten and counted (the arena's `overwrites`, docs/engine.md). Default 65536.
    #[serde(default = "d_max_slots")]
    pub max_slots: u32,
}

impl Default for IntConfig {
    fn default() -> Self {
        IntConfig {
            ports: IntPorts::default(),
            max_slots: d_max_slots(),
        }
    }
}

impl IntConfig {
    pub(super) fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if !(2..=MAX_INT_SLOTS).contains(&self.max_slots) {
            return Err(ScenarioError::new(
                format!("{path}.max_slots"),
                self.max_slots,
                format!("must be from 2 to {MAX_INT_SLOTS} (2^24) segments"),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_slots_out_of_range_names_the_field() {
        for bad in [0, 1, MAX_INT_SLOTS + 1] {
            let c = IntConfig {
                max_slots: bad,
                ..IntConfig::default()
            };
            let e = c.validate("int").unwrap_err();
            assert_eq!(e.path, "int.max_slots", "{e}");
        }
        assert!(IntConfig::default().validate("int").is_ok());
    }
}
