//! TIMELY rate control (Mittal, Lam, Dukkipati, Blem, Wassel, Ghobadi, Vahdat, Wang, Wetherall,
//! Zats, "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM 2015), Algorithm 1,
//! run once per completion event (an RTT sample of one segment of `seg_bytes`):
//! ```text
//! new_rtt_diff = new_rtt - prev_rtt;  prev_rtt = new_rtt
//! rtt_diff = (1 - alpha) rtt_diff + alpha new_rtt_diff          (EWMA, alpha on the new sample)
//! normalized_gradient = rtt_diff / minRTT
//! new_rtt < T_low  : rate += delta                               (additive increase)
//! new_rtt > T_high : rate *= 1 - beta (1 - T_high / new_rtt)     (multiplicative decrease)
//! gradient <= 0    : rate += N delta   N = 5 after 5 consecutive negative gradients (HAI), else 1
//! gradient >  0    : rate *= 1 - beta normalized_gradient
//! ```
//! Sans-IO: [`Timely::on_rtt_sample`] takes the time and the RTT; the transport decides what a
//! completion event is (one RTT sample per `seg_bytes` acknowledged) and paces at
//! [`Timely::rate_bps`].
//!
//! Defaults: the paper's recommended values, as the CoNEXT 2016 analysis (Zhu, Ghobadi, Misra,
//! Padhye, "ECN or Delay", §4.2 footnote) lists them and `ccscope.fluid.timely` uses: alpha 0.875,
//! beta 0.8, delta 10 Mb/s, T_low 50 us, T_high 500 us, minRTT 20 us; segment 64 KB (the paper's
//! 16-64 KB range, Z16's Seg); HAI after 5 completions with N = 5 (§4.3).
//!
//! Readings and choices:
//! - The first sample has no predecessor: it sets prev_rtt and leaves rtt_diff at 0 (gradient 0,
//!   so below T_high and above T_low it is an additive increase).
//! - HAI counts consecutive completion events whose normalized gradient is negative (< 0),
//!   whichever branch the event takes; any other event resets the count. At 5 or more the
//!   gradient branch's increase is N = `hai_factor` deltas.
//! - The rate stays in [min_rate_bps, line rate]: the paper's NIC cannot send above line rate,
//!   and a floor keeps the pacing gap finite (Z16's model floors it too).
//! - TIMELY has no unique fixed point (Z16 Theorems 3-4): two flows need not share equally.

use super::{AckSample, RateControl, RateProbe};
use crate::error::ScenarioError;
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// TIMELY parameters (scenario `[timely]`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelyConfig {
    /// EWMA weight of the new RTT difference, alpha (0 < alpha <= 1). Default 0.875.
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    /// Multiplicative decrement factor beta (0 < beta <= 1). Default 0.8.
    #[serde(default = "d_beta")]
    pub beta: f64,
    /// Additive increment step delta, bits/s (> 0). Default 10e6.
    #[serde(default = "d_delta")]
    pub delta_bps: f64,
    /// Low RTT threshold T_low, seconds (> 0, < t_high_s). Default 50e-6.
    #[serde(default = "d_t_low")]
    pub t_low_s: f64,
    /// High RTT threshold T_high, seconds (> t_low_s, at most 1). Default 500e-6.
    #[serde(default = "d_t_high")]
    pub t_high_s: f64,
    /// The minimum RTT that normalizes the gradient, seconds (> 0, at most 1). Default 20e-6.
    #[serde(default = "d_min_rtt")]
    pub min_rtt_s: f64,
    /// Consecutive negative gradients that start hyper-active increase (>= 1). Default 5.
    #[serde(default = "d_hai_after")]
    pub hai_after: u32,
    /// Deltas per increase in hyper-active increase, N (>= 1). Default 5.
    #[serde(default = "d_hai_factor")]
    pub hai_factor: u32,
    /// Bytes per completion event (one RTT sample and one rate update each, >= 1). Default 64000.
    #[serde(default = "d_seg")]
    pub seg_bytes: u64,
    /// Rate floor, bits/s (> 0, at most the line rate). Default 100e6 (as ccscope.fluid.timely).
    #[serde(default = "d_min_rate")]
    pub min_rate_bps: f64,
    /// Starting rate, bits/s (> 0; above the line rate means the line rate). Default: the line
    /// rate (an RDMA flow starts at line rate); the CoNEXT 2016 analysis starts each of N flows at
    /// C/N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rate_bps: Option<f64>,
}

fn d_alpha() -> f64 {
    0.875
}
fn d_beta() -> f64 {
    0.8
}
fn d_delta() -> f64 {
    10e6
}
fn d_t_low() -> f64 {
    50e-6
}
fn d_t_high() -> f64 {
    500e-6
}
fn d_min_rtt() -> f64 {
    20e-6
}
fn d_hai_after() -> u32 {
    5
}
fn d_hai_factor() -> u32 {
    5
}
fn d_seg() -> u64 {
    64_000
}
fn d_min_rate() -> f64 {
    100e6
}

impl Default for TimelyConfig {
    fn default() -> Self {
        TimelyConfig {
            alpha: d_alpha(),
            beta: d_beta(),
            delta_bps: d_delta(),
            t_low_s: d_t_low(),
            t_high_s: d_t_high(),
            min_rtt_s: d_min_rtt(),
            hai_after: d_hai_after(),
            hai_factor: d_hai_factor(),
            seg_bytes: d_seg(),
            min_rate_bps: d_min_rate(),
            initial_rate_bps: None,
        }
    }
}

impl TimelyConfig {
    /// Range checks; `path` is the section's scenario path (`"timely"`). The rate floor's upper
    /// bound (the line rate) is applied by [`Timely::new`], which clamps.
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let e = |f: &str, v: String, allowed: String| {
            Err(ScenarioError::new(format!("{path}.{f}"), v, allowed))
        };
        let shown = crate::scenario::fmt_f;
        for (f, v, d) in [("alpha", self.alpha, 0.875), ("beta", self.beta, 0.8)] {
            if !v.is_finite() || v <= 0.0 || v > 1.0 {
                return e(f, shown(v), format!("must be in (0, 1] (default {d})"));
            }
        }
        for (f, v) in [
            ("delta_bps", self.delta_bps),
            ("min_rate_bps", self.min_rate_bps),
        ] {
            if !v.is_finite() || v <= 0.0 || v > crate::scenario::MAX_RATE_BPS {
                return e(
                    f,
                    shown(v),
                    format!(
                        "must be > 0 and at most {} bits/s",
                        shown(crate::scenario::MAX_RATE_BPS)
                    ),
                );
            }
        }
        for (f, v) in [
            ("t_low_s", self.t_low_s),
            ("t_high_s", self.t_high_s),
            ("min_rtt_s", self.min_rtt_s),
        ] {
            if !v.is_finite() || v <= 0.0 || v > 1.0 {
                return e(f, shown(v), "must be > 0 and at most 1 second".into());
            }
        }
        if self.t_low_s >= self.t_high_s {
            return e(
                "t_low_s",
                shown(self.t_low_s),
                format!("must be < {path}.t_high_s ({})", shown(self.t_high_s)),
            );
        }
        for (f, v) in [
            ("hai_after", self.hai_after),
            ("hai_factor", self.hai_factor),
        ] {
            if v == 0 {
                return e(f, "0".into(), "must be >= 1 (default 5)".into());
            }
        }
        if let Some(r) = self.initial_rate_bps {
            if !r.is_finite() || r <= 0.0 || r > crate::scenario::MAX_RATE_BPS {
                return e(
                    "initial_rate_bps",
                    shown(r),
                    format!(
                        "must be > 0 and at most {} bits/s",
                        shown(crate::scenario::MAX_RATE_BPS)
                    ),
                );
            }
        }
        if self.seg_bytes == 0 {
            return e(
                "seg_bytes",
                "0".into(),
                "must be >= 1 (default 64000)".into(),
            );
        }
        Ok(())
    }
}

/// A TIMELY rate controller.
#[derive(Clone, Debug)]
pub struct Timely {
    alpha: f64,
    beta: f64,
    delta: f64,
    t_low: f64,
    t_high: f64,
    min_rtt: f64,
    hai_after: u32,
    hai_factor: f64,
    min_rate: f64,
    line_bps: f64,
    /// Bytes per completion event.
    pub seg_bytes: u64,
    rate: f64,
    prev_rtt: Option<f64>,
    /// The EWMA of RTT differences, seconds.
    pub rtt_diff: f64,
    /// Consecutive completion events with a negative gradient.
    pub neg_gradients: u32,
    /// Completion events so far.
    pub samples: u64,
    /// Bytes acknowledged since the last completion event.
    acked: u64,
}

impl Timely {
    /// A controller starting at `initial_rate_bps`, by default the line rate (RDMA sends at
    /// line rate from the start), clamped to [min_rate_bps, line rate].
    pub fn new(cfg: &TimelyConfig, line_bps: f64) -> Self {
        let min_rate = cfg.min_rate_bps.min(line_bps);
        let start = cfg
            .initial_rate_bps
            .unwrap_or(line_bps)
            .clamp(min_rate, line_bps);
        Timely {
            alpha: cfg.alpha,
            beta: cfg.beta,
            delta: cfg.delta_bps,
            t_low: cfg.t_low_s,
            t_high: cfg.t_high_s,
            min_rtt: cfg.min_rtt_s,
            hai_after: cfg.hai_after,
            hai_factor: cfg.hai_factor as f64,
            min_rate,
            line_bps,
            seg_bytes: cfg.seg_bytes,
            rate: start,
            prev_rtt: None,
            rtt_diff: 0.0,
            neg_gradients: 0,
            samples: 0,
            acked: 0,
        }
    }

    /// The normalized gradient rtt_diff / minRTT.
    pub fn normalized_gradient(&self) -> f64 {
        self.rtt_diff / self.min_rtt
    }

    /// Set the rate, bits/s (clamped to [min_rate_bps, line rate]).
    pub fn set_rate(&mut self, r: f64) {
        self.rate = r.clamp(self.min_rate, self.line_bps);
    }

    /// One completion event with RTT `rtt_s` (Algorithm 1).
    pub fn on_rtt_sample(&mut self, _now: SimTime, rtt_s: f64) {
        self.samples += 1;
        if let Some(prev) = self.prev_rtt {
            self.rtt_diff = (1.0 - self.alpha) * self.rtt_diff + self.alpha * (rtt_s - prev);
        }
        self.prev_rtt = Some(rtt_s);
        let g = self.normalized_gradient();
        if g < 0.0 {
            self.neg_gradients = self.neg_gradients.saturating_add(1);
        } else {
            self.neg_gradients = 0;
        }
        let r = self.rate;
        let new = if rtt_s < self.t_low {
            r + self.delta
        } else if rtt_s > self.t_high {
            r * (1.0 - self.beta * (1.0 - self.t_high / rtt_s))
        } else if g <= 0.0 {
            let n = if self.neg_gradients >= self.hai_after {
                self.hai_factor
            } else {
                1.0
            };
            r + n * self.delta
        } else {
            r * (1.0 - self.beta * g)
        };
        self.set_rate(new);
    }
}

impl Timely {
    /// An ACK of `acked_bytes` carrying RTT sample `rtt_s`: a completion event (one
    /// [`Timely::on_rtt_sample`]) each time the bytes acknowledged since the last one reach
    /// `seg_bytes`, with this ACK's RTT; an ACK that covers several segments is one event, and
    /// the remainder below `seg_bytes` carries over. With per-packet ACKs this is the paper's
    /// one RTT sample per completed segment.
    pub fn on_acked(&mut self, now: SimTime, acked_bytes: u64, rtt_s: f64) {
        self.acked += acked_bytes;
        if self.acked >= self.seg_bytes {
            self.acked %= self.seg_bytes;
            self.on_rtt_sample(now, rtt_s);
        }
    }
}

/// TIMELY gets no feedback frames, CNPs or timer: its input is the RTT of the RDMA transport's
/// ACKs, one completion event per `seg_bytes` acknowledged ([`Timely::on_acked`]).
impl RateControl for Timely {
    #[inline]
    fn on_ack(&mut self, now: SimTime, ack: &AckSample) {
        self.on_acked(now, ack.acked_bytes, ack.rtt.as_secs_f64());
    }
    fn rate_bps(&self) -> f64 {
        self.rate
    }
    fn probe(&self, p: &mut RateProbe) {
        p.rate_bps = self.rate;
        p.target_rate_bps = f64::NAN;
        p.active = true;
        p.feedbacks = self.samples;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: f64 = 10e9;
    const US: f64 = 1e-6;

    fn at(rate: f64) -> Timely {
        let mut t = Timely::new(&TimelyConfig::default(), LINE);
        t.set_rate(rate);
        t
    }

    fn feed(t: &mut Timely, rtts_us: &[f64]) {
        for &r in rtts_us {
            t.on_rtt_sample(SimTime(0), r * US);
        }
    }

    #[test]
    fn below_t_low_adds_delta_and_above_t_high_cuts_by_t_high_over_rtt() {
        let mut t = at(5e9);
        feed(&mut t, &[30.0, 40.0]); // rising, but below T_low: + delta each
        assert_eq!(t.rate_bps(), 5e9 + 2.0 * 10e6);
        // 1000 us > T_high 500 us: rate (1 - 0.8 (1 - 500/1000)) = 0.6 rate
        let r = t.rate_bps();
        feed(&mut t, &[1000.0]);
        assert!((t.rate_bps() - r * 0.6).abs() < 1e-3);
        // the line rate caps the increase, the floor caps the cut
        let mut t = at(LINE);
        feed(&mut t, &[10.0]);
        assert_eq!(t.rate_bps(), LINE);
        let mut t = at(150e6);
        feed(&mut t, &[1e6]);
        assert_eq!(t.rate_bps(), 100e6);
    }

    /// Gradient region (T_low <= rtt <= T_high): EWMA with weight alpha on the new difference,
    /// normalized by minRTT; a positive gradient cuts by beta g, a non-positive one adds delta.
    #[test]
    fn the_gradient_rules_with_ewma_and_min_rtt_normalization() {
        let mut t = at(5e9);
        feed(&mut t, &[100.0]); // first sample: no difference, g = 0 -> + delta
        assert_eq!(t.rate_bps(), 5e9 + 10e6);
        assert_eq!(t.rtt_diff, 0.0);
        // +10 us: rtt_diff = 0.875 * 10 = 8.75 us, g = 8.75/20 = 0.4375, rate (1 - 0.35)
        let r = t.rate_bps();
        feed(&mut t, &[110.0]);
        assert!((t.rtt_diff - 8.75 * US).abs() < 1e-15);
        assert!((t.normalized_gradient() - 0.4375).abs() < 1e-9);
        assert!((t.rate_bps() - r * (1.0 - 0.8 * 0.4375)).abs() < 1e-3);
        // flat: rtt_diff = 0.125 * 8.75 = 1.09375 us, still positive: cut by 0.8 * 0.0546875
        let r = t.rate_bps();
        feed(&mut t, &[110.0]);
        assert!((t.rtt_diff - 1.09375 * US).abs() < 1e-15);
        assert!((t.rate_bps() - r * (1.0 - 0.8 * 1.09375 / 20.0)).abs() < 1e-3);
        // falling 2 us: rtt_diff = 0.125 * 1.09375 - 0.875 * 2 < 0: + delta (one negative so far)
        let r = t.rate_bps();
        feed(&mut t, &[108.0]);
        assert!(t.rtt_diff < 0.0);
        assert_eq!(t.rate_bps(), r + 10e6);
        // minRTT scales the gradient: the same +10 us with minRTT 40 us halves g
        let cfg = TimelyConfig {
            min_rtt_s: 40e-6,
            ..TimelyConfig::default()
        };
        let mut t = Timely::new(&cfg, LINE);
        t.set_rate(5e9);
        feed(&mut t, &[100.0, 110.0]);
        assert!((t.normalized_gradient() - 0.21875).abs() < 1e-9);
    }

    /// HAI: after 5 consecutive negative gradients the increase is N = 5 deltas; a non-negative
    /// gradient resets the count.
    #[test]
    fn hyper_active_increase_after_five_negative_gradients() {
        let mut t = at(5e9);
        feed(&mut t, &[300.0]);
        let mut r = t.rate_bps();
        let mut steps = vec![];
        for k in 1..=7 {
            feed(&mut t, &[300.0 - 10.0 * k as f64]);
            steps.push(((t.rate_bps() - r) / 10e6).round() as i64);
            r = t.rate_bps();
        }
        assert_eq!(steps, [1, 1, 1, 1, 5, 5, 5]);
        assert_eq!(t.neg_gradients, 7);
        // a rise: positive gradient, count reset, a cut; then falling again starts from 1
        feed(&mut t, &[400.0]);
        assert_eq!(t.neg_gradients, 0);
        assert!(t.rate_bps() < r);
        // the EWMA needs a few falling samples to turn negative again; count them from there
        let mut counts = vec![];
        for k in 1..=8 {
            feed(&mut t, &[400.0 - 20.0 * k as f64]);
            counts.push(t.neg_gradients);
        }
        assert_eq!(counts, [0, 1, 2, 3, 4, 5, 6, 7], "{counts:?}");
        // hai_after and hai_factor come from the config
        let cfg = TimelyConfig {
            hai_after: 2,
            hai_factor: 3,
            ..TimelyConfig::default()
        };
        let mut t = Timely::new(&cfg, LINE);
        t.set_rate(5e9);
        feed(&mut t, &[300.0, 290.0]);
        let r = t.rate_bps();
        feed(&mut t, &[280.0]);
        assert_eq!(t.rate_bps(), r + 3.0 * 10e6);
    }

    #[test]
    fn the_start_is_the_line_rate_or_the_initial_rate_clamped() {
        assert_eq!(Timely::new(&TimelyConfig::default(), LINE).rate_bps(), LINE);
        let c = |r| TimelyConfig {
            initial_rate_bps: Some(r),
            ..TimelyConfig::default()
        };
        assert_eq!(Timely::new(&c(5e9), LINE).rate_bps(), 5e9);
        assert_eq!(Timely::new(&c(50e9), LINE).rate_bps(), LINE);
        assert_eq!(Timely::new(&c(1e6), LINE).rate_bps(), 100e6);
        assert!(c(0.0)
            .validate("timely")
            .unwrap_err()
            .to_string()
            .starts_with("timely.initial_rate_bps = 0: must be > 0"));
    }

    /// One completion event per seg_bytes acknowledged: 64 KB in 1000-byte ACKs is an event at
    /// the 64th ACK, whose RTT it takes; a 130 KB stretch ACK is one event, 2 KB carried over.
    #[test]
    fn one_rtt_sample_per_segment_acknowledged() {
        let mut t = at(5e9);
        for k in 1..=63 {
            t.on_acked(SimTime(0), 1000, 100e-6 + k as f64 * 1e-6);
        }
        assert_eq!((t.samples, t.rate_bps()), (0, 5e9));
        t.on_acked(SimTime(0), 1000, 100e-6);
        assert_eq!(t.samples, 1);
        assert_eq!(t.prev_rtt, Some(100e-6));
        t.on_acked(SimTime(0), 130_000, 120e-6);
        assert_eq!((t.samples, t.acked), (2, 2_000));
        assert!((t.rtt_diff - 0.875 * 20e-6).abs() < 1e-15);
    }

    #[test]
    fn the_section_refuses_bad_values_naming_the_field() {
        let bad = |f: fn(&mut TimelyConfig)| {
            let mut c = TimelyConfig::default();
            f(&mut c);
            c.validate("timely").unwrap_err().to_string()
        };
        assert!(TimelyConfig::default().validate("timely").is_ok());
        assert_eq!(
            bad(|c| c.t_low_s = 500e-6),
            "timely.t_low_s = 0.0005: must be < timely.t_high_s (0.0005)"
        );
        assert_eq!(
            bad(|c| c.t_low_s = 1e-3),
            "timely.t_low_s = 0.001: must be < timely.t_high_s (0.0005)"
        );
        assert_eq!(
            bad(|c| c.alpha = 0.0),
            "timely.alpha = 0: must be in (0, 1] (default 0.875)"
        );
        assert_eq!(
            bad(|c| c.beta = 1.5),
            "timely.beta = 1.5: must be in (0, 1] (default 0.8)"
        );
        assert!(bad(|c| c.delta_bps = -1.0).starts_with("timely.delta_bps = -1: must be > 0"));
        assert_eq!(
            bad(|c| c.min_rtt_s = f64::NAN),
            "timely.min_rtt_s = nan: must be > 0 and at most 1 second"
        );
        assert_eq!(
            bad(|c| c.hai_after = 0),
            "timely.hai_after = 0: must be >= 1 (default 5)"
        );
        assert_eq!(
            bad(|c| c.seg_bytes = 0),
            "timely.seg_bytes = 0: must be >= 1 (default 64000)"
        );
    }
}
