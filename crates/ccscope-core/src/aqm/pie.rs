//! PIE, "Proportional Integral Controller Enhanced" (R. Pan, P. Natarajan, F. Baker, G. White,
//! RFC 8033, February 2017): drop (or mark) arrivals at enqueue with a probability that a
//! proportional-integral controller updates every `T_UPDATE` from the queueing delay.
//!
//! The rules, with the RFC's sections (Appendix A is the basic pseudocode, Appendix B the one
//! with the optional elements):
//! - **Random dropping** (§4.1): an arrival is enqueued without a draw when the queue is not
//!   congested, `qdelay_old < QDELAY_REF/2 && drop_prob < 0.2`, or when at most two mean-size
//!   packets wait (`queue bytes <= 2 * MEAN_PKTSIZE`, MEAN_PKTSIZE = the scenario's
//!   `packet_bytes`); otherwise it is dropped with probability `drop_prob`.
//! - **Drop probability** (§4.2), every `T_UPDATE`:
//!   `p = alpha (qdelay - QDELAY_REF) + beta (qdelay - qdelay_old)` (delays in seconds, alpha and
//!   beta in 1/s), scaled down by the §4.2 table while `drop_prob` is small (/2048 below 1e-6,
//!   /512 below 1e-5, /128 below 1e-4, /32 below 1e-3, /8 below 1e-2, /2 below 0.1, /1 above),
//!   capped at +0.02 per update once `drop_prob >= 0.1` (cap drop adjustment, §5.5), added to
//!   `drop_prob`; then `drop_prob *= 0.98` when `qdelay == 0 && qdelay_old == 0` (the decay of
//!   §4.2 step 3); then bounded to [0, 1]; `qdelay_old = qdelay`. alpha and beta are not rescaled
//!   when `t_update_s` changes (as in ns-3 and Linux): the RFC notes that a shorter update
//!   interval with the same weights is a higher gain.
//! - **Burst tolerance** (§4.4): an arrival is enqueued without a draw while `burst_allowance >
//!   0`; each update lowers it by `T_UPDATE` (not below 0); an arrival that finds `drop_prob ==
//!   0` and both its own and the previous delay below `QDELAY_REF/2` resets it to `MAX_BURST`
//!   (so the first burst after a calm period passes).
//! - **ECN** (§5.1): with `ecn`, an ECN-capable arrival that would be dropped is CE-marked
//!   instead while `drop_prob < ecn_max_p` (the RFC's `mark_ecnth`, 0.1).
//! - **Derandomization** (§5.4, optional, `derandomize`): `accu_prob += drop_prob` per arrival
//!   that reaches the draw (reset to 0 while `drop_prob == 0`); no drop while `accu_prob < 0.85`,
//!   a drop without a draw once `accu_prob >= 8.5`; `accu_prob` restarts at 0 after each drop or
//!   mark. Off by default, as in ns-3's PieQueueDisc (`UseDerandomization`); Linux's sch_pie always
//!   applies it.
//! - Not modelled: the dequeue-rate estimator (§5.2, not needed: see below), PIE's
//!   active/inactive states (§5.3), byte mode, and Linux's extra +2 % per update above 250 ms.
//!
//! **The queueing delay.** RFC 8033 §4.3 obtains the delay either from the queue length and an
//! estimate of the departure rate (`qdelay = queue_bytes / depart_rate`, §5.2 measures the rate) or
//! from per-packet timestamps (Linux's default since 4.x: the sojourn of the last packet
//! dequeued). On a port of fixed rate on the committed FIFO neither estimate is needed: the
//! port's link finishes the work it has accepted at `QueueView::drained_at` (the end of the last
//! committed transmission), so a packet arriving at `t` starts its transmission `max(0,
//! drained_at - t)` later, exactly. That is what the timestamp method measures for this packet
//! (enqueue to start of transmission), known at enqueue instead of one sojourn later, and what
//! §4.3's `queue_bytes / depart_rate` estimates (with the rate exact, and the rest of the packet
//! on the wire counted). PIE uses it: `qdelay(t) = max(0, drained_at - t)`; it is 0 only when the
//! link is idle, which the §4.2 decay condition reads as "no congestion". On the general path
//! (traffic classes) the port reports `drained_at` as the end of the transmission in progress plus
//! the waiting bytes at line rate: the drain time of the whole port, exact for one class up to the
//! picosecond rounding of serialization times.
//!
//! **The update timer, exactly, without events.** The updates fall at `k * T_UPDATE` (k >= 1).
//! PIE's state is read only when a packet arrives, and on the committed FIFO `drained_at` changes
//! only when the port accepts a packet: between two arrivals the delay at an update time `T` is
//! `max(0, drained_at - T)` with the `drained_at` seen by the later arrival. So each arrival first
//! runs, in order, every update that fell due since the previous one (an update at the very
//! instant of an arrival comes first), each with the delay a timer would have read at its time,
//! and PIE's state is bit for bit what a timer event every `T_UPDATE` would have left. After an
//! idle period the catch-up stops once the state is at rest (`drop_prob == 0`, `qdelay_old == 0`,
//! no burst allowance, the link idle), where every further update leaves it unchanged, and moves to
//! the next due time at once. This costs no event and lets the one-hop lookahead feed the port
//! ahead (its decisions follow from its own arrivals). On the general path a transmission can
//! start between arrivals, but `drained_at` (end of transmission in progress + waiting bytes at
//! line rate) is unchanged by it, so the same catch-up holds up to that rounding.

use super::{Decision, QueuePolicy, QueueView, Verdict};
use crate::error::ScenarioError;
use crate::packet::{flags, Packet};
use crate::rng::Rng;
use crate::scenario::fmt_f;
use crate::units::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn d_target() -> f64 {
    0.015
}
fn d_t_update() -> f64 {
    0.015
}
fn d_alpha() -> f64 {
    0.125
}
fn d_beta() -> f64 {
    1.25
}
fn d_max_burst() -> f64 {
    0.15
}
fn d_ecn_max_p() -> f64 {
    0.1
}

/// The shortest update interval accepted, seconds: the updates run at every arrival that finds
/// one due, so a shorter interval would cost more than the packets.
pub const MIN_T_UPDATE_S: f64 = 1e-6;

/// `aqm.kind = "pie"`: RFC 8033's parameters (Appendix A defaults).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieConfig {
    /// QDELAY_REF, the queueing delay PIE steers to, seconds (> 0). Default 0.015 (RFC 8033 §4.2).
    #[serde(default = "d_target")]
    pub target_s: f64,
    /// T_UPDATE, the interval between drop-probability updates, seconds (>= 1e-6). Default 0.015 (RFC 8033 §4.2).
    #[serde(default = "d_t_update")]
    pub t_update_s: f64,
    /// Weight of the delay's distance from the target, 1/s (> 0). Default 0.125 (RFC 8033 Appendix A).
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    /// Weight of the delay's change since the last update, 1/s (>= 0). Default 1.25 (RFC 8033 Appendix A).
    #[serde(default = "d_beta")]
    pub beta: f64,
    /// MAX_BURST, how long a burst passes without random drops after a calm period, seconds (>= 0). Default 0.15 (RFC 8033 §4.4).
    #[serde(default = "d_max_burst")]
    pub max_burst_s: f64,
    /// CE-mark ECN-capable packets instead of dropping them while the drop probability is below ecn_max_p. Default false (RFC 8033 §5.1).
    #[serde(default)]
    pub ecn: bool,
    /// With ecn: the drop probability from which ECN-capable packets are dropped too, in (0, 1]. Default 0.1 (RFC 8033 §5.1 mark_ecnth).
    #[serde(default = "d_ecn_max_p")]
    pub ecn_max_p: f64,
    /// Derandomization (RFC 8033 §5.4): accumulate the drop probability over arrivals; no drop below 0.85, a sure drop from 8.5. Default false (ns-3's default; Linux always applies it).
    #[serde(default)]
    pub derandomize: bool,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target_s: d_target(),
            t_update_s: d_t_update(),
            alpha: d_alpha(),
            beta: d_beta(),
            max_burst_s: d_max_burst(),
            ecn: false,
            ecn_max_p: d_ecn_max_p(),
            derandomize: false,
        }
    }
}

impl PieConfig {
    /// Ranges, with errors naming `path.field`.
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let err = |f: &str, v: f64, allowed: &str| {
            Err(ScenarioError::new(format!("{path}.{f}"), fmt_f(v), allowed))
        };
        let max_t = crate::scenario::MAX_TIME_S;
        if !(self.target_s.is_finite() && self.target_s >= 1e-12 && self.target_s <= max_t) {
            return err(
                "target_s",
                self.target_s,
                &format!("must be a time in [1e-12, {max_t}] s (the queueing delay PIE steers to)"),
            );
        }
        if !(self.t_update_s.is_finite()
            && self.t_update_s >= MIN_T_UPDATE_S
            && self.t_update_s <= max_t)
        {
            return err(
                "t_update_s",
                self.t_update_s,
                &format!("must be a time in [{MIN_T_UPDATE_S:e}, {max_t}] s (the drop probability is updated that often)"),
            );
        }
        if !(self.alpha.is_finite() && self.alpha > 0.0) {
            return err("alpha", self.alpha, "must be a finite number > 0 (1/s)");
        }
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return err("beta", self.beta, "must be a finite number >= 0 (1/s)");
        }
        if !(self.max_burst_s.is_finite() && self.max_burst_s >= 0.0 && self.max_burst_s <= max_t) {
            return err(
                "max_burst_s",
                self.max_burst_s,
                &format!("must be a time in [0, {max_t}] s"),
            );
        }
        if !(self.ecn_max_p.is_finite() && self.ecn_max_p > 0.0 && self.ecn_max_p <= 1.0) {
            return err("ecn_max_p", self.ecn_max_p, "must be in (0, 1]");
        }
        Ok(())
    }
}

/// The §4.2 table: the divisor of the update while the drop probability is small, so that a
/// small probability moves in small steps.
pub fn auto_scale(drop_prob: f64) -> f64 {
    if drop_prob < 0.000001 {
        2048.0
    } else if drop_prob < 0.00001 {
        512.0
    } else if drop_prob < 0.0001 {
        128.0
    } else if drop_prob < 0.001 {
        32.0
    } else if drop_prob < 0.01 {
        8.0
    } else if drop_prob < 0.1 {
        2.0
    } else {
        1.0
    }
}

/// PIE's state at one port.
#[derive(Clone, Debug)]
pub struct Pie {
    target: SimDuration,
    t_update: SimDuration,
    alpha: f64,
    beta: f64,
    max_burst: SimDuration,
    ecn: bool,
    ecn_max_p: f64,
    derandomize: bool,
    /// MEAN_PKTSIZE, bytes.
    mean_pkt_bytes: u64,
    /// drop_prob_.
    drop_prob: f64,
    /// accu_prob_ (derandomization).
    accu_prob: f64,
    qdelay_old: SimDuration,
    burst_allowance: SimDuration,
    /// When the next update falls due.
    next_update: SimTime,
    /// Updates run so far (timer ticks, including those skipped at rest).
    updates: u64,
}

impl Pie {
    /// PIE at a port whose mean packet size is `packet_bytes`.
    pub fn new(cfg: &PieConfig, packet_bytes: u32) -> Self {
        let t_update = SimDuration::from_secs_f64(cfg.t_update_s).max(SimDuration(1));
        Pie {
            target: SimDuration::from_secs_f64(cfg.target_s),
            t_update,
            alpha: cfg.alpha,
            beta: cfg.beta,
            max_burst: SimDuration::from_secs_f64(cfg.max_burst_s),
            ecn: cfg.ecn,
            ecn_max_p: cfg.ecn_max_p,
            derandomize: cfg.derandomize,
            mean_pkt_bytes: packet_bytes as u64,
            drop_prob: 0.0,
            accu_prob: 0.0,
            qdelay_old: SimDuration::ZERO,
            burst_allowance: SimDuration::ZERO,
            next_update: SimTime(t_update.0),
            updates: 0,
        }
    }

    /// The drop probability now (as of the last update run).
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }
    pub fn burst_allowance(&self) -> SimDuration {
        self.burst_allowance
    }
    pub fn qdelay_old(&self) -> SimDuration {
        self.qdelay_old
    }
    /// Updates run so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// `d < QDELAY_REF / 2`, in whole picoseconds.
    #[inline]
    fn below_half_target(&self, d: SimDuration) -> bool {
        d.0.saturating_mul(2) < self.target.0
    }

    /// One update of the drop probability with the queueing delay `qdelay` (§4.2, §4.4, §5.5).
    pub fn update(&mut self, qdelay: SimDuration) {
        let q = qdelay.as_secs_f64();
        let old = self.qdelay_old.as_secs_f64();
        let r = self.target.as_secs_f64();
        let mut p = self.alpha * (q - r) + self.beta * (q - old);
        p /= auto_scale(self.drop_prob);
        if self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        let mut prob = self.drop_prob + p;
        if qdelay == SimDuration::ZERO && self.qdelay_old == SimDuration::ZERO {
            prob *= 0.98;
        }
        self.drop_prob = prob.clamp(0.0, 1.0);
        self.qdelay_old = qdelay;
        self.burst_allowance = SimDuration(self.burst_allowance.0.saturating_sub(self.t_update.0));
        self.updates += 1;
    }

    /// Run every update due by `now` (the timer's ticks at k * T_UPDATE), each with the delay at
    /// its own time given that the link finishes its accepted work at `drained_at` (constant since
    /// the previous arrival: see the module's notes).
    pub fn catch_up(&mut self, now: SimTime, drained_at: SimTime) {
        while self.next_update <= now {
            let t = self.next_update;
            let qdelay = drained_at.saturating_sub(t);
            self.update(qdelay);
            self.next_update = t + self.t_update;
            let at_rest = qdelay == SimDuration::ZERO
                && self.drop_prob == 0.0
                && self.qdelay_old == SimDuration::ZERO
                && self.burst_allowance == SimDuration::ZERO;
            if at_rest && self.next_update <= now {
                // every later tick up to `now` finds the link idle and leaves this state as it is
                let skipped = (now.0 - self.next_update.0) / self.t_update.0 + 1;
                self.next_update = SimTime(self.next_update.0 + skipped * self.t_update.0);
                self.updates += skipped;
            }
        }
    }

    /// §4.1's `drop_early` with §5.4's derandomization: whether the arrival is to be dropped (or
    /// marked), given the bytes waiting before it.
    fn drop_early(&mut self, queued_bytes: u64, rng: &mut Rng) -> bool {
        if (self.below_half_target(self.qdelay_old) && self.drop_prob < 0.2)
            || queued_bytes <= 2 * self.mean_pkt_bytes
        {
            return false;
        }
        if self.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        rng.uniform() < self.drop_prob
    }

    /// The verdict on a packet arriving at `now`, after the updates due by then. Out of line:
    /// the committed FIFO's dispatch (`Port::offer`) inlines the hooks of the other policies.
    #[inline(never)]
    pub fn verdict(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Verdict {
        self.catch_up(now, q.drained_at);
        let qdelay = q.drained_at.saturating_sub(now);
        if self.drop_prob == 0.0
            && self.below_half_target(qdelay)
            && self.below_half_target(self.qdelay_old)
        {
            self.burst_allowance = self.max_burst;
        }
        if self.burst_allowance > SimDuration::ZERO || !self.drop_early(q.bytes, rng) {
            return Verdict::Enqueue;
        }
        self.accu_prob = 0.0;
        if self.ecn && self.drop_prob < self.ecn_max_p && pkt.has(flags::ECT) {
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }
}

impl QueuePolicy for Pie {
    #[inline]
    fn on_enqueue(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Decision {
        self.verdict(now, pkt, q, rng).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FlowId;

    const MS: u64 = 1_000_000_000;

    fn pie(cfg: PieConfig) -> Pie {
        Pie::new(&cfg, 1500)
    }
    fn pkt(flags: u8) -> Packet {
        Packet::data_probe(FlowId(0), 0, 1500, flags)
    }
    /// What an arrival at `now` sees: `waiting` packets of 1500 B, the link busy until `drained_at`.
    fn view(waiting: u32, drained_at: SimTime) -> QueueView<'static> {
        QueueView {
            drained_at,
            ..QueueView::of_size(waiting, waiting as u64 * 1500, None, 100e6)
        }
    }

    /// The §4.2 table, read at its boundaries.
    #[test]
    fn the_update_is_scaled_down_by_the_size_of_the_drop_probability() {
        for (p, d) in [
            (0.0, 2048.0),
            (0.9e-6, 2048.0),
            (1e-6, 512.0),
            (1e-5, 128.0),
            (1e-4, 32.0),
            (1e-3, 8.0),
            (1e-2, 2.0),
            (0.1, 1.0),
            (0.7, 1.0),
        ] {
            assert_eq!(auto_scale(p), d, "drop_prob {p}");
        }
        // one update from p = 0 with the delay 10 ms above target and rising by 10 ms: the
        // controller's step alpha*0.01 + beta*0.01 divided by 2048
        let mut a = pie(PieConfig::default());
        a.update(SimDuration(25 * MS));
        let want = (0.125 * 0.010 + 1.25 * 0.025) / 2048.0;
        assert!((a.drop_prob() - want).abs() < 1e-15, "{}", a.drop_prob());
        // from p >= 0.1 a large step is capped at +0.02 (§5.5)
        let mut a = pie(PieConfig::default());
        a.drop_prob = 0.3;
        a.update(SimDuration(500 * MS));
        assert!((a.drop_prob() - 0.32).abs() < 1e-12, "{}", a.drop_prob());
    }

    /// A delay held above QDELAY_REF drives p up at every update; held below, p comes back to 0.
    #[test]
    fn p_rises_while_the_delay_stays_above_target_and_falls_below_it() {
        let mut a = pie(PieConfig::default());
        let mut last = 0.0;
        for k in 0..200 {
            a.update(SimDuration(30 * MS));
            assert!(a.drop_prob() > last || k > 0 && a.drop_prob() == 1.0);
            last = a.drop_prob();
        }
        assert!(last > 0.1, "{last}");
        for _ in 0..2000 {
            a.update(SimDuration(5 * MS));
        }
        assert_eq!(a.drop_prob(), 0.0);
        // a delay exactly at target with no change moves nothing
        let mut b = pie(PieConfig::default());
        b.drop_prob = 0.05;
        b.qdelay_old = SimDuration(15 * MS);
        b.update(SimDuration(15 * MS));
        assert_eq!(b.drop_prob(), 0.05);
    }

    /// Two updates in a row with an idle link (delay 0, and 0 before) decay p by 0.98 on top of
    /// the controller's step.
    #[test]
    fn an_idle_link_decays_p_by_two_percent_per_update() {
        let mut a = pie(PieConfig::default());
        a.drop_prob = 0.5;
        a.qdelay_old = SimDuration::ZERO;
        a.update(SimDuration::ZERO);
        let step = 0.125 * (0.0 - 0.015); // beta term 0, scale 1 at p = 0.5
        assert!((a.drop_prob() - (0.5 + step) * 0.98).abs() < 1e-15);
        // no decay when the previous delay was not 0
        let mut b = pie(PieConfig::default());
        b.drop_prob = 0.5;
        b.qdelay_old = SimDuration(MS);
        b.update(SimDuration::ZERO);
        assert!((b.drop_prob() - (0.5 + step + 1.25 * -0.001)).abs() < 1e-15);
    }

    /// §4.4: the first arrival after a calm period resets the burst allowance to MAX_BURST; while
    /// it lasts nothing is dropped even with p = 1; each update takes T_UPDATE off it.
    #[test]
    fn the_burst_allowance_lets_an_initial_burst_through() {
        let mut a = pie(PieConfig::default());
        let mut rng = Rng::stream(1, "pie");
        // t = 0: a burst arrives at an idle port: the allowance is set
        assert_eq!(
            a.verdict(SimTime(0), &pkt(0), &view(0, SimTime(0)), &mut rng),
            Verdict::Enqueue
        );
        assert_eq!(a.burst_allowance(), SimDuration(150 * MS));
        a.drop_prob = 1.0;
        a.qdelay_old = SimDuration(100 * MS);
        // a standing queue of 100 ms: ten updates (150 ms) use the allowance up
        let mut dropped_at = None;
        for i in 1..400u64 {
            let now = SimTime(i * MS);
            let v = a.verdict(
                now,
                &pkt(0),
                &view(800, SimTime(now.0 + 100 * MS)),
                &mut rng,
            );
            if v == Verdict::Drop {
                dropped_at = Some(i);
                break;
            }
        }
        // the 10th update falls at 150 ms and leaves 0: the arrival at 150 ms is the first drop
        assert_eq!(dropped_at, Some(150));
        assert_eq!(a.burst_allowance(), SimDuration::ZERO);
    }

    /// §4.1: no drop while the previous delay is below QDELAY_REF/2 and p < 0.2, nor while at most
    /// two packets wait, whatever p; with p = 0.5 and neither safeguard, about half are dropped.
    #[test]
    fn the_safeguards_keep_pie_work_conserving() {
        let mut rng = Rng::stream(2, "pie");
        let mut a = pie(PieConfig::default());
        a.next_update = SimTime::MAX; // no update during the test
        a.drop_prob = 0.19;
        a.qdelay_old = SimDuration(7 * MS);
        let busy = |now: SimTime| view(500, SimTime(now.0 + 60 * MS));
        for i in 0..1000 {
            let now = SimTime(i);
            assert_eq!(
                a.verdict(now, &pkt(0), &busy(now), &mut rng),
                Verdict::Enqueue
            );
        }
        a.drop_prob = 1.0;
        a.qdelay_old = SimDuration(60 * MS);
        for i in 0..1000 {
            let now = SimTime(i);
            let short = view(2, SimTime(now.0 + 3 * 120_000_000));
            assert_eq!(a.verdict(now, &pkt(0), &short, &mut rng), Verdict::Enqueue);
        }
        a.drop_prob = 0.5;
        let drops = (0..10_000u64)
            .filter(|&i| {
                a.verdict(SimTime(i), &pkt(0), &busy(SimTime(i)), &mut rng) == Verdict::Drop
            })
            .count();
        assert!((4700..5300).contains(&drops), "{drops}");
    }

    /// §5.1: marks while p < ecn_max_p for an ECN-capable packet, drops a non-ECT one, and drops
    /// both once p reaches ecn_max_p.
    #[test]
    fn ecn_marks_below_the_mark_threshold_and_drops_above() {
        let mut rng = Rng::stream(3, "pie");
        let mut a = pie(PieConfig {
            ecn: true,
            ..Default::default()
        });
        a.next_update = SimTime::MAX;
        a.qdelay_old = SimDuration(40 * MS);
        let q = view(300, SimTime(40 * MS));
        let count = |a: &mut Pie, f: u8, rng: &mut Rng| {
            let mut n = [0usize; 3];
            for _ in 0..4000 {
                match a.verdict(SimTime(0), &pkt(f), &q, rng) {
                    Verdict::Enqueue => n[0] += 1,
                    Verdict::Mark => n[1] += 1,
                    Verdict::Drop => n[2] += 1,
                }
            }
            n
        };
        a.drop_prob = 0.09;
        let n = count(&mut a, flags::ECT, &mut rng);
        assert!(n[1] > 200 && n[2] == 0, "{n:?}");
        let n = count(&mut a, 0, &mut rng);
        assert!(n[1] == 0 && n[2] > 200, "{n:?}");
        a.drop_prob = 0.1;
        let n = count(&mut a, flags::ECT, &mut rng);
        assert!(n[1] == 0 && n[2] > 200, "{n:?}");
    }

    /// §5.4: with p = 0.1 the accumulated probability reaches 0.85 on the 9th arrival: no drop
    /// before it, and with p = 1 the 9th arrival reaches 8.5 and is dropped without a draw.
    #[test]
    fn derandomization_spaces_the_drops() {
        let mut rng = Rng::stream(4, "pie");
        let mut a = pie(PieConfig {
            derandomize: true,
            ..Default::default()
        });
        a.next_update = SimTime::MAX;
        a.qdelay_old = SimDuration(40 * MS);
        let q = view(300, SimTime(40 * MS));
        a.drop_prob = 0.1;
        let mut gaps = vec![];
        let mut since = 0;
        for _ in 0..20_000 {
            since += 1;
            if a.verdict(SimTime(0), &pkt(0), &q, &mut rng) == Verdict::Drop {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(
            gaps.iter().all(|&g| g >= 9),
            "no drop before accu_prob reaches 0.85"
        );
        // at most 8.5 / 0.1 = 85 arrivals between drops (one more for the rounding of the sum)
        assert!(gaps.iter().all(|&g| g <= 86), "{:?}", gaps.iter().max());
        let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
        assert!(mean > 12.0 && mean < 25.0, "mean gap {mean}");
        // the same p without derandomization drops the 1st arrival sometimes
        let mut b = pie(PieConfig::default());
        b.next_update = SimTime::MAX;
        b.qdelay_old = SimDuration(40 * MS);
        b.drop_prob = 0.1;
        let mut short = 0;
        let mut since = 0;
        for _ in 0..20_000 {
            since += 1;
            if b.verdict(SimTime(0), &pkt(0), &q, &mut rng) == Verdict::Drop {
                short += (since < 9) as usize;
                since = 0;
            }
        }
        assert!(short > 100, "{short}");
    }

    /// The lazy updates give the state a timer would: arrivals at irregular times, including
    /// long idle gaps, against the same updates run at every k * T_UPDATE from the link's drain
    /// time between arrivals.
    #[test]
    fn the_catch_up_at_arrivals_equals_a_timer_every_t_update() {
        let cfg = PieConfig::default();
        let mut lazy = pie(cfg);
        let mut timer = pie(cfg);
        let mut rng = Rng::stream(5, "arrivals");
        let (mut now, mut drained) = (0u64, 0u64);
        let mut next_tick = 15 * MS;
        let (mut max_p, mut rested) = (0.0f64, 0);
        for i in 0..30_000u64 {
            // mostly back-to-back arrivals building a queue, with idle gaps of up to 2 s
            let gap = if i % 5000 == 4999 {
                2000 * MS
            } else {
                (rng.uniform() * 0.15 * MS as f64) as u64
            };
            now += gap;
            while next_tick <= now {
                timer.update(SimDuration(drained.saturating_sub(next_tick)));
                next_tick += 15 * MS;
            }
            lazy.catch_up(SimTime(now), SimTime(drained));
            assert_eq!(
                lazy.drop_prob().to_bits(),
                timer.drop_prob().to_bits(),
                "at {now}"
            );
            assert_eq!(lazy.qdelay_old(), timer.qdelay_old());
            assert_eq!(lazy.burst_allowance(), timer.burst_allowance());
            assert_eq!(lazy.updates(), timer.updates());
            max_p = max_p.max(lazy.drop_prob());
            rested += (max_p > 0.2 && lazy.drop_prob() == 0.0 && gap > 1000 * MS) as u32;
            // the arrival is accepted: 120 us of work
            drained = drained.max(now) + 120 * 1_000_000;
        }
        assert!(timer.updates() > 500, "{}", timer.updates());
        // p went high under the backlog and came back to rest over the idle gaps
        assert!(
            max_p > 0.2 && rested >= 3,
            "max p {max_p}, came to rest {rested} times"
        );
    }

    #[test]
    fn bad_values_name_the_field() {
        for (cfg, field) in [
            (
                PieConfig {
                    target_s: 0.0,
                    ..Default::default()
                },
                "aqm.target_s",
            ),
            (
                PieConfig {
                    t_update_s: 1e-9,
                    ..Default::default()
                },
                "aqm.t_update_s",
            ),
            (
                PieConfig {
                    alpha: -1.0,
                    ..Default::default()
                },
                "aqm.alpha",
            ),
            (
                PieConfig {
                    beta: f64::NAN,
                    ..Default::default()
                },
                "aqm.beta",
            ),
            (
                PieConfig {
                    max_burst_s: -0.1,
                    ..Default::default()
                },
                "aqm.max_burst_s",
            ),
            (
                PieConfig {
                    ecn_max_p: 1.5,
                    ..Default::default()
                },
                "aqm.ecn_max_p",
            ),
        ] {
            let e = cfg.validate("aqm").unwrap_err();
            assert_eq!(e.path, field, "{e}");
        }
        assert!(PieConfig::default().validate("aqm").is_ok());
    }
}
