//! Priority flow control (IEEE 802.1Qbb) at the switches (`[pfc]`, docs/engine.md).
//!
//! Ingress accounting: a switch counts, per ingress link and traffic class, the bytes that
//! arrived through that link and still wait in any of its egress queues (a packet leaves the
//! count when its transmission starts or when it is dropped). When a lossless class's count
//! reaches XOFF, the switch sends a PAUSE frame for that class back over the reverse link; the
//! upstream port stops starting that class's frames (the frame in transmission finishes) for the
//! pause time the frame carries (`pause_quanta` x 512 bit times at the paused link's rate). While
//! the count stays above XON the switch refreshes the pause at half that time; when it falls to
//! XON it sends a resume (a PAUSE with quanta 0). A PAUSE frame takes the reverse link's
//! propagation delay plus its 64-byte serialization; it is not queued behind data (a MAC
//! control frame goes at the next frame boundary; the wait for the frame in transmission, at
//! most one frame time, is not modelled). Lossless classes are never dropped at a switch for
//! lack of buffer (`Sched::lossless`). Headroom (`headroom_bytes`, 802.1Qbb Annex N): the
//! bytes an ingress may add above XOFF while its PAUSE travels and the upstream port finishes
//! its frame; the count's largest value per ingress and class is kept, and arrivals that take
//! it above XOFF + headroom are counted (`classes.headroom_exceeded`), never dropped. Host NIC
//! ports keep their buffer: a paused host queues at most what its transport has outstanding.
//!
//! Trace "pfc" (`record::PfcTable`, only when asked for): one row per frame as it reaches the
//! port it acts on.

use crate::engine::Event;
use crate::packet::{Packet, PacketKind};
use crate::scenario::PfcConfig;
use crate::units::SimDuration;
use crate::world::PortId;

use super::Simulation;

/// Event code bits (`Event::Pfc(port, code)`): the class in the low 3 bits.
const RESUME: u8 = 0x40;
const REFRESH: u8 = 0x80;

/// The PFC state of a run.
#[derive(Clone, Debug)]
pub(crate) struct Pfc {
    lossless: u8,
    xoff: u64,
    xon: u64,
    quanta: u32,
    /// Per ingress port (the upstream node's port into the switch): its waiting bytes, their
    /// largest value and its pauses in force, per class, in one place (`Ingress`).
    ingress: Vec<Ingress>,
    /// The port back from the switch toward the upstream node, per ingress port.
    reverse: Vec<Option<PortId>>,
    /// PAUSE frames (pauses, refreshes, resumes) sent toward each port.
    pub(crate) frames_sent: Vec<u64>,
    /// XOFF + headroom (`headroom_bytes`), when the scenario sets a headroom.
    limit: Option<u64>,
    /// Arrivals of a lossless class that took the count above XOFF + headroom, per (ingress
    /// port, class).
    pub(crate) exceeded: Vec<[u64; 8]>,
}

/// The PFC state of one ingress port, kept together so that an arrival or departure at a big
/// fabric's switch touches one cache line of it instead of one per array (the bytes waiting,
/// their largest value and the pause bits of a class lie side by side; classes 0-2 share the
/// first line with the bits).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Ingress {
    /// Classes for which a pause is in force (bit c).
    sent: u8,
    /// Per class: bytes that came in through this port and wait in the switch's egress queues,
    /// and the largest value that count reached.
    count_max: [[u64; 2]; 8],
}

impl Pfc {
    /// The largest ingress count of port `i`, class `c`, bytes.
    pub(crate) fn max_count(&self, i: usize, c: usize) -> u64 {
        self.ingress[i].count_max[c][1]
    }
}

impl Pfc {
    /// Per row (`port`, `class`: a port's class index) of the `classes` table: the largest
    /// ingress count of the bytes that came through that port, and the arrivals that took it
    /// above XOFF + headroom (packet classes served as that class taken together).
    pub(crate) fn ingress_by_class(
        &self,
        sim: &Simulation,
        port: &[u32],
        class: &[u32],
    ) -> (Vec<u64>, Vec<u64>) {
        let mut max_in = vec![0u64; port.len()];
        let mut exceeded = vec![0u64; port.len()];
        for (row, (&i, &ci)) in port.iter().zip(class).enumerate() {
            let Some(s) = sim.ports[i as usize].sched.as_ref() else {
                continue;
            };
            for c in 0..8u8 {
                if s.class_index(c) == ci as usize {
                    max_in[row] = max_in[row].max(self.max_count(i as usize, c as usize));
                    exceeded[row] += self.exceeded[i as usize][c as usize];
                }
            }
        }
        (max_in, exceeded)
    }

    pub(crate) fn new(cfg: &PfcConfig, reverse: Vec<Option<PortId>>) -> Pfc {
        let n = reverse.len();
        Pfc {
            lossless: cfg.mask(),
            xoff: cfg.xoff_bytes,
            xon: cfg.xon_bytes,
            quanta: cfg.pause_quanta,
            ingress: vec![Ingress::default(); n],
            reverse,
            frames_sent: vec![0; n],
            limit: cfg.headroom_bytes.map(|h| cfg.xoff_bytes + h),
            exceeded: vec![[0; 8]; n],
        }
    }
}

/// `[pfc].headroom_bytes`: XOFF plus the headroom must fit in the buffer of switch port
/// `name` (link `l`): its own (`buffer_bytes`, `buffer_pkts` x `packet_bytes`, the smaller when
/// both are given; none: unlimited), or its switch's pool with `[shared_buffer]`.
pub(crate) fn check_headroom(
    p: &PfcConfig,
    sc: &crate::scenario::Scenario,
    l: &crate::scenario::LinkSpec,
    name: &str,
) -> Result<(), crate::error::ScenarioError> {
    if let Some(b) = &sc.shared_buffer {
        return p.check_buffer("pfc", b.bytes, "a switch's pool (shared_buffer.bytes)");
    }
    let pkts = l.buffer_pkts.map(|n| n as u64 * sc.packet_bytes as u64);
    let buf = match (pkts, l.buffer_bytes) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => return Ok(()),
    };
    p.check_buffer("pfc", buf, &format!("switch port {name}"))
}

/// Per port: the PFC frames it received (all classes) and the time during which at least one
/// of its classes was paused, seconds (the union of its classes' pauses is not kept; the
/// largest of its classes' paused times is given, exact for the usual single lossless class).
pub(crate) fn pause_by_port(sim: &Simulation) -> (Vec<u64>, Vec<f64>) {
    sim.ports
        .iter()
        .map(|p| match p.sched.as_ref() {
            None => (0, 0.0),
            Some(s) => (
                s.classes.iter().map(|q| q.stats.pause_rx).sum(),
                s.classes
                    .iter()
                    .map(|q| q.paused_ps_at(sim.now))
                    .max()
                    .unwrap_or(0) as f64
                    * 1e-12,
            ),
        })
        .unzip()
}

impl Simulation {
    /// The class a packet travels in (its flow's; ACKs and feedback: the flow's ACK class).
    #[inline]
    pub(crate) fn class_of(&self, pkt: &Packet) -> u8 {
        let [data, ack] = match self.flow_class.get(pkt.flow.idx()) {
            Some(c) => *c,
            None => {
                let fl = &self.flows[pkt.flow.idx()];
                [fl.class, fl.ack_class]
            }
        };
        if pkt.kind == PacketKind::Data {
            data
        } else {
            ack
        }
    }

    /// The upstream port a packet queued at a switch came in through: the port before the one
    /// it waits at on its route (None at the first port, a host's NIC).
    #[inline]
    fn ingress_of(&self, pkt: &Packet) -> Option<PortId> {
        let (off, _) = self.routes[pkt.route.idx()];
        (pkt.hop >= 2).then(|| self.route_ports[off as usize + pkt.hop as usize - 2])
    }

    /// A packet joined an egress queue of a switch.
    pub(crate) fn pfc_queued(&mut self, pkt: &Packet) {
        let (Some(i), c) = (self.ingress_of(pkt), self.class_of(pkt) & 7) else {
            return;
        };
        let Some(p) = self.pfc.as_mut() else { return };
        let g = &mut p.ingress[i.idx()];
        let cm = &mut g.count_max[c as usize];
        cm[0] += pkt.size_bytes as u64;
        cm[1] = cm[1].max(cm[0]);
        let n = cm[0];
        if p.lossless & (1 << c) != 0 && p.limit.is_some_and(|l| n > l) {
            // the headroom did not absorb what was in flight (never a drop: counted)
            p.exceeded[i.idx()][c as usize] += 1;
        }
        if p.lossless & (1 << c) != 0 && n >= p.xoff && g.sent & (1 << c) == 0 {
            g.sent |= 1 << c;
            self.pfc_send(i, c);
        }
    }

    /// A packet left an egress queue of a switch (sent or dropped).
    pub(crate) fn pfc_left(&mut self, pkt: &Packet) {
        let (Some(i), c) = (self.ingress_of(pkt), self.class_of(pkt) & 7) else {
            return;
        };
        let Some(p) = self.pfc.as_mut() else { return };
        let g = &mut p.ingress[i.idx()];
        let n = &mut g.count_max[c as usize][0];
        *n -= pkt.size_bytes as u64;
        if g.sent & (1 << c) != 0 && *n <= p.xon {
            g.sent &= !(1 << c);
            self.pfc_send(i, c | RESUME);
        }
    }

    /// Send a PFC frame (`code`: class, RESUME bit) toward upstream port `i`; a pause also
    /// schedules its refresh.
    fn pfc_send(&mut self, i: PortId, code: u8) {
        let Some(p) = self.pfc.as_mut() else { return };
        p.frames_sent[i.idx()] += 1;
        let Some(r) = p.reverse[i.idx()] else { return };
        let travel = self.frame_travel(r);
        self.events.schedule(self.now + travel, Event::Pfc(i, code));
        if code & RESUME == 0 {
            let half = SimDuration(self.pause_time(i).0 / 2);
            self.events
                .schedule(self.now + half, Event::Pfc(i, (code & 7) | REFRESH));
        }
    }

    /// A PFC frame's time over the reverse port `r`: its propagation delay and the 64-byte
    /// frame's serialization.
    fn frame_travel(&self, r: PortId) -> SimDuration {
        let back = &self.ports[r.idx()];
        back.delay + SimDuration::from_secs_f64(64.0 * 8.0 / back.rate().0 as f64)
    }

    /// The pause time of one PAUSE frame at port `i`.
    fn pause_time(&self, i: PortId) -> SimDuration {
        let quanta = self.pfc.as_ref().map_or(0, |p| p.quanta);
        SimDuration::from_secs_f64(quanta as f64 * 512.0 / self.ports[i.idx()].rate().0 as f64)
    }

    /// A row of the "pfc" trace for a frame (`code`) reaching port `i` now.
    #[cold]
    fn record_pfc(&mut self, i: PortId, code: u8) {
        let (event, quanta) = if code & RESUME != 0 {
            (crate::record::PFC_RESUME, 0)
        } else {
            (
                crate::record::PFC_PAUSE,
                self.pfc.as_ref().map_or(0, |p| p.quanta),
            )
        };
        // the frame left the switch one reverse-link travel ago (`pfc_send`)
        let sent = self
            .pfc
            .as_ref()
            .and_then(|p| p.reverse[i.idx()])
            .map_or(self.now.0, |r| self.now.0 - self.frame_travel(r).0);
        self.rec
            .pfc
            .push(self.now.0, i, code & 7, event, quanta, sent);
    }

    /// `Event::Pfc`: a frame reaches upstream port `i`, or a pause's refresh time has come.
    #[inline(never)]
    pub(crate) fn on_pfc(&mut self, i: PortId, code: u8) {
        let c = code & 7;
        let now = self.now;
        if code & REFRESH != 0 {
            let still = self
                .pfc
                .as_ref()
                .is_some_and(|p| p.ingress[i.idx()].sent & (1 << c) != 0);
            if still {
                self.pfc_send(i, c);
            }
            return;
        }
        let until = if code & RESUME != 0 {
            now
        } else {
            now + self.pause_time(i)
        };
        if self.rec.want_pfc {
            self.record_pfc(i, code);
        }
        let Some(s) = self.ports[i.idx()].sched.as_mut() else {
            return;
        };
        let ci = s.class_index(c);
        s.pause(ci, now, until);
        if until > now {
            // look again when the pause runs out (a refresh or resume may come first)
            self.events.schedule(until, Event::TxDone(i));
        } else {
            self.start_next(i);
            if !self.nic_waiters.is_empty() {
                self.rdma_wake_nic(i);
            }
        }
    }
}
