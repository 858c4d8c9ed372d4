//! Fabrics: the k-ary fat-tree template (Al-Fares et al., SIGCOMM 2008), the leaf-spine
//! oversubscription ratio and per-packet spraying beside per-flow ECMP.

use ccscope_core::net::routing::{Ecmp, PortEnds, Router};
use ccscope_core::output::{Column, RunOutput};
use ccscope_core::scenario::{Graph, NodeKind, Topology};
use ccscope_core::world::NodeId;
use ccscope_core::{parse, Format, Scenario, Simulation};
use std::collections::{HashMap, HashSet};

mod common;
use common::*;

/// The scenario of `text`, with one flow h0 -> h1 when it names none.
fn scenario(text: &str) -> Scenario {
    let mut text = text.to_string();
    if !text.contains("[[flow]]") && !text.contains("[[workload]]") {
        text += "\n[[flow]]\nsrc = \"h0\"\ndst = \"h1\"\n";
    }
    parse(&text, Format::Toml).unwrap_or_else(|e| panic!("{e}"))
}

fn fat_tree(k: u32, extra: &str) -> String {
    format!(
        "seed = 3\nuntil_s = 0.05\n[topology]\nkind = \"fat_tree\"\nk = {k}\nlink_bps = 10e9\nlink_delay_s = 1e-6\n{extra}\n"
    )
}

fn graph(sc: &Scenario) -> Graph {
    match sc.expand().unwrap_or_else(|e| panic!("{e}")).topology {
        Topology::Graph(g) => g,
        _ => unreachable!("expand gives a graph"),
    }
}

fn run(text: &str) -> RunOutput {
    let mut sim = Simulation::new(&scenario(text), None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.finish().expect("packet conservation holds")
}

fn port_tx(o: &RunOutput) -> HashMap<String, u64> {
    let names = match col(o, "ports", "name") {
        Column::Str(v) => v.clone(),
        _ => panic!(),
    };
    names
        .into_iter()
        .zip(u64s(o, "ports", "tx_pkts").iter().copied())
        .collect()
}

/// (node ids by name, port ends, is_host) of an expanded graph.
fn wiring(g: &Graph) -> (HashMap<String, NodeId>, Vec<PortEnds>, Vec<bool>) {
    let ids: HashMap<String, NodeId> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.clone(), NodeId(i as u32)))
        .collect();
    let ends = g
        .links
        .iter()
        .map(|l| PortEnds {
            from: ids[&l.from],
            to: ids[&l.to],
        })
        .collect();
    let is_host = g.nodes.iter().map(|n| n.kind == NodeKind::Host).collect();
    (ids, ends, is_host)
}

#[test]
fn fat_tree_has_the_published_node_and_link_counts() {
    for (k, hosts) in [(4u32, 16usize), (8, 128), (16, 1024)] {
        let g = graph(&scenario(&fat_tree(k, "")));
        let h = (k / 2) as usize;
        let n_hosts = g.nodes.iter().filter(|n| n.kind == NodeKind::Host).count();
        let n_switch = g.nodes.len() - n_hosts;
        assert_eq!(n_hosts, hosts, "k = {k}");
        assert_eq!(
            n_switch,
            (k * k) as usize + h * h,
            "k = {k}: k^2 pod + (k/2)^2 core switches"
        );
        // k^3/4 cables in each of the three tiers, two directed links each
        assert_eq!(g.links.len(), 6 * hosts, "k = {k}");
        assert!(g.ecmp, "ECMP is on by default");
        // every switch has k ports (core and aggregation and edge alike), every host one
        let mut degree: HashMap<&str, usize> = HashMap::new();
        for l in &g.links {
            *degree.entry(l.from.as_str()).or_default() += 1;
        }
        for n in &g.nodes {
            let want = if n.kind == NodeKind::Host {
                1
            } else {
                k as usize
            };
            assert_eq!(degree[n.name.as_str()], want, "{}", n.name);
        }
        // core c{j} reaches pod p through a{p}_{j / (k/2)} (Al-Fares section 2.3)
        let links: HashSet<(&str, &str)> = g
            .links
            .iter()
            .map(|l| (l.from.as_str(), l.to.as_str()))
            .collect();
        for j in 0..h * h {
            for p in 0..k as usize {
                let a = format!("a{p}_{}", j / h);
                assert!(links.contains(&(format!("c{j}").as_str(), a.as_str())));
            }
        }
    }
}

#[test]
fn fat_tree_k16_builds_within_the_memory_budget() {
    let text = fat_tree(
        16,
        "[[flow]]\nsrc = \"h0\"\ndst = \"h1023\"\nsize_bytes = 100000\n",
    );
    let sim = Simulation::with_budget(&scenario(&text), Some(0.001), Some(1 << 30))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sim.node_names().len(), 1024 + 256 + 64);
    assert_eq!(sim.port_names().len(), 6 * 1024);
}

#[test]
fn fat_tree_connects_every_host_pair_with_2_4_or_6_hops() {
    for k in [4u32, 8] {
        let g = graph(&scenario(&fat_tree(k, "")));
        let (ids, ends, is_host) = wiring(&g);
        let mut r = Router::new(g.nodes.len(), &ends, &is_host);
        let n = (k * k * k / 4) as usize;
        let per_edge = (k / 2) as usize;
        let per_pod = per_edge * per_edge;
        let mut seen = [0usize; 3];
        for a in 0..n {
            for b in 0..n {
                if a == b {
                    continue;
                }
                let p = r
                    .path(ids[&format!("h{a}")], ids[&format!("h{b}")])
                    .unwrap_or_else(|| panic!("h{a} -> h{b} unreachable"));
                let want = if a / per_edge == b / per_edge {
                    2
                } else if a / per_pod == b / per_pod {
                    4
                } else {
                    6
                };
                assert_eq!(p.len(), want, "k = {k}: h{a} -> h{b}");
                seen[want / 2 - 1] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c > 0), "{seen:?}");
    }
}

#[test]
fn ecmp_uses_every_equal_cost_path_across_pods() {
    let k = 8u32;
    let g = graph(&scenario(&fat_tree(k, "")));
    let (ids, ends, is_host) = wiring(&g);
    let mut e = Ecmp::new(ends.clone(), is_host.clone(), 3);
    let (src, dst) = (ids["h0"], ids["h127"]);
    let (same_pod, same_edge) = (ids["h4"], ids["h1"]);
    let counts = e.path_counts(dst).to_vec();
    assert_eq!(counts[src.idx()], 16, "(k/2)^2 paths across pods");
    assert_eq!(
        e.path_counts(same_pod)[src.idx()],
        4,
        "k/2 paths inside a pod"
    );
    assert_eq!(e.path_counts(same_edge)[src.idx()], 1);
    let mut used = HashSet::new();
    for flow in 0..400u64 {
        let p = e.path(src, dst, flow).unwrap();
        assert_eq!(p.len(), 6);
        assert_eq!(e.path(src, dst, flow).unwrap(), p, "one path per flow");
        used.insert(p);
    }
    assert_eq!(used.len(), 16, "400 flows use all 16 paths");
    let all = e.equal_cost_paths(src, dst, 4096).unwrap().unwrap();
    assert_eq!(all.len(), 16);
    assert!(all.iter().all(|(_, p)| (p - 1.0 / 16.0).abs() < 1e-12));
    assert_eq!(
        all.iter().map(|x| x.0.clone()).collect::<HashSet<_>>(),
        used,
        "the paths ECMP picks are the equal-cost paths"
    );
}

/// One flow from pod 0 to pod 3 of a k = 4 fat-tree: with ECMP its data crosses one core
/// switch, sprayed it crosses all four, about a quarter each, and is delivered whole.
#[test]
fn spraying_spreads_one_flow_over_every_core_and_delivers_all_bytes() {
    let flow = "[[flow]]\nsrc = \"h0\"\ndst = \"h15\"\ncc = \"dctcp\"\nsize_bytes = 2000000\n[aqm]\nkind = \"threshold\"\nk_pkts = 65\n";
    let down = ["c0->a3_0", "c1->a3_0", "c2->a3_1", "c3->a3_1"];
    let mut used = Vec::new();
    for lb in ["ecmp", "spray"] {
        let o = run(&fat_tree(4, &format!("load_balance = \"{lb}\"\n{flow}")));
        let tx = port_tx(&o);
        let n = down.iter().filter(|p| tx[**p] > 0).count();
        used.push(n);
        assert!(f64s(&o, "flows", "fct_s")[0].is_finite(), "{lb}: completes");
        assert_eq!(u64s(&o, "flows", "delivered_bytes")[0], 2_000_000, "{lb}");
        let data: u64 = down.iter().map(|p| tx[*p]).sum();
        assert!(
            data >= 2_000_000 / 1500,
            "{lb}: every data packet crosses the core"
        );
        if lb == "spray" {
            match col(&o, "flows", "spray_paths") {
                Column::U32(v) => assert_eq!(v[0], 4),
                _ => panic!(),
            }
            // each core carries about a quarter of the data packets
            for p in down {
                let share = tx[p] as f64 / data as f64;
                assert!((share - 0.25).abs() < 0.05, "{p}: {share}");
            }
        } else {
            assert!(o.table("flows").unwrap().column("ooo_segments").is_none());
        }
    }
    assert_eq!(used, vec![1, 4], "cores used by ECMP, by spraying");
}

/// Two flows from one edge switch to pod 3, no loss (ECN marking, 1000-packet buffers):
/// sprayed, their packets meet different queues on different paths and arrive out of order
/// (counted in `ooo_segments`; TCP takes the reordering for loss and retransmits, spuriously)
/// and every byte is delivered; with ECMP nothing arrives out of order.
#[test]
fn spraying_reorders_packets_without_loss_and_delivers_all_bytes() {
    let flows = "[[flow]]\nsrc = \"h0\"\ndst = \"h15\"\ncc = \"dctcp\"\nsize_bytes = 1500000\n[[flow]]\nsrc = \"h1\"\ndst = \"h14\"\ncc = \"dctcp\"\nsize_bytes = 1500000\n[aqm]\nkind = \"threshold\"\nk_pkts = 65\n";
    for lb in ["ecmp", "spray"] {
        let text = fat_tree(4, &format!("load_balance = \"{lb}\"\n{flows}"));
        let mut sim = Simulation::new(&scenario(&text), None).unwrap();
        sim.run();
        let l = sim.ledger();
        assert_eq!(l.dropped, 0, "{lb}: no loss");
        assert_eq!(l.sent, l.delivered + l.in_flight);
        let o = sim.finish().expect("conservation");
        assert_eq!(
            u64s(&o, "flows", "delivered_bytes"),
            &[1_500_000, 1_500_000]
        );
        if lb == "spray" {
            let ooo = u64s(&o, "flows", "ooo_segments");
            assert!(ooo.iter().all(|&n| n > 50), "spraying reorders: {ooo:?}");
        } else {
            assert_eq!(u64s(&o, "flows", "retransmits"), &[0, 0]);
        }
    }
}

#[test]
fn spraying_is_deterministic_from_the_seed() {
    let flow =
        "load_balance = \"spray\"\n[[flow]]\nsrc = \"h0\"\ndst = \"h15\"\nsize_bytes = 300000\n";
    let a = port_tx(&run(&fat_tree(4, flow)));
    assert_eq!(a, port_tx(&run(&fat_tree(4, flow))));
    let other = fat_tree(4, flow).replace("seed = 3", "seed = 4");
    assert_ne!(a, port_tx(&run(&other)), "another seed sprays otherwise");
}

/// A flow on a k = 4 fat-tree, NewReno over drop-tail with a small buffer and an incast of
/// three more flows onto the same host: losses, and still every packet accounted for
/// (`finish` checks sent = delivered + dropped + in flight) and every byte delivered.
#[test]
fn fat_tree_flows_complete_with_conservation_under_loss() {
    let mut flows = String::new();
    for s in ["h0", "h4", "h8", "h12"] {
        flows += &format!("[[flow]]\nsrc = \"{s}\"\ndst = \"h15\"\nsize_bytes = 1000000\n");
    }
    for lb in ["ecmp", "spray"] {
        let text = fat_tree(
            4,
            &format!("buffer_pkts = 20\nload_balance = \"{lb}\"\n{flows}"),
        )
        .replace("until_s = 0.05", "until_s = 0.5");
        let mut sim = Simulation::new(&scenario(&text), None).unwrap();
        sim.run();
        let l = sim.ledger();
        assert_eq!(l.sent, l.delivered + l.dropped + l.in_flight, "{lb}: {l:?}");
        assert!(
            l.dropped > 0,
            "{lb}: the incast overflows the 20-packet buffer"
        );
        let o = sim.finish().expect("conservation");
        assert!(
            f64s(&o, "flows", "fct_s").iter().all(|x| x.is_finite()),
            "{lb}"
        );
        assert!(u64s(&o, "flows", "delivered_bytes")
            .iter()
            .all(|&b| b == 1_000_000));
    }
}

/// Spraying with a Poisson workload: flows made during the run spray too.
#[test]
fn spraying_applies_to_workload_flows() {
    let hosts: Vec<String> = (0..16).map(|i| format!("\"h{i}\"")).collect();
    let text = fat_tree(
        4,
        &format!(
            "load_balance = \"spray\"\n[[workload]]\nkind = \"poisson\"\nsrc = [{h}]\ndst = [{h}]\nload = 0.3\nreference_bps = 160e9\nsize = {{ kind = \"uniform\", min_bytes = 20000, max_bytes = 200000 }}\n",
            h = hosts.join(", ")
        ),
    )
    .replace("until_s = 0.05", "until_s = 0.01");
    let o = run(&text);
    let paths = match col(&o, "flows", "spray_paths") {
        Column::U32(v) => v.clone(),
        _ => panic!(),
    };
    assert!(paths.len() > 50, "{} flows", paths.len());
    assert!(paths.iter().all(|p| [1, 2, 4].contains(p)), "{paths:?}");
    assert!(paths.contains(&4) && paths.contains(&2));
}

#[test]
fn oversubscription_scales_the_leaf_spine_fabric_links() {
    let base = "[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\nhost_bps = 10e9\nfabric_bps = 20e9\nlink_delay_s = 1e-6\n";
    let rates = |extra: &str| -> HashMap<String, f64> {
        graph(&scenario(&format!("{base}{extra}")))
            .links
            .iter()
            .map(|l| (format!("{}->{}", l.from, l.to), l.rate_bps))
            .collect()
    };
    let one = rates("");
    assert_eq!(rates("oversubscription = 1\n"), one, "1 is the default");
    let four = rates("oversubscription = 4\n");
    assert_eq!(four["leaf0->spine1"], 5e9, "fabric_bps / oversubscription");
    assert_eq!(four["spine1->leaf0"], 5e9);
    assert_eq!(four["h0->leaf0"], 10e9, "host links keep host_bps");
    // host-facing over spine-facing capacity of a leaf: 4 x 10 / (2 x 5) = 4
    assert_eq!(4.0 * four["leaf0->h0"] / (2.0 * four["leaf0->spine0"]), 4.0);
    let half = rates("oversubscription = 0.5\n");
    assert_eq!(half["leaf1->spine0"], 40e9);
}

#[test]
fn bad_fabric_values_are_one_line_errors_naming_the_field() {
    let cases = [
        (fat_tree(5, ""), "topology.k"),
        (fat_tree(0, ""), "topology.k"),
        (fat_tree(1, ""), "topology.k"),
        (fat_tree(66, ""), "topology.k"),
        (fat_tree(4, "agg_core_bps = 0"), "topology.agg_core_bps"),
        (fat_tree(4, "host_delay_s = -1"), "topology.host_delay_s"),
        (fat_tree(4, "load_balance = \"random\""), "load_balance"),
    ];
    let ls = "[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\nhost_bps = 10e9\nfabric_bps = 20e9\nlink_delay_s = 1e-6\n";
    let mut all: Vec<(String, &str)> = cases.into_iter().collect();
    for o in ["0", "-2", "nan", "inf"] {
        all.push((
            format!("{ls}oversubscription = {o}\n"),
            "topology.oversubscription",
        ));
    }
    all.push((
        "[topology]\nkind = \"graph\"\necmp = true\nload_balance = \"single\"\nnodes = [{name = \"a\", kind = \"host\"}, {name = \"b\", kind = \"host\"}]\nlinks = []\n".into(),
        "topology.load_balance",
    ));
    for (text, field) in all {
        let text = format!("{text}\n[[flow]]\nsrc = \"h0\"\ndst = \"h1\"\n");
        let e = parse(&text, Format::Toml)
            .and_then(|s| s.expand())
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"))
            .to_string();
        assert!(e.contains(field), "{field}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
}

/// Expanding a template without the new fields gives the same graph as before them: no
/// `load_balance` written, fabric links at fabric_bps.
#[test]
fn templates_without_the_new_fields_expand_as_before() {
    let ls = scenario("[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 1\nhost_bps = 1e9\nfabric_bps = 3e9\nlink_delay_s = 0\n");
    let g = graph(&ls);
    assert!(g.ecmp && g.load_balance.is_none());
    assert!(g.links.iter().any(|l| l.rate_bps == 3e9));
    let json = serde_json::to_string(&ls.expand().unwrap()).unwrap();
    assert!(!json.contains("load_balance") && !json.contains("oversubscription"));
}

/// A pair of hosts with more equal-cost paths than spraying takes (two full layers of 65
/// switches: 4225 paths) is refused at build, naming the field and the flow.
#[test]
fn spraying_refuses_a_pair_with_too_many_paths() {
    let mut nodes = vec![
        "{name = \"s\", kind = \"host\"}".to_string(),
        "{name = \"d\", kind = \"host\"}".to_string(),
    ];
    let mut links = Vec::new();
    let link = |a: &str, b: &str| {
        format!("{{from = \"{a}\", to = \"{b}\", rate_bps = 1e9, delay_s = 0, duplex = true}}")
    };
    for i in 0..65 {
        nodes.push(format!("{{name = \"x{i}\", kind = \"switch\"}}"));
        nodes.push(format!("{{name = \"y{i}\", kind = \"switch\"}}"));
        links.push(link("s", &format!("x{i}")));
        links.push(link(&format!("y{i}"), "d"));
        for j in 0..65 {
            links.push(link(&format!("x{i}"), &format!("y{j}")));
        }
    }
    let text = |lb: &str| {
        format!(
            "[topology]\nkind = \"graph\"\nload_balance = \"{lb}\"\nnodes = [{}]\nlinks = [{}]\n[[flow]]\nsrc = \"s\"\ndst = \"d\"\nsize_bytes = 10000\n",
            nodes.join(", "),
            links.join(", ")
        )
    };
    let e = Simulation::new(&scenario(&text("spray")), Some(0.01))
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("topology.load_balance") && e.contains("flow[0]: 4225 equal-cost paths"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    Simulation::new(&scenario(&text("ecmp")), Some(0.01)).expect("ECMP takes one of them");
}
