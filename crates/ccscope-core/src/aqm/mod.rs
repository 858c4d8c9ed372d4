//! Queue policies (AQM) at switch egress ports.
//!
//! The port owns the buffer limit and asks its AQM, for every arriving packet, what to do:
//! [`Verdict::Enqueue`], [`Verdict::Mark`] (set CE if the packet is ECN-capable, otherwise drop
//! it — RFC 3168 AQM semantics, ALGORITHMS.md §2.1 [CHOICE]) or [`Verdict::Drop`].
//! Dispatch is a closed enum; sans-IO (`now` is passed in, randomness comes from the port's
//! own stream).

pub mod asm_cp;
pub mod choke;
pub mod qcn_cp;
pub mod red;
pub mod threshold;

use crate::packet::Packet;
use crate::rng::Rng;
use crate::tagged::{by_kind, no_fields, variant, Parse};
use crate::units::SimTime;
pub use red::{Red, RedAction, RedConfig};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
pub use threshold::{Threshold, ThresholdConfig};

/// What the queue looks like to an arriving packet (the arrival itself excluded).
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    /// Packets waiting (the packet on the wire is not counted, as in ns-2).
    pub pkts: u32,
    pub bytes: u64,
    /// When the queue last became empty, if it is empty now.
    pub empty_since: Option<SimTime>,
    /// Port line rate, bits/s.
    pub rate_bps: f64,
}

/// An AQM's decision for one arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Set CE if the packet is ECT; a non-ECT packet is dropped instead.
    Mark,
    Drop,
}

/// Queue-policy configuration, chosen by `kind`.
#[derive(Clone, Debug, Serialize, PartialEq, Default, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmConfig {
    /// Accept until the buffer is full (the port's limit), then tail-drop.
    #[default]
    DropTail,
    /// DCTCP switch: mark when the instantaneous queue exceeds K (P000 eq 8).
    Threshold(ThresholdConfig),
    /// Random Early Detection (Floyd & Jacobson 1993), mark or drop.
    Red(RedConfig),
    /// CHOKe / modified CHOKe with m samples (P003), with ECN.
    Choke(choke::ChokeConfig),
    /// IEEE 802.1Qau QCN congestion point (P002 §2.1): samples arrivals, sends CNMs; drop-tail buffer.
    Qcn(qcn_cp::QcnCpConfig),
    /// ASM congestion point (P002 §4.1): samples arrivals, sends Qf/dQ feedback; drop-tail buffer.
    Asm(asm_cp::AsmCpConfig),
}

/// Every queue policy a scenario can name, with its parser: the one list of `aqm.kind` values
/// (an unknown kind is an error naming these).
pub const KINDS: &[(&str, Parse<AqmConfig>)] = &[
    ("drop_tail", |v| {
        no_fields("drop_tail", &v, " (the buffer is the port's)")?;
        Ok(AqmConfig::DropTail)
    }),
    ("threshold", |v| Ok(AqmConfig::Threshold(variant(v)?))),
    ("red", |v| Ok(AqmConfig::Red(variant(v)?))),
    ("choke", |v| Ok(AqmConfig::Choke(variant(v)?))),
    ("qcn", |v| Ok(AqmConfig::Qcn(variant(v)?))),
    ("asm", |v| Ok(AqmConfig::Asm(variant(v)?))),
];

impl<'de> Deserialize<'de> for AqmConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        by_kind::<AqmConfig, D::Error>(toml::Value::deserialize(d)?, KINDS)
    }
}

/// `Option<AqmConfig>` fields (`deserialize_with`): the same table.
pub fn option_aqm<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<AqmConfig>, D::Error> {
    AqmConfig::deserialize(d).map(Some)
}

impl AqmConfig {
    pub fn kind_name(&self) -> &'static str {
        match self {
            AqmConfig::DropTail => "drop_tail",
            AqmConfig::Threshold(_) => "threshold",
            AqmConfig::Red(_) => "red",
            AqmConfig::Choke(_) => "choke",
            AqmConfig::Qcn(_) => "qcn",
            AqmConfig::Asm(_) => "asm",
        }
    }
}

/// The hooks of a queue policy.
pub trait QueuePolicy {
    /// Called for every packet arriving at the port, before the buffer-limit check.
    fn on_enqueue(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Verdict;
}

/// Closed set of queue policies. The larger states are boxed so that a port stays compact
/// (DropTail and threshold marking, the common cases, stay inline).
#[derive(Clone, Debug)]
pub enum Aqm {
    DropTail,
    Threshold(Threshold),
    Red(Box<Red>),
    /// Decided by the simulation (it needs the queue's contents): see `choke.rs`.
    Choke(Box<choke::Choke>),
    /// Congestion points: the simulation sends their feedback; the buffer is drop-tail.
    QcnCp(Box<qcn_cp::QcnCp>),
    AsmCp(Box<asm_cp::AsmCp>),
}

impl Aqm {
    /// `cpid` identifies the port for congestion points.
    pub fn from_config(cfg: &AqmConfig, packet_bytes: u32, cpid: u32) -> Aqm {
        match cfg {
            AqmConfig::Qcn(c) => Aqm::QcnCp(Box::new(qcn_cp::QcnCp::new(c, cpid))),
            AqmConfig::Asm(c) => Aqm::AsmCp(Box::new(asm_cp::AsmCp::new(c, cpid, packet_bytes))),
            AqmConfig::DropTail => Aqm::DropTail,
            AqmConfig::Threshold(c) => Aqm::Threshold(Threshold::new(c, packet_bytes)),
            AqmConfig::Red(c) => Aqm::Red(Box::new(Red::new(c, packet_bytes))),
            AqmConfig::Choke(c) => Aqm::Choke(Box::new(choke::Choke::new(c, packet_bytes))),
        }
    }
}

/// What each policy declares to the engine's one-hop lookahead (`build::sole_feeders`). Every
/// match lists every policy, so a new one must decide.
impl Aqm {
    /// Decides from the port's own arrivals alone, so its arrivals may be offered ahead of time
    /// by a sole feeder.
    pub fn may_be_fed_ahead(&self) -> bool {
        match self {
            Aqm::DropTail | Aqm::Threshold(_) | Aqm::Red(_) => true,
            Aqm::Choke(_) | Aqm::QcnCp(_) | Aqm::AsmCp(_) => false,
        }
    }

    /// Takes back packets already queued (CHOKe's victims): such a port never feeds ahead.
    pub fn takes_back_queued(&self) -> bool {
        match self {
            Aqm::Choke(_) => true,
            Aqm::DropTail | Aqm::Threshold(_) | Aqm::Red(_) | Aqm::QcnCp(_) | Aqm::AsmCp(_) => {
                false
            }
        }
    }

    /// Sends feedback frames that enter routes mid-way (congestion points): a run with one
    /// has no lookahead.
    pub fn sends_feedback(&self) -> bool {
        match self {
            Aqm::QcnCp(_) | Aqm::AsmCp(_) => true,
            Aqm::DropTail | Aqm::Threshold(_) | Aqm::Red(_) | Aqm::Choke(_) => false,
        }
    }
}

impl QueuePolicy for Aqm {
    #[inline]
    fn on_enqueue(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Verdict {
        match self {
            Aqm::DropTail => Verdict::Enqueue,
            Aqm::Threshold(a) => a.on_enqueue(now, pkt, q, rng),
            Aqm::Red(a) => a.on_enqueue(now, pkt, q, rng),
            // CHOKe's decision is taken by the simulation before the port sees the packet
            Aqm::Choke(_) | Aqm::QcnCp(_) | Aqm::AsmCp(_) => Verdict::Enqueue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind in the table reads as its own variant (no kind falls through to another's
    /// parser), and an unknown kind names every allowed one.
    #[test]
    fn every_kind_reads_as_itself_and_unknown_kinds_list_the_table() {
        let extra = |k: &str| match k {
            "threshold" => "k_pkts = 20",
            "red" | "choke" => "min_th_pkts = 5\nmax_th_pkts = 15",
            _ => "",
        };
        for (name, _) in KINDS {
            let text = format!("kind = \"{name}\"\n{}", extra(name));
            let cfg: AqmConfig = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(cfg.kind_name(), *name);
        }
        let err = toml::from_str::<AqmConfig>("kind = \"codle\"")
            .unwrap_err()
            .to_string();
        for (name, _) in KINDS {
            assert!(err.contains(&format!("`{name}`")), "{err}");
        }
        let err = toml::from_str::<AqmConfig>("kind = \"drop_tail\"\nk_pkts = 3")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown field `k_pkts`: drop_tail has no parameters"),
            "{err}"
        );
    }
}
