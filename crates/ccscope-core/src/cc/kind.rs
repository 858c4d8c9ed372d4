//! Which controller a flow runs, chosen by name in the scenario (`cc = "dctcp"`): the window
//! algorithms of this module and the rate-based sources of `rate/`.

use super::ext::{self, ExtId};
use crate::rate::ext::{self as rate_ext, ExtRateId};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Window congestion-control algorithm of a TCP flow, or the name of a controller registered
/// with `ccscope.cc.register_cc` (docs/extending.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// TCP NewReno (RFC 5681/6582); ECN-capable only when tcp.ecn = true.
    #[default]
    NewReno,
    /// TCP Reno (RFC 5681 without RFC 6582: the first new ACK ends fast recovery; P001's ns-2 Reno).
    Reno,
    /// DCTCP (P000 §2.1): alpha estimator, cut (1 - alpha/2) once per window.
    Dctcp,
    /// DCTCP with the per-ACK "improved fairness" rule of P000 eq 36.
    DctcpPerAck,
    /// DX, latency-based (P004 eqs 1-2); no ECN.
    Dx,
    /// CUBIC (RFC 9438): cubic window growth, fast convergence, the Reno-friendly region.
    Cubic,
    /// Swift (Kumar et al., SIGCOMM 2020): delay-target AIMD, one MD per RTT, pacing below one packet; no ECN.
    Swift,
    /// Rate-based 802.1Qau source with a QCN reaction point (no window, no ACKs); needs a `qcn` congestion point.
    Qcn,
    /// Rate-based source with an ASM reaction point (P002 eqs 11-12); needs an `asm` congestion point.
    Asm,
    /// Unresponsive constant-bit-rate source (UDP-like) at the flow's `rate_bps`.
    Cbr,
    /// RDMA transport (RoCE: go-back-N, ACKs, NACKs, `[rdma]`) at line rate, with no congestion control (PFC alone).
    Rdma,
    /// HPCC (Li et al., SIGCOMM 2019) on the RDMA transport: a window from the in-band telemetry of each ACK (`[hpcc]`), paced at W/T; the switch ports stamp telemetry (`[int]`, added with its defaults when absent).
    Hpcc,
    /// TIMELY (Mittal et al., SIGCOMM 2015, Algorithm 1) on the RDMA transport: rate from the RTT gradient, `[timely]`.
    Timely,
    /// DCQCN (Zhu et al. SIGCOMM 2015, `[dcqcn]`) on the RDMA transport; its congestion point is a RED/ECN port.
    Dcqcn,
    // new-cc: CcKind variants (`ccscope new-cc` inserts above this line)
    /// A registered external controller (by registry id; its name in scenarios).
    #[schemars(skip)]
    Ext(ExtId),
    /// A registered external rate controller (by registry id; its name in scenarios).
    #[schemars(skip)]
    ExtRate(ExtRateId),
}

/// The built-in kinds, in the order of the schema.
pub const BUILTIN: [CcKind; 14] = [
    CcKind::NewReno,
    CcKind::Reno,
    CcKind::Dctcp,
    CcKind::DctcpPerAck,
    CcKind::Dx,
    CcKind::Cubic,
    CcKind::Swift,
    CcKind::Qcn,
    CcKind::Asm,
    CcKind::Cbr,
    CcKind::Rdma,
    CcKind::Hpcc,
    CcKind::Timely,
    CcKind::Dcqcn,
];

impl Serialize for CcKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for CcKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        CcKind::from_name(&name).map_err(serde::de::Error::custom)
    }
}

impl CcKind {
    /// The built-in kind of this name.
    pub fn builtin(name: &str) -> Option<CcKind> {
        BUILTIN.into_iter().find(|k| k.name() == name)
    }

    /// A built-in or registered controller by name; the error lists both.
    pub fn from_name(name: &str) -> Result<CcKind, String> {
        if let Some(k) = CcKind::builtin(name) {
            return Ok(k);
        }
        if let Some(id) = ext::lookup(name) {
            return Ok(CcKind::Ext(id));
        }
        if let Some(id) = rate_ext::lookup(name) {
            return Ok(CcKind::ExtRate(id));
        }
        let list = |v: Vec<&str>| {
            v.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // a long name is cut as the Python side cuts quoted values: `head...` (N chars)
        let n = name.chars().count();
        let shown = if n > 80 {
            format!(
                "`{}...` ({n} chars)",
                name.chars().take(80).collect::<String>()
            )
        } else {
            format!("`{name}`")
        };
        let mut registered = ext::names();
        registered.extend(rate_ext::names());
        Err(format!(
            "unknown variant {shown}, expected one of {}; registered controllers: {} (register one with ccscope.cc.register_cc or `--plugin MODULE`)",
            list(BUILTIN.iter().map(|k| k.name()).collect()),
            if registered.is_empty() {
                "none".to_string()
            } else {
                list(registered)
            }
        ))
    }

    pub fn name(self) -> &'static str {
        match self {
            CcKind::NewReno => "new_reno",
            CcKind::Reno => "reno",
            CcKind::Dctcp => "dctcp",
            CcKind::DctcpPerAck => "dctcp_per_ack",
            CcKind::Dx => "dx",
            CcKind::Cubic => "cubic",
            CcKind::Swift => "swift",
            CcKind::Qcn => "qcn",
            CcKind::Asm => "asm",
            CcKind::Cbr => "cbr",
            CcKind::Rdma => "rdma",
            CcKind::Hpcc => "hpcc",
            CcKind::Timely => "timely",
            CcKind::Dcqcn => "dcqcn",
            // new-cc: name() arms (`ccscope new-cc` inserts above this line)
            CcKind::Ext(id) => ext::spec(id).name,
            CcKind::ExtRate(id) => rate_ext::spec(id).name,
        }
    }
    /// The receiver echoes CE per packet as DCTCP's (DCTCP, and external controllers that
    /// ask for it); also the default of `tcp.ect_on_retransmissions`.
    pub fn dctcp_echo(self) -> bool {
        match self {
            CcKind::Ext(id) => ext::spec(id).dctcp_echo,
            k => k.is_dctcp(),
        }
    }
    /// A rate-controlled (802.1Qau) source rather than a TCP window.
    pub fn is_rate_based(self) -> bool {
        matches!(
            self,
            CcKind::Qcn
                | CcKind::Asm
                | CcKind::Cbr
                | CcKind::Rdma
                | CcKind::Hpcc
                | CcKind::Timely
                | CcKind::Dcqcn
                | CcKind::ExtRate(_)
        )
    }
    /// A flow on the RDMA transport (`transport::rdma`): go-back-N, ACKs, NACKs, CNPs (`rdma`,
    /// and registered rate controllers that ask for it).
    pub fn is_rdma(self) -> bool {
        match self {
            CcKind::Rdma | CcKind::Timely | CcKind::Dcqcn | CcKind::Hpcc => true,
            CcKind::ExtRate(id) => rate_ext::spec(id).rdma,
            _ => false,
        }
    }
    pub fn is_dctcp(self) -> bool {
        matches!(self, CcKind::Dctcp | CcKind::DctcpPerAck)
    }
}
