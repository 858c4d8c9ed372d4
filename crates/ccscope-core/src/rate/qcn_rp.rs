//! QCN reaction point (IEEE 802.1Qau; P002 §2.3.1 eqs 6-8; ALGORITHMS.md §4.2).
//!
//! Place in the pipeline: lives in a rate-limited source (NIC); fed CNMs from a QCN congestion
//! point ([`crate::aqm::qcn_cp`]), the bytes its sender transmits (byte counter) and its own
//! timer; its [`RateControl::rate_bps`] paces the sender.
//!
//! - **CNM with quantized feedback F** (eq 6): install the limiter at line rate if it is not
//!   installed; `R <- r`; `r <- r max(1 - Gd F, 1 - MinDecFac)` (Gd 64 = 1/2: at most a 50%
//!   cut); `r <- max(r, MinRate)`; reset the byte counter and both stages; restart the timer.
//! - **Byte counter** expiry (150 KB, 75 KB once `bc_stage > F_th`): `bc_stage += 1`, then
//!   *increase*. **Timer** expiry (15 ms, 7.5 ms once `t_stage > F_th`, E32): `t_stage += 1`,
//!   restart, then *increase*.
//! - *increase*: Fast Recovery while both stages are `<= F_th`: `r <- (r + R)/2` (eq 7);
//!   Active Increase when exactly one stage exceeds F_th: `R <- R + R_AI; r <- (r + R)/2`
//!   (eq 8); Hyper-Active Increase when both do: the same with R_HAI (§2.3.1). `r, R <= line`.
//! - The limiter is released (rate = line rate, counters and timer off) once `r` reaches the
//!   line rate [CHOICE], within [`RELEASE_REL_TOLERANCE`].
//! - Target Rate Reduction and Extra Fast Recovery are not implemented (E31).

use super::{check_nonneg, check_pos, check_unit, Feedback, FeedbackKind, RateControl, RateProbe};
use crate::error::ScenarioError;
use crate::units::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The limiter is released once `r >= line (1 - RELEASE_REL_TOLERANCE)`. Binary search toward
/// the line rate only reaches it in the limit (in f64 it may stall one ulp below), so "reaches
/// line rate" needs a tolerance: 1 ppm, far below R_AI (5 Mb/s = 500 ppm of 10 Gb/s) [CHOICE].
pub const RELEASE_REL_TOLERANCE: f64 = 1e-6;

/// QCN reaction-point parameters. Units in names; sources in the docs (ALGORITHMS.md §4.2
/// defaults table).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QcnRpConfig {
    /// Decrease gain Gd per unit of quantized feedback (dimensionless, 0 < Gd <= 1).
    /// Default 1/128 ([STD] 802.1Qau MIB `rpgGd` = 7, i.e. 2^-7; P002 eq 6: Gd 64 = 1/2).
    #[serde(default = "default_gd")]
    pub gd: f64,
    /// Largest fraction of the rate one CNM may remove (0 < MinDecFac <= 1). Default 0.5
    /// ([STD] 802.1Qau MIB `rpgMinDecFac`; P002 §2.3.1 "won't decrease more than 50%").
    #[serde(default = "default_min_dec_fac")]
    pub min_dec_fac: f64,
    /// Byte-counter cycle, bytes (> 0); halved once `bc_stage > F_th`. Default 150 000
    /// (P002 §2.3.1 "150KB"; [STD] MIB `rpgByteReset`; E32).
    #[serde(default = "default_byte_counter_bytes")]
    pub byte_counter_bytes: u64,
    /// Timer period T, seconds (> 0); halved once `t_stage > F_th`. Default 0.015
    /// ([STD] MIB `rpgTimeReset` 15 ms; E30, E32).
    #[serde(default = "default_timer_period_s")]
    pub timer_period_s: f64,
    /// Fast-recovery threshold F_th: number of FR cycles before Active Increase (>= 1).
    /// Default 5 (P002 §2.3.1 "five times"; [STD] MIB `rpgThreshold`).
    #[serde(default = "default_fast_recovery_threshold")]
    pub fast_recovery_threshold: u32,
    /// Active-increase step R_AI, bits/s (>= 0). Default 5e6 (P002 §2.3.1; [STD] MIB `rpgAiRate`).
    #[serde(default = "default_r_ai_bps")]
    pub r_ai_bps: f64,
    /// Hyper-active-increase step R_HAI, bits/s (>= 0). Default 50e6 (P002 §2.3.1; [STD] MIB
    /// `rpgHaiRate`).
    #[serde(default = "default_r_hai_bps")]
    pub r_hai_bps: f64,
    /// Minimum rate, bits/s (> 0, <= line rate). Default 5e6 ([STD] MIB `rpgMinRate`; E30).
    #[serde(default = "default_min_rate_bps")]
    pub min_rate_bps: f64,
    /// Scale the HAI step by `min(bc_stage, t_stage) - F_th`, as some QCN pseudocode versions
    /// do (ALGORITHMS.md §4.2, option). Default false.
    #[serde(default)]
    pub hai_scales_with_stage: bool,
}

fn default_gd() -> f64 {
    1.0 / 128.0
}
fn default_min_dec_fac() -> f64 {
    0.5
}
fn default_byte_counter_bytes() -> u64 {
    150_000
}
fn default_timer_period_s() -> f64 {
    0.015
}
fn default_fast_recovery_threshold() -> u32 {
    5
}
fn default_r_ai_bps() -> f64 {
    5e6
}
fn default_r_hai_bps() -> f64 {
    50e6
}
fn default_min_rate_bps() -> f64 {
    5e6
}

impl Default for QcnRpConfig {
    fn default() -> Self {
        QcnRpConfig {
            gd: default_gd(),
            min_dec_fac: default_min_dec_fac(),
            byte_counter_bytes: default_byte_counter_bytes(),
            timer_period_s: default_timer_period_s(),
            fast_recovery_threshold: default_fast_recovery_threshold(),
            r_ai_bps: default_r_ai_bps(),
            r_hai_bps: default_r_hai_bps(),
            min_rate_bps: default_min_rate_bps(),
            hai_scales_with_stage: false,
        }
    }
}

impl QcnRpConfig {
    /// Range checks; `path` is the dotted scenario path of this config (e.g. `"qcn_rp"`).
    /// The `min_rate_bps <= line rate` check needs the line rate: see [`QcnRp::new`]'s doc.
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        check_unit(path, "gd", self.gd, true)?;
        check_unit(path, "min_dec_fac", self.min_dec_fac, true)?;
        if self.byte_counter_bytes == 0 {
            return Err(ScenarioError::new(
                format!("{path}.byte_counter_bytes"),
                0,
                "must be >= 1",
            ));
        }
        check_pos(path, "timer_period_s", self.timer_period_s)?;
        if SimDuration::from_secs_f64(self.timer_period_s / 2.0) == SimDuration::ZERO {
            return Err(ScenarioError::new(
                format!("{path}.timer_period_s"),
                self.timer_period_s,
                "must be at least 2 ps",
            ));
        }
        if self.fast_recovery_threshold == 0 {
            return Err(ScenarioError::new(
                format!("{path}.fast_recovery_threshold"),
                0,
                "must be >= 1",
            ));
        }
        check_nonneg(path, "r_ai_bps", self.r_ai_bps)?;
        check_nonneg(path, "r_hai_bps", self.r_hai_bps)?;
        check_pos(path, "min_rate_bps", self.min_rate_bps)?;
        Ok(())
    }
}

/// Which increase rule a byte-counter or timer expiry applies (ALGORITHMS.md §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QcnPhase {
    /// No limiter installed: sending at line rate.
    Unlimited,
    /// Both stages <= F_th: binary search toward R (eq 7).
    FastRecovery,
    /// Exactly one stage > F_th: R grows by R_AI (eq 8).
    ActiveIncrease,
    /// Both stages > F_th: R grows by R_HAI.
    HyperActiveIncrease,
}

/// The rate limiter of a QCN-style reaction point, shared by 802.1Qau's ([`QcnRp`]) and DCQCN's
/// ([`super::DcqcnRp`], which keeps QCN's increase machinery: Zhu et al. SIGCOMM 2015 §3.1):
/// the current and target rates, the byte counter and the timer with their stage counts, and
/// the congestion notifications received. Each reaction point decides how far a notification
/// cuts and how far an expiry raises the target; this holds what they do alike: the restart
/// after a notification, the binary search toward the target with the release at line rate,
/// and what the engine reads ([`RateControl::rate_bps`], `poll_timeout`, `probe`).
#[derive(Clone, Debug)]
pub struct Limiter {
    /// Rate limiter installed (since the first notification, until released at line rate).
    pub active: bool,
    /// Current rate (QCN CR, DCQCN R_C), bits/s.
    pub rate_bps: f64,
    /// Target rate (QCN TR, DCQCN R_T), bits/s.
    pub target_rate_bps: f64,
    /// Bytes counted in the current byte-counter cycle.
    pub bc_bytes: u64,
    /// Byte-counter expiries since the last notification.
    pub bc_stage: u32,
    /// Timer expiries since the last notification.
    pub timer_stage: u32,
    /// When the rate-increase timer expires next (None: off).
    pub(super) deadline: Option<SimTime>,
    /// Congestion notifications received (QCN CNMs, DCQCN CNPs).
    pub feedbacks: u64,
}

impl Limiter {
    /// No limiter: sending at `line_rate_bps` until the first notification.
    pub fn new(line_rate_bps: f64) -> Self {
        Limiter {
            active: false,
            rate_bps: line_rate_bps,
            target_rate_bps: line_rate_bps,
            bc_bytes: 0,
            bc_stage: 0,
            timer_stage: 0,
            deadline: None,
            feedbacks: 0,
        }
    }

    /// After a notification's cut at `now`: the byte counter and both stages restart and the
    /// timer expires `period` later.
    pub(super) fn restart(&mut self, now: SimTime, period: SimDuration) {
        self.bc_bytes = 0;
        self.bc_stage = 0;
        self.timer_stage = 0;
        self.deadline = Some(now + period);
    }

    /// A timer event at `now` is an expiry: the limiter is installed and its deadline has
    /// passed (the lazy deadline: an event for a deadline that has moved later does nothing).
    /// The expiry is counted (`timer_stage + 1`); the caller re-arms the timer and increases.
    pub(super) fn timer_expired(&mut self, now: SimTime) -> bool {
        match self.deadline {
            Some(d) if self.active && now >= d => {
                self.timer_stage = self.timer_stage.saturating_add(1);
                true
            }
            _ => false,
        }
    }

    /// The rate's half step toward the (possibly raised) target, both capped at `line_rate_bps`
    /// (QCN eq 7; DCQCN eqs (3)-(5)); released once the rate reaches the line rate.
    pub(super) fn approach_target(&mut self, line_rate_bps: f64) {
        self.target_rate_bps = self.target_rate_bps.min(line_rate_bps);
        self.rate_bps = (0.5 * (self.rate_bps + self.target_rate_bps)).min(line_rate_bps);
        if self.rate_bps >= line_rate_bps * (1.0 - RELEASE_REL_TOLERANCE) {
            self.release(line_rate_bps);
        }
    }

    /// Back to line rate with no limiter: counters and timer stop until the next notification.
    fn release(&mut self, line_rate_bps: f64) {
        self.active = false;
        self.rate_bps = line_rate_bps;
        self.target_rate_bps = line_rate_bps;
        self.bc_bytes = 0;
        self.bc_stage = 0;
        self.timer_stage = 0;
        self.deadline = None;
    }

    /// [`RateControl::probe`] of the reaction point.
    pub(super) fn probe(&self, p: &mut RateProbe) {
        p.rate_bps = self.rate_bps;
        p.target_rate_bps = self.target_rate_bps;
        p.bc_stage = self.bc_stage;
        p.timer_stage = self.timer_stage;
        p.active = self.active;
        p.feedbacks = self.feedbacks;
    }
}

/// What the engine reads of a reaction point whose [`Limiter`] is its field `lim`:
/// [`RateControl::poll_timeout`], [`RateControl::rate_bps`] (both per frame) and
/// [`RateControl::probe`]; invoked inside its `impl RateControl`.
macro_rules! limiter_accessors {
    () => {
        #[inline]
        fn poll_timeout(&self) -> Option<$crate::units::SimTime> {
            self.lim.deadline
        }

        #[inline]
        fn rate_bps(&self) -> f64 {
            self.lim.rate_bps
        }

        fn probe(&self, p: &mut $crate::rate::RateProbe) {
            self.lim.probe(p)
        }
    };
}
pub(super) use limiter_accessors;

/// QCN reaction-point state.
#[derive(Clone, Debug)]
pub struct QcnRp {
    // parameters
    gd: f64,
    max_cut: f64,
    bc_limit_bytes: u64,
    timer_period: SimDuration,
    f_th: u32,
    r_ai_bps: f64,
    r_hai_bps: f64,
    min_rate_bps: f64,
    hai_scales: bool,
    line_rate_bps: f64,
    /// The rate limiter: CR, TR, the byte counter, the timer and their stages, the CNMs.
    pub lim: Limiter,
}

impl QcnRp {
    /// A reaction point at a source of line rate `line_rate_bps` (> 0), sending unlimited until
    /// the first CNM. The engine should check `cfg.min_rate_bps <= line_rate_bps` when it
    /// validates the scenario (the rate is clamped to the line rate in any case).
    pub fn new(cfg: &QcnRpConfig, line_rate_bps: f64) -> Self {
        QcnRp {
            gd: cfg.gd,
            max_cut: cfg.min_dec_fac,
            bc_limit_bytes: cfg.byte_counter_bytes,
            timer_period: SimDuration::from_secs_f64(cfg.timer_period_s),
            f_th: cfg.fast_recovery_threshold,
            r_ai_bps: cfg.r_ai_bps,
            r_hai_bps: cfg.r_hai_bps,
            min_rate_bps: cfg.min_rate_bps.min(line_rate_bps),
            hai_scales: cfg.hai_scales_with_stage,
            line_rate_bps,
            lim: Limiter::new(line_rate_bps),
        }
    }

    /// The byte-counter cycle length now: BC, or BC/2 once `bc_stage > F_th`.
    pub fn byte_counter_limit_bytes(&self) -> u64 {
        if self.lim.bc_stage > self.f_th {
            self.bc_limit_bytes / 2
        } else {
            self.bc_limit_bytes
        }
    }

    /// The timer period now: T, or T/2 once `t_stage > F_th`.
    pub fn timer_period(&self) -> SimDuration {
        if self.lim.timer_stage > self.f_th {
            SimDuration(self.timer_period.0 / 2)
        } else {
            self.timer_period
        }
    }

    /// The increase rule the next expiry will apply.
    pub fn phase(&self) -> QcnPhase {
        if !self.lim.active {
            return QcnPhase::Unlimited;
        }
        match (
            self.lim.bc_stage > self.f_th,
            self.lim.timer_stage > self.f_th,
        ) {
            (false, false) => QcnPhase::FastRecovery,
            (true, true) => QcnPhase::HyperActiveIncrease,
            _ => QcnPhase::ActiveIncrease,
        }
    }

    /// Eq 6: rate decrease on a CNM carrying quantized feedback `fb_q`.
    fn decrease(&mut self, now: SimTime, fb_q: u8) {
        let l = &mut self.lim;
        if !l.active {
            l.active = true;
            l.rate_bps = self.line_rate_bps;
            l.target_rate_bps = self.line_rate_bps;
        }
        l.target_rate_bps = l.rate_bps;
        let factor = (1.0 - self.gd * fb_q as f64).max(1.0 - self.max_cut);
        l.rate_bps = (l.rate_bps * factor).max(self.min_rate_bps);
        // both stages restart at 0: the timer runs the full period T
        l.restart(now, self.timer_period);
    }

    /// One FR / AI / HAI step (eqs 7-8), after a stage counter moved.
    fn increase(&mut self) {
        match self.phase() {
            QcnPhase::Unlimited => return,
            QcnPhase::FastRecovery => {}
            QcnPhase::ActiveIncrease => self.lim.target_rate_bps += self.r_ai_bps,
            QcnPhase::HyperActiveIncrease => {
                let k = if self.hai_scales {
                    self.lim.bc_stage.min(self.lim.timer_stage) - self.f_th
                } else {
                    1
                };
                self.lim.target_rate_bps += self.r_hai_bps * k as f64;
            }
        }
        self.lim.approach_target(self.line_rate_bps);
    }
}

impl RateControl for QcnRp {
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
        if let FeedbackKind::Qcn { fb_q } = fb.kind {
            self.lim.feedbacks += 1;
            self.decrease(now, fb_q.min(super::QCN_FB_MAX));
        }
    }

    #[inline]
    fn on_bytes_sent(&mut self, _now: SimTime, bytes: u32) {
        if !self.lim.active {
            return;
        }
        self.lim.bc_bytes += bytes as u64;
        if self.lim.bc_bytes >= self.byte_counter_limit_bytes() {
            self.lim.bc_stage = self.lim.bc_stage.saturating_add(1);
            self.lim.bc_bytes = 0;
            self.increase();
        }
    }

    fn on_timer(&mut self, now: SimTime) {
        if self.lim.timer_expired(now) {
            // the period of the stage just reached (T/2 once past F_th)
            self.lim.deadline = Some(now + self.timer_period());
            self.increase();
        }
    }

    limiter_accessors!();
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: f64 = 10e9;
    const MS: u64 = 1_000_000_000; // picoseconds

    fn cnm(fb_q: u8) -> Feedback {
        Feedback {
            cpid: 7,
            kind: FeedbackKind::Qcn { fb_q },
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    /// Send `n` full byte-counter cycles of 1500-B frames (the last frame crosses the limit).
    fn run_bc_cycles(rp: &mut QcnRp, n: u32) {
        for _ in 0..n {
            let stage = rp.lim.bc_stage;
            while rp.lim.bc_stage == stage && rp.lim.active {
                rp.on_bytes_sent(SimTime(0), 1500);
            }
        }
    }

    #[test]
    fn unlimited_before_the_first_cnm_ignores_bytes_and_has_no_timer() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        for _ in 0..1000 {
            rp.on_bytes_sent(SimTime(0), 1500);
        }
        assert_eq!(rp.rate_bps(), LINE);
        assert_eq!(rp.lim.bc_stage, 0);
        assert_eq!(rp.poll_timeout(), None);
        assert_eq!(rp.phase(), QcnPhase::Unlimited);
    }

    #[test]
    fn cnm_cuts_r_by_gd_f_and_sets_target_to_the_old_rate() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(32));
        assert_eq!(rp.lim.target_rate_bps, LINE);
        assert!(close(rp.rate_bps(), LINE * (1.0 - 32.0 / 128.0)));
        // a second CNM cuts from the current rate and moves R down to it
        let r1 = rp.rate_bps();
        rp.on_feedback(SimTime(0), &cnm(10));
        assert_eq!(rp.lim.target_rate_bps, r1);
        assert!(close(rp.rate_bps(), r1 * (1.0 - 10.0 / 128.0)));
    }

    #[test]
    fn cut_is_capped_at_fifty_percent() {
        // Gd 63 < 1/2: the full-scale CNM cuts 49.2%; a larger Gd is capped by MinDecFac
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(63));
        assert!(close(rp.rate_bps(), LINE * (1.0 - 63.0 / 128.0)));
        let cfg = QcnRpConfig {
            gd: 1.0 / 32.0,
            ..Default::default()
        };
        let mut rp = QcnRp::new(&cfg, LINE);
        rp.on_feedback(SimTime(0), &cnm(63));
        assert_eq!(rp.rate_bps(), LINE * 0.5);
        // out-of-range payloads saturate at 63
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(255));
        assert!(close(rp.rate_bps(), LINE * (1.0 - 63.0 / 128.0)));
    }

    #[test]
    fn rate_never_drops_below_min_rate() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        for _ in 0..100 {
            rp.on_feedback(SimTime(0), &cnm(63));
        }
        assert_eq!(rp.rate_bps(), 5e6);
        assert_eq!(rp.lim.target_rate_bps, 5e6);
    }

    #[test]
    fn fast_recovery_binary_searches_toward_the_target_over_five_cycles() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(64 / 2)); // r = 0.75 line, R = line
        let target = rp.lim.target_rate_bps;
        let mut r = rp.rate_bps();
        for i in 1..=5 {
            assert_eq!(rp.phase(), QcnPhase::FastRecovery);
            run_bc_cycles(&mut rp, 1);
            r = 0.5 * (r + target);
            assert_eq!(rp.lim.bc_stage, i);
            assert_eq!(rp.lim.target_rate_bps, target, "FR keeps R");
            assert!(
                close(rp.rate_bps(), r),
                "cycle {i}: {} vs {r}",
                rp.rate_bps()
            );
        }
        // after 5 cycles the gap to R is 1/32 of the cut
        assert!(close(target - rp.rate_bps(), 0.25 * LINE / 32.0));
    }

    #[test]
    fn active_increase_raises_target_by_r_ai_after_f_th_cycles() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(63));
        rp.on_feedback(SimTime(0), &cnm(63)); // R = 0.508 line, well below line rate
        run_bc_cycles(&mut rp, 5);
        assert_eq!(rp.phase(), QcnPhase::FastRecovery);
        let (r, t) = (rp.rate_bps(), rp.lim.target_rate_bps);
        run_bc_cycles(&mut rp, 1); // 6th expiry: bc_stage 6 > 5 -> AI
        assert_eq!(rp.phase(), QcnPhase::ActiveIncrease);
        assert!(close(rp.lim.target_rate_bps, t + 5e6));
        assert!(close(rp.rate_bps(), 0.5 * (r + t + 5e6)));
    }

    #[test]
    fn byte_counter_halves_to_75_kb_once_its_stage_exceeds_f_th() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(63));
        rp.on_feedback(SimTime(0), &cnm(63));
        for stage in 0..8u32 {
            let want = if stage > 5 { 75_000 } else { 150_000 };
            assert_eq!(rp.byte_counter_limit_bytes(), want, "stage {stage}");
            let mut sent = 0u64;
            while rp.lim.bc_stage == stage {
                rp.on_bytes_sent(SimTime(0), 1500);
                sent += 1500;
            }
            assert_eq!(sent, want);
        }
    }

    #[test]
    fn timer_runs_at_15_ms_then_7_5_ms_and_both_stages_high_give_hyper_active_increase() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(63));
        rp.on_feedback(SimTime(0), &cnm(63));
        let mut t = SimTime(0);
        for stage in 1..=7u32 {
            let d = rp.poll_timeout().expect("timer armed while limited");
            let want = if stage - 1 > 5 {
                7 * MS + MS / 2
            } else {
                15 * MS
            };
            assert_eq!(d.0 - t.0, want, "period before stage {stage}");
            // an early wake-up does nothing (lazy deadline)
            rp.on_timer(SimTime(d.0 - 1));
            assert_eq!(rp.lim.timer_stage, stage - 1);
            rp.on_timer(d);
            assert_eq!(rp.lim.timer_stage, stage);
            t = d;
        }
        // timer stage 7 > 5 alone: AI; now push the byte counter past F_th too: HAI
        assert_eq!(rp.phase(), QcnPhase::ActiveIncrease);
        run_bc_cycles(&mut rp, 5);
        assert_eq!(rp.phase(), QcnPhase::ActiveIncrease);
        run_bc_cycles(&mut rp, 1); // bc_stage 6 > 5 : increase happens in HAI
        assert_eq!(rp.phase(), QcnPhase::HyperActiveIncrease);
        let (r, tr) = (rp.rate_bps(), rp.lim.target_rate_bps);
        run_bc_cycles(&mut rp, 1);
        assert!(close(rp.lim.target_rate_bps, tr + 50e6));
        assert!(close(rp.rate_bps(), 0.5 * (r + tr + 50e6)));
    }

    #[test]
    fn timer_expiry_in_fast_recovery_is_a_binary_search_step_too() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(32));
        let d = rp.poll_timeout().unwrap_or(SimTime::MAX);
        assert_eq!(d, SimTime(15 * MS));
        rp.on_timer(d);
        assert!(close(rp.rate_bps(), 0.5 * (0.75 * LINE + LINE)));
        assert_eq!(rp.lim.timer_stage, 1);
        assert_eq!(rp.lim.bc_stage, 0);
    }

    #[test]
    fn cnm_resets_stages_and_restarts_the_timer() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(63));
        rp.on_feedback(SimTime(0), &cnm(63));
        run_bc_cycles(&mut rp, 7);
        rp.on_timer(SimTime(15 * MS));
        rp.on_bytes_sent(SimTime(0), 1500);
        rp.on_feedback(SimTime(20 * MS), &cnm(1));
        assert_eq!(
            (rp.lim.bc_stage, rp.lim.timer_stage, rp.lim.bc_bytes),
            (0, 0, 0)
        );
        assert_eq!(rp.poll_timeout(), Some(SimTime(35 * MS)));
        // the stale event at the old deadline (30 ms) does nothing
        rp.on_timer(SimTime(30 * MS));
        assert_eq!(rp.lim.timer_stage, 0);
    }

    #[test]
    fn hai_step_scales_with_stage_only_when_the_option_is_on() {
        let cfg = QcnRpConfig {
            hai_scales_with_stage: true,
            ..Default::default()
        };
        let mut rp = QcnRp::new(&cfg, LINE);
        rp.on_feedback(SimTime(0), &cnm(63));
        rp.on_feedback(SimTime(0), &cnm(63));
        rp.on_feedback(SimTime(0), &cnm(63));
        rp.lim.bc_stage = 7;
        rp.lim.timer_stage = 8;
        let tr = rp.lim.target_rate_bps;
        run_bc_cycles(&mut rp, 1); // bc_stage 8, min(8, 8) - 5 = 3
        assert!(close(rp.lim.target_rate_bps, tr + 3.0 * 50e6));
    }

    #[test]
    fn limiter_is_released_when_the_rate_reaches_line_rate() {
        let mut rp = QcnRp::new(&QcnRpConfig::default(), LINE);
        rp.on_feedback(SimTime(0), &cnm(1));
        let mut cycles = 0;
        while rp.lim.active && cycles < 10_000 {
            run_bc_cycles(&mut rp, 1);
            cycles += 1;
        }
        assert!(!rp.lim.active, "released after {cycles} cycles");
        assert_eq!(rp.rate_bps(), LINE);
        assert_eq!(rp.lim.target_rate_bps, LINE);
        assert_eq!(rp.poll_timeout(), None);
        assert!(rp.rate_bps() <= LINE);
    }

    #[test]
    fn rate_and_target_never_exceed_line_rate() {
        let cfg = QcnRpConfig {
            r_ai_bps: 5e9,
            r_hai_bps: 5e9,
            ..Default::default()
        };
        let mut rp = QcnRp::new(&cfg, LINE);
        rp.on_feedback(SimTime(0), &cnm(63));
        rp.lim.bc_stage = 6;
        rp.lim.timer_stage = 6;
        run_bc_cycles(&mut rp, 1);
        assert!(rp.lim.target_rate_bps <= LINE && rp.rate_bps() <= LINE);
    }

    #[test]
    fn defaults_validate_and_bad_values_are_named() {
        assert!(QcnRpConfig::default().validate("qcn_rp").is_ok());
        let e = QcnRpConfig {
            fast_recovery_threshold: 0,
            ..Default::default()
        }
        .validate("qcn_rp")
        .unwrap_err();
        assert_eq!(e.path, "qcn_rp.fast_recovery_threshold");
        let e = QcnRpConfig {
            min_rate_bps: -1.0,
            ..Default::default()
        }
        .validate("qcn_rp")
        .unwrap_err();
        assert_eq!(e.path, "qcn_rp.min_rate_bps");
    }

    #[test]
    fn config_rejects_unknown_fields_and_fills_defaults() {
        let c: QcnRpConfig = serde_json::from_str(r#"{"gd": 0.015625}"#).expect("valid config");
        assert_eq!(c.gd, 1.0 / 64.0);
        assert_eq!(c.byte_counter_bytes, 150_000);
        assert!(serde_json::from_str::<QcnRpConfig>(r#"{"gdd": 1}"#).is_err());
    }
}
