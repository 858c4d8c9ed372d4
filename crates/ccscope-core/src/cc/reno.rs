//! Reno window pieces shared by NewReno and DCTCP (RFC 5681, RFC 6582, RFC 3465).
//!
//! DCTCP reuses all of this and adds only its alpha estimator and ECN cut, as Linux
//! `tcp_dctcp.c` reuses `tcp_reno_cong_avoid`.

/// Appropriate Byte Counting limit L in slow start with delayed ACKs, segments (RFC 3465 §2.2:
/// L = 2). Without delayed ACKs the limit is 1 MSS per ACK (RFC 5681 §3.1, ns-2: +1 per new ACK,
/// also when a cumulative ACK after a retransmission covers several segments).
pub const ABC_LIMIT_SEGMENTS: f64 = 2.0;

/// Duplicate-ACK threshold a new window starts with (RFC 5681 §3.2).
pub const DEFAULT_DUPACK_THRESHOLD: u32 = 3;

/// cwnd and ssthresh in bytes, plus the segment size they are counted in.
#[derive(Clone, Copy, Debug)]
pub struct RenoWindow {
    pub cwnd: f64,
    pub ssthresh: f64,
    pub mss: f64,
    /// Floor applied after a multiplicative cut (not after an RTO), bytes.
    pub min_cwnd: f64,
    /// Duplicate ACKs that trigger fast retransmit; fast recovery inflates the halved window by
    /// this many MSS (RFC 5681 §3.2 step 4; ns-2 `numdupacks_`).
    pub dupack_threshold: u32,
    /// The flow sends ECN-capable (ECT) packets and cuts on ECN-Echo (RFC 3168); what
    /// [`RenoBased::needs_ecn`](super::RenoBased::needs_ecn) returns unless a controller overrides it.
    pub ecn: bool,
    /// Congestion-avoidance increase rule.
    pub increase: CaIncrease,
    /// Slow-start increase limit per ACK, segments: 1 (one ACK per segment) or
    /// `ABC_LIMIT_SEGMENTS` (delayed ACKs, RFC 3465 §2.2).
    pub ss_limit: f64,
    /// Reno as ns-2 runs it (P001's simulator; tcp.cc slowdown, tcp-reno.cc): a cut halves the
    /// window in whole segments, half = int(window/2) with ssthresh = max(half, 2) and cwnd = half
    /// (at least 1) once fast recovery ends at the first new ACK, where the window is ns-2's
    /// `window()` = min(int(cwnd), rwnd) of the congestion window without fast-recovery inflation,
    /// not the data in flight (they differ at a timeout after a failed recovery, when more is in
    /// flight than the halved window). NewReno (false) keeps RFC 5681's max(FlightSize/2, 2 MSS)
    /// and RFC 6582's full-ACK deflation to min(ssthresh, FlightSize + MSS).
    pub ns2_reno: bool,
    /// Receiver window, bytes (ns-2 `window_`): caps the window ns-2 Reno halves.
    pub rwnd: f64,
    /// ns-2 Agent/TCP/Newreno's partial-ACK deflation (tcp-newreno.cc `partialnewack`,
    /// `partial_window_deflation_ 1`, ns-default.tcl): the fast-recovery inflation (`dupwnd_`)
    /// is kept apart from the window (`cwnd_`); a partial ACK of `deflate` segments takes
    /// `deflate - 1` from the inflation when the inflation is larger, otherwise it cuts the window
    /// itself by `deflate - dupwnd_` (at least 1 MSS) and leaves an inflation of 1 MSS. The
    /// total equals RFC 6582's (cwnd - acked + MSS) except for the floor (ns-2: window >= 1 MSS plus
    /// 1 MSS of inflation); the cut window is what `ns2_exit` leaves recovery at.
    pub ns2_partial_deflation: bool,
    /// ns-2 Agent/TCP/Newreno leaving recovery with `exit_recovery_fix_ 0` (tcp-newreno.cc
    /// `recv`: `dupwnd_ = 0`, `cwnd_` untouched): cwnd = the window without the inflation (the
    /// halved window, less what `ns2_partial_deflation` cut), and the full ACK then grows it as
    /// any new ACK (recv_newack_helper -> opencwnd). Off: RFC 6582's min(ssthresh, FlightSize + MSS).
    pub ns2_exit: bool,
    /// ns-2 Agent/TCP/Newreno's fast-retransmit cut (tcp-newreno.cc `dupack_action` ->
    /// tcp.cc `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)`) from the window, not the flight:
    /// with `precisionReduce_ true` (ns-2.35's default) halfwin = windowd() / 2, windowd() =
    /// min(cwnd_ + dupwnd_, wnd_) with dupwnd_ = 0 here (tcp-reno.cc `windowd`), so half of
    /// min(cwnd, rwnd), fractional; ssthresh_ = int(halfwin) (an int), at least 2; cwnd_ = halfwin,
    /// at least 1; the 3 MSS of inflation stay apart (dupwnd_). A timeout takes ssthresh from the
    /// same halfwin of the window without inflation (tcp.cc `timeout`). Off: RFC 5681's max(FlightSize/2,
    /// 2 MSS) for both. Not used by `ns2_reno` (which has its own, `precisionReduce_ false`).
    pub ns2_halve: bool,
    /// With `ns2_halve`: `precisionReduce_ false` (tcp.cc `slowdown`: halfwin = int(window() / 2),
    /// window() = min(int(cwnd_) + dupwnd_, int(wnd_))): ssthresh = cwnd = that whole number.
    pub ns2_halve_whole: bool,
    /// The window fast recovery ends at (ns-2 Reno's halfwin), bytes.
    recovery_cwnd: f64,
    /// cwnd is inflated by fast recovery (ns-2 keeps the inflation apart, in `dupwnd_`).
    inflated: bool,
    /// Bytes acknowledged since the last +1 MSS step (byte counting only).
    ca_acked: f64,
}

/// How congestion avoidance grows the window.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CaIncrease {
    /// cwnd += MSS * acked / cwnd on every ACK: a smooth, fractional window (ns-2, the papers'
    /// simulator; ALGORITHMS.md §1).
    #[default]
    PerAck,
    /// cwnd += 1 MSS once a full cwnd of bytes has been acknowledged: whole-packet steps
    /// (RFC 3465 §2.1 byte counting; Linux tcp_cong_avoid_ai).
    ByteCounting,
}

impl RenoWindow {
    pub fn new(mss_bytes: u32, iw_pkts: u32, min_cwnd_pkts: f64) -> Self {
        let mss = mss_bytes as f64;
        RenoWindow {
            cwnd: iw_pkts as f64 * mss,
            ssthresh: f64::INFINITY,
            mss,
            min_cwnd: min_cwnd_pkts * mss,
            dupack_threshold: DEFAULT_DUPACK_THRESHOLD,
            ecn: false,
            increase: CaIncrease::PerAck,
            ss_limit: 1.0,
            ns2_reno: false,
            rwnd: f64::INFINITY,
            ns2_partial_deflation: false,
            ns2_exit: false,
            ns2_halve: false,
            ns2_halve_whole: false,
            recovery_cwnd: 0.0,
            inflated: false,
            ca_acked: 0.0,
        }
    }

    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Slow start (RFC 5681 §3.1; with delayed ACKs ABC, RFC 3465): +min(acked, L·MSS) per ACK.
    #[inline]
    pub fn slow_start(&mut self, acked_bytes: f64) {
        self.cwnd += acked_bytes.min(self.ss_limit * self.mss);
    }

    /// Congestion avoidance: +MSS·min(acked, MSS)/cwnd per ACK (RFC 5681's MSS²/cwnd per ACK,
    /// ≈ +1 MSS per RTT; a cumulative ACK after a hole is filled counts once, as in ns-2).
    #[inline]
    pub fn cong_avoid(&mut self, acked_bytes: f64) {
        match self.increase {
            CaIncrease::PerAck => self.cwnd += self.mss * acked_bytes.min(self.mss) / self.cwnd,
            CaIncrease::ByteCounting => {
                self.ca_acked += acked_bytes;
                if self.ca_acked >= self.cwnd {
                    self.ca_acked -= self.cwnd;
                    self.cwnd += self.mss;
                }
            }
        }
    }

    /// Forget partial byte-counting progress (RFC 3465 §2.1: on an increase, and on RTO).
    pub fn reset_count(&mut self) {
        self.ca_acked = 0.0;
    }

    /// Reno growth for one new ACK outside recovery.
    #[inline]
    pub fn grow(&mut self, acked_bytes: f64) {
        if self.in_slow_start() {
            self.slow_start(acked_bytes);
        } else {
            self.cong_avoid(acked_bytes);
        }
    }

    /// ssthresh = max(FlightSize/2, 2 MSS) (RFC 5681 eq 4); ns-2 Reno: max(int(window/2), 2)
    /// segments with window = min(int(cwnd), rwnd), cwnd without fast-recovery inflation (see
    /// `ns2_reno`). Returns the halved window.
    pub fn halve_ssthresh(&mut self, flight_bytes: u64) -> f64 {
        let half = if self.ns2_reno {
            let cwnd = if self.inflated {
                self.recovery_cwnd
            } else {
                self.cwnd
            };
            let window = (cwnd / self.mss)
                .floor()
                .min((self.rwnd / self.mss).floor());
            (window / 2.0).floor() * self.mss
        } else {
            flight_bytes as f64 / 2.0
        };
        self.ssthresh = half.max(2.0 * self.mss);
        half
    }

    /// Enter fast recovery: ssthresh from flight, cwnd = ssthresh + 3 MSS (RFC 6582 §3.2 step 2-3);
    /// ns-2 Reno inflates its halved window (at least 1 MSS) by the same 3 MSS.
    pub fn enter_fast_recovery(&mut self, flight_bytes: u64, dupack_threshold: u32) {
        if self.ns2_halve && !self.ns2_reno {
            self.recovery_cwnd = self.ns2_slowdown_half();
            self.cwnd = self.recovery_cwnd + dupack_threshold as f64 * self.mss;
            self.inflated = true;
            return;
        }
        let half = self.halve_ssthresh(flight_bytes);
        self.recovery_cwnd = if self.ns2_reno {
            half.max(self.mss)
        } else {
            self.ssthresh
        };
        self.cwnd = self.recovery_cwnd + dupack_threshold as f64 * self.mss;
        self.inflated = true;
    }

    /// Enter fast recovery with an ssthresh the controller chose (CUBIC's beta cut): cwnd =
    /// ssthresh + `dupack_threshold` MSS (RFC 6582 §3.2 step 3, unchanged by RFC 9438 §4.2).
    pub fn enter_fast_recovery_at(&mut self, ssthresh: f64, dupack_threshold: u32) {
        self.ssthresh = ssthresh;
        self.recovery_cwnd = ssthresh;
        self.cwnd = ssthresh + dupack_threshold as f64 * self.mss;
        self.inflated = true;
    }

    /// ns-2's `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)` (`ns2_halve`, window not inflated):
    /// sets ssthresh and returns cwnd_ = halfwin, bytes.
    pub fn ns2_slowdown_half(&mut self) -> f64 {
        // tcp.cc slowdown: windowd() = min(cwnd_, wnd_) (dupwnd_ = 0 outside recovery);
        // precision_reduce_ ? windowd() / 2 : int(window() / 2); ssthresh_ = int(halfwin) >= 2,
        // cwnd_ = halfwin >= 1; at a timeout RenoTcpAgent::timeout sets dupwnd_ = 0 first
        let cwnd = if self.inflated {
            self.recovery_cwnd
        } else {
            self.cwnd
        };
        let window = cwnd.min(self.rwnd) / self.mss;
        let half = if self.ns2_halve_whole {
            (window.floor() / 2.0).floor()
        } else {
            window / 2.0
        };
        self.ssthresh = half.floor().max(2.0) * self.mss;
        half.max(1.0) * self.mss
    }

    /// ns-2 Agent/TCP/Newreno's fast retransmit after an ECN cut (tcp-newreno.cc `dupack_action`:
    /// `if (ecn_ && last_cwnd_action_ == CWND_ACTION_ECN) { ... dupwnd_ = numdupacks_; return; }`):
    /// fast recovery with the window as the ECN cut left it, no second cut, inflated by
    /// `dupack_threshold` MSS (kept apart as `dupwnd_`).
    pub fn enter_recovery_without_cut(&mut self, dupack_threshold: u32) {
        self.recovery_cwnd = self.cwnd;
        self.cwnd += dupack_threshold as f64 * self.mss;
        self.inflated = true;
    }

    /// ns-2's ECN cut on the full ACK that ends fast recovery (tcp-newreno.cc `recv` calls
    /// `ecn()` while `dupwnd_` still inflates the window; `windowd()` = min(cwnd_ + dupwnd_,
    /// wnd_)): the inflation becomes part of the window the cut then acts on, and leaving
    /// recovery (`dupwnd_ = 0`) keeps what the cut leaves.
    pub fn fold_inflation(&mut self) {
        self.inflated = false;
    }

    /// ns-2's timeout while `last_cwnd_action_ == CWND_ACTION_ECN` (tcp.cc `timeout`:
    /// `slowdown(CLOSE_CWND_ONE)`, after RenoTcpAgent::timeout's `dupwnd_ = 0`): cwnd = 1 MSS,
    /// ssthresh kept (slowdown's floor `if (ssthresh_ < 2) ssthresh_ = 2`).
    pub fn on_timeout_keep_ssthresh(&mut self) {
        self.reset_count();
        self.ssthresh = self.ssthresh.max(2.0 * self.mss);
        self.inflated = false;
        self.cwnd = self.mss;
    }

    /// Each further duplicate ACK inflates the window by one MSS (RFC 6582 §3.2 step 4).
    pub fn inflate(&mut self) {
        self.cwnd += self.mss;
    }

    /// Partial ACK: deflate by the newly acked amount, add back one MSS (RFC 6582 §3.2 step 5);
    /// with `ns2_partial_deflation`, ns-2's `partialnewack` on the window and inflation apart.
    pub fn deflate(&mut self, acked_bytes: f64) {
        if self.ns2_partial_deflation && self.inflated && !self.ns2_reno {
            // tcp-newreno.cc partialnewack: if (dupwnd_ > deflate) dupwnd_ -= (deflate - 1);
            // else { cwnd_ -= (deflate - dupwnd_); dupwnd_ = 1; } if (cwnd_ < 1) cwnd_ = 1;
            let mut dupwnd = self.cwnd - self.recovery_cwnd;
            if dupwnd > acked_bytes {
                dupwnd -= acked_bytes - self.mss;
            } else {
                self.recovery_cwnd -= acked_bytes - dupwnd;
                dupwnd = self.mss;
            }
            self.recovery_cwnd = self.recovery_cwnd.max(self.mss);
            self.cwnd = self.recovery_cwnd + dupwnd;
            return;
        }
        self.cwnd = (self.cwnd - acked_bytes + self.mss).max(self.mss);
    }

    /// Full ACK: cwnd = min(ssthresh, FlightSize + MSS) (RFC 6582 §3.2 step 6, option 1); Reno's
    /// first new ACK: cwnd = the halved window (RFC 5681 §3.2 step 6 "set cwnd to ssthresh";
    /// ns-2 Reno's halfwin), even when little is in flight (a window capped by rwnd that lost one
    /// segment has nothing left in flight here).
    pub fn exit_fast_recovery(&mut self, flight_bytes: u64) {
        self.inflated = false;
        self.cwnd = if self.ns2_reno || self.ns2_exit {
            self.recovery_cwnd
        } else {
            self.ssthresh.min(flight_bytes as f64 + self.mss)
        }
        .max(self.mss);
    }

    /// RTO with an ssthresh the controller chose (CUBIC's beta cut, RFC 9438 §4.8): cwnd = 1 MSS
    /// (RFC 5681's loss window).
    pub fn on_timeout_at(&mut self, ssthresh: f64) {
        self.reset_count();
        self.ssthresh = ssthresh;
        self.inflated = false;
        self.cwnd = self.mss;
    }

    /// RTO: ssthresh from flight, cwnd = 1 MSS (RFC 5681 §3.1 eq 4 and loss window).
    /// With `ns2_halve` (not `ns2_reno`): tcp.cc timeout -> slowdown(CLOSE_SSTHRESH_HALF|
    /// CLOSE_CWND_RESTART), ssthresh from ns-2's halfwin of the window without inflation.
    pub fn on_timeout(&mut self, flight_bytes: u64) {
        self.reset_count();
        if self.ns2_halve && !self.ns2_reno {
            self.ns2_slowdown_half();
        } else {
            self.halve_ssthresh(flight_bytes);
        }
        self.inflated = false;
        self.cwnd = self.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2 tcp.cc slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF) at the fast retransmit, worked in
    /// segments, 21 in flight:
    /// - cwnd 21.5: precisionReduce_ true: halfwin 10.75, ssthresh int 10, cwnd 10.75 + 3 = 13.75;
    ///   false: int(21 / 2) = 10, cwnd 13; RFC 5681 (flight): 10.5, 13.5.
    /// - cwnd 21.5, rwnd 15: windowd() = 15, halfwin 7.5: ssthresh 7, cwnd 10.5; false: 7, 10.
    /// - cwnd 1.5: halfwin 0.75: ssthresh int 0 -> 2, cwnd 0.75 -> 1, + 3 = 4; false: 0 -> 2, 4.
    #[test]
    fn ns2_halve_cuts_the_window_not_the_flight() {
        let cases = [
            (
                21.5,
                f64::INFINITY,
                [(10.0, 13.75), (10.0, 13.0), (10.5, 13.5)],
            ),
            (21.5, 15.0, [(7.0, 10.5), (7.0, 10.0), (10.5, 13.5)]),
            (1.5, f64::INFINITY, [(2.0, 4.0), (2.0, 4.0), (10.5, 13.5)]),
        ];
        for (cwnd, rwnd, want) in cases {
            for (mode, (ssthresh, cwnd_after)) in want.into_iter().enumerate() {
                let mut w = RenoWindow::new(1000, 10, 1.0);
                w.cwnd = cwnd * 1000.0;
                w.rwnd = rwnd * 1000.0;
                w.ns2_halve = mode < 2;
                w.ns2_halve_whole = mode == 1;
                w.enter_fast_recovery(21_000, 3);
                assert_eq!(
                    (w.ssthresh / 1000.0, w.cwnd / 1000.0),
                    (ssthresh, cwnd_after),
                    "cwnd {cwnd} rwnd {rwnd} mode {mode}"
                );
            }
        }
    }

    /// RTO (tcp.cc timeout -> slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART), wnd_restart_ 1;
    /// dupwnd_ = 0 first):
    /// cwnd 21.5 with 21 in flight: ssthresh int(10.75) = 10 (RFC: 10.5); during recovery entered
    /// from it (window 10.75 + 3 + 2 dupacks, 21 in flight): int(10.75 / 2) = 5 (RFC: 10.5); cwnd 1.
    #[test]
    fn ns2_halve_at_a_timeout_uses_the_window_without_inflation() {
        for ns2 in [false, true] {
            let mut w = RenoWindow::new(1000, 10, 1.0);
            w.cwnd = 21_500.0;
            w.ns2_halve = ns2;
            w.on_timeout(21_000);
            assert_eq!(w.ssthresh, if ns2 { 10_000.0 } else { 10_500.0 });
            assert_eq!(w.cwnd, 1000.0);
            w.cwnd = 21_500.0;
            w.enter_fast_recovery(21_000, 3);
            w.inflate();
            w.inflate();
            w.on_timeout(21_000);
            assert_eq!(w.ssthresh, if ns2 { 5_000.0 } else { 10_500.0 });
            assert_eq!(w.cwnd, 1000.0);
        }
    }
    #[test]
    fn a_cumulative_ack_over_many_segments_grows_the_window_by_one_ack_only() {
        let mut w = RenoWindow::new(1000, 10, 1.0);
        w.ssthresh = 5000.0; // congestion avoidance
        w.grow(16_200.0 * 1000.0); // a hole filled behind 16 200 buffered segments
        assert!(
            (w.cwnd - (10_000.0 + 1000.0 * 1000.0 / 10_000.0)).abs() < 1e-9,
            "{}",
            w.cwnd
        );
    }

    #[test]
    fn slow_start_adds_one_mss_per_ack_and_two_with_delayed_acks() {
        // a cumulative ACK covering 3 segments (the retransmission after a go-back-N RTO)
        let mut w = RenoWindow::new(1000, 1, 1.0);
        w.ssthresh = 8000.0;
        w.grow(3000.0);
        assert_eq!(
            w.cwnd, 2000.0,
            "one ACK per segment: +1 MSS (RFC 5681, ns-2)"
        );
        let mut d = RenoWindow::new(1000, 1, 1.0);
        d.ssthresh = 8000.0;
        d.ss_limit = ABC_LIMIT_SEGMENTS;
        d.grow(3000.0);
        assert_eq!(d.cwnd, 3000.0, "delayed ACKs: ABC with L = 2 (RFC 3465)");
    }

    #[test]
    fn reno_leaves_recovery_at_ssthresh_and_newreno_at_flight_plus_one() {
        // rwnd-capped window of 20 that lost one segment: nothing left in flight at the exit
        let mut reno = RenoWindow::new(1000, 2, 1.0);
        reno.ns2_reno = true;
        reno.cwnd = 20_000.0;
        reno.enter_fast_recovery(20_000, 3);
        reno.exit_fast_recovery(0);
        assert_eq!(reno.cwnd, 10_000.0);
        // ns-2 Reno halves whole segments: a window of 5 goes to 2 (RFC 5681: 2.5), one of 3 to
        // cwnd 1 with ssthresh 2
        reno.cwnd = 5_000.0;
        reno.enter_fast_recovery(5_000, 3);
        assert_eq!((reno.ssthresh, reno.cwnd), (2_000.0, 5_000.0));
        reno.exit_fast_recovery(0);
        assert_eq!(reno.cwnd, 2_000.0);
        reno.cwnd = 3_000.0;
        reno.enter_fast_recovery(3_000, 3);
        reno.exit_fast_recovery(0);
        assert_eq!((reno.ssthresh, reno.cwnd), (2_000.0, 1_000.0));
        let mut newreno = RenoWindow::new(1000, 2, 1.0);
        newreno.enter_fast_recovery(20_000, 3);
        newreno.exit_fast_recovery(0);
        assert_eq!(newreno.cwnd, 1000.0);
    }

    #[test]
    fn slow_start_doubles_per_rtt_and_avoidance_adds_one_mss() {
        let mut w = RenoWindow::new(1000, 2, 1.0);
        // one RTT of ACKs, one per segment
        let n = (w.cwnd / w.mss) as usize;
        for _ in 0..n {
            w.grow(1000.0);
        }
        assert_eq!(w.cwnd, 4000.0);
        w.ssthresh = 4000.0;
        for _ in 0..4 {
            w.grow(1000.0);
        }
        assert!((w.cwnd - 4000.0 - 1000.0).abs() < 200.0, "{}", w.cwnd);
    }
    #[test]
    fn byte_counting_adds_one_mss_per_cwnd_of_acked_bytes() {
        let mut w = RenoWindow::new(1000, 4, 1.0);
        w.increase = CaIncrease::ByteCounting;
        w.ssthresh = 0.0;
        for _ in 0..3 {
            w.grow(1000.0);
        }
        assert_eq!(w.cwnd, 4000.0);
        w.grow(1000.0);
        assert_eq!(w.cwnd, 5000.0);
    }

    #[test]
    fn ns2_reno_halves_its_window_not_the_data_in_flight() {
        // ns-2 tcp.cc slowdown: halfwin = int(window()/2), window() = min(int(cwnd_), window_),
        // cwnd_ without the fast-recovery inflation (dupwnd_).
        let mut w = RenoWindow::new(1000, 2, 1.0);
        w.ns2_reno = true;
        w.rwnd = 20_000.0;
        // a failed Reno recovery: left at cwnd 4 with 7 segments still in flight, then an RTO
        w.cwnd = 4_000.0;
        w.ssthresh = 4_000.0;
        w.on_timeout(7_000);
        assert_eq!((w.ssthresh, w.cwnd), (2_000.0, 1_000.0));
        // cwnd grown past rwnd while the flow is rwnd-limited: the window is rwnd
        w.cwnd = 35_500.0;
        w.enter_fast_recovery(20_000, 3);
        assert_eq!((w.ssthresh, w.cwnd), (10_000.0, 13_000.0));
        // an RTO during recovery halves the halved window, not the inflated one
        w.inflate();
        w.on_timeout(20_000);
        assert_eq!((w.ssthresh, w.cwnd), (5_000.0, 1_000.0));
        // RFC 5681 (NewReno): FlightSize/2
        let mut n = RenoWindow::new(1000, 2, 1.0);
        n.cwnd = 4_000.0;
        n.on_timeout(7_000);
        assert_eq!(n.ssthresh, 3_500.0);
    }

    #[test]
    fn fast_recovery_halves_then_inflates_then_deflates() {
        let mut w = RenoWindow::new(1000, 2, 1.0);
        w.cwnd = 20_000.0;
        w.enter_fast_recovery(20_000, 3);
        assert_eq!(w.ssthresh, 10_000.0);
        assert_eq!(w.cwnd, 13_000.0);
        w.inflate();
        assert_eq!(w.cwnd, 14_000.0);
        w.deflate(5_000.0);
        assert_eq!(w.cwnd, 10_000.0);
        w.exit_fast_recovery(4_000);
        assert_eq!(w.cwnd, 5_000.0);
        w.on_timeout(8_000);
        assert_eq!((w.cwnd, w.ssthresh), (1000.0, 4000.0));
    }
}
