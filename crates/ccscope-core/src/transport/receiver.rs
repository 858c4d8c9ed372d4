//! TCP receiver: cumulative ACKs, immediate ACKs for out-of-order or duplicate data,
//! optional delayed ACKs (every `delack_count` in-order segments or a timer), and the ECN echo:
//! - classic (RFC 3168 §6.1.3): a CE mark sets a latch; ECE goes on every ACK until a data
//!   segment with CWR arrives;
//! - DCTCP (RFC 8257 §3.2, ALGORITHMS.md §1): ECE = CE bit of the last data segment; with
//!   delayed ACKs, when the CE bit changes, first ACK everything before the segment with the
//!   old state, so ECE-marked acknowledged bytes equal CE-marked received bytes.

use crate::packet::{flags, Packet};
use crate::units::{SimDuration, SimTime};
use std::collections::VecDeque;

/// One ACK to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckInfo {
    pub ackno: u64,
    pub ece: bool,
    pub ts_echo: SimTime,
    pub echo_retx: bool,
}

/// Out-of-order segments above `rcv_nxt`, as a ring of 64-bit words (no allocation once grown).
#[derive(Clone, Debug, Default)]
struct SeqBitmap {
    words: VecDeque<u64>,
    /// Segment number of bit 0 of words[0] (a multiple of 64).
    base: u64,
}

impl SeqBitmap {
    fn set(&mut self, seq: u64) {
        if seq < self.base {
            return;
        }
        let idx = seq - self.base;
        let w = (idx / 64) as usize;
        while self.words.len() <= w {
            self.words.push_back(0);
        }
        self.words[w] |= 1 << (idx % 64);
    }
    fn get(&self, seq: u64) -> bool {
        if seq < self.base {
            return false;
        }
        let idx = seq - self.base;
        let w = (idx / 64) as usize;
        w < self.words.len() && self.words[w] & (1 << (idx % 64)) != 0
    }
    /// Forget everything below `seq`.
    fn drop_below(&mut self, seq: u64) {
        while self.base + 64 <= seq {
            if self.words.pop_front().is_none() {
                self.base = seq - seq % 64;
                return;
            }
            self.base += 64;
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct TcpReceiverConfig {
    pub mss_bytes: u32,
    pub size_bytes: Option<u64>,
    pub dctcp_echo: bool,
    pub delayed_ack: bool,
    pub delack_count: u32,
    pub delack_timeout: SimDuration,
}

#[derive(Clone, Debug)]
pub struct TcpReceiver {
    cfg: TcpReceiverConfig,
    pub rcv_nxt: u64,
    ooo: SeqBitmap,
    ce_state: bool,
    ece_latch: bool,
    unacked: u32,
    pending_ts: SimTime,
    pending_retx: bool,
    delack_deadline: Option<SimTime>,
    total_segs: u64,
    /// Time the last byte of a finite flow arrived in order.
    pub done_at: Option<SimTime>,
    pub ce_bytes_received: u64,
    pub acks_sent: u64,
    /// Bytes of distinct segments received, in any order (arrival-time throughput; in-order
    /// delivery can lag behind it by a whole recovery).
    pub unique_bytes_received: u64,
    /// Data segments that arrived while an earlier one was still missing (reordering, or the
    /// segments behind a loss); counted off the in-order path.
    pub ooo_arrivals: u64,
}

impl TcpReceiver {
    pub fn new(cfg: TcpReceiverConfig) -> Self {
        let total_segs = match cfg.size_bytes {
            None => u64::MAX,
            Some(b) => b.div_ceil(cfg.mss_bytes as u64).max(1),
        };
        TcpReceiver {
            cfg,
            rcv_nxt: 0,
            ooo: SeqBitmap::default(),
            ce_state: false,
            ece_latch: false,
            unacked: 0,
            pending_ts: SimTime::ZERO,
            pending_retx: false,
            delack_deadline: None,
            total_segs,
            done_at: None,
            ce_bytes_received: 0,
            acks_sent: 0,
            unique_bytes_received: 0,
            ooo_arrivals: 0,
        }
    }

    /// In-order bytes delivered to the application.
    pub fn delivered_bytes(&self) -> u64 {
        let b = self.rcv_nxt * self.cfg.mss_bytes as u64;
        match self.cfg.size_bytes {
            Some(s) => b.min(s),
            None => b,
        }
    }

    /// The sender stopped after `n` segments (as if its last segment carried FIN).
    pub fn set_total_segments(&mut self, n: u64, now: SimTime) {
        self.total_segs = n;
        if self.rcv_nxt >= n && self.done_at.is_none() {
            self.done_at = Some(now);
        }
    }

    pub fn delack_deadline(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    fn ece(&self) -> bool {
        if self.cfg.dctcp_echo {
            self.ce_state
        } else {
            self.ece_latch
        }
    }

    fn make_ack(&mut self, ts: SimTime, retx: bool, ece: bool) -> AckInfo {
        self.unacked = 0;
        self.delack_deadline = None;
        self.acks_sent += 1;
        AckInfo {
            ackno: self.rcv_nxt,
            ece,
            ts_echo: ts,
            echo_retx: retx,
        }
    }

    /// Process a data segment; returns up to two ACKs to send now (the first is the DCTCP
    /// state-change ACK when one is due).
    pub fn on_data(&mut self, now: SimTime, pkt: &Packet) -> [Option<AckInfo>; 2] {
        let mut out = [None, None];
        let ce = pkt.has(flags::CE);
        let retx = pkt.has(flags::RETX);
        if ce {
            self.ce_bytes_received += pkt.size_bytes as u64;
        }
        if self.cfg.dctcp_echo {
            if ce != self.ce_state && self.unacked > 0 {
                let (ts, r, e) = (self.pending_ts, self.pending_retx, self.ce_state);
                out[0] = Some(self.make_ack(ts, r, e));
            }
            self.ce_state = ce;
        } else {
            if pkt.has(flags::CWR) {
                self.ece_latch = false;
            }
            if ce {
                self.ece_latch = true;
            }
        }
        let seq = pkt.seq;
        if seq == self.rcv_nxt || (seq > self.rcv_nxt && !self.ooo.get(seq)) {
            self.unique_bytes_received += pkt.size_bytes as u64;
        }
        let mut immediate = !self.cfg.delayed_ack;
        if seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            // with no segment held above rcv_nxt there is no hole to fill
            if !self.ooo.words.is_empty() {
                let mut filled = false;
                while self.ooo.get(self.rcv_nxt) {
                    self.rcv_nxt += 1;
                    filled = true;
                }
                self.ooo.drop_below(self.rcv_nxt);
                if filled {
                    immediate = true;
                }
            }
            if self.rcv_nxt >= self.total_segs && self.done_at.is_none() {
                self.done_at = Some(now);
                immediate = true;
            }
        } else {
            if seq > self.rcv_nxt {
                self.ooo_arrivals += 1;
                if self.ooo.words.is_empty() {
                    // the in-order path leaves `base` behind while nothing is held: it is
                    // where `drop_below(rcv_nxt)` would have put it
                    self.ooo.base = self.rcv_nxt - self.rcv_nxt % 64;
                }
                self.ooo.set(seq);
            }
            immediate = true;
        }
        if self.unacked == 0 {
            self.pending_ts = pkt.ts;
            self.pending_retx = retx;
        } else {
            self.pending_retx |= retx;
        }
        self.unacked += 1;
        if immediate || self.unacked >= self.cfg.delack_count {
            let (ts, r, e) = (self.pending_ts, self.pending_retx, self.ece());
            out[1] = Some(self.make_ack(ts, r, e));
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.cfg.delack_timeout);
        }
        out
    }

    /// The delayed-ACK timer may have expired.
    pub fn on_delack_timer(&mut self, now: SimTime) -> Option<AckInfo> {
        match self.delack_deadline {
            Some(d) if d <= now && self.unacked > 0 => {
                let (ts, r, e) = (self.pending_ts, self.pending_retx, self.ece());
                Some(self.make_ack(ts, r, e))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;
    use crate::world::{FlowId, RouteId};

    fn data(seq: u64, f: u8) -> Packet {
        Packet {
            ts: SimTime(seq),
            seq,
            flow: FlowId(0),
            route: RouteId(0),
            size_bytes: 1500,
            hop: 0,
            kind: PacketKind::Data,
            flags: f,
        }
    }
    fn cfg(dctcp: bool, delack: bool) -> TcpReceiverConfig {
        TcpReceiverConfig {
            mss_bytes: 1500,
            size_bytes: None,
            dctcp_echo: dctcp,
            delayed_ack: delack,
            delack_count: 2,
            delack_timeout: SimDuration::from_micros(100),
        }
    }

    #[test]
    fn out_of_order_gives_duplicate_acks_then_a_cumulative_jump() {
        let mut r = TcpReceiver::new(cfg(false, false));
        assert_eq!(r.on_data(SimTime(0), &data(0, 0))[1].unwrap().ackno, 1);
        assert_eq!(r.on_data(SimTime(0), &data(2, 0))[1].unwrap().ackno, 1);
        assert_eq!(r.on_data(SimTime(0), &data(3, 0))[1].unwrap().ackno, 1);
        assert_eq!(r.on_data(SimTime(0), &data(1, 0))[1].unwrap().ackno, 4);
        for s in 4..300 {
            r.on_data(SimTime(0), &data(s, 0));
        }
        assert_eq!(r.rcv_nxt, 300);
    }

    /// The in-order path leaves the out-of-order ring's base behind while the ring is empty;
    /// holes after long in-order runs, with segments held in later words and then earlier ones
    /// (across word boundaries), are still held and filled exactly.
    #[test]
    fn holes_after_long_in_order_runs_are_held_and_filled() {
        let mut r = TcpReceiver::new(cfg(false, false));
        let ack = |r: &mut TcpReceiver, s: u64| r.on_data(SimTime(0), &data(s, 0))[1].unwrap();
        for s in 0..130 {
            assert_eq!(ack(&mut r, s).ackno, s + 1);
        }
        // 130 lost; 200 (two words on) arrives before 131..=140, which lie below its word
        assert_eq!(ack(&mut r, 200).ackno, 130);
        for s in 131..=140 {
            assert_eq!(ack(&mut r, s).ackno, 130);
        }
        assert_eq!(r.unique_bytes_received, 141 * 1500);
        // a duplicate of a held segment is not counted twice
        assert_eq!(ack(&mut r, 135).ackno, 130);
        assert_eq!(r.unique_bytes_received, 141 * 1500);
        assert_eq!(ack(&mut r, 130).ackno, 141);
        for s in 141..200 {
            assert_eq!(ack(&mut r, s).ackno, if s == 199 { 201 } else { s + 1 });
        }
        // the ring is empty again; a hole far ahead, then a segment below it but above rcv_nxt
        for s in 201..1000 {
            assert_eq!(ack(&mut r, s).ackno, s + 1);
        }
        assert_eq!(ack(&mut r, 1100).ackno, 1000);
        assert_eq!(ack(&mut r, 1001).ackno, 1000);
        assert_eq!(ack(&mut r, 1000).ackno, 1002);
        for s in 1002..1100 {
            assert_eq!(ack(&mut r, s).ackno, if s == 1099 { 1101 } else { s + 1 });
        }
        assert_eq!(r.ooo_arrivals, 1 + 10 + 1 + 1 + 1);
    }

    #[test]
    fn classic_ecn_latches_until_cwr() {
        let mut r = TcpReceiver::new(cfg(false, false));
        assert!(r.on_data(SimTime(0), &data(0, flags::CE))[1].unwrap().ece);
        assert!(r.on_data(SimTime(0), &data(1, 0))[1].unwrap().ece);
        assert!(!r.on_data(SimTime(0), &data(2, flags::CWR))[1].unwrap().ece);
    }

    #[test]
    fn dctcp_echo_with_delayed_acks_counts_marked_bytes_exactly() {
        let mut r = TcpReceiver::new(cfg(true, true));
        let marks = [
            false, false, true, false, true, true, true, false, false, false, true,
        ];
        let mut acked_marked = 0u64;
        let mut last_ack = 0u64;
        for (i, &m) in marks.iter().enumerate() {
            for a in r
                .on_data(SimTime(0), &data(i as u64, if m { flags::CE } else { 0 }))
                .into_iter()
                .flatten()
            {
                if a.ece {
                    acked_marked += a.ackno - last_ack;
                }
                last_ack = a.ackno;
            }
        }
        if let Some(a) = r.on_delack_timer(SimTime(1_000_000_000)) {
            if a.ece {
                acked_marked += a.ackno - last_ack;
            }
            last_ack = a.ackno;
        }
        assert_eq!(last_ack, marks.len() as u64);
        assert_eq!(acked_marked, marks.iter().filter(|m| **m).count() as u64);
    }
}
