//! DX: latency-based window control (Lee et al. 2015; analysis: Jiang, Peng, Ruan, Wu, Wang,
//! "Modeling and Analysis of the Latency-Based Congestion Control Algorithm DX" — P004 §2.1,
//! eqs 1-2; ALGORITHMS.md §6.1).
//!
//! Once per RTT (when the cumulative ACK passes the window-end marker), with W in segments:
//! ```text
//! Q = mean over that RTT of (RTT sample - R0), clamped at 0     (queueing delay)
//! Q <= q_eps : W <- W + 1
//! Q >  q_eps : W <- W (1 - Q/U), U = R0 W/(W-1)  ==  W - (Q/R0)(W - 1)     (eqs 1-2)
//! W <- max(W, 1)
//! ```
//! [CHOICE]s: R0 = the minimum RTT seen unless `base_rtt_s` fixes it; slow start until the
//! first Q > q_eps; NewReno loss handling (P004 describes neither). DX needs no ECN.
//!
//! The RTT that enters Q (`rtt_input`): "sample" (default) is each ACK's own RTT sample;
//! "srtt" is the RFC 6298 smoothed estimate after that sample, as ns-3's `TcpSocketBase` hands it
//! to a congestion-control module: up to ns-3.42, `EstimateRtt` (src/internet/model/
//! tcp-socket-base.cc) sets `m_tcb->m_lastRtt = m_rtt->GetEstimate ()` after every measurement
//! and `ReceivedAck` calls `PktsAcked (m_tcb, segsAcked, m_tcb->m_lastRtt)`; the estimator is
//! `RttMeanDeviation` (rtt-estimator.cc), first sample taken as is, then with gain 1/8 in integer
//! nanoseconds (`IntegerUpdate`: srtt <- (8 srtt + m - srtt) >> 3). ns-3.43 (2024) changed
//! `m_lastRtt` to the last sample. P004 (NPC 2019) ran ns-3 of that period.

use super::reno::RenoWindow;
use super::{AckSample, RenoBased};
use crate::units::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// DX parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DxConfig {
    /// Queueing delay at or below which an RTT counts as uncongested, seconds (>= 0). Default 1 ns:
    /// P004 eq 1 tests Q = 0, but serialization times carry sub-picosecond remainders, so an
    /// empty-queue RTT can exceed R0 by a picosecond; 1 ns is far below one packet time.
    #[serde(default = "default_q_eps")]
    pub q_eps_s: f64,
    /// Base RTT R0, seconds (> 0). Default: the minimum RTT the flow measures ([CHOICE], ALGORITHMS.md §6.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_rtt_s: Option<f64>,
    /// Use each flow's exact no-queue RTT (propagation plus one data serialization per hop out,
    /// one ACK serialization per hop back) as R0, as DX's hardware timestamps would give it
    /// (P004's model takes R0 as known). Default false: the minimum RTT measured, which a flow
    /// that starts into a standing queue overestimates. Not with `base_rtt_s`.
    #[serde(default)]
    pub base_rtt_from_path: bool,
    /// Which RTT enters the queueing delay Q: "sample" (default: each ACK's RTT sample) or
    /// "srtt" (the RFC 6298 smoothed estimate, gain 1/8 in integer nanoseconds, as ns-3's
    /// TcpSocketBase passed it to PktsAcked up to ns-3.42; P004 ran ns-3 of 2019).
    #[serde(default)]
    pub rtt_input: DxRttInput,
}

/// Which RTT DX's queueing delay is computed from (see [`DxConfig::rtt_input`]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DxRttInput {
    /// Each ACK's own RTT sample (the default).
    #[default]
    Sample,
    /// The RFC 6298 smoothed RTT after that sample (ns-3 <= 3.42 `m_lastRtt`).
    Srtt,
}

fn default_q_eps() -> f64 {
    DX_Q_EPS_S
}

/// Default tolerance of the "Q = 0" test, seconds (see `DxConfig::q_eps_s`).
pub const DX_Q_EPS_S: f64 = 1e-9;

impl Default for DxConfig {
    fn default() -> Self {
        DxConfig {
            q_eps_s: DX_Q_EPS_S,
            base_rtt_s: None,
            base_rtt_from_path: false,
            rtt_input: DxRttInput::Sample,
        }
    }
}

/// Minimum DX window, segments (P004 eq 2: W >= 1).
pub const DX_MIN_WINDOW_PKTS: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct Dx {
    pub w: RenoWindow,
    q_eps_s: f64,
    r0_s: Option<f64>,
    fixed_r0: bool,
    rtt_input: DxRttInput,
    /// ns-3 `RttMeanDeviation` estimate, integer nanoseconds (`rtt_input = "srtt"`).
    srtt_ns: Option<i64>,
    sum_q_s: f64,
    samples: u64,
    window_end: u64,
    /// Updates so far that decreased / increased the window (P004 Table 1's p).
    pub decreases: u64,
    pub increases: u64,
    /// Last per-RTT mean queueing delay, seconds.
    pub last_q_s: f64,
}

impl Dx {
    pub fn new(cfg: &DxConfig, mss_bytes: u32, iw_pkts: u32, dupack_threshold: u32) -> Self {
        let mut w = RenoWindow::new(mss_bytes, iw_pkts, DX_MIN_WINDOW_PKTS);
        w.dupack_threshold = dupack_threshold;
        Dx {
            w,
            q_eps_s: cfg.q_eps_s,
            r0_s: cfg.base_rtt_s,
            fixed_r0: cfg.base_rtt_s.is_some(),
            rtt_input: cfg.rtt_input,
            srtt_ns: None,
            sum_q_s: 0.0,
            samples: 0,
            window_end: 0,
            decreases: 0,
            increases: 0,
            last_q_s: 0.0,
        }
    }

    /// Fix R0 (seconds) from here on.
    pub fn set_base_rtt(&mut self, r0_s: f64) {
        self.r0_s = Some(r0_s);
        self.fixed_r0 = true;
    }

    /// The RTT this ACK hands DX, seconds: the sample itself, or ns-3's smoothed estimate after
    /// it (`RttMeanDeviation::Measurement`: the first sample as is, then `IntegerUpdate` with
    /// rttShift 3 on nanoseconds; `>>` floors, as ns-3's arithmetic shift of an int64).
    fn rtt_seen(&mut self, sample: SimDuration) -> f64 {
        match self.rtt_input {
            DxRttInput::Sample => sample.as_secs_f64(),
            DxRttInput::Srtt => {
                let m = (sample.0 as f64 / 1000.0).round() as i64;
                let s = match self.srtt_ns {
                    None => m,
                    Some(s) => ((s << 3) + (m - s)) >> 3,
                };
                self.srtt_ns = Some(s);
                s as f64 * 1e-9
            }
        }
    }

    /// Apply one per-RTT update (eqs 1-2) for mean queueing delay `q_s`.
    pub fn update(&mut self, q_s: f64) {
        let w = &mut self.w;
        self.last_q_s = q_s;
        if q_s <= self.q_eps_s {
            self.increases += 1;
            if !w.in_slow_start() {
                w.cwnd += w.mss;
            }
        } else {
            self.decreases += 1;
            let r0 = self.r0_s.unwrap_or(q_s).max(f64::MIN_POSITIVE);
            let wp = w.cwnd / w.mss;
            let new = (wp - (q_s / r0) * (wp - 1.0)).max(DX_MIN_WINDOW_PKTS);
            w.cwnd = new * w.mss;
            w.ssthresh = w.cwnd; // the first congested RTT ends slow start
        }
    }
}

/// Differs from NewReno in the ACK (the per-RTT update of eqs 1-2 replaces congestion
/// avoidance) and in ignoring ECN (no ECT: `w.ecn` is false; no cut on ECN-Echo, no once-per-window
/// delivery); loss handling is NewReno's ([CHOICE], see the module doc).
impl RenoBased for Dx {
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
        if let Some(rtt) = s.rtt {
            let r = self.rtt_seen(rtt);
            if !self.fixed_r0 {
                self.r0_s = Some(self.r0_s.map_or(r, |x| x.min(r)));
            }
            let r0 = self.r0_s.unwrap_or(r);
            self.sum_q_s += (r - r0).max(0.0);
            self.samples += 1;
        }
        if s.in_recovery {
            self.w.deflate(s.newly_acked_bytes as f64);
            return;
        }
        if self.w.in_slow_start() {
            self.w.slow_start(s.newly_acked_bytes as f64);
        }
        if s.snd_una > self.window_end {
            if self.samples > 0 {
                let q = self.sum_q_s / self.samples as f64;
                self.update(q);
            }
            self.sum_q_s = 0.0;
            self.samples = 0;
            self.window_end = s.snd_nxt;
        }
    }
    #[inline]
    fn on_ecn_echo(&mut self, _now: SimTime, _flight_bytes: u64) {}
    #[inline]
    fn reacts_to_ecn_once_per_window(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncongested_rtt_adds_one_segment_and_congested_follows_eqs_1_2() {
        let cfg = DxConfig {
            q_eps_s: 0.0,
            base_rtt_s: Some(100e-6),
            base_rtt_from_path: false,
            rtt_input: DxRttInput::Sample,
        };
        let mut d = Dx::new(&cfg, 1500, 10, 3);
        d.w.ssthresh = 0.0;
        d.update(0.0);
        assert_eq!(d.w.cwnd, 11.0 * 1500.0);
        // Q = 10 us, R0 = 100 us: W <- 11 - 0.1 * 10 = 10; equal to W(1 - Q/U), U = R0 W/(W-1)
        d.update(10e-6);
        let u = 100e-6 * 11.0 / 10.0;
        assert!((d.w.cwnd / 1500.0 - 11.0 * (1.0 - 10e-6 / u)).abs() < 1e-9);
        assert!((d.w.cwnd / 1500.0 - 10.0).abs() < 1e-9);
        // a huge delay cannot push W below one segment
        d.update(1.0);
        assert_eq!(d.w.cwnd, 1500.0);
        assert_eq!((d.increases, d.decreases), (1, 2));
    }

    fn ack(una: u64, nxt: u64, rtt_ns: u64) -> AckSample {
        AckSample {
            now: SimTime(0),
            newly_acked_bytes: 1500,
            ece: false,
            rtt: Some(SimDuration(rtt_ns * 1000)),
            snd_una: una,
            snd_nxt: nxt,
            in_recovery: false,
            flight_bytes: 3000,
        }
    }

    #[test]
    fn srtt_input_follows_ns3_rtt_mean_deviation_with_gain_one_eighth() {
        // R0 = 100 us; samples (ns) 100000, 108000, 116000 then back to 100000
        let cfg = DxConfig {
            q_eps_s: 1e-8,
            base_rtt_s: Some(100e-6),
            rtt_input: DxRttInput::Srtt,
            ..Default::default()
        };
        let mut d = Dx::new(&cfg, 1500, 2, 3);
        // congestion avoidance
        d.w.ssthresh = 0.0;
        // by hand: 100000; (800000 + 8000) >> 3 = 101000; (808000 + 15000) >> 3 = 102875;
        // (823000 - 2875) >> 3 = 102515 (floor of 102515.625)
        let mut seen = vec![];
        for m in [100_000i64, 108_000, 116_000, 100_000] {
            seen.push(d.rtt_seen(SimDuration(m as u64 * 1000)));
        }
        let want = [100_000e-9, 101_000e-9, 102_875e-9, 102_515e-9];
        for (a, b) in seen.iter().zip(want) {
            assert!((a - b).abs() < 1e-15, "{seen:?}");
        }
        // a sample below the estimate: the shift floors toward -inf, as ns-3's int64 >> does
        let mut d2 = Dx::new(&cfg, 1500, 2, 3);
        d2.rtt_seen(SimDuration(100_007_000));
        let s = d2.rtt_seen(SimDuration(100_000_000));
        // (800056 - 7) >> 3 = 100006
        assert!((s - 100_006e-9).abs() < 1e-15);
        // one RTT of ACKs: window end at 2, ACKs up to 3 with samples 100, 108, 116 us: the sample
        // input averages Q = (0 + 8 + 16)/3 = 8 us; the smoothed input (0 + 1 + 2.875)/3 us
        let run = |input| {
            let mut d = Dx::new(
                &DxConfig {
                    rtt_input: input,
                    ..cfg.clone()
                },
                1500,
                2,
                3,
            );
            d.w.ssthresh = 0.0;
            d.window_end = 2;
            for (k, m) in [(1u64, 100_000u64), (2, 108_000), (3, 116_000)] {
                d.on_ack(&ack(k, 4, m));
            }
            d.last_q_s
        };
        assert!((run(DxRttInput::Sample) - 8e-6).abs() < 1e-12);
        assert!((run(DxRttInput::Srtt) - 3.875e-6 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn rtt_input_defaults_to_the_sample_and_parses_srtt() {
        assert_eq!(DxConfig::default().rtt_input, DxRttInput::Sample);
        let c: DxConfig = serde_json::from_str(r#"{"rtt_input": "srtt"}"#).unwrap();
        assert_eq!(c.rtt_input, DxRttInput::Srtt);
        assert!(serde_json::from_str::<DxConfig>(r#"{"rtt_input": "ewma"}"#).is_err());
    }
}
