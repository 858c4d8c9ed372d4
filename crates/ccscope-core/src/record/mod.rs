//! Recorders: columnar trace tables filled during the run (append-only `Vec`s, reserved up
//! front from the sampling plan), plus the packet-conservation ledger.
//!
//! Tables hold raw integers (picoseconds, bytes); conversion to seconds happens once, when
//! the run's output is built.
//!
//! Sampled series have a size known before the run (series x samples), counted by the memory
//! budget (`budget.rs`). Event-driven series (drops and marks, every queue change, feedback
//! frames) are capped: each holds at most its `cap_rows` (set inside the budget at build);
//! rows past the cap are counted in `left_out`, not stored, and the output names the series
//! in a `truncated` table.

use crate::scenario::TraceKind;
use crate::units::SimTime;
use crate::world::{FlowId, PortId};

/// A port's queue at every change: (time, queue pkts, queue bytes), at most `cap_rows` rows.
#[derive(Clone, Debug, Default)]
pub struct ChangeLog {
    pub rows: Vec<(SimTime, u32, u64)>,
    pub cap_rows: u64,
    /// Changes past the cap, not stored.
    pub left_out: u64,
}

impl ChangeLog {
    pub fn with_cap(cap_rows: u64) -> Self {
        ChangeLog {
            rows: Vec::with_capacity(cap_rows.min(1024) as usize),
            cap_rows,
            left_out: 0,
        }
    }
    #[inline]
    pub fn push(&mut self, row: (SimTime, u32, u64)) {
        if (self.rows.len() as u64) < self.cap_rows {
            self.rows.push(row);
        } else {
            self.left_out += 1;
        }
    }
}

/// Queue length samples (or every change) of the recorded ports.
#[derive(Clone, Debug, Default)]
pub struct QueueTable {
    pub time_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub pkts: Vec<u32>,
    pub bytes: Vec<u64>,
}

/// Cumulative bytes whose transmission started, per recorded port.
#[derive(Clone, Debug, Default)]
pub struct LinkTable {
    pub time_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub tx_bytes: Vec<u64>,
}

/// Per-flow samples: cwnd, ssthresh, alpha, delivered bytes.
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    pub time_ps: Vec<u64>,
    pub flow: Vec<u32>,
    pub cwnd_pkts: Vec<f64>,
    pub ssthresh_pkts: Vec<f64>,
    /// 1 while the flow is in fast recovery (cwnd then carries the dupack inflation).
    pub in_recovery: Vec<u8>,
    pub alpha: Vec<f64>,
    pub delivered_bytes: Vec<u64>,
    pub received_bytes: Vec<u64>,
}

/// Rate samples of rate-based flows.
#[derive(Clone, Debug, Default)]
pub struct RateTable {
    pub time_ps: Vec<u64>,
    pub flow: Vec<u32>,
    pub rate_bps: Vec<f64>,
    pub target_rate_bps: Vec<f64>,
}

/// 802.1Qau feedback frames: one row when a congestion point sends one (`event` 0) and one when
/// its source applies it (`event` 1). `a`/`b`: QCN quantized |Fb| and 0, or ASM's Qf and dQ
/// (signed quantum units). `queue_bytes` is set on send rows; the rates on apply rows.
#[derive(Clone, Debug, Default)]
pub struct FeedbackTable {
    pub time_ps: Vec<u64>,
    pub event: Vec<u8>,
    /// The congestion point's port (= CPID).
    pub cpid: Vec<u32>,
    pub flow: Vec<u32>,
    pub a: Vec<f64>,
    pub b: Vec<f64>,
    pub queue_bytes: Vec<f64>,
    pub rate_before_bps: Vec<f64>,
    pub rate_after_bps: Vec<f64>,
    /// When the frame was sent (for apply rows: the delay is time - sent).
    pub sent_ps: Vec<u64>,
    /// Rows this table may hold (set at build, inside the memory budget).
    pub cap_rows: u64,
    /// Rows past the cap, not stored.
    pub left_out: u64,
}

impl FeedbackTable {
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        time_ps: u64,
        event: u8,
        fb: &crate::rate::Feedback,
        flow: FlowId,
        queue_bytes: f64,
        rate_before_bps: f64,
        rate_after_bps: f64,
        sent_ps: u64,
    ) {
        if self.time_ps.len() as u64 >= self.cap_rows {
            self.left_out += 1;
            return;
        }
        let (a, b) = match fb.kind {
            crate::rate::FeedbackKind::Qcn { fb_q } => (fb_q as f64, 0.0),
            crate::rate::FeedbackKind::Asm { qf, dq } => (qf as f64, dq as f64),
        };
        self.time_ps.push(time_ps);
        self.event.push(event);
        self.cpid.push(fb.cpid);
        self.flow.push(flow.0);
        self.a.push(a);
        self.b.push(b);
        self.queue_bytes.push(queue_bytes);
        self.rate_before_bps.push(rate_before_bps);
        self.rate_after_bps.push(rate_after_bps);
        self.sent_ps.push(sent_ps);
    }
}

/// What happened to a packet at a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PortEventKind {
    DropOverflow = 0,
    DropAqm = 1,
    Mark = 2,
}

/// Every drop and mark.
#[derive(Clone, Debug, Default)]
pub struct PortEventTable {
    pub time_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub flow: Vec<u32>,
    pub seq: Vec<u64>,
    pub kind: Vec<u8>,
    /// 0 = data, 1 = ack.
    pub packet_kind: Vec<u8>,
    /// Rows this table may hold (set at build, inside the memory budget).
    pub cap_rows: u64,
    /// Rows past the cap, not stored.
    pub left_out: u64,
}

/// Packet conservation: sent = delivered + dropped + in flight, checked at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
}

impl Ledger {
    pub fn balanced(&self) -> bool {
        self.sent == self.delivered + self.dropped + self.in_flight
    }
}

#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub want_queue: bool,
    pub want_link: bool,
    pub want_cwnd: bool,
    pub want_alpha: bool,
    pub want_delivered: bool,
    pub want_drops: bool,
    pub want_rate: bool,
    pub want_feedback: bool,
    pub queue_every_change: bool,
    pub ports: Vec<PortId>,
    pub queue: QueueTable,
    pub link: LinkTable,
    pub flows: FlowTable,
    pub events: PortEventTable,
    pub rates: RateTable,
    pub feedback: FeedbackTable,
}

impl Recorder {
    pub fn new(traces: &[TraceKind], ports: Vec<PortId>, every_change: bool) -> Self {
        let has = |k| traces.contains(&k);
        Recorder {
            want_queue: has(TraceKind::Queue),
            want_link: has(TraceKind::Link),
            want_cwnd: has(TraceKind::Cwnd),
            want_alpha: has(TraceKind::Alpha),
            want_delivered: has(TraceKind::Delivered),
            want_drops: has(TraceKind::Drops),
            want_rate: has(TraceKind::Rate),
            want_feedback: has(TraceKind::Feedback),
            queue_every_change: every_change && has(TraceKind::Queue),
            ports,
            events: PortEventTable {
                cap_rows: crate::budget::MAX_EVENT_ROWS,
                ..Default::default()
            },
            feedback: FeedbackTable {
                cap_rows: crate::budget::MAX_EVENT_ROWS,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// Cap every event-driven series at `rows` (drops/marks, feedback; change logs are
    /// created with their share by the build).
    pub fn set_event_cap(&mut self, rows: u64) {
        self.events.cap_rows = rows;
        self.feedback.cap_rows = rows;
    }

    pub fn wants_flow_samples(&self) -> bool {
        self.want_cwnd || self.want_alpha || self.want_delivered || self.want_rate
    }

    pub fn wants_queue_samples(&self) -> bool {
        (self.want_queue && !self.queue_every_change) || self.want_link
    }

    #[inline]
    pub fn port_event(
        &mut self,
        time_ps: u64,
        port: PortId,
        flow: FlowId,
        seq: u64,
        kind: PortEventKind,
        is_ack: bool,
    ) {
        if self.want_drops {
            let e = &mut self.events;
            if e.time_ps.len() as u64 >= e.cap_rows {
                e.left_out += 1;
                return;
            }
            e.time_ps.push(time_ps);
            e.port.push(port.0);
            e.flow.push(flow.0);
            e.seq.push(seq);
            e.kind.push(kind as u8);
            e.packet_kind.push(is_ack as u8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_series_stop_at_their_cap_and_count_what_they_leave_out() {
        let mut r = Recorder::new(&[TraceKind::Drops], vec![], false);
        r.set_event_cap(3);
        for i in 0..10 {
            r.port_event(
                i,
                PortId(0),
                FlowId(0),
                i,
                PortEventKind::DropOverflow,
                false,
            );
        }
        assert_eq!(r.events.time_ps, vec![0, 1, 2]);
        assert_eq!(r.events.left_out, 7);
        let mut log = ChangeLog::with_cap(2);
        for i in 0..5 {
            log.push((SimTime(i), 1, 2));
        }
        assert_eq!((log.rows.len(), log.left_out), (2, 3));
    }
}
