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
pub fn shortest_path(n_nodes: usize, ports: &[PortEnds], is_host: &[bool], src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn dumbbell_route_goes_through_the_switch_not_through_hosts() {
        // 0 = s0, 1 = s1, 2 = sw, 3 = r ; ports: s0->sw, sw->s0, s1->sw, sw->s1, sw->r, r->sw
        let p = |a, b| PortEnds { from: NodeId(a), to: NodeId(b) };
        let ports = [p(0, 2), p(2, 0), p(1, 2), p(2, 1), p(2, 3), p(3, 2)];
        let is_host = [true, true, false, true];
        assert_eq!(shortest_path(4, &ports, &is_host, NodeId(0), NodeId(3)).unwrap(), vec![PortId(0), PortId(4)]);
        assert_eq!(shortest_path(4, &ports, &is_host, NodeId(3), NodeId(1)).unwrap(), vec![PortId(5), PortId(3)]);
        assert!(shortest_path(4, &ports, &is_host, NodeId(0), NodeId(0)).is_none());
    }
}
