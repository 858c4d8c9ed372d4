//! TCP sender: window-limited transmission, NewReno fast retransmit / fast recovery
//! (RFC 6582), retransmission timeout with exponential back-off (RFC 6298), ECN sender
//! (RFC 3168 §6.1: ECT on data, at most one reduction per window, CWR on the next new
//! segment). The congestion controller ([`Cc`]) owns the window.

use crate::cc::reno::RenoWindow;
use crate::cc::{AckSample, Cc, Congestion, CongestionControl};
use crate::packet::flags;
use crate::units::{SimDuration, SimTime};

/// Which RTT samples feed the RTO estimator (RFC 6298). Congestion control (DX) always gets
/// the per-ACK timestamp sample.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// Every ACK that acknowledges new data (timestamps, RFC 7323).
    #[default]
    PerAck,
    /// One timed segment per RTT, cancelled on any retransmission (Karn; ns-2 without
    /// timestamps, classic BSD).
    OncePerRtt,
}

/// How the retransmission timeout is estimated from RTT samples.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// RFC 6298: exact samples, srtt and rttvar in floating point, RTO = srtt + max(G, 4 rttvar).
    #[default]
    Rfc6298,
    /// ns-2's TCP (tcp.cc rtt_update): samples counted in whole ticks of clock_granularity_s
    /// (ns-2's tcpTick_), srtt and rttvar in fixed point with 3 and 2 fraction bits, RTO =
    /// (srtt + 4 rttvar) truncated to ticks, at least 2 ticks. ns-2 also adds a random boot time
    /// under one tick to each sample's send time; here it is 0.
    Ns2Ticks,
}

/// Transport parameters resolved from the scenario.
#[derive(Clone, Copy, Debug)]
pub struct TcpSenderConfig {
    pub mss_bytes: u32,
    /// Flow size in bytes; None = long-lived (infinite source).
    pub size_bytes: Option<u64>,
    pub min_rto: SimDuration,
    pub initial_rto: SimDuration,
    pub max_rto: SimDuration,
    /// Clock granularity G of RFC 6298.
    pub granularity: SimDuration,
    pub dupack_threshold: u32,
    /// Receiver window, segments (u32::MAX = unbounded).
    pub rwnd_segments: u32,
    /// Plain Reno recovery (P001, ns-2 `Agent/TCP/Reno`): the first ACK of new data ends fast
    /// recovery (cwnd <- ssthresh), so several losses in one window cause repeated halvings or
    /// a timeout; NewReno instead stays in recovery through partial ACKs (RFC 6582).
    pub reno_recovery: bool,
    /// Retransmitted segments are sent ECN-capable too (DCTCP, RFC 8257 practice); RFC 3168
    /// classic ECN does not (§6.1.5).
    pub ect_on_retransmissions: bool,
    /// Which RTT samples feed the RTO.
    pub rtt_sampling: RttSampling,
    pub rto_estimator: RtoEstimator,
    /// Leaving NewReno recovery, the full ACK also grows the window as any new ACK (ns-2
    /// tcp-newreno.cc `recv`: recv_newack_helper -> opencwnd after `dupwnd_ = 0`, with
    /// `exit_recovery_fix_ 0`). Off: RFC 6582's deflation, no growth on that ACK.
    pub ns2_exit_recovery: bool,
    /// Limited transmit as ns-2 runs it (`singledup_ 1`, tcp.cc `send_one`, called from
    /// tcp-newreno.cc `recv` while `dupacks_ < numdupacks_`): each of the first
    /// dupack_threshold - 1 duplicate ACKs sends one new segment when it fits in
    /// cwnd + dupacks segments (`t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`, cwnd fractional)
    /// and in the receiver window; cwnd is unchanged. These segments are left out of the flight
    /// the fast retransmit halves (RFC 5681 §3.2 step 2; ns-2 halves cwnd_, which they never
    /// entered).
    pub limited_transmit: bool,
    /// ns-2 Agent/TCP/Newreno's burst cap (tcp-newreno.cc `recv`, `newreno_changes_ 0`): after an
    /// ACK that leaves `dupacks_ > numdupacks_ - 1` (the fast retransmit, each further duplicate
    /// ACK, and each partial ACK, which does not reset `dupacks_`), `send_much(0, 0, 2)` sends at
    /// most 2 segments from the window; the retransmissions (`output(last_ack_ + 1, ..)`) are apart.
    /// Other ACKs use `send_much(0, 0, maxburst_)` with ns-default.tcl's `Agent/TCP set maxburst_ 0`,
    /// no cap (tcp.cc `send_much`: `if (maxburst && npackets == maxburst) break;`).
    pub ns2_recovery_maxburst: bool,
    /// ns-2's timeout after an ECN cut (tcp.cc `timeout`: `else if (highest_ack_ < recover_ &&
    /// last_cwnd_action_ == CWND_ACTION_ECN) slowdown(CLOSE_CWND_ONE);`, `recover_ = maxseq_` just
    /// before, so any timeout with data outstanding): when the last window action was an ECN cut,
    /// cwnd = 1 MSS and ssthresh is kept. Everything else (back-off, go-back-N, recover) as any
    /// timeout, after which the last action is the timeout (`last_cwnd_action_ =
    /// CWND_ACTION_TIMEOUT` after either branch).
    pub ns2_timeout_after_ecn: bool,
    /// ns-2 Agent/TCP/Newreno's `dupack_action` (`bugFix_ true`, `lessCareful_ false`,
    /// `exitFastRetrans_ true`): recover_ is one variable for losses and ECN (tcp.cc `ecn`:
    /// `recover_ = maxseq_`), the ECN-Echo of a duplicate ACK is taken before the ACK is counted
    /// (`recv` calls `ecn()` first), the fast retransmit cuts only when `highest_ack_ > recover_`,
    /// i.e. ackno > recover + 1; below that, when the last window action was an ECN cut, the
    /// segment is retransmitted and recovery entered with the window as the cut left it
    /// (`dupwnd_ = numdupacks_`, recover_ kept); otherwise nothing happens (no inflation:
    /// `exitFastRetrans_ true` skips `dupwnd_ = numdupacks_` and `++dupwnd_` unless
    /// `last_cwnd_action_ == CWND_ACTION_DUPACK`).
    pub ns2_dupack_action: bool,
    /// ns-2's ECN gate after a timeout (tcp.cc `ecn`: `if (seqno > recover_ ||
    /// last_cwnd_action_ == CWND_ACTION_TIMEOUT) { recover_ = maxseq_; ... }`): while the last
    /// window action is a timeout, an ECN-Echo cuts at once; the cut's recover is the highest
    /// segment sent (`maxseq_`), not the go-back-N position.
    pub ns2_ecn_after_timeout: bool,
    /// ns-2's order on a new ACK (tcp-newreno.cc `recv`: `ecn()` first, then the exit from
    /// recovery and `recv_newack_helper` -> `opencwnd()` unless the ACK carries ECN-Echo and
    /// `ect_` is set, `old_ecn_ 0`): DCTCP's alpha count, the ECN cut (on the full ACK, of the
    /// inflated window, which leaving recovery keeps), then the growth.
    pub ns2_ecn_first: bool,
    /// With `ns2_ecn_first`: ns-2's `old_ecn_ 1` in recv_newack_helper (`if (!ect_ || !ecnecho
    /// || (old_ecn_ && ecn_burst_)) opencwnd();`, then `ecn_burst_` follows the ACK's ECN-Echo
    /// while `ect_` is set): an ECN-Echo ACK opens the window unless it is the first of a burst
    /// after ACKs without ECN-Echo. Read only under `ns2_ecn_first`.
    pub ns2_old_ecn: bool,
}

/// One segment to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub bytes: u32,
    pub flags: u8,
}

/// Per-flow sender counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub ecn_reductions: u64,
    pub ece_acks: u64,
}

#[derive(Clone, Debug)]
pub struct TcpSender {
    pub cc: Cc,
    cfg: TcpSenderConfig,
    total_segs: u64,
    last_seg_bytes: u32,
    pub snd_una: u64,
    pub snd_nxt: u64,
    high_tx: u64,
    dupacks: u32,
    in_recovery: bool,
    partial_seen: bool,
    /// One new segment allowed past the window by limited transmit.
    lt_pending: bool,
    /// Segments limited transmit sent in the current run of duplicate ACKs.
    lt_sent: u64,
    /// Segments the window may still send before the next ACK (`ns2_recovery_maxburst`).
    burst_left: Option<u32>,
    recover: Option<u64>,
    ecn_recover: Option<u64>,
    /// The last window action was an ECN cut (ns-2's `last_cwnd_action_ == CWND_ACTION_ECN`): set
    /// by the ECN-Echo reduction, cleared by a fast retransmit (`CWND_ACTION_DUPACK`) and a
    /// timeout (`CWND_ACTION_TIMEOUT`); leaving recovery (`CWND_ACTION_EXITED`) follows a fast
    /// retransmit, so it is already clear. Read only under `ns2_timeout_after_ecn` and
    /// `ns2_dupack_action`.
    after_ecn_cut: bool,
    /// The last window action was a timeout (ns-2's `last_cwnd_action_ == CWND_ACTION_TIMEOUT`):
    /// set by a timeout, cleared by an ECN cut and a fast retransmit. Read only under
    /// `ns2_ecn_after_timeout`.
    after_timeout: bool,
    /// A new ACK with ECN-Echo has been taken (ns-2's `ect_`, set at the end of
    /// `recv_newack_helper`). Read only under `ns2_ecn_first`.
    ece_seen: bool,
    /// The last new ACK taken while `ece_seen` was set carried ECN-Echo (ns-2's `ecn_burst_`).
    /// Read only under `ns2_ecn_first` with `ns2_old_ecn`.
    ecn_burst: bool,
    cwr_pending: bool,
    ect: bool,
    srtt_ps: f64,
    rttvar_ps: f64,
    /// ns-2 estimator state: srtt in ticks << 3, rttvar in ticks << 2.
    ns2_srtt: i64,
    ns2_rttvar: i64,
    has_rtt: bool,
    rto: SimDuration,
    rto_deadline: Option<SimTime>,
    pending_retx: Option<u64>,
    /// The segment being timed and when it was sent (`RttSampling::OncePerRtt`).
    timed: Option<(u64, SimTime)>,
    started: bool,
    /// The controller may pace below one packet per RTT (Swift); false for every other kind,
    /// whose sends and timers this flag leaves exactly as they were.
    paced: bool,
    /// When the last segment went out (paced senders only).
    last_send: Option<SimTime>,
    /// The next paced send, when a poll found the window open but the pacing gap not yet over.
    pace_next: Option<SimTime>,
    /// When an ACK first acknowledged every segment: the sender-side end of the flow (the
    /// `flows` table's `fct_sender_s`); None until then and for a long-lived flow.
    pub done_at: Option<SimTime>,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(cfg: TcpSenderConfig, cc: Cc) -> Self {
        let mss = cfg.mss_bytes as u64;
        let (total_segs, last_seg_bytes) = match cfg.size_bytes {
            None => (u64::MAX, cfg.mss_bytes),
            Some(b) => {
                let n = b.div_ceil(mss).max(1);
                let last = b - (n - 1) * mss;
                (n, last.max(1) as u32)
            }
        };
        let ect = cc.needs_ecn();
        let paced = matches!(cc, Cc::Swift(_));
        TcpSender {
            cc,
            cfg,
            total_segs,
            last_seg_bytes,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            dupacks: 0,
            in_recovery: false,
            partial_seen: false,
            lt_pending: false,
            lt_sent: 0,
            burst_left: None,
            recover: None,
            ecn_recover: None,
            after_ecn_cut: false,
            after_timeout: false,
            ece_seen: false,
            ecn_burst: false,
            cwr_pending: false,
            ect,
            srtt_ps: 0.0,
            rttvar_ps: 0.0,
            ns2_srtt: 0,
            ns2_rttvar: 0,
            has_rtt: false,
            rto: cfg.initial_rto,
            rto_deadline: None,
            pending_retx: None,
            timed: None,
            started: false,
            paced,
            last_send: None,
            pace_next: None,
            done_at: None,
            stats: SenderStats::default(),
        }
    }

    /// Called when the flow starts.
    pub fn start(&mut self) {
        self.started = true;
    }

    /// Take no new data: the flow ends once what was already sent is acknowledged.
    pub fn stop(&mut self) {
        if self.high_tx < self.total_segs {
            self.total_segs = self.high_tx.max(1);
            self.last_seg_bytes = self.cfg.mss_bytes;
            if self.snd_nxt > self.total_segs {
                self.snd_nxt = self.total_segs;
            }
            if self.is_done() {
                self.rto_deadline = None;
            }
        }
    }

    /// All data acknowledged (never for a long-lived flow).
    pub fn is_done(&self) -> bool {
        self.snd_una >= self.total_segs
    }

    pub fn total_segments(&self) -> u64 {
        self.total_segs
    }

    #[inline]
    pub fn seg_bytes(&self, seq: u64) -> u32 {
        if seq + 1 == self.total_segs {
            self.last_seg_bytes
        } else {
            self.cfg.mss_bytes
        }
    }

    #[inline]
    fn flight_bytes(&self) -> u64 {
        (self.snd_nxt - self.snd_una) * self.cfg.mss_bytes as u64
    }

    /// The Reno window of the controller (ns-2 mechanisms that act on cwnd_ and dupwnd_ directly).
    fn reno_window(&mut self) -> &mut RenoWindow {
        self.cc.window_mut()
    }

    /// When the sender next needs to be woken: the retransmission deadline, if the timer is
    /// armed, or, for a paced sender, the next paced send if that comes first (the engine's
    /// RTO event then finds the timer not expired and polls the paced segment out).
    #[inline]
    pub fn rto_deadline(&self) -> Option<SimTime> {
        if self.paced {
            return self.paced_deadline();
        }
        self.rto_deadline
    }

    #[cold]
    fn paced_deadline(&self) -> Option<SimTime> {
        match (self.rto_deadline, self.pace_next) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A pacing deadline that has come is forgotten when the window, not the pacing gap, holds
    /// the sender back (the next ACK polls again), so no wake-up is asked for at `now` again.
    #[cold]
    fn pace_expire(&mut self, now: SimTime) {
        if self.pace_next.is_some_and(|t| t <= now) {
            self.pace_next = None;
        }
    }

    /// A paced sender's gate before a new segment: forget a pacing deadline that has come, and
    /// hold the segment back (recording when it may go) while the gap since the last send is
    /// shorter than the controller's pacing delay (Swift: srtt / cwnd below one packet).
    #[cold]
    fn pace_blocks(&mut self, now: SimTime) -> bool {
        if self.pace_next.is_some_and(|t| t <= now) {
            self.pace_next = None;
        }
        let (Some(gap), Some(last)) = (self.cc.pacing_delay(), self.last_send) else {
            self.pace_next = None;
            return false;
        };
        let at = last + gap;
        if now < at {
            self.pace_next = Some(at);
            true
        } else {
            self.pace_next = None;
            false
        }
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.has_rtt.then_some(SimDuration(self.srtt_ps as u64))
    }

    /// In NewReno fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    pub fn current_rto(&self) -> SimDuration {
        self.rto
    }

    /// Whether the usable window, min(max(floor(cwnd / MSS), 1), rwnd) segments, is full with
    /// `inflight` segments out. Decided without a division: floor(c/m) <= k exactly when
    /// (k + 1) m > c, and (k + 1) m is an exact f64 for any window a run can reach.
    #[inline]
    fn window_full(&self, inflight: u64) -> bool {
        inflight >= self.cfg.rwnd_segments as u64
            || (inflight >= 1
                && (inflight + 1) as f64 * self.cfg.mss_bytes as f64 > self.cc.cwnd_bytes())
    }

    /// Next segment to transmit now, if the window allows one.
    #[inline]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Segment> {
        if !self.started {
            return None;
        }
        let seq = if let Some(s) = self.pending_retx.take() {
            s
        } else if self.lt_pending && self.snd_nxt < self.total_segs {
            self.lt_pending = false;
            let s = self.snd_nxt;
            self.snd_nxt += 1;
            s
        } else {
            if self.snd_nxt >= self.total_segs
                || self.window_full(self.snd_nxt.saturating_sub(self.snd_una))
                || self.burst_left == Some(0)
            {
                if self.paced {
                    self.pace_expire(now);
                }
                return None;
            }
            if self.paced && self.pace_blocks(now) {
                return None;
            }
            if let Some(b) = self.burst_left.as_mut() {
                *b -= 1;
            }
            let s = self.snd_nxt;
            self.snd_nxt += 1;
            s
        };
        let retx = seq < self.high_tx;
        if seq + 1 > self.high_tx {
            self.high_tx = seq + 1;
        }
        let mut f = 0u8;
        if retx {
            f |= flags::RETX;
            self.stats.retransmits += 1;
            self.timed = None; // Karn: no sample across a retransmission
            if self.ect && self.cfg.ect_on_retransmissions {
                f |= flags::ECT;
            }
        } else {
            if self.ect {
                f |= flags::ECT;
            }
            if self.cwr_pending {
                f |= flags::CWR;
                self.cwr_pending = false;
            }
        }
        self.stats.segments_sent += 1;
        if self.paced {
            self.last_send = Some(now);
            self.pace_next = None;
        }
        if !retx && self.timed.is_none() && self.cfg.rtt_sampling == RttSampling::OncePerRtt {
            self.timed = Some((seq, now));
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto);
        }
        Some(Segment {
            seq,
            bytes: self.seg_bytes(seq),
            flags: f,
        })
    }

    /// One RTT sample `r` of a segment sent at `sent`.
    fn update_rtt(&mut self, r: SimDuration, sent: SimTime) {
        if self.cfg.rto_estimator == RtoEstimator::Ns2Ticks {
            self.update_rtt_ns2(r, sent);
            return;
        }
        let r = r.0 as f64;
        if !self.has_rtt {
            self.srtt_ps = r;
            self.rttvar_ps = r / 2.0;
            self.has_rtt = true;
        } else {
            self.rttvar_ps = 0.75 * self.rttvar_ps + 0.25 * (self.srtt_ps - r).abs();
            self.srtt_ps = 0.875 * self.srtt_ps + 0.125 * r;
        }
        let rto = self.srtt_ps + (self.cfg.granularity.0 as f64).max(4.0 * self.rttvar_ps);
        let rto = SimDuration(rto as u64)
            .max(self.cfg.min_rto)
            .min(self.cfg.max_rto);
        self.rto = rto;
    }

    /// ns-2's rtt_update and rtt_timeout (non-RFC 2988 path) with tick = clock granularity.
    fn update_rtt_ns2(&mut self, r: SimDuration, sent: SimTime) {
        let tick = self.cfg.granularity.0.max(1);
        let t_rtt = (((r.0 + sent.0 % tick) / tick) as i64).max(1);
        if self.has_rtt {
            let mut delta = t_rtt - (self.ns2_srtt >> 3);
            self.ns2_srtt += delta;
            if self.ns2_srtt <= 0 {
                self.ns2_srtt = 1;
            }
            delta = delta.abs() - (self.ns2_rttvar >> 2);
            self.ns2_rttvar += delta;
            if self.ns2_rttvar <= 0 {
                self.ns2_rttvar = 1;
            }
        } else {
            self.ns2_srtt = t_rtt << 3;
            self.ns2_rttvar = t_rtt << 1;
            self.has_rtt = true;
        }
        self.srtt_ps = (self.ns2_srtt as f64 / 8.0) * tick as f64;
        let cur = (((self.ns2_rttvar << 3) + self.ns2_srtt) >> 3).max(0) as u64;
        self.rto = SimDuration(cur.saturating_mul(tick))
            .min(self.cfg.max_rto)
            .max(self.cfg.min_rto)
            .max(SimDuration(2 * tick));
    }

    /// Process an ACK: cumulative `ackno` (next expected segment), ECN-Echo, echoed timestamp.
    pub fn on_ack(
        &mut self,
        now: SimTime,
        ackno: u64,
        ece: bool,
        ts_echo: SimTime,
        echo_retx: bool,
    ) {
        if ece {
            self.stats.ece_acks += 1;
        }
        let flight = self.flight_bytes();
        if ackno > self.snd_una {
            let ackno = ackno.min(self.high_tx);
            let mut newly = 0u64;
            // bytes of segments [snd_una, ackno): all MSS except possibly the last of the flow
            let n = ackno - self.snd_una;
            newly += n * self.cfg.mss_bytes as u64;
            if ackno == self.total_segs {
                newly -= (self.cfg.mss_bytes - self.last_seg_bytes) as u64;
            }
            let rtt = if echo_retx {
                None
            } else {
                Some(now.saturating_sub(ts_echo))
            };
            match self.cfg.rtt_sampling {
                RttSampling::PerAck => {
                    if let Some(r) = rtt {
                        self.update_rtt(r, ts_echo);
                    }
                }
                RttSampling::OncePerRtt => {
                    if let Some((s, sent)) = self.timed {
                        if ackno > s {
                            self.update_rtt(now.saturating_sub(sent), sent);
                            self.timed = None;
                        }
                    }
                }
            }
            self.snd_una = ackno;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            if self.snd_una >= self.total_segs && self.done_at.is_none() {
                self.done_at = Some(now);
            }
            let mut sample = AckSample {
                now,
                newly_acked_bytes: newly,
                ece,
                rtt,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
                in_recovery: self.in_recovery,
                flight_bytes: flight,
            };
            let ecn_first = self.cfg.ns2_ecn_first;
            if self.in_recovery {
                if self.cfg.reno_recovery || self.recover.is_some_and(|r| ackno > r) {
                    // full ACK: leave fast recovery (RFC 6582 step 6)
                    self.in_recovery = false;
                    self.dupacks = 0;
                    sample.in_recovery = false;
                    if !self.cfg.reno_recovery && !self.cfg.ns2_exit_recovery {
                        sample.newly_acked_bytes = 0;
                    }
                    if ecn_first && ece && self.ecn_gate_open() {
                        // tcp-newreno.cc recv: ecn() while dupwnd_ still inflates windowd(),
                        // then `dupwnd_ = 0` keeps the cut window
                        self.ns2_count_ack_first(&sample);
                        self.reno_window().fold_inflation();
                        self.maybe_ecn_reduce(now, ece, self.flight_bytes());
                    } else {
                        self.cc.on_recovery_end(now, self.flight_bytes());
                        if ecn_first {
                            self.ns2_count_ack_first(&sample);
                        }
                    }
                    if ecn_first {
                        self.ns2_open_rule(&mut sample);
                    }
                    self.cc.on_ack(&sample);
                } else {
                    // partial ACK: retransmit the next hole, deflate, reset the timer once
                    self.cc.on_ack(&sample);
                    self.pending_retx = Some(self.snd_una);
                    if !self.partial_seen {
                        self.partial_seen = true;
                        self.rto_deadline = Some(now + self.rto);
                    }
                }
            } else {
                self.dupacks = 0;
                if ecn_first {
                    // tcp-newreno.cc recv: ecn() before recv_newack_helper -> opencwnd()
                    self.ns2_count_ack_first(&sample);
                    self.maybe_ecn_reduce(now, ece, self.flight_bytes());
                    self.ns2_open_rule(&mut sample);
                }
                self.cc.on_ack(&sample);
            }
            self.lt_pending = false;
            self.lt_sent = 0;
            if !ecn_first {
                self.maybe_ecn_reduce(now, ece, self.flight_bytes());
            }
            if !self.in_recovery || !self.partial_seen {
                self.rto_deadline = if self.snd_una < self.snd_nxt {
                    Some(now + self.rto)
                } else {
                    None
                };
            }
            if self.is_done() {
                self.rto_deadline = None;
            }
        } else if ackno == self.snd_una && self.snd_nxt > self.snd_una {
            self.dupacks += 1;
            let sample = AckSample {
                now,
                newly_acked_bytes: 0,
                ece,
                rtt: None,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
                in_recovery: self.in_recovery,
                flight_bytes: flight,
            };
            if self.in_recovery {
                self.cc.on_dup_ack(&sample);
            } else {
                if self.cfg.ns2_dupack_action {
                    // tcp-newreno.cc recv: `if (hdr_flags::access(pkt)->ecnecho() && ecn_)
                    // ecn(tcph->seqno());` before the duplicate ACK is counted
                    self.maybe_ecn_reduce(now, ece, flight);
                }
                self.cc.on_dup_ack(&sample);
                if self.cfg.limited_transmit && self.dupacks < self.cfg.dupack_threshold {
                    // tcp.cc send_one: t_seqno_ <= highest_ack_ + wnd_ && t_seqno_ < curseq_ &&
                    // t_seqno_ <= highest_ack_ + cwnd_ + dupacks_, where t_seqno_ - highest_ack_
                    // is the segments in flight + 1
                    let next = self.snd_nxt - self.snd_una + 1;
                    if next <= self.cfg.rwnd_segments as u64
                        && self.snd_nxt < self.total_segs
                        && next as f64 * self.cfg.mss_bytes as f64
                            <= self.cc.cwnd_bytes()
                                + self.dupacks as f64 * self.cfg.mss_bytes as f64
                    {
                        self.lt_pending = true;
                        self.lt_sent += 1;
                    }
                }
                // Reno and NewReno alike start a fast retransmit only when the cumulative ACK
                // "covers more than recover" (RFC 6582 §3.2 step 1 and §4; ns-2's bugFix_):
                // duplicate ACKs for a window that already had one leave the rest to the
                // retransmission timer (P001 footnote 4). ALGORITHMS.md §1 reads it as
                // ack > recover (ack = next expected segment), which NewReno, DCTCP and DX keep;
                // ns-2 tests highest_ack_ > recover_, i.e. ack > recover + 1, so Reno as ns-2
                // runs it (P001) also ignores the duplicate ACKs whose ACK is exactly recover + 1:
                // those the go-back-N retransmissions after a timeout draw from a receiver that
                // already holds everything sent before it (docs/models/periodic_ns2.md, item 13).
                // ns2_dupack_action: NewReno's dupack_action tests highest_ack_ > recover_ too.
                let above = if self.cfg.reno_recovery || self.cfg.ns2_dupack_action {
                    1
                } else {
                    0
                };
                if self.dupacks == self.cfg.dupack_threshold
                    && self.recover.is_none_or(|r| ackno > r + above)
                {
                    self.after_ecn_cut = false;
                    self.after_timeout = false;
                    self.in_recovery = true;
                    self.partial_seen = false;
                    self.recover = Some(self.snd_nxt - 1);
                    self.ecn_recover = Some(self.snd_nxt);
                    // limited-transmit segments out of the halved flight (RFC 5681 §3.2 step 2);
                    // `flight` was taken before this ACK, so it holds all lt_sent of them but a
                    // pending one that has not gone out yet
                    let lt = self.lt_sent.saturating_sub(u64::from(self.lt_pending));
                    self.lt_pending = false;
                    let flight = flight
                        - lt.min(flight / self.cfg.mss_bytes as u64) * self.cfg.mss_bytes as u64;
                    self.cc
                        .on_congestion(now, Congestion::FastRetransmit, flight);
                    self.pending_retx = Some(self.snd_una);
                    self.stats.fast_retransmits += 1;
                    // restart the timer with the retransmission (ns-2's reset_rtx_timer, BSD
                    // and Linux alike): otherwise it still runs from the last new ACK and
                    // expires before the retransmission can be acknowledged once the RTO is
                    // close to the RTT (min_rto below the queueing RTT)
                    self.rto_deadline = Some(now + self.rto);
                } else if self.cfg.ns2_dupack_action {
                    if self.dupacks == self.cfg.dupack_threshold && self.after_ecn_cut {
                        // tcp-newreno.cc dupack_action: `if (ecn_ && last_cwnd_action_ ==
                        // CWND_ACTION_ECN) { last_cwnd_action_ = CWND_ACTION_DUPACK;
                        // reset_rtx_timer(1,0); output(last_ack_ + 1, TCP_REASON_DUPACK);
                        // dupwnd_ = numdupacks_; return; }`: recover_ stays the ECN cut's
                        self.after_ecn_cut = false;
                        self.after_timeout = false;
                        self.in_recovery = true;
                        self.partial_seen = false;
                        self.lt_pending = false;
                        let k = self.cfg.dupack_threshold;
                        self.reno_window().enter_recovery_without_cut(k);
                        self.pending_retx = Some(self.snd_una);
                        self.stats.fast_retransmits += 1;
                        self.rto_deadline = Some(now + self.rto);
                    }
                    // otherwise `if (bug_fix_) return;`, and with exitFastRetrans_ true recv
                    // neither sets nor grows dupwnd_ (last_cwnd_action_ != CWND_ACTION_DUPACK)
                } else {
                    self.maybe_ecn_reduce(now, ece, flight);
                }
            }
        }
        // tcp-newreno.cc recv: `else if (dupacks_ > numdupacks_ - 1 && newreno_changes_ == 0)
        // send_much(0, 0, 2);`
        self.burst_left = (self.cfg.ns2_recovery_maxburst
            && self.dupacks >= self.cfg.dupack_threshold)
            .then_some(2);
    }

    /// RFC 3168 §6.1.2: react to ECN-Echo at most once per window of data, not during loss recovery.
    fn maybe_ecn_reduce(&mut self, now: SimTime, ece: bool, flight: u64) {
        if !ece || self.in_recovery || !self.cc.reacts_to_ecn_once_per_window() {
            return;
        }
        if self.ecn_gate_open() {
            self.cc.on_congestion(now, Congestion::EcnEcho, flight);
            // tcp.cc ecn: `recover_ = maxseq_` (the highest segment sent; snd_nxt but during
            // go-back-N, which ns2_ecn_after_timeout lets a cut fall into)
            self.ecn_recover = Some(if self.cfg.ns2_ecn_after_timeout {
                self.high_tx
            } else {
                self.snd_nxt
            });
            self.cwr_pending = true;
            self.stats.ecn_reductions += 1;
            // tcp.cc ecn: `last_cwnd_action_ = CWND_ACTION_ECN;`
            self.after_ecn_cut = true;
            self.after_timeout = false;
            if self.cfg.ns2_dupack_action {
                self.recover = Some(self.high_tx.saturating_sub(1));
            }
        }
    }

    /// The once-per-window ECN gate: the ACK passed what was sent at the last cut (RFC 3168
    /// §6.1.2; ns-2 `seqno > recover_`), or, under `ns2_ecn_after_timeout`, the last window
    /// action was a timeout (ns-2 `last_cwnd_action_ == CWND_ACTION_TIMEOUT`).
    fn ecn_gate_open(&self) -> bool {
        self.ecn_recover.is_none_or(|r| self.snd_una > r)
            || (self.cfg.ns2_ecn_after_timeout && self.after_timeout)
    }

    /// `ns2_ecn_first`: DCTCP counts the ACK for alpha before its ECN reaction (ns-2's DCTCP
    /// sender), so the `on_ack` after the cut does not count it again.
    fn ns2_count_ack_first(&mut self, sample: &AckSample) {
        if let Cc::Dctcp(d) = &mut self.cc {
            if d.rule() == crate::cc::dctcp::DctcpRule::WindowCut {
                d.count_ack_first(sample);
            }
        }
    }

    /// `ns2_ecn_first`: ns-2's recv_newack_helper: `if (!ect_ || !ecnecho || (old_ecn_ &&
    /// ecn_burst_)) opencwnd();`, then, while `ect_` is set, `ecn_burst_` follows the ACK's
    /// ECN-Echo, then `ect_ = 1` on an ECN-Echo ACK. With `old_ecn_ 0` the window grows by the
    /// ACK unless it carries ECN-Echo and an earlier new ACK did; with `old_ecn_ 1`
    /// (`ns2_old_ecn`) also when the ACK before it carried ECN-Echo too (`ecn_burst_`). The cut
    /// was already taken, so the controller sees the ACK without ECN-Echo (DCTCP's alpha counted
    /// it before).
    fn ns2_open_rule(&mut self, sample: &mut AckSample) {
        if !self.cc.reacts_to_ecn_once_per_window() || matches!(self.cc, Cc::Dx(_)) {
            return;
        }
        let was_burst = self.ecn_burst;
        if self.ece_seen {
            self.ecn_burst = sample.ece;
        }
        if !sample.ece {
            return;
        }
        if self.ece_seen && !(self.cfg.ns2_old_ecn && was_burst) {
            sample.newly_acked_bytes = 0;
        }
        sample.ece = false;
        self.ece_seen = true;
    }

    /// Called when the retransmission timer may have expired; acts only if the deadline passed.
    pub fn on_timer(&mut self, now: SimTime) {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        if self.snd_una >= self.snd_nxt && self.pending_retx.is_none() {
            self.rto_deadline = None;
            return;
        }
        self.stats.timeouts += 1;
        let flight = self.flight_bytes();
        if self.cfg.ns2_timeout_after_ecn && self.after_ecn_cut {
            // tcp.cc timeout: `else if (highest_ack_ < recover_ && last_cwnd_action_ ==
            // CWND_ACTION_ECN) slowdown(CLOSE_CWND_ONE);` (recover_ = maxseq_ just set, so any
            // timeout with data outstanding; this method returned above otherwise)
            self.reno_window().on_timeout_keep_ssthresh();
        } else {
            self.cc.on_congestion(now, Congestion::Timeout, flight);
        }
        // `last_cwnd_action_ = CWND_ACTION_TIMEOUT;` after either branch
        self.after_ecn_cut = false;
        self.after_timeout = true;
        self.in_recovery = false;
        self.dupacks = 0;
        self.lt_pending = false;
        self.lt_sent = 0;
        self.burst_left = None; // tcp.cc timeout: send_much(1, TCP_REASON_TIMEOUT, maxburst_)
        self.recover = Some(self.high_tx.saturating_sub(1));
        self.ecn_recover = Some(self.high_tx);
        self.snd_nxt = self.snd_una; // go-back-N from the first unacknowledged segment
        self.pending_retx = None;
        self.timed = None;
        self.rto = SimDuration((self.rto.0.saturating_mul(2)).min(self.cfg.max_rto.0));
        self.rto_deadline = None; // re-armed by the retransmission
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::NewReno;

    fn sender(reno: bool) -> TcpSender {
        let cfg = TcpSenderConfig {
            mss_bytes: 1000,
            size_bytes: None,
            min_rto: SimDuration::from_micros(1000),
            initial_rto: SimDuration::from_micros(1000),
            max_rto: SimDuration::from_micros(100_000),
            granularity: SimDuration::from_micros(1),
            dupack_threshold: 3,
            rwnd_segments: 20,
            ect_on_retransmissions: false,
            reno_recovery: reno,
            rtt_sampling: RttSampling::PerAck,
            rto_estimator: RtoEstimator::Rfc6298,
            ns2_exit_recovery: false,
            limited_transmit: false,
            ns2_recovery_maxburst: false,
            ns2_timeout_after_ecn: false,
            ns2_dupack_action: false,
            ns2_ecn_after_timeout: false,
            ns2_ecn_first: false,
            ns2_old_ecn: false,
        };
        let mut s = TcpSender::new(cfg, Cc::NewReno(NewReno::new(1000, 20, false, 3)));
        s.start();
        while s.poll_transmit(SimTime(0)).is_some() {}
        s
    }

    /// Once-per-RTT sampling times one segment per RTT: ACKs of other segments give no RTO
    /// sample, and a retransmission cancels the timing (Karn).
    #[test]
    fn once_per_rtt_sampling_times_one_segment_and_respects_karn() {
        let mut s2 = {
            let mut cfg = sender(false).cfg;
            cfg.rtt_sampling = RttSampling::OncePerRtt;
            let mut x = TcpSender::new(cfg, Cc::NewReno(NewReno::new(1000, 20, false, 3)));
            x.start();
            while x.poll_transmit(SimTime(0)).is_some() {}
            x
        };
        assert_eq!(s2.timed, Some((0, SimTime(0))));
        // the ACK of segment 0 at 100 us (echo timestamp says 40 us): the timed sample is 100 us
        s2.on_ack(SimTime(100_000_000), 1, false, SimTime(60_000_000), false);
        assert_eq!(s2.srtt(), Some(SimDuration(100_000_000)));
        assert_eq!(s2.timed, None);
        // further ACKs carry timestamp samples but do not touch the estimator until a new
        // segment is timed
        s2.on_ack(SimTime(150_000_000), 2, false, SimTime(0), false);
        assert_eq!(s2.srtt(), Some(SimDuration(100_000_000)));
        // a new segment is timed when sent; its fast retransmission cancels the timing
        while s2.poll_transmit(SimTime(160_000_000)).is_some() {}
        assert!(s2.timed.is_some());
        for _ in 0..3 {
            s2.on_ack(SimTime(170_000_000), 2, false, SimTime(0), false);
        }
        let _ = s2.poll_transmit(SimTime(170_000_000)); // the retransmission of segment 2
        assert_eq!(s2.timed, None);
    }

    /// The retransmission timer restarts at the fast retransmit: with an RTO near the RTT, a
    /// timer still running from the last new ACK would expire before the retransmission's ACK.
    #[test]
    fn fast_retransmit_restarts_the_retransmission_timer() {
        for reno in [false, true] {
            let mut s = sender(reno);
            let armed_at_send = s.rto_deadline().expect("armed by the first segment");
            let t = SimTime(armed_at_send.0 - 10);
            for _ in 0..3 {
                s.on_ack(t, 0, false, SimTime(0), false);
            }
            assert_eq!(s.stats.fast_retransmits, 1);
            assert!(
                s.rto_deadline().expect("armed") > armed_at_send,
                "reno = {reno}"
            );
            s.on_timer(armed_at_send);
            assert_eq!(s.stats.timeouts, 0, "reno = {reno}");
        }
    }

    /// ns-2's estimator (tcp.cc rtt_update): samples in whole 0.1-s ticks after adding the send
    /// time's offset into its tick, srtt and rttvar in fixed point, RTO truncated to ticks.
    #[test]
    fn ns2_tick_estimator_matches_ns2_arithmetic() {
        let mut cfg = sender(true).cfg;
        cfg.rto_estimator = RtoEstimator::Ns2Ticks;
        cfg.granularity = SimDuration::from_secs_f64(0.1);
        cfg.min_rto = SimDuration::from_secs_f64(0.2);
        cfg.max_rto = SimDuration::from_secs_f64(64.0);
        let mut s = TcpSender::new(cfg, Cc::NewReno(NewReno::new(1000, 20, false, 3)));
        let t = SimTime::from_secs_f64;
        // 1.5627 s sent at 120.9339 s: (1.5627 + 0.0339) / 0.1 -> 15 ticks; rto = 15 + 4 * 7.5 = 45 ticks
        s.update_rtt(SimDuration::from_secs_f64(1.5627), t(120.9339));
        assert_eq!(s.current_rto(), SimDuration::from_secs_f64(4.5));
        // 1.5573 s sent at 122.4966 s: 16 ticks; srtt8 = 121, rttvar4 = 24 -> (192 + 121) >> 3 = 39 ticks
        s.update_rtt(SimDuration::from_secs_f64(1.5573), t(122.4966));
        assert_eq!(s.current_rto(), SimDuration::from_secs_f64(3.9));
        assert_eq!(s.srtt(), Some(SimDuration::from_secs_f64(1.5125)));
    }

    /// One loss in a window of 20 that is all acknowledged at once by the retransmission's ACK
    /// (nothing left in flight): Reno (ns-2) leaves recovery at ssthresh and grows on that ACK,
    /// NewReno deflates to FlightSize + 1 MSS (RFC 6582 step 6).
    #[test]
    fn reno_exits_at_ssthresh_and_grows_newreno_deflates_to_flight() {
        for reno in [false, true] {
            let mut cfg = sender(reno).cfg;
            cfg.reno_recovery = reno;
            let mut cc = NewReno::new(1000, 20, false, 3);
            cc.w.ns2_reno = reno;
            let mut s = TcpSender::new(cfg, Cc::NewReno(cc));
            s.start();
            while s.poll_transmit(SimTime(0)).is_some() {}
            for _ in 0..3 {
                s.on_ack(SimTime(10), 0, false, SimTime(0), false);
            }
            s.on_ack(SimTime(20), 20, false, SimTime(0), true);
            assert!(!s.in_recovery());
            let want = if reno {
                10_000.0 + 1000.0 * 1000.0 / 10_000.0
            } else {
                1000.0
            };
            assert!(
                (s.cc.cwnd_bytes() - want).abs() < 1e-9,
                "reno = {reno}: {}",
                s.cc.cwnd_bytes()
            );
        }
    }

    /// ns-2 Reno (highest_ack_ > recover_, RFC 6582 §4): after a timeout, duplicate ACKs whose
    /// cumulative ACK only reaches the end of the data sent before it (ackno = recover + 1, drawn by
    /// go-back-N retransmissions of segments the receiver already holds) start no fast
    /// retransmit; once a segment above recover is acknowledged they do again. NewReno keeps
    /// ALGORITHMS.md §1's ack > recover and retransmits at recover + 1 already.
    #[test]
    fn dupacks_must_cover_more_than_recover_to_fast_retransmit() {
        for reno in [false, true] {
            let mut s = sender(reno);
            assert_eq!(s.snd_nxt, 20);
            s.on_timer(SimTime(u64::MAX / 2));
            assert_eq!(s.stats.timeouts, 1);
            while s.poll_transmit(SimTime(1)).is_some() {}
            // everything sent before the timeout has arrived: ackno = 20 = recover + 1
            s.on_ack(SimTime(2), 20, false, SimTime(1), true);
            while s.poll_transmit(SimTime(2)).is_some() {}
            assert!(s.snd_nxt > 20);
            for _ in 0..3 {
                s.on_ack(SimTime(3), 20, false, SimTime(1), false);
            }
            assert_eq!(s.stats.fast_retransmits, u64::from(!reno), "reno = {reno}");
            if !reno {
                continue;
            }
            // a segment above recover acknowledged: the next three duplicates do retransmit
            s.on_ack(SimTime(4), 21, false, SimTime(2), false);
            while s.poll_transmit(SimTime(4)).is_some() {}
            for _ in 0..3 {
                s.on_ack(SimTime(5), 21, false, SimTime(2), false);
            }
            assert_eq!(s.stats.fast_retransmits, 1, "reno = {reno}");
        }
    }

    /// Two losses in one window (segments 0 and 5): NewReno retransmits both inside one
    /// recovery; Reno leaves recovery at the first new ACK and needs a second one.
    #[test]
    fn reno_leaves_recovery_at_the_first_new_ack_newreno_waits_for_the_full_ack() {
        for reno in [false, true] {
            let mut s = sender(reno);
            for _ in 0..3 {
                s.on_ack(SimTime(10), 0, false, SimTime(0), false);
            }
            assert_eq!(s.stats.fast_retransmits, 1);
            // the retransmission of 0 is acked up to 5 (the next hole): a partial ACK
            s.on_ack(SimTime(20), 5, false, SimTime(0), true);
            assert_eq!(s.in_recovery(), !reno, "reno = {reno}");
        }
    }

    /// A NewReno sender with 20 segments (0..19) in flight, MSS 1000, rwnd 100 segments, with ns-2's
    /// recovery window (`ns2`: partial_window_deflation_ 1, exit_recovery_fix_ 0) or RFC 6582's.
    fn ns2_newreno(ns2: bool, limited_transmit: bool, cwnd_pkts: f64) -> TcpSender {
        let mut cfg = sender(false).cfg;
        cfg.rwnd_segments = 100;
        cfg.ns2_exit_recovery = ns2;
        cfg.limited_transmit = limited_transmit;
        let mut cc = NewReno::new(1000, 20, false, 3);
        cc.w.cwnd = cwnd_pkts * 1000.0;
        cc.w.ns2_partial_deflation = ns2;
        cc.w.ns2_exit = ns2;
        let mut s = TcpSender::new(cfg, Cc::NewReno(cc));
        s.start();
        while s.poll_transmit(SimTime(0)).is_some() {}
        s
    }

    fn cwnd_pkts(s: &TcpSender) -> f64 {
        s.cc.cwnd_bytes() / 1000.0
    }

    /// Partial ACKs (ns-2 tcp-newreno.cc partialnewack, partial_window_deflation_ 1) and the full
    /// ACK (recv with exit_recovery_fix_ 0). Loss of 0, 3 and 10 in a window of 20, worked in
    /// segments: 3rd dupack -> ssthresh = cwnd_ = 20 / 2 = 10, dupwnd_ = 3 (window 13); two more
    /// dupacks -> dupwnd_ = 5 (15).
    /// - partial ACK of 3 (deflate 3 < dupwnd_ 5): dupwnd_ = 5 - (3 - 1) = 3, window 13; RFC 6582:
    ///   15 - 3 + 1 = 13, the same.
    /// - partial ACK of 7 more (ack 10; deflate 7 >= dupwnd_ 3): cwnd_ = 10 - (7 - 3) = 6,
    ///   dupwnd_ = 1, window 7; RFC: 13 - 7 + 1 = 7, the same total.
    /// - full ACK (ack 20 > recover 19): ns-2 dupwnd_ = 0, cwnd_ = 6 < ssthresh_ 10, so opencwnd's
    ///   slow start adds 1 -> 7; RFC: min(ssthresh 10, FlightSize 0 + 1) = 1 (nothing sent since).
    #[test]
    fn ns2_partial_deflation_cuts_the_window_it_leaves_recovery_at() {
        for ns2 in [false, true] {
            let mut s = ns2_newreno(ns2, false, 20.0);
            for _ in 0..5 {
                s.on_ack(SimTime(10), 0, false, SimTime(0), false);
            }
            assert!(s.in_recovery());
            assert_eq!(cwnd_pkts(&s), 15.0);
            s.on_ack(SimTime(20), 3, false, SimTime(0), true);
            assert_eq!(cwnd_pkts(&s), 13.0, "ns2 = {ns2}");
            s.on_ack(SimTime(30), 10, false, SimTime(0), true);
            assert_eq!(cwnd_pkts(&s), 7.0, "ns2 = {ns2}");
            assert!(s.in_recovery());
            s.on_ack(SimTime(40), 20, false, SimTime(0), true);
            assert!(!s.in_recovery());
            assert_eq!(cwnd_pkts(&s), if ns2 { 7.0 } else { 1.0 }, "ns2 = {ns2}");
        }
    }

    /// ns-2's floor: a partial ACK of 15 segments with dupwnd_ = 3 cuts cwnd_ to 10 - (15 - 3) < 1
    /// -> 1, dupwnd_ = 1: window 2; RFC 6582: max(13 - 15 + 1, 1) = 1. One loss, full ACK with no
    /// partial ACK before: ns-2 cwnd_ = 10 >= ssthresh_ 10, opencwnd adds 1/10 -> 10.1.
    #[test]
    fn ns2_partial_deflation_floor_and_exit_after_one_loss() {
        for ns2 in [false, true] {
            let mut s = ns2_newreno(ns2, false, 20.0);
            for _ in 0..3 {
                s.on_ack(SimTime(10), 0, false, SimTime(0), false);
            }
            s.on_ack(SimTime(20), 15, false, SimTime(0), true);
            assert_eq!(cwnd_pkts(&s), if ns2 { 2.0 } else { 1.0 }, "ns2 = {ns2}");
            s.on_ack(SimTime(30), 20, false, SimTime(0), true);
            assert_eq!(cwnd_pkts(&s), if ns2 { 2.0 } else { 1.0 }, "ns2 = {ns2}");

            let mut s = ns2_newreno(ns2, false, 20.0);
            for _ in 0..3 {
                s.on_ack(SimTime(10), 0, false, SimTime(0), false);
            }
            s.on_ack(SimTime(20), 20, false, SimTime(0), true);
            assert!(!s.in_recovery());
            let want = if ns2 { 10.1 } else { 1.0 };
            assert!(
                (cwnd_pkts(&s) - want).abs() < 1e-12,
                "ns2 = {ns2}: {}",
                cwnd_pkts(&s)
            );
        }
    }

    /// ns-2 limited transmit (tcp.cc send_one, singledup_ 1): t_seqno_ <= highest_ack_ + cwnd_ +
    /// dupacks_, i.e. in flight + 1 <= cwnd + dupacks. cwnd 20.5, 20 in flight: dupack 1 -> 21 <=
    /// 21.5 sends segment 20, dupack 2 -> 22 <= 22.5 sends 21; dupack 3: fast retransmit of 0 only,
    /// ssthresh from the flight without those two: 20 / 2 = 10, cwnd 13 (22 in flight, no room).
    /// cwnd 20 with rwnd 21: dupack 1 sends 20 (21 <= 21), dupack 2 nothing (22 > rwnd 21).
    #[test]
    fn ns2_limited_transmit_sends_one_new_segment_per_early_dupack() {
        for lt in [false, true] {
            let mut s = ns2_newreno(false, lt, 20.5);
            let mut sent = Vec::new();
            for _ in 0..3 {
                s.on_ack(SimTime(10), 0, false, SimTime(0), false);
                while let Some(g) = s.poll_transmit(SimTime(10)) {
                    sent.push((g.seq, g.flags & flags::RETX != 0));
                }
            }
            let want: &[(u64, bool)] = if lt {
                &[(20, false), (21, false), (0, true)]
            } else {
                &[(0, true)]
            };
            assert_eq!(sent, want, "lt = {lt}");
            let Cc::NewReno(c) = &s.cc else {
                unreachable!()
            };
            assert_eq!(c.w.ssthresh, 10_000.0);
            assert_eq!(cwnd_pkts(&s), 13.0);
        }
        let mut s = ns2_newreno(false, true, 20.0);
        s.cfg.rwnd_segments = 21;
        let mut n = 0;
        for _ in 0..2 {
            s.on_ack(SimTime(10), 0, false, SimTime(0), false);
            while s.poll_transmit(SimTime(10)).is_some() {
                n += 1;
            }
        }
        assert_eq!((n, s.snd_nxt), (1, 21));
    }

    fn drain(s: &mut TcpSender, now: u64) -> Vec<(u64, bool)> {
        let mut sent = Vec::new();
        while let Some(g) = s.poll_transmit(SimTime(now)) {
            sent.push((g.seq, g.flags & flags::RETX != 0));
        }
        sent
    }

    /// ns-2 tcp-newreno.cc recv, `newreno_changes_ 0`: `send_much(0, 0, 2)` while `dupacks_ >=
    /// numdupacks_`, `send_much(0, 0, maxburst_ = 0)` (no cap) otherwise. 20 in flight (0..19),
    /// cwnd 20: the 3rd dupack retransmits 0 (ssthresh 10, cwnd 13, no room). The window is then
    /// set by hand to 30 segments; the 4th dupack inflates it to 31: room for 20..=30 (11), capped
    /// to 20, 21. Partial ACK of 5: cwnd 31 - 5 + 1 = 27, retransmit 5 (not counted), then capped:
    /// 22, 23 (in flight 17 -> 19 of 27); uncapped: only 31 fits (26 in flight -> 27). Full ACK
    /// (20 > recover 19) with 20..23 out: cwnd = min(10, 4 + 1) = 5, sends 24; no cap from here:
    /// with cwnd set to 30, the next new ACK (21, cwnd 30 + 1/30) sends 25..=50, 26 segments.
    #[test]
    fn ns2_recovery_maxburst_sends_two_per_ack_in_recovery_only() {
        for cap in [false, true] {
            let mut s = ns2_newreno(false, false, 20.0);
            s.cfg.ns2_recovery_maxburst = cap;
            let mut sent = Vec::new();
            for _ in 0..3 {
                s.on_ack(SimTime(10), 0, false, SimTime(0), false);
                sent.extend(drain(&mut s, 10));
            }
            assert_eq!(sent, [(0, true)]);
            assert_eq!(cwnd_pkts(&s), 13.0);
            let Cc::NewReno(c) = &mut s.cc else {
                unreachable!()
            };
            c.w.cwnd = 30_000.0;
            s.on_ack(SimTime(20), 0, false, SimTime(0), false);
            let want: Vec<(u64, bool)> = if cap {
                vec![(20, false), (21, false)]
            } else {
                (20..=30).map(|q| (q, false)).collect()
            };
            assert_eq!(drain(&mut s, 20), want, "cap = {cap}");
            s.on_ack(SimTime(30), 5, false, SimTime(0), true);
            assert_eq!(cwnd_pkts(&s), 27.0);
            let want: &[(u64, bool)] = if cap {
                &[(5, true), (22, false), (23, false)]
            } else {
                &[(5, true), (31, false)]
            };
            assert_eq!(drain(&mut s, 30), want, "cap = {cap}");
            s.on_ack(SimTime(40), 20, false, SimTime(0), true);
            assert!(!s.in_recovery());
            if cap {
                assert_eq!(cwnd_pkts(&s), 5.0);
                assert_eq!(drain(&mut s, 40), [(24, false)]);
                let Cc::NewReno(c) = &mut s.cc else {
                    unreachable!()
                };
                c.w.cwnd = 30_000.0;
                s.on_ack(SimTime(50), 21, false, SimTime(0), true);
                let want: Vec<(u64, bool)> = (25..=50).map(|q| (q, false)).collect();
                assert_eq!(drain(&mut s, 50), want);
            }
        }
    }

    /// NewReno with ECN and ns-2's window rules (ns2_halve, partial deflation, exit), MSS 1000,
    /// cwnd 20 and ssthresh 10 segments (congestion avoidance), rwnd 100, 20 segments (0..19) in
    /// flight, with `ns2_timeout_after_ecn` = `timeout` and `ns2_dupack_action` = `dupack`.
    fn ns2_ecn_newreno(timeout: bool, dupack: bool) -> TcpSender {
        let mut cfg = sender(false).cfg;
        cfg.rwnd_segments = 100;
        cfg.ns2_exit_recovery = true;
        cfg.ns2_timeout_after_ecn = timeout;
        cfg.ns2_dupack_action = dupack;
        let mut cc = NewReno::new(1000, 20, true, 3);
        cc.w.ssthresh = 10_000.0;
        cc.w.ns2_halve = true;
        cc.w.ns2_partial_deflation = true;
        cc.w.ns2_exit = true;
        let mut s = TcpSender::new(cfg, Cc::NewReno(cc));
        s.start();
        assert_eq!(drain(&mut s, 0).len(), 20);
        s
    }

    fn ssthresh_pkts(s: &TcpSender) -> f64 {
        let mut p = crate::cc::CcProbe::default();
        s.cc.probe(&mut p);
        p.ssthresh_bytes / 1000.0
    }

    fn assert_window(s: &TcpSender, ssthresh: f64, cwnd: f64, what: &str) {
        assert_eq!(ssthresh_pkts(s), ssthresh, "ssthresh, {what}");
        assert!(
            (cwnd_pkts(s) - cwnd).abs() < 1e-9,
            "cwnd {} != {cwnd}, {what}",
            cwnd_pkts(s)
        );
    }

    /// ns-2 tcp.cc timeout (`recover_ = maxseq_; ... else if (highest_ack_ < recover_ &&
    /// last_cwnd_action_ == CWND_ACTION_ECN) slowdown(CLOSE_CWND_ONE); else { ...
    /// slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART); } ... last_cwnd_action_ =
    /// CWND_ACTION_TIMEOUT;`), worked in segments before running:
    /// - ACK 1 with ECN-Echo: congestion avoidance 20 + 1/20 = 20.05, then tcp.cc ecn ->
    ///   slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF): halfwin 10.025, ssthresh 10, cwnd 10.025.
    /// - timeout: on: cwnd 1, ssthresh kept 10; off: halfwin 10.025 / 2 = 5.0125 -> ssthresh 5,
    ///   cwnd 1. Both retransmit segment 1 and double the RTO (1 ms -> 2 ms).
    /// - a second timeout (last action now the timeout): both halve cwnd 1: int(0.5) -> 2, cwnd 1.
    /// - ECN cut, then a fast retransmit (3 duplicate ACKs: 10.025 / 2 -> ssthresh 5, cwnd
    ///   5.0125 + 3), then a timeout: the last action is the fast retransmit, so both halve the
    ///   uninflated 5.0125: ssthresh int(2.50625) = 2, cwnd 1.
    #[test]
    fn ns2_timeout_after_an_ecn_cut_keeps_ssthresh_once() {
        let far = SimTime(u64::MAX / 2);
        for on in [false, true] {
            let what = format!("on = {on}");
            let mut s = ns2_ecn_newreno(on, false);
            s.on_ack(SimTime(10), 1, true, SimTime(0), false);
            assert_eq!(s.stats.ecn_reductions, 1);
            assert_window(&s, 10.0, 10.025, &what);
            assert!(drain(&mut s, 10).is_empty());
            s.on_timer(far);
            assert_eq!(s.stats.timeouts, 1);
            assert_window(&s, if on { 10.0 } else { 5.0 }, 1.0, &what);
            assert_eq!(s.current_rto(), SimDuration::from_micros(2000));
            assert_eq!(drain(&mut s, 20), [(1, true)], "{what}");
            s.on_timer(far);
            assert_eq!(s.stats.timeouts, 2);
            assert_window(&s, 2.0, 1.0, &what);

            let mut s = ns2_ecn_newreno(on, false);
            s.on_ack(SimTime(10), 1, true, SimTime(0), false);
            for _ in 0..3 {
                s.on_ack(SimTime(20), 1, false, SimTime(0), false);
            }
            assert_eq!(s.stats.fast_retransmits, 1);
            assert_window(&s, 5.0, 8.0125, &what);
            s.on_timer(far);
            assert_window(&s, 2.0, 1.0, &what);
        }
    }

    /// ns-2 tcp-newreno.cc dupack_action after an ECN cut (`if (ecn_ && last_cwnd_action_ ==
    /// CWND_ACTION_ECN) { ... output(last_ack_ + 1, TCP_REASON_DUPACK); dupwnd_ = numdupacks_;
    /// return; }`), recover_ the cut's (tcp.cc ecn: `recover_ = maxseq_` = 19). In segments:
    /// - ACK 12 with ECN-Echo: 20 + 1/20 = 20.05, cut: ssthresh 10, cwnd 10.025; 8 in flight:
    ///   sends 20, 21 (10 in flight; an 11th does not fit in 10.025).
    /// - 3 duplicate ACKs of 12: on: highest_ack_ 12 <= recover_ 19 and the last action is the
    ///   ECN cut: retransmit 12, cwnd_ kept 10.025, dupwnd_ 3 -> window 13.025, room for 22, 23,
    ///   24 (13 in flight). Off: a second cut, 10.025 / 2: ssthresh 5, cwnd 5.0125 + 3 = 8.0125,
    ///   recover 21; retransmit 12 only.
    /// - ACK 20: on: 20 > recover 19, full ACK: dupwnd_ 0, cwnd_ 10.025 >= ssthresh 10, opencwnd
    ///   adds 1/10.025 -> 10.12475..; 5 in flight (20..24): sends 25..=29. Off: 20 <= 21, partial ACK
    ///   of 8: dupwnd_ 3 <= 8: cwnd_ 5.0125 - 5 -> 1 (floor), dupwnd_ 1, window 2; retransmit 20.
    #[test]
    fn ns2_dupack_action_after_an_ecn_cut_retransmits_without_a_second_cut() {
        for on in [false, true] {
            let what = format!("on = {on}");
            let mut s = ns2_ecn_newreno(false, on);
            s.on_ack(SimTime(10), 12, true, SimTime(0), false);
            assert_window(&s, 10.0, 10.025, &what);
            assert_eq!(drain(&mut s, 10), [(20, false), (21, false)]);
            let mut sent = Vec::new();
            for _ in 0..3 {
                s.on_ack(SimTime(20), 12, false, SimTime(0), false);
                sent.extend(drain(&mut s, 20));
            }
            assert!(s.in_recovery());
            assert_eq!(s.stats.fast_retransmits, 1);
            assert_eq!(s.stats.ecn_reductions, 1);
            if on {
                assert_window(&s, 10.0, 13.025, &what);
                assert_eq!(sent, [(12, true), (22, false), (23, false), (24, false)]);
            } else {
                assert_window(&s, 5.0, 8.0125, &what);
                assert_eq!(sent, [(12, true)]);
            }
            s.on_ack(SimTime(30), 20, false, SimTime(0), true);
            if on {
                assert!(!s.in_recovery());
                assert_window(&s, 10.0, 10.025 + 1.0 / 10.025, &what);
                let want: Vec<(u64, bool)> = (25..=29).map(|q| (q, false)).collect();
                assert_eq!(drain(&mut s, 30), want);
            } else {
                assert!(s.in_recovery());
                assert_window(&s, 5.0, 2.0, &what);
                assert_eq!(drain(&mut s, 30), [(20, true)]);
            }
        }
    }

    /// ns-2 NewReno's `recovered = (highest_ack_ > recover_)`, `if (bug_fix_) return;`, and with
    /// `exitFastRetrans_ true` no `dupwnd_`: after a timeout (recover 19, ssthresh 20 / 2 = 10,
    /// cwnd 1), the retransmission of 0 is acknowledged up to 20 (slow start: cwnd 2; sends 20,
    /// 21). Three, then five, duplicate ACKs of 20 = recover + 1: on: no fast retransmit, cwnd
    /// stays 2, nothing sent (no inflation). Off: a fast retransmit (ssthresh max(2 / 2, 2) = 2,
    /// cwnd 5). On, ACK 21 (slow start: cwnd 3, sends 22, 23), then 3 duplicate ACKs of 21 > 20:
    /// a fast retransmit of 21, ssthresh max(3 / 2, 2) = 2, cwnd 5.
    #[test]
    fn ns2_dupack_action_refuses_at_recover_plus_one_without_inflation() {
        for on in [false, true] {
            let what = format!("on = {on}");
            let mut s = sender(false);
            s.cfg.ns2_dupack_action = on;
            s.on_timer(SimTime(u64::MAX / 2));
            assert_window(&s, 10.0, 1.0, &what);
            assert_eq!(drain(&mut s, 1), [(0, true)]);
            s.on_ack(SimTime(2), 20, false, SimTime(1), true);
            assert_eq!(drain(&mut s, 2), [(20, false), (21, false)]);
            let mut sent = Vec::new();
            for _ in 0..3 {
                s.on_ack(SimTime(3), 20, false, SimTime(1), false);
                sent.extend(drain(&mut s, 3));
            }
            if !on {
                assert_eq!(s.stats.fast_retransmits, 1);
                assert_window(&s, 2.0, 5.0, &what);
                continue;
            }
            for _ in 0..2 {
                s.on_ack(SimTime(3), 20, false, SimTime(1), false);
                sent.extend(drain(&mut s, 3));
            }
            assert_eq!(s.stats.fast_retransmits, 0);
            assert!(!s.in_recovery());
            assert_window(&s, 10.0, 2.0, &what);
            assert!(sent.is_empty(), "{sent:?}");
            s.on_ack(SimTime(4), 21, false, SimTime(2), false);
            assert_window(&s, 10.0, 3.0, &what);
            assert_eq!(drain(&mut s, 4), [(22, false), (23, false)]);
            for _ in 0..3 {
                s.on_ack(SimTime(5), 21, false, SimTime(2), false);
            }
            assert_eq!(s.stats.fast_retransmits, 1);
            assert_window(&s, 2.0, 5.0, &what);
            assert_eq!(drain(&mut s, 5)[0], (21, true));
        }
    }

    /// tcp-newreno.cc recv calls `ecn()` before counting the duplicate ACK: DCTCP (ns-2's
    /// Agent/TCP/Newreno with dctcp_), alpha 0.5, cwnd 20, 20 in flight, segment 0 lost; the
    /// third duplicate ACK carries ECN-Echo. On: the DCTCP cut first (cwnd 20 (1 - 0.25) = 15,
    /// ssthresh 15, recover_ 19), then dupack_action: highest_ack_ 0 <= 19 after an ECN cut ->
    /// retransmit 0 without a second cut, window 15 + 3 = 18. Off: the fast retransmit halves
    /// (ns2_halve: 20 / 2 -> ssthresh 10, cwnd 13) and the ECN-Echo in recovery is ignored.
    #[test]
    fn ns2_dupack_action_takes_the_ece_of_the_third_dupack_first() {
        use crate::cc::{Dctcp, DctcpConfig};
        for on in [false, true] {
            let what = format!("on = {on}");
            let mut cfg = sender(false).cfg;
            cfg.rwnd_segments = 100;
            cfg.ns2_dupack_action = on;
            let mut d = Dctcp::new(
                &DctcpConfig::default(),
                crate::cc::dctcp::DctcpRule::WindowCut,
                1000,
                20,
                3,
            );
            d.alpha = 0.5;
            d.w.ns2_halve = true;
            let mut s = TcpSender::new(cfg, Cc::Dctcp(d));
            s.start();
            assert_eq!(drain(&mut s, 0).len(), 20);
            s.on_ack(SimTime(10), 0, false, SimTime(0), false);
            s.on_ack(SimTime(10), 0, false, SimTime(0), false);
            s.on_ack(SimTime(10), 0, true, SimTime(0), false);
            assert_eq!(s.stats.fast_retransmits, 1);
            assert_eq!(s.stats.ecn_reductions, u64::from(on));
            if on {
                assert_window(&s, 15.0, 18.0, &what);
            } else {
                assert_window(&s, 10.0, 13.0, &what);
            }
            assert_eq!(drain(&mut s, 10), [(0, true)]);
        }
    }

    /// ns-2 tcp.cc ecn (`if (seqno > recover_ || last_cwnd_action_ == CWND_ACTION_TIMEOUT) {
    /// recover_ = maxseq_; last_cwnd_action_ = CWND_ACTION_ECN; ... slowdown(CLOSE_CWND_HALF|
    /// CLOSE_SSTHRESH_HALF); }`), worked in segments before running. NewReno, ns2_halve, cwnd 20,
    /// ssthresh 10, 0..19 in flight (maxseq_ 19):
    /// - timeout: halfwin 10 -> ssthresh 10, cwnd 1; retransmit 0.
    /// - ACK 1 (seqno 0 < recover_ 19) with ECN-Echo: off: no cut (the engine waits for ACK > 20),
    ///   slow start 1 -> 2: (10, 2). On (ns2_ecn_after_timeout alone, the engine's order: grow,
    ///   then cut): 2, halfwin 1 -> ssthresh int 1 -> 2, cwnd 1: (2, 1). With ns2_ecn_first too
    ///   (ns-2's order): cut 1 -> halfwin 0.5 -> ssthresh 2, cwnd 1, then opencwnd (`ect_` still
    ///   0): 1 < 2, slow start -> 2: (2, 2).
    /// - ACK 2 with ECN-Echo: recover_ = maxseq_ 19 and the last action is the ECN cut: no cut.
    ///   Off: 2 -> 3: (10, 3); after_timeout alone: 1 -> 2: (2, 2); with ns2_ecn_first: an ECN-Echo
    ///   ACK after `ect_ = 1` does not open: (2, 2).
    #[test]
    fn ns2_ecn_after_timeout_cuts_at_the_first_ece() {
        let far = SimTime(u64::MAX / 2);
        for (on, first) in [(false, false), (true, false), (true, true)] {
            let what = format!("on = {on}, ecn_first = {first}");
            let mut s = ns2_ecn_newreno(false, false);
            s.cfg.ns2_ecn_after_timeout = on;
            s.cfg.ns2_ecn_first = first;
            s.on_timer(far);
            assert_window(&s, 10.0, 1.0, &what);
            assert_eq!(drain(&mut s, 1), [(0, true)]);
            s.on_ack(SimTime(2), 1, true, SimTime(1), true);
            assert_eq!(s.stats.ecn_reductions, u64::from(on), "{what}");
            match (on, first) {
                (false, _) => assert_window(&s, 10.0, 2.0, &what),
                (true, false) => assert_window(&s, 2.0, 1.0, &what),
                (true, true) => assert_window(&s, 2.0, 2.0, &what),
            }
            drain(&mut s, 2);
            s.on_ack(SimTime(3), 2, true, SimTime(1), true);
            assert_eq!(s.stats.ecn_reductions, u64::from(on), "{what}");
            if on {
                assert_window(&s, 2.0, 2.0, &what);
            } else {
                assert_window(&s, 10.0, 3.0, &what);
            }
        }
    }

    /// ns-2 tcp-newreno.cc recv: `ecn()` before `recv_newack_helper`, whose `if (!ect_ ||
    /// !ecnecho || (old_ecn_ && ecn_burst_)) opencwnd();` (`old_ecn_ 0`) opens only while no
    /// ECN-Echo ACK has come (`ect_ = 1` after it). Worked before running, NewReno, ns2_halve,
    /// cwnd 20, ssthresh 10 (congestion avoidance):
    /// - ACK 1 with ECN-Echo: off (grow, then cut): 20 + 1/20 = 20.05, halfwin 10.025: (10,
    ///   10.025). On: cut 20 -> (10, 10), then opencwnd (ect_ 0): 10 >= 10, + 1/10: (10, 10.1).
    /// - ACK 2 without ECN-Echo: off 10.025 + 1/10.025; on 10.1 + 1/10.1.
    /// - ACK 3 with ECN-Echo (below the cut's recover: no cut): off grows again, + 1/cwnd; on:
    ///   `ect_` is set, no growth.
    #[test]
    fn ns2_ecn_first_cuts_before_growing() {
        for on in [false, true] {
            let what = format!("on = {on}");
            let mut s = ns2_ecn_newreno(false, false);
            s.cfg.ns2_ecn_first = on;
            s.on_ack(SimTime(10), 1, true, SimTime(0), false);
            let mut w = if on { 10.1 } else { 10.025 };
            assert_window(&s, 10.0, w, &what);
            s.on_ack(SimTime(11), 2, false, SimTime(0), false);
            w += 1.0 / w;
            assert_window(&s, 10.0, w, &what);
            s.on_ack(SimTime(12), 3, true, SimTime(0), false);
            if !on {
                w += 1.0 / w;
            }
            assert_window(&s, 10.0, w, &what);
            assert_eq!(s.stats.ecn_reductions, 1);
        }
    }

    /// ns-2 recv_newack_helper with `old_ecn_` 0 and 1 (`ns2_old_ecn`), on top of
    /// `ns2_ecn_first`: `if (!ect_ || !ecnecho || (old_ecn_ && ecn_burst_)) opencwnd();` then
    /// `if (ect_) { ecn_burst_ = ecnecho }` then `if (!ect_ && ecnecho) ect_ = 1`. Worked from
    /// the code before running, NewReno, ns2_halve, cwnd 20, ssthresh 10 (congestion
    /// avoidance, + 1/cwnd per opening ACK), one cut (every ACK stays below its recover, 20):
    /// - ACK 1, no ECN-Echo: both open: 20.05. ACK 2, no ECN-Echo: both open: 20.05 + 1/20.05.
    /// - ACK 3, ECN-Echo: ecn() halves first: halfwin w2/2 = 10.0499..: ssthresh 10, cwnd
    ///   w2/2; `ect_` 0: both open (+ 1/cwnd); `ecn_burst_` not touched (ect_ was 0); ect_ = 1.
    /// - ACK 4, ECN-Echo: ect_ 1, ecn_burst_ 0: neither opens (the flow's first burst is
    ///   recorded only from here); ecn_burst_ = 1.
    /// - ACK 5, ECN-Echo: old_ecn_ 0: no; old_ecn_ 1: ecn_burst_ 1: opens.
    /// - ACK 6, no ECN-Echo: both open; ecn_burst_ = 0.
    /// - ACK 7, ECN-Echo: first of a burst: neither opens; ecn_burst_ = 1.
    /// - ACKs 8 and 9, ECN-Echo: old_ecn_ 0: no; old_ecn_ 1: both open.
    ///
    /// So old_ecn_ 0 opens on ACKs 1, 2, 3, 6; old_ecn_ 1 on 1, 2, 3, 5, 6, 8, 9.
    #[test]
    fn ns2_old_ecn_blocks_only_the_first_ecn_echo_ack_of_a_burst() {
        // (ECN-Echo, opens with old_ecn_ 0, opens with old_ecn_ 1)
        let acks = [
            (false, true, true),
            (false, true, true),
            (true, true, true),
            (true, false, false),
            (true, false, true),
            (false, true, true),
            (true, false, false),
            (true, false, true),
            (true, false, true),
        ];
        for old in [false, true] {
            let mut s = ns2_ecn_newreno(false, false);
            s.cfg.ns2_ecn_first = true;
            s.cfg.ns2_old_ecn = old;
            let mut w: f64 = 20.0;
            for (i, &(ece, open0, open1)) in acks.iter().enumerate() {
                let ackno = i as u64 + 1;
                let what = format!("old_ecn = {old}, ACK {ackno}");
                s.on_ack(SimTime(10 + ackno), ackno, ece, SimTime(0), false);
                if ackno == 3 {
                    w /= 2.0;
                }
                if (old && open1) || (!old && open0) {
                    w += 1.0 / w;
                }
                // ssthresh: 10 before the cut, int(10.0499..) = 10 after it
                assert_window(&s, 10.0, w, &what);
            }
            assert_eq!(s.stats.ecn_reductions, 1, "old_ecn = {old}");
        }
    }

    /// DCTCP goes through the same recv_newack_helper in ns-2, and `ns2_old_ecn` overrides
    /// DCTCP's own `ecn_echo_blocks_growth` (on here) as `ns2_ecn_first` does. Worked before
    /// running (alpha 0.5, g 1/16, cwnd 20, slow start): ACK 1 with ECN-Echo: alpha 0.53125,
    /// cut to 14.6875 = ssthresh, opens (`ect_` 0): + 1/14.6875. ACK 2 with ECN-Echo: first
    /// recorded ACK of the burst: no growth in both. ACK 3 with ECN-Echo: old_ecn_ 0: none;
    /// old_ecn_ 1: + 1/cwnd. No second cut (below recover).
    #[test]
    fn ns2_old_ecn_applies_to_dctcp() {
        use crate::cc::{Dctcp, DctcpConfig};
        for old in [false, true] {
            let what = format!("old_ecn = {old}");
            let mut cfg = sender(false).cfg;
            cfg.rwnd_segments = 100;
            cfg.ns2_ecn_first = true;
            cfg.ns2_old_ecn = old;
            let mut d = Dctcp::new(
                &DctcpConfig::default(),
                crate::cc::dctcp::DctcpRule::WindowCut,
                1000,
                20,
                3,
            );
            d.alpha = 0.5;
            let mut s = TcpSender::new(cfg, Cc::Dctcp(d));
            s.start();
            assert_eq!(drain(&mut s, 0).len(), 20);
            let mut w = 14.6875 + 1.0 / 14.6875;
            s.on_ack(SimTime(10), 1, true, SimTime(0), false);
            assert_window(&s, 14.6875, w, &what);
            s.on_ack(SimTime(11), 2, true, SimTime(0), false);
            assert_window(&s, 14.6875, w, &what);
            s.on_ack(SimTime(12), 3, true, SimTime(0), false);
            if old {
                w += 1.0 / w;
            }
            assert_window(&s, 14.6875, w, &what);
            assert_eq!(s.stats.ecn_reductions, 1, "{what}");
        }
    }

    /// The full ACK that ends recovery carries ECN-Echo and lies beyond recover_ (ns-2 recv:
    /// ecn() with dupwnd_ still set, then `dupwnd_ = 0`, recv_newack_helper). Worked before
    /// running, NewReno, ns2_halve, partial deflation and exit, cwnd 20, ssthresh 10, 0..19 in
    /// flight, segment 0 lost:
    /// - 3 duplicate ACKs: halfwin 10 -> ssthresh 10, cwnd_ 10 + dupwnd_ 3 = 13, retransmit 0,
    ///   recover_ 19; 10 more: dupwnd_ 13, window 23: sends 20, 21, 22.
    /// - ACK 22 (seqno 21 > recover_ 19) with ECN-Echo. On: ecn(): windowd() = 10 + 13 = 23,
    ///   halfwin 11.5: ssthresh 11, cwnd_ 11.5; dupwnd_ = 0; opencwnd (ect_ 0): 11.5 >= 11, +
    ///   1/11.5: (11, 11.5 + 1/11.5). Off (exit, grow, then cut): cwnd 10, + 1/10 = 10.1, halfwin
    ///   5.05: (5, 5.05).
    #[test]
    fn ns2_ecn_first_halves_the_inflated_window_at_the_full_ack() {
        for on in [false, true] {
            let what = format!("on = {on}");
            let mut s = ns2_ecn_newreno(false, false);
            s.cfg.ns2_ecn_first = on;
            for _ in 0..3 {
                s.on_ack(SimTime(10), 0, false, SimTime(0), false);
            }
            assert_window(&s, 10.0, 13.0, &what);
            assert_eq!(drain(&mut s, 10), [(0, true)]);
            let mut sent = Vec::new();
            for _ in 0..10 {
                s.on_ack(SimTime(11), 0, false, SimTime(0), false);
                sent.extend(drain(&mut s, 11));
            }
            assert_eq!(sent, [(20, false), (21, false), (22, false)]);
            s.on_ack(SimTime(20), 22, true, SimTime(10), true);
            assert!(!s.in_recovery());
            assert_eq!(s.stats.ecn_reductions, 1, "{what}");
            if on {
                assert_window(&s, 11.0, 11.5 + 1.0 / 11.5, &what);
            } else {
                assert_window(&s, 5.0, 5.05, &what);
            }
        }
    }

    /// ns2_ecn_first with DCTCP (alpha 0.5, g 1/16, cwnd 20, slow start): ACK 1 with ECN-Echo
    /// counts alpha first in both orders (F = 1: alpha 0.5 * 15/16 + 1/16 = 0.53125), cut: 20 (1 -
    /// 0.265625) = 14.6875, ssthresh 14.6875. Off: the ECN-Echo ACK does not grow
    /// (`ecn_echo_blocks_growth`): 14.6875. On: the first ECN-Echo ACK opens (`ect_` 0):
    /// 14.6875 >= ssthresh, + 1/14.6875. ACK 2 with ECN-Echo: no cut, no growth in both.
    #[test]
    fn ns2_ecn_first_dctcp_counts_alpha_then_cuts_then_grows_once() {
        use crate::cc::{Dctcp, DctcpConfig};
        for on in [false, true] {
            let what = format!("on = {on}");
            let mut cfg = sender(false).cfg;
            cfg.rwnd_segments = 100;
            cfg.ns2_ecn_first = on;
            let mut d = Dctcp::new(
                &DctcpConfig::default(),
                crate::cc::dctcp::DctcpRule::WindowCut,
                1000,
                20,
                3,
            );
            d.alpha = 0.5;
            let mut s = TcpSender::new(cfg, Cc::Dctcp(d));
            s.start();
            assert_eq!(drain(&mut s, 0).len(), 20);
            s.on_ack(SimTime(10), 1, true, SimTime(0), false);
            let mut p = crate::cc::CcProbe::default();
            s.cc.probe(&mut p);
            assert_eq!(p.alpha, 0.53125, "{what}");
            let w = if on { 14.6875 + 1.0 / 14.6875 } else { 14.6875 };
            assert_window(&s, 14.6875, w, &what);
            s.on_ack(SimTime(11), 2, true, SimTime(0), false);
            assert_window(&s, 14.6875, w, &what);
            assert_eq!(s.stats.ecn_reductions, 1);
        }
    }

    /// Swift below one packet: one segment in flight, and each send waits srtt / cwnd after the
    /// previous one (Algorithm 1's pacing_delay); the wait is the sender's wake-up deadline.
    /// Worked before running: cwnd 0.5, ai 0.01, target 50 us (no flow or hop scaling); segment 0
    /// at 0; its ACK at 20 us (delay 20 us < target: cwnd 0.5 + 0.01 = 0.51, srtt 20 us); the
    /// next send at 20/0.51 = 39.2157 us after the first, not at the ACK.
    #[test]
    fn swift_paces_sends_below_one_packet() {
        use crate::cc::{Swift, SwiftConfig};
        let us = |x: f64| SimTime((x * 1e6) as u64);
        let cfg = SwiftConfig {
            ai: 0.01,
            base_target_s: 50e-6,
            hop_scale_s: 0.0,
            fs_range_s: 0.0,
            ..SwiftConfig::default()
        };
        let mut sw = Swift::new(&cfg, 0, 1000, 1, 3);
        sw.w.cwnd = 500.0;
        let mut s = TcpSender::new(sender(false).cfg, Cc::Swift(sw));
        s.start();
        assert_eq!(drain(&mut s, 0), [(0, false)]);
        assert_eq!(s.rto_deadline(), Some(SimTime(0) + s.cfg.initial_rto));
        s.on_ack(us(20.0), 1, false, SimTime(0), false);
        assert!((cwnd_pkts(&s) - 0.51).abs() < 1e-12);
        let gap = SimDuration::from_secs_f64(20e-6 / 0.51);
        assert!(drain(&mut s, us(20.0).0).is_empty());
        assert_eq!(s.rto_deadline(), Some(SimTime(0) + gap));
        assert!(drain(&mut s, gap.0 - 1).is_empty());
        assert_eq!(drain(&mut s, gap.0), [(1, false)]);
        // at one packet or more the window alone decides: two segments at once after the ACK
        if let Cc::Swift(c) = &mut s.cc {
            c.w.cwnd = 2000.0;
        }
        s.on_ack(SimTime(gap.0 + 1), 2, false, SimTime(gap.0), false);
        assert_eq!(drain(&mut s, gap.0 + 1), [(2, false), (3, false)]);
        // other controllers never pace: their wake-up is the retransmission timer alone
        let mut n = TcpSender::new(
            sender(false).cfg,
            Cc::NewReno(NewReno::new(1000, 20, false, 3)),
        );
        n.start();
        assert_eq!(drain(&mut n, 0).len(), 20);
        assert_eq!(n.rto_deadline(), Some(SimTime(0) + n.cfg.initial_rto));
        assert!(!n.paced && n.pace_next.is_none() && n.last_send.is_none());
    }
}
