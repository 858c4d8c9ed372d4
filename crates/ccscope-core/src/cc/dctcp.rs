//! DCTCP (Alizadeh et al. SIGCOMM 2010; analysis: Alizadeh, Javanmard, Prabhakar,
//! SIGMETRICS 2011 — "P000"), and the per-ACK "improved fairness" variant of P000 §5.2 eq 36.
//!
//! - alpha <- (1 - g) alpha + g F once per window of data, F = marked/acked bytes (P000 eq 3).
//! - On ECN-Echo, at most once per window: cwnd <- max(cwnd (1 - alpha/2), 2 pkts) (eq 4,
//!   2-packet floor of P000 §2.2), ssthresh <- cwnd.
//! - Everything else is Reno ([`RenoWindow`]); a loss halves as NewReno.
//! - `ecn_echo_blocks_growth` (ALGORITHMS.md §2.1 [CHOICE], on by default): as in the papers'
//!   simulator ns-2, an ACK carrying ECN-Echo does not grow cwnd. It sets the N = 100 fixed
//!   point of P000 Fig 2 (queue 2N - Cd); off gives Linux-like growth on every ACK.
//! - `alpha_reset_s` (off by default): P000 §4.3 (Fig 12) gives the first flow "alpha = 0 before
//!   time 1sec" when the second flow joins; held at 0 the first flow would never cut, so
//!   FIGURES.md (dctcp-analysis known inconsistency 10) reads it as a reset at that time. A flow
//!   that has received an ACK before `alpha_reset_s` sets alpha to `alpha_reset_to` at its first
//!   ACK at or after it (before that ACK's alpha update); a flow whose first ACK comes at or
//!   after `alpha_reset_s` keeps `alpha_init`.
//! - Per-ACK variant (eq 36), in congestion avoidance, per acknowledged segment:
//!   W <- W + 1/W (no ECE) or W + 1/W - alpha/2 (ECE); no once-per-window guard; floor 2 pkts.

use super::reno::RenoWindow;
use super::{AckSample, CcProbe, RenoBased};
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// DCTCP parameters. Units in names; sources in the docs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DctcpConfig {
    /// EWMA gain g of the alpha estimator (dimensionless, 0 < g <= 1). Default 1/16
    /// (P000 §2.2, Fig 2; Linux dctcp_shift_g = 4).
    #[serde(default = "default_g")]
    pub g: f64,
    /// Initial alpha, 0..1. Default 1 (Linux dctcp_alpha_on_init; ns-2 DCTCP).
    #[serde(default = "default_alpha_init")]
    pub alpha_init: f64,
    /// Floor of cwnd after an ECN cut, packets. Default 2 (P000 §2.2).
    #[serde(default = "default_min_cwnd")]
    pub min_cwnd_pkts: f64,
    /// An ACK carrying ECN-Echo does not grow cwnd (ns-2 rule, ALGORITHMS.md §2.1). Default true.
    #[serde(default = "default_true")]
    pub ecn_echo_blocks_growth: bool,
    /// Reset time of alpha, seconds (>= 0): a flow already acknowledged before it sets alpha to
    /// `alpha_reset_to` at its first ACK at or after it (P000 §4.3, Fig 12's "alpha = 0 before
    /// 1 s" read as a reset). Default: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha_reset_s: Option<f64>,
    /// Value alpha is reset to at `alpha_reset_s`, 0..1. Default 0 (P000 §4.3).
    #[serde(default)]
    pub alpha_reset_to: f64,
}

fn default_g() -> f64 {
    1.0 / 16.0
}
fn default_alpha_init() -> f64 {
    1.0
}
fn default_min_cwnd() -> f64 {
    2.0
}
fn default_true() -> bool {
    true
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            g: default_g(),
            alpha_init: default_alpha_init(),
            min_cwnd_pkts: default_min_cwnd(),
            ecn_echo_blocks_growth: true,
            alpha_reset_s: None,
            alpha_reset_to: 0.0,
        }
    }
}

/// Which DCTCP window rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DctcpRule {
    /// Cut cwnd (1 - alpha/2) at most once per window (P000 eq 4).
    WindowCut,
    /// Per-ACK update of P000 eq 36 ("improved fairness").
    PerAck,
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    pub w: RenoWindow,
    pub alpha: f64,
    g: f64,
    rule: DctcpRule,
    block_growth_on_ece: bool,
    /// alpha is updated when the cumulative ACK passes this segment number.
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
    /// Pending alpha reset (time, value) and whether an ACK arrived before its time.
    reset: Option<(SimTime, f64)>,
    acked_before_reset: bool,
    /// The ACK's alpha update was already made by [`Dctcp::count_ack_first`]; the next
    /// `on_ack` skips it.
    counted: bool,
}

impl Dctcp {
    pub fn new(
        cfg: &DctcpConfig,
        rule: DctcpRule,
        mss_bytes: u32,
        iw_pkts: u32,
        dupack_threshold: u32,
    ) -> Self {
        let mut w = RenoWindow::new(mss_bytes, iw_pkts, cfg.min_cwnd_pkts);
        w.dupack_threshold = dupack_threshold;
        w.ecn = true; // DCTCP always sends ECT
        Dctcp {
            w,
            alpha: cfg.alpha_init,
            g: cfg.g,
            rule,
            block_growth_on_ece: cfg.ecn_echo_blocks_growth,
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            reset: cfg
                .alpha_reset_s
                .map(|t| (SimTime::from_secs_f64(t), cfg.alpha_reset_to)),
            acked_before_reset: false,
            counted: false,
        }
    }

    /// Count a new ACK for alpha ahead of its ECN reaction and window update (ns-2's DCTCP
    /// sender: alpha first, then tcp.cc `ecn()`, then the window); the `on_ack` that follows
    /// for the same ACK does not count it again.
    pub fn count_ack_first(&mut self, s: &AckSample) {
        self.maybe_reset_alpha(s.now);
        self.update_alpha(s);
        self.counted = true;
    }

    /// Apply a pending alpha reset (see `DctcpConfig::alpha_reset_s`) for an ACK at `now`.
    fn maybe_reset_alpha(&mut self, now: SimTime) {
        if let Some((t, to)) = self.reset {
            if now < t {
                self.acked_before_reset = true;
            } else {
                if self.acked_before_reset {
                    self.alpha = to;
                }
                self.reset = None;
            }
        }
    }

    pub fn rule(&self) -> DctcpRule {
        self.rule
    }

    /// Count the ACK and, once per window of data, fold F into alpha (eq 3).
    fn update_alpha(&mut self, s: &AckSample) {
        self.bytes_acked += s.newly_acked_bytes;
        if s.ece {
            self.bytes_marked += s.newly_acked_bytes;
        }
        if s.snd_una > self.window_end {
            if self.bytes_acked > 0 {
                let f = self.bytes_marked as f64 / self.bytes_acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            }
            self.bytes_acked = 0;
            self.bytes_marked = 0;
            self.window_end = s.snd_nxt;
        }
    }

    /// Eq 36 for `acked` bytes: +MSS·acked/W, and -alpha/2 MSS per marked segment.
    fn per_ack_update(&mut self, acked: f64, ece: bool) {
        let w = &mut self.w;
        if ece {
            if w.in_slow_start() {
                w.ssthresh = w.cwnd; // the first mark ends slow start
            }
            w.cwnd += w.mss * acked / w.cwnd - self.alpha / 2.0 * acked;
            w.cwnd = w.cwnd.max(w.min_cwnd);
            w.ssthresh = w.ssthresh.min(w.cwnd);
        } else {
            w.grow(acked);
        }
    }
}

/// Differs from NewReno in the ACK (alpha, the per-ACK rule, ECN-Echo blocking growth), the
/// ECN cut, once per window only under the window rule, and the probe (alpha); fast retransmit,
/// timeout, duplicate ACKs and the end of recovery are NewReno's.
impl RenoBased for Dctcp {
    #[inline]
    fn window(&self) -> &RenoWindow {
        &self.w
    }
    #[inline]
    fn window_mut(&mut self) -> &mut RenoWindow {
        &mut self.w
    }
    #[inline]
    fn on_ack(&mut self, s: &AckSample) {
        if !std::mem::take(&mut self.counted) {
            self.maybe_reset_alpha(s.now);
            self.update_alpha(s);
        }
        let acked = s.newly_acked_bytes as f64;
        if s.in_recovery {
            self.w.deflate(acked);
            return;
        }
        match self.rule {
            DctcpRule::PerAck => self.per_ack_update(acked, s.ece),
            DctcpRule::WindowCut => {
                if !(s.ece && self.block_growth_on_ece) {
                    self.w.grow(acked);
                }
            }
        }
    }
    /// cwnd <- max(cwnd (1 - alpha/2), min_cwnd), ssthresh <- cwnd (P000 eq 4).
    #[inline]
    fn on_ecn_echo(&mut self, _now: SimTime, _flight_bytes: u64) {
        let w = &mut self.w;
        w.cwnd = (w.cwnd * (1.0 - self.alpha / 2.0)).max(w.min_cwnd);
        w.ssthresh = w.cwnd;
    }
    #[inline]
    fn reacts_to_ecn_once_per_window(&self) -> bool {
        self.rule == DctcpRule::WindowCut
    }
    #[inline]
    fn probe(&self, p: &mut CcProbe) {
        p.cwnd_bytes = self.w.cwnd;
        p.ssthresh_bytes = self.w.ssthresh;
        p.alpha = self.alpha;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Congestion;

    fn ack(una: u64, nxt: u64, ece: bool) -> AckSample {
        AckSample {
            now: SimTime(0),
            newly_acked_bytes: 1500,
            ece,
            rtt: None,
            snd_una: una,
            snd_nxt: nxt,
            in_recovery: false,
            flight_bytes: 0,
        }
    }

    #[test]
    fn alpha_converges_to_constant_marked_fraction() {
        let cfg = DctcpConfig::default();
        let mut d = Dctcp::new(&cfg, DctcpRule::WindowCut, 1500, 10, 3);
        // windows of 10 segments, 3 of them marked: F = 0.3
        let mut una = 0u64;
        for _ in 0..1000 {
            let nxt = una + 20;
            for k in 0..10 {
                una += 1;
                d.on_ack(&ack(una, nxt, k < 3));
            }
        }
        assert!((d.alpha - 0.3).abs() < 1e-6, "alpha = {}", d.alpha);
    }

    #[test]
    fn one_window_update_follows_the_ewma_exactly() {
        let cfg = DctcpConfig {
            alpha_init: 0.5,
            ..Default::default()
        };
        let mut d = Dctcp::new(&cfg, DctcpRule::WindowCut, 1500, 10, 3);
        d.window_end = 4;
        for (i, e) in [true, false, false, false, true].iter().enumerate() {
            d.on_ack(&ack(i as u64 + 1, 10, *e));
        }
        // window closed by the 5th ACK (snd_una 5 > 4): F = 2/5
        let want = (1.0 - 1.0 / 16.0) * 0.5 + 0.4 / 16.0;
        assert!((d.alpha - want).abs() < 1e-12);
    }

    #[test]
    fn ecn_cut_is_one_minus_alpha_over_two_with_two_packet_floor() {
        let cfg = DctcpConfig {
            alpha_init: 0.4,
            ..Default::default()
        };
        let mut d = Dctcp::new(&cfg, DctcpRule::WindowCut, 1500, 10, 3);
        d.w.cwnd = 100.0 * 1500.0;
        d.on_congestion(SimTime(0), Congestion::EcnEcho, 0);
        assert!((d.w.cwnd - 80.0 * 1500.0).abs() < 1e-9);
        assert_eq!(d.w.ssthresh, d.w.cwnd);
        d.alpha = 1.0;
        d.w.cwnd = 3.0 * 1500.0;
        d.on_congestion(SimTime(0), Congestion::EcnEcho, 0);
        assert_eq!(d.w.cwnd, 2.0 * 1500.0);
    }

    #[test]
    fn ecn_echo_blocks_growth_only_when_the_option_is_on() {
        for (blocks, grows) in [(true, false), (false, true)] {
            let cfg = DctcpConfig {
                ecn_echo_blocks_growth: blocks,
                ..Default::default()
            };
            let mut d = Dctcp::new(&cfg, DctcpRule::WindowCut, 1500, 10, 3);
            d.w.ssthresh = 0.0;
            let before = d.w.cwnd;
            d.on_ack(&ack(1, 10, true));
            assert_eq!(d.w.cwnd > before, grows);
        }
    }

    #[test]
    fn per_ack_rule_follows_eq_36() {
        let cfg = DctcpConfig {
            alpha_init: 0.5,
            ..Default::default()
        };
        let mut d = Dctcp::new(&cfg, DctcpRule::PerAck, 1500, 10, 3);
        d.w.ssthresh = 0.0;
        d.w.cwnd = 20.0 * 1500.0;
        d.window_end = 100;
        d.on_ack(&ack(1, 10, false));
        assert!((d.w.cwnd / 1500.0 - (20.0 + 1.0 / 20.0)).abs() < 1e-12);
        let w = d.w.cwnd / 1500.0;
        d.on_ack(&ack(2, 10, true));
        assert!((d.w.cwnd / 1500.0 - (w + 1.0 / w - 0.25)).abs() < 1e-12);
        assert!(!d.reacts_to_ecn_once_per_window());
        // a fully marked window of W ACKs removes about W alpha/2
        let w0 = d.w.cwnd / 1500.0;
        for i in 0..(w0 as u64) {
            d.on_ack(&ack(3 + i, 10, true));
        }
        let removed = w0 - d.w.cwnd / 1500.0;
        assert!((removed - w0 * 0.25).abs() < 1.5, "removed {removed}");
    }
}

#[cfg(test)]
mod alpha_reset_tests {
    use super::*;

    fn ack_at(t_s: f64, una: u64) -> AckSample {
        AckSample {
            now: SimTime::from_secs_f64(t_s),
            newly_acked_bytes: 1500,
            ece: false,
            rtt: None,
            snd_una: una,
            snd_nxt: una + 1000,
            in_recovery: false,
            flight_bytes: 0,
        }
    }

    fn cfg() -> DctcpConfig {
        DctcpConfig {
            alpha_init: 0.6,
            alpha_reset_s: Some(1.0),
            alpha_reset_to: 0.0,
            ..Default::default()
        }
    }

    #[test]
    fn a_running_flow_resets_alpha_at_its_first_ack_after_the_reset_time() {
        let mut d = Dctcp::new(&cfg(), DctcpRule::WindowCut, 1500, 10, 3);
        d.window_end = 10_000; // no alpha update in this test
        d.on_ack(&ack_at(0.5, 1));
        d.on_ack(&ack_at(0.999, 2));
        assert_eq!(d.alpha, 0.6);
        d.on_ack(&ack_at(1.0, 3));
        assert_eq!(d.alpha, 0.0);
        // only once: later alpha values are the EWMA's
        d.alpha = 0.3;
        d.on_ack(&ack_at(1.5, 4));
        assert_eq!(d.alpha, 0.3);
    }

    #[test]
    fn a_flow_first_acked_after_the_reset_time_keeps_alpha_init() {
        let mut d = Dctcp::new(&cfg(), DctcpRule::WindowCut, 1500, 10, 3);
        d.window_end = 10_000;
        d.on_ack(&ack_at(1.2, 1));
        d.on_ack(&ack_at(1.3, 2));
        assert_eq!(d.alpha, 0.6);
    }

    #[test]
    fn without_a_reset_time_alpha_is_never_reset() {
        let c = DctcpConfig {
            alpha_init: 0.6,
            ..Default::default()
        };
        let mut d = Dctcp::new(&c, DctcpRule::WindowCut, 1500, 10, 3);
        d.window_end = 10_000;
        d.on_ack(&ack_at(0.5, 1));
        d.on_ack(&ack_at(5.0, 2));
        assert_eq!(d.alpha, 0.6);
    }
}

#[cfg(test)]
mod byte_counting_tests {
    use super::*;
    use crate::cc::{CaIncrease, Congestion};

    #[test]
    fn window_two_grows_to_three_without_the_ns2_rule_under_byte_counting() {
        let cfg = DctcpConfig {
            ecn_echo_blocks_growth: false,
            ..Default::default()
        };
        let mut d = Dctcp::new(&cfg, DctcpRule::WindowCut, 1500, 2, 3);
        d.w.increase = CaIncrease::ByteCounting;
        d.w.ssthresh = 3000.0;
        let s = |una| AckSample {
            now: SimTime(0),
            newly_acked_bytes: 1500,
            ece: true,
            rtt: None,
            snd_una: una,
            snd_nxt: una + 2,
            in_recovery: false,
            flight_bytes: 3000,
        };
        d.on_ack(&s(1));
        d.on_congestion(SimTime(0), Congestion::EcnEcho, 3000);
        d.on_ack(&s(2));
        assert_eq!(d.w.cwnd, 4500.0);
    }
}
