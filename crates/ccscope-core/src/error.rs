//! Errors, one enum per layer. Every scenario error names the field path, the value and
//! what is allowed: `topology.bottleneck_bps = -5: must be > 0`.

use std::fmt;

/// Bad input: a scenario that cannot be read or does not validate.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// Dotted path of the offending field (`links[2].rate_bps`), or `<file>` for file-level errors.
    pub path: String,
    /// The offending value as written (may be empty for missing fields).
    pub value: String,
    /// What is allowed, or what went wrong.
    pub allowed: String,
}

impl ScenarioError {
    pub fn new(
        path: impl Into<String>,
        value: impl fmt::Display,
        allowed: impl Into<String>,
    ) -> Self {
        ScenarioError {
            path: path.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}: {}", self.path, self.allowed)
        } else {
            write!(f, "{} = {}: {}", self.path, self.value, self.allowed)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// A failure while running a valid scenario (an internal invariant broke).
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationError(pub String);

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimulationError {}
