//! `Cc::new`: the window controller a flow of a given [`CcKind`] runs, from the scenario's
//! settings ([`CcParams`]). The only place that maps kinds to controllers and that decides which
//! ns-2 window options apply to which kind.

use super::dctcp::DctcpRule;
use super::ext::{ExtCc, ExtFlow};
// new-cc: use lines (`ccscope new-cc` inserts above this line)
use super::reno::{RenoWindow, ABC_LIMIT_SEGMENTS};
use super::{
    CaIncrease, Cc, CcKind, Cubic, CubicConfig, Dctcp, DctcpConfig, Dx, DxConfig, NewReno,
    RenoBased, Swift, SwiftConfig,
};

/// What a window controller is built from: one flow's TCP settings (scenario `[tcp]`) and the
/// algorithm sections (`[dctcp]`, `[dx]`). The ns-2 options are the scenario's; [`Cc::new`]
/// applies each to the kinds it belongs to.
#[derive(Clone, Debug)]
pub struct CcParams {
    /// Segment size, bytes.
    pub mss_bytes: u32,
    /// Initial window, segments.
    pub iw_pkts: u32,
    /// NewReno/Reno send ECT and halve on ECN-Echo (`tcp.ecn`); DCTCP always does, DX never.
    pub ecn: bool,
    /// Duplicate ACKs that trigger fast retransmit (`tcp.dupack_threshold`).
    pub dupack_threshold: u32,
    pub dctcp: DctcpConfig,
    pub dx: DxConfig,
    pub cubic: CubicConfig,
    pub swift: SwiftConfig,
    /// Switches on the flow's forward route (Swift's per-hop target scaling; 0 for other kinds).
    pub hops: u32,
    /// DX's base RTT R0, seconds, when fixed from the path (`dx.base_rtt_from_path`); None: as
    /// `dx.base_rtt_s` or measured.
    pub dx_base_rtt_s: Option<f64>,
    /// Congestion-avoidance increase rule (`tcp.ca_increase`).
    pub ca_increase: CaIncrease,
    /// The receiver delays ACKs (`tcp.delayed_ack`): slow start grows by up to
    /// [`ABC_LIMIT_SEGMENTS`] per ACK (RFC 3465 §2.2), otherwise by 1 MSS.
    pub delayed_ack: bool,
    /// `tcp.ns2_partial_window_deflation` (NewReno and DCTCP only; see `RenoWindow`).
    pub ns2_partial_deflation: bool,
    /// `tcp.ns2_exit_recovery` (NewReno and DCTCP only).
    pub ns2_exit: bool,
    /// `tcp.ns2_halve_window` (NewReno and DCTCP only).
    pub ns2_halve: bool,
    /// `tcp.ns2_halve_whole_segments` (every kind; it acts only with `ns2_halve` or Reno).
    pub ns2_halve_whole: bool,
    /// Receiver window, segments (`tcp.rwnd_pkts`); None: unlimited.
    pub rwnd_pkts: Option<u32>,
    /// Initial ssthresh, segments (`tcp.initial_ssthresh_pkts`); None: infinite.
    pub initial_ssthresh_pkts: Option<f64>,
    /// The flow's index in the run and its random seed (external controllers only).
    pub flow: u32,
    pub seed: u64,
}

impl Cc {
    /// The controller of a flow of `kind`. Rate-based kinds (QCN, ASM, CBR) get an idle
    /// NewReno without ECN: their reaction point or constant rate drives them.
    pub fn new(kind: CcKind, p: &CcParams) -> Cc {
        let (mss, iw, dupacks) = (p.mss_bytes, p.iw_pkts, p.dupack_threshold);
        let mut cc = match kind {
            CcKind::NewReno | CcKind::Reno => Cc::NewReno(NewReno::new(mss, iw, p.ecn, dupacks)),
            CcKind::Dctcp => {
                Cc::Dctcp(Dctcp::new(&p.dctcp, DctcpRule::WindowCut, mss, iw, dupacks))
            }
            CcKind::DctcpPerAck => {
                Cc::Dctcp(Dctcp::new(&p.dctcp, DctcpRule::PerAck, mss, iw, dupacks))
            }
            CcKind::Dx => {
                let mut dx = Dx::new(&p.dx, mss, iw, dupacks);
                if let Some(r0) = p.dx_base_rtt_s {
                    dx.set_base_rtt(r0);
                }
                Cc::Dx(dx)
            }
            CcKind::Cubic => Cc::Cubic(Cubic::new(&p.cubic, mss, iw, p.ecn, dupacks)),
            CcKind::Swift => Cc::Swift(Swift::new(&p.swift, p.hops, mss, iw, dupacks)),
            // new-cc: Cc::new arms (`ccscope new-cc` inserts above this line)
            CcKind::Qcn | CcKind::Asm | CcKind::Cbr => {
                Cc::NewReno(NewReno::new(mss, iw, false, dupacks))
            }
            CcKind::Rdma | CcKind::Timely | CcKind::Dcqcn | CcKind::Hpcc => {
                Cc::NewReno(NewReno::new(mss, iw, false, dupacks))
            }
            CcKind::ExtRate(_) => Cc::NewReno(NewReno::new(mss, iw, false, dupacks)),
            CcKind::Ext(id) => {
                let f = ExtFlow {
                    flow: p.flow,
                    seed: p.seed,
                    mss_bytes: mss,
                    iw_pkts: iw,
                    dupack_threshold: dupacks,
                    ss_limit_pkts: if p.delayed_ack {
                        ABC_LIMIT_SEGMENTS
                    } else {
                        1.0
                    },
                };
                return Cc::Ext(Box::new(ExtCc::new(id, &f)));
            }
        };
        configure_window(cc.window_mut(), kind, p);
        cc
    }

    /// The controller's Reno window (ns-2 mechanisms of the transport act on it directly).
    #[inline]
    pub fn window(&self) -> &RenoWindow {
        match self {
            Cc::NewReno(c) => c.window(),
            Cc::Dctcp(c) => c.window(),
            Cc::Dx(c) => c.window(),
            Cc::Cubic(c) => c.window(),
            Cc::Swift(c) => c.window(),
            // new-cc: Cc::window arms (`ccscope new-cc` inserts above this line)
            Cc::Ext(c) => c.window(),
        }
    }

    /// Gap between sends while the controller paces below one packet per RTT (Swift's
    /// fractional window); None otherwise and for every other controller.
    #[inline]
    pub fn pacing_delay(&self) -> Option<crate::units::SimDuration> {
        match self {
            Cc::Swift(s) => s.pacing_delay(),
            _ => None,
        }
    }

    /// The controller's Reno window, mutable.
    #[inline]
    pub fn window_mut(&mut self) -> &mut RenoWindow {
        match self {
            Cc::NewReno(c) => c.window_mut(),
            Cc::Dctcp(c) => c.window_mut(),
            Cc::Dx(c) => c.window_mut(),
            Cc::Cubic(c) => c.window_mut(),
            Cc::Swift(c) => c.window_mut(),
            // new-cc: Cc::window_mut arms (`ccscope new-cc` inserts above this line)
            Cc::Ext(c) => c.window_mut(),
        }
    }
}

/// The scenario's window settings, each for the kinds it applies to.
fn configure_window(w: &mut RenoWindow, kind: CcKind, p: &CcParams) {
    let mss = p.mss_bytes as f64;
    w.increase = p.ca_increase;
    w.ss_limit = if p.delayed_ack {
        ABC_LIMIT_SEGMENTS
    } else {
        1.0
    };
    w.ns2_reno = kind == CcKind::Reno;
    // ns-2's DCTCP is Agent/TCP/Newreno with dctcp_ true: the same recovery
    let ns2_newreno = kind == CcKind::NewReno || kind.is_dctcp();
    w.ns2_partial_deflation = ns2_newreno && p.ns2_partial_deflation;
    w.ns2_exit = ns2_newreno && p.ns2_exit;
    w.ns2_halve = ns2_newreno && p.ns2_halve;
    w.ns2_halve_whole = p.ns2_halve_whole;
    if let Some(r) = p.rwnd_pkts {
        w.rwnd = r as f64 * mss;
    }
    if let Some(s) = p.initial_ssthresh_pkts {
        w.ssthresh = s * mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{AckSample, CongestionControl};
    use crate::units::SimTime;

    fn params() -> CcParams {
        CcParams {
            mss_bytes: 1000,
            iw_pkts: 4,
            ecn: true,
            dupack_threshold: 5,
            dctcp: DctcpConfig::default(),
            dx: DxConfig::default(),
            cubic: CubicConfig::default(),
            swift: SwiftConfig::default(),
            hops: 2,
            dx_base_rtt_s: None,
            ca_increase: CaIncrease::PerAck,
            delayed_ack: false,
            ns2_partial_deflation: true,
            ns2_exit: true,
            ns2_halve: true,
            ns2_halve_whole: true,
            rwnd_pkts: Some(20),
            initial_ssthresh_pkts: Some(8.0),
            flow: 0,
            seed: 1,
        }
    }

    #[test]
    fn each_kind_gets_its_controller_and_only_its_ns2_options() {
        let p = params();
        for kind in crate::cc::kind::BUILTIN {
            let cc = Cc::new(kind, &p);
            let variant_ok = match (&cc, kind) {
                (Cc::NewReno(_), CcKind::NewReno | CcKind::Reno) => true,
                (Cc::NewReno(_), k) => k.is_rate_based(),
                (Cc::Dctcp(d), CcKind::Dctcp) => d.rule() == DctcpRule::WindowCut,
                (Cc::Dctcp(d), CcKind::DctcpPerAck) => d.rule() == DctcpRule::PerAck,
                (Cc::Dx(_), CcKind::Dx) => true,
                (Cc::Cubic(_), CcKind::Cubic) => true,
                (Cc::Swift(_), CcKind::Swift) => true,
                // new-cc: kind test arms (`ccscope new-cc` inserts above this line)
                _ => false,
            };
            assert!(variant_ok, "{kind:?} -> {cc:?}");
            let w = cc.window();
            let ns2_newreno = kind == CcKind::NewReno || kind.is_dctcp();
            assert_eq!(w.ns2_reno, kind == CcKind::Reno, "{kind:?}");
            assert_eq!(
                (w.ns2_partial_deflation, w.ns2_exit, w.ns2_halve),
                (ns2_newreno, ns2_newreno, ns2_newreno),
                "{kind:?}"
            );
            assert!(w.ns2_halve_whole);
            assert_eq!((w.cwnd, w.ssthresh, w.rwnd), (4000.0, 8000.0, 20_000.0));
            assert_eq!((w.ss_limit, w.dupack_threshold), (1.0, 5));
            // ECT: tcp.ecn for NewReno, Reno and CUBIC, always for DCTCP, never for DX and rate sources
            for ecn in [false, true] {
                let cc = Cc::new(kind, &CcParams { ecn, ..p.clone() });
                let want = match kind {
                    // new-cc: ECT test arms (`ccscope new-cc` inserts above this line)
                    CcKind::NewReno | CcKind::Reno | CcKind::Cubic => ecn,
                    k => k.is_dctcp(),
                };
                assert_eq!(cc.needs_ecn(), want, "{kind:?} tcp.ecn = {ecn}");
            }
        }
    }

    #[test]
    fn delayed_acks_raise_the_slow_start_limit_and_dx_takes_the_path_rtt() {
        let p = CcParams {
            delayed_ack: true,
            dx_base_rtt_s: Some(100e-6),
            ..params()
        };
        let mut cc = Cc::new(CcKind::Dx, &p);
        assert_eq!(cc.window().ss_limit, ABC_LIMIT_SEGMENTS);
        // fixed R0 = 100 us: a 110 us sample is 10 us of queueing delay, whatever was measured
        cc.window_mut().ssthresh = 0.0;
        let ack = |una, rtt_us: u64| AckSample {
            now: SimTime(0),
            newly_acked_bytes: 1000,
            ece: false,
            rtt: Some(crate::units::SimDuration(rtt_us * 1_000_000)),
            snd_una: una,
            snd_nxt: una + 4,
            in_recovery: false,
            flight_bytes: 4000,
        };
        cc.on_ack(&ack(1, 110));
        let Cc::Dx(d) = &cc else { unreachable!() };
        assert!((d.last_q_s - 10e-6).abs() < 1e-12, "{}", d.last_q_s);
    }
}
