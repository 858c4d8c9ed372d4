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

/// Shortest path from `src` to `dst` as a list of ports, or None if unreachable. One search
/// per call over a freshly built adjacency: the reference [`Router`] is checked against; use
/// [`Router`] for many pairs.
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

/// Routes for many (source, destination) pairs over one topology, each identical to
/// [`shortest_path`]'s (fewest hops, ties by port order) at a fraction of the cost: the
/// adjacency is built once, and one full breadth-first tree is grown per *root* and cached.
///
/// The root of a source is the source itself, except for a host whose only port leads to a
/// switch: its tree is that switch's tree behind the one port. Hosts never forward, so a
/// breadth-first search from such a host meets every other node in the same order as a search
/// from its switch, and the two trees agree on every other node. Every host of a dumbbell or
/// leaf shares its switch's tree: a 10^5-flow dumbbell needs one tree instead of 10^5 searches.
///
/// Cached trees are bounded (`MAX_TREE_CACHE_BYTES` in all); past that the oldest is dropped
/// and regrown when needed again (same result, more time).
#[derive(Clone, Debug)]
pub struct Router {
    ports: Vec<PortEnds>,
    is_host: Vec<bool>,
    /// Outgoing ports of node n: `out_list[out_start[n]..out_start[n + 1]]`, in port order.
    out_start: Vec<u32>,
    out_list: Vec<PortId>,
    trees: std::collections::HashMap<NodeId, Vec<u32>>,
    order: VecDeque<NodeId>,
    max_trees: usize,
    /// Trees grown so far (for tests and diagnostics).
    pub trees_grown: u64,
}

/// Memory the cached routing trees may hold, bytes (4 bytes per node per tree).
pub const MAX_TREE_CACHE_BYTES: usize = 64 << 20;

/// "No port" in a routing tree.
const NO_PORT: u32 = u32::MAX;

impl Router {
    pub fn new(n_nodes: usize, ports: &[PortEnds], is_host: &[bool]) -> Self {
        let mut count = vec![0u32; n_nodes + 1];
        for p in ports {
            count[p.from.idx() + 1] += 1;
        }
        for i in 0..n_nodes {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        let mut out_list = vec![PortId(0); ports.len()];
        for (i, p) in ports.iter().enumerate() {
            let k = &mut fill[p.from.idx()];
            out_list[*k as usize] = PortId(i as u32);
            *k += 1;
        }
        Router {
            ports: ports.to_vec(),
            is_host: is_host.to_vec(),
            out_start: count,
            out_list,
            trees: std::collections::HashMap::new(),
            order: VecDeque::new(),
            max_trees: (MAX_TREE_CACHE_BYTES / 4 / n_nodes.max(1)).max(1),
            trees_grown: 0,
        }
    }

    fn out(&self, n: NodeId) -> &[PortId] {
        &self.out_list[self.out_start[n.idx()] as usize..self.out_start[n.idx() + 1] as usize]
    }

    /// The breadth-first tree from `root`: for each node, the port it was first reached by.
    fn grow(&self, root: NodeId) -> Vec<u32> {
        let n_nodes = self.is_host.len();
        let mut via = vec![NO_PORT; n_nodes];
        let mut seen = vec![false; n_nodes];
        let mut q = VecDeque::new();
        seen[root.idx()] = true;
        q.push_back(root);
        while let Some(n) = q.pop_front() {
            if n != root && self.is_host[n.idx()] {
                continue;
            }
            for &pid in self.out(n) {
                let to = self.ports[pid.idx()].to;
                if !seen[to.idx()] {
                    seen[to.idx()] = true;
                    via[to.idx()] = pid.0;
                    q.push_back(to);
                }
            }
        }
        via
    }

    /// Shortest path from `src` to `dst` as a list of ports, or None if unreachable (or
    /// `src == dst`); the same path [`shortest_path`] returns.
    pub fn path(&mut self, src: NodeId, dst: NodeId) -> Option<Vec<PortId>> {
        if src == dst {
            return None;
        }
        let outs = self.out(src);
        let (root, first) = match outs {
            [p] if !self.is_host[self.ports[p.idx()].to.idx()] => {
                (self.ports[p.idx()].to, Some(*p))
            }
            _ => (src, None),
        };
        if first.is_some() && dst == root {
            return first.map(|p| vec![p]);
        }
        if !self.trees.contains_key(&root) {
            if self.order.len() >= self.max_trees {
                if let Some(old) = self.order.pop_front() {
                    self.trees.remove(&old);
                }
            }
            let t = self.grow(root);
            self.trees_grown += 1;
            self.trees.insert(root, t);
            self.order.push_back(root);
        }
        let via = &self.trees[&root];
        if via[dst.idx()] == NO_PORT {
            return None;
        }
        let mut path = Vec::new();
        let mut n = dst;
        while n != root {
            let pid = via[n.idx()];
            if pid == NO_PORT {
                return None;
            }
            path.push(PortId(pid));
            n = self.ports[pid as usize].from;
        }
        path.extend(first);
        path.reverse();
        Some(path)
    }
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

/// A hasher for small integer keys (node pairs, ids): each written integer is folded in with a
/// multiply, and `finish` mixes the state (`mix`). The route table of a big fabric holds a
/// route for every host pair (about 2 million at k = 16); std's SipHash cost a second of
/// set-up there. Nothing iterates a map keyed with it, so its order never shows in results.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        mix(self.0)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(26) ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by a node pair (`(src, dst)` routes), hashed with [`IdHasher`].
pub type PairMap<V> = std::collections::HashMap<
    (crate::world::NodeId, crate::world::NodeId),
    V,
    std::hash::BuildHasherDefault<IdHasher>,
>;

pub(crate) fn mix(mut z: u64) -> u64 {
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
    /// Equal-cost path counts per destination (`path_counts`), for per-packet spraying.
    counts: std::collections::HashMap<NodeId, Vec<u64>>,
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
            counts: std::collections::HashMap::new(),
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

/// The ports out of `n` that lie on a shortest path to `dst` (the candidates [`ecmp_path`]
/// chooses among, without its cap of 64), in port order.
fn equal_cost_next<'a>(
    ports: &'a [PortEnds],
    out_ports: &'a [Vec<PortId>],
    is_host: &'a [bool],
    dist: &'a [u32],
    n: NodeId,
    dst: NodeId,
) -> impl Iterator<Item = PortId> + 'a {
    let d = dist[n.idx()];
    out_ports[n.idx()].iter().copied().filter(move |p| {
        let to = ports[p.idx()].to;
        dist[to.idx()] != u32::MAX && dist[to.idx()] + 1 == d && (to == dst || !is_host[to.idx()])
    })
}

impl Ecmp {
    fn dist_to(&mut self, dst: NodeId) -> &[u32] {
        let n = self.is_host.len();
        let (ports, is_host) = (&self.ports, &self.is_host);
        self.dist
            .entry(dst)
            .or_insert_with(|| distances_to(n, ports, is_host, dst))
    }

    /// For every node, the number of equal-cost shortest paths from it to `dst` (saturating;
    /// 0: unreachable), by one pass over the nodes in order of distance; cached per `dst`.
    pub fn path_counts(&mut self, dst: NodeId) -> &[u64] {
        if !self.counts.contains_key(&dst) {
            let c = self.count_paths(dst);
            self.counts.insert(dst, c);
        }
        &self.counts[&dst]
    }

    fn count_paths(&mut self, dst: NodeId) -> Vec<u64> {
        let dist = self.dist_to(dst).to_vec();
        let mut order: Vec<usize> = (0..dist.len()).filter(|&i| dist[i] != u32::MAX).collect();
        order.sort_by_key(|&i| dist[i]);
        let mut count = vec![0u64; dist.len()];
        count[dst.idx()] = 1;
        for &i in &order {
            if i == dst.idx() {
                continue;
            }
            count[i] = equal_cost_next(
                &self.ports,
                &self.out,
                &self.is_host,
                &dist,
                NodeId(i as u32),
                dst,
            )
            .fold(0u64, |c, p| {
                c.saturating_add(count[self.ports[p.idx()].to.idx()])
            });
        }
        count
    }

    /// Every equal-cost shortest path from `src` to `dst`, each with its probability when every
    /// node on the way picks uniformly among its equal-cost next hops (the probabilities sum to
    /// 1), in the order of a depth-first walk over the candidates in port order. None when
    /// unreachable (or `src == dst`); Err(count) when there are more than `max_paths`.
    #[allow(clippy::type_complexity)]
    pub fn equal_cost_paths(
        &mut self,
        src: NodeId,
        dst: NodeId,
        max_paths: usize,
    ) -> Option<Result<Vec<(Vec<PortId>, f64)>, u64>> {
        if src == dst {
            return None;
        }
        let count = self.path_counts(dst)[src.idx()];
        if count == 0 {
            return None;
        }
        if count > max_paths as u64 {
            return Some(Err(count));
        }
        let dist = self.dist_to(dst).to_vec();
        let mut out = Vec::with_capacity(count as usize);
        let mut path = Vec::with_capacity(dist[src.idx()] as usize);
        self.walk(&dist, src, dst, 1.0, &mut path, &mut out);
        Some(Ok(out))
    }

    fn walk(
        &self,
        dist: &[u32],
        n: NodeId,
        dst: NodeId,
        p: f64,
        path: &mut Vec<PortId>,
        out: &mut Vec<(Vec<PortId>, f64)>,
    ) {
        if n == dst {
            out.push((path.clone(), p));
            return;
        }
        let next: Vec<PortId> =
            equal_cost_next(&self.ports, &self.out, &self.is_host, dist, n, dst).collect();
        let share = p / next.len() as f64;
        for port in next {
            path.push(port);
            self.walk(dist, self.ports[port.idx()].to, dst, share, path, out);
            path.pop();
        }
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

    /// A small deterministic generator for the random-graph comparison.
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    #[test]
    fn router_paths_equal_the_reference_search_on_random_graphs() {
        let mut g = Lcg(7);
        let mut compared = 0;
        for case in 0..300 {
            let n = 2 + g.below(40) as usize;
            let is_host: Vec<bool> = (0..n).map(|_| g.below(3) == 0).collect();
            let m = g.below(4 * n as u64) as usize;
            let mut ports = Vec::new();
            let mut pairs = std::collections::HashSet::new();
            for _ in 0..m {
                let (a, b) = (g.below(n as u64) as u32, g.below(n as u64) as u32);
                if a != b && pairs.insert((a, b)) {
                    ports.push(PortEnds {
                        from: NodeId(a),
                        to: NodeId(b),
                    });
                    if case % 2 == 0 && pairs.insert((b, a)) {
                        ports.push(PortEnds {
                            from: NodeId(b),
                            to: NodeId(a),
                        });
                    }
                }
            }
            let mut r = Router::new(n, &ports, &is_host);
            for a in 0..n as u32 {
                for b in 0..n as u32 {
                    let want = shortest_path(n, &ports, &is_host, NodeId(a), NodeId(b));
                    let got = r.path(NodeId(a), NodeId(b));
                    assert_eq!(got, want, "case {case}: {a} -> {b}");
                    compared += want.is_some() as u32;
                }
            }
        }
        assert!(compared > 10_000, "{compared}");
    }

    #[test]
    fn router_hosts_behind_one_switch_share_one_tree() {
        // hosts 0..100 -> switch 100 -> host 101, and back
        let mut ports = Vec::new();
        for h in 0..100u32 {
            ports.push(PortEnds {
                from: NodeId(h),
                to: NodeId(100),
            });
            ports.push(PortEnds {
                from: NodeId(100),
                to: NodeId(h),
            });
        }
        ports.push(PortEnds {
            from: NodeId(100),
            to: NodeId(101),
        });
        ports.push(PortEnds {
            from: NodeId(101),
            to: NodeId(100),
        });
        let mut is_host = vec![true; 102];
        is_host[100] = false;
        let mut r = Router::new(102, &ports, &is_host);
        for h in 0..100u32 {
            assert_eq!(r.path(NodeId(h), NodeId(101)).unwrap().len(), 2);
            assert_eq!(r.path(NodeId(101), NodeId(h)).unwrap().len(), 2);
        }
        assert_eq!(r.trees_grown, 1);
    }

    #[test]
    fn router_tree_cache_is_bounded_and_regrows_the_same_paths() {
        let n = MAX_TREE_CACHE_BYTES / 4 / 2 + 1; // two trees do not fit
        let ports: Vec<PortEnds> = (0..3u32)
            .flat_map(|a| {
                (0..3u32).filter(move |&b| b != a).map(move |b| PortEnds {
                    from: NodeId(a),
                    to: NodeId(b),
                })
            })
            .collect();
        let is_host = vec![false; n];
        let mut r = Router::new(n, &ports, &is_host);
        let p01 = r.path(NodeId(0), NodeId(1));
        r.path(NodeId(1), NodeId(2));
        assert_eq!(r.trees.len(), 1);
        assert_eq!(r.path(NodeId(0), NodeId(1)), p01);
        assert_eq!(r.trees_grown, 3);
    }
}
