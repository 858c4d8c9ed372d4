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
    /// Each server's response of each round starts U[0, jitter_s) after the round's request, drawn from the workload's own stream of the run's seed, seconds (>= 0). Default 0: every response at the request.
    #[serde(default, skip_serializing_if = "is_zero_f")]
    pub jitter_s: f64,
}

fn is_zero(c: &u8) -> bool {
    *c == 0
}
fn is_zero_f(x: &f64) -> bool {
    *x == 0.0
}

/// How a Poisson workload's arrivals choose their (source, destination) pair.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PoissonPattern {
    /// A source uniform over `src`, then a destination uniform over `dst` other than the source (up to 64 draws; an arrival that finds none is skipped).
    #[default]
    Random,
    /// A pair uniform over all ordered pairs (a, b) with a in `src`, b in `dst`, a != b: every pair carries the same share of the load.
    AllToAll,
    /// A random one-to-one map from `src` to `dst` drawn once from the seed, no host mapped to itself (`src` and `dst` as long as each other, without repeats); each arrival picks a source uniformly and sends to its partner: every host sends to exactly one and receives from exactly one.
    Permutation,
}

impl PoissonPattern {
    fn is_random(&self) -> bool {
        *self == PoissonPattern::Random
    }

    /// Its scenario name ("random", "all_to_all", "permutation").
    pub fn name(self) -> &'static str {
        match self {
            PoissonPattern::Random => "random",
            PoissonPattern::AllToAll => "all_to_all",
            PoissonPattern::Permutation => "permutation",
        }
    }
}

/// Flow-size distribution, chosen by `kind`.
#[derive(Clone, Debug, Serialize, PartialEq, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SizeDist {
    /// Every flow has `bytes`.
    Fixed { bytes: u64 },
    /// Uniform integer sizes in [min_bytes, max_bytes].
    Uniform { min_bytes: u64, max_bytes: u64 },
    /// Empirical CDF: `points` = [[bytes, cumulative probability], ...], increasing, ending at probability 1; sizes are interpolated linearly between points. Or `builtin` = "websearch" (DCTCP, SIGCOMM 2010), "datamining" (VL2, SIGCOMM 2009) or "hadoop" (Facebook, SIGCOMM 2015): the published distributions shipped in scenarios/cdf/ (docs/workloads.md). Give points or builtin, not both.
    Cdf {
        /// [[bytes, P(size <= bytes)], ...]: bytes >= 1, both columns non-decreasing, the last probability 1. Give this or builtin.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        points: Vec<[f64; 2]>,
        /// A published distribution shipped with ccscope: "websearch", "datamining" or "hadoop". Give this or points.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        builtin: Option<CdfBuiltin>,
    },
}

/// A flow-size distribution shipped with ccscope (scenarios/cdf/, each file cites its source).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CdfBuiltin {
    /// Web search: Alizadeh et al., DCTCP, SIGCOMM 2010, Fig. 4 (scenarios/cdf/web_search_dctcp.csv; mean 1.71 MB).
    Websearch,
    /// Data mining: Greenberg et al., VL2, SIGCOMM 2009, Fig. 2 (scenarios/cdf/data_mining_vl2.csv; mean 7.47 MB).
    Datamining,
    /// Hadoop: Roy et al., Inside the Social Network's (Datacenter) Network, SIGCOMM 2015 (scenarios/cdf/hadoop_fb.csv; mean 120 KB).
    Hadoop,
}

impl CdfBuiltin {
    /// Every builtin distribution, in documentation order.
    pub const ALL: [CdfBuiltin; 3] = [
        CdfBuiltin::Websearch,
        CdfBuiltin::Datamining,
        CdfBuiltin::Hadoop,
    ];

    /// Its scenario name ("websearch", ...).
    pub fn name(self) -> &'static str {
        match self {
            CdfBuiltin::Websearch => "websearch",
            CdfBuiltin::Datamining => "datamining",
            CdfBuiltin::Hadoop => "hadoop",
        }
    }

    /// The data file's text (compiled in, so that the distribution needs no file at run time).
    pub fn text(self) -> &'static str {
        match self {
            CdfBuiltin::Websearch => include_str!("../../../scenarios/cdf/web_search_dctcp.csv"),
            CdfBuiltin::Datamining => include_str!("../../../scenarios/cdf/data_mining_vl2.csv"),
            CdfBuiltin::Hadoop => include_str!("../../../scenarios/cdf/hadoop_fb.csv"),
        }
    }

    /// Its points, [[bytes, P(size <= bytes)], ...] (parsed once).
    pub fn points(self) -> &'static [[f64; 2]] {
        use std::sync::OnceLock;
        static CACHE: [OnceLock<Vec<[f64; 2]>>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        CACHE[self as usize].get_or_init(|| {
            // the files are part of the build; a unit test parses every one of them
            parse_cdf_text(self.text()).unwrap_or_else(|e| panic!("builtin {}: {e}", self.name()))
        })
    }

    /// The builtin named `name`, if any.
    pub fn from_name(name: &str) -> Option<CdfBuiltin> {
        CdfBuiltin::ALL.into_iter().find(|b| b.name() == name)
    }
}

/// Parse a CDF data file: one `bytes, probability` pair a line (comma or whitespace
/// separated), `#` starts a comment; both columns non-decreasing, the last probability 1.
pub fn parse_cdf_text(text: &str) -> Result<Vec<[f64; 2]>, String> {
    let mut pts: Vec<[f64; 2]> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let vals: Vec<f64> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(|t| {
                t.parse::<f64>()
                    .map_err(|_| format!("line {}: {t:?} is not a number", i + 1))
            })
            .collect::<Result<_, _>>()?;
        let [b, q] = vals[..] else {
            return Err(format!(
                "line {}: expected two numbers `bytes, probability`",
                i + 1
            ));
        };
        let sorted = pts.last().is_none_or(|p| b >= p[0] && q >= p[1]);
        if !(b.is_finite() && q.is_finite() && b >= 1.0 && (0.0..=1.0).contains(&q) && sorted) {
            return Err(format!(
                "line {}: {b} {q}: sizes >= 1 and probabilities in [0, 1], both non-decreasing",
                i + 1
            ));
        }
        pts.push([b, q]);
    }
    match pts.last() {
        Some(p) if pts.len() >= 2 && (p[1] - 1.0).abs() <= 1e-9 => Ok(pts),
        _ => Err("a CDF needs at least two points and must end at probability 1".into()),
    }
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
    #[serde(default)]
    points: Vec<[f64; 2]>,
    #[serde(default)]
    builtin: Option<CdfBuiltin>,
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
                variant::<CdfFields, _>(v).map(|f| SizeDist::Cdf {
                    points: f.points,
                    builtin: f.builtin,
                })
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
            SizeDist::Cdf { points, builtin } => {
                if builtin.is_some() {
                    if !points.is_empty() {
                        return Err(ScenarioError::new(
                            format!("{path}.points"),
                            format!("[{} points]", points.len()),
                            "give points or builtin, not both",
                        ));
                    }
                    return Ok(());
                }
                if points.len() < 2 {
                    return Err(ScenarioError::new(
                        format!("{path}.points"),
                        format!("[{} points]", points.len()),
                        "needs at least two [bytes, probability] points (or give builtin = \"websearch\", \"datamining\" or \"hadoop\", or file = \"path.csv\" in a scenario file)",
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

    /// The points of a `cdf` distribution (a builtin's table, or the given points); empty for
    /// the other kinds.
    pub fn cdf_points(&self) -> &[[f64; 2]] {
        match self {
            SizeDist::Cdf {
                builtin: Some(b), ..
            } => b.points(),
            SizeDist::Cdf { points, .. } => points,
            _ => &[],
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
            SizeDist::Cdf { .. } => {
                let points = self.cdf_points();
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
            SizeDist::Cdf { .. } => {
                let points = self.cdf_points();
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
    /// Offered load as a fraction of reference_bps (0 < load <= 1).
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
    /// How arrivals choose (source, destination): "random", "all_to_all" or "permutation" (docs/workloads.md). Default "random".
    #[serde(default, skip_serializing_if = "PoissonPattern::is_random")]
    pub pattern: PoissonPattern,
    /// Each flow starts U[0, jitter_s) after its arrival, drawn from the workload's own stream of the run's seed, seconds (>= 0). Default 0.
    #[serde(default, skip_serializing_if = "is_zero_f")]
    pub jitter_s: f64,
}

/// The (source, destination) choice of a Poisson workload at run time.
#[derive(Clone, Debug)]
pub enum PairChoice {
    /// `PoissonPattern::Random`.
    Random,
    /// `PoissonPattern::AllToAll`: `cum[i]` = the pairs of sources 0..=i; `skip[i]` = the
    /// positions in `dst` equal to source i (sorted), which its draw steps over.
    AllToAll { cum: Vec<u64>, skip: Vec<Vec<u32>> },
    /// `PoissonPattern::Permutation`: source i sends to `dst[partner[i]]`.
    Permutation { partner: Vec<u32> },
}

impl PairChoice {
    /// The run-time choice of `pattern` over `src` and `dst` (node ids as listed); a
    /// permutation is drawn from `rng`. Errors say why no pair set exists (field `pattern`).
    pub fn new(
        pattern: PoissonPattern,
        src: &[NodeId],
        dst: &[NodeId],
        rng: &mut Rng,
    ) -> Result<PairChoice, String> {
        match pattern {
            PoissonPattern::Random => Ok(PairChoice::Random),
            PoissonPattern::AllToAll => {
                let mut cum = Vec::with_capacity(src.len());
                let mut skip = Vec::with_capacity(src.len());
                let mut total = 0u64;
                for &a in src {
                    let own: Vec<u32> = (0..dst.len() as u32)
                        .filter(|&j| dst[j as usize] == a)
                        .collect();
                    total += (dst.len() - own.len()) as u64;
                    cum.push(total);
                    skip.push(own);
                }
                if total == 0 {
                    return Err("all_to_all needs a destination other than each source".into());
                }
                Ok(PairChoice::AllToAll { cum, skip })
            }
            PoissonPattern::Permutation => {
                if src.len() != dst.len() {
                    return Err(format!(
                        "permutation needs as many destinations as sources (src has {}, dst {})",
                        src.len(),
                        dst.len()
                    ));
                }
                for (name, list) in [("src", src), ("dst", dst)] {
                    let mut v = list.to_vec();
                    v.sort_unstable();
                    if v.windows(2).any(|w| w[0] == w[1]) {
                        return Err(format!("permutation needs {name} without repeated hosts"));
                    }
                }
                let n = src.len();
                // a uniform shuffle (Fisher-Yates), then each host mapped to itself swaps its
                // partner with the first other source whose swap leaves neither mapped to itself
                let mut p: Vec<u32> = (0..n as u32).collect();
                for i in (1..n).rev() {
                    let j = rng.below(i as u64 + 1) as usize;
                    p.swap(i, j);
                }
                for i in 0..n {
                    if src[i] != dst[p[i] as usize] {
                        continue;
                    }
                    let ok = (0..n).find(|&j| {
                        j != i && src[i] != dst[p[j] as usize] && src[j] != dst[p[i] as usize]
                    });
                    let Some(j) = ok else {
                        return Err(
                            "permutation: no one-to-one map from src to dst avoids sending a host to itself (give at least two hosts)".into(),
                        );
                    };
                    p.swap(i, j);
                }
                Ok(PairChoice::Permutation { partner: p })
            }
        }
    }
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
        /// Start jitter: each response starts U[0, jitter_s) after the request (0: none).
        jitter_s: f64,
        /// The jitter's stream (drawn only when jitter_s > 0).
        jitter_rng: Rng,
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
        pairs: PairChoice,
        /// Start jitter: each flow starts U[0, jitter_s) after its arrival (0: none).
        jitter_s: f64,
        /// The jitter's stream (drawn only when jitter_s > 0).
        jitter_rng: Rng,
    },
}

/// A start delay U[0, jitter_s) from `rng`; zero (and no draw) when jitter_s is 0.
fn jitter(jitter_s: f64, rng: &mut Rng) -> SimDuration {
    if jitter_s > 0.0 {
        SimDuration::from_secs_f64(rng.uniform() * jitter_s)
    } else {
        SimDuration::ZERO
    }
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
    /// The flow starts this long after now (start jitter; zero: now).
    pub delay: SimDuration,
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
                jitter_s,
                jitter_rng,
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
                        delay: jitter(*jitter_s, jitter_rng),
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
                pairs,
                jitter_s,
                jitter_rng,
            } => {
                let (a, b) = match pairs {
                    PairChoice::Random => {
                        let a = src[rng.below(src.len() as u64) as usize];
                        let mut b = dst[rng.below(dst.len() as u64) as usize];
                        let mut tries = 0;
                        while b == a && tries < 64 {
                            b = dst[rng.below(dst.len() as u64) as usize];
                            tries += 1;
                        }
                        (a, b)
                    }
                    PairChoice::AllToAll { cum, skip } => {
                        let total = cum.last().copied().unwrap_or(0);
                        let k = rng.below(total.max(1));
                        let i = cum.partition_point(|&c| c <= k);
                        let mut j = k - if i == 0 { 0 } else { cum[i - 1] };
                        for &s in &skip[i] {
                            if j >= s as u64 {
                                j += 1;
                            }
                        }
                        (src[i], dst[j as usize])
                    }
                    PairChoice::Permutation { partner } => {
                        let i = rng.below(src.len() as u64) as usize;
                        (src[i], dst[partner[i] as usize])
                    }
                };
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
                        delay: jitter(*jitter_s, jitter_rng),
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
            builtin: None,
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
    fn builtin_cdfs_parse_and_their_means_match_the_published_ones() {
        // published means: web search ~1.6 MB (PIAS scripts: 1138 x 1460 B = 1.66 MB; the HPCC
        // repository's points give 1.71 MB), data mining 5117 x 1460 B = 7.47 MB (PIAS
        // scripts), Hadoop 120,421 B (the HPCC repository's generator)
        for (b, want, tol) in [
            (CdfBuiltin::Websearch, 1.66e6, 0.05),
            (CdfBuiltin::Datamining, 5117.0 * 1460.0, 0.001),
            (CdfBuiltin::Hadoop, 120_420.75, 0.001),
        ] {
            let d = SizeDist::Cdf {
                points: vec![],
                builtin: Some(b),
            };
            d.validate("size").unwrap();
            let pts = b.points();
            assert_eq!(pts.last().unwrap()[1], 1.0, "{}", b.name());
            let m = d.mean_bytes();
            assert!((m - want).abs() / want < tol, "{}: mean {m}", b.name());
            // sampling follows the same mean (heavy tails: 1 % over 400k draws)
            let mut r = Rng::stream(7, b.name());
            let n = 400_000;
            let s = (0..n).map(|_| d.sample(&mut r) as f64).sum::<f64>() / n as f64;
            assert!(
                (s - m).abs() / m < 0.05,
                "{}: sampled mean {s} vs {m}",
                b.name()
            );
            assert_eq!(CdfBuiltin::from_name(b.name()), Some(b));
        }
    }

    #[test]
    fn cdf_text_errors_name_the_line_and_the_rule() {
        let e = parse_cdf_text("10 0.5\n5 0.6\n20 1\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("non-decreasing"), "{e}");
        let e = parse_cdf_text("10 0.5\n20 0.9\n").unwrap_err();
        assert!(e.contains("must end at probability 1"), "{e}");
        let e = parse_cdf_text("10 x\n").unwrap_err();
        assert!(e.contains("line 1") && e.contains("not a number"), "{e}");
        assert_eq!(
            parse_cdf_text("# c\n10, 0.5 # x\n\n20 1\n").unwrap(),
            vec![[10.0, 0.5], [20.0, 1.0]]
        );
    }

    #[test]
    fn cdf_points_and_builtin_together_are_refused() {
        let d = SizeDist::Cdf {
            points: vec![[1.0, 1.0]],
            builtin: Some(CdfBuiltin::Hadoop),
        };
        let e = d.validate("workload[0].size").unwrap_err().to_string();
        assert!(
            e.contains("workload[0].size.points") && e.contains("not both"),
            "{e}"
        );
    }

    fn ids(n: u32) -> Vec<NodeId> {
        (0..n).map(NodeId).collect()
    }

    #[test]
    fn permutation_maps_every_host_to_exactly_one_other() {
        for seed in 0..50 {
            let h = ids(2 + seed as u32 % 9);
            let mut r = Rng::stream(seed, "p");
            let PairChoice::Permutation { partner } =
                PairChoice::new(PoissonPattern::Permutation, &h, &h, &mut r).unwrap()
            else {
                panic!()
            };
            let mut seen = vec![false; h.len()];
            for (i, &p) in partner.iter().enumerate() {
                assert_ne!(i as u32, p, "host {i} sends to itself");
                assert!(!seen[p as usize], "host {p} receives twice");
                seen[p as usize] = true;
            }
        }
        let one = ids(1);
        let e = PairChoice::new(
            PoissonPattern::Permutation,
            &one,
            &one,
            &mut Rng::stream(1, "p"),
        )
        .unwrap_err();
        assert!(e.contains("at least two hosts"), "{e}");
        let e = PairChoice::new(
            PoissonPattern::Permutation,
            &ids(3),
            &ids(2),
            &mut Rng::stream(1, "p"),
        )
        .unwrap_err();
        assert!(e.contains("as many destinations as sources"), "{e}");
    }

    #[test]
    fn all_to_all_draws_every_ordered_pair_equally_often() {
        // src {0,1,2}, dst {1,2,3}: 3*3 - 2 = 7 pairs (1->1 and 2->2 excluded)
        let mut st = WorkloadState::Poisson {
            src: ids(3),
            dst: vec![NodeId(1), NodeId(2), NodeId(3)],
            rate: 1e6,
            size: SizeDist::Fixed { bytes: 1 },
            cc: vec![CcKind::NewReno],
            arrivals: 0,
            stop: SimTime(u64::MAX),
            rng: Rng::stream(3, "w"),
            class: 0,
            pairs: PairChoice::new(
                PoissonPattern::AllToAll,
                &ids(3),
                &[NodeId(1), NodeId(2), NodeId(3)],
                &mut Rng::stream(3, "p"),
            )
            .unwrap(),
            jitter_s: 0.0,
            jitter_rng: Rng::stream(3, "j"),
        };
        let mut out = Vec::new();
        let n = 70_000;
        for _ in 0..n {
            st.fire(0, SimTime::ZERO, &mut out);
        }
        assert_eq!(out.len(), n, "no arrival is skipped");
        let mut count = std::collections::BTreeMap::new();
        for s in &out {
            assert_ne!(s.src, s.dst);
            *count.entry((s.src.0, s.dst.0)).or_insert(0u32) += 1;
        }
        assert_eq!(count.len(), 7, "{count:?}");
        for (&pair, &c) in &count {
            // expected 10,000 each; sd ~ 93: 5 sd
            assert!((c as i64 - 10_000).abs() < 470, "{pair:?}: {c}");
        }
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
