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

/// A part of an error message on one line: control characters (a newline in a table key, say)
/// written as escapes.
struct OneLine<'a>(&'a str);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (path, value, allowed) = (
            OneLine(&self.path),
            OneLine(&self.value),
            OneLine(&self.allowed),
        );
        if self.value.is_empty() {
            write!(f, "{path}: {allowed}")
        } else {
            write!(f, "{path} = {value}: {allowed}")
        }
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key with a newline (from a JSON scenario) cannot break the message over two lines.
    #[test]
    fn a_message_stays_on_one_line() {
        let e = ScenarioError::new("aqm.\n", "a\tb", "invalid type:\r null");
        let m = e.to_string();
        assert!(!m.chars().any(char::is_control), "{m}");
        assert_eq!(m, "aqm.\\n = a\\tb: invalid type:\\r null");
    }
}

/// A failure while running a valid scenario (an internal invariant broke).
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationError(pub String);

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimulationError {}
