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
    incast_n(pfc, 16)
}

/// `n` servers answer one client (s{n}) as in [`incast`].
fn incast_n(pfc: bool, n: usize) -> String {
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
senders = {senders}
bottleneck_bps = 10e9
access_bps = 10e9
rtt_s = 20e-6
buffer_pkts = 100
{pfc}
[[workload]]
kind = "incast"
servers = "s0..s{last}"
client = "s{n}"
block_bytes = 64000
rounds = 4
cc = ["dctcp"]
[record]
traces = ["drops"]
"#,
        senders = n + 1,
        last = n - 1,
    )
}

/// The issue's case: 32 servers into one 100-packet port lose packets without PFC and none with
/// it, anywhere (switch ports and the servers' NICs), and every round completes.
#[test]
fn a_32_to_1_lossless_incast_drops_nothing() {
    let drops = |o: &RunOutput| -> u64 {
        let a = u64s(o, "ports", "drops_overflow");
        let b = u64s(o, "ports", "drops_aqm");
        a.iter().chain(b).sum()
    };
    assert!(
        drops(&run(&incast_n(false, 32))) > 0,
        "the 100-packet buffer overflows"
    );
    let lossless = run(&incast_n(true, 32));
    assert_eq!(drops(&lossless), 0, "a lossless class drops nothing");
    assert_eq!(o_rounds(&lossless), 4, "all incast rounds complete");
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
        (
            "xoff_bytes = 100\nxon_bytes = 10\nheadroom_bytes = 2000000000000",
            "pfc.headroom_bytes",
        ),
    ] {
        let t = incast(false).replace("[[workload]]", &format!("[pfc]\n{body}\n[[workload]]"));
        let e = parse(&t, Format::Toml).unwrap_err();
        assert_eq!(e.path, field, "{e}");
    }
}

fn u8s<'a>(o: &'a RunOutput, table: &str, c: &str) -> &'a [u8] {
    match col(o, table, c) {
        Column::U8(v) => v,
        _ => panic!("{table}.{c} is not u8"),
    }
}
fn u32s<'a>(o: &'a RunOutput, table: &str, c: &str) -> &'a [u32] {
    match col(o, table, c) {
        Column::U32(v) => v,
        _ => panic!("{table}.{c} is not u32"),
    }
}

/// A 2-tier incast: a0..a3 behind switch S0 send 8 Gb/s each to r0 behind S1 (32 Gb/s over
/// the 40 Gb/s S0 -> S1 link into r0's 10 Gb/s port) until 4 ms; a victim v, also behind S0,
/// sends 4 Gb/s to r1 (an idle port) for the whole run. `record`: the `[record]` traces.
fn two_tier(pfc: &str, record: &str) -> String {
    let mut nodes = String::new();
    let mut links = String::new();
    let mut flows = String::new();
    let hosts = [
        ("a0", "S0"),
        ("a1", "S0"),
        ("a2", "S0"),
        ("a3", "S0"),
        ("v", "S0"),
        ("r0", "S1"),
        ("r1", "S1"),
    ];
    for (h, sw) in hosts {
        nodes += &format!("[[topology.nodes]]\nname = \"{h}\"\nkind = \"host\"\n");
        links += &format!(
            "[[topology.links]]\nfrom = \"{h}\"\nto = \"{sw}\"\nrate_bps = 10e9\ndelay_s = 2e-6\nbuffer_pkts = 200\nduplex = true\n"
        );
    }
    for sw in ["S0", "S1"] {
        nodes += &format!("[[topology.nodes]]\nname = \"{sw}\"\nkind = \"switch\"\n");
    }
    links += "[[topology.links]]\nfrom = \"S0\"\nto = \"S1\"\nrate_bps = 40e9\ndelay_s = 2e-6\nbuffer_pkts = 200\nduplex = true\n";
    for i in 0..4 {
        flows += &format!(
            "[[flow]]\nsrc = \"a{i}\"\ndst = \"r0\"\ncc = \"cbr\"\nrate_bps = 8e9\nstop_s = 0.004\n"
        );
    }
    flows += "[[flow]]\nsrc = \"v\"\ndst = \"r1\"\ncc = \"cbr\"\nrate_bps = 4e9\n";
    format!(
        "seed = 1\nuntil_s = 0.012\n{pfc}\n[record]\ntraces = {record}\nflow_interval_s = 1e-3\n[topology]\nkind = \"graph\"\n{nodes}{links}\n{flows}"
    )
}

#[test]
fn pause_frames_propagate_hop_by_hop_and_xon_resumes_the_victim() {
    let pfc = format!("[pfc]\nxoff_bytes = {XOFF}\nxon_bytes = {XON}\n");
    let o = run(&two_tier(&pfc, r#"["pfc", "delivered"]"#));
    let ports = names(&o, "ports");
    let t = f64s(&o, "pfc", "time_s");
    let port = u32s(&o, "pfc", "port");
    let ev = u8s(&o, "pfc", "event");
    let quanta = u32s(&o, "pfc", "quanta");
    let sent = f64s(&o, "pfc", "sent_s");
    let class = u8s(&o, "pfc", "class");
    let name = |i: usize| ports[port[i] as usize].as_str();
    assert!(!t.is_empty(), "no PFC frames recorded");
    assert!(t.windows(2).all(|w| w[0] <= w[1]), "rows in time order");
    assert!(class.iter().all(|&c| c == 0), "only class 0 is lossless");
    for i in 0..t.len() {
        // a pause carries the configured quanta, a resume 0; the frame took the reverse
        // link's 2 us and its 64-byte frame time
        assert_eq!(quanta[i], if ev[i] == 0 { 65535 } else { 0 }, "row {i}");
        assert!(
            (t[i] - sent[i] - 2e-6).abs() < 1e-7,
            "row {i}: {} {}",
            t[i],
            sent[i]
        );
    }
    // the first hop back from the congested port: S1 pauses S0's port toward it ...
    assert_eq!(name(0), "S0->S1", "first frame at {}", name(0));
    assert_eq!(ev[0], 0);
    // ... and only once S0's queue toward S1 holds XOFF from a host does S0 pause its hosts
    let first_host = (0..t.len())
        .find(|&i| name(i) != "S0->S1")
        .expect("S0 pauses its hosts");
    assert!(name(first_host).ends_with("->S0"), "{}", name(first_host));
    assert_eq!(ev[first_host], 0);
    assert!(
        sent[first_host] > t[0],
        "S0 pauses a host ({}) after its own port toward S1 was paused ({})",
        sent[first_host],
        t[0]
    );
    // the victim's NIC is paused too (it shares S0 -> S1 with the incast) ...
    let victim: Vec<usize> = (0..t.len()).filter(|&i| name(i) == "v->S0").collect();
    assert!(victim.iter().any(|&i| ev[i] == 0), "the victim is paused");
    // ... and after the incast stops (4 ms), XON resumes it for good
    let last = *victim.last().unwrap();
    assert_eq!(ev[last], 1, "the victim's last frame is a resume");
    assert!(t[last] > 0.004 && t[last] < 0.006, "resumed at {}", t[last]);
    // the victim's rate: held back during the incast, back to its 4 Gb/s after the resume
    // (bytes received: a CBR source does not repair the losses at its paused NIC)
    let dt = f64s(&o, "delivered", "time_s");
    let df = u32s(&o, "delivered", "flow");
    let db = u64s(&o, "delivered", "received_bytes");
    let at = |time: f64| -> f64 {
        let i = (0..dt.len())
            .find(|&i| df[i] == 4 && (dt[i] - time).abs() < 1e-9)
            .unwrap_or_else(|| panic!("no sample at {time}"));
        db[i] as f64
    };
    let during = (at(0.004) - at(0.001)) * 8.0 / 0.003;
    let after = (at(0.012) - at(0.007)) * 8.0 / 0.005;
    eprintln!("victim: {during:.3e} b/s during the incast, {after:.3e} b/s after");
    assert!(during < 0.8 * 4e9, "the victim is slowed: {during}");
    assert!(
        (after - 4e9).abs() < 0.02 * 4e9,
        "resumed at its rate: {after}"
    );
    // the per-port summary agrees with the trace
    let rx = u64s(&o, "ports", "pause_rx");
    let paused = f64s(&o, "ports", "paused_s");
    for (p, pname) in ports.iter().enumerate() {
        let n = (0..t.len()).filter(|&i| port[i] as usize == p).count() as u64;
        assert_eq!(rx[p], n, "{pname}: frames in ports vs trace");
        assert_eq!(n == 0, paused[p] == 0.0, "{pname}: paused {}", paused[p]);
    }
}

#[test]
fn the_pfc_trace_is_kept_only_when_asked_for() {
    let pfc = format!("[pfc]\nxoff_bytes = {XOFF}\nxon_bytes = {XON}\n");
    let o = run(&two_tier(&pfc, r#"["drops"]"#));
    assert!(o.table("pfc").is_none(), "not asked for");
    assert!(u64s(&o, "ports", "pause_rx").iter().sum::<u64>() > 0);
    // asked for without [pfc]: no table (nothing to record)
    let o = run(&two_tier("", r#"["pfc"]"#));
    assert!(o.table("pfc").is_none());
    assert!(o.table("ports").unwrap().column("pause_rx").is_none());
}

/// The headroom a link needs above XOFF (802.1Qbb Annex N, vendor practice): what its sender
/// puts on the wire during a round trip at line rate, the frame it was transmitting and the
/// frame that crossed XOFF (two maximum frames), and the PAUSE frame's own 64 bytes.
fn link_headroom(delay_s: f64, rate_bps: f64) -> u64 {
    (2.0 * delay_s * rate_bps / 8.0).ceil() as u64 + 2 * 1500 + 64
}

#[test]
fn a_headroom_of_the_links_bound_is_never_exceeded_and_a_small_one_is_counted() {
    let lossy = run(&incast(false));
    let d = f64s(&lossy, "ports", "delay_s")[port_row(&lossy, "s0->sw")];
    let need = link_headroom(d, 10e9);
    let with = |h: u64| {
        incast(true).replace(
            "[[workload]]",
            &format!("headroom_bytes = {h}\n[[workload]]"),
        )
    };
    let o = run(&with(need));
    let max_in = u64s(&o, "classes", "ingress_max_bytes");
    let exceeded = u64s(&o, "classes", "headroom_exceeded");
    let cn = names(&o, "classes");
    let top = *max_in.iter().max().unwrap();
    eprintln!("headroom {need} B: largest ingress count {top} B (XOFF {XOFF})");
    assert!(top > XOFF, "the incast drives ingresses past XOFF ({top})");
    for i in 0..cn.len() {
        assert!(
            max_in[i] <= XOFF + need,
            "{}: {} > XOFF + headroom {}",
            cn[i],
            max_in[i],
            XOFF + need
        );
        assert_eq!(exceeded[i], 0, "{}", cn[i]);
    }
    // CBR senders at line rate behind two tiers: each ingress stays within XOFF plus its own
    // link's bound (2 us links at 10 and 40 Gb/s)
    let need40 = link_headroom(2e-6, 40e9);
    let pfc = format!("[pfc]\nxoff_bytes = {XOFF}\nxon_bytes = {XON}\nheadroom_bytes = {need40}\n");
    let o = run(&two_tier(&pfc, r#"["drops"]"#));
    let cn = names(&o, "classes");
    let max_in = u64s(&o, "classes", "ingress_max_bytes");
    assert_eq!(
        u64s(&o, "classes", "headroom_exceeded").iter().sum::<u64>(),
        0
    );
    for i in 0..cn.len() {
        let bound = if cn[i] == "S0->S1" {
            need40
        } else {
            link_headroom(2e-6, 10e9)
        };
        assert!(
            max_in[i] <= XOFF + bound,
            "{}: {} > {}",
            cn[i],
            max_in[i],
            XOFF + bound
        );
    }
    let r = cn.iter().position(|n| n == "S0->S1").unwrap();
    eprintln!(
        "two tiers: S0->S1 ingress peaks at {} B (XOFF + {need40})",
        max_in[r]
    );
    assert!(
        max_in[r] > XOFF + 5_000,
        "the 40 Gb/s link uses its headroom ({})",
        max_in[r]
    );
    // a headroom below the link's bound: arrivals above it are counted, never dropped
    let o = run(&with(500));
    let exceeded: u64 = u64s(&o, "classes", "headroom_exceeded").iter().sum();
    let drops: u64 = u64s(&o, "ports", "drops_overflow").iter().sum();
    assert!(exceeded > 0, "a 500-byte headroom is exceeded");
    assert_eq!(drops, 0, "lossless: counted, not dropped");
}

#[test]
fn xoff_plus_headroom_must_fit_the_switch_buffer() {
    // the dumbbell's switch ports buffer 100 packets = 150 000 bytes
    let t = incast(true).replace("[[workload]]", "headroom_bytes = 130000\n[[workload]]");
    let sc = parse(&t, Format::Toml).expect("valid alone");
    let e = ccscope_core::Simulation::new(&sc, None)
        .err()
        .expect("refused at build");
    assert_eq!(e.path, "pfc.headroom_bytes", "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("130000") && msg.contains("at most 120000"),
        "{msg}"
    );
    // at the limit it runs
    let t = incast(true).replace("[[workload]]", "headroom_bytes = 120000\n[[workload]]");
    run(&t);
}
