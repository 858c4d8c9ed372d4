//! HPCC, High Precision Congestion Control (Li, Miao, Liu, Zhuang, Feng, Tang, Cao, Zhang,
//! Krishnamurthy, Lloyd, Wang, Li, Yu, SIGCOMM 2019), the sender's reaction (section 3.3,
//! Algorithm 1) as a sans-IO state machine: the engine hands it the in-band telemetry of each
//! ACK ([`crate::int::IntRecord`], one per hop in path order) and reads back a window and a
//! pacing rate.
//!
//! HPCC is window-based: W bounds the bytes in flight, and the sender paces at R = W / T
//! (Algorithm 1 line 27, "R = W/T"), T the base RTT.
//!
//! Algorithm 1, restated:
//! - **MeasureInflight** (lines 1-10): for each hop i, with L the previous ACK's records,
//!   `txRate = (ack.L[i].txBytes - L[i].txBytes) / (ack.L[i].ts - L[i].ts)` and
//!   `u' = min(ack.L[i].qlen, L[i].qlen) / (ack.L[i].B x T) + txRate / ack.L[i].B` (eq. 2's
//!   normalized inflight bytes, I/(B T) = qlen/(B T) + txRate/B); u = the largest u', and tau
//!   the time between the two records of that hop; `tau = min(tau, T)`;
//!   `U = (1 - tau/T) U + (tau/T) u` (an EWMA over one base RTT).
//! - **ComputeWind** (lines 11-20): if `U >= eta` or `incStage >= maxStage`:
//!   `W = Wc / (U / eta) + W_AI` (multiplicative decrease towards the target, section 3.2
//!   eq. 4), and with `updateWc`: `incStage = 0, Wc = W`; else `W = Wc + W_AI` (additive
//!   increase), and with `updateWc`: `incStage += 1, Wc = W`.
//! - **NewAck** (lines 21-27): an ACK whose sequence number passes `lastUpdateSeq` updates the
//!   reference window Wc (once per RTT: `lastUpdateSeq = snd_nxt`); every other ACK reacts
//!   with `W` computed from the unchanged Wc (the per-ACK reaction of section 3.2, "fast
//!   reaction without overreaction"); `L = ack.L`.
//!
//! Choices the paper leaves open, taken as the authors' ns-3 model (`RdmaHw::UpdateRateHp`)
//! takes them: the first ACK only stores its records (there is no previous L) and sets
//! `lastUpdateSeq = snd_nxt`; U starts at 1 (the flow starts at line rate); a hop whose two
//! records carry the same time is skipped (no rate can be measured), and an ACK with no
//! measurable hop leaves W unchanged; a list of another length than L (a new path) replaces L
//! without a measurement (as htsim's `measureInFlight`); W stays within
//! [`min_rate_bps` x T, W_init], `W_init = B_NIC x T` (section 3.3: flows start at line rate).
//!
//! Parameters (section 3.3, "Parameters"): eta = 0.95; maxStage = 5; W_AI = W_init (1 - eta) / N
//! with N the expected largest number of concurrent flows on a link (the total additive
//! increase per round then stays within the headroom 1 - eta); N defaults to 10 (htsim's
//! `HPCCSrc::_N`). T defaults to the flow's base RTT (the engine's path RTT).

use crate::error::ScenarioError;
use crate::int::IntRecord;
use crate::scenario::fmt_f;
use crate::units::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most hops HPCC keeps the previous records of (a 3-tier fat-tree path has 5 switch ports):
/// [`crate::int::MAX_INT_HOPS`]; a scenario whose HPCC flow crosses more INT ports is refused
/// when it is built (`crate::int::check_route_hops`).
pub const HPCC_MAX_HOPS: usize = crate::int::MAX_INT_HOPS;

fn d_eta() -> f64 {
    0.95
}
fn d_max_stage() -> u32 {
    5
}
fn d_flows() -> u32 {
    10
}
fn d_min_rate() -> f64 {
    100e6
}

/// `[hpcc]`: HPCC's parameters (Li et al., SIGCOMM 2019, section 3.3).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HpccConfig {
    /// Target utilization eta, in (0, 1]: the window shrinks when the most loaded hop's normalized inflight bytes U reach eta. Default 0.95 (section 3.3).
    #[serde(default = "d_eta")]
    pub eta: f64,
    /// maxStage: additive-increase rounds (per-RTT updates) before a multiplicative adjustment towards eta is forced, 0 to 1000. Default 5 (section 3.3).
    #[serde(default = "d_max_stage")]
    pub max_stage: u32,
    /// Additive increase W_AI per update, bytes (> 0). Default W_init x (1 - eta) / flows_per_link, W_init = the NIC's rate x T (section 3.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_ai_bytes: Option<f64>,
    /// N, the expected largest number of concurrent flows on a link, for the default W_AI (>= 1). Default 10.
    #[serde(default = "d_flows")]
    pub flows_per_link: u32,
    /// Base RTT T, seconds (> 0): the EWMA horizon, the window-to-rate divisor and the line-rate window's length. Default: the flow's path RTT (propagation plus one data packet's and one ACK's serialization per hop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_rtt_s: Option<f64>,
    /// Smallest pacing rate W/T, bits/s (> 0): the window never falls below min_rate_bps x T. Default 100e6 (the authors' ns-3 MinRate).
    #[serde(default = "d_min_rate")]
    pub min_rate_bps: f64,
}

impl Default for HpccConfig {
    fn default() -> Self {
        HpccConfig {
            eta: d_eta(),
            max_stage: d_max_stage(),
            w_ai_bytes: None,
            flows_per_link: d_flows(),
            base_rtt_s: None,
            min_rate_bps: d_min_rate(),
        }
    }
}

impl HpccConfig {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if !(self.eta.is_finite() && self.eta > 0.0 && self.eta <= 1.0) {
            return Err(ScenarioError::new(
                format!("{path}.eta"),
                fmt_f(self.eta),
                "must be in (0, 1] (target utilization)",
            ));
        }
        if self.max_stage > 1000 {
            return Err(ScenarioError::new(
                format!("{path}.max_stage"),
                self.max_stage,
                "must be from 0 to 1000",
            ));
        }
        if let Some(w) = self.w_ai_bytes {
            if !(w.is_finite() && w > 0.0) {
                return Err(ScenarioError::new(
                    format!("{path}.w_ai_bytes"),
                    fmt_f(w),
                    "must be a finite number > 0 (bytes)",
                ));
            }
        }
        if self.flows_per_link == 0 {
            return Err(ScenarioError::new(
                format!("{path}.flows_per_link"),
                0,
                "must be >= 1",
            ));
        }
        if let Some(t) = self.base_rtt_s {
            if !(t.is_finite() && (1e-12..=1e3).contains(&t)) {
                return Err(ScenarioError::new(
                    format!("{path}.base_rtt_s"),
                    fmt_f(t),
                    "must be from 1e-12 to 1000 s",
                ));
            }
        }
        if !(self.min_rate_bps.is_finite() && self.min_rate_bps > 0.0) {
            return Err(ScenarioError::new(
                format!("{path}.min_rate_bps"),
                fmt_f(self.min_rate_bps),
                "must be a finite number > 0 (bits/s)",
            ));
        }
        Ok(())
    }
}

/// What one ACK did (for tests and traces).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HpccStep {
    /// The ACK updated the reference window (it passed lastUpdateSeq).
    pub updated_wc: bool,
    /// The largest per-hop u' of this ACK (NaN when nothing was measured).
    pub u_max: f64,
    /// U after the ACK.
    pub u: f64,
    /// W after the ACK, bytes.
    pub w: f64,
}

/// One HPCC sender's state.
#[derive(Clone, Debug)]
pub struct Hpcc {
    eta: f64,
    max_stage: u32,
    w_ai: f64,
    /// T, seconds.
    t_s: f64,
    w_init: f64,
    w_min: f64,
    /// Current window W, bytes.
    w: f64,
    /// Reference window Wc, bytes.
    wc: f64,
    /// Normalized inflight bytes U (EWMA).
    u: f64,
    inc_stage: u32,
    last_update_seq: u64,
    /// The previous ACK's records (L), `n_prev` of them; None before the first ACK.
    prev: [IntRecord; HPCC_MAX_HOPS],
    n_prev: usize,
    started: bool,
    acks: u64,
}

impl Hpcc {
    /// `nic_rate_bps`: the sender's line rate B_NIC; `base_rtt`: T when the config gives none.
    pub fn new(cfg: &HpccConfig, nic_rate_bps: f64, base_rtt: SimDuration) -> Hpcc {
        let t_s = cfg.base_rtt_s.unwrap_or(base_rtt.as_secs_f64()).max(1e-12);
        let w_init = nic_rate_bps / 8.0 * t_s;
        let w_ai = cfg
            .w_ai_bytes
            .unwrap_or(w_init * (1.0 - cfg.eta) / cfg.flows_per_link as f64);
        let w_min = (cfg.min_rate_bps / 8.0 * t_s).min(w_init);
        Hpcc {
            eta: cfg.eta,
            max_stage: cfg.max_stage,
            w_ai,
            t_s,
            w_init,
            w_min,
            w: w_init,
            wc: w_init,
            u: 1.0,
            inc_stage: 0,
            last_update_seq: 0,
            prev: [IntRecord::default(); HPCC_MAX_HOPS],
            n_prev: 0,
            started: false,
            acks: 0,
        }
    }

    /// Window W, bytes (the cap on bytes in flight).
    pub fn cwnd_bytes(&self) -> f64 {
        self.w
    }

    /// Reference window Wc, bytes.
    pub fn reference_window_bytes(&self) -> f64 {
        self.wc
    }

    /// Pacing rate R = W / T, bits/s.
    pub fn rate_bps(&self) -> f64 {
        self.w * 8.0 / self.t_s
    }

    /// U, the EWMA of the most loaded hop's normalized inflight bytes.
    pub fn utilization(&self) -> f64 {
        self.u
    }

    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }

    pub fn last_update_seq(&self) -> u64 {
        self.last_update_seq
    }

    /// W_AI, bytes.
    pub fn w_ai_bytes(&self) -> f64 {
        self.w_ai
    }

    /// W_init = B_NIC x T, bytes.
    pub fn w_init_bytes(&self) -> f64 {
        self.w_init
    }

    /// T, seconds.
    pub fn base_rtt_s(&self) -> f64 {
        self.t_s
    }

    /// ACKs seen.
    pub fn acks(&self) -> u64 {
        self.acks
    }

    /// Algorithm 1's NewAck: an ACK acknowledging up to `ack_seq` (the sequence number the
    /// algorithm compares with lastUpdateSeq) arrives carrying `int` (one record per hop, path
    /// order); `snd_nxt` is the next sequence number the sender would send.
    pub fn on_int_ack(
        &mut self,
        _now: SimTime,
        ack_seq: u64,
        snd_nxt: u64,
        int: &[IntRecord],
    ) -> HpccStep {
        self.acks += 1;
        // the build refuses a longer route (`crate::int::check_route_hops`)
        debug_assert!(int.len() <= HPCC_MAX_HOPS, "{} INT records", int.len());
        let int = &int[..int.len().min(HPCC_MAX_HOPS)];
        if !self.started || int.len() != self.n_prev {
            // no previous L (or a new path): store the records, measure from the next ACK
            if !self.started {
                self.last_update_seq = snd_nxt;
                self.started = true;
            }
            self.store(int);
            return self.step(false, f64::NAN);
        }
        let update_wc = ack_seq > self.last_update_seq;
        let u_max = self.measure_inflight(int);
        self.store(int);
        if u_max.is_nan() {
            // no hop's time advanced: nothing measured, nothing changes
            if update_wc {
                self.last_update_seq = snd_nxt;
            }
            return self.step(update_wc, u_max);
        }
        self.compute_wind(update_wc);
        if update_wc {
            self.last_update_seq = snd_nxt;
        }
        self.step(update_wc, u_max)
    }

    fn step(&self, updated_wc: bool, u_max: f64) -> HpccStep {
        HpccStep {
            updated_wc,
            u_max,
            u: self.u,
            w: self.w,
        }
    }

    fn store(&mut self, int: &[IntRecord]) {
        self.prev[..int.len()].copy_from_slice(int);
        self.n_prev = int.len();
    }

    /// MeasureInflight (Algorithm 1 lines 1-10): updates U; returns the largest u' (NaN when
    /// no hop's records are apart in time).
    fn measure_inflight(&mut self, int: &[IntRecord]) -> f64 {
        let t = self.t_s;
        let mut u = f64::NAN;
        let mut tau = t;
        for (now, before) in int.iter().zip(&self.prev[..self.n_prev]) {
            if now.ts <= before.ts {
                continue;
            }
            let dt = (now.ts.0 - before.ts.0) as f64 * 1e-12;
            let b = now.rate_bps as f64 / 8.0; // bytes/s
            let tx_rate = now.tx_bytes.saturating_sub(before.tx_bytes) as f64 / dt;
            let q = now.qlen_bytes.min(before.qlen_bytes) as f64;
            let u_hop = q / (b * t) + tx_rate / b;
            if u.is_nan() || u_hop > u {
                u = u_hop;
                tau = dt;
            }
        }
        if !u.is_nan() {
            let tau = tau.min(t);
            self.u = (1.0 - tau / t) * self.u + tau / t * u;
        }
        u
    }

    /// ComputeWind (Algorithm 1 lines 11-20), W kept within [w_min, W_init].
    fn compute_wind(&mut self, update_wc: bool) {
        let w = if self.u >= self.eta || self.inc_stage >= self.max_stage {
            let w = self.wc / (self.u / self.eta) + self.w_ai;
            if update_wc {
                self.inc_stage = 0;
            }
            w
        } else {
            if update_wc {
                self.inc_stage += 1;
            }
            self.wc + self.w_ai
        };
        self.w = w.clamp(self.w_min, self.w_init);
        if update_wc {
            self.wc = self.w;
        }
    }
}

/// HPCC as an RDMA source's controller: no feedback frames, CNPs or timer; the engine feeds it
/// each ACK's telemetry through [`Hpcc::on_int_ack`] (the trait's `on_ack` carries no
/// telemetry), caps the bytes in flight at W and paces at W / T.
impl super::RateControl for Hpcc {
    fn rate_bps(&self) -> f64 {
        Hpcc::rate_bps(self)
    }
    /// The window caps the bytes in flight (the transport sends while fewer are in flight).
    fn window_bytes(&self) -> Option<u64> {
        Some(self.w.ceil() as u64)
    }
    fn probe(&self, p: &mut super::RateProbe) {
        p.rate_bps = Hpcc::rate_bps(self);
        p.target_rate_bps = f64::NAN;
        p.bc_stage = self.inc_stage;
        p.timer_stage = 0;
        p.active = true;
        p.feedbacks = self.acks;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GBPS100: u64 = 100_000_000_000;
    const T_PS: u64 = 10_000_000; // 10 us

    fn cfg() -> HpccConfig {
        HpccConfig::default()
    }

    fn hpcc() -> Hpcc {
        Hpcc::new(&cfg(), GBPS100 as f64, SimDuration(T_PS))
    }

    /// One hop's record at time `t_ps` with `tx` bytes sent and queue `q`.
    fn rec(t_ps: u64, tx: u64, q: u64) -> IntRecord {
        IntRecord {
            ts: SimTime(t_ps),
            tx_bytes: tx,
            qlen_bytes: q,
            rate_bps: GBPS100,
        }
    }

    /// Bytes a 100 Gb/s link sends in `ps` picoseconds at utilization `x`.
    fn bytes(ps: u64, x: f64) -> u64 {
        (GBPS100 as f64 / 8.0 * ps as f64 * 1e-12 * x).round() as u64
    }

    #[test]
    fn defaults_are_the_papers_and_w_ai_follows_the_guidance() {
        let h = hpcc();
        // W_init = B x T = 12.5 GB/s x 10 us = 125 000 B; W_AI = W_init (1 - 0.95) / 10
        assert!((h.w_init_bytes() - 125_000.0).abs() < 1e-6);
        assert!((h.w_ai_bytes() - 625.0).abs() < 1e-9);
        assert!((h.cwnd_bytes() - 125_000.0).abs() < 1e-6);
        assert!((h.rate_bps() - GBPS100 as f64).abs() < 1.0);
        assert_eq!((cfg().eta, cfg().max_stage), (0.95, 5));
    }

    #[test]
    fn u_is_queue_over_bdp_plus_tx_rate_over_b_with_the_smaller_queue_and_an_ewma_over_tau() {
        let mut h = hpcc();
        // first ACK: stored only
        let s = h.on_int_ack(SimTime(0), 1, 10, &[rec(0, 0, 50_000)]);
        assert!(s.u_max.is_nan() && s.u == 1.0 && s.w == h.w_init_bytes());
        // T/2 later the hop sent at 80 % of B; queues 50 000 then 25 000 (min 25 000 = 0.2 BDP)
        let dt = T_PS / 2;
        let s = h.on_int_ack(SimTime(dt), 2, 10, &[rec(dt, bytes(dt, 0.8), 25_000)]);
        let u_hop = 25_000.0 / 125_000.0 + 0.8;
        assert!((s.u_max - u_hop).abs() < 1e-9, "{}", s.u_max);
        // U = (1 - tau/T) U + tau/T u with tau = T/2, U was 1
        assert!((s.u - (0.5 * 1.0 + 0.5 * u_hop)).abs() < 1e-9, "{}", s.u);
        // tau is capped at T: a gap of 3 T replaces U by u
        let t2 = dt + 3 * T_PS;
        let s = h.on_int_ack(
            SimTime(t2),
            3,
            10,
            &[rec(t2, bytes(dt, 0.8) + bytes(3 * T_PS, 0.5), 0)],
        );
        assert!((s.u - 0.5).abs() < 1e-9, "{}", s.u);
    }

    #[test]
    fn the_most_loaded_hop_sets_u_and_its_tau() {
        let mut h = hpcc();
        h.on_int_ack(SimTime(0), 1, 10, &[rec(0, 0, 0), rec(0, 0, 0)]);
        // hop 0: 50 % over T/4; hop 1: 100 % + 10 % of BDP queued (both samples) over T/2
        let (d0, d1) = (T_PS / 4, T_PS / 2);
        let s = h.on_int_ack(
            SimTime(d1),
            2,
            10,
            &[rec(d0, bytes(d0, 0.5), 0), rec(d1, bytes(d1, 1.0), 12_500)],
        );
        // min(q, q_prev) = min(12 500, 0) = 0: the hop's u' is its rate only
        assert!((s.u_max - 1.0).abs() < 1e-9, "{}", s.u_max);
        assert!((s.u - (0.5 * 1.0 + 0.5 * 1.0)).abs() < 1e-9);
        let t = d1 + T_PS / 2;
        let s = h.on_int_ack(
            SimTime(t),
            3,
            10,
            &[
                rec(t, bytes(d0, 0.5) + bytes(t - d0, 0.5), 0),
                rec(t, bytes(t, 1.0), 12_500),
            ],
        );
        assert!((s.u_max - 1.1).abs() < 1e-9, "{}", s.u_max);
    }

    /// Feed ACKs whose single hop reports utilization `x` (no queue), one every T/10,
    /// acknowledging `ack` with `snd_nxt`.
    fn feed(h: &mut Hpcc, t: &mut u64, tx: &mut u64, x: f64, ack: u64, snd_nxt: u64) -> HpccStep {
        let dt = T_PS / 10;
        *t += dt;
        *tx += bytes(dt, x);
        h.on_int_ack(SimTime(*t), ack, snd_nxt, &[rec(*t, *tx, 0)])
    }

    #[test]
    fn the_reference_window_changes_once_per_rtt_and_every_ack_reacts() {
        let mut h = hpcc();
        let (mut t, mut tx) = (0u64, 0u64);
        h.on_int_ack(SimTime(0), 1, 100, &[rec(0, 0, 0)]); // lastUpdateSeq = 100
        assert_eq!(h.last_update_seq(), 100);
        // a congested hop (U well above eta), acks below lastUpdateSeq: W reacts per ACK from
        // the unchanged Wc, which stays W_init
        let mut ws = vec![];
        for a in 2..=100 {
            let s = feed(&mut h, &mut t, &mut tx, 1.5, a, 150);
            assert!(!s.updated_wc);
            ws.push(s.w);
            let want = (h.w_init_bytes() / (s.u / 0.95) + h.w_ai_bytes()).max(h.w_min);
            assert!((s.w - want).abs() < 1e-6, "ack {a}: {} vs {want}", s.w);
            assert_eq!(h.reference_window_bytes(), h.w_init_bytes());
        }
        // the window follows U (which rises towards 1.5): per-ACK reaction, not once per RTT
        assert!(ws.windows(2).all(|p| p[1] <= p[0]) && ws[ws.len() - 1] < ws[0]);
        // the first ACK past lastUpdateSeq moves Wc to W and sets lastUpdateSeq = snd_nxt
        let s = feed(&mut h, &mut t, &mut tx, 1.5, 101, 180);
        assert!(s.updated_wc);
        assert_eq!(h.reference_window_bytes(), s.w);
        assert_eq!(h.last_update_seq(), 180);
        assert_eq!(h.inc_stage(), 0);
    }

    #[test]
    fn below_eta_the_window_grows_by_w_ai_per_rtt_for_max_stage_rounds_then_moves_to_eta() {
        let c = HpccConfig {
            w_ai_bytes: Some(1000.0),
            ..cfg()
        };
        let mut h = Hpcc::new(&c, GBPS100 as f64, SimDuration(T_PS));
        let (mut t, mut tx) = (0u64, 0u64);
        h.on_int_ack(SimTime(0), 1, 1, &[rec(0, 0, 0)]);
        // bring U down to 0.5 (light load) with a burst of per-RTT updates: the first one is
        // a multiplicative step (U starts at 1 >= eta), the following ones add W_AI
        let mut seq = 1;
        for _ in 0..40 {
            seq += 1;
            feed(&mut h, &mut t, &mut tx, 0.5, seq, seq);
        }
        // now U ~ 0.5 < eta: stages count 1, 2, ..., maxStage while Wc grows by W_AI each
        // round; at incStage = maxStage the window jumps to Wc / (U / eta) + W_AI
        let mut seen = vec![];
        for _ in 0..12 {
            let wc0 = h.reference_window_bytes();
            let st0 = h.inc_stage();
            seq += 1;
            let s = feed(&mut h, &mut t, &mut tx, 0.5, seq, seq);
            assert!(s.updated_wc);
            if st0 < 5 {
                assert_eq!(h.inc_stage(), st0 + 1);
                assert!((s.w - (wc0 + 1000.0).min(h.w_init_bytes())).abs() < 1e-6);
            } else {
                assert_eq!(h.inc_stage(), 0);
                let want = (wc0 / (s.u / 0.95) + 1000.0).clamp(h.w_min, h.w_init_bytes());
                assert!((s.w - want).abs() < 1e-6);
            }
            seen.push(h.inc_stage());
        }
        assert!(seen.contains(&5) && seen.contains(&0), "{seen:?}");
    }

    #[test]
    fn a_steady_load_settles_where_u_equals_eta() {
        // a fluid loop: one flow alone on a 100 Gb/s hop whose sending rate is W/T; the hop's
        // utilization is min(1, R/B) and its queue grows by the excess. HPCC's fixed point is
        // U = eta (section 3.2): the rate settles near eta x B plus W_AI's share.
        let mut h = hpcc();
        let (mut t, mut tx, mut q) = (0u64, 0u64, 0f64);
        let dt = T_PS / 10;
        let mut seq = 0u64;
        let b = GBPS100 as f64 / 8.0;
        let mut rates = vec![];
        for i in 0..4000 {
            let r = h.rate_bps() / 8.0;
            let sent = (r * dt as f64 * 1e-12).min(b * dt as f64 * 1e-12 + q);
            q = (q + r * dt as f64 * 1e-12 - sent).max(0.0);
            t += dt;
            tx += sent.round() as u64;
            seq += 1;
            h.on_int_ack(SimTime(t), seq, seq + 10, &[rec(t, tx, q.round() as u64)]);
            if i >= 3000 {
                rates.push(h.rate_bps() / GBPS100 as f64);
            }
        }
        let mean = rates.iter().sum::<f64>() / rates.len() as f64;
        // the fixed point of W = Wc / (U / eta) + W_AI with U = W/W_init: W/W_init = eta + a
        // few W_AI (0.5 % of W_init each)
        assert!((0.95..=0.99).contains(&mean), "mean rate {mean}");
        assert!(h.utilization() < 1.0);
    }

    #[test]
    fn eta_outside_zero_one_is_refused_naming_the_field() {
        for bad in [0.0, -0.1, 1.01, f64::NAN, f64::INFINITY] {
            let c = HpccConfig { eta: bad, ..cfg() };
            let e = c.validate("hpcc").unwrap_err();
            assert_eq!(e.path, "hpcc.eta", "{e}");
            assert!(e.to_string().contains("(0, 1]"), "{e}");
        }
        assert!(HpccConfig { eta: 1.0, ..cfg() }.validate("hpcc").is_ok());
        for (c, field) in [
            (
                HpccConfig {
                    max_stage: 1001,
                    ..cfg()
                },
                "hpcc.max_stage",
            ),
            (
                HpccConfig {
                    w_ai_bytes: Some(0.0),
                    ..cfg()
                },
                "hpcc.w_ai_bytes",
            ),
            (
                HpccConfig {
                    flows_per_link: 0,
                    ..cfg()
                },
                "hpcc.flows_per_link",
            ),
            (
                HpccConfig {
                    base_rtt_s: Some(0.0),
                    ..cfg()
                },
                "hpcc.base_rtt_s",
            ),
            (
                HpccConfig {
                    min_rate_bps: 0.0,
                    ..cfg()
                },
                "hpcc.min_rate_bps",
            ),
        ] {
            assert_eq!(c.validate("hpcc").unwrap_err().path, field);
        }
    }

    #[test]
    fn a_new_path_length_replaces_l_without_a_measurement() {
        let mut h = hpcc();
        h.on_int_ack(SimTime(0), 1, 10, &[rec(0, 0, 0)]);
        let s = h.on_int_ack(SimTime(T_PS), 2, 10, &[rec(T_PS, 0, 0), rec(T_PS, 0, 0)]);
        assert!(s.u_max.is_nan() && s.u == 1.0);
        // an ACK echoing the same records (no time between them) changes nothing
        let s = h.on_int_ack(SimTime(T_PS), 3, 10, &[rec(T_PS, 0, 0), rec(T_PS, 0, 0)]);
        assert!(s.u_max.is_nan() && s.w == h.w_init_bytes());
    }
}
