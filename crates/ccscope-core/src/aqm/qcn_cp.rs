//! QCN congestion point (IEEE 802.1Qau; P002 §2.1, §2.3.1 eqs 4-5, App. A; ALGORITHMS.md §4.1).
//!
//! Place in the pipeline: the queue policy of a switch egress port (drop-tail buffer). It
//! declares [`super::Aqm::sends_feedback`]; its enqueue hook samples every data frame of a
//! rate-controlled flow ([`QueueView::feedback_to_source`]) with [`QcnCp::on_arrival`], from the
//! queue the frame finds (bytes, the arrival itself excluded), and keeps the resulting CNM
//! ([`Feedback`]) until the engine takes it ([`QueuePolicy::take_feedback`]) and sends it to the
//! frame's source (its [`crate::rate::QcnRp`]) over the reverse path.
//!
//! Per sampled frame, with the instantaneous queue q in bytes:
//! ```text
//! Qoff = q - Qeq;  Qdelta = q - q_old;  q_old <- q
//! Fb = -(Qoff + w Qdelta)                                                   (P002 eq 4)
//! Fb < 0:  qntzFb = min(63, floor(-Fb 63 / (Qeq (2w + 1))))  -> CNM(qntzFb, CPID)
//! ```
//! `Fb >= 0` sends nothing (QCN increases are self-timed at the RP). A CNM is sent for every
//! `Fb < 0`, even when it quantizes to 0 (ALGORITHMS.md §4.1 literally; floor rounding [CHOICE]).
//!
//! Sampling: Bernoulli with fixed probability p = 1% per frame by default (P002 App. A "p_s";
//! E30), drawn from the port's own random stream; or, as an option, the 802.1Qau sampling
//! table: a byte countdown that restarts at `SampleTable[qntzFb / 8]` times a jitter drawn
//! uniformly from `[1 - j, 1 + j]` ([STD] QCN pseudocode; jitter [CHOICE]).

use super::{Decision, QueuePolicy, QueueView, Verdict};
use crate::error::ScenarioError;
use crate::packet::Packet;
use crate::rate::{check_nonneg, check_pos, check_unit, Feedback, FeedbackKind, QCN_FB_MAX};
use crate::rng::Rng;
use crate::units::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The 802.1Qau sampling intervals for a 150 KB base, bytes, indexed by `qntzFb / 8`
/// (≈ 1, 2, 3, 4, 5, 6, 7, 8.1 % of 1500-B frames). [STD] QCN pseudocode as reproduced in
/// public implementations (ALGORITHMS.md §4.1); scaled by `sample_base_bytes / 150 000`.
pub const QCN_SAMPLE_TABLE_BYTES: [u32; 8] = [
    150_000, 75_000, 50_000, 37_500, 30_000, 25_000, 21_500, 18_500,
];

/// The base interval the table above is written for, bytes ([STD] MIB `cpMinSampleBase`).
pub const QCN_SAMPLE_TABLE_BASE_BYTES: u32 = 150_000;

/// Quantized feedback values per table row: `qntzFb div 8` (6-bit qntzFb -> 8 rows).
const QCN_SAMPLE_TABLE_ROW_FB: u8 = 8;

/// QCN congestion-point parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QcnCpConfig {
    /// Queue set point Qeq, bytes (> 0). Default 26 000 ([STD] IEEE8021-CN-MIB
    /// `cpQueueSizeSetPoint`; P002's runs use q0 = 5 or 64 packets: E30).
    #[serde(default = "default_q_eq_bytes")]
    pub q_eq_bytes: u64,
    /// Weight w of Qdelta in Fb (dimensionless, >= 0). Default 2 ([STD] MIB `cpFeedbackWeight`;
    /// P002 App. A).
    #[serde(default = "default_w")]
    pub w: f64,
    /// Fixed sampling probability p per arriving frame (0 < p <= 1). Default 0.01 (P002 App. A
    /// p_s = 1%; E30). Ignored when `sampling_table` is on.
    #[serde(default = "default_sampling_p")]
    pub sampling_p: f64,
    /// Use the 802.1Qau sampling table instead of a fixed p. Default false (E30).
    #[serde(default)]
    pub sampling_table: bool,
    /// Base sampling interval of the table, bytes (> 0). Default 150 000 ([STD] MIB
    /// `cpMinSampleBase`).
    #[serde(default = "default_sample_base_bytes")]
    pub sample_base_bytes: u32,
    /// Half-width j of the uniform jitter factor U(1 - j, 1 + j) on table intervals
    /// (0 <= j < 1). Default 0.15 ([CHOICE], ALGORITHMS.md §4.1).
    #[serde(default = "default_sampling_jitter")]
    pub sampling_jitter: f64,
}

fn default_q_eq_bytes() -> u64 {
    26_000
}
fn default_w() -> f64 {
    2.0
}
fn default_sampling_p() -> f64 {
    0.01
}
fn default_sample_base_bytes() -> u32 {
    QCN_SAMPLE_TABLE_BASE_BYTES
}
fn default_sampling_jitter() -> f64 {
    0.15
}

impl Default for QcnCpConfig {
    fn default() -> Self {
        QcnCpConfig {
            q_eq_bytes: default_q_eq_bytes(),
            w: default_w(),
            sampling_p: default_sampling_p(),
            sampling_table: false,
            sample_base_bytes: default_sample_base_bytes(),
            sampling_jitter: default_sampling_jitter(),
        }
    }
}

impl QcnCpConfig {
    /// Range checks; `path` is the dotted scenario path of this config (e.g. `"links[0].qcn_cp"`).
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if self.q_eq_bytes == 0 {
            return Err(ScenarioError::new(
                format!("{path}.q_eq_bytes"),
                0,
                "must be >= 1",
            ));
        }
        check_nonneg(path, "w", self.w)?;
        check_unit(path, "sampling_p", self.sampling_p, true)?;
        check_pos(path, "sample_base_bytes", self.sample_base_bytes as f64)?;
        if !(self.sampling_jitter.is_finite() && (0.0..1.0).contains(&self.sampling_jitter)) {
            return Err(ScenarioError::new(
                format!("{path}.sampling_jitter"),
                self.sampling_jitter,
                "must be in [0, 1)",
            ));
        }
        Ok(())
    }
}

/// QCN congestion-point state (one per port).
#[derive(Clone, Debug)]
pub struct QcnCp {
    cpid: u32,
    q_eq: f64,
    w: f64,
    p: f64,
    table: bool,
    table_scale: f64,
    jitter: f64,
    /// Queue at the previous sample, bytes.
    pub q_old_bytes: u64,
    /// Table mode: bytes left before the next sample.
    countdown_bytes: i64,
    /// Fb of the last sample, bytes.
    pub last_fb: f64,
    /// Quantized |Fb| of the last sample (0 when Fb >= 0).
    pub last_fb_q: u8,
    /// Frames sampled so far.
    pub samples: u64,
    /// CNMs generated so far.
    pub cnms: u64,
    /// The CNM of the last arrival, until the engine takes it.
    pending: Option<Feedback>,
}

impl QcnCp {
    /// The congestion point of the port whose id is `cpid` (carried in its CNMs).
    pub fn new(cfg: &QcnCpConfig, cpid: u32) -> Self {
        let table_scale = cfg.sample_base_bytes as f64 / QCN_SAMPLE_TABLE_BASE_BYTES as f64;
        QcnCp {
            cpid,
            q_eq: cfg.q_eq_bytes as f64,
            w: cfg.w,
            p: cfg.sampling_p,
            table: cfg.sampling_table,
            table_scale,
            jitter: cfg.sampling_jitter,
            q_old_bytes: 0,
            countdown_bytes: cfg.sample_base_bytes as i64,
            last_fb: 0.0,
            last_fb_q: 0,
            samples: 0,
            cnms: 0,
            pending: None,
        }
    }

    /// Fb = -(Qoff + w Qdelta) for queue `q` and previous sample `q_old`, bytes (eq 4).
    #[inline]
    pub fn feedback_value(&self, q_bytes: u64, q_old_bytes: u64) -> f64 {
        let q_off = q_bytes as f64 - self.q_eq;
        let q_delta = q_bytes as f64 - q_old_bytes as f64;
        -(q_off + self.w * q_delta)
    }

    /// 6-bit quantization of a negative Fb: `min(63, floor(-Fb 63 / (Qeq (2w + 1))))`;
    /// 0 for `Fb >= 0`.
    #[inline]
    pub fn quantize(&self, fb: f64) -> u8 {
        // `>=` is false for NaN too, so a NaN Fb also sends 0 through the `as u8` below
        if fb >= 0.0 {
            return 0;
        }
        let full_scale = self.q_eq * (2.0 * self.w + 1.0);
        let q = (-fb * QCN_FB_MAX as f64 / full_scale).floor();
        // `as` saturates; NaN (impossible with a validated config) would give 0
        (q.min(QCN_FB_MAX as f64)) as u8
    }

    /// Table mode: the interval before the next sample after a sample quantized to `fb_q`.
    fn next_interval_bytes(&self, fb_q: u8, rng: &mut Rng) -> i64 {
        let row = (fb_q / QCN_SAMPLE_TABLE_ROW_FB) as usize;
        let base = QCN_SAMPLE_TABLE_BYTES[row.min(QCN_SAMPLE_TABLE_BYTES.len() - 1)] as f64
            * self.table_scale;
        let factor = 1.0 - self.jitter + 2.0 * self.jitter * rng.uniform();
        ((base * factor).round() as i64).max(1)
    }

    /// Called for every data frame of a rate-controlled flow arriving at the port; `q` is the
    /// queue before the arrival. Returns the CNM to send to `pkt.flow`'s source, if any.
    #[inline]
    pub fn on_arrival(
        &mut self,
        _now: SimTime,
        pkt: &Packet,
        q: &QueueView,
        rng: &mut Rng,
    ) -> Option<Feedback> {
        let sample = if self.table {
            self.countdown_bytes -= pkt.size_bytes as i64;
            self.countdown_bytes <= 0
        } else {
            rng.uniform() < self.p
        };
        if !sample {
            return None;
        }
        self.samples += 1;
        let fb = self.feedback_value(q.bytes, self.q_old_bytes);
        self.q_old_bytes = q.bytes;
        let fb_q = self.quantize(fb);
        self.last_fb = fb;
        self.last_fb_q = fb_q;
        if self.table {
            // carry the overshoot so the mean interval is the table's (≈ 1..8.1 % of frames)
            self.countdown_bytes =
                (self.countdown_bytes + self.next_interval_bytes(fb_q, rng)).max(1);
        }
        if fb < 0.0 {
            self.cnms += 1;
            Some(Feedback {
                cpid: self.cpid,
                kind: FeedbackKind::Qcn { fb_q },
            })
        } else {
            None
        }
    }
}

impl QueuePolicy for QcnCp {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FlowId;

    fn pkt(flow: u32, size: u32) -> Packet {
        Packet::data_probe(FlowId(flow), 0, size, 0)
    }

    fn qv(bytes: u64) -> QueueView<'static> {
        QueueView::of_size((bytes / 1500) as u32, bytes, None, 10e9)
    }

    /// A CP that samples every frame.
    fn always() -> QcnCp {
        QcnCp::new(
            &QcnCpConfig {
                sampling_p: 1.0,
                ..Default::default()
            },
            4,
        )
    }

    #[test]
    fn feedback_and_quantization_follow_a_synthetic_queue_exactly() {
        // Qeq = 26 000 B, w = 2: full scale Qeq (2w + 1) = 130 000 B -> 63
        let mut cp = always();
        let mut rng = Rng::stream(1, "t");
        // (queue bytes, Fb, qntzFb or None)
        let trace: [(u64, f64, Option<u8>); 7] = [
            (0, 26_000.0, None),             // empty: Qoff = -26 000, Qdelta = 0
            (20_000, -34_000.0, Some(16)), // Qoff -6 000, Qdelta +20 000: floor(34 000 63/130 000) = 16
            (30_000, -24_000.0, Some(11)), // Qoff 4 000, Qdelta 10 000: floor(11.63)
            (30_000, -4_000.0, Some(1)),   // steady above Qeq: floor(1.94)
            (26_000, 8_000.0, None),       // at Qeq, draining: Fb > 0, no CNM
            (26_500, -1_500.0, Some(0)),   // small Fb < 0 quantizes to 0 (still a CNM)
            (150_000, -371_000.0, Some(63)), // saturates at 63
        ];
        for (i, (q, fb, want)) in trace.iter().enumerate() {
            let out = cp.on_arrival(SimTime(0), &pkt(9, 1500), &qv(*q), &mut rng);
            assert_eq!(cp.last_fb, *fb, "step {i}");
            assert_eq!(
                out.map(|f| f.kind),
                want.map(|fb_q| FeedbackKind::Qcn { fb_q }),
                "step {i}"
            );
            if let Some(f) = out {
                assert_eq!(f.cpid, 4);
            }
        }
        assert_eq!(cp.q_old_bytes, 150_000);
        assert_eq!((cp.samples, cp.cnms), (7, 5));
    }

    #[test]
    fn quantization_is_floor_of_the_63_step_scale() {
        let cp = always();
        assert_eq!(cp.quantize(0.0), 0);
        assert_eq!(cp.quantize(10.0), 0);
        assert_eq!(cp.quantize(-130_000.0), 63);
        assert_eq!(cp.quantize(-129_999.0), 62);
        assert_eq!(cp.quantize(-1e12), 63);
        assert_eq!(cp.quantize(-130_000.0 * 8.5 / 63.0), 8);
    }

    #[test]
    fn default_fixed_sampling_is_one_percent() {
        let mut cp = QcnCp::new(&QcnCpConfig::default(), 0);
        let mut rng = Rng::stream(42, "port/0");
        let n = 200_000;
        for _ in 0..n {
            cp.on_arrival(SimTime(0), &pkt(0, 1500), &qv(50_000), &mut rng);
        }
        let rate = cp.samples as f64 / n as f64;
        assert!((rate - 0.01).abs() < 0.001, "sampled {rate}");
    }

    #[test]
    fn sampling_table_follows_the_802_1qau_intervals() {
        // jitter 0: exact intervals. Fb >= 0 -> row 0 -> every 100 frames of 1500 B (150 KB);
        // saturated Fb (qntzFb 63, row 7) -> 18 500 B -> every 13th frame (12.33 frames)
        let cfg = QcnCpConfig {
            sampling_table: true,
            sampling_jitter: 0.0,
            ..Default::default()
        };
        let mut cp = QcnCp::new(&cfg, 0);
        let mut rng = Rng::stream(1, "t");
        let mut gaps = Vec::new();
        let mut since = 0;
        for _ in 0..1000 {
            since += 1;
            cp.on_arrival(SimTime(0), &pkt(0, 1500), &qv(0), &mut rng);
            if cp.samples as usize > gaps.len() {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.iter().all(|g| *g == 100), "{gaps:?}");
        let mut cp = QcnCp::new(&cfg, 0);
        let mut n = 0;
        for _ in 0..13_000 {
            cp.on_arrival(SimTime(0), &pkt(0, 1500), &qv(1_000_000), &mut rng);
        }
        n += cp.samples;
        // first sample after 100 frames, then 18 500 B intervals: (13 000 - 100) 1500 / 18 500
        let want = 1 + (12_900.0 * 1500.0 / 18_500.0) as u64;
        assert!(n.abs_diff(want) <= 1, "{n} vs {want}");
    }

    #[test]
    fn sampling_table_intervals_are_about_one_to_eight_percent() {
        for (row, pct) in [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.1].iter().enumerate() {
            let frames = QCN_SAMPLE_TABLE_BYTES[row] as f64 / 1500.0;
            assert!((100.0 / frames - pct).abs() < 0.05, "row {row}");
        }
    }

    #[test]
    fn sampling_table_jitter_stays_within_its_band_and_averages_to_the_base() {
        let cfg = QcnCpConfig {
            sampling_table: true,
            ..Default::default()
        };
        let cp = QcnCp::new(&cfg, 0);
        let mut rng = Rng::stream(3, "t");
        let mut sum = 0.0;
        for _ in 0..10_000 {
            let iv = cp.next_interval_bytes(0, &mut rng) as f64;
            assert!((0.85 * 150_000.0 - 1.0..=1.15 * 150_000.0 + 1.0).contains(&iv));
            sum += iv;
        }
        assert!((sum / 10_000.0 / 150_000.0 - 1.0).abs() < 0.01);
    }

    #[test]
    fn same_seed_gives_the_same_samples() {
        let run = |seed| {
            let mut cp = QcnCp::new(&QcnCpConfig::default(), 0);
            let mut rng = Rng::stream(seed, "port/3");
            (0..5_000)
                .filter_map(|i| {
                    cp.on_arrival(
                        SimTime(0),
                        &pkt(i % 7, 1500),
                        &qv(40_000 + i as u64),
                        &mut rng,
                    )
                    .map(|_| i)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }

    #[test]
    fn config_defaults_and_validation() {
        let c = QcnCpConfig::default();
        assert_eq!(
            (c.q_eq_bytes, c.w, c.sampling_p, c.sampling_table),
            (26_000, 2.0, 0.01, false)
        );
        assert!(c.validate("cp").is_ok());
        let e = QcnCpConfig {
            sampling_p: 0.0,
            ..Default::default()
        }
        .validate("cp")
        .map_err(|e| e.to_string());
        assert_eq!(e, Err("cp.sampling_p = 0: must be in (0, 1]".to_string()));
        assert!(QcnCpConfig {
            sampling_jitter: 1.0,
            ..Default::default()
        }
        .validate("cp")
        .is_err());
        assert!(serde_json::from_str::<QcnCpConfig>(r#"{"qeq": 1}"#).is_err());
    }
}
