//! HPCC (`cc = "hpcc"`, `rate/hpcc.rs`) on the RDMA transport with in-band telemetry at the
//! switch ports: the paper's claims on a dumbbell (near-zero queue at about eta x line rate)
//! and an 8-flow incast that converges.
//!
//! The bounds, derived before the runs from Algorithm 1 and the defaults (eta = 0.95,
//! maxStage = 5, W_AI = W_init (1 - eta) / 10 = 0.005 BDP, W_init = BDP = B T):
//! - HPCC's fixed point is U = eta at the bottleneck (section 3.2, eq. 4), with
//!   U = qlen / BDP plus txRate / B. With an empty queue that is txRate = eta B: the flows together send
//!   0.95 B, and their windows add up to 0.95 BDP, less than the pipe, so the fluid queue is 0.
//! - Between multiplicative steps each of N flows adds W_AI per RTT for at most maxStage
//!   rounds: the windows add up to at most (eta + N maxStage 0.005) BDP. For N = 2 that is
//!   1.0 BDP: still no standing queue; for N = 8, 1.15 BDP: at most 0.15 BDP queued.
//! - Packets are paced, not fluid: N flows' packets can reach the port at the same instant,
//!   N - 1 of them waiting behind the first.
//!
//! So, once settled: N = 2: mean queue at most 1 packet, 99th percentile at most the
//! headroom (1 - eta) BDP plus N packets; N = 8: 99th percentile at most 0.15 BDP + 8
//! packets; the bottleneck's throughput within [0.90, 1.0] of B (eta = 0.95, the additive
//! rounds push it up to at most 1.0); for the incast, each flow within [0.5, 1.5] x B / 8.

use ccscope_core::output::{Column, RunOutput};

mod common;
use common::*;

const B: f64 = 100e9;
const PKT: f64 = 1000.0;

/// `n` HPCC flows from s0..s{n-1} into r0 over a 100 Gb/s dumbbell (8-us propagation RTT,
/// 1000-B packets, a buffer that holds the first round's burst), `until_s` seconds.
fn dumbbell(n: u32, until_s: f64) -> String {
    let mut flows = String::new();
    for i in 0..n {
        flows += &format!("[[flow]]\nsrc = \"s{i}\"\ndst = \"r0\"\ncc = \"hpcc\"\n");
    }
    format!(
        r#"
seed = 1
until_s = {until_s}
packet_bytes = 1000
ack_bytes = 64
[topology]
kind = "dumbbell"
senders = {n}
receivers = 1
bottleneck_bps = 100e9
rtt_s = 8e-6
buffer_pkts = 4000
{flows}
[record]
traces = ["queue", "link", "rate"]
queue_interval_s = 1e-7
flow_interval_s = 1e-6
"#
    )
}

/// (queue samples in bytes after `from_s`, the bottleneck's throughput / B after `from_s`)
fn settled(o: &RunOutput, from_s: f64) -> (Vec<f64>, f64) {
    let port = names(o, "ports")
        .iter()
        .position(|n| n == "sw->r0")
        .expect("bottleneck") as u32;
    let (Column::U32(qp), Column::U64(qb)) =
        (col(o, "queue", "port"), col(o, "queue", "queue_bytes"))
    else {
        panic!("queue columns")
    };
    let qt = f64s(o, "queue", "time_s");
    let q: Vec<f64> = (0..qt.len())
        .filter(|&i| qp[i] == port && qt[i] >= from_s)
        .map(|i| qb[i] as f64)
        .collect();
    let Column::U32(lp) = col(o, "link", "port") else {
        panic!("link.port")
    };
    let lt = f64s(o, "link", "time_s");
    let lb = u64s(o, "link", "tx_bytes");
    let rows: Vec<usize> = (0..lt.len())
        .filter(|&i| lp[i] == port && lt[i] >= from_s)
        .collect();
    let (a, z) = (rows[0], *rows.last().unwrap());
    let thr = (lb[z] - lb[a]) as f64 * 8.0 / (lt[z] - lt[a]) / B;
    (q, thr)
}

fn pct(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * p).round() as usize]
}

/// Base RTT T of the dumbbell: 8 us of propagation plus a 1000-B packet's and a 64-B ACK's
/// serialization on each of the two links each way.
fn bdp_bytes() -> f64 {
    let t = 8e-6 + 2.0 * (PKT * 8.0 / B) + 2.0 * (64.0 * 8.0 / B);
    B / 8.0 * t
}

#[test]
fn two_flows_keep_the_bottleneck_queue_near_zero_at_about_eta_times_line_rate() {
    let sc = ccscope_core::parse(&dumbbell(2, 0.004), ccscope_core::Format::Toml).unwrap();
    let mut sim = ccscope_core::Simulation::new(&sc, None).unwrap();
    sim.run();
    // the telemetry reached the sources: (almost) every ACK found its segment's whole list
    let st = sim
        .int_arena()
        .expect("HPCC flows turn telemetry on")
        .stats();
    eprintln!("{st:?}");
    assert!(
        st.echoes > 10_000 && st.overwrites == 0 && st.lost_stamps == 0,
        "{st:?}"
    );
    assert!(
        st.echo_missing + st.echo_incomplete <= st.echoes / 100,
        "{st:?}"
    );
    let o = sim.finish().expect("conservation");
    // settled after 1 ms (about 120 base RTTs)
    let (q, thr) = settled(&o, 0.001);
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    let p99 = pct(&q, 0.99);
    let bdp = bdp_bytes();
    eprintln!("N=2: mean queue {mean:.0} B, p99 {p99:.0} B, throughput {thr:.4} B, BDP {bdp:.0} B");
    assert!(mean <= PKT, "mean queue {mean} B");
    assert!(p99 <= 0.05 * bdp + 2.0 * PKT, "p99 queue {p99} B");
    assert!((0.90..=1.0).contains(&thr), "throughput {thr} x B");
}

#[test]
fn an_incast_of_eight_flows_converges() {
    let o = run(&dumbbell(8, 0.004));
    let (q, thr) = settled(&o, 0.002);
    let p99 = pct(&q, 0.99);
    let bdp = bdp_bytes();
    eprintln!("N=8: p99 queue {p99:.0} B, throughput {thr:.4} B, BDP {bdp:.0} B");
    assert!(p99 <= 0.15 * bdp + 8.0 * PKT, "p99 queue {p99} B");
    assert!((0.90..=1.0).contains(&thr), "throughput {thr} x B");
    // each flow's pacing rate, averaged over the settled period, near the fair share
    let Column::U32(fl) = col(&o, "rate", "flow") else {
        panic!("rate.flow")
    };
    let t = f64s(&o, "rate", "time_s");
    let r = f64s(&o, "rate", "rate_bps");
    for f in 0..8u32 {
        let v: Vec<f64> = (0..t.len())
            .filter(|&i| fl[i] == f && t[i] >= 0.002)
            .map(|i| r[i])
            .collect();
        let m = v.iter().sum::<f64>() / v.len() as f64;
        eprintln!("flow {f}: mean rate {:.2} Gb/s", m / 1e9);
        assert!((0.5..=1.5).contains(&(m / (B / 8.0))), "flow {f}: {m}");
    }
}

/// The same two flows without congestion control (`cc = "rdma"`, line rate) fill the buffer:
/// the near-empty queue above is HPCC's doing.
#[test]
fn without_hpcc_the_same_flows_fill_the_queue() {
    let o = run(&dumbbell(2, 0.004).replace("\"hpcc\"", "\"rdma\""));
    let (q, _) = settled(&o, 0.001);
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    assert!(mean > 10.0 * bdp_bytes(), "mean queue {mean} B");
}
