//! Workloads that create flows while the run goes on (ALGORITHMS.md §7.4, FIGURES.md):
//! - **incast**: a client asks `servers` for a block each, all at once; the round ends when
//!   the last response is complete, and the next round starts `gap_s` later (partition/
//!   aggregate; P003 Fig 7 uses a fixed total of 1 MB split evenly).
//! - **poisson**: flows arrive as a Poisson process sized to a target load of a reference
//!   rate, sizes from a fixed value, a uniform range or an empirical CDF (P003 Fig 8:
//!   U[10 KB, 50 KB] at 20 % of 1 Gb/s).
//!
//! The schema types and the runtime ([`WorkloadState`]: arrivals, rounds, what to spawn) live
//! here; the engine (`sim::hosts`) schedules the events this runtime asks for and creates the
//! flows it names. Each workload draws from its own random stream.

use crate::cc::CcKind;
use crate::error::ScenarioError;
use crate::rng::Rng;
use crate::units::{SimDuration, SimTime};
use crate::world::NodeId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn d_one() -> u32 {
    1
}
fn d_cc() -> Vec<CcKind> {
    vec![CcKind::NewReno]
}

/// Most hosts one range may name (a typo such as "s0..s9999999" is an error, not a long list).
pub const MAX_HOST_RANGE: u64 = 100_000;

/// A host list as written: names, or a range "s0..s39" (also as an item of the list).
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // the schema's shape; `host_list` reads the value
enum HostList {
    /// Host names, each a name or a range.
    List(Vec<String>),
    /// A range "PREFIXa..PREFIXb": the hosts PREFIXa, ..., PREFIXb (a <= b, both included).
    Range(String),
}

/// Expand one item of a host list: a name stays itself, "s0..s39" becomes s0, s1, ..., s39.
/// Errors say what is wrong with the range and what is allowed.
pub fn expand_host_range(item: &str, out: &mut Vec<String>) -> Result<(), String> {
    let Some((lo, hi)) = item.split_once("..") else {
        out.push(item.to_string());
        return Ok(());
    };
    let allowed = "expected PREFIXa..PREFIXb with the same prefix and a <= b, e.g. \"s0..s39\"";
    let split = |s: &str| -> Option<(String, u64)> {
        let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || digits > 18 {
            return None;
        }
        let (p, n) = s.split_at(s.len() - digits);
        Some((p.to_string(), n.parse().ok()?))
    };
    let (Some((pa, a)), Some((pb, b))) = (split(lo), split(hi)) else {
        return Err(format!(
            "host range {item:?}: both ends need a number; {allowed}"
        ));
    };
    if pa != pb {
        return Err(format!(
            "host range {item:?}: the prefixes {pa:?} and {pb:?} differ; {allowed}"
        ));
    }
    if a > b {
        return Err(format!(
            "host range {item:?}: the start {a} is after the end {b}; {allowed}"
        ));
    }
    if b - a >= MAX_HOST_RANGE {
        return Err(format!(
            "host range {item:?}: {} hosts; expected at most {MAX_HOST_RANGE}",
            b - a + 1
        ));
    }
    out.extend((a..=b).map(|i| format!("{pa}{i}")));
    Ok(())
}

/// serde reader of a host list: a list of names (items may be ranges) or one range string.
fn host_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let items = match HostList::deserialize(d).map_err(|_| {
        serde::de::Error::custom("expected a list of host names or a range such as \"s0..s39\"")
    })? {
        HostList::List(v) => v,
        HostList::Range(s) => vec![s],
    };
    let mut out = Vec::with_capacity(items.len());
    for it in &items {
        expand_host_range(it, &mut out).map_err(serde::de::Error::custom)?;
    }
    Ok(out)
}

/// A flow generator, chosen by `kind`.
#[derive(Clone, Debug, Serialize, PartialEq, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadSpec {
    /// Synchronized responses from `servers` to one client, repeated in rounds.
    Incast(IncastSpec),
    /// Poisson arrivals of flows at a target load.
    Poisson(PoissonSpec),
}

impl<'de> Deserialize<'de> for WorkloadSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::tagged::{by_kind, variant, Parse};
        const KINDS: &[(&str, Parse<WorkloadSpec>)] = &[
            ("incast", |v| Ok(WorkloadSpec::Incast(variant(v)?))),
            ("poisson", |v| Ok(WorkloadSpec::Poisson(variant(v)?))),
        ];
        by_kind::<WorkloadSpec, D::Error>(toml::Value::deserialize(d)?, KINDS)
    }
}

/// Incast: every round, each server sends a block to the client at the same instant.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IncastSpec {
    /// Receiving host (the aggregator).
    pub client: String,
    /// Sending hosts (the workers), at least one: a list, or a range "s0..s39" (both ends included; also as list items).
    #[serde(deserialize_with = "host_list")]
    #[schemars(with = "HostList")]
    pub servers: Vec<String>,
    /// Bytes each server sends per round (>= 1). Give this or total_bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_bytes: Option<u64>,
    /// Bytes per round split evenly over the servers (P003 Fig 7: 1 MB / n). Give this or block_bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<u64>,
    /// Number of rounds (>= 1). Default 1.
    #[serde(default = "d_one")]
    pub rounds: u32,
    /// Pause between the end of a round and the next request, seconds (>= 0). Default 0.
    #[serde(default)]
    pub gap_s: f64,
    /// Time of the first request, seconds (>= 0). Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// Congestion control of the responses, assigned to the servers in turn (["dctcp", "new_reno"] alternates, E66). Default ["new_reno"].
    #[serde(default = "d_cc")]
    pub cc: Vec<CcKind>,
    /// Traffic class of the responses' data packets, 0 to 7 (`[sched]`). Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub class: u8,
}

fn is_zero(c: &u8) -> bool {
    *c == 0
}

/// Flow-size distribution, chosen by `kind`.
#[derive(Clone, Debug, Serialize, PartialEq, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SizeDist {
    /// Every flow has `bytes`.
    Fixed { bytes: u64 },
    /// Uniform integer sizes in [min_bytes, max_bytes].
    Uniform { min_bytes: u64, max_bytes: u64 },
    /// Empirical CDF: `points` = [[bytes, cumulative probability], ...], increasing, ending at probability 1; sizes are interpolated linearly between points.
    Cdf { points: Vec<[f64; 2]> },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixedFields {
    bytes: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UniformFields {
    min_bytes: u64,
    max_bytes: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CdfFields {
    points: Vec<[f64; 2]>,
}

impl<'de> Deserialize<'de> for SizeDist {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::tagged::{by_kind, variant, Parse};
        const KINDS: &[(&str, Parse<SizeDist>)] = &[
            ("fixed", |v| {
                variant::<FixedFields, _>(v).map(|f| SizeDist::Fixed { bytes: f.bytes })
            }),
            ("uniform", |v| {
                variant::<UniformFields, _>(v).map(|f| SizeDist::Uniform {
                    min_bytes: f.min_bytes,
                    max_bytes: f.max_bytes,
                })
            }),
            ("cdf", |v| {
                variant::<CdfFields, _>(v).map(|f| SizeDist::Cdf { points: f.points })
            }),
        ];
        by_kind::<SizeDist, D::Error>(toml::Value::deserialize(d)?, KINDS)
    }
}

impl SizeDist {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        match self {
            SizeDist::Fixed { bytes } if *bytes < 1 => Err(ScenarioError::new(
                format!("{path}.bytes"),
                bytes,
                "must be >= 1",
            )),
            SizeDist::Uniform {
                min_bytes,
                max_bytes,
            } => {
                if *min_bytes < 1 {
                    return Err(ScenarioError::new(
                        format!("{path}.min_bytes"),
                        min_bytes,
                        "must be >= 1",
                    ));
                }
                if max_bytes < min_bytes {
                    return Err(ScenarioError::new(
                        format!("{path}.max_bytes"),
                        max_bytes,
                        format!("must be >= min_bytes ({min_bytes})"),
                    ));
                }
                Ok(())
            }
            SizeDist::Cdf { points } => {
                if points.len() < 2 {
                    return Err(ScenarioError::new(
                        format!("{path}.points"),
                        format!("[{} points]", points.len()),
                        "needs at least two [bytes, probability] points",
                    ));
                }
                let mut prev = [0.0f64, -1.0];
                for (i, p) in points.iter().enumerate() {
                    let ok = p[0].is_finite()
                        && p[1].is_finite()
                        && p[0] >= 1.0
                        && (0.0..=1.0).contains(&p[1])
                        && p[0] >= prev[0]
                        && p[1] >= prev[1];
                    if !ok {
                        return Err(ScenarioError::new(format!("{path}.points[{i}]"), format!("[{}, {}]", p[0], p[1]), "must be [bytes >= 1, probability in [0, 1]], both non-decreasing along the list"));
                    }
                    prev = *p;
                }
                if (prev[1] - 1.0).abs() > 1e-9 {
                    return Err(ScenarioError::new(
                        format!("{path}.points[{}]", points.len() - 1),
                        prev[1],
                        "the last probability must be 1",
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Mean size, bytes.
    pub fn mean_bytes(&self) -> f64 {
        match self {
            SizeDist::Fixed { bytes } => *bytes as f64,
            SizeDist::Uniform {
                min_bytes,
                max_bytes,
            } => (*min_bytes + *max_bytes) as f64 / 2.0,
            SizeDist::Cdf { points } => {
                // mass at the first point, then linear pieces
                let mut m = points[0][0] * points[0][1];
                for w in points.windows(2) {
                    m += (w[1][1] - w[0][1]) * (w[0][0] + w[1][0]) / 2.0;
                }
                m
            }
        }
    }

    /// One size, bytes (>= 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match self {
            SizeDist::Fixed { bytes } => *bytes,
            SizeDist::Uniform {
                min_bytes,
                max_bytes,
            } => min_bytes + rng.below(max_bytes - min_bytes + 1),
            SizeDist::Cdf { points } => {
                let u = rng.uniform();
                if u <= points[0][1] {
                    return points[0][0].round().max(1.0) as u64;
                }
                for w in points.windows(2) {
                    if u <= w[1][1] {
                        let dp = w[1][1] - w[0][1];
                        let x = if dp > 0.0 {
                            w[0][0] + (u - w[0][1]) / dp * (w[1][0] - w[0][0])
                        } else {
                            w[1][0]
                        };
                        return x.round().max(1.0) as u64;
                    }
                }
                points[points.len() - 1][0].round().max(1.0) as u64
            }
        }
    }
}

/// Poisson flow arrivals.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    /// Sending hosts; each arrival picks one uniformly. A list, or a range "s0..s39" (both ends included; also as list items).
    #[serde(deserialize_with = "host_list")]
    #[schemars(with = "HostList")]
    pub src: Vec<String>,
    /// Receiving hosts; each arrival picks one uniformly (never its own source). A list or a range "r0..r3".
    #[serde(deserialize_with = "host_list")]
    #[schemars(with = "HostList")]
    pub dst: Vec<String>,
    /// Offered load as a fraction of reference_bps (0 < load <= 10).
    pub load: f64,
    /// Rate the load refers to, bits/s (> 0), e.g. the bottleneck rate.
    pub reference_bps: f64,
    /// Flow sizes.
    pub size: SizeDist,
    /// Congestion control, assigned to arrivals in turn. Default ["new_reno"].
    #[serde(default = "d_cc")]
    pub cc: Vec<CcKind>,
    /// First possible arrival, seconds (>= 0). Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// No arrivals after this time, seconds. Default: the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    /// Traffic class of the flows' data packets, 0 to 7 (`[sched]`). Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub class: u8,
}

impl PoissonSpec {
    /// Arrival rate, flows per second: load * reference / (8 * mean size).
    pub fn arrival_rate(&self) -> f64 {
        self.load * self.reference_bps / (8.0 * self.size.mean_bytes())
    }
}

impl IncastSpec {
    /// Bytes each server sends per round.
    pub fn block(&self) -> u64 {
        match (self.block_bytes, self.total_bytes) {
            (Some(b), _) => b,
            (None, Some(t)) => (t / self.servers.len().max(1) as u64).max(1),
            (None, None) => 1,
        }
    }
}

/// Runtime state of a workload.
#[derive(Clone, Debug)]
pub enum WorkloadState {
    Incast {
        client: NodeId,
        servers: Vec<NodeId>,
        block: u64,
        rounds_left: u32,
        round: u32,
        outstanding: u32,
        round_start: SimTime,
        gap: SimDuration,
        cc: Vec<CcKind>,
        class: u8,
    },
    Poisson {
        src: Vec<NodeId>,
        dst: Vec<NodeId>,
        rate: f64,
        size: SizeDist,
        cc: Vec<CcKind>,
        arrivals: u64,
        stop: SimTime,
        rng: Rng,
        class: u8,
    },
}

/// One completed incast round: (workload, round, start, end).
#[derive(Clone, Copy, Debug)]
pub struct RoundRecord {
    pub workload: u32,
    pub round: u32,
    pub start: SimTime,
    pub end: SimTime,
}

/// A flow a workload asks the engine to create now.
#[derive(Clone, Copy, Debug)]
pub struct Spawn {
    pub src: NodeId,
    pub dst: NodeId,
    pub cc: CcKind,
    pub bytes: u64,
    /// (workload index, round), kept on the flow.
    pub tag: (u32, u32),
    /// Traffic class of its data packets.
    pub class: u8,
}

impl WorkloadState {
    /// The workload's event at `now` (workload index `w`): pushes the flows to create onto
    /// `out` and returns the time of its next event, if it asks for one. The engine schedules
    /// that event before it creates the flows.
    pub fn fire(&mut self, w: u32, now: SimTime, out: &mut Vec<Spawn>) -> Option<SimTime> {
        match self {
            WorkloadState::Incast {
                client,
                servers,
                block,
                rounds_left,
                round,
                outstanding,
                round_start,
                cc,
                class,
                ..
            } => {
                if *rounds_left == 0 {
                    return None;
                }
                *rounds_left -= 1;
                *round_start = now;
                *outstanding = servers.len() as u32;
                for (j, s) in servers.iter().enumerate() {
                    out.push(Spawn {
                        src: *s,
                        dst: *client,
                        cc: cc[j % cc.len()],
                        bytes: *block,
                        tag: (w, *round),
                        class: *class,
                    });
                }
                None
            }
            WorkloadState::Poisson {
                src,
                dst,
                rate,
                size,
                cc,
                arrivals,
                stop,
                rng,
                class,
            } => {
                let a = src[rng.below(src.len() as u64) as usize];
                let mut b = dst[rng.below(dst.len() as u64) as usize];
                let mut tries = 0;
                while b == a && tries < 64 {
                    b = dst[rng.below(dst.len() as u64) as usize];
                    tries += 1;
                }
                let bytes = size.sample(rng);
                let kind = cc[(*arrivals % cc.len() as u64) as usize];
                *arrivals += 1;
                let next = now + SimDuration::from_secs_f64(rng.exponential(1.0 / *rate));
                if a != b {
                    out.push(Spawn {
                        src: a,
                        dst: b,
                        cc: kind,
                        bytes,
                        tag: (w, 0),
                        class: *class,
                    });
                }
                (next <= *stop).then_some(next)
            }
        }
    }

    /// A flow of round `round` of this workload (index `w`) completed at `now`. Returns the
    /// round's record when it was the round's last flow, and the time of the next round's event.
    pub fn flow_completed(
        &mut self,
        w: u32,
        round: u32,
        now: SimTime,
    ) -> (Option<RoundRecord>, Option<SimTime>) {
        let WorkloadState::Incast {
            outstanding,
            round: current,
            round_start,
            rounds_left,
            gap,
            ..
        } = self
        else {
            return (None, None);
        };
        if *current != round || *outstanding == 0 {
            return (None, None);
        }
        *outstanding -= 1;
        if *outstanding > 0 {
            return (None, None);
        }
        let rec = RoundRecord {
            workload: w,
            round,
            start: *round_start,
            end: now,
        };
        *current += 1;
        (Some(rec), (*rounds_left > 0).then(|| now + *gap))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn cdf_sampling_matches_its_mean() {
        let d = SizeDist::Cdf {
            points: vec![[1000.0, 0.5], [3000.0, 1.0]],
        };
        assert!((d.mean_bytes() - (500.0 + 0.5 * 2000.0)).abs() < 1e-9);
        let mut r = Rng::stream(1, "cdf");
        let n = 200_000;
        let m = (0..n).map(|_| d.sample(&mut r) as f64).sum::<f64>() / n as f64;
        assert!((m - d.mean_bytes()).abs() / d.mean_bytes() < 0.01, "{m}");
        let u = SizeDist::Uniform {
            min_bytes: 10_000,
            max_bytes: 50_000,
        };
        let m = (0..n).map(|_| u.sample(&mut r) as f64).sum::<f64>() / n as f64;
        assert!((m - 30_000.0).abs() < 200.0);
    }

    #[test]
    fn host_ranges_expand_both_ends_included_and_bad_ranges_say_why() {
        let spec: IncastSpec =
            toml::from_str("client = \"r0\"\nservers = \"s0..s3\"\nblock_bytes = 1\n").unwrap();
        assert_eq!(spec.servers, ["s0", "s1", "s2", "s3"]);
        let spec: PoissonSpec = toml::from_str(
            "src = [\"h1..h2\", \"x\"]\ndst = [\"r0\"]\nload = 0.5\nreference_bps = 1e9\nsize = { kind = \"fixed\", bytes = 1000 }\n",
        )
        .unwrap();
        assert_eq!(spec.src, ["h1", "h2", "x"]);
        let mut v = Vec::new();
        let e = expand_host_range("s39..s0", &mut v).unwrap_err();
        assert!(e.contains("start 39 is after the end 0"), "{e}");
        let e = expand_host_range("s0..", &mut v).unwrap_err();
        assert!(e.contains("both ends need a number"), "{e}");
        let e = expand_host_range("s0..r3", &mut v).unwrap_err();
        assert!(e.contains("prefixes"), "{e}");
        let e = expand_host_range("s0..s999999", &mut v).unwrap_err();
        assert!(e.contains("at most"), "{e}");
        assert!(v.is_empty());
    }
}
