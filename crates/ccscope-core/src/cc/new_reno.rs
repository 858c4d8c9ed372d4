//! TCP NewReno with ECN (RFC 5681, RFC 6582, RFC 3168 §6.1.2).
//!
//! The window logic is [`RenoWindow`]; this type only wires the hooks. An ECN-Echo (delivered
//! by the transport at most once per window) halves like a loss but retransmits nothing.

use super::reno::RenoWindow;
use super::{AckSample, CcProbe, Congestion, CongestionControl};
use crate::units::SimTime;

/// Minimum cwnd after a cut for Reno, packets (ALGORITHMS.md §1: 1 for Reno).
pub const NEW_RENO_MIN_CWND_PKTS: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct NewReno {
    pub w: RenoWindow,
    ecn: bool,
    dupack_threshold: u32,
}

impl NewReno {
    pub fn new(mss_bytes: u32, iw_pkts: u32, ecn: bool, dupack_threshold: u32) -> Self {
        NewReno {
            w: RenoWindow::new(mss_bytes, iw_pkts, NEW_RENO_MIN_CWND_PKTS),
            ecn,
            dupack_threshold,
        }
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, s: &AckSample) {
        if s.in_recovery {
            self.w.deflate(s.newly_acked_bytes as f64);
        } else {
            self.w.grow(s.newly_acked_bytes as f64);
        }
    }
    fn on_dup_ack(&mut self, s: &AckSample) {
        if s.in_recovery {
            self.w.inflate();
        }
    }
    fn on_congestion(&mut self, _now: SimTime, kind: Congestion, flight_bytes: u64) {
        match kind {
            Congestion::FastRetransmit => self
                .w
                .enter_fast_recovery(flight_bytes, self.dupack_threshold),
            Congestion::Timeout => self.w.on_timeout(flight_bytes),
            Congestion::EcnEcho => {
                self.w.halve_ssthresh(flight_bytes);
                self.w.cwnd = self.w.ssthresh.max(self.w.min_cwnd);
            }
        }
    }
    fn on_recovery_end(&mut self, flight_bytes: u64) {
        self.w.exit_fast_recovery(flight_bytes);
    }
    fn cwnd_bytes(&self) -> f64 {
        self.w.cwnd
    }
    fn needs_ecn(&self) -> bool {
        self.ecn
    }
    fn reacts_to_ecn_once_per_window(&self) -> bool {
        true
    }
    fn probe(&self, p: &mut CcProbe) {
        p.cwnd_bytes = self.w.cwnd;
        p.ssthresh_bytes = self.w.ssthresh;
        p.alpha = f64::NAN;
    }
}
