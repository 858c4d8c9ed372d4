//! The `[tcp]` section: transport options shared by every TCP flow (ALGORITHMS.md §1).

use super::check::{at_least, time_s};
use super::fmt_f;
use crate::error::ScenarioError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn d_min_rto() -> f64 {
    0.2
}
fn d_init_rto() -> f64 {
    1.0
}
fn d_max_rto() -> f64 {
    60.0
}
fn d_gran() -> f64 {
    1e-6
}
fn d_iw() -> u32 {
    2
}
fn d_dupthresh() -> u32 {
    3
}
fn d_delack_count() -> u32 {
    2
}
fn d_delack_timeout() -> f64 {
    0.1
}

/// TCP transport options (ALGORITHMS.md §1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// Initial window, segments (>= 1). Default 2 (ns-2.35 windowInit_).
    #[serde(default = "d_iw")]
    pub iw_pkts: u32,
    /// Minimum retransmission timeout, seconds (> 0). Default 0.2 (Linux, ns-2.35 minrto_).
    #[serde(default = "d_min_rto")]
    pub min_rto_s: f64,
    /// Retransmission timeout before the first RTT sample, seconds (> 0). Default 1 (RFC 6298).
    #[serde(default = "d_init_rto")]
    pub initial_rto_s: f64,
    /// Maximum retransmission timeout (back-off cap), seconds (>= min_rto_s). Default 60 (RFC 6298).
    #[serde(default = "d_max_rto")]
    pub max_rto_s: f64,
    /// Clock granularity G of RFC 6298, seconds (> 0). Default 1e-6.
    #[serde(default = "d_gran")]
    pub clock_granularity_s: f64,
    /// Duplicate ACKs that trigger fast retransmit (>= 1). Default 3 (RFC 5681).
    #[serde(default = "d_dupthresh")]
    pub dupack_threshold: u32,
    /// Delayed ACKs at the receiver. Default false (one ACK per segment, ns-2 TCPSink).
    #[serde(default)]
    pub delayed_ack: bool,
    /// With delayed ACKs: ACK every this many in-order segments (>= 1). Default 2.
    #[serde(default = "d_delack_count")]
    pub delack_count: u32,
    /// With delayed ACKs: timer, seconds (> 0). Default 0.1 (ns-2 DelAck).
    #[serde(default = "d_delack_timeout")]
    pub delack_timeout_s: f64,
    /// Receiver window, segments (>= 1). Default: unbounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwnd_pkts: Option<u32>,
    /// NewReno flows are ECN-capable (RFC 3168). DCTCP flows always are. Default false.
    #[serde(default)]
    pub ecn: bool,
    /// Congestion-avoidance increase: "per_ack" (cwnd += MSS^2/cwnd per ACK, ns-2) or "byte_counting" (+1 MSS per cwnd of acked bytes, RFC 3465 / Linux). Default "per_ack".
    #[serde(default)]
    pub ca_increase: crate::cc::CaIncrease,
    /// Retransmitted segments of ECN-capable flows carry ECT too (true: ns-2, which sets ECT on
    /// every data packet; false: RFC 3168 §6.1.5). Default: true for DCTCP, false otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ect_on_retransmissions: Option<bool>,
    /// RTT samples for the RTO: "per_ack" (every ACK that acknowledges new data, as with
    /// timestamps, RFC 7323) or "once_per_rtt" (one timed segment per RTT, Karn's rule: ns-2's
    /// TCP without timestamps, classic BSD). Default "per_ack".
    #[serde(default)]
    pub rtt_sampling: crate::transport::RttSampling,
    /// RTO estimator: "rfc6298" (exact samples, srtt + max(G, 4 rttvar)) or "ns2_ticks" (ns-2's
    /// tick-based fixed-point estimator, tick = clock_granularity_s, as ns-2's tcpTick_; RTO at
    /// least 2 ticks). Default "rfc6298".
    #[serde(default)]
    pub rto_estimator: crate::transport::RtoEstimator,
    /// Initial slow-start threshold, segments (>= 1). Default: unbounded (RFC 5681).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh_pkts: Option<f64>,
    /// NewReno and DCTCP flows (ns-2's DCTCP is Agent/TCP/Newreno with `dctcp_ true`) deflate on
    /// a partial ACK as ns-2's Agent/TCP/Newreno with its default `partial_window_deflation_ 1`
    /// (ns-2.35 tcl/lib/ns-default.tcl; tcp/tcp-newreno.cc `partialnewack`):
    /// the fast-recovery inflation is kept apart from the window; a partial ACK of n segments
    /// takes n - 1 from the inflation when the inflation exceeds n, otherwise cuts the window
    /// itself by n - inflation (at least 1 segment) and leaves 1 segment of inflation. The total
    /// is RFC 6582's cwnd - acked + 1 MSS but for the floor (2 segments instead of 1); the cut
    /// window is what `ns2_exit_recovery` leaves recovery at. Default false (RFC 6582).
    #[serde(default)]
    pub ns2_partial_window_deflation: bool,
    /// NewReno and DCTCP flows leave fast recovery as ns-2's Agent/TCP/Newreno with its default
    /// `exit_recovery_fix_ 0` (tcp/tcp-newreno.cc `recv`: `dupwnd_ = 0`, cwnd_ untouched, then
    /// recv_newack_helper -> opencwnd): cwnd = the window without the inflation (the halved
    /// window, less partial-ACK cuts under `ns2_partial_window_deflation`), grown by the full ACK
    /// as by any new ACK. Default false (RFC 6582: cwnd = min(ssthresh, FlightSize + 1 MSS)).
    #[serde(default)]
    pub ns2_exit_recovery: bool,
    /// NewReno and DCTCP flows send one new segment on each of the first dupack_threshold - 1
    /// duplicate ACKs (limited transmit, RFC 3042) as ns-2 with its default `singledup_ 1` (tcp/tcp.cc
    /// `send_one`): when it fits in cwnd + dupacks segments (`t_seqno_ <= highest_ack_ + cwnd_ +
    /// dupacks_`) and in the receiver window, cwnd unchanged; these segments are left out of the
    /// flight the fast retransmit halves. Default false (no new data before the fast retransmit).
    #[serde(default)]
    pub ns2_limited_transmit: bool,
    /// NewReno and DCTCP flows cut the window at a fast retransmit (and NewReno at an ECN-Echo) as
    /// ns-2's `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)` (tcp/tcp.cc; from tcp-newreno.cc
    /// `dupack_action` and tcp.cc `ecn`), and set ssthresh at a timeout from the same halfwin
    /// (`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART), wnd_restart_ 1`, window without
    /// inflation): halfwin = min(cwnd, rwnd) / 2 (`windowd()`, with `precisionReduce_ true`,
    /// ns-2.35's default), ssthresh = int(halfwin) (at least 2 segments), cwnd = halfwin (at least
    /// 1 segment, fractional) plus the 3 segments of fast-recovery inflation. Default false (RFC
    /// 5681: ssthresh = max(FlightSize / 2, 2 MSS), cwnd = ssthresh + 3 MSS).
    #[serde(default)]
    pub ns2_halve_window: bool,
    /// With `ns2_halve_window`: ns-2's `precisionReduce_ false` (tcp.cc `slowdown`: halfwin =
    /// int(window() / 2), window() = min(int(cwnd_), int(wnd_))), whole segments. Default false.
    #[serde(default)]
    pub ns2_halve_whole_segments: bool,
    /// NewReno and DCTCP flows send at most 2 segments from the window per ACK while ns-2's
    /// `dupacks_ >= numdupacks_` (the fast retransmit, further duplicate ACKs and partial ACKs;
    /// tcp/tcp-newreno.cc `recv`: `send_much(0, 0, 2)` with `newreno_changes_ 0`); other ACKs are
    /// not capped (`Agent/TCP set maxburst_ 0`). Retransmissions are not counted. Default false.
    #[serde(default)]
    pub ns2_recovery_maxburst: bool,
    /// NewReno and DCTCP flows time out after an ECN-Echo cut as ns-2 (tcp/tcp.cc `timeout`,
    /// ns-2.35 lines 1898 and 1919-1925: `recover_ = maxseq_; ... else if (highest_ack_ <
    /// recover_ && last_cwnd_action_ == CWND_ACTION_ECN) slowdown(CLOSE_CWND_ONE);`): when the
    /// last window action was an ECN cut (no fast retransmit or timeout since), cwnd = 1 segment
    /// and ssthresh is kept; back-off and go-back-N as any timeout, and a further timeout halves
    /// as usual (`last_cwnd_action_ = CWND_ACTION_TIMEOUT` after either branch, line 1946).
    /// Default false (every timeout cuts ssthresh).
    #[serde(default)]
    pub ns2_timeout_after_ecn: bool,
    /// NewReno and DCTCP flows decide the fast retransmit as ns-2's Agent/TCP/Newreno
    /// (tcp/tcp-newreno.cc `dupack_action`, lines 113-175, with `bugFix_ true`, `lessCareful_
    /// false`): an ECN-Echo cut also sets recover_ (tcp.cc `ecn`: `recover_ = maxseq_`) and is
    /// taken before the duplicate ACK is counted (`recv` calls `ecn()` first); the third duplicate
    /// ACK retransmits with a window cut only when `highest_ack_ > recover_` (the ACK lies beyond
    /// recover + 1 segment); otherwise, when the last window action was an ECN cut, it
    /// retransmits and enters recovery without a second cut (`dupwnd_ = numdupacks_`, recover_
    /// kept); otherwise nothing (with `exitFastRetrans_ true` the window is not inflated).
    /// Default false (a fast retransmit with a cut whenever the ACK lies beyond the last fast
    /// retransmit's or timeout's recover).
    #[serde(default)]
    pub ns2_dupack_action: bool,
    /// NewReno and DCTCP flows take an ECN-Echo right after a timeout as ns-2 (tcp/tcp.cc `ecn`,
    /// ns-2.35 lines 1438-1443: `if (seqno > recover_ || last_cwnd_action_ ==
    /// CWND_ACTION_TIMEOUT)`): while the last window action is a timeout (no ECN cut or fast
    /// retransmit since), the first ACK with ECN-Echo cuts the window, new or duplicate (with
    /// `ns2_dupack_action`), without waiting for the ACK to pass what was sent before the timeout.
    /// Default false (an ECN-Echo after a timeout is taken once the ACK passes everything sent
    /// before it).
    #[serde(default)]
    pub ns2_ecn_after_timeout: bool,
    /// NewReno and DCTCP flows take a new ACK's ECN-Echo before its window update, as ns-2's
    /// Agent/TCP/Newreno (tcp/tcp-newreno.cc `recv`, line 222, calls `ecn()` before the exit from
    /// recovery and `recv_newack_helper`; DCTCP's alpha is counted before, as ns-2's DCTCP
    /// sender does): the cut acts on the window before the ACK grows it, and on the full ACK
    /// that ends fast recovery it halves (DCTCP: scales) the inflated window (`windowd()` =
    /// min(cwnd_ + dupwnd_, wnd_)), which leaving recovery then keeps (`dupwnd_ = 0`). The
    /// window then grows by the ACK only as ns-2's `recv_newack_helper` with `old_ecn_ 0`
    /// allows: not on an ACK with ECN-Echo, but for the first new ACK with ECN-Echo of the flow
    /// (`ect_` is still 0 there). Default false (the ACK grows the window, NewReno on ECN-Echo
    /// ACKs too, then the cut; at the end of recovery the deflated window is cut).
    #[serde(default)]
    pub ns2_ecn_first: bool,
    /// With `ns2_ecn_first` (required): the window grows as ns-2's `recv_newack_helper` with
    /// `old_ecn_ 1` (tcp/tcp.cc, ns-2.35 lines 1478-1497: `if (!ect_ || !ecnecho || (old_ecn_ &&
    /// ecn_burst_)) opencwnd();`, then `ecn_burst_` follows the ACK's ECN-Echo once `ect_` is
    /// set), the setting of the ns-2 DCTCP scripts: an ECN-Echo ACK opens the window unless the
    /// new ACK before it carried none (the first of a burst; in the flow's first burst, whose
    /// first ACK opens as `ect_` is still 0, the second). NewReno and DCTCP flows. Default false
    /// (ns-2's default `old_ecn_ 0`: no ECN-Echo ACK but the flow's first opens the window).
    #[serde(default)]
    pub ns2_old_ecn: bool,
    /// Per-flow limit on the data packets a TCP sender keeps in its host's egress port (waiting
    /// or being serialized), as Linux's TCP Small Queues (tcp_output.c `tcp_small_queue_check`:
    /// max(2 packets, ~1 ms at the pacing rate), at most `tcp_limit_output_bytes`) and htsim's
    /// Swift source (at most 3 per flow: `queuesize(flow) > 2` refuses); the rest of the window
    /// waits in the socket, unsent and not yet timestamped, until one of the flow's packets
    /// leaves the port. 0 or unset: unlimited (the whole window enters the port at once).
    /// htsim's Swift: 3. Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_queue_pkts: Option<u32>,
    /// When a TCP data packet's timestamp (the one its ACK echoes, the start of a per-ACK RTT
    /// sample) is taken: "send" (when the sender hands the packet to its host's egress port, as
    /// Linux's `tcp_transmit_skb`, before the qdisc: the wait in the host port is part of the
    /// sample) or "host_tx" (when the host port starts serializing it, as htsim's Swift host
    /// scheduler re-stamps a packet in `BaseScheduler::beginService`, swift_scheduler.cpp: the
    /// wait in the host port is left out). Retransmissions are stamped the same way; the
    /// `once_per_rtt` sampling's timed segment keeps the sender's clock. Default "send".
    #[serde(default, skip_serializing_if = "StampAt::is_send")]
    pub stamp_at: StampAt,
    /// Traffic class of ACKs (and of a rate-based flow's feedback frames), 0 to 7 (`[sched]`). Default: the class of the flow's data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_class: Option<u8>,
}

/// When a TCP data packet is timestamped (`tcp.stamp_at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StampAt {
    /// When the sender puts it into its host port (as Linux; the default).
    #[default]
    Send,
    /// When its host port starts serializing it (htsim's Swift host scheduler).
    HostTx,
}

impl StampAt {
    /// The default (left out when a scenario is written).
    pub fn is_send(&self) -> bool {
        *self == StampAt::Send
    }
}

/// Any other value (a number, a boolean, another word) is refused with the value and the two
/// words allowed: `invalid type: integer `1`, expected "send" or "host_tx"`.
impl<'de> Deserialize<'de> for StampAt {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = StampAt;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"send\" or \"host_tx\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<StampAt, E> {
                match v {
                    "send" => Ok(StampAt::Send),
                    "host_tx" => Ok(StampAt::HostTx),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            iw_pkts: d_iw(),
            min_rto_s: d_min_rto(),
            initial_rto_s: d_init_rto(),
            max_rto_s: d_max_rto(),
            clock_granularity_s: d_gran(),
            dupack_threshold: d_dupthresh(),
            delayed_ack: false,
            delack_count: d_delack_count(),
            delack_timeout_s: d_delack_timeout(),
            rwnd_pkts: None,
            ecn: false,
            ca_increase: crate::cc::CaIncrease::PerAck,
            ect_on_retransmissions: None,
            rtt_sampling: crate::transport::RttSampling::PerAck,
            rto_estimator: crate::transport::RtoEstimator::Rfc6298,
            initial_ssthresh_pkts: None,
            ns2_partial_window_deflation: false,
            ns2_exit_recovery: false,
            ns2_limited_transmit: false,
            ns2_halve_window: false,
            ns2_halve_whole_segments: false,
            ns2_recovery_maxburst: false,
            ns2_timeout_after_ecn: false,
            ns2_dupack_action: false,
            ns2_ecn_after_timeout: false,
            ns2_ecn_first: false,
            ns2_old_ecn: false,
            host_queue_pkts: None,
            stamp_at: StampAt::Send,
            ack_class: None,
        }
    }
}

impl TcpConfig {
    /// Check ranges (timers, windows, thresholds); errors name `{path}.<field>`.
    pub(super) fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        at_least(&format!("{path}.iw_pkts"), self.iw_pkts as u64, 1)?;
        if let Some(c) = self.ack_class {
            super::flows::check_class(&format!("{path}.ack_class"), c)?;
        }
        if let Some(s) = self.initial_ssthresh_pkts {
            if !s.is_finite() || s < 1.0 {
                return Err(ScenarioError::new(
                    format!("{path}.initial_ssthresh_pkts"),
                    fmt_f(s),
                    "must be a finite number of segments >= 1",
                ));
            }
        }
        time_s(&format!("{path}.min_rto_s"), self.min_rto_s, false)?;
        time_s(&format!("{path}.initial_rto_s"), self.initial_rto_s, false)?;
        time_s(&format!("{path}.max_rto_s"), self.max_rto_s, false)?;
        if self.max_rto_s < self.min_rto_s {
            return Err(ScenarioError::new(
                format!("{path}.max_rto_s"),
                fmt_f(self.max_rto_s),
                format!("must be >= {path}.min_rto_s ({})", fmt_f(self.min_rto_s)),
            ));
        }
        time_s(
            &format!("{path}.clock_granularity_s"),
            self.clock_granularity_s,
            false,
        )?;
        at_least(
            &format!("{path}.dupack_threshold"),
            self.dupack_threshold as u64,
            1,
        )?;
        at_least(&format!("{path}.delack_count"), self.delack_count as u64, 1)?;
        time_s(
            &format!("{path}.delack_timeout_s"),
            self.delack_timeout_s,
            false,
        )?;
        if let Some(r) = self.rwnd_pkts {
            at_least(&format!("{path}.rwnd_pkts"), r as u64, 1)?;
        }
        if self.ns2_old_ecn && !self.ns2_ecn_first {
            // old_ecn_ changes the growth rule of recv_newack_helper, which the engine models
            // only under ns2_ecn_first; alone it would do nothing
            return Err(ScenarioError::new(
                format!("{path}.ns2_old_ecn"),
                "true".to_string(),
                format!("requires {path}.ns2_ecn_first = true (the ns-2 growth rule it changes)"),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::TcpConfig;

    /// `ns2_old_ecn` changes a growth rule the engine models only under `ns2_ecn_first`: alone
    /// it is refused with the field named, together it validates.
    #[test]
    fn ns2_old_ecn_requires_ns2_ecn_first() {
        let t = TcpConfig {
            ns2_old_ecn: true,
            ..TcpConfig::default()
        };
        let e = t.validate("tcp").unwrap_err();
        assert_eq!(
            e.to_string(),
            "tcp.ns2_old_ecn = true: requires tcp.ns2_ecn_first = true (the ns-2 growth rule it changes)"
        );
        let t = TcpConfig {
            ns2_old_ecn: true,
            ns2_ecn_first: true,
            ..TcpConfig::default()
        };
        assert!(t.validate("tcp").is_ok());
        assert!(TcpConfig::default().validate("tcp").is_ok());
    }
}
