//! Which controller a flow runs, chosen by name in the scenario (`cc = "dctcp"`): the window
//! algorithms of this module and the rate-based sources of `rate/`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Window congestion-control algorithm of a TCP flow.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
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
    /// Rate-based 802.1Qau source with a QCN reaction point (no window, no ACKs); needs a `qcn` congestion point.
    Qcn,
    /// Rate-based source with an ASM reaction point (P002 eqs 11-12); needs an `asm` congestion point.
    Asm,
    /// Unresponsive constant-bit-rate source (UDP-like) at the flow's `rate_bps`.
    Cbr,
}

impl CcKind {
    pub fn name(self) -> &'static str {
        match self {
            CcKind::NewReno => "new_reno",
            CcKind::Reno => "reno",
            CcKind::Dctcp => "dctcp",
            CcKind::DctcpPerAck => "dctcp_per_ack",
            CcKind::Dx => "dx",
            CcKind::Qcn => "qcn",
            CcKind::Asm => "asm",
            CcKind::Cbr => "cbr",
        }
    }
    /// A rate-controlled (802.1Qau) source rather than a TCP window.
    pub fn is_rate_based(self) -> bool {
        matches!(self, CcKind::Qcn | CcKind::Asm | CcKind::Cbr)
    }
    pub fn is_dctcp(self) -> bool {
        matches!(self, CcKind::Dctcp | CcKind::DctcpPerAck)
    }
}
