//! Queue policies (AQM) at switch egress ports.
//!
//! The port owns the buffer limit and asks its AQM, for every arriving packet, what to do
//! ([`QueuePolicy::on_enqueue`]): [`Verdict::Enqueue`], [`Verdict::Mark`] (set CE if the packet
//! is ECN-capable, otherwise drop it — RFC 3168 AQM semantics, ALGORITHMS.md §2.1 [CHOICE]) or
//! [`Verdict::Drop`], possibly with queued packets to take back as well ([`Victims`], CHOKe).
//! Dispatch is a closed enum; sans-IO (`now` is passed in, randomness comes from the port's
//! own stream).
//!
//! **The contract with the engine.** A policy declares what it needs through the methods of
//! [`Aqm`] listed under "what each policy declares" (each match names every policy, so a new
//! one must decide); the engine acts on those declarations and never on a policy's name:
//! - [`Aqm::inspects_queue`]: the enqueue hook's [`QueueView::queued`] names the flow of every
//!   waiting packet (otherwise it is [`Queued::NONE`]);
//! - [`Aqm::takes_back_queued`]: the decision may carry [`Victims`]; the engine marks or drops
//!   them (as the arrival's verdict says) before it admits the arrival;
//! - [`Aqm::sends_feedback`]: [`QueueView::feedback_to_source`] says whether the arrival's
//!   source takes feedback frames; after the hook the engine collects the feedback with
//!   [`QueuePolicy::take_feedback`] and sends it to the source over the reverse route, and
//!   reports its delivery with [`QueuePolicy::on_feedback_delivered`];
//! - [`Aqm::may_be_fed_ahead`]: what the one-hop lookahead may do (`build::sole_feeders`).
//!
//! A port whose policy needs none of the first three takes the committed-FIFO fast path
//! (`Port::offer`): no view of the queued packets, no victims, no feedback.

pub mod asm_cp;
pub mod choke;
pub mod codel;
pub mod fq;
pub mod fq_codel;
pub mod pie;
pub mod qcn_cp;
pub mod red;
pub mod threshold;
pub mod threshold_dequeue;

use crate::packet::Packet;
use crate::rate::Feedback;
use crate::rng::Rng;
use crate::tagged::{by_kind, no_fields, variant, Parse};
use crate::units::SimTime;
use crate::world::FlowId;
pub use red::{Red, RedAction, RedConfig, RedMarkAt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
pub use threshold::{Threshold, ThresholdConfig};

/// What the queue looks like to an arriving packet (the arrival itself excluded), and what the
/// engine knows of the arrival that a policy may need.
#[derive(Clone, Copy, Debug)]
pub struct QueueView<'a> {
    /// Packets waiting (the packet on the wire is not counted, as in ns-2).
    pub pkts: u32,
    pub bytes: u64,
    /// When the queue last became empty, if it is empty now.
    pub empty_since: Option<SimTime>,
    /// Port line rate, bits/s.
    pub rate_bps: f64,
    /// When the link finishes sending the packets accepted so far if nothing more arrives (the
    /// end of the last committed transmission on the committed FIFO): an arrival at `t` waits
    /// `max(0, drained_at - t)` before its transmission starts. `SimTime::ZERO` in `of_size`.
    pub drained_at: SimTime,
    /// The waiting packets, oldest first, for a policy that [`Aqm::inspects_queue`];
    /// [`Queued::NONE`] for the others.
    pub queued: Queued<'a>,
    /// The arrival is a data frame whose source reacts to feedback frames (a rate-controlled
    /// flow): congestion points sample only such frames. Set for a policy that
    /// [`Aqm::sends_feedback`], false for the others.
    pub feedback_to_source: bool,
}

impl QueueView<'static> {
    /// A view of the queue's size alone: no queued packets to name and no feedback to send
    /// (what a policy that needs no engine help sees).
    pub fn of_size(pkts: u32, bytes: u64, empty_since: Option<SimTime>, rate_bps: f64) -> Self {
        QueueView {
            pkts,
            bytes,
            empty_since,
            rate_bps,
            drained_at: SimTime::ZERO,
            queued: Queued::NONE,
            feedback_to_source: false,
        }
    }
}

/// The packets waiting in a port's queue, as the engine holds them: the flow of the j-th one,
/// oldest first (`j < QueueView::pkts`). A borrowed lookup, so the view costs no allocation.
#[derive(Clone, Copy)]
pub struct Queued<'a>(Option<&'a dyn Fn(u32) -> FlowId>);

impl<'a> Queued<'a> {
    /// No view of the queued packets (a policy that does not inspect the queue).
    pub const NONE: Queued<'static> = Queued(None);

    /// The view `flow_of(j)` = flow of the j-th waiting packet, oldest first.
    pub fn of(flow_of: &'a dyn Fn(u32) -> FlowId) -> Self {
        Queued(Some(flow_of))
    }

    /// The flow of the j-th waiting packet (oldest first); None without a view.
    #[inline]
    pub fn flow_of(&self, j: u32) -> Option<FlowId> {
        self.0.map(|f| f(j))
    }
}

impl std::fmt::Debug for Queued<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Queued(..)"
        } else {
            "Queued::NONE"
        })
    }
}

/// An AQM's verdict on one arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Set CE if the packet is ECT; a non-ECT packet is dropped instead.
    Mark,
    Drop,
}

/// Most queued packets one decision can take back (CHOKe's most samples).
pub const MAX_VICTIMS: usize = choke::MAX_CHOKE_SAMPLES as usize;

/// Queued packets a decision takes back, as indices among the waiting packets (0 = oldest):
/// distinct and newest first, so that removing one does not shift those still to remove. They
/// share the arrival's verdict: with [`Verdict::Mark`] they are marked when the arrival is ECT
/// (they are packets of its flow) and dropped otherwise; with [`Verdict::Drop`] they are
/// dropped. Inline, so a decision costs no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Victims {
    idx: [u32; MAX_VICTIMS],
    n: u8,
}

impl Victims {
    /// No victim (every policy but CHOKe, and CHOKe without a match).
    pub const NONE: Victims = Victims {
        idx: [0; MAX_VICTIMS],
        n: 0,
    };

    /// The victims among `drawn` (indices among the waiting packets, at most [`MAX_VICTIMS`],
    /// possibly repeated): distinct, newest first.
    pub fn from_drawn(drawn: &[u32]) -> Victims {
        let mut v = Victims::NONE;
        let n = drawn.len().min(MAX_VICTIMS);
        v.idx[..n].copy_from_slice(&drawn[..n]);
        let s = &mut v.idx[..n];
        s.sort_unstable_by(|a, b| b.cmp(a));
        let mut k = 0;
        for i in 0..s.len() {
            if i == 0 || s[i] != s[i - 1] {
                s[k] = s[i];
                k += 1;
            }
        }
        v.n = k as u8;
        v
    }

    /// The indices, newest first.
    #[inline]
    pub fn as_slice(&self) -> &[u32] {
        &self.idx[..self.n as usize]
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

/// A queue policy's decision for one arriving packet: the verdict on the arrival and the queued
/// packets taken back with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    pub victims: Victims,
}

impl From<Verdict> for Decision {
    /// The verdict alone, no victim.
    #[inline(always)]
    fn from(verdict: Verdict) -> Decision {
        Decision {
            verdict,
            victims: Victims::NONE,
        }
    }
}

/// Queue-policy configuration, chosen by `kind`.
#[derive(Clone, Debug, Serialize, PartialEq, Default, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmConfig {
    /// Accept until the buffer is full (the port's limit), then tail-drop.
    #[default]
    DropTail,
    /// DCTCP switch: mark when the instantaneous queue exceeds K (P000 eq 8).
    Threshold(ThresholdConfig),
    /// Random Early Detection (Floyd & Jacobson 1993), mark or drop.
    Red(RedConfig),
    /// CHOKe / modified CHOKe with m samples (P003), with ECN.
    Choke(choke::ChokeConfig),
    /// IEEE 802.1Qau QCN congestion point (P002 §2.1): samples arrivals, sends CNMs; drop-tail buffer.
    Qcn(qcn_cp::QcnCpConfig),
    /// ASM congestion point (P002 §4.1): samples arrivals, sends Qf/dQ feedback; drop-tail buffer.
    Asm(asm_cp::AsmCpConfig),
    /// CoDel (RFC 8289): drops (or marks) at dequeue on the packets' sojourn time; the port takes the general path.
    Codel(codel::CodelConfig),
    /// PIE (RFC 8033): drops (or marks) at enqueue with a probability updated every t_update_s from the queueing delay.
    Pie(pie::PieConfig),
    /// FQ-CoDel (RFC 8290): flow queues served by DRR, each with CoDel; the port takes the general path.
    FqCodel(fq_codel::FqCodelConfig),
    /// Per-flow fair queueing: one queue per flow served by DRR (one-MTU quantum), no AQM; overflow drops from the fattest flow; the port takes the general path. For host NICs (topology.host_aqm).
    Fq(fq::FqConfig),
    /// DCTCP threshold marking at dequeue (htsim's ECNQueue): CE-mark a packet when the queue it leaves behind exceeds K; the port takes the general path.
    ThresholdDequeue(ThresholdConfig),
}

/// Every queue policy a scenario can name, with its parser: the one list of `aqm.kind` values
/// (an unknown kind is an error naming these).
pub const KINDS: &[(&str, Parse<AqmConfig>)] = &[
    ("drop_tail", |v| {
        no_fields("drop_tail", &v, " (the buffer is the port's)")?;
        Ok(AqmConfig::DropTail)
    }),
    ("threshold", |v| Ok(AqmConfig::Threshold(variant(v)?))),
    ("red", |v| Ok(AqmConfig::Red(variant(v)?))),
    ("choke", |v| Ok(AqmConfig::Choke(variant(v)?))),
    ("qcn", |v| Ok(AqmConfig::Qcn(variant(v)?))),
    ("asm", |v| Ok(AqmConfig::Asm(variant(v)?))),
    ("codel", |v| Ok(AqmConfig::Codel(variant(v)?))),
    ("pie", |v| Ok(AqmConfig::Pie(variant(v)?))),
    ("fq_codel", |v| Ok(AqmConfig::FqCodel(variant(v)?))),
    ("fq", |v| Ok(AqmConfig::Fq(variant(v)?))),
    ("threshold_dequeue", |v| {
        Ok(AqmConfig::ThresholdDequeue(variant(v)?))
    }),
];

impl<'de> Deserialize<'de> for AqmConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        by_kind::<AqmConfig, D::Error>(toml::Value::deserialize(d)?, KINDS)
    }
}

/// `Option<AqmConfig>` fields (`deserialize_with`): the same table.
pub fn option_aqm<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<AqmConfig>, D::Error> {
    AqmConfig::deserialize(d).map(Some)
}

impl AqmConfig {
    pub fn kind_name(&self) -> &'static str {
        match self {
            AqmConfig::DropTail => "drop_tail",
            AqmConfig::Threshold(_) => "threshold",
            AqmConfig::Red(_) => "red",
            AqmConfig::Choke(_) => "choke",
            AqmConfig::Qcn(_) => "qcn",
            AqmConfig::Asm(_) => "asm",
            AqmConfig::Codel(_) => "codel",
            AqmConfig::Pie(_) => "pie",
            AqmConfig::FqCodel(_) => "fq_codel",
            AqmConfig::Fq(_) => "fq",
            AqmConfig::ThresholdDequeue(_) => "threshold_dequeue",
        }
    }
}

/// The hooks of a queue policy.
pub trait QueuePolicy {
    /// Called for every packet arriving at the port, before the buffer-limit check.
    fn on_enqueue(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Decision;

    /// The feedback frame decided by the last [`QueuePolicy::on_enqueue`], for the arrival's
    /// source (congestion points); the engine takes it right after the hook. None by default.
    fn take_feedback(&mut self) -> Option<Feedback> {
        None
    }

    /// A feedback frame this port sent to `dest` at `sent_at` has reached its source. Ignored
    /// by default.
    fn on_feedback_delivered(&mut self, _dest: FlowId, _sent_at: SimTime) {}
}

/// Closed set of queue policies. The larger states are boxed so that a port stays compact
/// (DropTail and threshold marking, the common cases, stay inline).
#[derive(Clone, Debug)]
pub enum Aqm {
    DropTail,
    Threshold(Threshold),
    Red(Box<Red>),
    /// Inspects the queued packets and takes back matches: see `choke.rs`.
    Choke(Box<choke::Choke>),
    /// Congestion points: the engine sends their feedback; the buffer is drop-tail.
    QcnCp(Box<qcn_cp::QcnCp>),
    AsmCp(Box<asm_cp::AsmCp>),
    /// Enqueues every arrival; the port's classes run CoDel at dequeue (`net::sched`).
    Codel(codel::CodelConfig),
    /// Decides at enqueue from the exact queueing delay: see `pie.rs`.
    Pie(Box<pie::Pie>),
    /// Enqueues every arrival; the port's classes hold FQ-CoDel's flow queues (`net::sched`),
    /// which also decide what an overflow drops. `fq` is this variant with CoDel off and one
    /// queue per flow (`fq::FqConfig::as_flow_queues`): it declares what FQ-CoDel declares.
    FqCodel(Box<fq_codel::FqCodelConfig>),
    /// Enqueues every arrival; the port's classes mark at dequeue (`threshold_dequeue.rs`).
    ThresholdDequeue(Box<ThresholdConfig>),
    /// RED with `mark_at = "dequeue"`: enqueues every arrival; the port's classes decide at
    /// dequeue (`red::RedDequeue`).
    RedDequeue(Box<RedConfig>),
}

impl Aqm {
    /// `cpid` identifies the port for congestion points.
    pub fn from_config(cfg: &AqmConfig, packet_bytes: u32, cpid: u32) -> Aqm {
        match cfg {
            AqmConfig::Qcn(c) => Aqm::QcnCp(Box::new(qcn_cp::QcnCp::new(c, cpid))),
            AqmConfig::Asm(c) => Aqm::AsmCp(Box::new(asm_cp::AsmCp::new(c, cpid, packet_bytes))),
            AqmConfig::DropTail => Aqm::DropTail,
            AqmConfig::Threshold(c) => Aqm::Threshold(Threshold::new(c, packet_bytes)),
            AqmConfig::Red(c) if c.mark_at == RedMarkAt::Dequeue => {
                Aqm::RedDequeue(Box::new(c.clone()))
            }
            AqmConfig::Red(c) => Aqm::Red(Box::new(Red::new(c, packet_bytes))),
            AqmConfig::Choke(c) => Aqm::Choke(Box::new(choke::Choke::new(c, packet_bytes))),
            AqmConfig::Codel(c) => Aqm::Codel(*c),
            AqmConfig::Pie(c) => Aqm::Pie(Box::new(pie::Pie::new(c, packet_bytes))),
            AqmConfig::FqCodel(c) => Aqm::FqCodel(Box::new(*c)),
            AqmConfig::Fq(c) => Aqm::FqCodel(Box::new(c.as_flow_queues())),
            AqmConfig::ThresholdDequeue(c) => Aqm::ThresholdDequeue(Box::new(c.clone())),
        }
    }
}

/// What each policy declares to the engine: what its hooks need, and what the one-hop
/// lookahead may do (`build::sole_feeders`). Every match lists every policy, so a new one must
/// decide.
impl Aqm {
    /// Its enqueue hook reads the flows of the queued packets ([`QueueView::queued`]).
    pub fn inspects_queue(&self) -> bool {
        match self {
            Aqm::Choke(_) => true,
            Aqm::DropTail
            | Aqm::Threshold(_)
            | Aqm::Red(_)
            | Aqm::QcnCp(_)
            | Aqm::AsmCp(_)
            | Aqm::Codel(_)
            | Aqm::Pie(_)
            | Aqm::FqCodel(_)
            | Aqm::ThresholdDequeue(_)
            | Aqm::RedDequeue(_) => false,
        }
    }

    /// It decides at dequeue: the port takes the general path (`net::sched`), whose classes run
    /// its dequeue hook.
    pub fn decides_at_dequeue(&self) -> bool {
        match self {
            Aqm::Codel(_) | Aqm::FqCodel(_) | Aqm::ThresholdDequeue(_) | Aqm::RedDequeue(_) => true,
            Aqm::DropTail
            | Aqm::Threshold(_)
            | Aqm::Red(_)
            | Aqm::Choke(_)
            | Aqm::QcnCp(_)
            | Aqm::AsmCp(_)
            | Aqm::Pie(_) => false,
        }
    }

    /// Its arrivals take the engine's general path (a view of the queued packets, victims
    /// or feedback) rather than the committed-FIFO fast path of `Port::offer`.
    #[inline(always)]
    pub fn needs_engine(&self) -> bool {
        self.inspects_queue() || self.takes_back_queued() || self.sends_feedback()
    }

    /// Decides from the port's own arrivals alone, so its arrivals may be offered ahead of time
    /// by a sole feeder.
    pub fn may_be_fed_ahead(&self) -> bool {
        match self {
            // PIE's timer is caught up exactly at each arrival (pie.rs): its own arrivals decide
            Aqm::DropTail | Aqm::Threshold(_) | Aqm::Red(_) | Aqm::Pie(_) => true,
            Aqm::Choke(_)
            | Aqm::QcnCp(_)
            | Aqm::AsmCp(_)
            | Aqm::Codel(_)
            | Aqm::FqCodel(_)
            | Aqm::ThresholdDequeue(_)
            | Aqm::RedDequeue(_) => false,
        }
    }

    /// Takes back packets already queued (CHOKe's victims): such a port never feeds ahead.
    pub fn takes_back_queued(&self) -> bool {
        match self {
            Aqm::Choke(_) => true,
            Aqm::DropTail
            | Aqm::Threshold(_)
            | Aqm::Red(_)
            | Aqm::QcnCp(_)
            | Aqm::AsmCp(_)
            | Aqm::Codel(_)
            | Aqm::Pie(_)
            | Aqm::FqCodel(_)
            | Aqm::ThresholdDequeue(_)
            | Aqm::RedDequeue(_) => false,
        }
    }

    /// Sends feedback frames that enter routes mid-way (congestion points): a run with one
    /// has no lookahead.
    pub fn sends_feedback(&self) -> bool {
        match self {
            Aqm::QcnCp(_) | Aqm::AsmCp(_) => true,
            Aqm::DropTail
            | Aqm::Threshold(_)
            | Aqm::Red(_)
            | Aqm::Choke(_)
            | Aqm::Codel(_)
            | Aqm::Pie(_)
            | Aqm::FqCodel(_)
            | Aqm::ThresholdDequeue(_)
            | Aqm::RedDequeue(_) => false,
        }
    }
}

impl QueuePolicy for Aqm {
    /// Inlined into `Port::offer`, the committed-FIFO fast path (where the threshold hook is
    /// inlined in turn); the hooks of the general-path policies stay out of line.
    #[inline(always)]
    fn on_enqueue(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Decision {
        match self {
            Aqm::DropTail
            | Aqm::Codel(_)
            | Aqm::FqCodel(_)
            | Aqm::ThresholdDequeue(_)
            | Aqm::RedDequeue(_) => Verdict::Enqueue.into(),
            Aqm::Threshold(a) => a.on_enqueue(now, pkt, q, rng),
            Aqm::Red(a) => a.on_enqueue(now, pkt, q, rng),
            Aqm::Choke(a) => a.on_enqueue(now, pkt, q, rng),
            Aqm::QcnCp(a) => a.on_enqueue(now, pkt, q, rng),
            Aqm::AsmCp(a) => a.on_enqueue(now, pkt, q, rng),
            Aqm::Pie(a) => a.on_enqueue(now, pkt, q, rng),
        }
    }

    #[inline]
    fn take_feedback(&mut self) -> Option<Feedback> {
        match self {
            Aqm::DropTail
            | Aqm::Codel(_)
            | Aqm::FqCodel(_)
            | Aqm::ThresholdDequeue(_)
            | Aqm::RedDequeue(_) => None,
            Aqm::Threshold(a) => a.take_feedback(),
            Aqm::Red(a) => a.take_feedback(),
            Aqm::Choke(a) => a.take_feedback(),
            Aqm::QcnCp(a) => a.take_feedback(),
            Aqm::AsmCp(a) => a.take_feedback(),
            Aqm::Pie(a) => a.take_feedback(),
        }
    }

    fn on_feedback_delivered(&mut self, dest: FlowId, sent_at: SimTime) {
        match self {
            Aqm::DropTail
            | Aqm::Codel(_)
            | Aqm::FqCodel(_)
            | Aqm::ThresholdDequeue(_)
            | Aqm::RedDequeue(_) => {}
            Aqm::Threshold(a) => a.on_feedback_delivered(dest, sent_at),
            Aqm::Red(a) => a.on_feedback_delivered(dest, sent_at),
            Aqm::Choke(a) => a.on_feedback_delivered(dest, sent_at),
            Aqm::QcnCp(a) => a.on_feedback_delivered(dest, sent_at),
            Aqm::AsmCp(a) => a.on_feedback_delivered(dest, sent_at),
            Aqm::Pie(a) => a.on_feedback_delivered(dest, sent_at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(bytes: u64, feedback_to_source: bool) -> QueueView<'static> {
        QueueView {
            feedback_to_source,
            ..QueueView::of_size((bytes / 1500) as u32, bytes, None, 10e9)
        }
    }

    fn data(flow: u32) -> Packet {
        Packet::data_probe(FlowId(flow), 0, 1500, 0)
    }

    #[test]
    fn victims_are_distinct_and_newest_first() {
        let v = Victims::from_drawn(&[3, 7, 3, 0, 7]);
        assert_eq!(v.as_slice(), &[7, 3, 0]);
        assert!(Victims::NONE.is_empty() && !v.is_empty());
        let all: Vec<u32> = (0..MAX_VICTIMS as u32 + 5).collect();
        assert_eq!(Victims::from_drawn(&all).as_slice().len(), MAX_VICTIMS);
    }

    /// A congestion point samples only frames whose source takes feedback (no random draw for
    /// the others), keeps what it decided until the engine takes it once, and always enqueues.
    #[test]
    fn congestion_points_keep_their_feedback_for_the_engine_and_sample_only_rate_frames() {
        let qcn = qcn_cp::QcnCpConfig {
            sampling_p: 1.0,
            ..Default::default()
        };
        let asm = asm_cp::AsmCpConfig {
            sampling_p: 1.0,
            ..Default::default()
        };
        for cfg in [AqmConfig::Qcn(qcn), AqmConfig::Asm(asm)] {
            let mut a = Aqm::from_config(&cfg, 1500, 4);
            assert!(a.sends_feedback() && a.needs_engine() && !a.inspects_queue());
            let mut rng = Rng::stream(1, "cp");
            let untouched = rng.clone().uniform();
            // a frame of a window-based flow (or an ACK): nothing sampled, nothing drawn
            let d = a.on_enqueue(SimTime(0), &data(1), &view(600_000, false), &mut rng);
            assert_eq!(d, Verdict::Enqueue.into());
            assert_eq!(a.take_feedback(), None);
            assert_eq!(rng.clone().uniform(), untouched);
            // a frame of a rate-controlled flow, queue far above the set point: feedback
            let d = a.on_enqueue(SimTime(0), &data(1), &view(600_000, true), &mut rng);
            assert_eq!(d, Verdict::Enqueue.into());
            let fb = a
                .take_feedback()
                .expect("sampled with p = 1 above the set point");
            assert_eq!(fb.cpid, 4);
            assert_eq!(a.take_feedback(), None, "taken once");
            // an arrival's feedback does not outlive the next arrival
            a.on_enqueue(SimTime(1), &data(2), &view(600_000, true), &mut rng);
            a.on_enqueue(SimTime(2), &data(3), &view(600_000, false), &mut rng);
            assert_eq!(a.take_feedback(), None, "{}", cfg.kind_name());
        }
    }

    /// The delivery hook reaches ASM's de-duplication through the generic dispatch; the other
    /// policies ignore it and have no feedback.
    #[test]
    fn delivered_feedback_frees_the_asm_source_and_other_policies_ignore_the_hooks() {
        let cfg = AqmConfig::Asm(asm_cp::AsmCpConfig {
            sampling_p: 1.0,
            dedup_expiry: asm_cp::DedupExpiry::Delivered,
            ..Default::default()
        });
        let mut a = Aqm::from_config(&cfg, 1500, 0);
        let mut rng = Rng::stream(2, "cp");
        let q = view(30_000, true);
        a.on_enqueue(SimTime(5), &data(1), &q, &mut rng);
        assert!(a.take_feedback().is_some());
        a.on_enqueue(SimTime(6), &data(1), &q, &mut rng);
        assert_eq!(
            a.take_feedback(),
            None,
            "the same source is not sampled again"
        );
        a.on_feedback_delivered(FlowId(1), SimTime(5));
        a.on_enqueue(SimTime(7), &data(1), &q, &mut rng);
        assert!(a.take_feedback().is_some(), "sampled again once delivered");

        let red = "min_th_pkts = 5\nmax_th_pkts = 15";
        for text in [
            "kind = \"drop_tail\"".to_string(),
            "kind = \"threshold\"\nk_pkts = 1".to_string(),
            format!("kind = \"red\"\n{red}"),
        ] {
            let cfg: AqmConfig = toml::from_str(&text).expect("valid");
            let mut a = Aqm::from_config(&cfg, 1500, 0);
            assert!(!a.needs_engine(), "{text}");
            a.on_feedback_delivered(FlowId(1), SimTime(5));
            let d = a.on_enqueue(SimTime(0), &data(1), &view(30_000, false), &mut rng);
            assert!(d.victims.is_empty());
            assert_eq!(a.take_feedback(), None);
        }
    }

    /// RED with `mark_at = "dequeue"` decides at dequeue: its port takes the general path, its
    /// enqueue hook admits every arrival without a random draw, and it needs no engine help;
    /// the default (enqueue) keeps RED on the committed FIFO.
    #[test]
    fn red_at_dequeue_declares_a_dequeue_decision_and_admits_every_arrival() {
        let red = "kind = \"red\"\nmin_th_pkts = 1\nmax_th_pkts = 3\nw_q = 1";
        let enq: AqmConfig = toml::from_str(red).expect("valid");
        let a = Aqm::from_config(&enq, 1500, 0);
        assert!(matches!(a, Aqm::Red(_)) && !a.decides_at_dequeue() && a.may_be_fed_ahead());
        let deq: AqmConfig =
            toml::from_str(&format!("{red}\nmark_at = \"dequeue\"")).expect("valid");
        let mut a = Aqm::from_config(&deq, 1500, 0);
        assert!(a.decides_at_dequeue() && !a.needs_engine() && !a.may_be_fed_ahead());
        let mut rng = Rng::stream(4, "red");
        let untouched = rng.clone().uniform();
        let mut pkt = data(1);
        pkt.flags |= crate::packet::flags::ECT;
        let d = a.on_enqueue(SimTime(0), &pkt, &view(60 * 1500, false), &mut rng);
        assert_eq!(
            d,
            Verdict::Enqueue.into(),
            "far above max_th: decided at dequeue"
        );
        assert_eq!(rng.clone().uniform(), untouched);
        assert_eq!(deq.kind_name(), "red");
    }

    /// CHOKe reads the queued packets through the view and names its matches as victims.
    #[test]
    fn choke_reads_the_queue_through_the_view_and_returns_victims() {
        let cfg: AqmConfig = toml::from_str(
            "kind = \"choke\"\nmin_th_pkts = 1\nmax_th_pkts = 15\nw_q = 1\nsamples = 3",
        )
        .expect("valid");
        let mut a = Aqm::from_config(&cfg, 1500, 0);
        assert!(a.inspects_queue() && a.takes_back_queued() && a.needs_engine());
        let mut rng = Rng::stream(3, "choke");
        let same = |_j: u32| FlowId(9);
        let q = QueueView {
            queued: Queued::of(&same),
            ..view(12 * 1500, false)
        };
        let d = a.on_enqueue(SimTime(0), &data(9), &q, &mut rng);
        assert_eq!(d.verdict, Verdict::Mark);
        assert!(!d.victims.is_empty() && d.victims.as_slice().iter().all(|&j| j < 12));
        let other = |_j: u32| FlowId(8);
        let q = QueueView {
            queued: Queued::of(&other),
            ..view(12 * 1500, false)
        };
        let d = a.on_enqueue(SimTime(0), &data(9), &q, &mut rng);
        assert!(d.victims.is_empty(), "no match, no victim");
    }

    /// Each kind in the table reads as its own variant (no kind falls through to another's
    /// parser), and an unknown kind names every allowed one.
    #[test]
    fn every_kind_reads_as_itself_and_unknown_kinds_list_the_table() {
        let extra = |k: &str| match k {
            "threshold" | "threshold_dequeue" => "k_pkts = 20",
            "red" | "choke" => "min_th_pkts = 5\nmax_th_pkts = 15",
            _ => "",
        };
        for (name, _) in KINDS {
            let text = format!("kind = \"{name}\"\n{}", extra(name));
            let cfg: AqmConfig = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(cfg.kind_name(), *name);
        }
        let err = toml::from_str::<AqmConfig>("kind = \"codle\"")
            .unwrap_err()
            .to_string();
        for (name, _) in KINDS {
            assert!(err.contains(&format!("`{name}`")), "{err}");
        }
        let err = toml::from_str::<AqmConfig>("kind = \"drop_tail\"\nk_pkts = 3")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown field `k_pkts`: drop_tail has no parameters"),
            "{err}"
        );
    }
}
