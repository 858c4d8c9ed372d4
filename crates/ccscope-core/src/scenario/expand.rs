//! Templates to the explicit form: a graph of nodes and directed links, every flow listed,
//! recorded ports named. `build.rs` only ever sees this form.

use super::flows::FlowSpec;
use super::topology::{
    port_name, Dumbbell, FatTree, Graph, LeafSpine, LinkSpec, LoadBalance, NodeKind, NodeSpec,
    Topology, DEFAULT_BUFFER_PKTS,
};
use super::Scenario;
use crate::aqm::AqmConfig;
use crate::error::ScenarioError;
use crate::rng::Rng;
use std::collections::HashMap;

impl Scenario {
    /// The explicit form: graph topology, every flow listed, recorded ports named.
    pub fn expand(&self) -> Result<Scenario, ScenarioError> {
        self.validate()?;
        let mut out = self.clone();
        let mut flows = self.flow.clone();
        if let Topology::LeafSpine(l) = &self.topology {
            let mut out2 = self.clone();
            out2.topology = Topology::Graph(expand_leaf_spine(l, self.aqm.clone()));
            if out2.record.ports.is_none() {
                out2.record.ports = Some(
                    (0..l.leaves)
                        .flat_map(|i| {
                            (0..l.spines)
                                .map(move |j| port_name(&format!("leaf{i}"), &format!("spine{j}")))
                        })
                        .collect(),
                );
            }
            return out2.expand();
        }
        if let Topology::FatTree(f) = &self.topology {
            let mut out2 = self.clone();
            out2.topology = Topology::Graph(expand_fat_tree(f, self.aqm.clone()));
            if out2.record.ports.is_none() {
                out2.record.ports = Some(fat_tree_edge_uplinks(f.k));
            }
            return out2.expand();
        }
        match &self.topology {
            Topology::LeafSpine(_) | Topology::FatTree(_) => unreachable!("handled above"),
            Topology::Graph(g) => {
                let mut links = Vec::new();
                let kinds: HashMap<&str, NodeKind> =
                    g.nodes.iter().map(|n| (n.name.as_str(), n.kind)).collect();
                for l in &g.links {
                    let mut fwd = l.clone();
                    fwd.duplex = false;
                    if fwd.aqm.is_none() {
                        fwd.aqm = Some(if kinds[l.from.as_str()] == NodeKind::Switch {
                            self.aqm.clone()
                        } else {
                            AqmConfig::DropTail
                        });
                    }
                    if fwd.sched.is_none() && kinds[l.from.as_str()] == NodeKind::Switch {
                        fwd.sched = self.sched.clone();
                    }
                    if l.duplex {
                        let mut rev = fwd.clone();
                        std::mem::swap(&mut rev.from, &mut rev.to);
                        if l.aqm.is_none() {
                            rev.aqm = Some(if kinds[l.to.as_str()] == NodeKind::Switch {
                                self.aqm.clone()
                            } else {
                                AqmConfig::DropTail
                            });
                        }
                        if l.sched.is_none() {
                            rev.sched = if kinds[l.to.as_str()] == NodeKind::Switch {
                                self.sched.clone()
                            } else {
                                None
                            };
                        }
                        links.push(fwd);
                        links.push(rev);
                    } else {
                        links.push(fwd);
                    }
                }
                if out.record.ports.is_none() {
                    out.record.ports = Some(
                        links
                            .iter()
                            .filter(|l| kinds[l.from.as_str()] == NodeKind::Switch)
                            .map(|l| port_name(&l.from, &l.to))
                            .collect(),
                    );
                }
                out.topology = Topology::Graph(Graph {
                    nodes: g.nodes.clone(),
                    links,
                    ecmp: g.ecmp,
                    load_balance: g.load_balance,
                });
            }
            Topology::Dumbbell(d) => {
                let (graph, bottleneck) = self.expand_dumbbell(d)?;
                if let Some(t) = &self.flows {
                    let s = self.dumbbell_senders(d)?;
                    for k in 0..t.count {
                        let mut start = t.start_s;
                        if t.start_jitter_s > 0.0 {
                            let mut rng = Rng::stream(self.seed, &format!("flows/start/{k}"));
                            start += rng.uniform() * t.start_jitter_s;
                        }
                        flows.push(FlowSpec {
                            src: format!("s{}", k % s),
                            dst: format!("r{}", k % d.receivers),
                            cc: t.cc,
                            start_s: start,
                            size_bytes: t.size_bytes,
                            stop_s: None,
                            rate_bps: None,
                            class: t.class,
                        });
                    }
                } else {
                    let s = self.dumbbell_senders(d)?;
                    for (i, f) in flows.iter().enumerate() {
                        let ok_src = f
                            .src
                            .strip_prefix('s')
                            .and_then(|x| x.parse::<u32>().ok())
                            .is_some_and(|x| x < s);
                        let ok_dst = f
                            .dst
                            .strip_prefix('r')
                            .and_then(|x| x.parse::<u32>().ok())
                            .is_some_and(|x| x < d.receivers);
                        if !ok_src {
                            return Err(ScenarioError::new(
                                format!("flow[{i}].src"),
                                format!("{:?}", f.src),
                                format!("must name a dumbbell sender s0..s{}", s - 1),
                            ));
                        }
                        if !ok_dst {
                            return Err(ScenarioError::new(
                                format!("flow[{i}].dst"),
                                format!("{:?}", f.dst),
                                format!("must name a dumbbell receiver r0..r{}", d.receivers - 1),
                            ));
                        }
                    }
                }
                if out.record.ports.is_none() {
                    out.record.ports = Some(vec![bottleneck]);
                }
                out.topology = Topology::Graph(graph);
            }
        }
        out.flows = None;
        out.flow = flows;
        out.validate()?;
        // recorded ports must exist
        if let (Topology::Graph(g), Some(ports)) = (&out.topology, &out.record.ports) {
            let names: std::collections::HashSet<String> =
                g.links.iter().map(|l| port_name(&l.from, &l.to)).collect();
            for (i, p) in ports.iter().enumerate() {
                if !names.contains(p) {
                    return Err(ScenarioError::new(
                        format!("record.ports[{i}]"),
                        format!("{p:?}"),
                        "must name a port \"from->to\" of a link",
                    ));
                }
            }
        }
        Ok(out)
    }

    fn expand_dumbbell(&self, d: &Dumbbell) -> Result<(Graph, String), ScenarioError> {
        let s = self.dumbbell_senders(d)?;
        let access = d.access_bps.unwrap_or(d.bottleneck_bps);
        let host_aqm = d.host_aqm.clone().unwrap_or_default();
        let (bp, bb) = match (d.buffer_pkts, d.buffer_bytes) {
            (None, None) => (Some(DEFAULT_BUFFER_PKTS), None),
            x => x,
        };
        let mut nodes = Vec::new();
        let mut links = Vec::new();
        let link =
            |from: &str, to: &str, rate_bps: f64, delay_s: f64, host: bool, aqm: AqmConfig| {
                LinkSpec {
                    from: from.into(),
                    to: to.into(),
                    rate_bps,
                    delay_s,
                    buffer_pkts: if host { d.host_buffer_pkts.or(bp) } else { bp },
                    buffer_bytes: if host && d.host_buffer_pkts.is_some() {
                        None
                    } else {
                        bb
                    },
                    sched: None,
                    aqm: Some(aqm),
                    duplex: false,
                }
            };
        let (left, right) = if d.receivers == 1 {
            ("sw", "sw")
        } else {
            ("sw0", "sw1")
        };
        for i in 0..s {
            nodes.push(NodeSpec {
                name: format!("s{i}"),
                kind: NodeKind::Host,
            });
        }
        nodes.push(NodeSpec {
            name: left.into(),
            kind: NodeKind::Switch,
        });
        if right != left {
            nodes.push(NodeSpec {
                name: right.into(),
                kind: NodeKind::Switch,
            });
        }
        for j in 0..d.receivers {
            nodes.push(NodeSpec {
                name: format!("r{j}"),
                kind: NodeKind::Host,
            });
        }
        for i in 0..s {
            let rtt = match (&d.rtt_s, &d.rtt_per_sender_s) {
                (Some(r), _) => *r,
                (None, Some(l)) => l[i as usize],
                _ => unreachable!("validated"),
            };
            let a = (rtt / 2.0 - d.bottleneck_delay_s).max(0.0);
            let name = format!("s{i}");
            links.push(link(&name, left, access, a, true, host_aqm.clone()));
            links.push(link(left, &name, access, a, false, AqmConfig::DropTail));
        }
        let bottleneck = if d.receivers == 1 {
            links.push(link(
                "sw",
                "r0",
                d.bottleneck_bps,
                d.bottleneck_delay_s,
                false,
                self.aqm.clone(),
            ));
            links.push(link(
                "r0",
                "sw",
                d.bottleneck_bps,
                d.bottleneck_delay_s,
                true,
                host_aqm.clone(),
            ));
            port_name("sw", "r0")
        } else {
            links.push(link(
                "sw0",
                "sw1",
                d.bottleneck_bps,
                d.bottleneck_delay_s,
                false,
                self.aqm.clone(),
            ));
            links.push(link(
                "sw1",
                "sw0",
                d.bottleneck_bps,
                d.bottleneck_delay_s,
                false,
                AqmConfig::DropTail,
            ));
            for j in 0..d.receivers {
                let name = format!("r{j}");
                links.push(link("sw1", &name, access, 0.0, false, AqmConfig::DropTail));
                links.push(link(&name, "sw1", access, 0.0, true, host_aqm.clone()));
            }
            port_name("sw0", "sw1")
        };
        if let Some(sc) = &self.sched {
            // the bottleneck port takes the scenario's sched; the template's other switch ports
            // keep one FIFO class (named, so that the graph pass does not fill them)
            for l in links.iter_mut() {
                if port_name(&l.from, &l.to) == bottleneck {
                    l.sched = Some(sc.clone());
                } else if l.from.starts_with("sw") {
                    l.sched = Some(Default::default());
                }
            }
        }
        Ok((
            Graph {
                nodes,
                links,
                ecmp: false,
                load_balance: None,
            },
            bottleneck,
        ))
    }
}

fn expand_leaf_spine(l: &LeafSpine, aqm: AqmConfig) -> Graph {
    let buf = Some(l.buffer_pkts.unwrap_or(DEFAULT_BUFFER_PKTS));
    let fabric_bps = l.fabric_link_bps();
    let mut nodes = Vec::new();
    let mut links = Vec::new();
    let link =
        |from: String, to: String, rate_bps: f64, buffer_pkts: Option<u32>, aqm: AqmConfig| {
            LinkSpec {
                from,
                to,
                rate_bps,
                delay_s: l.link_delay_s,
                buffer_pkts,
                buffer_bytes: None,
                aqm: Some(aqm),
                sched: None,
                duplex: false,
            }
        };
    for j in 0..l.spines {
        nodes.push(NodeSpec {
            name: format!("spine{j}"),
            kind: NodeKind::Switch,
        });
    }
    for i in 0..l.leaves {
        nodes.push(NodeSpec {
            name: format!("leaf{i}"),
            kind: NodeKind::Switch,
        });
        for j in 0..l.spines {
            links.push(link(
                format!("leaf{i}"),
                format!("spine{j}"),
                fabric_bps,
                buf,
                aqm.clone(),
            ));
            links.push(link(
                format!("spine{j}"),
                format!("leaf{i}"),
                fabric_bps,
                buf,
                aqm.clone(),
            ));
        }
        for k in 0..l.hosts_per_leaf {
            let h = format!("h{}", i * l.hosts_per_leaf + k);
            nodes.push(NodeSpec {
                name: h.clone(),
                kind: NodeKind::Host,
            });
            links.push(link(
                h.clone(),
                format!("leaf{i}"),
                l.host_bps,
                buf,
                l.host_aqm.clone().unwrap_or_default(),
            ));
            links.push(link(format!("leaf{i}"), h, l.host_bps, buf, aqm.clone()));
        }
    }
    Graph {
        nodes,
        links,
        ecmp: l.load_balance != Some(LoadBalance::Single),
        load_balance: spray_only(l.load_balance),
    }
}

/// A template's `load_balance` as the expanded graph gives it beside `ecmp` (true unless
/// "single"): only "spray" needs writing out, so that a template without it expands as before.
fn spray_only(lb: Option<LoadBalance>) -> Option<LoadBalance> {
    lb.filter(|&x| x == LoadBalance::Spray)
}

/// The default recorded ports of a fat-tree: every edge switch's uplinks, `e{p}_{i}->a{p}_{j}`.
fn fat_tree_edge_uplinks(k: u32) -> Vec<String> {
    let h = k / 2;
    (0..k)
        .flat_map(|p| {
            (0..h).flat_map(move |i| {
                (0..h).map(move |j| port_name(&format!("e{p}_{i}"), &format!("a{p}_{j}")))
            })
        })
        .collect()
}

/// The k-ary fat-tree as a graph (Al-Fares et al., SIGCOMM 2008, section 2.3): in pod p, edge
/// switch e{p}_{i} serves hosts h{p*(k/2)^2 + i*(k/2) + m} (m < k/2) and links to every
/// aggregation switch a{p}_{j} of the pod; a{p}_{j} links to the k/2 core switches
/// c{j*(k/2) + m} (m < k/2), so core switch c{c} reaches pod p through a{p}_{c / (k/2)}.
/// Every cable is two directed links of its tier's rate and delay; hosts' ports take `host_aqm`
/// (drop-tail by default), switch ports the scenario's queue policy; every port buffers
/// `buffer_pkts`.
fn expand_fat_tree(f: &FatTree, aqm: AqmConfig) -> Graph {
    let buf = Some(f.buffer_pkts.unwrap_or(DEFAULT_BUFFER_PKTS));
    let [host_bps, edge_agg_bps, agg_core_bps] = f.rates();
    let [host_d, edge_agg_d, agg_core_d] = f.delays();
    let (k, h) = (f.k, f.k / 2);
    let mut nodes = Vec::with_capacity((f.hosts() + f.switches()) as usize);
    let mut links = Vec::with_capacity(f.ports() as usize);
    let mut cable = |a: String, b: String, rate_bps: f64, delay_s: f64, a_is_host: bool| {
        let mk = |from: String, to: String, aqm: AqmConfig| LinkSpec {
            from,
            to,
            rate_bps,
            delay_s,
            buffer_pkts: buf,
            buffer_bytes: None,
            aqm: Some(aqm),
            sched: None,
            duplex: false,
        };
        let up_aqm = if a_is_host {
            f.host_aqm.clone().unwrap_or_default()
        } else {
            aqm.clone()
        };
        links.push(mk(a.clone(), b.clone(), up_aqm));
        links.push(mk(b, a, aqm.clone()));
    };
    for c in 0..h * h {
        nodes.push(NodeSpec {
            name: format!("c{c}"),
            kind: NodeKind::Switch,
        });
    }
    for p in 0..k {
        for j in 0..h {
            nodes.push(NodeSpec {
                name: format!("a{p}_{j}"),
                kind: NodeKind::Switch,
            });
            for m in 0..h {
                cable(
                    format!("a{p}_{j}"),
                    format!("c{}", j * h + m),
                    agg_core_bps,
                    agg_core_d,
                    false,
                );
            }
        }
        for i in 0..h {
            nodes.push(NodeSpec {
                name: format!("e{p}_{i}"),
                kind: NodeKind::Switch,
            });
            for j in 0..h {
                cable(
                    format!("e{p}_{i}"),
                    format!("a{p}_{j}"),
                    edge_agg_bps,
                    edge_agg_d,
                    false,
                );
            }
            for m in 0..h {
                let host = format!("h{}", p * h * h + i * h + m);
                nodes.push(NodeSpec {
                    name: host.clone(),
                    kind: NodeKind::Host,
                });
                cable(host, format!("e{p}_{i}"), host_bps, host_d, true);
            }
        }
    }
    Graph {
        nodes,
        links,
        ecmp: f.load_balance != Some(LoadBalance::Single),
        load_balance: spray_only(f.load_balance),
    }
}
