//! Deserialization of `kind`-tagged tables (topology, aqm) that keeps field paths in errors.
//!
//! serde's internally tagged enums buffer their content, so an error inside a variant loses
//! its path ("topology: invalid type" instead of "topology.bottleneck_bps: invalid type").
//! Here the table is read as a generic value, `kind` is taken out, and the variant's struct is
//! deserialized on its own with `serde_path_to_error`; the inner path travels inside the error
//! message between two [`MARK`]s and [`merge_path`] joins it to the outer path.

use crate::aqm::AqmConfig;
use serde::de::{DeserializeOwned, Error};
use serde::Deserialize;
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

/// Take `kind` out of a table; errors name `kind` and the allowed values.
pub fn split_kind<E: Error>(v: Value, allowed: &[&str]) -> Result<(String, Value), E> {
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
        Some(Value::String(k)) if allowed.contains(&k.as_str()) => Ok((k, Value::Table(m))),
        Some(Value::String(k)) => Err(E::custom(marked(
            "kind",
            &format!("unknown variant `{k}`, expected one of {list}"),
        ))),
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

pub fn aqm<E: Error>(v: Value) -> Result<AqmConfig, E> {
    let (kind, rest) =
        split_kind::<E>(v, &["drop_tail", "threshold", "red", "choke", "qcn", "asm"])?;
    match kind.as_str() {
        "drop_tail" => {
            if let Value::Table(m) = &rest {
                if let Some(k) = m.keys().next() {
                    return Err(E::custom(marked("", &format!("unknown field `{k}`: drop_tail has no parameters (the buffer is the port's)"))));
                }
            }
            Ok(AqmConfig::DropTail)
        }
        "threshold" => Ok(AqmConfig::Threshold(variant(rest)?)),
        "choke" => Ok(AqmConfig::Choke(variant(rest)?)),
        "qcn" => Ok(AqmConfig::Qcn(variant(rest)?)),
        "asm" => Ok(AqmConfig::Asm(variant(rest)?)),
        _ => Ok(AqmConfig::Red(variant(rest)?)),
    }
}

pub fn option_aqm<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<AqmConfig>, D::Error> {
    aqm::<D::Error>(Value::deserialize(d)?).map(Some)
}
