//! DCQCN reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
//! SIGCOMM 2015, §3.1 "RP algorithm"; restated with the same parameters as eqs (1)-(2) of Zhu,
//! Ghobadi, Misra, Padhye, "ECN or Delay", CoNEXT 2016, whose fluid model is
//! `ccscope.fluid.dcqcn`: the parameter names below are that model's).
//!
//! Place in the pipeline: lives in an RDMA source (`transport::rdma`, the NIC's rate limiter);
//! fed the CNPs its receiver's notification point sends (a CE mark from a RED/ECN congestion
//! point, `aqm::red`, at most one CNP per flow per 50 us), the bytes it sends (byte counter)
//! and its own timer; [`RateControl::rate_bps`] paces the sender.
//!
//! - **CNP** (SIGCOMM 2015 §3.1 eq (1); CoNEXT 2016 eq (1)): `R_T <- R_C`,
//!   `R_C <- R_C (1 - alpha/2)`, `alpha <- (1 - g) alpha + g`; the rate-increase timer, the
//!   byte counter and both stage counts restart; `R_C >= min_rate_bps`.
//! - **Alpha timer** (SIGCOMM 2015 §3.1 eq (2); CoNEXT 2016 eq (2)): every `tau_prime_s`
//!   (K = 55 us) without a CNP, `alpha <- (1 - g) alpha`. The timer restarts at every CNP, so
//!   the decays between two CNPs are `floor(gap / K)`; they are applied lazily, when alpha is
//!   next needed ([`DcqcnRp::alpha_at`]), which costs no event (the alpha clock starts at the
//!   flow's first transmission).
//! - **Rate increase** (SIGCOMM 2015 §3.1, eqs (3)-(5)), driven by the timer `timer_s` (T) and
//!   the byte counter `byte_counter_bytes` (B), each expiry adding one to its stage count, then:
//!   *fast recovery* while both stages are `<= F` (`f_steps`): `R_C <- (R_T + R_C)/2`;
//!   *additive increase* when exactly one stage exceeds F: `R_T <- R_T + R_AI`,
//!   `R_C <- (R_T + R_C)/2`; *hyper increase* when both do: `R_T <- R_T + R_HAI` (times
//!   `min(stages) - F` with `hai_scales_with_stage`, QCN's variant), `R_C <- (R_T + R_C)/2`.
//!   Rates never exceed the line rate.
//! - The limiter is released (rate = line rate, timer off, stages 0) once `R_C` reaches the line
//!   rate [CHOICE, as `qcn_rp`], within [`super::qcn_rp::RELEASE_REL_TOLERANCE`]; before the
//!   first CNP the source sends at line rate with `alpha = alpha_init` (CoNEXT 2016 §3.1: "senders
//!   start at line rate"; the authors' code starts alpha at 1).
//!
//! Parameters and defaults (CoNEXT 2016 Table 1, the DCQCN paper's values, as in
//! `ccscope.fluid.dcqcn`):
//!
//! | field                | meaning                                 | default        |
//! |----------------------|-----------------------------------------|----------------|
//! | `g`                  | alpha gain                              | 1/256          |
//! | `tau_prime_s`        | alpha update period K                   | 55 us          |
//! | `timer_s`            | rate-increase timer T                   | 55 us          |
//! | `byte_counter_bytes` | rate-increase byte counter B            | 10 MB          |
//! | `f_steps`            | fast-recovery steps F                   | 5              |
//! | `r_ai_bps`           | additive-increase step R_AI             | 40 Mb/s        |
//! | `r_hai_bps`          | hyper-increase step R_HAI               | 400 Mb/s [CHOICE: 10 R_AI, QCN's ratio] |
//! | `min_rate_bps`       | rate floor                              | 1 Mb/s (fluid model's floor) |
//! | `alpha_init`         | alpha before the first CNP              | 1              |
//!
//! The CNP interval (the NP's N = 50 us, `tau_s` of the fluid model) is `rdma.cnp_interval_s`;
//! the congestion point's Kmin, Kmax and Pmax are a RED table's `min_th_pkts`, `max_th_pkts`
//! and `max_p` (instantaneous queue: `w_q = 1`; byte thresholds: `byte_mode = true`).

use super::qcn_rp::{limiter_accessors, Limiter};
use super::RateControl;
use crate::error::ScenarioError;
use crate::units::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn d_g() -> f64 {
    1.0 / 256.0
}
fn d_tau_prime() -> f64 {
    55e-6
}
fn d_timer() -> f64 {
    55e-6
}
fn d_bc() -> f64 {
    10e6
}
fn d_f() -> u32 {
    5
}
fn d_r_ai() -> f64 {
    40e6
}
fn d_r_hai() -> f64 {
    400e6
}
fn d_min_rate() -> f64 {
    1e6
}
fn d_alpha_init() -> f64 {
    1.0
}

/// DCQCN reaction-point parameters (Zhu et al. SIGCOMM 2015 §3.1; CoNEXT 2016 Table 1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DcqcnConfig {
    /// Alpha gain g, in (0, 1]. Default 1/256 (SIGCOMM 2015 §5; CoNEXT 2016 Table 1).
    #[serde(default = "d_g")]
    pub g: f64,
    /// Alpha update period K (tau'), seconds (> 0): alpha decays by (1 - g) per period without a
    /// CNP. Default 55e-6 (SIGCOMM 2015 §3.1).
    #[serde(default = "d_tau_prime")]
    pub tau_prime_s: f64,
    /// Rate-increase timer T, seconds (> 0). Default 55e-6 (CoNEXT 2016 Table 1).
    #[serde(default = "d_timer")]
    pub timer_s: f64,
    /// Rate-increase byte counter B, bytes (>= 1). Default 10e6 (SIGCOMM 2015 §5; CoNEXT 2016 Table 1).
    #[serde(default = "d_bc")]
    pub byte_counter_bytes: f64,
    /// Fast-recovery steps F (>= 1): timer or byte-counter expiries before additive increase.
    /// Default 5 (SIGCOMM 2015 §3.1).
    #[serde(default = "d_f")]
    pub f_steps: u32,
    /// Additive-increase step R_AI, bits/s (> 0). Default 40e6 (CoNEXT 2016 Table 1).
    #[serde(default = "d_r_ai")]
    pub r_ai_bps: f64,
    /// Hyper-increase step R_HAI, bits/s (> 0). Default 400e6 ([CHOICE] 10 R_AI, the R_HAI/R_AI
    /// ratio of QCN's 802.1Qau defaults; the papers give no value).
    #[serde(default = "d_r_hai")]
    pub r_hai_bps: f64,
    /// Rate floor, bits/s (> 0; capped at the line rate). Default 1e6 (the fluid model's floor).
    #[serde(default = "d_min_rate")]
    pub min_rate_bps: f64,
    /// Alpha before the first CNP, in [0, 1]. Default 1 (the authors' code).
    #[serde(default = "d_alpha_init")]
    pub alpha_init: f64,
    /// Hyper increase adds R_HAI times (min(stages) - F) instead of R_HAI (QCN's variant).
    /// Default false.
    #[serde(default)]
    pub hai_scales_with_stage: bool,
}

impl Default for DcqcnConfig {
    fn default() -> Self {
        DcqcnConfig {
            g: d_g(),
            tau_prime_s: d_tau_prime(),
            timer_s: d_timer(),
            byte_counter_bytes: d_bc(),
            f_steps: d_f(),
            r_ai_bps: d_r_ai(),
            r_hai_bps: d_r_hai(),
            min_rate_bps: d_min_rate(),
            alpha_init: d_alpha_init(),
            hai_scales_with_stage: false,
        }
    }
}

impl DcqcnConfig {
    /// Range checks; `path` is the section's name (`"dcqcn"`). Kmin, Kmax and Pmax belong to
    /// the congestion point (a RED table) and are checked there.
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let fail = |field: &str, v: String, allowed: &str| {
            Err(ScenarioError::new(format!("{path}.{field}"), v, allowed))
        };
        let f = crate::scenario::fmt_f;
        if !(self.g.is_finite() && self.g > 0.0 && self.g <= 1.0) {
            return fail("g", f(self.g), "must be in (0, 1] (paper default 1/256)");
        }
        for (field, v) in [("tau_prime_s", self.tau_prime_s), ("timer_s", self.timer_s)] {
            if !(1e-12..=crate::scenario::MAX_TIME_S).contains(&v) {
                return fail(
                    field,
                    f(v),
                    "must be a time > 0 s (at least 1e-12 s, at most 86400 s)",
                );
            }
        }
        if !self.byte_counter_bytes.is_finite() || self.byte_counter_bytes < 1.0 {
            return fail(
                "byte_counter_bytes",
                f(self.byte_counter_bytes),
                "must be a finite number of bytes >= 1",
            );
        }
        if self.f_steps == 0 {
            return fail("f_steps", "0".into(), "must be >= 1");
        }
        for (field, v) in [
            ("r_ai_bps", self.r_ai_bps),
            ("r_hai_bps", self.r_hai_bps),
            ("min_rate_bps", self.min_rate_bps),
        ] {
            if !v.is_finite() || v <= 0.0 || v > crate::scenario::MAX_RATE_BPS {
                return fail(field, f(v), "must be a rate > 0 bits/s (at most 1e14)");
            }
        }
        if !(self.alpha_init.is_finite() && (0.0..=1.0).contains(&self.alpha_init)) {
            return fail("alpha_init", f(self.alpha_init), "must be in [0, 1]");
        }
        Ok(())
    }
}

/// Which increase rule the next timer or byte-counter expiry applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DcqcnPhase {
    /// No limiter: sending at line rate.
    Unlimited,
    /// Both stages <= F: `R_C <- (R_T + R_C)/2`.
    FastRecovery,
    /// Exactly one stage > F: R_T grows by R_AI.
    AdditiveIncrease,
    /// Both stages > F: R_T grows by R_HAI.
    HyperIncrease,
}

/// DCQCN reaction-point state.
#[derive(Clone, Debug)]
pub struct DcqcnRp {
    // parameters
    g: f64,
    k: SimDuration,
    timer: SimDuration,
    bc_limit: u64,
    f: u32,
    r_ai: f64,
    r_hai: f64,
    min_rate: f64,
    hai_scales: bool,
    line: f64,
    // state
    /// The rate limiter (QCN's): R_C, R_T, the byte counter, the timer and their stages, the
    /// CNPs received.
    pub lim: Limiter,
    /// Alpha as of `alpha_since` (see [`Self::alpha_at`]).
    alpha: f64,
    /// Start of the alpha timer's current run (the last CNP, or the first transmission).
    alpha_since: Option<SimTime>,
}

impl DcqcnRp {
    /// A reaction point of a source with line rate `line_bps`, at line rate until its first CNP.
    pub fn new(cfg: &DcqcnConfig, line_bps: f64) -> Self {
        DcqcnRp {
            g: cfg.g,
            k: SimDuration::from_secs_f64(cfg.tau_prime_s).max(SimDuration(1)),
            timer: SimDuration::from_secs_f64(cfg.timer_s).max(SimDuration(1)),
            bc_limit: (cfg.byte_counter_bytes.round() as u64).max(1),
            f: cfg.f_steps.max(1),
            r_ai: cfg.r_ai_bps,
            r_hai: cfg.r_hai_bps,
            min_rate: cfg.min_rate_bps.min(line_bps),
            hai_scales: cfg.hai_scales_with_stage,
            line: line_bps,
            lim: Limiter::new(line_bps),
            alpha: cfg.alpha_init,
            alpha_since: None,
        }
    }

    /// Alpha at `now`: the stored value decayed by (1 - g) per whole alpha period K since the
    /// last CNP (or the first transmission) (eq (2)).
    pub fn alpha_at(&self, now: SimTime) -> f64 {
        match self.alpha_since {
            Some(t) if now > t => {
                let n = (now.0 - t.0) / self.k.0;
                if n == 0 {
                    self.alpha
                } else {
                    self.alpha * (1.0 - self.g).powf(n as f64)
                }
            }
            _ => self.alpha,
        }
    }

    /// The increase rule the next expiry applies.
    pub fn phase(&self) -> DcqcnPhase {
        if !self.lim.active {
            return DcqcnPhase::Unlimited;
        }
        match (self.lim.timer_stage > self.f, self.lim.bc_stage > self.f) {
            (false, false) => DcqcnPhase::FastRecovery,
            (true, true) => DcqcnPhase::HyperIncrease,
            _ => DcqcnPhase::AdditiveIncrease,
        }
    }

    /// One fast-recovery / additive / hyper step after a stage count moved (eqs (3)-(5)).
    fn increase(&mut self) {
        match self.phase() {
            DcqcnPhase::Unlimited => return,
            DcqcnPhase::FastRecovery => {}
            DcqcnPhase::AdditiveIncrease => self.lim.target_rate_bps += self.r_ai,
            DcqcnPhase::HyperIncrease => {
                let i = if self.hai_scales {
                    (self.lim.timer_stage.min(self.lim.bc_stage) - self.f) as f64
                } else {
                    1.0
                };
                self.lim.target_rate_bps += self.r_hai * i;
            }
        }
        self.lim.approach_target(self.line);
    }
}

/// 802.1Qau feedback frames are not DCQCN's signal: `on_feedback` keeps the default (ignored).
impl RateControl for DcqcnRp {
    #[inline]
    fn on_bytes_sent(&mut self, now: SimTime, bytes: u32) {
        if self.alpha_since.is_none() {
            self.alpha_since = Some(now);
        }
        let l = &mut self.lim;
        if !l.active {
            return;
        }
        l.bc_bytes += bytes as u64;
        if l.bc_bytes >= self.bc_limit {
            l.bc_bytes -= self.bc_limit;
            l.bc_stage = l.bc_stage.saturating_add(1);
            self.increase();
        }
    }

    fn on_timer(&mut self, now: SimTime) {
        if self.lim.timer_expired(now) {
            self.lim.deadline = Some(now + self.timer);
            self.increase();
        }
    }

    limiter_accessors!();

    /// Eq (1): cut toward `R_C (1 - alpha/2)`, remember `R_T`, then raise alpha.
    fn on_cnp(&mut self, now: SimTime) {
        self.lim.feedbacks += 1;
        let alpha = self.alpha_at(now);
        let l = &mut self.lim;
        l.active = true;
        l.target_rate_bps = l.rate_bps;
        l.rate_bps = (l.rate_bps * (1.0 - alpha / 2.0)).max(self.min_rate);
        self.alpha = (1.0 - self.g) * alpha + self.g;
        self.alpha_since = Some(now);
        self.lim.restart(now, self.timer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: f64 = 40e9;
    const US: u64 = 1_000_000; // picoseconds

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    fn rp() -> DcqcnRp {
        let mut r = DcqcnRp::new(&DcqcnConfig::default(), LINE);
        r.on_bytes_sent(SimTime(0), 1000); // the alpha clock starts at the first packet
        r
    }

    /// Fire the rate timer once (at its deadline).
    fn expire(r: &mut DcqcnRp) -> SimTime {
        let d = r.poll_timeout().expect("timer armed");
        r.on_timer(d);
        d
    }

    #[test]
    fn line_rate_until_the_first_cnp_and_no_timer() {
        let mut r = rp();
        for _ in 0..100_000 {
            r.on_bytes_sent(SimTime(0), 1000);
        }
        assert_eq!(r.rate_bps(), LINE);
        assert_eq!(r.poll_timeout(), None);
        assert_eq!(r.phase(), DcqcnPhase::Unlimited);
    }

    #[test]
    fn one_cnp_with_alpha_one_halves_the_rate_and_sets_the_target() {
        let mut r = rp();
        r.on_cnp(SimTime(0));
        assert_eq!(r.lim.target_rate_bps, LINE);
        assert!(close(r.rate_bps(), LINE / 2.0));
        // alpha <- (1 - g) 1 + g = 1: a second CNP at once halves again, from the new rate
        assert!(close(r.alpha_at(SimTime(0)), 1.0));
        r.on_cnp(SimTime(1));
        assert!(close(r.lim.target_rate_bps, LINE / 2.0));
        assert!(close(r.rate_bps(), LINE / 4.0));
        assert_eq!(r.poll_timeout(), Some(SimTime(1) + SimDuration(55 * US)));
    }

    #[test]
    fn cut_uses_alpha_then_alpha_rises_by_g() {
        let cfg = DcqcnConfig {
            alpha_init: 0.5,
            g: 0.25,
            ..Default::default()
        };
        let mut r = DcqcnRp::new(&cfg, LINE);
        r.on_bytes_sent(SimTime(0), 1000);
        r.on_cnp(SimTime(0));
        assert!(close(r.rate_bps(), LINE * 0.75));
        assert!(close(r.alpha_at(SimTime(0)), 0.75 * 0.5 + 0.25));
    }

    #[test]
    fn alpha_decays_by_one_minus_g_per_k_without_cnp() {
        let mut r = rp();
        r.on_cnp(SimTime(0)); // alpha = 1 at t = 0
        let g = 1.0 / 256.0;
        assert!(close(r.alpha_at(SimTime(54 * US)), 1.0));
        assert!(close(r.alpha_at(SimTime(55 * US)), 1.0 - g));
        assert!(close(
            r.alpha_at(SimTime(10 * 55 * US + 3)),
            (1.0 - g).powi(10)
        ));
        // a CNP restarts the alpha timer: decays counted from it
        r.on_cnp(SimTime(120 * US)); // two periods elapsed: alpha (1-g)^2, then raised
        let a = (1.0 - g) * (1.0 - g).powi(2) + g;
        assert!(close(r.alpha_at(SimTime(120 * US)), a));
        assert!(close(r.alpha_at(SimTime(174 * US)), a));
        assert!(close(r.alpha_at(SimTime(175 * US)), a * (1.0 - g)));
    }

    #[test]
    fn alpha_clock_starts_at_the_first_transmission() {
        let mut r = DcqcnRp::new(&DcqcnConfig::default(), LINE);
        r.on_bytes_sent(SimTime(1_000 * US), 1000);
        // 1 ms after the start the alpha has decayed 18 times, whatever the flow's creation time
        r.on_cnp(SimTime(2_000 * US));
        let g = 1.0 / 256.0;
        let a = (1.0f64 - g).powi(18);
        assert!(close(r.rate_bps(), LINE * (1.0 - a / 2.0)));
    }

    #[test]
    fn f_timer_expiries_of_fast_recovery_then_additive_increase() {
        let mut r = rp();
        r.on_cnp(SimTime(0));
        let (rt, mut rc) = (r.lim.target_rate_bps, r.rate_bps());
        for i in 1..=5 {
            assert_eq!(r.phase(), DcqcnPhase::FastRecovery, "expiry {i}");
            expire(&mut r);
            rc = 0.5 * (rt + rc);
            assert!(close(r.rate_bps(), rc));
            assert_eq!(r.lim.target_rate_bps, rt, "fast recovery keeps the target");
        }
        // the sixth expiry: additive increase R_T += R_AI
        expire(&mut r);
        assert_eq!(r.lim.timer_stage, 6);
        assert!(close(r.lim.target_rate_bps, (rt + 40e6).min(LINE)));
    }

    #[test]
    fn additive_increase_step_below_line_rate() {
        let mut r = rp();
        for t in 0..4 {
            r.on_cnp(SimTime(t)); // rate ~ line/16, target line/8
        }
        let rt = r.lim.target_rate_bps;
        for _ in 0..5 {
            expire(&mut r);
        }
        let rc = r.rate_bps();
        expire(&mut r);
        assert_eq!(r.phase(), DcqcnPhase::AdditiveIncrease);
        assert!(close(r.lim.target_rate_bps, rt + 40e6));
        assert!(close(r.rate_bps(), 0.5 * (rt + 40e6 + rc)));
    }

    #[test]
    fn hyper_increase_once_both_counters_pass_f() {
        let cfg = DcqcnConfig {
            byte_counter_bytes: 10_000.0,
            ..Default::default()
        };
        let mut r = DcqcnRp::new(&cfg, LINE);
        r.on_bytes_sent(SimTime(0), 1000);
        for t in 0..6 {
            r.on_cnp(SimTime(t)); // rate ~ line/64
        }
        for _ in 0..6 {
            expire(&mut r);
        }
        assert_eq!(r.phase(), DcqcnPhase::AdditiveIncrease);
        for _ in 0..5 {
            for _ in 0..10 {
                r.on_bytes_sent(SimTime(0), 1000);
            }
        }
        assert_eq!((r.lim.timer_stage, r.lim.bc_stage), (6, 5));
        assert_eq!(r.phase(), DcqcnPhase::AdditiveIncrease);
        let rt = r.lim.target_rate_bps;
        for _ in 0..10 {
            r.on_bytes_sent(SimTime(0), 1000);
        }
        assert_eq!(r.lim.bc_stage, 6);
        assert_eq!(r.phase(), DcqcnPhase::HyperIncrease);
        assert!(close(r.lim.target_rate_bps, rt + 400e6));
        // with the stage-scaled variant, the step is (min(stages) - F) R_HAI
        let mut s = DcqcnRp::new(
            &DcqcnConfig {
                hai_scales_with_stage: true,
                ..cfg
            },
            LINE,
        );
        s.on_bytes_sent(SimTime(0), 1000);
        for t in 0..6 {
            s.on_cnp(SimTime(t));
        }
        for _ in 0..7 {
            expire(&mut s);
        }
        for _ in 0..70 {
            s.on_bytes_sent(SimTime(0), 1000);
        }
        assert_eq!((s.lim.timer_stage, s.lim.bc_stage), (7, 7));
        let rt = s.lim.target_rate_bps;
        expire(&mut s);
        assert!(close(s.lim.target_rate_bps, rt + 2.0 * 400e6));
    }

    #[test]
    fn target_rate_rules_cap_at_line_rate_and_release() {
        let mut r = rp();
        r.on_cnp(SimTime(0));
        let mut n = 0;
        while r.phase() != DcqcnPhase::Unlimited {
            expire(&mut r);
            assert!(r.lim.target_rate_bps <= LINE && r.rate_bps() <= LINE);
            n += 1;
            assert!(n < 10_000);
        }
        assert_eq!(r.rate_bps(), LINE);
        assert_eq!(r.poll_timeout(), None);
        // a CNP resets the stages, the byte counter and the timer
        r.on_cnp(SimTime(1_000_000 * US));
        assert_eq!(
            (r.lim.timer_stage, r.lim.bc_stage, r.lim.bc_bytes),
            (0, 0, 0)
        );
        assert_eq!(r.lim.target_rate_bps, LINE);
    }

    #[test]
    fn the_rate_floor_holds() {
        let mut r = rp();
        for t in 0..100 {
            r.on_cnp(SimTime(t));
        }
        assert_eq!(r.rate_bps(), 1e6);
    }

    #[test]
    fn validation_names_the_field_the_value_and_the_range() {
        let e = |c: DcqcnConfig| c.validate("dcqcn").unwrap_err().to_string();
        assert_eq!(
            e(DcqcnConfig {
                g: 0.0,
                ..Default::default()
            }),
            "dcqcn.g = 0: must be in (0, 1] (paper default 1/256)"
        );
        assert!(e(DcqcnConfig {
            timer_s: -1.0,
            ..Default::default()
        })
        .starts_with("dcqcn.timer_s = -1: must be a time > 0 s"));
        assert!(e(DcqcnConfig {
            r_ai_bps: 0.0,
            ..Default::default()
        })
        .starts_with("dcqcn.r_ai_bps = 0: must be a rate > 0"));
        assert!(e(DcqcnConfig {
            f_steps: 0,
            ..Default::default()
        })
        .starts_with("dcqcn.f_steps = 0"));
        DcqcnConfig::default().validate("dcqcn").unwrap();
    }
}
