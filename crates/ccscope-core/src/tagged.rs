//! Deserialization of `kind`-tagged tables (topology, aqm) that keeps field paths in errors.
//!
//! serde's internally tagged enums buffer their content, so an error inside a variant loses
//! its path ("topology: invalid type" instead of "topology.bottleneck_bps: invalid type").
//! Here the table is read as a generic value, `kind` is taken out, and the variant's struct is
//! deserialized on its own with `serde_path_to_error`; the inner path travels inside the error
//! message between two [`MARK`]s and [`merge_path`] joins it to the outer path.

use serde::de::{DeserializeOwned, Error};
use toml::Value;

/// Delimits an inner field path at the start of an error message.
const MARK: char = '\u{1}';

fn marked(path: &str, msg: &str) -> String {
    let (p, m) = merge_path(path, msg);
    format!("{MARK}{p}{MARK}{m}")
}

/// Join an outer path and an error message that may start with a marked inner path.
pub fn merge_path(outer: &str, msg: &str) -> (String, String) {
    if let Some(rest) = msg.strip_prefix(MARK) {
        if let Some((inner, m)) = rest.split_once(MARK) {
            let path = match (
                outer.is_empty() || outer == ".",
                inner.is_empty() || inner == ".",
            ) {
                (true, _) => inner.to_string(),
                (false, true) => outer.to_string(),
                (false, false) => format!("{outer}.{inner}"),
            };
            return (path, m.to_string());
        }
    }
    (outer.to_string(), msg.to_string())
}

/// Take `kind` out of a table: its index in `allowed` and the rest of the table; errors name
/// `kind` and the allowed values.
fn split_kind<E: Error>(v: Value, allowed: &[&str]) -> Result<(usize, Value), E> {
    let list = allowed
        .iter()
        .map(|a| format!("`{a}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let Value::Table(mut m) = v else {
        return Err(E::custom(format!(
            "invalid type: {}, expected a table with `kind` = one of {list}",
            describe(&v)
        )));
    };
    match m.remove("kind") {
        Some(Value::String(k)) => match allowed.iter().position(|a| *a == k) {
            Some(i) => Ok((i, Value::Table(m))),
            None => Err(E::custom(marked(
                "kind",
                &format!("unknown variant `{k}`, expected one of {list}"),
            ))),
        },
        Some(other) => Err(E::custom(marked(
            "kind",
            &format!("invalid type: {}, expected one of {list}", describe(&other)),
        ))),
        None => {
            let keys = m
                .keys()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let seen = if keys.is_empty() {
                String::new()
            } else {
                format!(" (the table has {keys})")
            };
            Err(E::custom(marked(
                "kind",
                &format!("missing field `kind`: expected one of {list}{seen}"),
            )))
        }
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Boolean(b) => format!("boolean `{b}`"),
        Value::Integer(n) => format!("integer `{n}`"),
        Value::Float(n) => format!("number `{n}`"),
        Value::Datetime(d) => format!("datetime `{d}`"),
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "array".into(),
        Value::Table(_) => "table".into(),
    }
}

/// Deserialize one variant's struct with its own field paths.
pub fn variant<T: DeserializeOwned, E: Error>(v: Value) -> Result<T, E> {
    serde_path_to_error::deserialize(v)
        .map_err(|e| E::custom(marked(&e.path().to_string(), &e.inner().to_string())))
}

/// An error message on its way from a variant's parser to the caller's error type (it keeps
/// the marked inner path, so [`merge_path`] still finds it).
#[derive(Debug)]
pub struct Msg(pub String);

impl std::fmt::Display for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Msg {}

impl Error for Msg {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Msg(msg.to_string())
    }
}

/// How one `kind` is read: the rest of the table (without `kind`) to the value.
pub type Parse<T> = fn(Value) -> Result<T, Msg>;

/// Read a `kind`-tagged table through its table of kinds: the allowed names and their parsers
/// are one list, so a kind cannot be allowed without its own parser (there is no fallback).
pub fn by_kind<T, E: Error>(v: Value, kinds: &[(&str, Parse<T>)]) -> Result<T, E> {
    let names: Vec<&str> = kinds.iter().map(|(n, _)| *n).collect();
    let (i, rest) = split_kind::<E>(v, &names)?;
    (kinds[i].1)(rest).map_err(|m| E::custom(m.0))
}

/// A kind without parameters: any key besides `kind` is an error naming it.
pub fn no_fields(kind: &str, rest: &Value, why: &str) -> Result<(), Msg> {
    if let Value::Table(m) = rest {
        if let Some(k) = m.keys().next() {
            return Err(Msg(marked(
                "",
                &format!("unknown field `{k}`: {kind} has no parameters{why}"),
            )));
        }
    }
    Ok(())
}
