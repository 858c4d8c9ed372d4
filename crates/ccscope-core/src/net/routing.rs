//! Routes, computed once when the network is built: fewest hops, ties broken by port order
//! (deterministic). Hosts do not forward: a route may start and end at a host but never
//! cross one.

use crate::world::{NodeId, PortId};
use std::collections::VecDeque;

/// A directed port as routing sees it.
#[derive(Clone, Copy, Debug)]
pub struct PortEnds {
    pub from: NodeId,
    pub to: NodeId,
}

/// Shortest path from `src` to `dst` as a list of ports, or None if unreachable.
pub fn shortest_path(
    n_nodes: usize,
    ports: &[PortEnds],
    is_host: &[bool],
    src: NodeId,
    dst: NodeId,
) -> Option<Vec<PortId>> {
    let mut out_ports: Vec<Vec<PortId>> = vec![Vec::new(); n_nodes];
    for (i, p) in ports.iter().enumerate() {
        out_ports[p.from.idx()].push(PortId(i as u32));
    }
    let mut via: Vec<Option<PortId>> = vec![None; n_nodes];
    let mut seen = vec![false; n_nodes];
    let mut q = VecDeque::new();
    seen[src.idx()] = true;
    q.push_back(src);
    while let Some(n) = q.pop_front() {
        if n == dst {
            break;
        }
        if n != src && is_host[n.idx()] {
            continue;
        }
        for &pid in &out_ports[n.idx()] {
            let to = ports[pid.idx()].to;
            if !seen[to.idx()] {
                seen[to.idx()] = true;
                via[to.idx()] = Some(pid);
                q.push_back(to);
            }
        }
    }
    if !seen[dst.idx()] || src == dst {
        return None;
    }
    let mut path = Vec::new();
    let mut n = dst;
    while n != src {
        let pid = via[n.idx()]?;
        path.push(pid);
        n = ports[pid.idx()].from;
    }
    path.reverse();
    Some(path)
}

/// Hop distance of every node to `dst` (u32::MAX = unreachable), walking links backwards;
/// hosts other than `dst` do not forward.
pub fn distances_to(n_nodes: usize, ports: &[PortEnds], is_host: &[bool], dst: NodeId) -> Vec<u32> {
    let mut in_ports: Vec<Vec<usize>> = vec![Vec::new(); n_nodes];
    for (i, p) in ports.iter().enumerate() {
        in_ports[p.to.idx()].push(i);
    }
    let mut dist = vec![u32::MAX; n_nodes];
    dist[dst.idx()] = 0;
    let mut q = VecDeque::new();
    q.push_back(dst);
    while let Some(n) = q.pop_front() {
        if n != dst && is_host[n.idx()] {
            continue;
        }
        for &pi in &in_ports[n.idx()] {
            let from = ports[pi].from;
            if dist[from.idx()] == u32::MAX {
                dist[from.idx()] = dist[n.idx()] + 1;
                q.push_back(from);
            }
        }
    }
    dist
}

/// An equal-cost path chosen per flow (ECMP): at each node, among the ports that lie on a
/// shortest path to `dst`, take the one a hash of (`key`, node) selects. The same key always
/// gives the same path, so a flow's packets never reorder across paths.
pub fn ecmp_path(
    ports: &[PortEnds],
    out_ports: &[Vec<PortId>],
    is_host: &[bool],
    dist: &[u32],
    src: NodeId,
    dst: NodeId,
    key: u64,
) -> Option<Vec<PortId>> {
    if src == dst || dist[src.idx()] == u32::MAX {
        return None;
    }
    let mut path = Vec::with_capacity(dist[src.idx()] as usize);
    let mut n = src;
    while n != dst {
        let d = dist[n.idx()];
        let mut cands = [PortId(0); 64];
        let mut k = 0;
        for &p in &out_ports[n.idx()] {
            let to = ports[p.idx()].to;
            if dist[to.idx()] != u32::MAX
                && dist[to.idx()] + 1 == d
                && (to == dst || !is_host[to.idx()])
                && k < cands.len()
            {
                cands[k] = p;
                k += 1;
            }
        }
        if k == 0 {
            return None;
        }
        let h = mix(key ^ (n.0 as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let p = cands[(h % k as u64) as usize];
        path.push(p);
        n = ports[p.idx()].to;
    }
    Some(path)
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Per-flow ECMP routing state: the topology plus a cache of distances per destination.
#[derive(Clone, Debug)]
pub struct Ecmp {
    ports: Vec<PortEnds>,
    out: Vec<Vec<PortId>>,
    is_host: Vec<bool>,
    dist: std::collections::HashMap<NodeId, Vec<u32>>,
    seed: u64,
}

impl Ecmp {
    pub fn new(ports: Vec<PortEnds>, is_host: Vec<bool>, seed: u64) -> Self {
        let out = out_ports(is_host.len(), &ports);
        Ecmp {
            ports,
            out,
            is_host,
            dist: std::collections::HashMap::new(),
            seed,
        }
    }
    /// The path of flow `flow` from `src` to `dst` (the reverse direction uses the same key).
    pub fn path(&mut self, src: NodeId, dst: NodeId, flow: u64) -> Option<Vec<PortId>> {
        let n = self.is_host.len();
        let (ports, is_host) = (&self.ports, &self.is_host);
        let dist = self
            .dist
            .entry(dst)
            .or_insert_with(|| distances_to(n, ports, is_host, dst));
        ecmp_path(
            &self.ports,
            &self.out,
            &self.is_host,
            dist,
            src,
            dst,
            mix(self.seed ^ mix(flow.wrapping_add(1))),
        )
    }
}

/// Outgoing ports of every node, in port order.
pub fn out_ports(n_nodes: usize, ports: &[PortEnds]) -> Vec<Vec<PortId>> {
    let mut out: Vec<Vec<PortId>> = vec![Vec::new(); n_nodes];
    for (i, p) in ports.iter().enumerate() {
        out[p.from.idx()].push(PortId(i as u32));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn dumbbell_route_goes_through_the_switch_not_through_hosts() {
        // 0 = s0, 1 = s1, 2 = sw, 3 = r ; ports: s0->sw, sw->s0, s1->sw, sw->s1, sw->r, r->sw
        let p = |a, b| PortEnds {
            from: NodeId(a),
            to: NodeId(b),
        };
        let ports = [p(0, 2), p(2, 0), p(1, 2), p(2, 1), p(2, 3), p(3, 2)];
        let is_host = [true, true, false, true];
        assert_eq!(
            shortest_path(4, &ports, &is_host, NodeId(0), NodeId(3)).unwrap(),
            vec![PortId(0), PortId(4)]
        );
        assert_eq!(
            shortest_path(4, &ports, &is_host, NodeId(3), NodeId(1)).unwrap(),
            vec![PortId(5), PortId(3)]
        );
        assert!(shortest_path(4, &ports, &is_host, NodeId(0), NodeId(0)).is_none());
    }

    #[test]
    fn ecmp_spreads_flows_over_both_spines_and_keeps_each_flow_on_one_path() {
        // h0 - L0 = {S0, S1} = L1 - h1
        let names = ["h0", "L0", "S0", "S1", "L1", "h1"];
        let p = |a, b| PortEnds {
            from: NodeId(a),
            to: NodeId(b),
        };
        let mut ports = vec![];
        for (a, b) in [(0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (4, 5)] {
            ports.push(p(a, b));
            ports.push(p(b, a));
        }
        let is_host = [true, false, false, false, false, true];
        let dist = distances_to(names.len(), &ports, &is_host, NodeId(5));
        let out = out_ports(names.len(), &ports);
        let mut via = [0u32; 2];
        for key in 0..1000u64 {
            let a = ecmp_path(&ports, &out, &is_host, &dist, NodeId(0), NodeId(5), key).unwrap();
            assert_eq!(
                a,
                ecmp_path(&ports, &out, &is_host, &dist, NodeId(0), NodeId(5), key).unwrap()
            );
            assert_eq!(a.len(), 4);
            let spine = ports[a[1].idx()].to.0;
            via[(spine - 2) as usize] += 1;
        }
        assert!(via[0] > 400 && via[1] > 400, "{via:?}");
    }
}
