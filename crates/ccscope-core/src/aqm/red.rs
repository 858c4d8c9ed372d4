//! Random Early Detection (Floyd & Jacobson 1993; P001 Appendix B; P003 eq 2), with the
//! options the papers need (ALGORITHMS.md §3.2, §7.2):
//! - EWMA `avg <- (1-w_q) avg + w_q q` per arrival (q = instantaneous queue before the arrival,
//!   packets, or bytes / mean packet size in byte mode); after an idle period the average first
//!   decays as `(1-w_q)^m`, m = idle time × link packet rate.
//! - `min_th <= avg < max_th`: `p_b = max_p (avg-min_th)/(max_th-min_th)`,
//!   `p_a = p_b / (1 - count p_b)` (F&J), or ns-2's `wait_` spacing rule when `ns2_wait`.
//! - `avg >= max_th`: every arrival is marked (P003: "avg > max_th marks every ECT packet") or
//!   dropped; gentle RED instead ramps `p_b = max_p + (1-max_p)(avg-max_th)/max_th` up to 2 max_th.
//! - `action = "mark"` sets CE on ECT packets (non-ECT are dropped); `"drop"` drops.
//! - `ns2_drop_ecn_above_p` (off by default): ns-2's `use_mark_p_` behaviour, an ECT packet is
//!   dropped, not marked, whenever p_b >= this value (ALGORITHMS.md §3.2, E62).
//! - `ns2_small_queue` (off by default): ns-2's rule (queue/red.cc `qavg >= th_min && qlen > 1`):
//!   nothing is dropped or marked early or forcibly while at most one packet waits, and when
//!   dropping resumes (the average re-crosses min_th, or the queue refills above one packet) that
//!   arrival passes and `count` restarts at 1. With `ns2_wait` and, for ECN, `ns2_drop_ecn_above_p
//!   = 0.1` this is ns-2's RED; ALGORITHMS.md §3.2 lists these as ns-2 traps the papers' text does
//!   not have.
//! - `ns2_idle_truncate` (off by default): ns-2 counts the idle period in whole packet times,
//!   queue/red.cc `enque`: `m = int(edp_.ptc * (now - idletime_))`, then `estimator(.., m + 1, ..)`
//!   decays the average by `(1-w_q)^(m+1)` with the arrival; off, m is the real idle time × rate.
//! - `mark_at = "dequeue"` (default `"enqueue"`): the decision is taken when a packet starts its
//!   transmission, with the queue it leaves behind in its class, as DCQCN's congestion point does
//!   ([`RedDequeue`]).

use super::{Decision, QueuePolicy, QueueView, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedAction {
    /// Set CE on ECT packets; drop non-ECT ones.
    #[default]
    Mark,
    /// Drop.
    Drop,
}

/// When RED decides on a packet.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedMarkAt {
    /// On arrival, with the queue the packet finds (Floyd & Jacobson; ns-2).
    #[default]
    Enqueue,
    /// When the packet starts its transmission, with the queue it leaves behind in its class
    /// (DCQCN's congestion point, switches that mark at egress).
    Dequeue,
}

impl RedMarkAt {
    fn is_enqueue(&self) -> bool {
        *self == RedMarkAt::Enqueue
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Lower threshold of the average queue, packets.
    pub min_th_pkts: f64,
    /// Upper threshold of the average queue, packets (> min_th_pkts).
    pub max_th_pkts: f64,
    /// Marking probability at max_th (0 < max_p <= 1). Default 0.1 (P001 App. B).
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    /// EWMA weight w_q (0 < w_q <= 1). Default 0.002 (P001 App. B).
    #[serde(default = "default_w_q")]
    pub w_q: f64,
    /// Gentle RED above max_th. Default false (P001 App. B).
    #[serde(default)]
    pub gentle: bool,
    /// "mark" (ECN) or "drop". Default "mark".
    #[serde(default)]
    pub action: RedAction,
    /// Byte mode: queue counted in mean-size packets and p_b scaled by size/mean. Default false.
    #[serde(default)]
    pub byte_mode: bool,
    /// ns-2 `wait_` spacing rule instead of F&J's p_b/(1 - count p_b). Default false.
    #[serde(default)]
    pub ns2_wait: bool,
    /// ns-2 `use_mark_p_`: drop ECT packets whenever p_b >= this (e.g. 0.1). Default off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_drop_ecn_above_p: Option<f64>,
    /// ns-2's small-queue rule: no early or forced drop/mark while at most one packet waits; when
    /// dropping resumes, that arrival passes and count restarts at 1. Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ns2_small_queue: bool,
    /// ns-2's idle-period count in whole packet times (queue/red.cc `enque`:
    /// `m = int(edp_.ptc * (now - idletime_))`, truncated). Default false (the real value).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ns2_idle_truncate: bool,
    /// Mark (or drop) each arrival with probability p_b alone, independently of the others,
    /// instead of F&J's count spacing p_b/(1 - count p_b) (which about doubles the mean rate of
    /// marks at a steady p_b): the marking law of DCQCN's congestion point and of the fluid
    /// models (`ccscope.fluid.dcqcn` eq 3). Takes precedence over `ns2_wait`. Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub independent_marks: bool,
    /// When the decision is taken: "enqueue" (on arrival, with the queue the packet finds) or
    /// "dequeue" (when the packet starts its transmission, with the packets and bytes still
    /// waiting behind it in its class; the average is sampled per departure), as DCQCN's
    /// congestion point at the switch egress queue (Zhu et al. SIGCOMM 2015 §3.1) is run in the
    /// authors' ns-3 (HPCC repository: `SwitchNode::SwitchNotifyDequeue` calls
    /// `SwitchMmu::ShouldSendCN` with the egress bytes less the departing packet). "dequeue"
    /// puts the port on the general path, only marks (`action = "mark"`, no
    /// `ns2_drop_ecn_above_p`) and sends a packet that is not ECN-capable unmarked. Default
    /// "enqueue".
    #[serde(default, skip_serializing_if = "RedMarkAt::is_enqueue")]
    pub mark_at: RedMarkAt,
}

fn default_max_p() -> f64 {
    0.1
}
fn default_w_q() -> f64 {
    0.002
}

#[derive(Clone, Debug)]
pub struct Red {
    cfg: RedConfig,
    mean_pkt_bits: f64,
    mean_pkt_bytes: f64,
    /// Average queue, packets (or mean-size packets in byte mode).
    pub avg: f64,
    /// Arrivals since the last mark/drop (-1 below min_th, F&J).
    pub count: i64,
    /// p_b computed for the last arrival (for tests and probes).
    pub last_p_b: f64,
    /// p_a computed for the last arrival.
    pub last_p_a: f64,
    /// ns-2's `old`: the previous arrival was in the dropping regime (`ns2_small_queue` only).
    dropping: bool,
}

impl Red {
    pub fn new(cfg: &RedConfig, packet_bytes: u32) -> Self {
        Red {
            cfg: cfg.clone(),
            mean_pkt_bits: packet_bytes as f64 * 8.0,
            mean_pkt_bytes: packet_bytes as f64,
            avg: 0.0,
            count: -1,
            last_p_b: 0.0,
            last_p_a: 0.0,
            dropping: false,
        }
    }

    /// The EWMA weight w_q.
    pub fn w_q(&self) -> f64 {
        self.cfg.w_q
    }

    /// The EWMA update for one arrival (with idle decay), returning the new average.
    pub fn update_average(&mut self, now: SimTime, q: &QueueView) -> f64 {
        let w = self.cfg.w_q;
        if let Some(since) = q.empty_since {
            let idle_s = now.saturating_sub(since).as_secs_f64();
            let m = idle_s * q.rate_bps / self.mean_pkt_bits;
            let m = if self.cfg.ns2_idle_truncate {
                m.floor()
            } else {
                m
            };
            if m > 0.0 {
                self.avg *= (1.0 - w).powf(m);
            }
        }
        let inst = if self.cfg.byte_mode {
            q.bytes as f64 / self.mean_pkt_bytes
        } else {
            q.pkts as f64
        };
        self.avg = (1.0 - w) * self.avg + w * inst;
        self.avg
    }

    /// p_b for an average queue (before byte scaling); None above the marking range.
    pub fn base_probability(&self, avg: f64) -> Option<f64> {
        let c = &self.cfg;
        if avg < c.min_th_pkts {
            Some(0.0)
        } else if avg < c.max_th_pkts {
            Some(c.max_p * (avg - c.min_th_pkts) / (c.max_th_pkts - c.min_th_pkts))
        } else if c.gentle && avg < 2.0 * c.max_th_pkts {
            Some(c.max_p + (1.0 - c.max_p) * (avg - c.max_th_pkts) / c.max_th_pkts)
        } else {
            None
        }
    }

    fn act(&self, p_b: f64, pkt: &Packet) -> Verdict {
        match self.cfg.action {
            RedAction::Drop => Verdict::Drop,
            RedAction::Mark => match self.cfg.ns2_drop_ecn_above_p {
                Some(th) if p_b >= th => Verdict::Drop,
                _ => {
                    let _ = pkt;
                    Verdict::Mark
                }
            },
        }
    }
}

impl QueuePolicy for Red {
    #[inline]
    fn on_enqueue(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Decision {
        self.verdict(now, pkt, q, rng).into()
    }
}

impl Red {
    /// The verdict on an arrival: update the average, then decide.
    pub fn verdict(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Verdict {
        let avg = self.update_average(now, q);
        self.decide(avg, q.pkts, pkt, rng)
    }
}

impl Red {
    /// Accept the arrival with no drop probability (below min_th, or spared by ns-2's rule).
    fn pass(&mut self) -> Verdict {
        self.last_p_b = 0.0;
        self.last_p_a = 0.0;
        Verdict::Enqueue
    }

    /// The drop/mark decision for an average already updated (count and probabilities kept);
    /// `waiting` is the number of packets waiting before the arrival.
    pub fn decide(&mut self, avg: f64, waiting: u32, pkt: &Packet, rng: &mut Rng) -> Verdict {
        if self.cfg.ns2_small_queue {
            if avg < self.cfg.min_th_pkts {
                self.dropping = false; // and the arm below min_th passes the arrival
            } else if waiting <= 1 {
                self.dropping = false;
                return self.pass();
            } else if !self.dropping && self.base_probability(avg).is_some() {
                // ns-2 `edv_.old == 0`: the dropping regime starts with this arrival, which passes
                self.dropping = true;
                self.count = 1;
                return self.pass();
            }
        }
        match self.base_probability(avg) {
            Some(p) if p == 0.0 && avg < self.cfg.min_th_pkts => {
                self.count = -1;
                self.pass()
            }
            Some(mut p_b) => {
                if self.cfg.byte_mode {
                    p_b *= pkt.size_bytes as f64 / self.mean_pkt_bytes;
                }
                self.count += 1;
                let cp = self.count as f64 * p_b;
                let p_a = if self.cfg.independent_marks {
                    p_b.min(1.0)
                } else if self.cfg.ns2_wait {
                    if cp < 1.0 {
                        0.0
                    } else if cp < 2.0 {
                        p_b / (2.0 - cp)
                    } else {
                        1.0
                    }
                } else if cp >= 1.0 {
                    1.0
                } else {
                    (p_b / (1.0 - cp)).min(1.0)
                };
                self.last_p_b = p_b;
                self.last_p_a = p_a;
                if p_a > 0.0 && rng.uniform() < p_a {
                    self.count = 0;
                    self.act(p_b, pkt)
                } else {
                    Verdict::Enqueue
                }
            }
            None => {
                self.count = 0;
                self.last_p_b = 1.0;
                self.last_p_a = 1.0;
                self.act(1.0, pkt)
            }
        }
    }
}

/// RED deciding when a packet starts its transmission (`mark_at = "dequeue"`), one per traffic
/// class of a general-path port (`net::sched`).
///
/// Rule, per departure of a packet `pkt` that leaves `left_pkts` packets (`left_bytes` bytes)
/// waiting behind it in its class:
/// 1. the average is updated with the queue left behind, `avg <- (1-w_q) avg + w_q left` (w_q = 1:
///    the instantaneous queue, as DCQCN's CP and the fluid model's `p(q)` use); when the previous
///    departure left the class empty, the link was idle from the end of that packet's
///    transmission to now and the average first decays by `(1-w_q)^m`, m = idle time × line rate
///    / mean packet size (the enqueue rule's idle correction, at the departure);
/// 2. an ECN-capable packet is marked with RED's probability for that average (`decide`: below
///    min_th never, on the ramp p_b, or with `independent_marks` p_b alone, F&J's count spacing
///    otherwise; at or above max_th always, gentle RED's second ramp if set);
/// 3. a packet that is not ECN-capable is sent unmarked and takes no part in the decision (no
///    random draw, `count` unchanged): a dequeue-time marker never drops.
///
/// With `w_q = 1`, `independent_marks` and Kmin/Kmax/Pmax = min_th/max_th/max_p this is the
/// authors' ns-3 `ShouldSendCN` (HPCC repository, switch-mmu.cc: egress bytes left above Kmax
/// mark; between Kmin and Kmax mark with `Pmax (q - Kmin)/(Kmax - Kmin)`), counted in packets
/// (or mean-size packets with `byte_mode`) where ns-3 counts bytes.
#[derive(Clone, Debug)]
pub struct RedDequeue {
    red: Red,
    rng: Rng,
    rate_bps: f64,
    /// When the link went idle after a departure that left the class empty (the end of that
    /// packet's transmission); None while packets wait.
    idle_from: Option<SimTime>,
}

impl RedDequeue {
    /// A class's RED at dequeue on a port of line rate `rate_bps`, drawing from `rng`.
    pub fn new(cfg: &RedConfig, packet_bytes: u32, rate_bps: f64, rng: Rng) -> Self {
        RedDequeue {
            red: Red::new(cfg, packet_bytes),
            rng,
            rate_bps,
            idle_from: None,
        }
    }

    /// Whether `pkt`, starting its transmission at `now` with `left_pkts` packets (`left_bytes`
    /// bytes) still waiting behind it in its class, is CE-marked.
    pub fn marks(&mut self, now: SimTime, pkt: &Packet, left_pkts: u32, left_bytes: u64) -> bool {
        let idle = self.idle_from.take().filter(|&t| t < now);
        if left_pkts == 0 {
            let tx = pkt.size_bytes as f64 * 8.0 / self.rate_bps;
            self.idle_from = Some(now + crate::units::SimDuration::from_secs_f64(tx));
        }
        let view = QueueView::of_size(left_pkts, left_bytes, idle, self.rate_bps);
        let avg = self.red.update_average(now, &view);
        if !pkt.has(crate::packet::flags::ECT) {
            return false;
        }
        self.red.decide(avg, left_pkts, pkt, &mut self.rng) != Verdict::Enqueue
    }

    /// The RED state (average, count, last probabilities), for tests and probes.
    pub fn red(&self) -> &Red {
        &self.red
    }
}

/// One arrival of a synthetic queue trace: what a port shows RED at that instant.
#[derive(Clone, Copy, Debug)]
pub struct ReplayArrival {
    pub time: SimTime,
    /// Queue before the arrival, packets and bytes.
    pub q_pkts: u32,
    pub q_bytes: u64,
    /// When the queue last went empty, if it is empty now (idle-time correction).
    pub empty_since: Option<SimTime>,
    pub size_bytes: u32,
    pub ect: bool,
}

/// What RED computed and decided for one arrival of a replay.
#[derive(Clone, Copy, Debug)]
pub struct ReplayStep {
    pub avg: f64,
    pub p_b: f64,
    pub p_a: f64,
    /// `count` after this arrival (-1 below min_th).
    pub count: i64,
    /// The port's outcome: a mark on a non-ECT packet is a drop, as in [`crate::net::Port`].
    pub verdict: Verdict,
}

/// Feed a synthetic queue trace to the engine's RED (the same code a port runs) and record
/// every step, with the RNG stream a port named `port_name` would use under `seed`. For unit
/// tests and for checking RED against an independent implementation.
pub fn replay(
    cfg: &RedConfig,
    packet_bytes: u32,
    rate_bps: f64,
    arrivals: &[ReplayArrival],
    seed: u64,
    port_name: &str,
) -> Vec<ReplayStep> {
    let mut red = Red::new(cfg, packet_bytes);
    let mut rng = Rng::stream(seed, &format!("port/{port_name}"));
    arrivals
        .iter()
        .map(|a| {
            let view = QueueView::of_size(a.q_pkts, a.q_bytes, a.empty_since, rate_bps);
            let ect = if a.ect { crate::packet::flags::ECT } else { 0 };
            let pkt = Packet::data_probe(crate::world::FlowId(0), 0, a.size_bytes, ect);
            let v = red.verdict(a.time, &pkt, &view, &mut rng);
            let verdict = match v {
                Verdict::Mark if !a.ect => Verdict::Drop,
                other => other,
            };
            ReplayStep {
                avg: red.avg,
                p_b: red.last_p_b,
                p_a: red.last_p_a,
                count: red.count,
                verdict,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FlowId;

    fn pkt() -> Packet {
        Packet::data_probe(FlowId(0), 0, 1500, 1)
    }
    fn view(n: u32) -> QueueView<'static> {
        QueueView::of_size(n, n as u64 * 1500, None, 1e9)
    }
    fn cfg() -> RedConfig {
        RedConfig {
            min_th_pkts: 5.0,
            max_th_pkts: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            action: RedAction::Mark,
            byte_mode: false,
            ns2_wait: false,
            ns2_drop_ecn_above_p: None,
            ns2_small_queue: false,
            ns2_idle_truncate: false,
            independent_marks: false,
            mark_at: RedMarkAt::Enqueue,
        }
    }

    fn ect_pkt(size: u32) -> Packet {
        Packet::data_probe(FlowId(0), 0, size, crate::packet::flags::ECT)
    }

    /// RED at dequeue with w_q = 1 and independent marks is the authors' ns-3 `ShouldSendCN`
    /// on the queue a packet leaves behind: never at or below Kmin (no random draw), with
    /// probability Pmax (q - Kmin)/(Kmax - Kmin) between (one draw each), always at or above
    /// Kmax (no draw); a packet that is not ECN-capable is never marked and draws nothing. The
    /// reference below keeps its own copy of the random stream and follows those rules.
    #[test]
    fn dequeue_rule_marks_by_the_queue_left_behind_as_dcqcn_cp() {
        let c = RedConfig {
            w_q: 1.0,
            independent_marks: true,
            mark_at: RedMarkAt::Dequeue,
            ..cfg()
        };
        let rng = Rng::stream(3, "red-dequeue");
        let mut reference = rng.clone();
        let mut red = RedDequeue::new(&c, 1500, 1e9, rng);
        let seq: Vec<u32> = (0..4000).map(|i| ((i * 7) % 23) as u32).collect();
        let (mut ramp_marks, mut ramp, mut forced) = (0, 0, 0);
        for (i, &left) in seq.iter().enumerate() {
            let ect = i % 11 != 3;
            let pkt = if ect {
                ect_pkt(1500)
            } else {
                Packet::data_probe(FlowId(0), 0, 1500, 0)
            };
            let got = red.marks(SimTime(i as u64 * 1000), &pkt, left, left as u64 * 1500);
            assert_eq!(red.red().avg, left as f64, "w_q = 1: the queue left behind");
            let want = if !ect || left <= 5 {
                false
            } else if left < 15 {
                ramp += 1;
                reference.uniform() < 0.1 * (left as f64 - 5.0) / 10.0
            } else {
                forced += 1;
                true
            };
            assert_eq!(got, want, "departure {i}, left {left}, ect {ect}");
            if want && left < 15 {
                ramp_marks += 1;
            }
        }
        assert!(
            ramp > 1000 && forced > 500 && ramp_marks > 20,
            "{ramp} {forced} {ramp_marks}"
        );
        // the streams stayed in step: the same number of draws on both sides
        assert_eq!(red.rng.uniform(), reference.uniform());
    }

    /// At dequeue the average is sampled once per departure with the queue left behind; after a
    /// departure that empties the class the link is idle from the end of that transmission, and
    /// the next departure first decays the average by (1 - w_q)^m, m = idle time x rate / size.
    #[test]
    fn dequeue_average_decays_over_the_idle_link() {
        let c = RedConfig {
            w_q: 0.5,
            mark_at: RedMarkAt::Dequeue,
            ..cfg()
        };
        let mut red = RedDequeue::new(&c, 1500, 1e9, Rng::stream(1, "x"));
        let us = |x: f64| SimTime::from_secs_f64(x * 1e-6);
        red.marks(us(0.0), &ect_pkt(1500), 8, 12_000);
        assert_eq!(red.red().avg, 4.0);
        // leaves the class empty: 1500 B at 1 Gb/s is on the wire until 112 us
        red.marks(us(100.0), &ect_pkt(1500), 0, 0);
        assert_eq!(red.red().avg, 2.0);
        // next departure at 232 us: idle 120 us = 10 packet times, then the sample 6
        red.marks(us(232.0), &ect_pkt(1500), 6, 9000);
        let want = 2.0 * 0.5f64.powi(10) * 0.5 + 0.5 * 6.0;
        assert!(
            (red.red().avg - want).abs() < 1e-9,
            "{} vs {want}",
            red.red().avg
        );
        // packets waited throughout: no decay
        red.marks(us(500.0), &ect_pkt(1500), 6, 9000);
        assert!((red.red().avg - (0.5 * want + 3.0)).abs() < 1e-9);
    }

    /// `mark_at` reads "enqueue" or "dequeue" (default enqueue, left out when serialized so
    /// existing scenario texts keep their form); anything else names the allowed values.
    #[test]
    fn mark_at_reads_and_defaults_to_enqueue() {
        let base = "min_th_pkts = 5\nmax_th_pkts = 15\n";
        let c: RedConfig = toml::from_str(base).unwrap();
        assert_eq!(c.mark_at, RedMarkAt::Enqueue);
        assert!(!toml::to_string(&c).unwrap().contains("mark_at"));
        let c: RedConfig = toml::from_str(&format!("{base}mark_at = \"dequeue\"")).unwrap();
        assert_eq!(c.mark_at, RedMarkAt::Dequeue);
        assert!(toml::to_string(&c)
            .unwrap()
            .contains("mark_at = \"dequeue\""));
        let e = toml::from_str::<RedConfig>(&format!("{base}mark_at = \"egress\""))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("egress") && e.contains("enqueue") && e.contains("dequeue"),
            "{e}"
        );
    }

    #[test]
    fn independent_marks_mark_at_p_b_and_count_spacing_about_doubles_it() {
        // a steady queue halfway up the ramp: p_b = max_p / 2 = 0.05 on every arrival
        let frac = |independent: bool| {
            let c = RedConfig {
                w_q: 1.0,
                independent_marks: independent,
                ..cfg()
            };
            let mut red = Red::new(&c, 1500);
            let mut rng = Rng::stream(7, "red-independent");
            let pkt = Packet::data_probe(FlowId(0), 0, 1500, crate::packet::flags::ECT);
            let n = 200_000;
            let marks = (0..n)
                .filter(|_| red.verdict(SimTime(0), &pkt, &view(10), &mut rng) == Verdict::Mark)
                .count();
            marks as f64 / n as f64
        };
        let (ind, fj) = (frac(true), frac(false));
        assert!((ind - 0.05).abs() < 0.003, "independent: {ind}");
        assert!(fj > 1.7 * ind, "F&J spacing: {fj} vs {ind}");
    }

    #[test]
    fn average_and_probability_match_the_formulas_on_a_synthetic_queue() {
        let mut red = Red::new(&cfg(), 1500);
        let mut rng = Rng::stream(1, "red");
        let seq: Vec<u32> = (0..3000).map(|i| ((i / 7) % 40) as u32).collect();
        let mut avg = 0.0f64;
        let mut count: i64 = -1;
        for &q in &seq {
            avg = (1.0 - 0.002) * avg + 0.002 * q as f64;
            let v = red.verdict(SimTime(0), &pkt(), &view(q), &mut rng);
            assert!((red.avg - avg).abs() < 1e-12);
            if avg < 5.0 {
                count = -1;
                assert_eq!(v, Verdict::Enqueue);
            } else if avg < 15.0 {
                count += 1;
                let p_b = 0.1 * (avg - 5.0) / 10.0;
                assert!((red.last_p_b - p_b).abs() < 1e-12);
                // F&J's p_b / (1 - count p_b) exceeds 1 once count p_b > 1 - p_b: a certain drop
                let p_a = if count as f64 * p_b >= 1.0 {
                    1.0
                } else {
                    (p_b / (1.0 - count as f64 * p_b)).min(1.0)
                };
                assert!((red.last_p_a - p_a).abs() < 1e-12);
                if v != Verdict::Enqueue {
                    count = 0;
                }
            } else {
                assert_eq!(v, Verdict::Mark);
                count = 0;
            }
        }
        assert!(avg > 5.0, "the sequence reaches the marking range");
    }

    #[test]
    fn idle_period_decays_the_average() {
        let mut red = Red::new(&cfg(), 1500);
        red.avg = 10.0;
        // idle 1.2 ms at 1 Gb/s with 1500-B packets = 100 packet times
        let q = QueueView::of_size(0, 0, Some(SimTime(0)), 1e9);
        let a = red.update_average(SimTime::from_secs_f64(1.2e-3), &q);
        let want = 10.0 * (0.998f64).powf(100.0) * 0.998;
        assert!((a - want).abs() < 1e-9, "{a} vs {want}");
    }

    /// ns-2 `m = int(ptc * (now - idletime_))`: idle 1.23 ms at 1 Gb/s with 1500-B packets is
    /// 102.5 packet times; ns-2 counts 102 and decays by 0.998^(102 + 1), the real value by
    /// 0.998^102.5 · 0.998. Idle shorter than one packet time (0.006 ms = 0.5): ns-2 m = 0.
    #[test]
    fn ns2_idle_truncate_counts_whole_packet_times() {
        for (idle_s, m_real, m_ns2) in [(1.23e-3, 102.5, 102.0), (6e-6, 0.5, 0.0)] {
            for ns2 in [false, true] {
                let mut c = cfg();
                c.ns2_idle_truncate = ns2;
                let mut red = Red::new(&c, 1500);
                red.avg = 10.0;
                let q = QueueView::of_size(0, 0, Some(SimTime(0)), 1e9);
                let a = red.update_average(SimTime::from_secs_f64(idle_s), &q);
                let m: f64 = if ns2 { m_ns2 } else { m_real };
                let want = 10.0 * 0.998f64.powf(m + 1.0);
                assert!((a - want).abs() < 1e-9, "ns2 = {ns2}: {a} vs {want}");
            }
        }
    }

    #[test]
    fn gentle_ramps_and_ns2_rule_drops_ect_above_p() {
        let mut c = cfg();
        c.gentle = true;
        let red = Red::new(&c, 1500);
        assert!((red.base_probability(22.5).unwrap() - (0.1 + 0.9 * 7.5 / 15.0)).abs() < 1e-12);
        assert!(red.base_probability(30.0).is_none());
        let mut c2 = cfg();
        c2.ns2_drop_ecn_above_p = Some(0.1);
        let mut red2 = Red::new(&c2, 1500);
        red2.avg = 100.0;
        let mut rng = Rng::stream(1, "x");
        assert_eq!(
            red2.verdict(SimTime(0), &pkt(), &view(100), &mut rng),
            Verdict::Drop
        );
    }

    /// ns-2's enque logic (queue/red.cc), written out independently: count is incremented on
    /// every arrival; dropping needs avg >= th_min and more than one waiting packet; the first
    /// arrival of a dropping regime sets count = 1 and passes; a forced drop resets count. The
    /// random outcome is the engine's; the reference follows it to keep its count.
    #[test]
    fn ns2_small_queue_rule_follows_ns2_enque() {
        for wait in [true, false] {
            let mut c = cfg();
            c.ns2_small_queue = true;
            c.ns2_wait = wait;
            c.w_q = 0.02;
            let mut red = Red::new(&c, 1500);
            let mut rng = Rng::stream(7, "red");
            // a queue that rises past max_th, drains to 0-1 packets while avg is still high, refills
            let seq: Vec<u32> = (0..6000)
                .map(|i| match (i / 300) % 4 {
                    0 => (i % 300) as u32 / 10,
                    1 => 30,
                    2 => (i % 2) as u32,
                    _ => 8 + (i % 5) as u32,
                })
                .collect();
            let (mut count, mut old, mut avg) = (0i64, false, 0.0f64);
            let (mut passed_small, mut reentries, mut forced, mut early) = (0, 0, 0, 0);
            for &q in &seq {
                avg = (1.0 - 0.02) * avg + 0.02 * q as f64;
                count += 1;
                let v = red.verdict(SimTime(0), &pkt(), &view(q), &mut rng);
                assert!((red.avg - avg).abs() < 1e-12);
                if avg >= 5.0 && q > 1 {
                    if avg >= 15.0 {
                        assert_eq!(v, Verdict::Mark, "forced at avg {avg}, q {q}");
                        count = 0;
                        forced += 1;
                    } else if !old {
                        assert_eq!(v, Verdict::Enqueue, "re-entry passes");
                        count = 1;
                        old = true;
                        reentries += 1;
                    } else {
                        let p_b = 0.1 * (avg - 5.0) / 10.0;
                        let cp = count as f64 * p_b;
                        let p_a = if wait {
                            if cp < 1.0 {
                                0.0
                            } else if cp < 2.0 {
                                p_b / (2.0 - cp)
                            } else {
                                1.0
                            }
                        } else if cp < 1.0 {
                            (p_b / (1.0 - cp)).min(1.0)
                        } else {
                            1.0
                        };
                        assert!(
                            (red.last_p_a - p_a).abs() < 1e-12,
                            "p_a {} vs {p_a}",
                            red.last_p_a
                        );
                        if v != Verdict::Enqueue {
                            count = 0;
                            early += 1;
                        }
                    }
                } else {
                    assert_eq!(v, Verdict::Enqueue);
                    old = false;
                    if avg >= 15.0 {
                        passed_small += 1;
                    }
                }
            }
            assert!(
                passed_small > 100 && reentries > 2 && forced > 100 && early > 5,
                "every branch is exercised: {passed_small} {reentries} {forced} {early}"
            );
        }
    }
}
