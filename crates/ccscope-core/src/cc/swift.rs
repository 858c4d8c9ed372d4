//! Swift (Kumar, Dukkipati, Jang, Wassel, Wu, Montazeri, Wang, Springborn, Alfeld, Ryan, Wong,
//! Mazumder, Ghobadi, Vahdat, "Swift: Delay is Simple and Effective for Congestion Control in
//! the Datacenter", SIGCOMM 2020): AIMD on a window against an end-to-end delay target.
//! Windows are in packets (the paper's unit); the controller keeps its window in bytes on a
//! [`RenoWindow`] and converts.
//!
//! Algorithm 1 (§3.2, with §3.5's target), on every ACK with an RTT sample `delay`:
//! ```text
//! can_decrease = now - t_last_decrease >= rtt            (at most one MD per RTT)
//! retransmit_cnt = 0
//! delay <  target : cwnd += ai / cwnd * num_acked   if cwnd >= 1      (AI, ai per RTT)
//!                   cwnd += ai * num_acked          otherwise
//! delay >= target : if can_decrease:
//!                   cwnd *= max(1 - beta (delay - target) / delay, 1 - max_mdf)      (MD)
//! on a retransmission timeout: retransmit_cnt += 1
//!                   retransmit_cnt >= RETX_RESET_THRESHOLD : cwnd = min_cwnd
//!                   else if can_decrease                  : cwnd *= 1 - max_mdf
//! on fast recovery: retransmit_cnt = 0; if can_decrease: cwnd *= 1 - max_mdf
//! then always:      cwnd = clamp(cwnd, min_cwnd, max_cwnd)
//!                   cwnd < cwnd_prev : t_last_decrease = now
//!                   pacing_delay = rtt / cwnd if cwnd < 1 else 0
//! ```
//! Target delay (§3.5, topology- and flow-based scaling), cwnd in packets:
//! ```text
//! target = base_target + hops * h + clamp(alpha / sqrt(cwnd) + beta_fs, 0, fs_range)
//! alpha  = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd)),  beta_fs = -alpha/sqrt(fs_max_cwnd)
//! ```
//! so the flow-scaling term is fs_range at cwnd <= fs_min_cwnd and 0 at cwnd >= fs_max_cwnd.
//!
//! Readings and choices:
//! - Delay: Swift splits the RTT into fabric delay (compared with this target) and endpoint
//!   (NIC/host) delay with its own window (§3.3). ccscope has no NIC or host-stack delay model:
//!   the whole RTT sample is the fabric delay, and there is no endpoint window (equivalently its
//!   target is never reached). The target therefore includes the path's propagation and
//!   serialization: `base_target_s` must exceed the flow's no-queue RTT.
//! - hops: the number of switches on the forward route (the paper reads it from the IP TTL,
//!   which each switch decrements); htsim's `Route::hop_count` counts links instead (see
//!   docs/validation.md).
//! - rtt in `can_decrease` and in the pacing delay is the controller's smoothed RTT (RFC 6298
//!   gain 1/8, first sample as is), as htsim's swift.cpp uses its smoothed `_rtt`; before any
//!   sample it is 0 (every MD allowed, no pacing gap).
//! - The rule `cwnd < cwnd_prev` (strict) stamps t_last_decrease: with `<=`, an ACK that leaves
//!   cwnd unchanged (an MD blocked by can_decrease) would push t_last_decrease forward forever.
//! - Loss detection and retransmission are the transport's (NewReno fast retransmit and
//!   recovery, RFC 6298 timer with back-off); Swift's "on fast recovery" cut is taken when the
//!   transport enters fast recovery. The window is not inflated by duplicate ACKs (no ssthresh,
//!   no slow start: Swift starts at `tcp.iw_pkts` and runs AI/MD only); ACKs in recovery run
//!   the delay rule as any other.
//! - num_acked is the newly acknowledged bytes over the MSS; an ACK without an RTT sample
//!   (Karn: it acknowledges a retransmission) changes nothing but resets retransmit_cnt.
//! - cwnd < 1 packet: the transport sends at most one packet in flight and spaces the sends by
//!   pacing_delay = srtt / cwnd ([`Swift::pacing_delay`]; `transport/sender.rs`).
//! - No ECN: packets are not ECN-capable.
//!
//! Defaults: the paper gives Algorithm 1's constants and §3.5's formula but few numbers; each
//! default says where it comes from (the paper where it has one, otherwise htsim's swift.cpp,
//! or Google's open-source Swift configuration in Isekai, "Swift in Pony" defaults).

use super::reno::RenoWindow;
use super::{AckSample, CcProbe, Congestion, RenoBased};
use crate::units::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Swift parameters (scenario `[swift]`). Windows in packets, times in seconds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwiftConfig {
    /// Additive increment ai, packets per RTT (> 0). Default 1.0 (htsim swift.cpp `_ai`; Isekai
    /// fabric_additive_increment_factor).
    #[serde(default = "d_ai")]
    pub ai: f64,
    /// Multiplicative-decrease constant beta (strictly between 0 and 1). Default 0.8 (htsim
    /// `_beta`; Isekai fabric_multiplicative_decrease_factor).
    #[serde(default = "d_beta")]
    pub beta: f64,
    /// Largest multiplicative decrease per step, max_mdf (strictly between 0 and 1). Default 0.5
    /// (htsim `_max_mdf`; Isekai max_fabric_multiplicative_decrease).
    #[serde(default = "d_max_mdf")]
    pub max_mdf: f64,
    /// Base target delay, seconds (> 0, at most 1). Default 25e-6 (Isekai fabric_base_delay
    /// 25 us; htsim uses 20 us). Compared with the whole RTT (no host-delay model here): it
    /// must exceed the flow's no-queue RTT.
    #[serde(default = "d_base_target")]
    pub base_target_s: f64,
    /// Per-hop scaling h, seconds per switch on the forward route (>= 0, at most 1). Default 1e-6
    /// (Isekai topo_scaling_per_hop 1 us; htsim: base target / 6.55).
    #[serde(default = "d_hop_scale")]
    pub hop_scale_s: f64,
    /// Flow-scaling range fs_range, seconds (>= 0, at most 1): the largest extra target, reached
    /// at cwnd <= fs_min_cwnd; 0 turns flow scaling off. Default 125e-6 (htsim: 5 x base target).
    #[serde(default = "d_fs_range")]
    pub fs_range_s: f64,
    /// Window at or below which flow scaling adds all of fs_range, packets (> 0). Default 0.1
    /// (htsim `_fs_min_cwnd`; Isekai min_flow_scaling_window).
    #[serde(default = "d_fs_min")]
    pub fs_min_cwnd: f64,
    /// Window at or above which flow scaling adds nothing, packets (> fs_min_cwnd). Default 100
    /// (htsim `_fs_max_cwnd`).
    #[serde(default = "d_fs_max")]
    pub fs_max_cwnd: f64,
    /// Smallest window, packets (> 0, at most max_cwnd). Default 0.01 (Isekai
    /// min_fabric_congestion_window: a pacing gap of 100 RTTs).
    #[serde(default = "d_min_cwnd")]
    pub min_cwnd: f64,
    /// Largest window, packets (>= min_cwnd, at most 1e6). Default 1000 (htsim `_max_cwnd`).
    #[serde(default = "d_max_cwnd")]
    pub max_cwnd: f64,
    /// Consecutive retransmission timeouts after which the window falls to min_cwnd
    /// (RETX_RESET_THRESHOLD, >= 1). Default 5 (htsim `_rtx_reset_threshold`).
    #[serde(default = "d_retx_reset")]
    pub retx_reset_threshold: u32,
}

fn d_ai() -> f64 {
    1.0
}
fn d_beta() -> f64 {
    0.8
}
fn d_max_mdf() -> f64 {
    0.5
}
fn d_base_target() -> f64 {
    25e-6
}
fn d_hop_scale() -> f64 {
    1e-6
}
fn d_fs_range() -> f64 {
    125e-6
}
fn d_fs_min() -> f64 {
    0.1
}
fn d_fs_max() -> f64 {
    100.0
}
fn d_min_cwnd() -> f64 {
    0.01
}
fn d_max_cwnd() -> f64 {
    1000.0
}
fn d_retx_reset() -> u32 {
    5
}

impl Default for SwiftConfig {
    fn default() -> Self {
        SwiftConfig {
            ai: d_ai(),
            beta: d_beta(),
            max_mdf: d_max_mdf(),
            base_target_s: d_base_target(),
            hop_scale_s: d_hop_scale(),
            fs_range_s: d_fs_range(),
            fs_min_cwnd: d_fs_min(),
            fs_max_cwnd: d_fs_max(),
            min_cwnd: d_min_cwnd(),
            max_cwnd: d_max_cwnd(),
            retx_reset_threshold: d_retx_reset(),
        }
    }
}

/// A Swift controller.
#[derive(Clone, Debug)]
pub struct Swift {
    pub w: RenoWindow,
    ai: f64,
    beta: f64,
    max_mdf: f64,
    min_cwnd: f64,
    max_cwnd: f64,
    retx_reset_threshold: u32,
    fs_range: f64,
    fs_alpha: f64,
    fs_beta: f64,
    /// base_target + hops * h, seconds.
    fixed_target: f64,
    /// Smoothed RTT, seconds (0 before the first sample).
    pub srtt: f64,
    t_last_decrease: Option<SimTime>,
    pub retransmit_cnt: u32,
    /// Multiplicative decreases taken (delay, fast recovery, timeout).
    pub decreases: u64,
    /// The last target delay computed, seconds.
    pub last_target_s: f64,
}

impl Swift {
    /// A controller with window `iw_pkts` on a path of `hops` switches.
    pub fn new(
        cfg: &SwiftConfig,
        hops: u32,
        mss_bytes: u32,
        iw_pkts: u32,
        dupack_threshold: u32,
    ) -> Self {
        let mut w = RenoWindow::new(mss_bytes, iw_pkts, cfg.min_cwnd);
        w.dupack_threshold = dupack_threshold;
        w.ssthresh = 0.0; // no slow start
        w.cwnd = w.cwnd.clamp(cfg.min_cwnd * w.mss, cfg.max_cwnd * w.mss);
        let (fs_alpha, fs_beta) = if cfg.fs_range_s > 0.0 {
            let a = cfg.fs_range_s / (1.0 / cfg.fs_min_cwnd.sqrt() - 1.0 / cfg.fs_max_cwnd.sqrt());
            (a, -a / cfg.fs_max_cwnd.sqrt())
        } else {
            (0.0, 0.0)
        };
        Swift {
            w,
            ai: cfg.ai,
            beta: cfg.beta,
            max_mdf: cfg.max_mdf,
            min_cwnd: cfg.min_cwnd,
            max_cwnd: cfg.max_cwnd,
            retx_reset_threshold: cfg.retx_reset_threshold,
            fs_range: cfg.fs_range_s,
            fs_alpha,
            fs_beta,
            fixed_target: cfg.base_target_s + hops as f64 * cfg.hop_scale_s,
            srtt: 0.0,
            t_last_decrease: None,
            retransmit_cnt: 0,
            decreases: 0,
            last_target_s: cfg.base_target_s,
        }
    }

    /// The window, packets.
    #[inline]
    pub fn cwnd_pkts(&self) -> f64 {
        self.w.cwnd / self.w.mss
    }

    fn set_pkts(&mut self, c: f64) {
        self.w.cwnd = c * self.w.mss;
    }

    /// Target delay for the current window, seconds (§3.5).
    pub fn target_delay(&self) -> f64 {
        let c = self.cwnd_pkts();
        let fs = if self.fs_range > 0.0 {
            (self.fs_alpha / c.sqrt() + self.fs_beta).clamp(0.0, self.fs_range)
        } else {
            0.0
        };
        self.fixed_target + fs
    }

    fn can_decrease(&self, now: SimTime) -> bool {
        self.t_last_decrease
            .is_none_or(|t| now.saturating_sub(t).as_secs_f64() >= self.srtt)
    }

    /// Clamp to [min_cwnd, max_cwnd] and stamp a decrease (the tail of Algorithm 1).
    fn finish(&mut self, now: SimTime, prev_pkts: f64) {
        let c = self.cwnd_pkts().clamp(self.min_cwnd, self.max_cwnd);
        self.set_pkts(c);
        if c < prev_pkts {
            self.t_last_decrease = Some(now);
            self.decreases += 1;
        }
    }

    /// One ACK of `num_acked` packets carrying RTT sample `delay_s` (Algorithm 1, "On Receiving
    /// ACK").
    pub fn on_delay(&mut self, now: SimTime, delay_s: f64, num_acked: f64) {
        let prev = self.cwnd_pkts();
        // can_decrease is decided on the RTT known before this sample (Algorithm 1's order)
        let can_decrease = self.can_decrease(now);
        self.srtt = if self.srtt == 0.0 {
            delay_s
        } else {
            0.875 * self.srtt + 0.125 * delay_s
        };
        self.retransmit_cnt = 0;
        let target = self.target_delay();
        self.last_target_s = target;
        if delay_s < target {
            let add = if prev >= 1.0 {
                self.ai / prev * num_acked
            } else {
                self.ai * num_acked
            };
            self.set_pkts(prev + add);
        } else if can_decrease && delay_s > 0.0 {
            let f = (1.0 - self.beta * (delay_s - target) / delay_s).max(1.0 - self.max_mdf);
            self.set_pkts(prev * f);
        }
        self.finish(now, prev);
    }

    /// Algorithm 1, "On Retransmit Timeout".
    pub fn on_retransmit_timeout(&mut self, now: SimTime) {
        let prev = self.cwnd_pkts();
        self.retransmit_cnt += 1;
        if self.retransmit_cnt >= self.retx_reset_threshold {
            self.set_pkts(self.min_cwnd);
        } else if self.can_decrease(now) {
            self.set_pkts(prev * (1.0 - self.max_mdf));
        }
        self.finish(now, prev);
    }

    /// Algorithm 1, "On Fast Recovery".
    pub fn on_fast_recovery(&mut self, now: SimTime) {
        let prev = self.cwnd_pkts();
        self.retransmit_cnt = 0;
        if self.can_decrease(now) {
            self.set_pkts(prev * (1.0 - self.max_mdf));
        }
        self.finish(now, prev);
    }

    /// Gap between packet sends while cwnd < 1 packet: srtt / cwnd (Algorithm 1's
    /// pacing_delay); None at a window of 1 packet or more.
    #[inline]
    pub fn pacing_delay(&self) -> Option<SimDuration> {
        let c = self.cwnd_pkts();
        (c < 1.0).then(|| SimDuration::from_secs_f64(self.srtt / c))
    }
}

/// Swift's hooks: the delay rule on every new ACK, its own cuts on fast retransmit and timeout,
/// nothing on duplicate ACKs, the end of recovery or ECN (see the module doc).
impl RenoBased for Swift {
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
        match s.rtt {
            Some(r) => {
                let n = s.newly_acked_bytes as f64 / self.w.mss;
                self.on_delay(s.now, r.as_secs_f64(), n);
            }
            None => self.retransmit_cnt = 0,
        }
    }
    #[inline]
    fn on_dup_ack(&mut self, _s: &AckSample) {}
    fn on_congestion(&mut self, now: SimTime, kind: Congestion, _flight_bytes: u64) {
        match kind {
            Congestion::FastRetransmit => self.on_fast_recovery(now),
            Congestion::Timeout => self.on_retransmit_timeout(now),
            Congestion::EcnEcho => {}
        }
    }
    fn on_recovery_end(&mut self, _flight_bytes: u64) {}
    #[inline]
    fn reacts_to_ecn_once_per_window(&self) -> bool {
        false
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
    use crate::cc::CongestionControl;

    const US: u64 = 1_000_000; // picoseconds

    fn cfg() -> SwiftConfig {
        SwiftConfig {
            fs_range_s: 0.0,
            hop_scale_s: 0.0,
            base_target_s: 50e-6,
            ..SwiftConfig::default()
        }
    }

    fn ack(now_us: u64, rtt_us: f64, acked_pkts: u64) -> AckSample {
        AckSample {
            now: SimTime(now_us * US),
            newly_acked_bytes: acked_pkts * 1000,
            ece: false,
            rtt: Some(SimDuration((rtt_us * US as f64) as u64)),
            snd_una: 0,
            snd_nxt: 0,
            in_recovery: false,
            flight_bytes: 0,
        }
    }

    /// AI: below the target, each ACK adds ai/cwnd per packet, so one window of ACKs adds about
    /// ai packets (exactly: 10 ACKs from 10 give 10 + sum 1/w_k, worked by the same recurrence).
    #[test]
    fn additive_increase_is_ai_per_rtt() {
        let mut s = Swift::new(&cfg(), 0, 1000, 10, 3);
        let mut want = 10.0f64;
        for k in 0..10 {
            CongestionControl::on_ack(&mut s, &ack(k, 30.0, 1));
            want += 1.0 / want;
        }
        assert!((s.cwnd_pkts() - want).abs() < 1e-9, "{}", s.cwnd_pkts());
        assert!((s.cwnd_pkts() - 11.0).abs() < 0.05);
        // ai = 2, an ACK of 3 packets at cwnd 20: + 2 * 3 / 20
        let mut s = Swift::new(&SwiftConfig { ai: 2.0, ..cfg() }, 0, 1000, 20, 3);
        CongestionControl::on_ack(&mut s, &ack(1, 30.0, 3));
        assert!((s.cwnd_pkts() - 20.3).abs() < 1e-9);
        // below one packet the increase is ai * num_acked: 0.5 + 1 * 0.25 (a 250-byte ACK)
        let mut s = Swift::new(&cfg(), 0, 1000, 1, 3);
        s.set_pkts(0.5);
        let mut a = ack(1, 30.0, 0);
        a.newly_acked_bytes = 250;
        CongestionControl::on_ack(&mut s, &a);
        assert!((s.cwnd_pkts() - 0.75).abs() < 1e-12);
    }

    /// MD: cwnd * (1 - beta (delay - target)/delay), at most once per RTT, bounded by max_mdf.
    #[test]
    fn multiplicative_decrease_once_per_rtt_and_bounded_by_max_mdf() {
        let mut s = Swift::new(&cfg(), 0, 1000, 20, 3);
        // first sample 60 us (target 50): 20 (1 - 0.8 * 10/60) = 17.333..
        CongestionControl::on_ack(&mut s, &ack(100, 60.0, 1));
        assert!((s.cwnd_pkts() - 20.0 * (1.0 - 0.8 * 10.0 / 60.0)).abs() < 1e-9);
        let after_first = s.cwnd_pkts();
        // srtt is 60 us now: ACKs within 60 us of the decrease change nothing
        for t in [110, 130, 159] {
            CongestionControl::on_ack(&mut s, &ack(t, 60.0, 1));
            assert_eq!(s.cwnd_pkts(), after_first, "at {t} us");
        }
        // 60 us after it, the next MD
        CongestionControl::on_ack(&mut s, &ack(160, 60.0, 1));
        assert!((s.cwnd_pkts() - after_first * (1.0 - 0.8 * 10.0 / 60.0)).abs() < 1e-9);
        assert_eq!(s.decreases, 2);
        // a huge delay: 1 - 0.8 * 950/1000 = 0.24 < 1 - max_mdf = 0.5 -> halved only
        let mut s = Swift::new(&cfg(), 0, 1000, 20, 3);
        CongestionControl::on_ack(&mut s, &ack(100, 1000.0, 1));
        assert!((s.cwnd_pkts() - 10.0).abs() < 1e-9);
        // max_mdf 0.9 lets the same delay cut to 0.24
        let mut s = Swift::new(
            &SwiftConfig {
                max_mdf: 0.9,
                ..cfg()
            },
            0,
            1000,
            20,
            3,
        );
        CongestionControl::on_ack(&mut s, &ack(100, 1000.0, 1));
        assert!((s.cwnd_pkts() - 20.0 * 0.24).abs() < 1e-9);
        // delay exactly at the target decreases by 0 (MD branch, factor 1): no stamp
        let mut s = Swift::new(&cfg(), 0, 1000, 20, 3);
        CongestionControl::on_ack(&mut s, &ack(100, 50.0, 1));
        assert_eq!((s.cwnd_pkts(), s.decreases), (20.0, 0));
    }

    /// Target = base + hops h + flow scaling, clamped to [0, fs_range] (§3.5).
    #[test]
    fn target_scales_with_hops_and_the_window() {
        let c = SwiftConfig {
            base_target_s: 20e-6,
            hop_scale_s: 2e-6,
            fs_range_s: 100e-6,
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            ..SwiftConfig::default()
        };
        let mut s = Swift::new(&c, 3, 1000, 1, 3);
        let alpha = 100e-6 / (1.0 / 0.1f64.sqrt() - 1.0 / 10.0);
        let beta = -alpha / 10.0;
        for (w, fs) in [
            (100.0, 0.0),
            (400.0, 0.0),
            (0.1, 100e-6),
            (0.01, 100e-6),
            (4.0, alpha / 2.0 + beta),
            (25.0, alpha / 5.0 + beta),
        ] {
            s.set_pkts(w);
            let t = s.target_delay();
            assert!((t - (26e-6 + fs)).abs() < 1e-15, "cwnd {w}: {t}");
        }
        // hand numbers: alpha = 100 us / (3.16228 - 0.1) = 32.655 us; at cwnd 4: 16.33 - 3.27
        s.set_pkts(4.0);
        assert!((s.target_delay() - 26e-6 - 13.06e-6).abs() < 0.01e-6);
        // fs_range 0 turns flow scaling off
        let mut s = Swift::new(
            &SwiftConfig {
                fs_range_s: 0.0,
                ..c
            },
            0,
            1000,
            1,
            3,
        );
        s.set_pkts(0.05);
        assert_eq!(s.target_delay(), 20e-6);
    }

    /// Fractional windows: pacing delay srtt/cwnd below one packet, none at or above it.
    #[test]
    fn pacing_below_one_packet() {
        let mut s = Swift::new(&cfg(), 0, 1000, 1, 3);
        CongestionControl::on_ack(&mut s, &ack(10, 40.0, 0));
        assert_eq!(s.srtt, 40e-6);
        assert_eq!(s.pacing_delay(), None);
        s.set_pkts(0.25);
        assert_eq!(s.pacing_delay(), Some(SimDuration::from_secs_f64(160e-6)));
        s.set_pkts(1.0);
        assert_eq!(s.pacing_delay(), None);
        // the floor: a huge delay cannot push the window below min_cwnd
        let mut s = Swift::new(
            &SwiftConfig {
                max_mdf: 0.99,
                ..cfg()
            },
            0,
            1000,
            1,
            3,
        );
        s.set_pkts(0.011);
        CongestionControl::on_ack(&mut s, &ack(100, 10_000.0, 1));
        assert_eq!(s.cwnd_pkts(), 0.01);
    }

    /// Timeouts: (1 - max_mdf) per timeout (once per RTT), min_cwnd at the
    /// RETX_RESET_THRESHOLD-th consecutive one; an ACK resets the count. Fast recovery cuts by
    /// (1 - max_mdf) once per RTT too and resets the count.
    #[test]
    fn timeout_and_fast_recovery_rules() {
        let c = SwiftConfig {
            retx_reset_threshold: 3,
            ..cfg()
        };
        let mut s = Swift::new(&c, 0, 1000, 16, 3);
        CongestionControl::on_ack(&mut s, &ack(0, 20.0, 0)); // srtt 20 us, below target
        let t = |us: u64| SimTime(us * US);
        CongestionControl::on_congestion(&mut s, t(100), Congestion::Timeout, 0);
        assert_eq!(s.cwnd_pkts(), 8.0);
        // a second timeout within srtt of the first: no cut (can_decrease false), count 2
        CongestionControl::on_congestion(&mut s, t(110), Congestion::Timeout, 0);
        assert_eq!((s.cwnd_pkts(), s.retransmit_cnt), (8.0, 2));
        // the third: reset to min_cwnd whatever the time
        CongestionControl::on_congestion(&mut s, t(111), Congestion::Timeout, 0);
        assert_eq!((s.cwnd_pkts(), s.retransmit_cnt), (0.01, 3));
        // an ACK (below target: AI) resets the count
        CongestionControl::on_ack(&mut s, &ack(200, 20.0, 1));
        assert_eq!(s.retransmit_cnt, 0);
        assert!((s.cwnd_pkts() - 1.01).abs() < 1e-12);
        // fast recovery: halve, not again within srtt, again after
        let mut s = Swift::new(&c, 0, 1000, 16, 3);
        CongestionControl::on_ack(&mut s, &ack(0, 20.0, 0));
        s.retransmit_cnt = 2;
        CongestionControl::on_congestion(&mut s, t(100), Congestion::FastRetransmit, 0);
        assert_eq!((s.cwnd_pkts(), s.retransmit_cnt), (8.0, 0));
        CongestionControl::on_congestion(&mut s, t(119), Congestion::FastRetransmit, 0);
        assert_eq!(s.cwnd_pkts(), 8.0);
        CongestionControl::on_congestion(&mut s, t(120), Congestion::FastRetransmit, 0);
        assert_eq!(s.cwnd_pkts(), 4.0);
        // duplicate ACKs, the end of recovery and ECN-Echo leave the window alone
        let mut d = ack(130, 20.0, 0);
        d.rtt = None;
        CongestionControl::on_dup_ack(&mut s, &d);
        CongestionControl::on_recovery_end(&mut s, t(131), 0);
        CongestionControl::on_congestion(&mut s, t(500), Congestion::EcnEcho, 0);
        assert_eq!(s.cwnd_pkts(), 4.0);
        assert!(!CongestionControl::needs_ecn(&s));
        // the window is clamped to max_cwnd
        let mut s = Swift::new(
            &SwiftConfig {
                max_cwnd: 10.0,
                ..c
            },
            0,
            1000,
            10,
            3,
        );
        CongestionControl::on_ack(&mut s, &ack(1, 20.0, 5));
        assert_eq!(s.cwnd_pkts(), 10.0);
    }
}
