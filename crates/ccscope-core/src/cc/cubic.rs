//! CUBIC (RFC 9438, "CUBIC for Fast and Long-Distance Networks", Xu, Ha, Rhee, Goel, Eggert,
//! 2023; obsoletes RFC 8312). Windows below are in segments, times in seconds, as in RFC 9438
//! §4.1; the controller keeps its window in bytes on a [`RenoWindow`] and converts.
//!
//! Congestion avoidance, on every new ACK (§4.2-§4.5):
//! ```text
//! W_cubic(t) = C (t - K)^3 + W_max                          (Eq. 1)
//! K = cbrt((W_max - cwnd_epoch) / C)                        (Eq. 2)
//! t = t_current - t_epoch
//! target = clamp(W_cubic(t + RTT), cwnd, 1.5 cwnd)          (§4.2)
//! W_est += alpha_cubic * segments_acked / cwnd              (Eq. 4, §4.3)
//! alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic), set to 1 once W_est >= cwnd_prior
//! W_cubic(t) < W_est : cwnd = W_est                         (Reno-friendly region, §4.3)
//! otherwise          : cwnd += (target - cwnd) / cwnd       (concave §4.4 / convex §4.5)
//! ```
//! Congestion event (§4.6, Eq. 5; fast convergence §4.7 first):
//! ```text
//! W_max = cwnd (1 + beta_cubic) / 2   if cwnd < W_max and fast convergence, else cwnd
//! ssthresh = flight_size * beta_cubic;  cwnd_prior = cwnd
//! cwnd = max(ssthresh, 2) on loss, max(ssthresh, 1) on ECN-Echo;  ssthresh = max(ssthresh, 2)
//! ```
//! Defaults (RFC 9438): C = 0.4 segments/s^3 (§5.1's choice, §4.1 constants), beta_cubic = 0.7
//! (§4.6 SHOULD), fast convergence on (§4.7 SHOULD), the Reno-friendly region on (§4.3), RTT =
//! the RFC 6298 smoothed RTT (§4.1 "RTT").
//!
//! Readings and choices, each stated where the RFC leaves room:
//! - t_epoch is the first new ACK in congestion avoidance after slow start or fast recovery
//!   (§4.1: "the time at which the current congestion avoidance stage started"; Linux and ns-3
//!   start the epoch there too). Fast recovery itself is NewReno's (RFC 6582, which §4.2 says
//!   CUBIC does not change): cwnd = ssthresh + 3 MSS on entry, inflation per duplicate ACK,
//!   deflation on partial ACKs, min(ssthresh, FlightSize + MSS) on the full ACK.
//! - Timeout (§4.8): ssthresh from beta_cubic as in §4.6, cwnd = 1 MSS (RFC 5681), slow start;
//!   the first congestion-avoidance stage after it uses K = 0 and W_max = W_est = cwnd_epoch.
//!   The same start (K = 0, W_max = cwnd_epoch, cwnd_prior = cwnd) applies when the first slow
//!   start ends without a congestion event (§4.10, e.g. at `tcp.initial_ssthresh_pkts`).
//! - Slow start is NewReno's (RFC 5681; §4.10 MAY), not HyStart++: ccscope's runs compare
//!   against peers and models that start the same way, and the bench against ns-3 turns ns-3's
//!   HyStart off.
//! - Eq. 2 with W_max < cwnd_epoch (an epoch that starts above the last W_max) takes the real
//!   cube root, K < 0, so W_cubic(0) = cwnd_epoch still holds (Linux uses K = 0, origin cwnd).
//! - "cwnd += (target - cwnd)/cwnd for each received new ACK" is applied per acknowledged
//!   segment (times segments_acked, as Eq. 4 does, and as Linux and ns-3 count), and never past
//!   the target: with one ACK per segment it is the RFC's rule; with delayed or stretch ACKs the
//!   window still reaches the target in one RTT.
//! - In the Reno-friendly region cwnd = max(cwnd, W_est): the RFC's "chooses the larger of the
//!   two values" (§4.2's summary); a new ACK never lowers cwnd.
//! - The RTT in W_cubic(t + RTT) is the smoothed RTT (RFC 6298 gains, first sample as is) by
//!   default, or the minimum RTT seen (`target_rtt = "min_rtt"`, what Linux's and ns-3's
//!   `delay_min` use); before any sample it is 0.
//! - flight_size is what the transport reports at the event (`ssthresh_from = "flight_size"`,
//!   Eq. 5); "cwnd" is the variant §4.6 says some implementations use (Linux, ns-3).
//! - Not implemented: application-limited time exclusion (§4.2; ccscope flows are not
//!   application-limited except at their end) and spurious-event undo (§4.9, MAY; the transport
//!   detects no spurious loss).

use super::reno::RenoWindow;
use super::{AckSample, CcProbe, Congestion, RenoBased};
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// CUBIC parameters (RFC 9438). Units in names; defaults the RFC's.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CubicConfig {
    /// C, segments/second^3 (> 0, at most 100): aggressiveness of the cubic growth (RFC 9438 §4.1,
    /// §5.1). Default 0.4.
    #[serde(default = "default_c")]
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor (0 < beta < 1; RFC 9438 §4.6). Default 0.7.
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7): at a congestion event below W_max, W_max = cwnd (1 +
    /// beta)/2. Default true.
    #[serde(default = "default_true")]
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 §4.3): cwnd follows W_est, alpha_cubic = 3 (1 - beta) /
    /// (1 + beta), when W_cubic(t) < W_est. Default true.
    #[serde(default = "default_true")]
    pub reno_friendly: bool,
    /// The RTT in target = W_cubic(t + RTT): "srtt" (default: the RFC 6298 smoothed RTT, RFC 9438
    /// §4.1) or "min_rtt" (the minimum RTT seen, as Linux's and ns-3's delay_min).
    #[serde(default)]
    pub target_rtt: CubicRtt,
    /// What beta multiplies at a congestion event: "flight_size" (default; RFC 9438 Eq. 5) or
    /// "cwnd" (Linux, ns-3; RFC 9438 §4.6 mentions it).
    #[serde(default)]
    pub ssthresh_from: CubicDecreaseBase,
}

/// The RTT CUBIC looks ahead by (see [`CubicConfig::target_rtt`]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CubicRtt {
    /// RFC 6298 smoothed RTT (RFC 9438 §4.1).
    #[default]
    Srtt,
    /// Minimum RTT sample seen.
    MinRtt,
}

/// The window beta multiplies (see [`CubicConfig::ssthresh_from`]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CubicDecreaseBase {
    /// Data outstanding at the event (RFC 9438 Eq. 5).
    #[default]
    FlightSize,
    /// The congestion window before the cut.
    Cwnd,
}

fn default_c() -> f64 {
    CUBIC_C
}
fn default_beta() -> f64 {
    CUBIC_BETA
}
fn default_true() -> bool {
    true
}

/// RFC 9438 §4.1/§5.1: C = 0.4 segments/s^3.
pub const CUBIC_C: f64 = 0.4;
/// RFC 9438 §4.6: beta_cubic = 0.7.
pub const CUBIC_BETA: f64 = 0.7;

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: CUBIC_C,
            beta: CUBIC_BETA,
            fast_convergence: true,
            reno_friendly: true,
            target_rtt: CubicRtt::Srtt,
            ssthresh_from: CubicDecreaseBase::FlightSize,
        }
    }
}

/// Minimum CUBIC window after an ECN cut, packets (RFC 9438 Eq. 5: at least 1 MSS).
pub const CUBIC_MIN_CWND_PKTS: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct Cubic {
    pub w: RenoWindow,
    c: f64,
    beta: f64,
    fast_convergence: bool,
    reno_friendly: bool,
    target_rtt: CubicRtt,
    ssthresh_from: CubicDecreaseBase,
    /// W_max, segments (0 before the first congestion event).
    pub w_max: f64,
    /// K, seconds (Eq. 2).
    pub k_s: f64,
    /// t_epoch; None until the first new ACK of the current congestion-avoidance stage.
    pub t_epoch: Option<SimTime>,
    /// cwnd at t_epoch, segments.
    pub cwnd_epoch: f64,
    /// W_est, segments (Eq. 4).
    pub w_est: f64,
    /// alpha_cubic in force (3 (1 - beta)/(1 + beta), then 1 once W_est >= cwnd_prior).
    pub alpha: f64,
    /// cwnd_prior, segments (§4.1).
    pub cwnd_prior: f64,
    /// The next epoch starts with K = 0 and W_max = cwnd_epoch (no congestion event yet, or the
    /// first stage after a timeout).
    restart: bool,
    srtt_s: Option<f64>,
    min_rtt_s: Option<f64>,
    /// Congestion events so far (loss, ECN-Echo, timeout).
    pub reductions: u64,
}

impl Cubic {
    pub fn new(
        cfg: &CubicConfig,
        mss_bytes: u32,
        iw_pkts: u32,
        ecn: bool,
        dupack_threshold: u32,
    ) -> Self {
        let mut w = RenoWindow::new(mss_bytes, iw_pkts, CUBIC_MIN_CWND_PKTS);
        w.dupack_threshold = dupack_threshold;
        w.ecn = ecn;
        Cubic {
            w,
            c: cfg.c,
            beta: cfg.beta,
            fast_convergence: cfg.fast_convergence,
            reno_friendly: cfg.reno_friendly,
            target_rtt: cfg.target_rtt,
            ssthresh_from: cfg.ssthresh_from,
            w_max: 0.0,
            k_s: 0.0,
            t_epoch: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            alpha: alpha_cubic(cfg.beta),
            cwnd_prior: 0.0,
            restart: true,
            srtt_s: None,
            min_rtt_s: None,
            reductions: 0,
        }
    }

    /// W_cubic(t), segments (Eq. 1).
    #[inline]
    pub fn w_cubic(&self, t_s: f64) -> f64 {
        let d = t_s - self.k_s;
        self.c * d * d * d + self.w_max
    }

    /// The RTT of the target, seconds (0 before any sample).
    #[inline]
    fn rtt_s(&self) -> f64 {
        match self.target_rtt {
            CubicRtt::Srtt => self.srtt_s,
            CubicRtt::MinRtt => self.min_rtt_s,
        }
        .unwrap_or(0.0)
    }

    /// RFC 6298 §2: SRTT = R on the first sample, then (1 - 1/8) SRTT + 1/8 R'.
    #[inline]
    fn sample_rtt(&mut self, s: &AckSample) {
        if let Some(r) = s.rtt {
            let r = r.as_secs_f64();
            self.srtt_s = Some(match self.srtt_s {
                None => r,
                Some(v) => v + (r - v) / 8.0,
            });
            self.min_rtt_s = Some(self.min_rtt_s.map_or(r, |m| m.min(r)));
        }
    }

    /// The start of a congestion-avoidance stage (§4.2 t_epoch, Eq. 2 K, §4.3 W_est).
    fn start_epoch(&mut self, now: SimTime, cwnd: f64) {
        self.t_epoch = Some(now);
        self.cwnd_epoch = cwnd;
        if self.restart {
            // §4.8 / §4.10: K = 0, W_max = cwnd_epoch; cwnd_prior set on leaving the first slow
            // start without a congestion event
            self.w_max = cwnd;
            self.k_s = 0.0;
            if self.reductions == 0 {
                self.cwnd_prior = cwnd;
            }
            self.restart = false;
        } else {
            self.k_s = ((self.w_max - cwnd) / self.c).cbrt();
        }
        self.w_est = cwnd;
        self.alpha = alpha_cubic(self.beta);
    }

    /// Congestion avoidance for one new ACK of `acked` segments at `now` (§4.2-§4.5).
    fn cong_avoid(&mut self, now: SimTime, acked: f64) {
        let cwnd = self.w.cwnd / self.w.mss;
        if self.t_epoch.is_none() {
            self.start_epoch(now, cwnd);
        }
        let t = (now - self.t_epoch.unwrap_or(now)).as_secs_f64();
        // §4.2: target = W_cubic(t + RTT) within [cwnd, 1.5 cwnd]
        let target = self.w_cubic(t + self.rtt_s()).max(cwnd).min(1.5 * cwnd);
        // §4.3 Eq. 4, and alpha_cubic = 1 once W_est reaches cwnd_prior
        self.w_est += self.alpha * acked / cwnd;
        if self.w_est >= self.cwnd_prior {
            self.alpha = 1.0;
        }
        let next = if self.reno_friendly && self.w_cubic(t) < self.w_est {
            cwnd.max(self.w_est)
        } else {
            // §4.4 concave / §4.5 convex: (target - cwnd)/cwnd per segment acknowledged
            (cwnd + (target - cwnd) / cwnd * acked).min(target)
        };
        self.w.cwnd = next * self.w.mss;
    }

    /// §4.7 fast convergence, then §4.6 Eq. 5's new ssthresh before the floors, segments.
    fn decrease(&mut self, flight_bytes: u64) -> f64 {
        let cwnd = self.w.cwnd / self.w.mss;
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.t_epoch = None;
        self.restart = false;
        self.reductions += 1;
        let base = match self.ssthresh_from {
            CubicDecreaseBase::FlightSize => flight_bytes as f64 / self.w.mss,
            CubicDecreaseBase::Cwnd => cwnd,
        };
        base * self.beta
    }
}

/// alpha_cubic = 3 (1 - beta) / (1 + beta) (RFC 9438 §4.3).
pub fn alpha_cubic(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

/// Differs from NewReno in the congestion-avoidance growth, the cut (beta_cubic, W_max, fast
/// convergence) on loss, ECN-Echo and timeout; slow start, duplicate ACKs, partial ACKs and the
/// end of recovery are NewReno's.
impl RenoBased for Cubic {
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
        self.sample_rtt(s);
        let acked = s.newly_acked_bytes as f64;
        if s.in_recovery {
            self.w.deflate(acked);
        } else if self.w.in_slow_start() {
            self.w.slow_start(acked);
        } else {
            self.cong_avoid(s.now, acked / self.w.mss);
        }
    }

    /// Loss (fast retransmit): cwnd = max(ssthresh, 2) then RFC 6582's 3-MSS inflation; ECN-Echo:
    /// cwnd = max(ssthresh, 1); timeout: cwnd = 1 MSS and K = 0 at the next stage (§4.6-§4.8).
    fn on_congestion(&mut self, _now: SimTime, kind: Congestion, flight_bytes: u64) {
        let mss = self.w.mss;
        let raw = self.decrease(flight_bytes);
        let ssthresh = raw.max(2.0) * mss;
        match kind {
            Congestion::FastRetransmit => {
                let dupacks = self.w.dupack_threshold;
                self.w.enter_fast_recovery_at(ssthresh, dupacks);
            }
            Congestion::EcnEcho => {
                self.w.ssthresh = ssthresh;
                self.w.cwnd = raw.max(CUBIC_MIN_CWND_PKTS) * mss;
            }
            Congestion::Timeout => {
                self.w.on_timeout_at(ssthresh);
                self.restart = true;
            }
        }
    }

    #[inline]
    fn probe(&self, p: &mut CcProbe) {
        p.cwnd_bytes = self.w.cwnd;
        p.ssthresh_bytes = self.w.ssthresh;
        p.alpha = f64::NAN;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimDuration;

    const MSS: f64 = 1000.0;

    fn cubic(cfg: CubicConfig) -> Cubic {
        Cubic::new(&cfg, 1000, 10, true, 3)
    }

    fn ack_at(t_s: f64, rtt_s: f64, flight: f64) -> AckSample {
        AckSample {
            now: SimTime::from_secs_f64(t_s),
            newly_acked_bytes: 1000,
            ece: false,
            rtt: Some(SimDuration::from_secs_f64(rtt_s)),
            snd_una: 0,
            snd_nxt: 0,
            in_recovery: false,
            flight_bytes: (flight * MSS) as u64,
        }
    }

    /// One ACK per segment, the window's worth spread evenly over each RTT, from `t0` for `n`
    /// RTTs; returns (time, cwnd in segments) at the end of each RTT.
    fn drive(c: &mut Cubic, t0: f64, rtt: f64, n: usize) -> Vec<(f64, f64)> {
        let mut t = t0;
        let mut out = vec![];
        for _ in 0..n {
            let acks = (c.w.cwnd / MSS).floor().max(1.0) as usize;
            for k in 0..acks {
                let now = t + rtt * k as f64 / acks as f64;
                c.on_ack(&ack_at(now, rtt, c.w.cwnd / MSS));
            }
            t += rtt;
            out.push((t, c.w.cwnd / MSS));
        }
        out
    }

    /// A flow in congestion avoidance at `cwnd` segments that has had its first loss there and
    /// recovered: W_max = cwnd, cwnd = beta cwnd.
    fn after_one_loss(cfg: CubicConfig, cwnd: f64) -> Cubic {
        let mut c = cubic(cfg);
        c.w.cwnd = cwnd * MSS;
        c.w.ssthresh = 1.0;
        c.on_congestion(SimTime(0), Congestion::FastRetransmit, (cwnd * MSS) as u64);
        c.on_recovery_end((cwnd * MSS) as u64);
        c
    }

    #[test]
    fn defaults_are_the_rfcs() {
        let d = CubicConfig::default();
        assert_eq!((d.c, d.beta), (0.4, 0.7));
        assert!(d.fast_convergence && d.reno_friendly);
        assert_eq!(d.target_rtt, CubicRtt::Srtt);
        assert_eq!(d.ssthresh_from, CubicDecreaseBase::FlightSize);
        // §4.3: alpha_cubic = 3 (1 - 0.7)/(1 + 0.7) = 0.9/1.7
        assert!((alpha_cubic(0.7) - 0.9 / 1.7).abs() < 1e-15);
    }

    /// Eq. 5: loss at cwnd = flight = 100 -> W_max 100, ssthresh 70, cwnd 70 + 3 (RFC 6582
    /// inflation), 70 after the full ACK; Eq. 2 at the first new ACK: K = cbrt((100 - 70)/0.4).
    #[test]
    fn a_loss_cuts_to_beta_and_k_follows_eq_2() {
        let mut c = cubic(CubicConfig::default());
        c.w.cwnd = 100.0 * MSS;
        c.w.ssthresh = 1.0;
        c.on_congestion(SimTime(0), Congestion::FastRetransmit, 100_000);
        assert_eq!(c.w_max, 100.0);
        assert_eq!(c.cwnd_prior, 100.0);
        assert!((c.w.ssthresh - 70.0 * MSS).abs() < 1e-6);
        assert!((c.w.cwnd - 73.0 * MSS).abs() < 1e-6);
        c.on_recovery_end(100_000);
        assert!((c.w.cwnd - 70.0 * MSS).abs() < 1e-6);
        c.on_ack(&ack_at(1.0, 0.1, 70.0));
        assert_eq!(c.t_epoch, Some(SimTime::from_secs_f64(1.0)));
        assert!((c.cwnd_epoch - 70.0).abs() < 1e-9);
        assert!((c.k_s - 75f64.cbrt()).abs() < 1e-9, "K = {}", c.k_s);
        // W_cubic(0) = cwnd_epoch, W_cubic(K) = W_max
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
        assert!((c.w_cubic(c.k_s) - 100.0).abs() < 1e-9);
    }

    /// Eq. 5 floors and bases: ECN-Echo cuts to max(beta flight, 1), a loss to max(.., 2);
    /// ssthresh_from = "cwnd" takes the window instead of the flight.
    #[test]
    fn ecn_echo_cuts_like_a_loss_with_a_one_segment_floor() {
        let mut c = cubic(CubicConfig::default());
        c.w.cwnd = 40.0 * MSS;
        c.on_congestion(SimTime(0), Congestion::EcnEcho, 30_000);
        assert!((c.w.cwnd - 21.0 * MSS).abs() < 1e-6);
        assert!((c.w.ssthresh - 21.0 * MSS).abs() < 1e-6);
        assert_eq!(c.w_max, 40.0);
        c.w.cwnd = 1.0 * MSS;
        c.on_congestion(SimTime(0), Congestion::EcnEcho, 1000);
        assert_eq!((c.w.cwnd, c.w.ssthresh), (1.0 * MSS, 2.0 * MSS));
        c.w.cwnd = 1.0 * MSS;
        c.on_congestion(SimTime(0), Congestion::FastRetransmit, 1000);
        assert_eq!((c.w.ssthresh, c.w.cwnd), (2.0 * MSS, 5.0 * MSS));
        let mut k = cubic(CubicConfig {
            ssthresh_from: CubicDecreaseBase::Cwnd,
            ..Default::default()
        });
        k.w.cwnd = 40.0 * MSS;
        k.on_congestion(SimTime(0), Congestion::EcnEcho, 30_000);
        assert!((k.w.cwnd - 28.0 * MSS).abs() < 1e-6);
        assert!(k.needs_ecn() && k.reacts_to_ecn_once_per_window());
    }

    /// §4.4: after a loss at W_max = 1000 with a 100 ms RTT (Reno-friendly growth is far
    /// slower), cwnd follows W_cubic: it rises fast, flattens toward W_max (concave) and
    /// reaches it at t = K, then grows again ever faster (convex, §4.5).
    #[test]
    fn concave_growth_plateaus_at_w_max_then_turns_convex() {
        let rtt = 0.1;
        let mut c = after_one_loss(CubicConfig::default(), 1000.0);
        let trace = drive(&mut c, 0.0, rtt, 150);
        let k = c.k_s;
        assert!((k - 750f64.cbrt()).abs() < 1e-9, "K = {k}");
        // cwnd after each RTT stays near W_cubic(t) (the target is W_cubic(t + RTT))
        for &(t, w) in &trace[5..] {
            let want = c.w_cubic(t);
            assert!(
                (w - want).abs() < 0.01 * 1000.0 + 1.0,
                "t {t}: cwnd {w} vs W_cubic {want}"
            );
        }
        let at = |ts: f64| trace.iter().find(|x| x.0 >= ts).unwrap().1;
        // concave: growth in the first second beats growth in the second before K
        assert!(at(1.0) - at(0.1) > 3.0 * (at(k) - at(k - 0.9)));
        assert!(at(k) <= 1000.0 + 1.0 && at(k) > 995.0, "at K: {}", at(k));
        // convex: growth accelerates after K
        assert!(at(k + 5.0) - at(k + 4.0) > 3.0 * (at(k + 2.0) - at(k + 1.0)));
        assert!(at(k + 1.0) > 1000.0);
    }

    /// §4.2: the target is at most 1.5 cwnd: far past K, one RTT of ACKs grows cwnd by at most
    /// half, whatever W_cubic says.
    #[test]
    fn one_rtt_grows_the_window_by_at_most_half() {
        let mut c = after_one_loss(CubicConfig::default(), 100.0);
        c.on_ack(&ack_at(0.0, 0.1, 70.0));
        let before = c.w.cwnd / MSS;
        // 100 s later W_cubic is enormous; one RTT of ACKs
        let after = drive(&mut c, 100.0, 0.1, 1)[0].1;
        assert!(c.w_cubic(100.0) > 10.0 * before);
        assert!(after <= 1.5 * before + 1e-6, "{before} -> {after}");
        assert!(after > 1.4 * before, "{before} -> {after}");
    }

    /// §4.3: at a small RTT (100 us) the cubic curve barely moves in the time Reno would need,
    /// so W_est takes over: cwnd grows by alpha_cubic = 0.53 segments per RTT up to cwnd_prior,
    /// then by 1 per RTT; with the region off, cwnd follows the much slower W_cubic.
    #[test]
    fn the_reno_friendly_region_takes_over_at_a_small_rtt() {
        let rtt = 100e-6;
        let mut c = after_one_loss(CubicConfig::default(), 20.0);
        let trace = drive(&mut c, 0.0, rtt, 100);
        // from 14: +0.529 per RTT for (20 - 14)/0.529 = 11.3 RTTs, then +1 per RTT
        let w = trace.last().unwrap().1;
        let want = 20.0 + (100.0 - 6.0 / alpha_cubic(0.7));
        assert!((w - want).abs() < 2.5, "cwnd {w} vs Reno-friendly {want}");
        assert_eq!(c.alpha, 1.0);
        assert!(c.w_cubic(trace.last().unwrap().0) < 15.0);
        let w11 = trace[10].1;
        assert!(
            (w11 - (14.0 + 11.0 * alpha_cubic(0.7))).abs() < 0.6,
            "after 11 RTTs: {w11}"
        );
        let mut off = after_one_loss(
            CubicConfig {
                reno_friendly: false,
                ..Default::default()
            },
            20.0,
        );
        let w_off = drive(&mut off, 0.0, rtt, 100).last().unwrap().1;
        assert!(w_off < 15.0, "without the region: {w_off}");
    }

    /// §4.7: a second loss below W_max lowers W_max to cwnd (1 + beta)/2; without fast
    /// convergence W_max is the cwnd at the loss.
    #[test]
    fn fast_convergence_lowers_w_max() {
        for (fc, want) in [(true, 90.0 * 1.7 / 2.0), (false, 90.0)] {
            let mut c = after_one_loss(
                CubicConfig {
                    fast_convergence: fc,
                    ..Default::default()
                },
                100.0,
            );
            assert_eq!(c.w_max, 100.0);
            c.w.cwnd = 90.0 * MSS;
            c.on_congestion(SimTime(0), Congestion::FastRetransmit, 90_000);
            assert!((c.w_max - want).abs() < 1e-9, "fc {fc}: {}", c.w_max);
            // a loss above W_max sets W_max = cwnd either way
            c.w.cwnd = 200.0 * MSS;
            c.on_congestion(SimTime(0), Congestion::FastRetransmit, 200_000);
            assert_eq!(c.w_max, 200.0);
        }
    }

    /// §4.8: a timeout sets ssthresh = beta flight, cwnd = 1; slow start (NewReno, +1 per ACK)
    /// up to ssthresh, and the next stage starts with K = 0 and W_max = cwnd_epoch.
    #[test]
    fn a_timeout_restarts_from_one_segment_with_k_zero() {
        let mut c = after_one_loss(CubicConfig::default(), 100.0);
        c.w.cwnd = 80.0 * MSS;
        c.on_congestion(SimTime(0), Congestion::Timeout, 80_000);
        assert_eq!(c.w.cwnd, MSS);
        assert!((c.w.ssthresh - 56.0 * MSS).abs() < 1e-6);
        let mut t = 1.0;
        while c.w.in_slow_start() {
            c.on_ack(&ack_at(t, 0.01, 1.0));
            t += 1e-3;
        }
        assert_eq!(c.t_epoch, None);
        c.on_ack(&ack_at(t, 0.01, 56.0));
        assert_eq!(c.k_s, 0.0);
        assert_eq!(c.w_max, c.cwnd_epoch);
        assert!((c.cwnd_epoch - 56.0).abs() < 1e-9);
        assert_eq!(c.w_est, 56.0 + c.alpha * 1.0 / 56.0);
    }

    /// The RTT the target looks ahead by: the smoothed RTT by default (RFC 6298: first sample,
    /// then 1/8 of each difference), the minimum with target_rtt = "min_rtt".
    #[test]
    fn the_target_looks_ahead_by_srtt_or_the_minimum_rtt() {
        for (mode, want) in [
            (CubicRtt::Srtt, 0.1 + (0.2 - 0.1) / 8.0),
            (CubicRtt::MinRtt, 0.1),
        ] {
            let mut c = cubic(CubicConfig {
                target_rtt: mode,
                ..Default::default()
            });
            c.on_ack(&ack_at(0.0, 0.1, 10.0));
            c.on_ack(&ack_at(0.0, 0.2, 10.0));
            assert!((c.rtt_s() - want).abs() < 1e-12, "{mode:?}: {}", c.rtt_s());
        }
    }

    /// Slow start is NewReno's; leaving it at ssthresh without a congestion event starts the
    /// stage with K = 0, W_max = cwnd_prior = cwnd (§4.10).
    #[test]
    fn leaving_the_first_slow_start_without_loss_starts_at_k_zero() {
        let mut c = cubic(CubicConfig::default());
        c.w.ssthresh = 16.0 * MSS;
        for i in 0..6 {
            c.on_ack(&ack_at(i as f64 * 1e-3, 0.01, 10.0));
        }
        assert_eq!(c.w.cwnd, 16.0 * MSS);
        c.on_ack(&ack_at(0.01, 0.01, 16.0));
        assert_eq!((c.k_s, c.w_max, c.cwnd_prior), (0.0, 16.0, 16.0));
        assert_eq!(c.reductions, 0);
    }
}
