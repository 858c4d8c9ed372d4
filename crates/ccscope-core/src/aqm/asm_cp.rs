//! ASM congestion point (P002 §4.1 "Congestion Point", §4.5 "Sampling", §5.1;
//! ALGORITHMS.md §5.1).
//!
//! Place in the pipeline: the queue policy of a switch egress port (drop-tail buffer). It
//! declares [`super::Aqm::sends_feedback`]; its enqueue hook samples every data frame of a
//! rate-controlled flow ([`QueueView::feedback_to_source`]) with [`AsmCp::on_arrival`], from the
//! queue the frame finds (bytes, the arrival itself excluded), and keeps the resulting
//! [`Feedback`] until the engine takes it ([`QueuePolicy::take_feedback`]) and sends it to the
//! frame's source (its [`crate::rate::AsmRp`]) over the reverse path.
//!
//! Unlike QCN, *every* sample produces a feedback frame, for increase and decrease alike, and
//! it carries the queue offset and the queue change separately (the RP forms Fb itself):
//! ```text
//! Qf = q - q0;  dQ = q - q_old;  q_old <- q          (P002 eqs 4-5, §4.1)
//! each quantized to a signed 8-bit value in units of `quantum_pkts` packets
//! (round to nearest, saturating at ±127; unit 1 packet [CHOICE], E36)
//! ```
//! Sampling: Bernoulli with fixed probability p per frame (P002 §5.1 p = 0.01), drawn from the
//! port's own random stream.
//!
//! De-duplication (§4.5). The paper's text: "as the sampling interval may become smaller than the
//! propagation delay ..., a feedback packet may be generated before the former feedback packet
//! arriving the sender ... one of the feedback packet becomes redundant. In our implementation,
//! the destination address of the feedback packet is recorded and then the incoming packet, whose
//! source address is the same as the recorded destination address, will not be sampled." The CP
//! records the destination of its last feedback and skips that source's frames. By default
//! (`dedup_expiry = "never"`) the memory ends only when a frame of another source is sampled:
//! the rule as §4.5 states it and as ALGORITHMS.md §5.1 reads it ("do not sample a frame from
//! that source next"), the basis of every reproduction (docs/VERDICTS.md §4, FIGURES.md guidance
//! §2). Its consequences are part of the model: a CP crossed by a single ASM source sends it one
//! feedback in all and that source's rate never changes again, and where one source carries
//! most frames the CP cannot sample it twice in a row, so feedback becomes rare
//! (docs/models/asm.md, "De-duplication"). Labelled variants, never the basis of a verdict:
//! `dedup_expiry = "delivered"` also ends the memory when that feedback frame reaches its source
//! (the engine tells the CP, [`QueuePolicy::on_feedback_delivered`]): §4.5's stated purpose, only a
//! feedback generated before the former one arrives is redundant. `dedup_window_s` additionally
//! ends the memory a fixed time after
//! the feedback; `dedup = false` turns the rule off.

use super::{Decision, QueuePolicy, QueueView, Verdict};
use crate::error::ScenarioError;
use crate::packet::Packet;
use crate::rate::{check_pos, check_unit, Feedback, FeedbackKind, ASM_FEEDBACK_MAX_UNITS};
use crate::rng::Rng;
use crate::units::{SimDuration, SimTime};
use crate::world::FlowId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// ASM congestion-point parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AsmCpConfig {
    /// Queue set point q0, packets (>= 0; converted with the scenario's packet size).
    /// Default 5 (P002 §5.2 ns-2 runs; the NetFPGA run of Fig 5 uses 64).
    #[serde(default = "default_q0_pkts")]
    pub q0_pkts: f64,
    /// Sampling probability p per arriving frame (0 < p <= 1). Default 0.01 (P002 §5.1).
    #[serde(default = "default_sampling_p")]
    pub sampling_p: f64,
    /// Quantization unit of Qf and dQ, packets (> 0). Default 1 ([CHOICE], E36: P002 gives
    /// 8 bits but no unit).
    #[serde(default = "default_quantum_pkts")]
    pub quantum_pkts: f64,
    /// Do not sample the source that received the last feedback (P002 §4.5). Default true.
    #[serde(default = "default_true")]
    pub dedup: bool,
    /// When the memory of the last destination ends, besides another source being sampled:
    /// "never" (default: the literal §4.5 rule; a lone source then gets a single feedback in all)
    /// or "delivered" (a variant: also when that feedback reaches its source, §4.5's stated
    /// purpose: only a feedback generated before the former one arrives is redundant).
    #[serde(default)]
    pub dedup_expiry: DedupExpiry,
    /// Also forget that source this many seconds after its feedback (> 0). Default: unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedup_window_s: Option<f64>,
}

/// When an ASM CP's memory of its last feedback destination ends (see [`AsmCpConfig`]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DedupExpiry {
    /// Only when a frame of another source is sampled (the literal §4.5 rule; the default).
    #[default]
    Never,
    /// Also when that feedback frame arrives at its source (a variant).
    Delivered,
}

fn default_q0_pkts() -> f64 {
    5.0
}
fn default_sampling_p() -> f64 {
    0.01
}
fn default_quantum_pkts() -> f64 {
    1.0
}
fn default_true() -> bool {
    true
}

impl Default for AsmCpConfig {
    fn default() -> Self {
        AsmCpConfig {
            q0_pkts: default_q0_pkts(),
            sampling_p: default_sampling_p(),
            quantum_pkts: default_quantum_pkts(),
            dedup: true,
            dedup_expiry: DedupExpiry::Never,
            dedup_window_s: None,
        }
    }
}

impl AsmCpConfig {
    /// Range checks; `path` is the dotted scenario path of this config (e.g. `"links[0].asm_cp"`).
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        crate::rate::check_nonneg(path, "q0_pkts", self.q0_pkts)?;
        check_unit(path, "sampling_p", self.sampling_p, true)?;
        check_pos(path, "quantum_pkts", self.quantum_pkts)?;
        if let Some(w) = self.dedup_window_s {
            check_pos(path, "dedup_window_s", w)?;
        }
        Ok(())
    }
}

/// Quantize a signed byte amount to quantum units: round to nearest, saturate at ±127.
#[inline]
pub fn quantize_units(bytes: f64, unit_bytes: f64) -> i8 {
    let max = ASM_FEEDBACK_MAX_UNITS as f64;
    // NaN (impossible with a validated config) casts to 0
    (bytes / unit_bytes).round().clamp(-max, max) as i8
}

/// ASM congestion-point state (one per port).
#[derive(Clone, Debug)]
pub struct AsmCp {
    cpid: u32,
    q0_bytes: f64,
    unit_bytes: f64,
    p: f64,
    dedup: bool,
    dedup_expiry: DedupExpiry,
    dedup_window: Option<SimDuration>,
    /// Queue at the previous sample, bytes.
    pub q_old_bytes: u64,
    /// Source of the last feedback and when it was sent (de-duplication, §4.5).
    pub last_dest: Option<(FlowId, SimTime)>,
    /// Frames sampled (= feedback frames sent).
    pub samples: u64,
    /// Frames not considered for sampling because of de-duplication.
    pub dedup_skips: u64,
    /// The feedback of the last arrival, until the engine takes it.
    pending: Option<Feedback>,
}

impl AsmCp {
    /// The congestion point of the port whose id is `cpid`, for frames of `packet_bytes`
    /// (the unit of `q0_pkts` and `quantum_pkts`).
    pub fn new(cfg: &AsmCpConfig, cpid: u32, packet_bytes: u32) -> Self {
        AsmCp {
            cpid,
            q0_bytes: cfg.q0_pkts * packet_bytes as f64,
            unit_bytes: cfg.quantum_pkts * packet_bytes as f64,
            p: cfg.sampling_p,
            dedup: cfg.dedup,
            dedup_expiry: cfg.dedup_expiry,
            dedup_window: cfg.dedup_window_s.map(SimDuration::from_secs_f64),
            q_old_bytes: 0,
            last_dest: None,
            samples: 0,
            dedup_skips: 0,
            pending: None,
        }
    }

    /// The quantized (Qf, dQ) for queue `q` after a sample at `q_old`, bytes.
    #[inline]
    pub fn quantized(&self, q_bytes: u64, q_old_bytes: u64) -> (i8, i8) {
        let qf = q_bytes as f64 - self.q0_bytes;
        let dq = q_bytes as f64 - q_old_bytes as f64;
        (
            quantize_units(qf, self.unit_bytes),
            quantize_units(dq, self.unit_bytes),
        )
    }

    fn is_duplicate(&self, now: SimTime, src: FlowId) -> bool {
        match self.last_dest {
            Some((f, at)) if self.dedup && f == src => {
                self.dedup_window.is_none_or(|w| now < at + w)
            }
            _ => false,
        }
    }

    /// The feedback this CP sent to `dest` at `sent_at` has reached it: with
    /// `dedup_expiry = "delivered"` that source may be sampled again.
    #[inline]
    pub fn feedback_delivered(&mut self, dest: FlowId, sent_at: SimTime) {
        if self.dedup_expiry == DedupExpiry::Delivered && self.last_dest == Some((dest, sent_at)) {
            self.last_dest = None;
        }
    }

    /// Called for every data frame of a rate-controlled flow arriving at the port; `q` is the
    /// queue before the arrival. Returns the feedback to send to `pkt.flow`'s source, if sampled.
    #[inline]
    pub fn on_arrival(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut Rng,
    ) -> Option<Feedback> {
        if self.is_duplicate(now, pkt.flow) {
            self.dedup_skips += 1;
            return None;
        }
        if rng.uniform() >= self.p {
            return None;
        }
        self.samples += 1;
        let (qf, dq) = self.quantized(q.bytes, self.q_old_bytes);
        self.q_old_bytes = q.bytes;
        self.last_dest = Some((pkt.flow, now));
        Some(Feedback {
            cpid: self.cpid,
            kind: FeedbackKind::Asm { qf, dq },
        })
    }
}

impl QueuePolicy for AsmCp {
    /// Samples the arrival when it is a data frame of a rate-controlled flow; the buffer is
    /// drop-tail, so the verdict is always to enqueue.
    #[inline]
    fn on_enqueue(&mut self, now: SimTime, pkt: &Packet, q: &QueueView, rng: &mut Rng) -> Decision {
        self.pending = if q.feedback_to_source {
            self.on_arrival(now, pkt, q, rng)
        } else {
            None
        };
        Verdict::Enqueue.into()
    }

    #[inline]
    fn take_feedback(&mut self) -> Option<Feedback> {
        self.pending.take()
    }

    #[inline]
    fn on_feedback_delivered(&mut self, dest: FlowId, sent_at: SimTime) {
        self.feedback_delivered(dest, sent_at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(flow: u32) -> Packet {
        Packet::data_probe(FlowId(flow), 0, 1500, 0)
    }

    fn qv(bytes: u64) -> QueueView<'static> {
        QueueView::of_size((bytes / 1500) as u32, bytes, None, 1e9)
    }

    fn asm(fb: Option<Feedback>) -> Option<(i8, i8)> {
        match fb?.kind {
            FeedbackKind::Asm { qf, dq } => Some((qf, dq)),
            FeedbackKind::Qcn { .. } => None,
        }
    }

    #[test]
    fn every_sample_carries_quantized_qf_and_dq_for_increase_and_decrease() {
        // q0 = 5 pkts = 7 500 B, unit 1 packet; sample every frame, alternate sources
        let cfg = AsmCpConfig {
            sampling_p: 1.0,
            ..Default::default()
        };
        let mut cp = AsmCp::new(&cfg, 11, 1500);
        let mut rng = Rng::stream(1, "t");
        // (queue bytes, Qf, dQ)
        let trace: [(u64, i8, i8); 6] = [
            (0, -5, 0),            // empty: below q0 -> increase feedback too
            (15_000, 5, 10),       // 10 packets in one interval
            (15_700, 5, 0),        // +700 B rounds to 0 units, Qf 5.47 -> 5
            (16_500, 6, 1),        // +800 B rounds to 1 unit, Qf 6.0
            (7_500, 0, -6),        // back at q0: Qf 0
            (1_000_000, 127, 127), // saturates at +127 units
        ];
        for (i, (q, qf, dq)) in trace.iter().enumerate() {
            let f = cp.on_arrival(SimTime(0), &pkt(i as u32 % 2), &qv(*q), &mut rng);
            assert_eq!(asm(f), Some((*qf, *dq)), "step {i}");
            assert_eq!(f.map(|f| f.cpid), Some(11));
        }
        assert_eq!(cp.quantized(0, 1_000_000), (-5, -127));
        assert_eq!(cp.samples, 6);
    }

    #[test]
    fn quantum_option_scales_the_unit() {
        let cfg = AsmCpConfig {
            quantum_pkts: 2.0,
            q0_pkts: 0.0,
            ..Default::default()
        };
        let cp = AsmCp::new(&cfg, 0, 1000);
        assert_eq!(cp.quantized(10_000, 4_000), (5, 3));
        assert_eq!(quantize_units(-1e9, 1500.0), -127);
        assert_eq!(quantize_units(-750.0, 1500.0), -1); // half away from zero
    }

    #[test]
    fn sampling_is_one_percent_without_dedup() {
        let cfg = AsmCpConfig {
            dedup: false,
            ..Default::default()
        };
        let mut cp = AsmCp::new(&cfg, 0, 1500);
        let mut rng = Rng::stream(9, "port/1");
        let n = 200_000;
        let sent = (0..n)
            .filter(|_| {
                cp.on_arrival(SimTime(0), &pkt(0), &qv(30_000), &mut rng)
                    .is_some()
            })
            .count();
        let rate = sent as f64 / n as f64;
        assert!((rate - 0.01).abs() < 0.001, "sampled {rate}");
    }

    #[test]
    fn dedup_skips_the_last_destination_until_its_feedback_is_delivered() {
        // the "delivered" variant (§4.5's purpose): only a feedback still in flight blocks its source
        let cfg = AsmCpConfig {
            sampling_p: 1.0,
            dedup_expiry: DedupExpiry::Delivered,
            ..Default::default()
        };
        let mut cp = AsmCp::new(&cfg, 0, 1500);
        let mut rng = Rng::stream(1, "t");
        let t0 = SimTime(5);
        assert!(cp.on_arrival(t0, &pkt(1), &qv(0), &mut rng).is_some());
        assert!(cp
            .on_arrival(SimTime(6), &pkt(1), &qv(0), &mut rng)
            .is_none());
        // an older feedback's delivery (another send time) does not end the memory
        cp.feedback_delivered(FlowId(1), SimTime(1));
        assert!(cp
            .on_arrival(SimTime(7), &pkt(1), &qv(0), &mut rng)
            .is_none());
        cp.feedback_delivered(FlowId(1), t0);
        assert!(cp
            .on_arrival(SimTime(8), &pkt(1), &qv(0), &mut rng)
            .is_some());
        assert_eq!(cp.dedup_skips, 2);
        // a lone source keeps being sampled, one feedback per delivery (the literal default
        // stops after the first)
        for k in 0..20u64 {
            let sent = SimTime(10 + 2 * k);
            cp.feedback_delivered(FlowId(1), SimTime(8 + 2 * k));
            assert!(cp.on_arrival(sent, &pkt(1), &qv(0), &mut rng).is_some());
        }
        assert_eq!(cp.samples, 22);
        // sampling another source also ends the memory, as in the literal reading
        assert!(cp
            .on_arrival(SimTime(60), &pkt(2), &qv(0), &mut rng)
            .is_some());
        assert!(cp
            .on_arrival(SimTime(61), &pkt(1), &qv(0), &mut rng)
            .is_some());
    }

    #[test]
    fn literal_dedup_skips_the_last_destination_until_another_source_is_sampled() {
        // the default: the rule as §4.5 states it
        let cfg = AsmCpConfig {
            sampling_p: 1.0,
            ..Default::default()
        };
        assert_eq!(cfg.dedup_expiry, DedupExpiry::Never);
        let mut cp = AsmCp::new(&cfg, 0, 1500);
        let mut rng = Rng::stream(1, "t");
        let now = SimTime(0);
        assert!(cp.on_arrival(now, &pkt(1), &qv(0), &mut rng).is_some());
        cp.feedback_delivered(FlowId(1), now);
        for _ in 0..50 {
            assert!(cp.on_arrival(now, &pkt(1), &qv(0), &mut rng).is_none());
        }
        assert_eq!(cp.dedup_skips, 50);
        assert!(cp.on_arrival(now, &pkt(2), &qv(0), &mut rng).is_some());
        assert!(cp.on_arrival(now, &pkt(2), &qv(0), &mut rng).is_none());
        assert!(cp.on_arrival(now, &pkt(1), &qv(0), &mut rng).is_some());
        // off: consecutive feedback to one source
        let cfg = AsmCpConfig {
            sampling_p: 1.0,
            dedup: false,
            ..Default::default()
        };
        let mut cp = AsmCp::new(&cfg, 0, 1500);
        assert!(cp.on_arrival(now, &pkt(1), &qv(0), &mut rng).is_some());
        assert!(cp.on_arrival(now, &pkt(1), &qv(0), &mut rng).is_some());
    }

    #[test]
    fn dedup_window_lets_a_single_source_be_sampled_again_after_it_expires() {
        let cfg = AsmCpConfig {
            sampling_p: 1.0,
            dedup_window_s: Some(1e-6),
            ..Default::default()
        };
        let mut cp = AsmCp::new(&cfg, 0, 1500);
        let mut rng = Rng::stream(1, "t");
        assert!(cp
            .on_arrival(SimTime(0), &pkt(1), &qv(0), &mut rng)
            .is_some());
        assert!(cp
            .on_arrival(SimTime(999_999), &pkt(1), &qv(0), &mut rng)
            .is_none());
        assert!(cp
            .on_arrival(SimTime(1_000_000), &pkt(1), &qv(0), &mut rng)
            .is_some());
    }

    #[test]
    fn config_defaults_and_validation() {
        let c = AsmCpConfig::default();
        assert_eq!(
            (c.q0_pkts, c.sampling_p, c.quantum_pkts, c.dedup),
            (5.0, 0.01, 1.0, true)
        );
        // the memory of the last destination ends only when another source is sampled (§4.5)
        assert_eq!(c.dedup_expiry, DedupExpiry::Never);
        let parsed: AsmCpConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(parsed, c);
        let var: AsmCpConfig = serde_json::from_str(r#"{"dedup_expiry": "delivered"}"#).unwrap();
        assert_eq!(var.dedup_expiry, DedupExpiry::Delivered);
        assert!(c.validate("cp").is_ok());
        let e = AsmCpConfig {
            quantum_pkts: 0.0,
            ..Default::default()
        }
        .validate("cp")
        .map_err(|e| e.path);
        assert_eq!(e, Err("cp.quantum_pkts".to_string()));
        assert!(serde_json::from_str::<AsmCpConfig>(r#"{"q0": 5}"#).is_err());
    }
}
