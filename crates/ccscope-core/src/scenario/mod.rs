//! THE scenario schema: plain data (TOML or JSON), `deny_unknown_fields` everywhere, validated
//! here with errors that name the field path, the value and what is allowed.
//!
//! Templates (`topology.kind = "dumbbell"`, `[flows]`) expand to the explicit form
//! (`topology.kind = "graph"` with nodes and directed links, `[[flow]]` entries, `record.ports`),
//! which is itself a valid scenario: `ccscope scenario expand` prints it, and `build.rs` only
//! ever sees the expanded form. Every field carries its unit in its name.
//!
//! One file per section, each config checking itself beside its definition: `topology`,
//! `aqm` (queue-policy tables), `tcp`, `cc` (`[dctcp]`, `[dx]`), `flows`, `workloads`,
//! `record`; the range rules all share are in `check`, the templates' expansion in `expand`.
//! [`Scenario::validate`] calls the sections in a fixed order, so the first error found is
//! the same for the same input.

mod aqm;
mod cc;
mod check;
mod expand;
mod flows;
mod int;
mod record;
mod sched;
mod shared_buffer;
mod tcp;
mod topology;
mod workloads;

pub use crate::cc::CcKind;
pub use check::fmt_f;
pub use flows::{FlowSpec, FlowsTemplate};
pub use int::{IntConfig, IntPorts, MAX_INT_SLOTS};
pub use record::{RecordConfig, TraceKind, ALL_TRACES};
pub use sched::{PathKind, PfcConfig, SchedConfig, SchedulerKind, MAX_CLASSES};
pub use shared_buffer::SharedBufferConfig;
pub use tcp::{StampAt, TcpConfig};
pub use topology::{
    port_name, Dumbbell, FatTree, Graph, LeafSpine, LinkSpec, LoadBalance, NodeKind, NodeSpec,
    Topology, DEFAULT_BUFFER_PKTS, MAX_FAT_TREE_K,
};

use crate::aqm::AqmConfig;
use crate::cc::DctcpConfig;
use crate::error::ScenarioError;
use aqm::validate_aqm;
use check::time_s;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Largest link rate accepted, bits/s (sanity bound: 100 Tb/s).
pub const MAX_RATE_BPS: f64 = 1e14;
/// Largest delay or time accepted, seconds (sanity bound: one day of simulated time).
pub const MAX_TIME_S: f64 = 86_400.0;
/// Smallest and largest packet size, bytes.
pub const MIN_PACKET_BYTES: u32 = 40;
pub const MAX_PACKET_BYTES: u32 = 65_535;
/// Largest number of flows or hosts a template may create.
pub const MAX_TEMPLATE_COUNT: u32 = 1_000_000;

fn d_seed() -> u64 {
    1
}
fn d_until() -> f64 {
    1.0
}
fn d_pkt() -> u32 {
    1500
}
fn d_ack() -> u32 {
    40
}
fn d_fb() -> u32 {
    64
}

/// A complete simulation scenario.
///
/// Memory budget: before a run starts, the engine estimates its memory from the scenario (nodes, ports, flows, routes, per-flow state, workload arrivals, and each recorded series: series x samples) and refuses a scenario whose estimate exceeds the budget, naming the fields that drive it (`ccscope run --max-memory`, `max_memory_bytes=` in Python; default half the machine's memory). Event-driven traces (drops and marks, queue_every_change, feedback) are capped inside the budget: a series that reaches its cap stops recording, and the result's `truncated` table names it with the rows kept and left out.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name, used in reports.
    #[serde(default)]
    pub name: String,
    /// Seed of every random stream in the run (per-component streams derive from it). Default 1.
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// Simulated time to run, seconds (> 0). Default 1. The CLI's --until and the API's until_s override it.
    #[serde(default = "d_until")]
    pub until_s: f64,
    /// Data packet (segment) size on the wire, bytes. Default 1500 (P000, P002-P004; P001 uses 1000).
    #[serde(default = "d_pkt")]
    pub packet_bytes: u32,
    /// Pure ACK size on the wire, bytes. Default 40.
    #[serde(default = "d_ack")]
    pub ack_bytes: u32,
    /// The network: a template (`dumbbell`) or an explicit `graph`.
    pub topology: Topology,
    /// Queue policy of the bottleneck port(s) of a template, and of graph switch ports that do not name one. Default drop_tail.
    #[serde(default)]
    pub aqm: AqmConfig,
    /// Traffic classes and scheduler of the bottleneck port(s) of a template, and of graph switch ports that do not name one (docs/engine.md). Default: one FIFO class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sched: Option<SchedConfig>,
    /// Priority flow control (IEEE 802.1Qbb) at every switch: lossless classes, XOFF/XON thresholds, pause quanta. Every port then takes the general path (docs/engine.md). Default: none (every class may drop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pfc: Option<PfcConfig>,
    /// One buffer pool per switch with Choudhury-Hahne dynamic thresholds: pool size, alpha per class, static per-queue reservation. Every port then takes the general path (docs/engine.md). Default: none (each port has its own buffer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_buffer: Option<SharedBufferConfig>,
    /// In-band telemetry: ports that stamp (time, bytes sent, queue bytes, link rate) into each data packet at dequeue, read back by the sender when the packet's ACK arrives (HPCC). Those ports take the general path (docs/engine.md). Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub int: Option<IntConfig>,
    /// HPCC parameters (flows with cc = "hpcc"; Li et al. SIGCOMM 2019 defaults).
    #[serde(default)]
    pub hpcc: crate::rate::HpccConfig,
    /// TCP transport options shared by all TCP flows.
    #[serde(default)]
    pub tcp: TcpConfig,
    /// DCTCP parameters (used by flows with cc = "dctcp" or "dctcp_per_ack").
    #[serde(default)]
    pub dctcp: DctcpConfig,
    /// DX parameters (used by flows with cc = "dx").
    #[serde(default)]
    pub dx: crate::cc::DxConfig,
    /// CUBIC parameters (used by flows with cc = "cubic"; RFC 9438 defaults).
    #[serde(default)]
    pub cubic: crate::cc::CubicConfig,
    /// Swift parameters (used by flows with cc = "swift"; Kumar et al., SIGCOMM 2020).
    #[serde(default)]
    pub swift: crate::cc::SwiftConfig,
    /// TIMELY parameters (Mittal et al., SIGCOMM 2015, Algorithm 1; the paper's recommended values).
    #[serde(default)]
    pub timely: crate::rate::TimelyConfig,
    /// QCN reaction-point parameters (flows with cc = "qcn").
    #[serde(default)]
    pub qcn_rp: crate::rate::QcnRpConfig,
    /// ASM reaction-point parameters (flows with cc = "asm").
    #[serde(default)]
    pub asm_rp: crate::rate::AsmRpConfig,
    /// RDMA transport options (flows with cc = "rdma" or "dcqcn"): retransmission timeout, ACK every N segments, CNP interval. Their ACKs, NACKs and CNPs travel in `tcp.ack_class` (else the data class).
    #[serde(default)]
    pub rdma: crate::transport::rdma::RdmaConfig,
    /// DCQCN reaction-point parameters (flows with cc = "dcqcn"; Zhu et al. SIGCOMM 2015 and CoNEXT 2016 Table 1 defaults, the names of `ccscope.fluid.dcqcn`). Its congestion point is a RED table with `action = "mark"`.
    #[serde(default)]
    pub dcqcn: crate::rate::DcqcnConfig,
    /// Size of an 802.1Qau feedback frame on the wire, bytes. Default 64 (minimum Ethernet frame).
    #[serde(default = "d_fb")]
    pub feedback_bytes: u32,
    /// Flow template: `count` identical flows spread over the template's senders and receivers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<FlowsTemplate>,
    /// Explicit flows (the expanded form lists every flow here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow: Vec<FlowSpec>,
    /// Flow generators that act during the run: incast rounds, Poisson arrivals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workload: Vec<crate::workload::WorkloadSpec>,
    /// What to record and how often.
    #[serde(default)]
    pub record: RecordConfig,
    /// Python modules that register controllers (`ccscope.cc.register_cc`), loaded by `ccscope run`, `ccscope sweep` (and its workers) and `ccscope.simulate` before the scenario's cc names are checked, as `--plugin MODULE` is (docs/extending.md). The engine itself does not read it. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<PluginsConfig>,
}

/// The `[plugins]` table: controller plugins a scenario needs. Loading a plugin runs its code: run scenarios you trust.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginsConfig {
    /// Each an importable module name (`mypkg.mycc`, found on the Python path) or a `.py` file; a relative file path resolves against the scenario file's directory (for a scenario given as data: the current directory) and must stay under it unless its directory is allowed with `--allow-path`. Default: none.
    #[serde(default)]
    pub modules: Vec<String>,
}

// ------------------------------------------------------------------------------------ parsing

/// Input format of a scenario text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

/// Parse and validate a scenario; errors name the field path.
pub fn parse(text: &str, format: Format) -> Result<Scenario, ScenarioError> {
    let sc: Scenario = match format {
        Format::Json => {
            let de = &mut serde_json::Deserializer::from_str(text);
            serde_path_to_error::deserialize(de)
                .map_err(|e| serde_error(e.path().to_string(), e.inner().to_string()))?
        }
        Format::Toml => {
            let de = toml::Deserializer::new(text);
            serde_path_to_error::deserialize(de).map_err(|e| {
                let msg = e.inner().message().to_string();
                serde_error(e.path().to_string(), msg)
            })?
        }
    };
    sc.validate()?;
    Ok(sc)
}

/// Parse and validate one AQM table given as JSON (e.g. `{"kind": "red", ...}`), for using a
/// queue policy on its own (unit replays); errors name the field under `aqm`.
pub fn parse_aqm(json: &str, packet_bytes: u32) -> Result<AqmConfig, ScenarioError> {
    #[derive(Deserialize)]
    struct Wrap {
        aqm: AqmConfig,
    }
    let text = format!("{{\"aqm\": {json}}}");
    let de = &mut serde_json::Deserializer::from_str(&text);
    let w: Wrap = serde_path_to_error::deserialize(de)
        .map_err(|e| serde_error(e.path().to_string(), e.inner().to_string()))?;
    validate_aqm("aqm", &w.aqm, None, None, packet_bytes, "buffer_pkts")?;
    Ok(w.aqm)
}

fn serde_error(path: String, msg: String) -> ScenarioError {
    let (path, msg) = crate::tagged::merge_path(&path, &msg);
    let path = if path.is_empty() || path == "." {
        "<scenario>".to_string()
    } else {
        path
    };
    let mut msg = msg.lines().next().unwrap_or("").trim().to_string();
    // serde_json appends a position in the JSON text, which is not the user's file: drop it
    if let Some(i) = msg.rfind(" at line ") {
        if msg[i..].contains(" column ") {
            msg.truncate(i);
        }
    }
    if let Some(e) = out_of_range_integer(&path, &msg) {
        return e;
    }
    let hint = if msg.contains("unknown field")
        || msg.contains("unknown variant")
        || msg.contains("missing field")
        || msg.contains("expected")
    {
        msg
    } else {
        format!("{msg} (expected a value of the documented type)")
    };
    ScenarioError::new(path, "", hint)
}

/// serde's "invalid value: integer `-2`, expected u32" (a negative or too large whole number for
/// an integer field) in the user's terms: `topology.k = -2: must be a whole number from 0 to
/// 4294967295`.
fn out_of_range_integer(path: &str, msg: &str) -> Option<ScenarioError> {
    let rest = msg.strip_prefix("invalid value: integer `")?;
    let (value, ty) = rest.split_once("`, expected ")?;
    let range = match ty {
        "u8" => "0 to 255".to_string(),
        "u16" => "0 to 65535".to_string(),
        "u32" => format!("0 to {}", u32::MAX),
        "u64" | "usize" => format!("0 to {}", u64::MAX),
        "i32" => format!("{} to {}", i32::MIN, i32::MAX),
        _ => return None,
    };
    Some(ScenarioError::new(
        path,
        value,
        format!("must be a whole number from {range}"),
    ))
}

impl Scenario {
    /// Check ranges and references. Called by [`parse`]; call it again after editing.
    ///
    /// The sections are checked in this order (the first error found is reported): until_s,
    /// packet_bytes, ack_bytes, tcp, dctcp, qcn_rp, asm_rp, rdma, dcqcn, feedback_bytes, dx, cubic, swift,
    /// timely, record, topology, aqm, sched, pfc, shared_buffer, int, hpcc, flows, workload, flow.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        time_s("until_s", self.until_s, false)?;
        if !(MIN_PACKET_BYTES..=MAX_PACKET_BYTES).contains(&self.packet_bytes) {
            return Err(ScenarioError::new(
                "packet_bytes",
                self.packet_bytes,
                format!("must be between {MIN_PACKET_BYTES} and {MAX_PACKET_BYTES}"),
            ));
        }
        if self.ack_bytes < 1 || self.ack_bytes > self.packet_bytes {
            return Err(ScenarioError::new(
                "ack_bytes",
                self.ack_bytes,
                "must be between 1 and packet_bytes",
            ));
        }
        self.tcp.validate("tcp")?;
        self.dctcp.validate("dctcp")?;
        self.qcn_rp.validate("qcn_rp")?;
        self.asm_rp.validate("asm_rp")?;
        self.rdma.validate("rdma")?;
        self.dcqcn.validate("dcqcn")?;
        if self.feedback_bytes < 1 || self.feedback_bytes > MAX_PACKET_BYTES {
            return Err(ScenarioError::new(
                "feedback_bytes",
                self.feedback_bytes,
                format!("must be between 1 and {MAX_PACKET_BYTES}"),
            ));
        }
        self.dx.validate("dx")?;
        self.cubic.validate("cubic")?;
        self.swift.validate("swift")?;
        self.timely.validate("timely")?;
        self.record.validate("record", self.until_s)?;
        self.topology
            .validate(self.packet_bytes, self.flows.as_ref().map(|f| f.count))?;
        let (buf_pkts, buf_bytes) = self.topology.aqm_buffer();
        validate_aqm(
            "aqm",
            &self.aqm,
            buf_pkts,
            buf_bytes,
            self.packet_bytes,
            "topology.buffer_pkts",
        )?;
        if let Some(s) = &self.sched {
            s.validate("sched", buf_pkts)?;
            s.validate_class_aqm(
                "sched",
                buf_pkts,
                buf_bytes,
                self.packet_bytes,
                "topology.buffer_pkts",
            )?;
        }
        if let Some(p) = &self.pfc {
            p.validate("pfc")?;
        }
        if let Some(b) = &self.shared_buffer {
            b.validate("shared_buffer")?;
        }
        if let Some(i) = &self.int {
            i.validate("int")?;
        }
        self.hpcc.validate("hpcc")?;
        if let Some(f) = &self.flows {
            f.validate("flows", &self.topology)?;
        }
        if self.flows.is_none() && self.flow.is_empty() && self.workload.is_empty() {
            return Err(ScenarioError::new(
                "flows",
                "",
                "no flows: give [flows] with count >= 1, [[flow]] entries or a [[workload]]",
            ));
        }
        let hosts = self.topology.graph_hosts();
        for (i, w) in self.workload.iter().enumerate() {
            w.validate(&format!("workload[{i}]"), hosts.as_ref(), self.until_s)?;
        }
        for (i, f) in self.flow.iter().enumerate() {
            f.validate(&format!("flow[{i}]"), hosts.as_ref())?;
        }
        Ok(())
    }

    /// The number of senders of a dumbbell: `topology.senders`, or the `[flows]` count.
    pub(crate) fn dumbbell_senders(&self, d: &Dumbbell) -> Result<u32, ScenarioError> {
        d.senders(self.flows.as_ref().map(|f| f.count))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("scenario serializes")
    }

    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string_pretty(self).map_err(|e| e.to_string())
    }
}

/// JSON Schema of the scenario (field docs, units, defaults) for docs and the Python mirror.
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Scenario)).expect("schema serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmt_f_prints_tiny_and_huge_values_in_scientific_notation() {
        assert_eq!(fmt_f(5e-324), "5e-324"); // not 324 digits
        assert_eq!(fmt_f(1e300), "1e300");
        assert_eq!(fmt_f(-2.5e-7), "-2.5e-7");
        assert_eq!(fmt_f(0.002), "0.002");
        assert_eq!(fmt_f(10e9), "10000000000");
        assert_eq!(fmt_f(0.0), "0");
        assert_eq!(fmt_f(f64::NAN), "nan");
    }

    const BASE: &str = r#"
seed = 3
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 100e-6
[aqm]
kind = "threshold"
k_pkts = 65
[flows]
count = 2
cc = "dctcp"
"#;

    #[test]
    fn base_parses_and_expands_to_a_graph() {
        let sc = parse(BASE, Format::Toml).unwrap();
        let ex = sc.expand().unwrap();
        let Topology::Graph(g) = &ex.topology else {
            panic!()
        };
        assert_eq!(g.nodes.len(), 4);
        assert_eq!(g.links.len(), 6);
        assert_eq!(ex.flow.len(), 2);
        assert_eq!(
            ex.record.ports.as_deref(),
            Some(&["sw->r0".to_string()][..])
        );
        // expanded form is itself valid and expands to itself
        let again = parse(&ex.to_json(), Format::Json)
            .unwrap()
            .expand()
            .unwrap();
        assert_eq!(again, ex);
    }

    fn err(text: &str) -> String {
        parse(text, Format::Toml).unwrap_err().to_string()
    }

    #[test]
    fn validate_reports_the_first_bad_section_in_a_fixed_order() {
        // one bad value in each of eight sections; each fix reveals the next section's error
        let bad = [
            ("seed = 3", "seed = 3\n[tcp]\niw_pkts = 0"),
            ("seed = 3", "seed = 3\n[dctcp]\ng = 0.0"),
            ("seed = 3", "seed = 3\n[dx]\nq_eps_s = -1.0"),
            ("seed = 3", "seed = 3\n[cubic]\nbeta = 1.0"),
            ("seed = 3", "seed = 3\n[record]\nqueue_interval_s = 0.0"),
            ("bottleneck_bps = 10e9", "bottleneck_bps = -5.0"),
            ("k_pkts = 65", "k_pkts = 2000"),
            ("count = 2", "count = 0"),
        ];
        let expected = [
            "tcp.iw_pkts = 0: must be >= 1",
            "dctcp.g = 0: must be in (0, 1]",
            "dx.q_eps_s = -1: must be a finite number >= 0",
            "cubic.beta = 1: must be strictly between 0 and 1 (RFC 9438 default 0.7)",
            "record.queue_interval_s = 0: must be a finite number > 0",
            "topology.bottleneck_bps = -5: must be a finite number > 0",
            "aqm.k_pkts = 2000: must be < topology.buffer_pkts (1000): a threshold at or above the buffer never marks",
            "flows.count = 0: must be >= 1",
        ];
        for first in 0..bad.len() {
            let mut text = BASE.to_string();
            for (from, to) in bad[first..].iter().rev() {
                text = text.replacen(from, to, 1);
            }
            assert_eq!(
                err(&text),
                expected[first],
                "with the sections from {first} on bad"
            );
        }
        assert!(parse(BASE, Format::Toml).is_ok());
    }

    #[test]
    fn bad_inputs_name_the_field_value_and_rule() {
        assert_eq!(
            err(&BASE.replace("10e9", "-5.0")),
            "topology.bottleneck_bps = -5: must be a finite number > 0"
        );
        assert!(
            err(&BASE.replace("seed = 3", "seed = 3\nbogus = 1")).contains("unknown field `bogus`")
        );
        assert!(err(&BASE.replace("\"dctcp\"", "\"bbr\""))
            .starts_with("flows.cc: unknown variant `bbr`"));
        assert_eq!(
            err(&BASE.replace("seed = 3", "seed = 3\n[cubic]\nc = 0.0")),
            "cubic.c = 0: must be > 0 and at most 100 segments/s^3 (RFC 9438 default 0.4)"
        );
        assert!(
            err(&BASE.replace("seed = 3", "seed = 3\n[cubic]\nbeta = -0.5"))
                .starts_with("cubic.beta = -0.5: must be strictly between 0 and 1")
        );
        assert!(
            err(&BASE.replace("seed = 3", "seed = 3\n[cubic]\ntarget_rtt = \"max\""))
                .starts_with("cubic.target_rtt: unknown variant `max`")
        );
        assert!(err(&BASE.replace("k_pkts = 65", "k_pkts = 2000"))
            .starts_with("aqm.k_pkts = 2000: must be < topology.buffer_pkts (1000)"));
        assert_eq!(
            err(&BASE.replace("count = 2", "count = 0")),
            "flows.count = 0: must be >= 1"
        );
        assert!(
            err(&BASE.replace("kind = \"threshold\"", "kind = \"bogus_policy\""))
                .contains("unknown variant `bogus_policy`")
        );
        assert!(
            err(&BASE.replace("rtt_s = 100e-6", "rtt_s = nan")).contains("topology.rtt_s = nan")
        );
        assert!(err(&format!("until_s = -1\n{BASE}")).starts_with("until_s = -1"));
        assert!(err(&BASE.replace("k_pkts = 65", "k_pktz = 65")).contains("unknown field `k_pktz`"));
    }
}
