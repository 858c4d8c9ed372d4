//! Default hooks for controllers built on the Reno window ([`RenoWindow`]).
//!
//! A controller implements [`RenoBased`]: the two accessors of its window and only the hooks in
//! which it differs from NewReno. Every provided method is NewReno's behaviour (RFC 5681, RFC
//! 6582, RFC 3168 §6.1.2, with the ns-2 options of [`RenoWindow`]), and the blanket impl below
//! turns any `RenoBased` type into a [`CongestionControl`]. The impl is generic, so each hook is
//! monomorphised per controller and inlined into the closed-enum dispatch of [`super::Cc`]: no
//! `dyn`, no allocation per event.
//!
//! Name clash: the hooks carry the names of [`CongestionControl`]'s. With both traits in scope,
//! call them as `RenoBased::on_ack(&mut c, &s)` or `CongestionControl::on_ack(&mut c, &s)`.

use super::reno::RenoWindow;
use super::{AckSample, CcProbe, Congestion, CongestionControl};
use crate::units::SimTime;

/// A window controller on a [`RenoWindow`]. Required: `window` and `window_mut`; everything
/// else defaults to NewReno's behaviour (see [`super::NewReno`], which overrides nothing).
pub trait RenoBased {
    /// The controller's Reno window.
    fn window(&self) -> &RenoWindow;
    /// The controller's Reno window, mutable.
    fn window_mut(&mut self) -> &mut RenoWindow;

    /// Duplicate ACKs that start fast retransmit, by which fast recovery inflates the window.
    #[inline]
    fn dupack_threshold(&self) -> u32 {
        self.window().dupack_threshold
    }

    /// A new ACK: deflate in fast recovery (RFC 6582 §3.2 step 5), otherwise slow start or
    /// congestion avoidance (RFC 5681 §3.1).
    #[inline]
    fn on_ack(&mut self, s: &AckSample) {
        let w = self.window_mut();
        if s.in_recovery {
            w.deflate(s.newly_acked_bytes as f64);
        } else {
            w.grow(s.newly_acked_bytes as f64);
        }
    }

    /// A duplicate ACK: inflate by one MSS in fast recovery (RFC 6582 §3.2 step 4).
    #[inline]
    fn on_dup_ack(&mut self, s: &AckSample) {
        if s.in_recovery {
            self.window_mut().inflate();
        }
    }

    /// Fast retransmit halves and enters fast recovery, a timeout halves ssthresh and restarts
    /// from one MSS, an ECN-Echo calls [`RenoBased::on_ecn_echo`].
    #[inline]
    fn on_congestion(&mut self, now: SimTime, kind: Congestion, flight_bytes: u64) {
        match kind {
            Congestion::FastRetransmit => {
                let dupacks = self.dupack_threshold();
                self.window_mut().enter_fast_recovery(flight_bytes, dupacks);
            }
            Congestion::Timeout => self.window_mut().on_timeout(flight_bytes),
            Congestion::EcnEcho => self.on_ecn_echo(now, flight_bytes),
        }
    }

    /// ECN-Echo (delivered at most once per window when `reacts_to_ecn_once_per_window`): halve
    /// like a loss, retransmit nothing (RFC 3168 §6.1.2); with `ns2_halve` (not `ns2_reno`) ns-2's
    /// tcp.cc `ecn()`: slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF), as the fast retransmit.
    #[inline]
    fn on_ecn_echo(&mut self, _now: SimTime, flight_bytes: u64) {
        let w = self.window_mut();
        if w.ns2_halve && !w.ns2_reno {
            w.cwnd = w.ns2_slowdown_half();
        } else {
            w.halve_ssthresh(flight_bytes);
            w.cwnd = w.ssthresh.max(w.min_cwnd);
        }
    }

    /// A full ACK ends fast recovery (RFC 6582 §3.2 step 6; see `RenoWindow::exit_fast_recovery`).
    #[inline]
    fn on_recovery_end(&mut self, flight_bytes: u64) {
        self.window_mut().exit_fast_recovery(flight_bytes);
    }

    /// The congestion window, bytes.
    #[inline]
    fn cwnd_bytes(&self) -> f64 {
        self.window().cwnd
    }

    /// Data packets are ECN-capable when the window's `ecn` is set (tcp.ecn for NewReno).
    #[inline]
    fn needs_ecn(&self) -> bool {
        self.window().ecn
    }

    /// The transport delivers ECN-Echo once per window (RFC 3168 §6.1.2).
    #[inline]
    fn reacts_to_ecn_once_per_window(&self) -> bool {
        true
    }

    /// cwnd and ssthresh; no alpha (NaN).
    #[inline]
    fn probe(&self, p: &mut CcProbe) {
        let w = self.window();
        p.cwnd_bytes = w.cwnd;
        p.ssthresh_bytes = w.ssthresh;
        p.alpha = f64::NAN;
    }
}

impl<T: RenoBased> CongestionControl for T {
    #[inline]
    fn on_ack(&mut self, s: &AckSample) {
        RenoBased::on_ack(self, s)
    }
    #[inline]
    fn on_dup_ack(&mut self, s: &AckSample) {
        RenoBased::on_dup_ack(self, s)
    }
    #[inline]
    fn on_congestion(&mut self, now: SimTime, kind: Congestion, flight_bytes: u64) {
        RenoBased::on_congestion(self, now, kind, flight_bytes)
    }
    #[inline]
    fn on_recovery_end(&mut self, _now: SimTime, flight_bytes: u64) {
        RenoBased::on_recovery_end(self, flight_bytes)
    }
    #[inline]
    fn cwnd_bytes(&self) -> f64 {
        RenoBased::cwnd_bytes(self)
    }
    #[inline]
    fn needs_ecn(&self) -> bool {
        RenoBased::needs_ecn(self)
    }
    #[inline]
    fn reacts_to_ecn_once_per_window(&self) -> bool {
        RenoBased::reacts_to_ecn_once_per_window(self)
    }
    #[inline]
    fn probe(&self, p: &mut CcProbe) {
        RenoBased::probe(self, p)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Dctcp, DctcpConfig, NewReno};
    use super::*;

    /// A controller written as the module doc says: a struct, the two accessors, nothing else.
    struct Plain {
        w: RenoWindow,
    }
    impl RenoBased for Plain {
        fn window(&self) -> &RenoWindow {
            &self.w
        }
        fn window_mut(&mut self) -> &mut RenoWindow {
            &mut self.w
        }
    }

    fn ack(una: u64, bytes: u64, ece: bool, in_recovery: bool) -> AckSample {
        AckSample {
            now: SimTime(0),
            newly_acked_bytes: bytes,
            ece,
            rtt: None,
            snd_una: una,
            snd_nxt: una + 30,
            in_recovery,
            flight_bytes: 20_000,
        }
    }

    /// Slow start, avoidance, fast recovery (inflate, partial ACK, exit), ECN halving, timeout.
    fn drive(c: &mut impl CongestionControl) -> Vec<(f64, f64)> {
        let mut trace = vec![];
        let mut p = CcProbe::default();
        let mut rec = |c: &dyn CongestionControl| {
            c.probe(&mut p);
            trace.push((p.cwnd_bytes, p.ssthresh_bytes));
        };
        for k in 1..=12 {
            c.on_ack(&ack(k, 1000, false, false));
            rec(c);
        }
        c.on_congestion(SimTime(0), Congestion::FastRetransmit, 20_000);
        rec(c);
        for _ in 0..3 {
            c.on_dup_ack(&ack(12, 0, false, true));
            rec(c);
        }
        c.on_ack(&ack(15, 3000, false, true));
        rec(c);
        c.on_recovery_end(SimTime(0), 9000);
        rec(c);
        for k in 16..=30 {
            c.on_ack(&ack(k, 1000, false, false));
            rec(c);
        }
        c.on_congestion(SimTime(0), Congestion::EcnEcho, 15_000);
        rec(c);
        c.on_congestion(SimTime(0), Congestion::Timeout, 15_000);
        rec(c);
        trace
    }

    #[test]
    fn the_defaults_are_new_reno_in_every_ns2_mode() {
        for mode in 0..4 {
            let set = |w: &mut RenoWindow| {
                w.ns2_halve = mode & 1 == 1;
                w.ns2_partial_deflation = mode & 1 == 1;
                w.ns2_exit = mode & 1 == 1;
                w.ns2_reno = mode == 2;
                w.ssthresh = 8000.0;
            };
            let mut reno = NewReno::new(1000, 4, true, 3);
            set(&mut reno.w);
            let mut plain = Plain { w: reno.w };
            let want = drive(&mut reno);
            assert_eq!(drive(&mut plain), want, "mode {mode}");
            assert!(CongestionControl::needs_ecn(&plain));
            assert!(CongestionControl::reacts_to_ecn_once_per_window(&plain));
            // hand-checked anchors: slow start 4 -> 8 segments, then +MSS²/cwnd per ACK
            assert_eq!(want[3], (8000.0, 8000.0));
            if mode == 0 {
                // RFC 6582: ssthresh = flight/2, cwnd = ssthresh + 3 MSS, +1 MSS per dup ACK,
                // partial ACK of 3 MSS: -3 +1, full ACK: min(ssthresh, flight + MSS)
                let cw: Vec<f64> = want[12..18].iter().map(|x| x.0 / 1000.0).collect();
                assert_eq!(cw, [13.0, 14.0, 15.0, 16.0, 14.0, 10.0]);
                assert_eq!(want[12].1, 10_000.0);
            }
        }
    }

    /// DCTCP overrides the ACK, the ECN cut and the probe only: its loss handling is NewReno's.
    #[test]
    fn dctcp_keeps_new_renos_loss_hooks() {
        let mut d = Dctcp::new(
            &DctcpConfig::default(),
            super::super::dctcp::DctcpRule::WindowCut,
            1000,
            4,
            3,
        );
        d.w.cwnd = 20_000.0;
        let mut n = Plain { w: d.w };
        for c in [&mut d as &mut dyn CongestionControl, &mut n] {
            c.on_congestion(SimTime(0), Congestion::FastRetransmit, 20_000);
            c.on_dup_ack(&ack(1, 0, false, true));
            c.on_recovery_end(SimTime(0), 5_000);
            c.on_congestion(SimTime(0), Congestion::Timeout, 6_000);
        }
        assert_eq!((d.w.cwnd, d.w.ssthresh), (n.w.cwnd, n.w.ssthresh));
        assert_eq!((d.w.cwnd, d.w.ssthresh), (1000.0, 3000.0));
        let mut p = CcProbe::default();
        CongestionControl::probe(&d, &mut p);
        assert_eq!(p.alpha, 1.0);
    }
}
