//! Priority flow control (`[pfc]`, IEEE 802.1Qbb; `sim/pfc.rs`, docs/engine.md) on packet runs:
//! lossless classes never drop at a switch, the queue a pause leaves stays within XOFF plus the
//! data in flight on the paused link, and a pause spreads congestion to a flow that does not
//! cross the congested port (head-of-line blocking). Every run goes through `finish()`, which
//! fails on a conservation violation.

use ccscope_core::output::{Column, RunOutput};
use ccscope_core::{parse, Format};

mod common;
use common::*;

fn port_row(o: &RunOutput, name: &str) -> usize {
    names(o, "ports")
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no port {name}"))
}

const XOFF: u64 = 30_000;
const XON: u64 = 15_000;

/// 16 servers answer one client with 64 KB each (1 MB per round, 4 rounds) through a switch
/// whose port toward the client buffers 100 packets; 10 Gb/s, 5 us links.
fn incast(pfc: bool) -> String {
    let pfc = if pfc {
        format!("[pfc]\nxoff_bytes = {XOFF}\nxon_bytes = {XON}\n")
    } else {
        String::new()
    };
    format!(
        r#"
seed = 2
until_s = 0.05
[topology]
kind = "dumbbell"
senders = 17
bottleneck_bps = 10e9
access_bps = 10e9
rtt_s = 20e-6
buffer_pkts = 100
{pfc}
[[workload]]
kind = "incast"
servers = "s0..s15"
client = "s16"
block_bytes = 64000
rounds = 4
cc = ["dctcp"]
[record]
traces = ["drops"]
"#
    )
}

#[test]
fn a_lossless_incast_never_drops_and_stays_within_xoff_plus_the_data_in_flight() {
    let lossy = run(&incast(false));
    let lossless = run(&incast(true));
    let drops = |o: &RunOutput| -> u64 {
        let a = u64s(o, "ports", "drops_overflow");
        let b = u64s(o, "ports", "drops_aqm");
        a.iter().chain(b).sum()
    };
    assert!(
        drops(&lossy) > 0,
        "the 100-packet buffer overflows without PFC"
    );
    assert_eq!(drops(&lossless), 0, "a lossless class drops nothing");
    // every round completed
    let rounds = o_rounds(&lossless);
    assert_eq!(rounds, 4, "all incast rounds complete");
    // the servers' NIC ports were paused
    let cn = names(&lossless, "classes");
    let rx = u64s(&lossless, "classes", "pause_rx");
    let paused = f64s(&lossless, "classes", "paused_s");
    let server_nic = |i: usize| cn[i].starts_with('s') && cn[i].ends_with("->sw");
    let frames: u64 = (0..cn.len())
        .filter(|&i| server_nic(i))
        .map(|i| rx[i])
        .sum();
    let paused_s: f64 = (0..cn.len())
        .filter(|&i| server_nic(i))
        .map(|i| paused[i])
        .sum();
    assert!(
        frames > 0 && paused_s > 0.0,
        "{frames} frames, {paused_s} s paused"
    );
    // headroom: each ingress holds at most XOFF, plus what its sender put on the wire before
    // the pause arrived (a round trip on the access link at line rate), plus the frame the
    // sender was transmitting and one more (the pause's 64-byte frame time rounds up)
    let r = port_row(&lossless, "s0->sw");
    let d = f64s(&lossless, "ports", "delay_s")[r];
    let per_ingress = XOFF as f64 + 2.0 * d * 10e9 / 8.0 + 2.0 * 1500.0 + 64.0;
    let bound_pkts = (16.0 * per_ingress / 1500.0).ceil() as u64 + 16;
    let q = port_row(&lossless, "sw->s16");
    let maxq = match col(&lossless, "ports", "max_queue_pkts") {
        Column::U32(v) => v[q] as u64,
        Column::U64(v) => v[q],
        _ => panic!("max_queue_pkts"),
    };
    eprintln!(
        "max queue {maxq} pkts, bound {bound_pkts}, {frames} pause frames, {paused_s} s paused"
    );
    assert!(maxq <= bound_pkts, "max queue {maxq} > bound {bound_pkts}");
    assert!(
        maxq > 100,
        "the lossless queue grows past the lossy buffer ({maxq})"
    );
}

/// Incast rounds that ended.
fn o_rounds(o: &RunOutput) -> usize {
    o.table("rounds").map_or(0, |t| match t.column("end_s") {
        Some(Column::F64(v)) => v.iter().filter(|x| x.is_finite()).count(),
        _ => 0,
    })
}

/// Four senders c0..c3 at the second switch S1 and one sender a behind the first switch S0
/// overload the port toward r0 (8 Gb/s each into 10 Gb/s); a victim v, also behind S0, sends
/// 4 Gb/s to r1, whose port is otherwise idle. S0 -> S1 runs at 40 Gb/s, so without PFC the
/// victim gets its 4 Gb/s. With PFC, S1 pauses each of its five ingress links in turn and the
/// link from S0 carries a's traffic at about its fifth of r0's port (2 Gb/s); S0 pauses its own
/// senders as its queue toward S1 holds up to XOFF from each, so v's packets wait behind a's
/// in that FIFO and leave in about the same ratio: v falls to about 2 Gb/s (head-of-line
/// blocking and congestion spreading). Claim tested: below 0.8 of its rate without PFC.
#[test]
fn a_pause_spreads_to_a_flow_that_avoids_the_congested_port() {
    let text = |pfc: bool| {
        let pfc = if pfc {
            format!("[pfc]\nxoff_bytes = {XOFF}\nxon_bytes = {XON}\n")
        } else {
            String::new()
        };
        let mut links = String::new();
        let mut nodes = String::new();
        let mut flows = String::new();
        let mut hosts = vec![("a", "S0"), ("v", "S0"), ("r0", "S1"), ("r1", "S1")];
        let cs: Vec<String> = (0..4).map(|i| format!("c{i}")).collect();
        for c in &cs {
            hosts.push((c.as_str(), "S1"));
            flows +=
                &format!("[[flow]]\nsrc = \"{c}\"\ndst = \"r0\"\ncc = \"cbr\"\nrate_bps = 8e9\n");
        }
        for (h, sw) in &hosts {
            nodes += &format!("[[topology.nodes]]\nname = \"{h}\"\nkind = \"host\"\n");
            links += &format!(
                "[[topology.links]]\nfrom = \"{h}\"\nto = \"{sw}\"\nrate_bps = 10e9\ndelay_s = 2e-6\nbuffer_pkts = 200\nduplex = true\n"
            );
        }
        for sw in ["S0", "S1"] {
            nodes += &format!("[[topology.nodes]]\nname = \"{sw}\"\nkind = \"switch\"\n");
        }
        links += "[[topology.links]]\nfrom = \"S0\"\nto = \"S1\"\nrate_bps = 40e9\ndelay_s = 2e-6\nbuffer_pkts = 200\nduplex = true\n";
        flows += "[[flow]]\nsrc = \"a\"\ndst = \"r0\"\ncc = \"cbr\"\nrate_bps = 8e9\n";
        flows += "[[flow]]\nsrc = \"v\"\ndst = \"r1\"\ncc = \"cbr\"\nrate_bps = 4e9\n";
        format!(
            r#"
seed = 1
until_s = 0.02
{pfc}
[topology]
kind = "graph"
{nodes}{links}
{flows}
"#
        )
    };
    let (lossy, lossless) = (run(&text(false)), run(&text(true)));
    let r1 = |o: &RunOutput| u64s(o, "ports", "tx_bytes")[port_row(o, "S1->r1")] as f64;
    let (v0, v1) = (r1(&lossy), r1(&lossless));
    eprintln!("victim bytes: no PFC {v0}, PFC {v1}");
    // switch ports drop nothing with PFC (the paused senders' NICs may)
    for o in [&lossless] {
        let n = names(o, "ports");
        let d = u64s(o, "ports", "drops_overflow");
        for i in 0..n.len() {
            if n[i].starts_with('S') {
                assert_eq!(d[i], 0, "switch port {} dropped", n[i]);
            }
        }
    }
    // without PFC the victim gets its 4 Gb/s over 20 ms (10 MB, less the start-up)
    assert!(v0 > 0.95 * 4e9 * 0.02 / 8.0, "victim without PFC {v0}");
    assert!(
        v1 < 0.8 * v0,
        "the victim is held back by pauses meant for r0's traffic: {v1} vs {v0}"
    );
}

#[test]
fn bad_pfc_values_name_the_field() {
    for (body, field) in [
        ("xoff_bytes = 100\nxon_bytes = 100", "pfc.xon_bytes"),
        ("xoff_bytes = 0\nxon_bytes = 0", "pfc.xoff_bytes"),
        (
            "xoff_bytes = 100\nxon_bytes = 10\nclasses = [8]",
            "pfc.classes[0]",
        ),
        (
            "xoff_bytes = 100\nxon_bytes = 10\nclasses = []",
            "pfc.classes",
        ),
        (
            "xoff_bytes = 100\nxon_bytes = 10\npause_quanta = 0",
            "pfc.pause_quanta",
        ),
    ] {
        let t = incast(false).replace("[[workload]]", &format!("[pfc]\n{body}\n[[workload]]"));
        let e = parse(&t, Format::Toml).unwrap_err();
        assert_eq!(e.path, field, "{e}");
    }
}
