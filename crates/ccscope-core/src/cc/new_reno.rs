//! TCP NewReno with ECN (RFC 5681, RFC 6582, RFC 3168 §6.1.2).
//!
//! The window logic is [`RenoWindow`]; the hooks are [`RenoBased`]'s defaults, which are
//! NewReno's behaviour. An ECN-Echo (delivered by the transport at most once per window) halves
//! like a loss but retransmits nothing.

use super::reno::RenoWindow;
use super::RenoBased;

/// Minimum cwnd after a cut for Reno, packets (ALGORITHMS.md §1: 1 for Reno).
pub const NEW_RENO_MIN_CWND_PKTS: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct NewReno {
    pub w: RenoWindow,
}

impl NewReno {
    pub fn new(mss_bytes: u32, iw_pkts: u32, ecn: bool, dupack_threshold: u32) -> Self {
        let mut w = RenoWindow::new(mss_bytes, iw_pkts, NEW_RENO_MIN_CWND_PKTS);
        w.ecn = ecn;
        w.dupack_threshold = dupack_threshold;
        NewReno { w }
    }
}

/// Every hook is [`RenoBased`]'s default: NewReno is the reference the defaults implement.
impl RenoBased for NewReno {
    #[inline]
    fn window(&self) -> &RenoWindow {
        &self.w
    }
    #[inline]
    fn window_mut(&mut self) -> &mut RenoWindow {
        &mut self.w
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Congestion;
    use crate::units::SimTime;

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
