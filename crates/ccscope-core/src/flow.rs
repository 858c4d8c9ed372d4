//! A flow's state in the engine: its TCP sender and receiver, or its rate-based source, with
//! the routes and timer events the simulation keeps for it (`sim::hosts` drives them), and the
//! [`FlowFactory`] that makes one from the scenario's settings (at build time, or when a
//! workload creates a flow during the run).

use crate::cc::{Cc, CcKind, CcParams};
use crate::net::Port;
use crate::rate::Rate;
use crate::scenario::TcpConfig;
use crate::transport::receiver::TcpReceiverConfig;
use crate::transport::{TcpReceiver, TcpSender, TcpSenderConfig};
use crate::units::{SimDuration, SimTime};
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
    /// Traffic class of the flow's data packets (`[sched]`).
    pub class: u8,
    /// Traffic class of its ACKs and feedback frames (`tcp.ack_class`, else `class`).
    pub ack_class: u8,
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
    /// The RDMA transport of a RoCE flow (cc = "rdma", "dcqcn"): go-back-N sender and receiver,
    /// ACKs, NACKs and CNPs; None for the 802.1Qau sources, which recover nothing.
    pub rdma: Option<RdmaFlow>,
}

/// The RDMA transport state of one flow (`transport::rdma`) and the engine's bookkeeping of
/// its pacing and of its host's NIC.
#[derive(Clone, Debug)]
pub struct RdmaFlow {
    pub tx: crate::transport::rdma::RdmaSender,
    pub rx: crate::transport::rdma::RdmaReceiver,
    /// The pacer: the next segment may not leave before this time.
    pub next_tx: SimTime,
    /// Time of the pending `RateSend` event, if any (at most one per flow).
    pub send_event: Option<SimTime>,
    /// Registered as waiting for its NIC port (paused by PFC, or a packet already waiting).
    pub nic_wait: bool,
}

impl FlowState {
    /// Put the flow's data in class `class`; its ACKs follow unless `tcp.ack_class` names one.
    pub fn set_class(&mut self, class: u8, ack_class: Option<u8>) {
        self.class = class;
        self.ack_class = ack_class.unwrap_or(class);
    }
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
            rdma: None,
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

/// What a flow's controller may need to know of its path, computed only when a kind asks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathInfo {
    /// RTT with every queue empty, seconds (DX's exact R0).
    pub rtt_s: f64,
    /// Switches on the forward route: its links less one (Swift's hop count, which the paper
    /// reads from the IP TTL each switch decrements).
    pub hops: u32,
}

/// A flow's path: its RTT with every queue empty (propagation plus one `data_bytes`
/// serialization per hop of `fwd` and one `ack_bytes` serialization per hop of `rev`, seconds)
/// and the switches on `fwd`.
pub(crate) fn path_rtt_s(
    routes: &[(u32, u16)],
    route_ports: &[PortId],
    ports: &[Port],
    (fwd, rev): (RouteId, RouteId),
    (data_bytes, ack_bytes): (u32, u32),
) -> PathInfo {
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
    PathInfo {
        rtt_s: SimTime(one_way(fwd, data_bytes) + one_way(rev, ack_bytes)).as_secs_f64(),
        hops: u32::from(routes[fwd.idx()].1.saturating_sub(1)),
    }
}

/// Everything needed to create a flow's sender and receiver, at build time or during the run.
#[derive(Clone, Debug)]
pub struct FlowFactory {
    pub tcp: TcpConfig,
    pub dctcp: crate::cc::DctcpConfig,
    pub dx: crate::cc::DxConfig,
    pub cubic: crate::cc::CubicConfig,
    pub swift: crate::cc::SwiftConfig,
    pub timely: crate::rate::TimelyConfig,
    pub qcn_rp: crate::rate::QcnRpConfig,
    pub asm_rp: crate::rate::AsmRpConfig,
    pub rdma: crate::transport::rdma::RdmaConfig,
    pub dcqcn: crate::rate::DcqcnConfig,
    pub hpcc: crate::rate::HpccConfig,
    pub packet_bytes: u32,
    /// The scenario seed (external controllers' random streams).
    pub seed: u64,
    /// Flows made so far: the index of the next one (build and workloads push each flow made).
    pub made: FlowCounter,
}

/// A count of flows made (atomic only so that a simulation stays `Sync`; one thread uses it).
#[derive(Debug, Default)]
pub struct FlowCounter(std::sync::atomic::AtomicU32);

impl Clone for FlowCounter {
    fn clone(&self) -> Self {
        FlowCounter(self.0.load(std::sync::atomic::Ordering::Relaxed).into())
    }
}

impl FlowFactory {
    #[allow(clippy::too_many_arguments)] // one flow's full description; a struct would only rename them
    pub fn make(
        &self,
        cc_kind: CcKind,
        size_bytes: Option<u64>,
        fwd: RouteId,
        rev: RouteId,
        src: NodeId,
        dst: NodeId,
        start: SimTime,
        line_bps: f64,
        path: impl FnOnce() -> PathInfo,
    ) -> FlowState {
        let t = &self.tcp;
        let mss = self.packet_bytes;
        let flow = self
            .made
            .0
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let ext_seed = matches!(cc_kind, CcKind::Ext(_) | CcKind::ExtRate(_))
            .then(|| crate::rng::Rng::stream(self.seed, &format!("cc/{flow}")).next_u64())
            .unwrap_or(0);
        let path = (cc_kind == CcKind::Swift
            || cc_kind == CcKind::Hpcc
            || matches!(cc_kind, CcKind::ExtRate(_))
            || (cc_kind == CcKind::Dx && self.dx.base_rtt_from_path))
            .then(path);
        let cc = Cc::new(
            cc_kind,
            &CcParams {
                mss_bytes: mss,
                iw_pkts: t.iw_pkts,
                ecn: t.ecn,
                dupack_threshold: t.dupack_threshold,
                dctcp: self.dctcp.clone(),
                dx: self.dx.clone(),
                cubic: self.cubic.clone(),
                swift: self.swift.clone(),
                hops: path.map_or(0, |p| p.hops),
                dx_base_rtt_s: (cc_kind == CcKind::Dx)
                    .then_some(path)
                    .flatten()
                    .map(|p| p.rtt_s),
                ca_increase: t.ca_increase,
                delayed_ack: t.delayed_ack,
                ns2_partial_deflation: t.ns2_partial_window_deflation,
                ns2_exit: t.ns2_exit_recovery,
                ns2_halve: t.ns2_halve_window,
                ns2_halve_whole: t.ns2_halve_whole_segments,
                rwnd_pkts: t.rwnd_pkts,
                initial_ssthresh_pkts: t.initial_ssthresh_pkts,
                flow,
                seed: ext_seed,
            },
        );
        let rate = match cc_kind {
            CcKind::Qcn => Some(crate::rate::Rate::Qcn(crate::rate::QcnRp::new(
                &self.qcn_rp,
                line_bps,
            ))),
            CcKind::Asm => Some(crate::rate::Rate::Asm(crate::rate::AsmRp::new(
                &self.asm_rp,
                line_bps,
            ))),
            CcKind::Dcqcn => Some(crate::rate::Rate::Dcqcn(crate::rate::DcqcnRp::new(
                &self.dcqcn,
                line_bps,
            ))),
            CcKind::Hpcc => Some(crate::rate::Rate::Hpcc(Box::new(crate::rate::Hpcc::new(
                &self.hpcc,
                line_bps,
                SimDuration::from_secs_f64(path.map_or(0.0, |p| p.rtt_s)),
            )))),
            CcKind::Cbr | CcKind::Rdma => {
                Some(crate::rate::Rate::Constant(crate::rate::ConstantRate {
                    rate_bps: line_bps,
                }))
            }
            CcKind::Timely => Some(crate::rate::Rate::Timely(crate::rate::Timely::new(
                &self.timely,
                line_bps,
            ))),
            CcKind::ExtRate(id) => Some(crate::rate::Rate::Ext(Box::new(
                crate::rate::ext::ExtRate::new(
                    id,
                    &crate::rate::ext::ExtRateFlow {
                        flow,
                        seed: ext_seed,
                        line_rate_bps: line_bps,
                        packet_bytes: mss,
                        base_rtt_s: SimDuration::from_secs_f64(path.map_or(0.0, |p| p.rtt_s))
                            .as_secs_f64(),
                    },
                ),
            ))),
            _ => None,
        }
        .map(|r| {
            let mut st = RateState::new(r, size_bytes, mss);
            if cc_kind.is_rdma() {
                let tx = crate::transport::rdma::RdmaSender::new(&self.rdma, size_bytes, mss);
                let rx = crate::transport::rdma::RdmaReceiver::new(&self.rdma, tx.total_segments());
                st.rdma = Some(RdmaFlow {
                    tx,
                    rx,
                    next_tx: SimTime::ZERO,
                    send_event: None,
                    nic_wait: false,
                });
            }
            Box::new(st)
        });
        // ns-2's DCTCP is Agent/TCP/Newreno with dctcp_ true: the same recovery
        let ns2_newreno = cc_kind == CcKind::NewReno || cc_kind.is_dctcp();
        let scfg = TcpSenderConfig {
            mss_bytes: mss,
            size_bytes,
            min_rto: SimDuration::from_secs_f64(t.min_rto_s),
            initial_rto: SimDuration::from_secs_f64(t.initial_rto_s),
            max_rto: SimDuration::from_secs_f64(t.max_rto_s),
            granularity: SimDuration::from_secs_f64(t.clock_granularity_s),
            dupack_threshold: t.dupack_threshold,
            rwnd_segments: t.rwnd_pkts.unwrap_or(u32::MAX),
            ect_on_retransmissions: t.ect_on_retransmissions.unwrap_or(cc_kind.dctcp_echo()),
            reno_recovery: cc_kind == CcKind::Reno,
            rtt_sampling: t.rtt_sampling,
            rto_estimator: t.rto_estimator,
            ns2_exit_recovery: ns2_newreno && t.ns2_exit_recovery,
            limited_transmit: ns2_newreno && t.ns2_limited_transmit,
            ns2_recovery_maxburst: ns2_newreno && t.ns2_recovery_maxburst,
            ns2_timeout_after_ecn: ns2_newreno && t.ns2_timeout_after_ecn,
            ns2_dupack_action: ns2_newreno && t.ns2_dupack_action,
            ns2_ecn_after_timeout: ns2_newreno && t.ns2_ecn_after_timeout,
            ns2_ecn_first: ns2_newreno && t.ns2_ecn_first,
            ns2_old_ecn: ns2_newreno && t.ns2_old_ecn,
        };
        let rcfg = TcpReceiverConfig {
            mss_bytes: mss,
            size_bytes,
            dctcp_echo: cc_kind.dctcp_echo(),
            delayed_ack: t.delayed_ack,
            delack_count: t.delack_count,
            delack_timeout: SimDuration::from_secs_f64(t.delack_timeout_s),
        };
        FlowState {
            sender: TcpSender::new(scfg, cc),
            receiver: TcpReceiver::new(rcfg),
            fwd,
            rev,
            cc_kind,
            src,
            dst,
            start,
            size_bytes,
            rto_event: None,
            delack_event: None,
            first_sent: None,
            workload: None,
            completed: false,
            class: 0,
            ack_class: t.ack_class.unwrap_or(0),
            rate,
        }
    }
}
