//! The one-hop lookahead: where a port is fed by one port only and nobody observes it in
//! between (`build::sole_feeders`), the simulation offers a packet to that next port at once,
//! with the clock set to its arrival time, instead of scheduling an arrival event (see
//! `Simulation::settle`). Its state, in one place.

use crate::packet::Packet;
use crate::units::SimTime;
use crate::world::PortId;

/// The lookahead's state for one run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lookahead {
    /// For each port, the only port that ever feeds it when taking its arrivals ahead of time
    /// is exact, else `u32::MAX` (`build::sole_feeders`); empty: the lookahead is off.
    pub sole_feeder: Vec<u32>,
    /// Arrivals up to this time may be taken ahead (the current `run_until` target).
    pub horizon: SimTime,
    /// Inside a lookahead: the feeder whose arrival times are the clock.
    pub ahead: Option<PortId>,
    /// Per port: it is the sole feeder of more than `build::LANE_FAN_OUT` ports.
    pub fan_out: Vec<bool>,
    /// Per port: it is the sole feeder of some port (else nothing it sends is taken ahead and
    /// `next_port` need not look up the packet's next hop); empty: the lookahead is off.
    pub feeds: Vec<bool>,
    /// Per port that may be fed ahead of time: arrivals its feeder sent as events instead
    /// (beyond the `run_until` target, behind another such arrival, or from inside a
    /// lookahead); while any is on its way the port takes nothing ahead.
    pub pending: Vec<u32>,
}

impl Lookahead {
    /// `sole_feeder` as `build::sole_feeders` computed it; `lane_fan_out`: see `fan_out`.
    pub fn new(sole_feeder: Vec<u32>, ports: usize, lane_fan_out: usize) -> Self {
        let mut fan_out = vec![0usize; ports];
        for &f in &sole_feeder {
            if (f as usize) < fan_out.len() {
                fan_out[f as usize] += 1;
            }
        }
        let on = !sole_feeder.is_empty();
        let feeds = if on {
            fan_out.iter().map(|&n| n > 0).collect()
        } else {
            Vec::new()
        };
        Lookahead {
            sole_feeder,
            horizon: SimTime::ZERO,
            ahead: None,
            fan_out: fan_out.into_iter().map(|n| n > lane_fan_out).collect(),
            feeds,
            pending: vec![0; if on { ports } else { 0 }],
        }
    }

    /// The packet's next port, if `port` is its sole feeder (lookahead allowed there).
    #[inline(always)]
    pub fn next_port(
        &self,
        port: PortId,
        pkt: &Packet,
        routes: &[(u32, u16)],
        route_ports: &[PortId],
    ) -> Option<PortId> {
        if self.feeds.get(port.idx()) != Some(&true) {
            return None; // `port` feeds no port alone, or the lookahead is off for this run
        }
        let (off, len) = routes[pkt.route.idx()];
        if pkt.hop >= len {
            return None;
        }
        let next = route_ports[off as usize + pkt.hop as usize];
        (self.sole_feeder.get(next.idx()) == Some(&port.0)).then_some(next)
    }

    /// An arrival event for `port` has come: if the port may be fed ahead, it was counted in
    /// `pending` when its feeder sent it (`Simulation::settle`); count it off.
    #[inline(always)]
    pub fn arrived(&mut self, port: PortId) {
        if self
            .sole_feeder
            .get(port.idx())
            .is_some_and(|&f| f != u32::MAX)
        {
            debug_assert!(self.pending[port.idx()] > 0, "lookahead count");
            self.pending[port.idx()] -= 1;
        }
    }
}
