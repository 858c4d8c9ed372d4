//! Per-packet spraying (`topology.load_balance = "spray"`): each data packet of a flow takes
//! one of the equal-cost shortest paths between its hosts, drawn on its own.
//!
//! The engine is source-routed (a packet carries its route and hop index, `packet`), so a
//! sprayed packet's per-hop choices are made at once, when the host sends it: every
//! equal-cost path of the pair is a route, made once per (source, destination) pair (a
//! *group* of consecutive route ids), and the packet draws one with the probability the path
//! would have if every node on the way picked uniformly and independently among its
//! equal-cost next hops (`routing::Ecmp::equal_cost_paths`). On a fat-tree or leaf-spine
//! fabric every such choice leads to as many paths, so every path is equally likely.
//!
//! The draw is a hash of (seed, flow, the flow's count of data packets sent): deterministic
//! from the seed, no random-number state, no allocation per packet (a binary search over the
//! group's cumulative probabilities, at most a dozen steps for 4096 paths). Forwarding is
//! untouched: switches read the packet's route as for any other packet.

use crate::net::routing::{mix, Ecmp};
use crate::world::{FlowId, NodeId, PortId, RouteId};
use std::collections::HashMap;

/// Most equal-cost paths one pair of hosts may spray over (a fat-tree of radix k has (k/2)^2
/// between pods: 1024 at k = 64).
pub const MAX_SPRAY_PATHS: usize = 4096;

/// One pair's equal-cost paths: routes `first .. first + n`, their cumulative probabilities
/// at `cum[cum_off .. cum_off + n]`.
#[derive(Clone, Copy, Debug)]
struct Group {
    first: u32,
    n: u32,
    cum_off: u32,
}

/// A flow's spraying state: its pair's group (or none) and the data packets it has sent (the
/// draw's counter).
#[derive(Clone, Copy, Debug)]
struct SprayFlow {
    group: u32,
    sent: u32,
}

/// "Not sprayed" in `SprayFlow::group`.
const NO_GROUP: u32 = u32::MAX;

/// The groups of a run with spraying, and its flows' spraying state (by flow id; kept here,
/// not in the flows, so that a run without spraying pays one test per data packet sent).
#[derive(Clone, Debug)]
pub struct SprayTable {
    seed: u64,
    flows: Vec<SprayFlow>,
    groups: Vec<Group>,
    /// Cumulative probabilities scaled to 2^32; each group's last is 2^32.
    cum: Vec<u64>,
    by_pair: HashMap<(NodeId, NodeId), u32>,
}

/// Why a pair has no group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoGroup {
    Unreachable,
    /// More equal-cost paths than [`MAX_SPRAY_PATHS`] (the count).
    TooMany(u64),
}

impl SprayTable {
    pub fn new(seed: u64) -> Self {
        SprayTable {
            seed: mix(seed ^ 0x5350_5241_5900_0000),
            flows: Vec::new(),
            groups: Vec::new(),
            cum: Vec::new(),
            by_pair: HashMap::new(),
        }
    }

    /// The group of `src -> dst`, made on first use: its paths are pushed as routes with
    /// `push` (consecutive ids).
    pub fn group(
        &mut self,
        ecmp: &mut Ecmp,
        src: NodeId,
        dst: NodeId,
        push: &mut dyn FnMut(Vec<PortId>) -> RouteId,
    ) -> Result<u32, NoGroup> {
        if let Some(&g) = self.by_pair.get(&(src, dst)) {
            return Ok(g);
        }
        let paths = match ecmp.equal_cost_paths(src, dst, MAX_SPRAY_PATHS) {
            None => return Err(NoGroup::Unreachable),
            Some(Err(n)) => return Err(NoGroup::TooMany(n)),
            Some(Ok(p)) => p,
        };
        let cum_off = self.cum.len() as u32;
        let n = paths.len() as u32;
        let mut first = None;
        let mut acc = 0.0f64;
        for (i, (path, p)) in paths.into_iter().enumerate() {
            let id = push(path);
            debug_assert!(
                first.is_none_or(|f: u32| f + i as u32 == id.0),
                "consecutive routes"
            );
            first.get_or_insert(id.0);
            acc += p;
            let c = if i as u32 + 1 == n {
                1u64 << 32
            } else {
                ((acc * (1u64 << 32) as f64) as u64).min(1 << 32)
            };
            self.cum.push(c);
        }
        let g = self.groups.len() as u32;
        self.groups.push(Group {
            first: first.unwrap_or(0),
            n,
            cum_off,
        });
        self.by_pair.insert((src, dst), g);
        Ok(g)
    }

    /// Flow `f` sprays over group `g` (None: it keeps its one route).
    pub fn set_flow(&mut self, f: FlowId, g: Option<u32>) {
        if self.flows.len() <= f.idx() {
            self.flows.resize(
                f.idx() + 1,
                SprayFlow {
                    group: NO_GROUP,
                    sent: 0,
                },
            );
        }
        self.flows[f.idx()].group = g.unwrap_or(NO_GROUP);
    }

    /// The route of the next data packet of `flow`: drawn from its group, else `fwd`.
    #[inline]
    pub fn pick(&mut self, flow: FlowId, fwd: RouteId) -> RouteId {
        let Some(s) = self
            .flows
            .get_mut(flow.idx())
            .filter(|s| s.group != NO_GROUP)
        else {
            return fwd;
        };
        let g = self.groups[s.group as usize];
        let h = mix(self.seed ^ mix(((flow.0 as u64) << 32) | s.sent as u64));
        s.sent = s.sent.wrapping_add(1);
        let cum = &self.cum[g.cum_off as usize..(g.cum_off + g.n) as usize];
        let r = h >> 32;
        let i = cum.partition_point(|&c| c <= r) as u32;
        RouteId(g.first + i.min(g.n - 1))
    }

    /// The number of paths flow `flow` sprays over (None: it does not spray).
    pub fn flow_paths(&self, flow: FlowId) -> Option<u32> {
        self.flows
            .get(flow.idx())
            .filter(|s| s.group != NO_GROUP)
            .map(|s| self.groups[s.group as usize].n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::routing::PortEnds;

    /// S -> {A, B}; A -> {C1, C2} -> D; B -> C3 -> D: three equal-cost paths, but a packet
    /// that picks uniformly at each hop takes the B path half the time (not a third).
    #[test]
    fn draws_follow_per_hop_uniform_choice_on_an_uneven_fan_out() {
        // 0 S, 1 A, 2 B, 3 C1, 4 C2, 5 C3, 6 D (S and D hosts)
        let mut ports = Vec::new();
        for (a, b) in [
            (0, 1),
            (0, 2),
            (1, 3),
            (1, 4),
            (2, 5),
            (3, 6),
            (4, 6),
            (5, 6),
        ] {
            ports.push(PortEnds {
                from: NodeId(a),
                to: NodeId(b),
            });
        }
        let is_host = vec![true, false, false, false, false, false, true];
        let mut e = Ecmp::new(ports.clone(), is_host, 1);
        let paths = e
            .equal_cost_paths(NodeId(0), NodeId(6), 16)
            .unwrap()
            .unwrap();
        let probs: Vec<f64> = paths.iter().map(|p| p.1).collect();
        assert_eq!(probs, vec![0.25, 0.25, 0.5]);
        let mut routes: Vec<Vec<PortId>> = Vec::new();
        let mut t = SprayTable::new(7);
        let mut push = |p: Vec<PortId>| {
            routes.push(p);
            RouteId(routes.len() as u32 - 1)
        };
        let g = t.group(&mut e, NodeId(0), NodeId(6), &mut push).unwrap();
        assert_eq!(
            t.group(&mut e, NodeId(0), NodeId(6), &mut push).unwrap(),
            g,
            "one group per pair"
        );
        assert_eq!(routes.len(), 3);
        t.set_flow(FlowId(0), Some(g));
        t.set_flow(FlowId(1), None);
        let n = 40_000;
        let mut count = [0u32; 3];
        for _ in 0..n {
            count[t.pick(FlowId(0), RouteId(99)).idx()] += 1;
        }
        for (c, p) in count.iter().zip(probs) {
            assert!((*c as f64 / n as f64 - p).abs() < 0.01, "{count:?}");
        }
        assert_eq!(t.pick(FlowId(1), RouteId(99)), RouteId(99), "not sprayed");
        assert_eq!(t.flow_paths(FlowId(0)), Some(3));
        assert_eq!(t.flow_paths(FlowId(1)), None);
        // too many paths: refused with the count
        assert_eq!(
            {
                let mut e = Ecmp::new(
                    ports,
                    vec![true, false, false, false, false, false, true],
                    1,
                );
                e.equal_cost_paths(NodeId(0), NodeId(6), 2).unwrap().err()
            },
            Some(3)
        );
    }
}
