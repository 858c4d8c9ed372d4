//! The queue-policy tables (`aqm`, `topology.links[i].aqm`): ranges of every policy's
//! parameters and their relation to the port's buffer.

use super::check::{nonneg, unit_interval};
use super::fmt_f;
use crate::aqm::{AqmConfig, RedAction, RedConfig, RedMarkAt, ThresholdConfig};
use crate::error::ScenarioError;

/// Check the policy `a` at `path` against its port's buffer (`buf_pkts`/`buf_bytes`, named
/// `buf_path` in errors).
pub(super) fn validate_aqm(
    path: &str,
    a: &AqmConfig,
    buf_pkts: Option<u32>,
    buf_bytes: Option<u64>,
    packet_bytes: u32,
    buf_path: &str,
) -> Result<(), ScenarioError> {
    match a {
        AqmConfig::DropTail => Ok(()),
        AqmConfig::Threshold(ThresholdConfig {
            k_pkts, k_bytes, ..
        })
        | AqmConfig::ThresholdDequeue(ThresholdConfig {
            k_pkts, k_bytes, ..
        }) => match (k_pkts, k_bytes) {
            (Some(_), Some(_)) => Err(ScenarioError::new(
                format!("{path}.k_bytes"),
                "",
                "give either k_pkts or k_bytes, not both",
            )),
            (None, None) => Err(ScenarioError::new(
                format!("{path}.k_pkts"),
                "",
                "missing: the threshold AQM needs k_pkts (packets) or k_bytes",
            )),
            (Some(k), None) => {
                nonneg(&format!("{path}.k_pkts"), *k)?;
                if let Some(b) = buf_pkts {
                    if *k >= b as f64 {
                        return Err(ScenarioError::new(format!("{path}.k_pkts"), fmt_f(*k), format!("must be < {buf_path} ({b}): a threshold at or above the buffer never marks")));
                    }
                }
                if let Some(b) = buf_bytes {
                    if *k * packet_bytes as f64 >= b as f64 {
                        return Err(ScenarioError::new(
                            format!("{path}.k_pkts"),
                            fmt_f(*k),
                            format!(
                                "must be below the byte buffer ({b} B = {:.1} packets)",
                                b as f64 / packet_bytes as f64
                            ),
                        ));
                    }
                }
                Ok(())
            }
            (None, Some(k)) => {
                nonneg(&format!("{path}.k_bytes"), *k)?;
                let cap = buf_bytes
                    .map(|b| b as f64)
                    .into_iter()
                    .chain(buf_pkts.map(|b| b as f64 * packet_bytes as f64))
                    .fold(f64::INFINITY, f64::min);
                if *k >= cap {
                    return Err(ScenarioError::new(
                        format!("{path}.k_bytes"),
                        fmt_f(*k),
                        format!("must be < the buffer ({cap} bytes)"),
                    ));
                }
                Ok(())
            }
        },
        AqmConfig::Qcn(c) => c.validate(path),
        AqmConfig::Asm(c) => c.validate(path),
        AqmConfig::Pie(c) => c.validate(path),
        AqmConfig::Codel(c) => codel_times(path, c.target_s, c.interval_s),
        AqmConfig::Fq(c) => c.validate(path),
        AqmConfig::FqCodel(c) => {
            let range = |field: &str, v: u32, lo: u32, hi: u32| {
                if (lo..=hi).contains(&v) {
                    Ok(())
                } else {
                    Err(ScenarioError::new(
                        format!("{path}.{field}"),
                        v,
                        format!("must be an integer from {lo} to {hi}"),
                    ))
                }
            };
            range("flows", c.flows, 1, 65536)?;
            range("drop_batch", c.drop_batch, 1, 65536)?;
            if let Some(q) = c.quantum_bytes {
                range("quantum_bytes", q, 1, 1 << 24)?;
            }
            codel_times(path, c.target_s, c.interval_s)
        }
        AqmConfig::Choke(c) => {
            let red = AqmConfig::Red(c.red_config());
            validate_aqm(path, &red, buf_pkts, buf_bytes, packet_bytes, buf_path)?;
            if !(1..=crate::aqm::choke::MAX_CHOKE_SAMPLES).contains(&c.samples) {
                return Err(ScenarioError::new(
                    format!("{path}.samples"),
                    c.samples,
                    format!(
                        "must be between 1 and {}",
                        crate::aqm::choke::MAX_CHOKE_SAMPLES
                    ),
                ));
            }
            Ok(())
        }
        AqmConfig::Red(RedConfig {
            min_th_pkts,
            max_th_pkts,
            max_p,
            w_q,
            ns2_drop_ecn_above_p,
            mark_at,
            action,
            ..
        }) => {
            if *mark_at == RedMarkAt::Dequeue {
                if *action != RedAction::Mark {
                    return Err(ScenarioError::new(
                        format!("{path}.action"),
                        "\"drop\"",
                        "must be \"mark\" with mark_at = \"dequeue\": RED at dequeue marks the departing packet and never drops",
                    ));
                }
                if let Some(p) = ns2_drop_ecn_above_p {
                    return Err(ScenarioError::new(
                        format!("{path}.ns2_drop_ecn_above_p"),
                        fmt_f(*p),
                        "not allowed with mark_at = \"dequeue\" (it drops ECN-capable packets; RED at dequeue never drops): remove it or use mark_at = \"enqueue\"",
                    ));
                }
            }
            nonneg(&format!("{path}.min_th_pkts"), *min_th_pkts)?;
            nonneg(&format!("{path}.max_th_pkts"), *max_th_pkts)?;
            if max_th_pkts <= min_th_pkts {
                return Err(ScenarioError::new(
                    format!("{path}.max_th_pkts"),
                    fmt_f(*max_th_pkts),
                    format!("must be > {path}.min_th_pkts ({})", fmt_f(*min_th_pkts)),
                ));
            }
            unit_interval(&format!("{path}.max_p"), *max_p, true)?;
            unit_interval(&format!("{path}.w_q"), *w_q, true)?;
            if let Some(p) = ns2_drop_ecn_above_p {
                unit_interval(&format!("{path}.ns2_drop_ecn_above_p"), *p, true)?;
            }
            if let Some(b) = buf_pkts {
                if *min_th_pkts >= b as f64 {
                    return Err(ScenarioError::new(
                        format!("{path}.min_th_pkts"),
                        fmt_f(*min_th_pkts),
                        format!("must be < {buf_path} ({b})"),
                    ));
                }
            }
            Ok(())
        }
    }
}

/// CoDel's times (`codel`, and each flow queue of `fq_codel`): both > 0, target below interval.
fn codel_times(path: &str, target_s: f64, interval_s: f64) -> Result<(), ScenarioError> {
    super::check::time_s(&format!("{path}.target_s"), target_s, false)?;
    super::check::time_s(&format!("{path}.interval_s"), interval_s, false)?;
    if target_s >= interval_s {
        return Err(ScenarioError::new(
            format!("{path}.target_s"),
            fmt_f(target_s),
            format!(
                "must be below interval_s ({}): CoDel drops when the sojourn stays above target for a whole interval",
                fmt_f(interval_s)
            ),
        ));
    }
    Ok(())
}
