//! Per-flow fair queueing at host NIC ports (`aqm.kind = "fq"`, `topology.host_aqm`): a short
//! flow started beside the whole windows of a host's other flows leaves the host after about
//! one packet of each, where the drop-tail FIFO makes it wait for all of them; unset, the host
//! port stays the FIFO; bad values name the field.

use ccscope_core::{parse, Format, Simulation};

mod common;
use common::*;

/// The run's first lines.
fn head(until_s: f64) -> String {
    format!("seed = 1\nuntil_s = {until_s}\n")
}

#[test]
fn a_short_flow_leaves_the_host_after_one_packet_of_each_other_flow() {
    let fifo = run(&one_host("", ""));
    let fq = run(&one_host("host_aqm = { kind = \"fq\" }", ""));
    let (fct_fifo, fct_fq) = (
        f64s(&fifo, "flows", "fct_s")[15],
        f64s(&fq, "flows", "fct_s")[15],
    );
    let ideal = fq.ideal_fct_s[15];
    eprintln!(
        "one-packet flow: ideal {:.1} us, FIFO {:.1} us, fq {:.1} us",
        ideal * 1e6,
        fct_fifo * 1e6,
        fct_fq * 1e6
    );
    // FIFO: behind 15 windows of 15 packets (225 frames)
    assert!(
        fct_fifo - ideal > 200.0 * FRAME_S,
        "FIFO wait {}",
        fct_fifo - ideal
    );
    // fq: one frame of each of the 15 other flows, and a frame's slack for the ACK's way back
    assert!(
        fct_fq - ideal <= 16.0 * FRAME_S,
        "fq wait {} s = {:.1} frames",
        fct_fq - ideal,
        (fct_fq - ideal) / FRAME_S
    );
    // every long flow still completes (and `run` checked conservation)
    let fcts = f64s(&fq, "flows", "fct_s");
    assert!(fcts.iter().all(|f| f.is_finite() && *f > 0.0), "{fcts:?}");
}

#[test]
fn host_aqm_reaches_the_host_ports_of_every_template_and_nothing_else() {
    let fat = &format!(
        "{}{}",
        head(0.001),
        r#"
[topology]
kind = "fat_tree"
k = 4
link_bps = 10e9
link_delay_s = 1e-6
host_aqm = { kind = "fq", quantum_bytes = 3000 }
[[flow]]
src = "h0"
dst = "h5"
size_bytes = 10000
"#
    );
    let leaf = &format!(
        "{}{}",
        head(0.001),
        r#"
[topology]
kind = "leaf_spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
host_bps = 10e9
fabric_bps = 10e9
link_delay_s = 1e-6
host_aqm = { kind = "fq" }
[[flow]]
src = "h0"
dst = "h3"
size_bytes = 10000
"#
    );
    let dumbbell = one_host("host_aqm = { kind = \"fq\" }\nreceivers = 2", "");
    for text in [fat.as_str(), leaf.as_str(), dumbbell.as_str()] {
        let sc = parse(text, Format::Toml).unwrap_or_else(|e| panic!("{e}"));
        let ex = sc.expand().unwrap();
        let ccscope_core::scenario::Topology::Graph(g) = &ex.topology else {
            panic!("expanded to a graph")
        };
        let hosts: std::collections::HashSet<&str> = g
            .nodes
            .iter()
            .filter(|n| n.kind == ccscope_core::scenario::NodeKind::Host)
            .map(|n| n.name.as_str())
            .collect();
        let mut host_ports = 0;
        for l in &g.links {
            let kind = l.aqm.as_ref().map_or("unset", |a| a.kind_name());
            if hosts.contains(l.from.as_str()) {
                host_ports += 1;
                assert_eq!(kind, "fq", "{}->{}", l.from, l.to);
            } else {
                assert_ne!(kind, "fq", "{}->{}", l.from, l.to);
            }
        }
        assert_eq!(host_ports, hosts.len());
        let mut sim = Simulation::new(&sc, None).unwrap_or_else(|e| panic!("{e}"));
        sim.run();
        sim.finish().expect("packet conservation holds");
    }
}

#[test]
fn an_explicit_graph_puts_fq_on_a_host_port_through_its_link() {
    let text = &format!(
        "{}{}",
        head(0.01),
        r#"
[topology]
kind = "graph"
nodes = [{ name = "a", kind = "host" }, { name = "sw", kind = "switch" }, { name = "b", kind = "host" }]
links = [
  { from = "a", to = "sw", rate_bps = 10e9, delay_s = 5e-6, buffer_pkts = 500, aqm = { kind = "fq" } },
  { from = "sw", to = "a", rate_bps = 10e9, delay_s = 5e-6, buffer_pkts = 500 },
  { from = "sw", to = "b", rate_bps = 10e9, delay_s = 5e-6, buffer_pkts = 500, duplex = true },
]
[tcp]
iw_pkts = 15
[[flow]]
src = "a"
dst = "b"
size_bytes = 1000000
[[flow]]
src = "a"
dst = "b"
size_bytes = 1000
"#
    );
    let o = run(text);
    let fct = f64s(&o, "flows", "fct_s")[1];
    let ideal = o.ideal_fct_s[1];
    assert!(fct - ideal <= 2.0 * FRAME_S, "wait {}", fct - ideal);
}

#[test]
fn bad_values_name_the_field_the_value_and_what_is_allowed() {
    let e = error_of(&one_host(
        "host_aqm = { kind = \"fq\", quantum_bytes = 0 }",
        "",
    ));
    assert_eq!(e.path, "topology.host_aqm.quantum_bytes", "{e}");
    assert!(e.to_string().contains("from 1 to 16777216"), "{e}");
    let e = error_of(&one_host("host_aqm = { kind = \"fair\" }", ""));
    assert!(e.path.starts_with("topology.host_aqm"), "{e}");
    assert!(e.to_string().contains("`fq`"), "{e}");
    let e = error_of(&one_host(
        "host_aqm = { kind = \"fq\", quantum = 1500 }",
        "",
    ));
    assert!(e.to_string().contains("quantum"), "{e}");
    // checked against the host ports' buffer like `aqm` against the switches'
    let e = error_of(&one_host(
        "host_buffer_pkts = 10\nhost_aqm = { kind = \"threshold\", k_pkts = 20 }",
        "",
    ));
    assert_eq!(e.path, "topology.host_aqm.k_pkts", "{e}");
    assert!(e.to_string().contains("topology.host_buffer_pkts"), "{e}");
    // a class's own policy cannot be fq: its flow queues are the port's
    let e = error_of(&format!(
        "{}\n[sched]\nclasses = 2\nscheduler = \"drr\"\nclass_aqm = [{{ kind = \"fq\" }}, {{ kind = \"drop_tail\" }}]\n",
        aqm_dumbbell_text("kind = \"drop_tail\"", 0.01)
    ));
    assert_eq!(e.path, "sched.class_aqm[0].kind", "{e}");
}
