//! Shared-buffer switches (`[shared_buffer]`, docs/engine.md): one buffer pool per switch whose
//! queues (one per class of each output port) are admitted by Choudhury and Hahne's dynamic
//! thresholds (IEEE/ACM ToN 6(2), 1998, section II, eq. (1)): a queue of length q takes an
//! arrival while q < T(t) = alpha x (B - Q(t)), Q(t) the bytes waiting in all of the switch's
//! queues, and while the arrival fits in the pool (Q + size <= B). A queue below the static
//! reservation is admitted whenever the arrival fits in the pool. The occupancy counts packets
//! from when they join a queue until their transmission starts or they are dropped, as the
//! ports' own queue lengths and PFC's ingress counts do (`sim::pfc`). Packets of a PFC lossless
//! class are always admitted (the occupancy may then exceed B; the threshold is then 0).
//!
//! Steady state (the paper's section III): N queues kept congested settle at
//! q = alpha B / (1 + N alpha) each, within one packet (T falls as they grow).

use crate::packet::Packet;
use crate::scenario::SharedBufferConfig;
use crate::world::PortId;

use super::Simulation;

/// The pools of a run.
#[derive(Clone, Debug)]
pub(crate) struct Pools {
    bytes: u64,
    alpha: [f64; 8],
    reserve: u64,
    /// The pool (switch) each port draws from; `u32::MAX` for a host's port.
    of_port: Vec<u32>,
    /// Bytes waiting, per pool.
    used: Vec<u64>,
    /// Largest occupancy seen, per pool.
    pub(crate) max_used: Vec<u64>,
    /// Arrivals each port dropped because its pool refused them (threshold or pool full).
    pub(crate) drops: Vec<u64>,
}

impl Pools {
    /// `of_port`: each port's switch as a dense pool index (`u32::MAX`: a host's port);
    /// `n`: the number of switches.
    pub(crate) fn new(cfg: &SharedBufferConfig, of_port: Vec<u32>, n: usize) -> Pools {
        let mut alpha = [1.0; 8];
        for (c, a) in alpha.iter_mut().enumerate() {
            *a = cfg.alpha_of(c);
        }
        let ports = of_port.len();
        Pools {
            bytes: cfg.bytes,
            alpha,
            reserve: cfg.reserve_bytes,
            of_port,
            used: vec![0; n],
            max_used: vec![0; n],
            drops: vec![0; ports],
        }
    }

    /// The largest occupancy of the pool port `i` draws from (0 for a host's port).
    pub(crate) fn max_of_port(&self, i: usize) -> u64 {
        match self.of_port[i] {
            u32::MAX => 0,
            s => self.max_used[s as usize],
        }
    }

    /// Whether a queue of class index `c` holding `q` bytes at port `port` may take `size`
    /// more bytes; None at a host's port (its own buffer limit applies).
    #[inline]
    pub(crate) fn admits(&self, port: PortId, c: usize, q: u64, size: u64) -> Option<bool> {
        let s = self.of_port[port.idx()];
        if s == u32::MAX {
            return None;
        }
        let used = self.used[s as usize];
        let fits = used + size <= self.bytes;
        if q < self.reserve {
            return Some(fits);
        }
        let free = self.bytes.saturating_sub(used) as f64;
        Some(fits && (q as f64) < self.alpha[c.min(7)] * free)
    }
}

impl Simulation {
    /// A packet joined a queue of port `port`.
    #[inline]
    pub(crate) fn pool_queued(&mut self, port: PortId, pkt: &Packet) {
        let Some(p) = self.pools.as_mut() else { return };
        let s = p.of_port[port.idx()];
        if s != u32::MAX {
            let u = &mut p.used[s as usize];
            *u += pkt.size_bytes as u64;
            let m = &mut p.max_used[s as usize];
            *m = (*m).max(*u);
        }
    }

    /// A packet left a queue of port `port` (its transmission started, or it was dropped).
    #[inline]
    pub(crate) fn pool_left(&mut self, port: PortId, pkt: &Packet) {
        let Some(p) = self.pools.as_mut() else { return };
        let s = p.of_port[port.idx()];
        if s != u32::MAX {
            p.used[s as usize] -= pkt.size_bytes as u64;
        }
    }

    /// The pool's answer for `pkt` (class `class`) arriving at `port`: None without pools or at
    /// a host's port.
    #[inline]
    pub(crate) fn pool_admits(&self, port: PortId, pkt: &Packet, class: u8) -> Option<bool> {
        let p = self.pools.as_ref()?;
        let s = self.ports[port.idx()].sched.as_ref()?;
        let c = s.class_index(class);
        p.admits(port, c, s.classes[c].bytes, pkt.size_bytes as u64)
    }
}
