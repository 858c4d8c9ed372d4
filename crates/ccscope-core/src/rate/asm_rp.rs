//! ASM (Adaptive Sliding Mode) reaction point (P002 §4.1 eqs 4, 11-12, §4.3, §4.5, §5.1;
//! ALGORITHMS.md §5.1).
//!
//! Place in the pipeline: lives in a rate-limited source; fed every feedback frame of an ASM
//! congestion point ([`crate::aqm::asm_cp`]), which carries the quantized queue offset
//! `Qf = q - q0` and queue change `dQ` separately. ASM has no byte counter and no timer:
//! every change of rate is a reaction to one feedback frame.
//!
//! On feedback (Qf, dQ in quantum units, 1 packet by default, E36):
//! ```text
//! Fb = -Qf - w dQ                                                  (eq 4)
//! r  <- r - alpha Qf - beta dQ                                     (eq 11)
//! spiral set   (alpha, beta) = (a+, b+)  in regions I-IV  (Qf Fb < 0, or a tie Qf Fb = 0)
//! parabola set (alpha, beta) = (a-, b-)  in regions V, VI (Qf Fb > 0)
//! r  <- clamp(r, MinRate, line rate)
//! ```
//! - E34: eq 12 prints the sign test the other way round; the mapping above is the one of
//!   §4.2's region narrative, ineq. 15 and the defaults (ALGORITHMS.md §5.1). Ties use the
//!   spiral set [CHOICE].
//! - Adaptive gains (§4.3, E35), stateless reading [CHOICE]: set A (approach) if
//!   `|Qf| + |dQ| < B0`; else set S (sliding) if `|Fb| < B_F`; else set A.
//! - CPID rule (§4.5): a decrease stores the feedback's CPID; an increase is applied only if
//!   its CPID equals the stored one (or none is stored yet [CHOICE]).
//! - Gains are configured as in §5.1, as the fraction of the capacity C by which one
//!   adjustment may at most change the rate; one quantum unit is worth `frac C / 128`
//!   ([`ASM_GAIN_FULL_SCALE_UNITS`], [DER] ALGORITHMS.md §5.1). C = the source's line rate
//!   unless `gain_ref_bps` says otherwise [CHOICE].

use super::{check_nonneg, check_pos, Feedback, FeedbackKind, RateControl, RateProbe};
use crate::error::ScenarioError;
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Feedback units at which one gain's adjustment reaches its full fraction of C: the 8-bit
/// magnitude scale of the NetFPGA build ([DER] ALGORITHMS.md §5.1 from P002 §5.1).
pub const ASM_GAIN_FULL_SCALE_UNITS: f64 = 128.0;

/// One set of ASM gains, each the fraction of C one adjustment may at most change the rate
/// by (P002 §5.1), i.e. `frac C / 128` per quantum unit of Qf or dQ. Dimensionless, >= 0.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AsmGains {
    /// a+: gain on Qf in the spiral regions I-IV.
    pub a_plus: f64,
    /// a-: gain on Qf in the parabola regions V-VI.
    pub a_minus: f64,
    /// b+: gain on dQ in the spiral regions I-IV.
    pub b_plus: f64,
    /// b-: gain on dQ in the parabola regions V-VI.
    pub b_minus: f64,
}

impl AsmGains {
    /// Approach set A of P002 §5.1: a+ 1/8, a- 1/64, b+ 1/16, b- 1/2.
    pub const APPROACH: AsmGains = AsmGains {
        a_plus: 1.0 / 8.0,
        a_minus: 1.0 / 64.0,
        b_plus: 1.0 / 16.0,
        b_minus: 1.0 / 2.0,
    };
    /// Sliding set S of P002 §5.1: a+ 1/16, a- 1/128, b+ 1/32, b- 1/4.
    pub const SLIDING: AsmGains = AsmGains {
        a_plus: 1.0 / 16.0,
        a_minus: 1.0 / 128.0,
        b_plus: 1.0 / 32.0,
        b_minus: 1.0 / 4.0,
    };

    /// `w a- - b-`, the gain part of the sliding condition for the parabola set, in these
    /// units (ALGORITHMS.md §5.2: `M = 1 + (w/(pC)) (w a - b)`; ineq. 15 needs M(a-, b-) < 0).
    /// Exactly 0 for both default sets: they sit on the boundary `b- = w a-` (E39).
    pub fn parabola_gain_term(&self, w: f64) -> f64 {
        w * self.a_minus - self.b_minus
    }

    /// `w a+ - b+`, the gain part of M for the spiral set (must make M(a+, b+) > 0).
    pub fn spiral_gain_term(&self, w: f64) -> f64 {
        w * self.a_plus - self.b_plus
    }

    fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        check_nonneg(path, "a_plus", self.a_plus)?;
        check_nonneg(path, "a_minus", self.a_minus)?;
        check_nonneg(path, "b_plus", self.b_plus)?;
        check_nonneg(path, "b_minus", self.b_minus)
    }

    fn scaled(&self, bps_per_unit: f64) -> AsmGains {
        AsmGains {
            a_plus: self.a_plus * bps_per_unit,
            a_minus: self.a_minus * bps_per_unit,
            b_plus: self.b_plus * bps_per_unit,
            b_minus: self.b_minus * bps_per_unit,
        }
    }
}

/// ASM reaction-point parameters. Qf, dQ, B0 and B_F are in the CP's quantum units
/// (`AsmCpConfig::quantum_pkts`, 1 packet by default, E36).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AsmRpConfig {
    /// Weight w of dQ in Fb = -Qf - w dQ (dimensionless, > 0). Default 32 (P002 §5.1).
    #[serde(default = "default_w")]
    pub w: f64,
    /// B0: below `|Qf| + |dQ| < B0` the approach set is reused near the stable point
    /// (quantum units, >= 0). Default 16 (P002 §4.3, §5.1).
    #[serde(default = "default_b0")]
    pub b0: f64,
    /// B_F (printed "B_sigma"): the sliding set is used when `|Fb| < B_F` (quantum units,
    /// >= 0). Default 64 (P002 §4.3, §5.1; E35).
    #[serde(default = "default_b_f")]
    pub b_f: f64,
    /// Approach gains, set A. Default a+ 1/8, a- 1/64, b+ 1/16, b- 1/2 (P002 §5.1).
    #[serde(default = "default_approach")]
    pub approach: AsmGains,
    /// Sliding gains, set S. Default a+ 1/16, a- 1/128, b+ 1/32, b- 1/4 (P002 §5.1).
    #[serde(default = "default_sliding")]
    pub sliding: AsmGains,
    /// Switch between sets A and S (§4.3); false always uses set A. Default true.
    #[serde(default = "default_true")]
    pub adaptive_gains: bool,
    /// The capacity C the gains are fractions of, bits/s (> 0). Default: the source's line
    /// rate [CHOICE] (P002's setups have NIC rate = bottleneck rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gain_ref_bps: Option<f64>,
    /// Minimum rate, bits/s (> 0). Default 5e6 ([CHOICE] QCN's MinRate, ALGORITHMS.md §5.1).
    #[serde(default = "default_min_rate_bps")]
    pub min_rate_bps: f64,
    /// Rate before the first feedback, bits/s (> 0). Default: line rate [CHOICE] (P002 §5.1's
    /// NetFPGA run starts its sources at 500 Mb/s on 1 Gb/s links).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rate_bps: Option<f64>,
}

fn default_w() -> f64 {
    32.0
}
fn default_b0() -> f64 {
    16.0
}
fn default_b_f() -> f64 {
    64.0
}
fn default_approach() -> AsmGains {
    AsmGains::APPROACH
}
fn default_sliding() -> AsmGains {
    AsmGains::SLIDING
}
fn default_true() -> bool {
    true
}
fn default_min_rate_bps() -> f64 {
    5e6
}

impl Default for AsmRpConfig {
    fn default() -> Self {
        AsmRpConfig {
            w: default_w(),
            b0: default_b0(),
            b_f: default_b_f(),
            approach: AsmGains::APPROACH,
            sliding: AsmGains::SLIDING,
            adaptive_gains: true,
            gain_ref_bps: None,
            min_rate_bps: default_min_rate_bps(),
            initial_rate_bps: None,
        }
    }
}

impl AsmRpConfig {
    /// Range checks; `path` is the dotted scenario path of this config (e.g. `"asm_rp"`).
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        check_pos(path, "w", self.w)?;
        check_nonneg(path, "b0", self.b0)?;
        check_nonneg(path, "b_f", self.b_f)?;
        self.approach.validate(&format!("{path}.approach"))?;
        self.sliding.validate(&format!("{path}.sliding"))?;
        if let Some(c) = self.gain_ref_bps {
            check_pos(path, "gain_ref_bps", c)?;
        }
        check_pos(path, "min_rate_bps", self.min_rate_bps)?;
        if let Some(r) = self.initial_rate_bps {
            check_pos(path, "initial_rate_bps", r)?;
        }
        Ok(())
    }
}

/// The six regions of the Q/R plane (P002 Fig 2; ALGORITHMS.md §4.3), with dQ > 0 <=> A > C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsmRegion {
    /// q < q0, A < C (Fb > 0).
    I,
    /// q < q0, A > C, below Λ (Fb > 0).
    II,
    /// q > q0, A > C (Fb < 0).
    III,
    /// q > q0, A < C, Fb < 0.
    IV,
    /// q < q0, A > C, above Λ (Fb < 0).
    V,
    /// q > q0, A < C, Fb > 0.
    VI,
}

impl AsmRegion {
    /// The region of a feedback (Qf, dQ) for weight w; `None` on a boundary line
    /// (Qf = 0, dQ = 0 or Fb = 0).
    pub fn classify(qf: f64, dq: f64, w: f64) -> Option<AsmRegion> {
        let fb = asm_fb(qf, dq, w);
        if qf == 0.0 || dq == 0.0 || fb == 0.0 {
            return None;
        }
        Some(match (qf > 0.0, dq > 0.0, fb > 0.0) {
            (false, false, _) => AsmRegion::I,
            (false, true, true) => AsmRegion::II,
            (false, true, false) => AsmRegion::V,
            (true, true, _) => AsmRegion::III,
            (true, false, false) => AsmRegion::IV,
            (true, false, true) => AsmRegion::VI,
        })
    }
}

/// Which of eq 11's gain pairs applies (ALGORITHMS.md §5.1, E34).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GainBranch {
    /// (a+, b+): regions I-IV, Qf and Fb of opposite sign; also ties [CHOICE].
    Spiral,
    /// (a-, b-): regions V-VI, Qf and Fb of the same sign.
    Parabola,
}

impl GainBranch {
    /// Parabola iff `Qf Fb > 0`, else spiral.
    pub fn of(qf: f64, fb: f64) -> GainBranch {
        if qf * fb > 0.0 {
            GainBranch::Parabola
        } else {
            GainBranch::Spiral
        }
    }
}

/// Which adaptive gain set applies (P002 §4.3, E35).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsmGainSet {
    /// Large gains: far from Λ, or close to the stable point.
    Approach,
    /// Small gains: near Λ (`|Fb| < B_F`) but not near the stable point.
    Sliding,
}

impl AsmGainSet {
    /// Stateless rule [CHOICE]: A if `|Qf| + |dQ| < B0`; else S if `|Fb| < B_F`; else A.
    pub fn select(qf: f64, dq: f64, fb: f64, b0: f64, b_f: f64) -> AsmGainSet {
        if qf.abs() + dq.abs() < b0 {
            AsmGainSet::Approach
        } else if fb.abs() < b_f {
            AsmGainSet::Sliding
        } else {
            AsmGainSet::Approach
        }
    }
}

/// Eq 4 at the RP: `Fb = -Qf - w dQ`.
#[inline]
pub fn asm_fb(qf: f64, dq: f64, w: f64) -> f64 {
    -qf - w * dq
}

/// ASM reaction-point state.
#[derive(Clone, Debug)]
pub struct AsmRp {
    w: f64,
    b0: f64,
    b_f: f64,
    /// Gains in bits/s per quantum unit: [approach, sliding].
    gains_bps: [AsmGains; 2],
    adaptive: bool,
    min_rate_bps: f64,
    line_rate_bps: f64,
    /// Current rate r, bits/s.
    pub rate_bps: f64,
    /// CPID stored by the last decrease (§4.5).
    pub stored_cpid: Option<u32>,
    /// Gain branch used by the last feedback (for probes and tests).
    pub last_branch: Option<GainBranch>,
    /// Gain set used by the last feedback.
    pub last_gain_set: Option<AsmGainSet>,
    /// Increases dropped by the CPID rule.
    pub ignored_increases: u64,
    feedbacks: u64,
}

impl AsmRp {
    /// A reaction point at a source of line rate `line_rate_bps` (> 0).
    pub fn new(cfg: &AsmRpConfig, line_rate_bps: f64) -> Self {
        let c = cfg.gain_ref_bps.unwrap_or(line_rate_bps);
        let per_unit = c / ASM_GAIN_FULL_SCALE_UNITS;
        let min_rate_bps = cfg.min_rate_bps.min(line_rate_bps);
        AsmRp {
            w: cfg.w,
            b0: cfg.b0,
            b_f: cfg.b_f,
            gains_bps: [cfg.approach.scaled(per_unit), cfg.sliding.scaled(per_unit)],
            adaptive: cfg.adaptive_gains,
            min_rate_bps,
            line_rate_bps,
            rate_bps: cfg
                .initial_rate_bps
                .unwrap_or(line_rate_bps)
                .max(min_rate_bps)
                .min(line_rate_bps),
            stored_cpid: None,
            last_branch: None,
            last_gain_set: None,
            ignored_increases: 0,
            feedbacks: 0,
        }
    }

    /// Eq 11's rate change for (Qf, dQ), bits/s, with the branch and set it used.
    pub fn rate_change_bps(&self, qf: f64, dq: f64) -> (f64, GainBranch, AsmGainSet) {
        let fb = asm_fb(qf, dq, self.w);
        let set = if self.adaptive {
            AsmGainSet::select(qf, dq, fb, self.b0, self.b_f)
        } else {
            AsmGainSet::Approach
        };
        let g = &self.gains_bps[match set {
            AsmGainSet::Approach => 0,
            AsmGainSet::Sliding => 1,
        }];
        let branch = GainBranch::of(qf, fb);
        let (alpha, beta) = match branch {
            GainBranch::Spiral => (g.a_plus, g.b_plus),
            GainBranch::Parabola => (g.a_minus, g.b_minus),
        };
        (-alpha * qf - beta * dq, branch, set)
    }
}

impl RateControl for AsmRp {
    fn on_feedback(&mut self, _now: SimTime, fb: &Feedback) {
        let FeedbackKind::Asm { qf, dq } = fb.kind else {
            return;
        };
        self.feedbacks += 1;
        let (delta, branch, set) = self.rate_change_bps(qf as f64, dq as f64);
        self.last_branch = Some(branch);
        self.last_gain_set = Some(set);
        if delta < 0.0 {
            self.stored_cpid = Some(fb.cpid);
        } else if delta > 0.0 && self.stored_cpid.is_some_and(|c| c != fb.cpid) {
            self.ignored_increases += 1;
            return;
        }
        // max/min rather than clamp: never panics, whatever the (validated) bounds
        self.rate_bps = (self.rate_bps + delta)
            .max(self.min_rate_bps)
            .min(self.line_rate_bps);
    }

    #[inline]
    fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    fn probe(&self, p: &mut RateProbe) {
        p.rate_bps = self.rate_bps;
        p.target_rate_bps = f64::NAN;
        p.bc_stage = 0;
        p.timer_stage = 0;
        p.active = true;
        p.feedbacks = self.feedbacks;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: f64 = 10e9;
    const UNIT: f64 = LINE / ASM_GAIN_FULL_SCALE_UNITS;

    fn fb(cpid: u32, qf: i8, dq: i8) -> Feedback {
        Feedback {
            cpid,
            kind: FeedbackKind::Asm { qf, dq },
        }
    }

    fn half_rate_rp(adaptive: bool) -> AsmRp {
        let cfg = AsmRpConfig {
            initial_rate_bps: Some(LINE / 2.0),
            adaptive_gains: adaptive,
            ..Default::default()
        };
        AsmRp::new(&cfg, LINE)
    }

    #[test]
    fn defaults_sit_exactly_on_the_sliding_boundary_w_a_minus_equals_b_minus() {
        let c = AsmRpConfig::default();
        assert_eq!(c.approach.parabola_gain_term(c.w), 0.0);
        assert_eq!(c.sliding.parabola_gain_term(c.w), 0.0);
        // spiral sets pass easily: 3.94 and 1.97 (units of C/128), ALGORITHMS.md §5.2
        assert_eq!(c.approach.spiral_gain_term(c.w), 3.9375);
        assert_eq!(c.sliding.spiral_gain_term(c.w), 1.96875);
        // b-/a- = w, b+/a+ = 1/2 in both sets
        for g in [c.approach, c.sliding] {
            assert_eq!(g.b_minus / g.a_minus, c.w);
            assert_eq!(g.b_plus / g.a_plus, 0.5);
        }
    }

    #[test]
    fn regions_one_to_four_use_the_spiral_set_and_five_six_the_parabola_set() {
        let rp = half_rate_rp(false); // set A only, w = 32
        let a = AsmGains::APPROACH;
        // (Qf, dQ) -> region, with Fb = -Qf - 32 dQ
        let cases: [(f64, f64, AsmRegion, GainBranch); 6] = [
            (-10.0, -1.0, AsmRegion::I, GainBranch::Spiral), // Fb = 42
            (-40.0, 1.0, AsmRegion::II, GainBranch::Spiral), // Fb = 8
            (10.0, 1.0, AsmRegion::III, GainBranch::Spiral), // Fb = -42
            (40.0, -1.0, AsmRegion::IV, GainBranch::Spiral), // Fb = -8
            (-10.0, 1.0, AsmRegion::V, GainBranch::Parabola), // Fb = -22
            (10.0, -1.0, AsmRegion::VI, GainBranch::Parabola), // Fb = 22
        ];
        for (qf, dq, region, branch) in cases {
            assert_eq!(
                AsmRegion::classify(qf, dq, 32.0),
                Some(region),
                "({qf}, {dq})"
            );
            let fb = asm_fb(qf, dq, 32.0);
            let opposite = qf.signum() != fb.signum();
            assert_eq!(
                opposite,
                branch == GainBranch::Spiral,
                "{region:?}: Qf and Fb signs"
            );
            let (d, got, _) = rp.rate_change_bps(qf, dq);
            assert_eq!(got, branch, "{region:?}");
            let (al, be) = if branch == GainBranch::Spiral {
                (a.a_plus, a.b_plus)
            } else {
                (a.a_minus, a.b_minus)
            };
            assert!(
                (d - (-al * qf - be * dq) * UNIT).abs() < 1e-6,
                "{region:?}: {d}"
            );
        }
        // direction: I speeds up, III slows down; V slows down (b- dQ dominates), VI speeds up
        assert!(rp.rate_change_bps(-10.0, -1.0).0 > 0.0);
        assert!(rp.rate_change_bps(10.0, 1.0).0 < 0.0);
        assert!(rp.rate_change_bps(-10.0, 1.0).0 < 0.0);
        assert!(rp.rate_change_bps(10.0, -1.0).0 > 0.0);
    }

    #[test]
    fn ties_on_a_boundary_use_the_spiral_set() {
        assert_eq!(GainBranch::of(0.0, 5.0), GainBranch::Spiral);
        assert_eq!(GainBranch::of(5.0, 0.0), GainBranch::Spiral);
        assert_eq!(AsmRegion::classify(32.0, -1.0, 32.0), None); // Fb = 0
        let rp = half_rate_rp(false);
        let (d, b, _) = rp.rate_change_bps(0.0, 2.0);
        assert_eq!(b, GainBranch::Spiral);
        assert!((d + AsmGains::APPROACH.b_plus * 2.0 * UNIT).abs() < 1e-6);
    }

    #[test]
    fn feedback_applies_eq_11_and_clamps_to_min_and_line_rate() {
        let mut rp = half_rate_rp(false);
        rp.on_feedback(SimTime(0), &fb(1, 10, 1)); // III: -(a+ 10 + b+ 1) units
        let want = LINE / 2.0 - (10.0 / 8.0 + 1.0 / 16.0) * UNIT;
        assert!((rp.rate_bps() - want).abs() < 1e-3);
        for _ in 0..100 {
            rp.on_feedback(SimTime(0), &fb(1, 127, 127));
        }
        assert_eq!(rp.rate_bps(), 5e6);
        for _ in 0..100 {
            rp.on_feedback(SimTime(0), &fb(1, -127, -127));
        }
        assert_eq!(rp.rate_bps(), LINE);
    }

    #[test]
    fn one_full_scale_unit_change_is_the_gains_fraction_of_c() {
        // |Qf| = 128 units would move the rate by exactly a+ C; dQ alone by b C
        let cfg = AsmRpConfig {
            gain_ref_bps: Some(1e9),
            adaptive_gains: false,
            ..Default::default()
        };
        let rp = AsmRp::new(&cfg, 10e9);
        let (d, _, _) = rp.rate_change_bps(128.0, 0.0);
        assert_eq!(d, -1e9 / 8.0);
    }

    #[test]
    fn gain_set_switches_between_approach_and_sliding() {
        let rp = half_rate_rp(true);
        // near the stable point: |Qf| + |dQ| = 7 < B0 = 16 -> A
        let (_, _, s) = rp.rate_change_bps(5.0, 2.0);
        assert_eq!(s, AsmGainSet::Approach);
        // near Λ but away from the stable point: |Fb| = 8 < B_F = 64 -> S
        let (d, b, s) = rp.rate_change_bps(40.0, -1.0);
        assert_eq!((b, s), (GainBranch::Spiral, AsmGainSet::Sliding));
        let g = AsmGains::SLIDING;
        assert!((d - (-g.a_plus * 40.0 + g.b_plus) * UNIT).abs() < 1e-6);
        // far from Λ: |Fb| = 420 >= 64 -> A
        let (_, _, s) = rp.rate_change_bps(100.0, 10.0);
        assert_eq!(s, AsmGainSet::Approach);
        // B0 and B_F boundaries are strict
        assert_eq!(
            AsmGainSet::select(10.0, 6.0, 0.0, 16.0, 64.0),
            AsmGainSet::Sliding
        );
        assert_eq!(
            AsmGainSet::select(64.0, 0.0, -64.0, 16.0, 64.0),
            AsmGainSet::Approach
        );
        // adaptive off: always A
        let rp = half_rate_rp(false);
        assert_eq!(rp.rate_change_bps(40.0, -1.0).2, AsmGainSet::Approach);
    }

    #[test]
    fn cpid_rule_applies_increases_only_from_the_cp_that_last_decreased() {
        let mut rp = half_rate_rp(false);
        // before any decrease an increase is accepted
        let r0 = rp.rate_bps();
        rp.on_feedback(SimTime(0), &fb(9, -10, -1));
        assert!(rp.rate_bps() > r0);
        // decrease from CP 1 stores its CPID
        rp.on_feedback(SimTime(0), &fb(1, 10, 1));
        assert_eq!(rp.stored_cpid, Some(1));
        let r1 = rp.rate_bps();
        // increase from CP 2 (underloaded) is ignored
        rp.on_feedback(SimTime(0), &fb(2, -10, -1));
        assert_eq!(rp.rate_bps(), r1);
        assert_eq!(rp.ignored_increases, 1);
        // increase from CP 1 is applied
        rp.on_feedback(SimTime(0), &fb(1, -10, -1));
        assert!(rp.rate_bps() > r1);
        // a decrease from CP 2 is always applied and takes over the CPID
        let r2 = rp.rate_bps();
        rp.on_feedback(SimTime(0), &fb(2, 10, 1));
        assert!(rp.rate_bps() < r2);
        assert_eq!(rp.stored_cpid, Some(2));
    }

    #[test]
    fn no_timer_no_byte_counter_and_initial_rate_is_clamped() {
        let cfg = AsmRpConfig {
            initial_rate_bps: Some(1e12),
            ..Default::default()
        };
        let mut rp = AsmRp::new(&cfg, LINE);
        assert_eq!(rp.rate_bps(), LINE);
        rp.on_bytes_sent(SimTime(0), 1500);
        rp.on_timer(SimTime(1));
        assert_eq!(rp.poll_timeout(), None);
        assert_eq!(rp.rate_bps(), LINE);
    }

    #[test]
    fn config_defaults_roundtrip_and_validation_names_fields() {
        let c = AsmRpConfig::default();
        assert!(c.validate("asm_rp").is_ok());
        let s = serde_json::to_string(&c).expect("serializes");
        let back: AsmRpConfig = serde_json::from_str(&s).expect("roundtrips");
        assert_eq!(back, c);
        let p: AsmRpConfig = serde_json::from_str(r#"{"approach": {"a_plus": 0.125, "a_minus": 0.015625, "b_plus": 0.0625, "b_minus": 1.0}}"#).expect("partial");
        assert_eq!(p.approach.parabola_gain_term(p.w), -0.5);
        assert!(serde_json::from_str::<AsmRpConfig>(r#"{"approach": {"a_plus": 1}}"#).is_err());
        assert!(serde_json::from_str::<AsmRpConfig>(r#"{"ww": 1}"#).is_err());
        let bad = AsmRpConfig {
            sliding: AsmGains {
                b_minus: -1.0,
                ..AsmGains::SLIDING
            },
            ..Default::default()
        };
        assert_eq!(
            bad.validate("asm_rp").map_err(|e| e.path),
            Err("asm_rp.sliding.b_minus".to_string())
        );
    }
}
