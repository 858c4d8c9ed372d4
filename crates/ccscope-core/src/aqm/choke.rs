//! CHOKe (Pan, Prabhakar, Psounis 2000; P003 ref [8]) and the coexistence paper's modified
//! CHOKe with m samples (P003 §II.B, §IV.E; ALGORITHMS.md §7.2), with ECN:
//! - update the RED average; `avg < min_th`: enqueue;
//! - otherwise draw `samples` queued packets uniformly (independently, with replacement
//!   [CHOICE]); if **all** of them belong to the arriving packet's flow (CHOKe: the one),
//!   mark the arrival and the matches (non-ECT: drop them all, removing the victims from the
//!   queue) — "all m" follows P003's text that more samples *lower* the chance of hitting the
//!   non-dominating flow (E63);
//! - otherwise the RED rule: mark with the RED probability when `avg <= max_th`, always above.
//!
//! The decision needs the queue's contents, which the engine holds: CHOKe declares
//! [`super::Aqm::inspects_queue`] and [`super::Aqm::takes_back_queued`], its enqueue hook reads
//! the flow of the j-th waiting packet from [`QueueView::queued`] and returns the matches as
//! [`super::Victims`], which the engine marks or removes before it admits the arrival.

use super::red::{Red, RedConfig};
use super::{Decision, QueuePolicy, QueueView, Verdict, Victims, MAX_VICTIMS};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most samples modified CHOKe may draw per arrival.
pub const MAX_CHOKE_SAMPLES: u32 = 32;

fn d_samples() -> u32 {
    1
}

/// CHOKe parameters: RED's thresholds and average, plus the number of samples.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChokeConfig {
    /// Lower threshold of the average queue, packets.
    pub min_th_pkts: f64,
    /// Upper threshold of the average queue, packets (> min_th_pkts).
    pub max_th_pkts: f64,
    /// RED marking probability at max_th (0 < max_p <= 1). Default 0.1 (E62 [CHOICE]).
    #[serde(default = "d_max_p")]
    pub max_p: f64,
    /// EWMA weight (0 < w_q <= 1). Default 0.002 (E62 [CHOICE]).
    #[serde(default = "d_w_q")]
    pub w_q: f64,
    /// Queued packets compared with each arrival: 1 = CHOKe, m > 1 = modified CHOKe (P003 Fig 6: 7). Default 1.
    #[serde(default = "d_samples")]
    pub samples: u32,
}

fn d_max_p() -> f64 {
    0.1
}
fn d_w_q() -> f64 {
    0.002
}

#[derive(Clone, Debug)]
pub struct Choke {
    pub red: Red,
    samples: u32,
    min_th: f64,
    /// Arrivals that matched (CHOKe hits).
    pub hits: u64,
}

impl ChokeConfig {
    /// The RED part of CHOKe (not gentle, marking, packet mode): its average, thresholds and
    /// fallback probability.
    pub fn red_config(&self) -> RedConfig {
        RedConfig {
            min_th_pkts: self.min_th_pkts,
            max_th_pkts: self.max_th_pkts,
            max_p: self.max_p,
            w_q: self.w_q,
            gentle: false,
            action: super::red::RedAction::Mark,
            byte_mode: false,
            ns2_wait: false,
            ns2_drop_ecn_above_p: None,
            ns2_small_queue: false,
            ns2_idle_truncate: false,
            independent_marks: false,
            mark_at: super::red::RedMarkAt::Enqueue,
        }
    }
}

impl Choke {
    pub fn new(cfg: &ChokeConfig, packet_bytes: u32) -> Self {
        Choke {
            red: Red::new(&cfg.red_config(), packet_bytes),
            samples: cfg.samples.clamp(1, MAX_CHOKE_SAMPLES),
            min_th: cfg.min_th_pkts,
            hits: 0,
        }
    }
}

impl QueuePolicy for Choke {
    /// Decide for `pkt`; `q.queued` names the flow of the j-th waiting packet (j < q.pkts).
    ///
    /// Out of line (general path only), so that the dispatch of `Aqm::on_enqueue` stays small
    /// enough to be inlined into the committed-FIFO fast path (`Port::offer`).
    #[inline(never)]
    fn on_enqueue(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Decision {
        let avg = self.red.update_average(now, q);
        if avg < self.min_th {
            self.red.count = -1;
            return Verdict::Enqueue.into();
        }
        if q.pkts > 0 {
            let mut drawn = [0u32; MAX_VICTIMS];
            let mut all = true;
            for slot in drawn.iter_mut().take(self.samples as usize) {
                let j = rng.below(q.pkts as u64) as u32;
                *slot = j;
                let flow = q.queued.flow_of(j);
                debug_assert!(
                    flow.is_some(),
                    "CHOKe inspects the queue: the view names it"
                );
                if flow != Some(pkt.flow) {
                    all = false;
                    break;
                }
            }
            if all {
                self.hits += 1;
                // the same packet may be drawn twice: `Victims` keeps distinct indices, newest
                // first so removals do not shift the ones still to remove
                return Decision {
                    verdict: Verdict::Mark,
                    victims: Victims::from_drawn(&drawn[..self.samples as usize]),
                };
            }
        }
        // RED rule (ALGORITHMS.md §7.2: above max_th every arrival is marked)
        self.red.decide(avg, q.pkts, pkt, rng).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FlowId;

    fn pkt(flow: u32) -> Packet {
        Packet::data_probe(FlowId(flow), 0, 1500, 1)
    }
    fn cfg(samples: u32) -> ChokeConfig {
        ChokeConfig {
            min_th_pkts: 5.0,
            max_th_pkts: 15.0,
            max_p: 0.1,
            w_q: 1.0,
            samples,
        }
    }
    fn view(n: u32) -> QueueView<'static> {
        QueueView::of_size(n, n as u64 * 1500, None, 1e9)
    }

    fn decide(
        c: &mut Choke,
        p: &Packet,
        n: u32,
        r: &mut Rng,
        flow_of: &dyn Fn(u32) -> FlowId,
    ) -> Decision {
        let q = QueueView {
            queued: crate::aqm::Queued::of(flow_of),
            ..view(n)
        };
        c.on_enqueue(SimTime(0), p, &q, r)
    }

    #[test]
    fn below_min_th_everything_is_enqueued() {
        let mut c = Choke::new(&cfg(1), 1500);
        let mut r = Rng::stream(1, "c");
        assert_eq!(
            decide(&mut c, &pkt(0), 3, &mut r, &|_| FlowId(0)).verdict,
            Verdict::Enqueue
        );
    }

    #[test]
    fn a_queue_of_the_same_flow_always_matches_and_names_distinct_victims() {
        let mut c = Choke::new(&cfg(7), 1500);
        let mut r = Rng::stream(1, "c");
        let d = decide(&mut c, &pkt(3), 10, &mut r, &|_| FlowId(3));
        assert_eq!(d.verdict, Verdict::Mark);
        let v = d.victims.as_slice();
        assert!(v.windows(2).all(|w| w[0] > w[1]) && v.iter().all(|&j| j < 10));
    }

    #[test]
    fn match_probability_is_the_queue_share_to_the_power_m() {
        // queue: 30 % flow 1, 70 % flow 2; avg between thresholds with max_p tiny so RED rarely marks
        for (m, share, want) in [(1u32, 0.3f64, 0.3f64), (2, 0.7, 0.49), (7, 0.7, 0.0824)] {
            let mut cf = cfg(m);
            cf.max_p = 1e-9;
            let mut c = Choke::new(&cf, 1500);
            let mut r = Rng::stream(9, "c");
            let n = 40_000;
            let flow = if share == 0.3 { 1 } else { 2 };
            let mut hits = 0;
            for _ in 0..n {
                let d = decide(&mut c, &pkt(flow), 10, &mut r, &|j| {
                    if j < 3 {
                        FlowId(1)
                    } else {
                        FlowId(2)
                    }
                });
                hits += !d.victims.is_empty() as u32;
            }
            let f = hits as f64 / n as f64;
            assert!((f - want).abs() < 0.01, "m = {m}: {f} vs {want}");
        }
    }
}
