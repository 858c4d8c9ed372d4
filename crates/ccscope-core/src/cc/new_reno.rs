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
            // tcp.cc ecn: slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF), as the fast retransmit
            Congestion::EcnEcho if self.w.ns2_halve && !self.w.ns2_reno => {
                self.w.cwnd = self.w.ns2_slowdown_half();
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2 tcp.cc ecn -> slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF): cwnd 21.5, 21 in flight:
    /// halfwin 10.75 -> ssthresh 10, cwnd 10.75; RFC (flight): ssthresh = cwnd = 10.5.
    #[test]
    fn ns2_halve_on_ecn_echo_cuts_the_window() {
        for ns2 in [false, true] {
            let mut c = NewReno::new(1000, 10, true, 3);
            c.w.cwnd = 21_500.0;
            c.w.ns2_halve = ns2;
            c.on_congestion(SimTime(0), Congestion::EcnEcho, 21_000);
            let want = if ns2 { (10.0, 10.75) } else { (10.5, 10.5) };
            assert_eq!(
                (c.w.ssthresh / 1000.0, c.w.cwnd / 1000.0),
                want,
                "ns2 = {ns2}"
            );
        }
    }
}
