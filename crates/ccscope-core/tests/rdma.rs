//! The RDMA transport (`transport::rdma`, `sim/rdma.rs`) on packet runs: go-back-N recovers
//! every byte on a lossy class, a NACK goes out once per gap, CNPs respect their interval, a
//! lossless incast of RoCE flows loses nothing (the senders' NICs included: a paused source
//! holds its next packet), and DCQCN flows share a RED/ECN bottleneck fairly. Every run goes
//! through `finish()`, which fails on a packet-conservation violation.

use ccscope_core::output::RunOutput;
use ccscope_core::transport::rdma::RdmaStats;
use ccscope_core::{parse, Format, Simulation};

mod common;
use common::*;

/// Per flow: the sender's counters and the receiver's (NACKs, CNPs, discarded segments).
struct Rdma {
    tx: RdmaStats,
    nacks_sent: u64,
    cnps_sent: u64,
    discarded: u64,
    done: bool,
}

fn run_rdma(toml: &str) -> (Vec<Option<Rdma>>, RunOutput) {
    let sc = parse(toml, Format::Toml).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    let st = sim
        .flows()
        .iter()
        .map(|f| {
            let d = f.rate.as_ref().and_then(|r| r.rdma.as_ref())?;
            Some(Rdma {
                tx: d.tx.stats,
                nacks_sent: d.rx.nacks_sent,
                cnps_sent: d.rx.cnps_sent,
                discarded: d.rx.discarded,
                done: d.tx.done(),
            })
        })
        .collect();
    (st, sim.finish().expect("packet conservation holds"))
}

fn total_drops(o: &RunOutput) -> u64 {
    u64s(o, "ports", "drops_overflow")
        .iter()
        .chain(u64s(o, "ports", "drops_aqm"))
        .sum()
}

/// A line-rate RoCE flow without congestion control (cc = "rdma") of `size` bytes from s0 and
/// a `cbr_bps` constant-rate flow from s1 into one 8 Gb/s drop-tail port of `buffer` packets:
/// the port overflows, go-back-N recovers.
fn lossy(size: u64, cbr_bps: f64, buffer: u32) -> String {
    format!(
        r#"
seed = 1
until_s = 0.05
packet_bytes = 1000
ack_bytes = 64
[topology]
kind = "dumbbell"
senders = 2
bottleneck_bps = 8e9
access_bps = 10e9
rtt_s = 8e-6
buffer_pkts = {buffer}
[rdma]
rto_s = 200e-6
[[flow]]
src = "s0"
dst = "r0"
cc = "rdma"
size_bytes = {size}
[[flow]]
src = "s1"
dst = "r0"
cc = "cbr"
rate_bps = {cbr_bps}
start_s = 1e-6
[record]
traces = ["drops"]
"#
    )
}

#[test]
fn go_back_n_on_a_lossy_class_delivers_every_byte() {
    let size = 2_000_000u64;
    let (st, o) = run_rdma(&lossy(size, 1e9, 20));
    assert!(total_drops(&o) > 100, "the port must overflow");
    let st = st[0].as_ref().expect("flow 0 is RDMA");
    let fct = f64s(&o, "flows", "fct_s")[0];
    let retx = u64s(&o, "flows", "retransmits")[0];
    assert!(fct.is_finite(), "the RDMA flow did not complete");
    assert_eq!(u64s(&o, "flows", "delivered_bytes")[0], size);
    eprintln!(
        "gbn: fct {fct} retx {retx} nacks {} disc {} to {}",
        st.nacks_sent, st.discarded, st.tx.timeouts
    );
    assert!(retx > 0 && retx == st.tx.retransmits, "{retx}");
    // every NACK reached the sender (the reverse path is idle), and one NACK covers a whole
    // gap: far fewer NACKs than discarded segments
    assert_eq!(st.tx.nacks, st.nacks_sent);
    assert!(st.nacks_sent > 0);
    assert!(
        st.nacks_sent * 4 < st.discarded,
        "{} NACKs for {} discarded segments",
        st.nacks_sent,
        st.discarded
    );
}

#[test]
fn lost_acks_are_recovered_by_the_retransmission_timer() {
    // a 50-packet message from a to r0 while r0 floods its own 7 Gb/s NIC (5-packet buffer)
    // with a 27 Gb/s constant flow to b: most ACKs are lost at r0's NIC, the
    // last ones with nothing after them, so only the timer brings the sender to the end
    let mut text = String::from(
        "seed = 1\nuntil_s = 0.05\npacket_bytes = 1000\nack_bytes = 64\n[rdma]\nrto_s = 190e-6\n[topology]\nkind = \"graph\"\n",
    );
    for (n, k) in [
        ("a", "host"),
        ("b", "host"),
        ("r0", "host"),
        ("S", "switch"),
    ] {
        text += &format!("[[topology.nodes]]\nname = \"{n}\"\nkind = \"{k}\"\n");
    }
    // r0's NIC runs at 7 Gb/s, its downlink at 8, and the timer (190 us) is no multiple of the
    // NIC's packet time: ACKs meet the constant flow's packets at drifting phases
    // (commensurate times would lose every ACK, or none)
    for (from, to, bps) in [
        ("a", "S", 10e9),
        ("S", "a", 10e9),
        ("b", "S", 10e9),
        ("S", "b", 10e9),
        ("r0", "S", 7e9),
        ("S", "r0", 8e9),
    ] {
        text += &format!(
            "[[topology.links]]\nfrom = \"{from}\"\nto = \"{to}\"\nrate_bps = {bps}\ndelay_s = 2e-6\nbuffer_pkts = 5\n"
        );
    }
    text += "[[flow]]\nsrc = \"a\"\ndst = \"r0\"\ncc = \"rdma\"\nsize_bytes = 50000\n";
    text += "[[flow]]\nsrc = \"r0\"\ndst = \"b\"\ncc = \"cbr\"\nrate_bps = 2.7e10\n";
    let (st, o) = run_rdma(&text);
    let st = st[0].as_ref().expect("flow 0 is RDMA");
    eprintln!(
        "ack: delivered {} sent {} to {} retx {} nacks {} disc {} done {}",
        u64s(&o, "flows", "delivered_bytes")[0],
        st.tx.sent,
        st.tx.timeouts,
        st.tx.retransmits,
        st.nacks_sent,
        st.discarded,
        st.done
    );
    assert!(f64s(&o, "flows", "fct_s")[0].is_finite());
    assert_eq!(u64s(&o, "flows", "delivered_bytes")[0], 50_000);
    let timeouts = u64s(&o, "flows", "timeouts")[0];
    assert_eq!(timeouts, st.tx.timeouts);
    assert!(timeouts > 0, "lost final ACKs need the timer");
    assert!(st.done, "the sender learns that every segment arrived");
    assert!(
        st.discarded > 0,
        "the timer's resends reach the receiver as duplicates"
    );
}

#[test]
fn cnps_respect_the_interval() {
    // one line-rate flow into a 1 Gb/s port that marks everything above 5 packets: nearly
    // every packet arrives CE-marked, yet at most one CNP per 50 us goes back
    let text = r#"
seed = 1
until_s = 0.01
packet_bytes = 1000
[topology]
kind = "dumbbell"
senders = 1
bottleneck_bps = 1e9
access_bps = 10e9
rtt_s = 8e-6
buffer_pkts = 100000
[aqm]
kind = "red"
min_th_pkts = 5
max_th_pkts = 6
max_p = 1.0
w_q = 1.0
[flows]
count = 1
cc = "rdma"
"#;
    let (st, o) = run_rdma(text);
    let st: Vec<Rdma> = st.into_iter().flatten().collect();
    let ce = u64s(&o, "flows", "ce_bytes_received")[0];
    let bound = (0.01f64 / 50e-6).ceil() as u64 + 1;
    assert!(ce > 500_000, "{ce} CE bytes");
    assert!(
        st[0].cnps_sent <= bound,
        "{} CNPs > {bound}",
        st[0].cnps_sent
    );
    // packets arrive every 8 us, so a CNP goes every 56 us: 178 in 10 ms, less the start-up
    assert!(st[0].cnps_sent >= 160, "{} CNPs", st[0].cnps_sent);
    assert_eq!(st[0].tx.cnps, st[0].cnps_sent);
    assert_eq!(u64s(&o, "flows", "ecn_reductions")[0], st[0].cnps_sent);
}

/// 16 servers answer one client with `block` bytes each through one switch port of 100
/// packets, on RoCE flows at line rate (`cc`), 10 Gb/s, PFC on class 0 (XOFF 30 KB).
fn incast(cc: &str, pfc: bool, rounds: u32) -> String {
    let pfc = if pfc {
        "[pfc]\nxoff_bytes = 30000\nxon_bytes = 15000\n"
    } else {
        ""
    };
    format!(
        r#"
seed = 2
until_s = 0.05
packet_bytes = 1000
ack_bytes = 64
[topology]
kind = "dumbbell"
senders = 17
bottleneck_bps = 10e9
access_bps = 10e9
rtt_s = 20e-6
buffer_pkts = 100
{pfc}
[rdma]
rto_s = 1e-3
[[workload]]
kind = "incast"
servers = "s0..s15"
client = "s16"
block_bytes = 64000
rounds = {rounds}
cc = ["{cc}"]
[record]
traces = ["drops"]
"#
    )
}

#[test]
fn a_lossless_incast_of_roce_flows_loses_nothing_anywhere() {
    // DCQCN sources (no marking port here: they stay at line rate) hold their packets too
    let (_, o) = run_rdma(&incast("dcqcn", true, 2));
    assert_eq!(total_drops(&o), 0);
    assert!(f64s(&o, "flows", "fct_s").iter().all(|f| f.is_finite()));
    let (st, o) = run_rdma(&incast("rdma", true, 4));
    let st: Vec<Rdma> = st.into_iter().flatten().collect();
    assert_eq!(
        total_drops(&o),
        0,
        "no drop at a switch nor at a paused NIC"
    );
    assert!(st
        .iter()
        .all(|s| s.tx.retransmits == 0 && s.nacks_sent == 0));
    let fct = f64s(&o, "flows", "fct_s");
    assert_eq!(fct.len(), 64);
    assert!(fct.iter().all(|f| f.is_finite()), "every flow completes");
    assert!(u64s(&o, "flows", "delivered_bytes")
        .iter()
        .all(|&b| b == 64_000));
    // the servers' NICs were paused: the backpressure was needed
    let paused: f64 = f64s(&o, "classes", "paused_s").iter().sum();
    assert!(paused > 0.0);
    // the same incast without PFC overflows the switch and go-back-N recovers it
    let (st, o) = run_rdma(&incast("rdma", false, 4));
    let st: Vec<Rdma> = st.into_iter().flatten().collect();
    assert!(total_drops(&o) > 0);
    assert!(st.iter().any(|s| s.tx.retransmits > 0));
    assert!(f64s(&o, "flows", "fct_s").iter().all(|f| f.is_finite()));
}

#[test]
fn bad_rdma_values_name_the_field() {
    for (body, field) in [
        ("cnp_interval_s = 0.0", "rdma.cnp_interval_s = 0"),
        ("cnp_interval_s = -1e-6", "rdma.cnp_interval_s = -1e-6"),
        ("rto_s = 0.0", "rdma.rto_s = 0"),
        ("ack_every = 0", "rdma.ack_every = 0"),
    ] {
        let text = lossy(1000, 1e9, 20).replace("rto_s = 200e-6", body);
        let e = parse(&text, Format::Toml).unwrap_err().to_string();
        assert!(e.starts_with(field), "{e}");
    }
}

/// Two DCQCN flows (the second starting 5 ms after the first) share a 40 Gb/s RED/ECN port
/// (instantaneous queue, Kmin 5 KB, Kmax 200 KB, Pmax 1 %: the DCQCN paper's CP) under PFC;
/// 1000-byte packets, 8 us base RTT, DCQCN's default parameters.
fn dcqcn_pair(until_s: f64) -> String {
    format!(
        r#"
seed = 1
until_s = {until_s}
packet_bytes = 1000
ack_bytes = 64
[topology]
kind = "dumbbell"
senders = 2
bottleneck_bps = 40e9
access_bps = 40e9
rtt_s = 8e-6
buffer_pkts = 10000
[aqm]
kind = "red"
min_th_pkts = 5
max_th_pkts = 200
max_p = 0.01
w_q = 1.0
[pfc]
xoff_bytes = 1000000
xon_bytes = 900000
[[flow]]
src = "s0"
dst = "r0"
cc = "dcqcn"
[[flow]]
src = "s1"
dst = "r0"
cc = "dcqcn"
start_s = 0.005
[record]
traces = ["rate"]
"#
    )
}

#[test]
fn two_dcqcn_flows_converge_to_their_fair_share() {
    let sc = parse(&dcqcn_pair(0.1), Format::Toml).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None).unwrap();
    let delivered = |sim: &Simulation| -> Vec<u64> {
        sim.flows()
            .iter()
            .map(|f| f.receiver.delivered_bytes())
            .collect()
    };
    let (t0, t1) = (0.05, 0.1);
    sim.run_until(ccscope_core::units::SimTime::from_secs_f64(t0));
    let a = delivered(&sim);
    sim.run_until(ccscope_core::units::SimTime::from_secs_f64(t1));
    let b = delivered(&sim);
    let cnps: Vec<u64> = sim
        .flows()
        .iter()
        .map(|f| {
            f.rate
                .as_ref()
                .unwrap()
                .rdma
                .as_ref()
                .unwrap()
                .tx
                .stats
                .cnps
        })
        .collect();
    let o = sim.finish().expect("packet conservation holds");
    assert_eq!(total_drops(&o), 0, "lossless");
    let gbps: Vec<f64> = (0..2)
        .map(|i| (b[i] - a[i]) as f64 * 8.0 / (t1 - t0) / 1e9)
        .collect();
    eprintln!("DCQCN pair over [{t0}, {t1}] s: {gbps:?} Gb/s, CNPs {cnps:?}");
    let sum: f64 = gbps.iter().sum();
    assert!(sum > 0.9 * 40.0, "the pair keeps the link busy: {sum} Gb/s");
    for g in &gbps {
        assert!(
            (g - 20.0).abs() < 0.15 * 20.0,
            "each flow within 15 % of its 20 Gb/s share: {gbps:?}"
        );
    }
    assert!(cnps.iter().all(|&c| c > 0));
}
