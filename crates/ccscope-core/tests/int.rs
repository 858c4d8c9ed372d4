//! In-band telemetry (`[int]`, `ccscope_core::int`, docs/engine.md): the records a port stamps
//! at dequeue against hand-computed values and against the port's own counters, the hop count
//! against the path, and the run's results with and without telemetry.

use ccscope_core::int::{Echo, IntRecord};
use ccscope_core::world::FlowId;
use ccscope_core::{parse, Format, Simulation};
use std::collections::BTreeMap;

mod common;
use common::*;

const US: u64 = 1_000_000; // ps

/// h0 -> sw at 10 Gb/s, sw -> r at 1 Gb/s, 1-us links, with `extra` appended.
fn one_switch(extra: &str) -> String {
    format!(
        r#"
seed = 1
until_s = 0.002
packet_bytes = 1500
[topology]
kind = "graph"
[[topology.nodes]]
name = "h0"
kind = "host"
[[topology.nodes]]
name = "sw"
kind = "switch"
[[topology.nodes]]
name = "r"
kind = "host"
[[topology.links]]
from = "h0"
to = "sw"
rate_bps = 10e9
delay_s = 1e-6
duplex = true
[[topology.links]]
from = "sw"
to = "r"
rate_bps = 1e9
delay_s = 1e-6
buffer_pkts = 100
duplex = true
{extra}
"#
    )
}

fn sim(text: &str) -> Simulation {
    let sc = parse(text, Format::Toml).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&sc, None).unwrap_or_else(|e| panic!("{e}"))
}

fn full(sim: &Simulation, f: u32, seq: u64) -> Vec<IntRecord> {
    sim.int_arena()
        .expect("an INT run has an arena")
        .peek(FlowId(f), seq)
        .unwrap_or_else(|| panic!("segment {seq} has its slot"))
        .to_vec()
}

/// One 10-segment flow (its initial window) through h0 -> sw -> r, every port stamping. The
/// NIC sends segment k at k x 1.2 us; the 1 Gb/s port starts segment k at 2.2 + 12 k us. At
/// segment 0's dequeue nothing waits (the other nine are handed to the NIC after it started);
/// at segment k >= 1's, the 9 - k behind it wait at both ports; each port has sent k + 1
/// segments then.
#[test]
fn stamped_values_are_the_hand_computed_queue_bytes_and_times_of_each_dequeue() {
    let mut s = sim(&one_switch(
        r#"
[int]
ports = "all"
[tcp]
iw_pkts = 10
[[flow]]
src = "h0"
dst = "r"
cc = "new_reno"
size_bytes = 15000
"#,
    ));
    s.run();
    for k in 0..10u64 {
        let recs = full(&s, 0, k);
        assert_eq!(
            recs.len(),
            2,
            "segment {k}: one record per port on the path"
        );
        let waiting = if k == 0 { 0 } else { (9 - k) * 1500 };
        let nic = IntRecord {
            ts: ccscope_core::units::SimTime(k * 1_200_000),
            tx_bytes: (k + 1) * 1500,
            qlen_bytes: waiting,
            rate_bps: 10_000_000_000,
        };
        let sw = IntRecord {
            ts: ccscope_core::units::SimTime(2_200_000 + k * 12 * US),
            tx_bytes: (k + 1) * 1500,
            qlen_bytes: waiting,
            rate_bps: 1_000_000_000,
        };
        assert_eq!(recs, vec![nic, sw], "segment {k}");
    }
    // every segment's ACK found its full list (the ring kept every slot)
    let mut s2 = s;
    for k in 0..10 {
        assert!(matches!(s2.int_echo(FlowId(0), k), Echo::Full(r) if r.len() == 2));
    }
    let st = s2.int_arena().unwrap().stats();
    assert_eq!((st.stamps, st.overwrites, st.lost_stamps), (20, 0, 0));
}

/// Two hosts into a 1 Gb/s port between two switches: h0, h1 -> s1 (10 Gb/s), s1 -> s2
/// (1 Gb/s, 100 packets), s2 -> r (10 Gb/s).
fn two_switches(ports: &str, with_int: bool) -> String {
    let int = if with_int {
        format!("[int]\nports = \"{ports}\"\n")
    } else {
        String::new()
    };
    let mut links = String::new();
    for (a, b, rate, buf) in [
        ("h0", "s1", "10e9", ""),
        ("h1", "s1", "10e9", ""),
        ("s1", "s2", "1e9", "buffer_pkts = 100\n"),
        ("s2", "r", "10e9", ""),
    ] {
        links += &format!(
            "[[topology.links]]\nfrom = \"{a}\"\nto = \"{b}\"\nrate_bps = {rate}\ndelay_s = 5e-6\n{buf}duplex = true\n"
        );
    }
    let mut nodes = String::new();
    for (n, k) in [
        ("h0", "host"),
        ("h1", "host"),
        ("s1", "switch"),
        ("s2", "switch"),
        ("r", "host"),
    ] {
        nodes += &format!("[[topology.nodes]]\nname = \"{n}\"\nkind = \"{k}\"\n");
    }
    format!(
        r#"
seed = 2
until_s = 0.01
[topology]
kind = "graph"
{nodes}{links}
{int}
[[flow]]
src = "h0"
dst = "r"
cc = "new_reno"
[[flow]]
src = "h1"
dst = "r"
cc = "new_reno"
start_s = 0.0003
[record]
traces = ["queue", "link", "drops"]
queue_every_change = true
ports = ["h0->s1", "h1->s1", "s1->s2", "s2->r"]
"#
    )
}

/// Every record read during a run (at checkpoints every 100 us): per (flow, seq, ts) the list.
fn harvest(s: &mut Simulation) -> BTreeMap<(u32, u64, u64), Vec<IntRecord>> {
    let mut seen = BTreeMap::new();
    let end = s.end();
    let mut t = ccscope_core::units::SimTime(0);
    while t < end {
        t = ccscope_core::units::SimTime(t.0 + 100 * US);
        s.run_until(t);
        for f in 0..2u32 {
            let nxt = s.flows()[f as usize].sender.snd_nxt;
            for seq in 0..nxt {
                if let Some(r) = s.int_arena().unwrap().peek(FlowId(f), seq) {
                    if let Some(first) = r.first() {
                        seen.insert((f, seq, first.ts.0), r.to_vec());
                    }
                }
            }
        }
    }
    seen
}

/// The records equal the port's counters at the dequeue moment: the queue bytes the port's
/// change log holds at that instant, its link rate; the bytes sent grow by whole packets and
/// never fall; a list has one record per stamping port on the route (3 with every port, 2 with
/// switches only).
#[test]
fn records_match_the_ports_counters_hop_count_is_the_path_length_and_tx_bytes_only_grow() {
    for (ports, hops) in [("all", 3usize), ("switches", 2)] {
        let mut s = sim(&two_switches(ports, true));
        let seen = harvest(&mut s);
        let route: Vec<&str> = if hops == 3 {
            vec!["*->s1", "s1->s2", "s2->r"]
        } else {
            vec!["s1->s2", "s2->r"]
        };
        // every list is whole: no packet is dropped after the last stamping port
        let complete: Vec<_> = seen.iter().filter(|(_, r)| r.len() == hops).collect();
        assert!(complete.len() > 500, "{ports}: {} lists", complete.len());
        assert!(
            seen.values().all(|r| r.len() <= hops),
            "{ports}: more records than ports"
        );
        let mut by_port: BTreeMap<String, Vec<IntRecord>> = BTreeMap::new();
        for ((f, _, _), recs) in &complete {
            for (h, r) in recs.iter().enumerate() {
                let name = route[h].replace('*', if *f == 0 { "h0" } else { "h1" });
                by_port.entry(name).or_default().push(*r);
            }
        }
        for (name, mut recs) in by_port {
            let id = s.port_id(&name).expect("port");
            let port = s.port(id);
            let log = &port.change_log.as_ref().expect("every change logged").rows;
            recs.sort_by_key(|r| r.ts);
            recs.dedup();
            for r in &recs {
                assert_eq!(r.rate_bps, port.rate().0, "{name}");
                // the change the dequeue logged: the queue it left behind, at its instant
                assert!(
                    log.iter().any(|&(t, _, b)| t == r.ts && b == r.qlen_bytes),
                    "{ports} {name}: no queue change of {} B at {:?}",
                    r.qlen_bytes,
                    r.ts
                );
            }
            for w in recs.windows(2) {
                assert!(w[1].ts > w[0].ts, "{name}: one dequeue per instant");
                let d = w[1].tx_bytes - w[0].tx_bytes; // panics if it fell
                                                       // the data ports carry 1500-B segments only; s2->r carries no ACKs either
                assert!(d >= 1500 && d % 1500 == 0, "{name}: tx_bytes step {d}");
                assert!(
                    w[1].ts.0 - w[0].ts.0 >= d / 1500 * port.rate().tx_time(1500).0,
                    "{name}: bytes faster than the line"
                );
            }
            assert!(recs.last().unwrap().tx_bytes <= port.stats.tx_bytes);
        }
        let st = s.int_arena().unwrap().stats();
        assert_eq!(st.overwrites, 0, "{ports}: {st:?}");
    }
}

/// Telemetry observes and changes nothing: with `[int]` the flows deliver the same bytes, the
/// same drops happen and the ports send the same bytes as without it (one class on the general
/// path is the committed FIFO).
#[test]
fn telemetry_changes_no_result() {
    let a = run(&two_switches("all", false));
    let b = run(&two_switches("all", true));
    for c in ["delivered_bytes", "segments_sent", "retransmits"] {
        assert_eq!(u64s(&a, "flows", c), u64s(&b, "flows", c), "{c}");
    }
    assert_eq!(u64s(&a, "ports", "tx_bytes"), u64s(&b, "ports", "tx_bytes"));
    assert_eq!(
        f64s(&a, "drops", "time_s").len(),
        f64s(&b, "drops", "time_s").len()
    );
    assert!(b.table("classes").is_some() && a.table("classes").is_none());
}

#[test]
fn a_bad_int_table_is_one_error_naming_the_field() {
    let e = parse(
        &one_switch(
            "[int]\nmax_slots = 1\n[[flow]]\nsrc = \"h0\"\ndst = \"r\"\ncc = \"new_reno\"\n",
        ),
        Format::Toml,
    )
    .unwrap_err();
    assert_eq!(e.path, "int.max_slots", "{e}");
    let e = parse(
        &one_switch(
            "[int]\nports = \"some\"\n[[flow]]\nsrc = \"h0\"\ndst = \"r\"\ncc = \"new_reno\"\n",
        ),
        Format::Toml,
    )
    .unwrap_err();
    assert!(e.to_string().contains("int.ports"), "{e}");
    let e = parse(
        &one_switch("[hpcc]\neta = 1.5\n[[flow]]\nsrc = \"h0\"\ndst = \"r\"\ncc = \"new_reno\"\n"),
        Format::Toml,
    )
    .unwrap_err();
    assert_eq!(e.path, "hpcc.eta", "{e}");
}

/// A workload's completed HPCC flows give their telemetry rings back: a long run keeps rings
/// only for the flows still in progress, and the freed rings are reused.
#[test]
fn completed_workload_flows_release_their_rings() {
    let text = one_switch(
        r#"
[pfc]
xoff_bytes = 60000
xon_bytes = 45000
[[workload]]
kind = "poisson"
src = ["h0"]
dst = ["r"]
load = 0.5
reference_bps = 1e9
cc = ["hpcc"]
size = { kind = "fixed", bytes = 15000 }
"#,
    )
    .replace("until_s = 0.002", "until_s = 0.02");
    let mut s = sim(&text);
    s.run();
    let done: Vec<usize> = s
        .flows()
        .iter()
        .enumerate()
        .filter(|(_, f)| f.completed)
        .map(|(i, _)| i)
        .collect();
    assert!(
        done.len() > 20,
        "the workload completes flows ({})",
        done.len()
    );
    let arena = s.int_arena().expect("hpcc turns telemetry on");
    for &i in &done {
        assert!(
            !arena.has_ring(FlowId(i as u32)),
            "completed flow {i} keeps its ring"
        );
    }
    assert!(arena.stats().stamps > 0);
}

/// A chain h0 - s1 - ... - sN - r of 10 Gb/s links, with `extra` appended.
fn chain(switches: usize, extra: &str) -> String {
    let mut t = String::from(
        "seed = 1\nuntil_s = 0.001\npacket_bytes = 1500\n[topology]\nkind = \"graph\"\n",
    );
    let names: Vec<String> = std::iter::once("h0".to_string())
        .chain((1..=switches).map(|i| format!("s{i}")))
        .chain(std::iter::once("r".to_string()))
        .collect();
    for (i, n) in names.iter().enumerate() {
        let kind = if i == 0 || i == names.len() - 1 {
            "host"
        } else {
            "switch"
        };
        t += &format!("[[topology.nodes]]\nname = \"{n}\"\nkind = \"{kind}\"\n");
    }
    for w in names.windows(2) {
        t += &format!(
            "[[topology.links]]\nfrom = \"{}\"\nto = \"{}\"\nrate_bps = 10e9\ndelay_s = 1e-6\nbuffer_pkts = 100\nduplex = true\n",
            w[0], w[1]
        );
    }
    t + extra
}

const HPCC_FLOW: &str = "[[flow]]\nsrc = \"h0\"\ndst = \"r\"\ncc = \"hpcc\"\nsize_bytes = 30000\n";

/// A route longer than the telemetry's hop-record limit (8 INT ports) was cut silently to its
/// first 8 hops; now the build refuses it with one error naming the field, the value and the
/// allowed range, and a route of exactly 8 INT ports runs with every hop's records read.
#[test]
fn an_hpcc_route_past_the_int_hop_limit_is_refused_naming_the_field() {
    assert_eq!(ccscope_core::int::MAX_INT_HOPS, 8);
    let build = |text: &str| {
        let sc = parse(text, Format::Toml).unwrap_or_else(|e| panic!("{e}"));
        Simulation::new(&sc, None).map(|_| ())
    };
    // 9 switch ports on the path (int.ports = "switches" by default for HPCC)
    let e = build(&chain(9, HPCC_FLOW)).unwrap_err();
    assert_eq!(e.path, "flow[0].dst", "{e}");
    assert_eq!(e.value, "\"r\"", "{e}");
    let msg = e.to_string();
    assert!(!msg.contains("or int.ports"), "{msg}");
    for want in [
        "crosses 9 INT ports",
        "1 to 8",
        "int.ports = \"switches\"",
        "from \"h0\" to \"r\"",
    ] {
        assert!(msg.contains(want), "{want:?} missing from: {msg}");
    }
    // 8 switch ports: accepted, and the HPCC flow completes reading all 8 records
    let mut s = sim(&chain(8, HPCC_FLOW));
    s.run();
    assert!(s.flows()[0].completed, "the 8-hop HPCC flow completes");
    let recs = full(&s, 0, 0);
    assert_eq!(recs.len(), 8);
    // int.ports = "all" counts the sender's NIC too: 8 switches + 1 NIC = 9
    let e = build(&chain(8, &format!("[int]\nports = \"all\"\n{HPCC_FLOW}"))).unwrap_err();
    assert_eq!(e.path, "flow[0].dst", "{e}");
    assert!(e.to_string().contains("int.ports = \"all\""), "{e}");
    assert!(e.to_string().contains("or int.ports = \"switches\""), "{e}");
    // a flow that reads no telemetry may take the long route beside INT ports
    assert!(build(&chain(
        9,
        "[int]\n[[flow]]\nsrc = \"h0\"\ndst = \"r\"\ncc = \"new_reno\"\nsize_bytes = 30000\n"
    ))
    .is_ok());
    // workloads: the pair's route is checked when the workload is built
    let poisson = "[[workload]]\nkind = \"poisson\"\nsrc = [\"h0\"]\ndst = [\"r\"]\nload = 0.1\nreference_bps = 10e9\ncc = [\"hpcc\"]\nsize = { kind = \"fixed\", bytes = 15000 }\n";
    let e = build(&chain(9, poisson)).unwrap_err();
    assert_eq!(e.path, "workload[0].dst", "{e}");
    assert!(e.to_string().contains("crosses 9 INT ports"), "{e}");
    let incast = "[[workload]]\nkind = \"incast\"\nclient = \"r\"\nservers = [\"h0\"]\ntotal_bytes = 30000\nrounds = 1\ncc = [\"hpcc\"]\n";
    let e = build(&chain(9, incast)).unwrap_err();
    assert_eq!(e.path, "workload[0].servers[0]", "{e}");
    assert!(build(&chain(8, incast)).is_ok());
}
