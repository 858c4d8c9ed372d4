//! A flow's state in the engine: its TCP sender and receiver, or its rate-based source, with
//! the routes and timer events the simulation keeps for it (`sim::hosts` drives them).

use crate::cc::CcKind;
use crate::net::Port;
use crate::rate::Rate;
use crate::transport::{TcpReceiver, TcpSender};
use crate::units::SimTime;
use crate::world::{NodeId, PortId, RouteId};

/// One transport flow and its timers.
#[derive(Clone, Debug)]
pub struct FlowState {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub fwd: RouteId,
    pub rev: RouteId,
    pub cc_kind: CcKind,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimTime,
    pub size_bytes: Option<u64>,
    /// Time of the scheduled RTO check event, if any.
    pub rto_event: Option<SimTime>,
    pub delack_event: Option<SimTime>,
    pub first_sent: Option<SimTime>,
    /// (workload index, round) for flows a workload created.
    pub workload: Option<(u32, u32)>,
    /// The receiver has the whole flow.
    pub completed: bool,
    /// Rate-based (802.1Qau) source state; None for TCP flows (boxed: cold for TCP flows).
    pub rate: Option<Box<RateState>>,
}

/// A paced, rate-controlled source (no window, no ACKs): frames leave at the reaction
/// point's current rate; losses are not recovered (802.1Qau assumes a lossless fabric).
#[derive(Clone, Debug)]
pub struct RateState {
    pub rp: Rate,
    pub next_seq: u64,
    pub total_segs: u64,
    last_seg_bytes: u32,
    mss: u32,
    pub timer_event: Option<SimTime>,
    pub frames_sent: u64,
}

impl RateState {
    pub fn new(rp: Rate, size_bytes: Option<u64>, mss: u32) -> Self {
        let (total_segs, last) = match size_bytes {
            None => (u64::MAX, mss),
            Some(b) => {
                let n = b.div_ceil(mss as u64).max(1);
                (n, (b - (n - 1) * mss as u64).max(1) as u32)
            }
        };
        RateState {
            rp,
            next_seq: 0,
            total_segs,
            last_seg_bytes: last,
            mss,
            timer_event: None,
            frames_sent: 0,
        }
    }
    pub(crate) fn seg_bytes(&self, seq: u64) -> u32 {
        if seq + 1 == self.total_segs {
            self.last_seg_bytes
        } else {
            self.mss
        }
    }
}

/// A flow's RTT with every queue empty: propagation plus one `data_bytes` serialization per hop
/// of `fwd` and one `ack_bytes` serialization per hop of `rev`, seconds (DX's exact R0).
pub(crate) fn path_rtt_s(
    routes: &[(u32, u16)],
    route_ports: &[PortId],
    ports: &[Port],
    (fwd, rev): (RouteId, RouteId),
    (data_bytes, ack_bytes): (u32, u32),
) -> f64 {
    let one_way = |r: RouteId, bytes: u32| -> u64 {
        let (off, len) = routes[r.idx()];
        route_ports[off as usize..off as usize + len as usize]
            .iter()
            .map(|p| {
                let port = &ports[p.idx()];
                port.delay.0 + port.rate().tx_time(bytes).0
            })
            .sum()
    };
    SimTime(one_way(fwd, data_bytes) + one_way(rev, ack_bytes)).as_secs_f64()
}
