//! End-to-end behaviour of the engine on small scenarios: units, determinism, conservation
//! (every run here goes through `finish()`, which fails on a conservation violation), and the
//! regimes the papers describe for NewReno and DCTCP on a dumbbell.

use ccscope_core::output::{Column, RunOutput};
use ccscope_core::units::{BitsPerSec, SimTime};
use ccscope_core::{parse, Format, Simulation};

fn run(toml: &str) -> RunOutput {
    let sc = parse(toml, Format::Toml).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None).unwrap();
    sim.run();
    sim.finish().expect("packet conservation holds")
}

fn f64s<'a>(o: &'a RunOutput, table: &str, col: &str) -> &'a [f64] {
    match o.table(table).and_then(|t| t.column(col)) {
        Some(Column::F64(v)) => v,
        _ => panic!("no f64 column {table}.{col}"),
    }
}
fn u64s<'a>(o: &'a RunOutput, table: &str, col: &str) -> &'a [u64] {
    match o.table(table).and_then(|t| t.column(col)) {
        Some(Column::U64(v)) => v,
        _ => panic!("no u64 column {table}.{col}"),
    }
}
fn u32s<'a>(o: &'a RunOutput, table: &str, col: &str) -> &'a [u32] {
    match o.table(table).and_then(|t| t.column(col)) {
        Some(Column::U32(v)) => v,
        _ => panic!("no u32 column {table}.{col}"),
    }
}

/// Utilization of the recorded bottleneck between `from_s` and the end, from the link trace.
fn utilization_after(o: &RunOutput, from_s: f64, rate_bps: f64) -> f64 {
    let t = f64s(o, "link", "time_s");
    let b = u64s(o, "link", "tx_bytes");
    let i0 = t.iter().position(|&x| x >= from_s).unwrap();
    let i1 = t.len() - 1;
    (b[i1] - b[i0]) as f64 * 8.0 / (rate_bps * (t[i1] - t[i0]))
}

fn queue_after(o: &RunOutput, from_s: f64) -> Vec<f64> {
    let t = f64s(o, "queue", "time_s");
    let q = u32s(o, "queue", "queue_pkts");
    t.iter()
        .zip(q)
        .filter(|(t, _)| **t >= from_s)
        .map(|(_, q)| *q as f64)
        .collect()
}

fn percentile(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[((s.len() - 1) as f64 * p / 100.0).round() as usize]
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn dctcp(n: u32, until: f64, extra: &str) -> String {
    format!(
        r#"
seed = 1
until_s = {until}
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 100e-6
buffer_pkts = 1000
[aqm]
kind = "threshold"
k_pkts = 65
[flows]
count = {n}
cc = "dctcp"
start_jitter_s = 1e-3
[record]
traces = ["queue", "link", "cwnd", "alpha", "drops"]
queue_interval_s = 1e-6
flow_interval_s = 1e-5
{extra}
"#
    )
}

#[test]
fn single_packet_rtt_is_two_propagations_plus_serializations() {
    let o = run(r#"
until_s = 0.01
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
access_bps = 1e9
rtt_s = 100e-6
bottleneck_delay_s = 10e-6
[flows]
count = 1
size_bytes = 1500
"#);
    let srtt = f64s(&o, "flows", "srtt_s")[0];
    let d = BitsPerSec(1_000_000_000).tx_time(1500).0
        + BitsPerSec(10_000_000_000).tx_time(1500).0
        + BitsPerSec(10_000_000_000).tx_time(40).0
        + BitsPerSec(1_000_000_000).tx_time(40).0;
    let want = SimTime(100_000_000 + d).as_secs_f64();
    assert_eq!(
        srtt, want,
        "RTT = 100 us propagation + 12 + 1.2 + 0.032 + 0.32 us serialization"
    );
    assert_eq!(
        f64s(&o, "flows", "fct_s")[0],
        SimTime(
            50_000_000
                + BitsPerSec(1_000_000_000).tx_time(1500).0
                + BitsPerSec(10_000_000_000).tx_time(1500).0
        )
        .as_secs_f64()
    );
}

#[test]
fn same_seed_gives_identical_traces_and_another_seed_changes_a_randomized_run() {
    let a = run(&dctcp(4, 0.02, ""));
    let b = run(&dctcp(4, 0.02, ""));
    assert_eq!(
        u32s(&a, "queue", "queue_pkts"),
        u32s(&b, "queue", "queue_pkts")
    );
    assert_eq!(f64s(&a, "cwnd", "cwnd_pkts"), f64s(&b, "cwnd", "cwnd_pkts"));
    assert_eq!(a.events, b.events);
    let c = run(&dctcp(4, 0.02, "").replace("seed = 1", "seed = 2"));
    assert_ne!(
        u32s(&a, "queue", "queue_pkts"),
        u32s(&c, "queue", "queue_pkts")
    );
}

#[test]
fn new_reno_fills_a_droptail_link_drops_packets_and_shows_a_sawtooth() {
    let o = run(r#"
seed = 1
until_s = 2.0
[topology]
kind = "dumbbell"
bottleneck_bps = 1e9
rtt_s = 250e-6
buffer_pkts = 250
[flows]
count = 2
cc = "new_reno"
start_jitter_s = 1e-3
[record]
flow_interval_s = 1e-4
"#);
    // warm-up: the slow-start overshoot (initial ssthresh unbounded) ends in RTOs by ~0.65 s
    assert!(utilization_after(&o, 0.8, 1e9) >= 0.99);
    let drops = u64s(&o, "ports", "drops_overflow").iter().sum::<u64>();
    assert!(drops > 0, "DropTail must drop");
    // sawtooth: per flow, repeated halvings (cwnd falls to about half) after warm-up
    let t = f64s(&o, "cwnd", "time_s");
    let fl = u32s(&o, "cwnd", "flow");
    let w = f64s(&o, "cwnd", "cwnd_pkts");
    let mut total_cuts = 0;
    for f in 0..2u32 {
        let s: Vec<f64> = (0..t.len())
            .filter(|&i| fl[i] == f && t[i] > 0.8)
            .map(|i| w[i])
            .collect();
        let cuts = s.windows(2).filter(|p| p[1] < 0.7 * p[0]).count();
        total_cuts += cuts;
        assert!(cuts >= 2, "flow {f}: {cuts} halvings");
        let (lo, hi) = (percentile(&s, 5.0), percentile(&s, 95.0));
        assert!(
            hi > 1.5 * lo,
            "flow {f}: cwnd should sweep a sawtooth, got {lo}..{hi}"
        );
    }
    assert!(total_cuts >= 6, "{total_cuts} halvings in 1.6 s");
    assert!(u64s(&o, "flows", "fast_retransmits").iter().sum::<u64>() >= 6);
}

/// Fluid limit-cycle band of the queue (ALGORITHMS.md §2.5, Fig 2 case, recomputed):
/// N = 2: [51.5, 67.2] pkts; N = 10: [44.2, 76.5] pkts; means about 59 and 60 pkts.
#[test]
fn dctcp_two_and_ten_flows_oscillate_in_the_fluid_limit_cycle_band_without_drops() {
    for (n, lo, hi, fluid_mean) in [(2u32, 51.5, 67.2, 59.0), (10, 44.2, 76.5, 60.0)] {
        let o = run(&dctcp(n, 0.15, ""));
        assert!(utilization_after(&o, 0.05, 10e9) >= 0.99, "N = {n}");
        assert_eq!(
            u64s(&o, "ports", "drops_overflow").iter().sum::<u64>(),
            0,
            "N = {n}: no drops"
        );
        let q = queue_after(&o, 0.05);
        let m = mean(&q);
        assert!(
            (m - fluid_mean).abs() <= 5.0,
            "N = {n}: mean queue {m} vs fluid {fluid_mean}"
        );
        assert!(m < 65.0, "the mean sits below K");
        // the packet queue's 2nd-98th percentile band lies within the fluid band +- a few packets
        // (per-packet steps and ACK-clock bursts the fluid model averages out)
        let (p2, p98) = (percentile(&q, 2.0), percentile(&q, 98.0));
        assert!(
            p2 >= lo - 8.0 && p98 <= hi + 8.0,
            "N = {n}: [{p2}, {p98}] vs fluid [{lo}, {hi}]"
        );
        assert!(p98 - p2 >= 0.3 * (hi - lo), "N = {n}: the queue oscillates");
    }
}

/// N = 100 (wbar = (Cd + K)/N <= 2): the fixed point (W, alpha, q) = (2, 1, 2N - Cd)
/// (P000 §3.1; E2). With the ns-2 rule that ECN-Echo ACKs do not grow cwnd.
#[test]
fn dctcp_hundred_flows_sit_at_the_two_packet_floor_and_queue_2n_minus_cd() {
    let n = 100.0;
    let cd = 10e9 * 100e-6 / (1500.0 * 8.0);
    let o = run(&dctcp(100, 0.08, ""));
    let q = mean(&queue_after(&o, 0.04));
    assert!(
        (q - (2.0 * n - cd)).abs() <= 5.0,
        "queue {q} vs 2N - Cd = {}",
        2.0 * n - cd
    );
    let t = f64s(&o, "cwnd", "time_s");
    let w: Vec<f64> = f64s(&o, "cwnd", "cwnd_pkts")
        .iter()
        .zip(t)
        .filter(|(_, t)| **t > 0.04)
        .map(|(w, _)| *w)
        .collect();
    assert!((mean(&w) - 2.0).abs() <= 0.1);
    let ta = f64s(&o, "alpha", "time_s");
    let a: Vec<f64> = f64s(&o, "alpha", "alpha")
        .iter()
        .zip(ta)
        .filter(|(_, t)| **t > 0.04)
        .map(|(a, _)| *a)
        .collect();
    assert!(a.iter().all(|&x| x >= 0.95));
    // Without the rule (growth on every ACK) the windows grow between cuts: cwnd averages
    // clearly above the floor. (The queue moves little in ccscope: see docs/engine.md.)
    let o2 = run(&dctcp(100, 0.08, "[dctcp]\necn_echo_blocks_growth = false"));
    let t = f64s(&o2, "cwnd", "time_s");
    let w2: Vec<f64> = f64s(&o2, "cwnd", "cwnd_pkts")
        .iter()
        .zip(t)
        .filter(|(_, t)| **t > 0.04)
        .map(|(w, _)| *w)
        .collect();
    assert!(mean(&w2) > 2.3, "cwnd {} without the rule", mean(&w2));
    assert!(mean(&queue_after(&o2, 0.04)) >= q - 1.0);
}

/// P000 §5: the per-ACK rule (eq 36) brings the throughput ratio of short- and long-RTT
/// flows closer to 1 than plain DCTCP on the same dumbbell.
#[test]
fn per_ack_dctcp_is_fairer_across_rtts_than_plain_dctcp() {
    let ratio = |cc: &str| {
        let o = run(&format!(
            r#"
seed = 1
until_s = 0.6
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_per_sender_s = [100e-6, 100e-6, 800e-6, 800e-6]
[aqm]
kind = "threshold"
k_pkts = 35
[flows]
count = 4
cc = "{cc}"
start_jitter_s = 1e-3
[record]
traces = ["link"]
"#
        ));
        let d = u64s(&o, "flows", "delivered_bytes");
        (d[0] + d[1]) as f64 / (d[2] + d[3]) as f64
    };
    let plain = ratio("dctcp");
    let per_ack = ratio("dctcp_per_ack");
    assert!(
        per_ack < plain && per_ack > 1.0,
        "per-ACK {per_ack} vs plain {plain}"
    );
}

#[test]
fn red_marks_ecn_flows_and_keeps_the_average_between_thresholds() {
    let o = run(r#"
seed = 1
until_s = 0.5
[topology]
kind = "dumbbell"
bottleneck_bps = 1e9
rtt_s = 250e-6
buffer_pkts = 250
[aqm]
kind = "red"
min_th_pkts = 20
max_th_pkts = 60
[tcp]
ecn = true
[flows]
count = 4
cc = "new_reno"
"#);
    let marks = u64s(&o, "ports", "marks").iter().sum::<u64>();
    let drops = u64s(&o, "ports", "drops_overflow").iter().sum::<u64>()
        + u64s(&o, "ports", "drops_aqm").iter().sum::<u64>();
    assert!(
        marks > 20 * drops.max(1),
        "marks {marks}, drops {drops} (only slow-start overshoot may drop)"
    );
    let q = mean(&queue_after(&o, 0.1));
    assert!(q > 5.0 && q < 80.0, "queue {q}");
    assert!(utilization_after(&o, 0.1, 1e9) > 0.95);
}

const WORKLOAD_BASE: &str = r#"
seed = 1
until_s = 0.5
[topology]
kind = "dumbbell"
senders = 8
bottleneck_bps = 1e9
rtt_s = 100e-6
buffer_pkts = 100
[aqm]
kind = "threshold"
k_pkts = 20
[tcp]
min_rto_s = 0.01
"#;

#[test]
fn incast_rounds_start_together_and_end_when_the_last_response_arrives() {
    let o = run(&format!(
        "{WORKLOAD_BASE}\n[[workload]]\nkind = \"incast\"\nclient = \"r0\"\nservers = [\"s0\", \"s1\", \"s2\", \"s3\", \"s4\", \"s5\", \"s6\", \"s7\"]\ntotal_bytes = 800000\nrounds = 4\ncc = [\"dctcp\"]\n"
    ));
    let start = f64s(&o, "rounds", "start_s");
    let end = f64s(&o, "rounds", "end_s");
    assert_eq!(start.len(), 4);
    // rounds follow each other without a gap, each at least the transfer time of 800 KB at 1 Gb/s
    for i in 0..4 {
        assert!(end[i] - start[i] >= 800_000.0 * 8.0 / 1e9);
        if i > 0 {
            assert_eq!(start[i], end[i - 1]);
        }
    }
    let fct = f64s(&o, "flows", "fct_s");
    assert_eq!(fct.len(), 32);
    assert!(fct.iter().all(|x| x.is_finite()));
    assert!(u64s(&o, "flows", "delivered_bytes")
        .iter()
        .all(|&b| b == 100_000));
}

#[test]
fn poisson_arrivals_match_the_offered_load() {
    let o = run(&format!(
        "{WORKLOAD_BASE}\n[[workload]]\nkind = \"poisson\"\nsrc = [\"s0\", \"s1\", \"s2\", \"s3\"]\ndst = [\"r0\"]\nload = 0.3\nreference_bps = 1e9\nsize = {{ kind = \"uniform\", min_bytes = 10000, max_bytes = 50000 }}\n"
    ));
    // expected arrivals: 0.3 * 1e9 / (8 * 30000) * 0.5 s = 625; Poisson sd = 25
    let n = f64s(&o, "flows", "fct_s").len() as f64;
    assert!((n - 625.0).abs() < 4.0 * 25.0, "{n} arrivals");
    let delivered: u64 = u64s(&o, "flows", "delivered_bytes").iter().sum();
    let load = delivered as f64 * 8.0 / (1e9 * 0.5);
    assert!((load - 0.3).abs() < 0.05, "carried load {load}");
}

#[test]
fn a_stopped_flow_finishes_what_it_sent_and_leaves_the_link_to_the_others() {
    let o = run(r#"
seed = 1
until_s = 0.3
[topology]
kind = "dumbbell"
senders = 2
bottleneck_bps = 1e9
rtt_s = 100e-6
[aqm]
kind = "threshold"
k_pkts = 20
[[flow]]
src = "s0"
dst = "r0"
cc = "dctcp"
stop_s = 0.1
[[flow]]
src = "s1"
dst = "r0"
cc = "dctcp"
"#);
    let fct = f64s(&o, "flows", "fct_s");
    assert!(
        fct[0] > 0.1 && fct[0] < 0.11,
        "flow 0 ends right after it stops: {}",
        fct[0]
    );
    assert!(fct[1].is_nan());
    assert!(
        utilization_after(&o, 0.15, 1e9) > 0.99,
        "flow 1 takes the whole link"
    );
}

fn choke_run(ecn: bool, samples: u32) -> RunOutput {
    run(&format!(
        r#"
seed = 3
until_s = 0.6
[topology]
kind = "dumbbell"
senders = 2
bottleneck_bps = 1e9
access_bps = 10e9
rtt_s = 250e-6
buffer_pkts = 250
[aqm]
kind = "choke"
min_th_pkts = 20
max_th_pkts = 60
samples = {samples}
[tcp]
ecn = {ecn}
min_rto_s = 0.01
[[flow]]
src = "s0"
dst = "r0"
cc = "new_reno"
[[flow]]
src = "s1"
dst = "r0"
cc = "new_reno"
"#
    ))
}

#[test]
fn choke_removes_queued_victims_without_breaking_conservation_or_the_link() {
    // non-ECT: a match drops the arrival and its victims from the middle of the queue
    let o = choke_run(false, 1);
    let aqm_drops: u64 = u64s(&o, "ports", "drops_aqm").iter().sum();
    assert!(aqm_drops > 100, "{aqm_drops} AQM drops");
    // with two flows each owns about half the queue, so about half the arrivals above min_th
    // match and cost two packets: CHOKe is harsh here (timeouts), but the link stays busy
    assert!(utilization_after(&o, 0.2, 1e9) > 0.7);
    // ECT: matches are marked instead, nothing is removed
    let o = choke_run(true, 1);
    assert!(u64s(&o, "ports", "marks").iter().sum::<u64>() > 100);
    assert_eq!(u64s(&o, "ports", "drops_aqm").iter().sum::<u64>(), 0);
}

/// 802.1Qau: rate-based sources under a QCN or ASM congestion point receive feedback over the
/// reverse path, slow down from line rate, and hold a short queue near the set point.
#[test]
fn qcn_and_asm_sources_react_to_congestion_point_feedback() {
    for kind in ["qcn", "asm"] {
        let o = run(&format!(
            r#"
seed = 1
until_s = 0.2
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 20e-6
buffer_pkts = 2000
[aqm]
kind = "{kind}"
[flows]
count = 10
cc = "{kind}"
[record]
traces = ["queue", "link", "rate"]
flow_interval_s = 1e-4
"#
        ));
        let r = f64s(&o, "rate", "rate_bps");
        let t = f64s(&o, "rate", "time_s");
        // all ten start at line rate; after the start-up transient (recovery from the first
        // deep cuts takes ~0.1 s of byte-counter cycles) the sources share the link
        let late: Vec<f64> = r
            .iter()
            .zip(t)
            .filter(|(_, t)| **t > 0.12)
            .map(|(r, _)| *r)
            .collect();
        assert!(
            (mean(&late) * 10.0 / 10e9 - 1.0).abs() < 0.05,
            "{kind}: aggregate rate {}",
            mean(&late) * 10.0
        );
        let q = mean(&queue_after(&o, 0.12));
        // set points: QCN Qeq = 26 KB = 17.3 packets; ASM q0 = 5 packets
        let set_point = if kind == "qcn" {
            26_000.0 / 1500.0
        } else {
            5.0
        };
        assert!(
            (q - set_point).abs() < 8.0,
            "{kind}: mean queue {q} vs set point {set_point}"
        );
        assert!(utilization_after(&o, 0.12, 10e9) > 0.97, "{kind}");
    }
}

/// Leaf-spine with per-flow ECMP: 64 flows from leaf 0 to leaf 1 spread over the 4 uplinks
/// (binomial spread: no uplink above 40 % of the bytes), and the run is deterministic.
#[test]
fn leaf_spine_ecmp_spreads_flows_over_the_spines() {
    let mut flows = String::new();
    for k in 0..64 {
        flows += &format!(
            "[[flow]]\nsrc = \"h{}\"\ndst = \"h{}\"\ncc = \"dctcp\"\nsize_bytes = 200000\n",
            k % 16,
            16 + (k * 7) % 16
        );
    }
    let text = format!(
        "seed = 5\nuntil_s = 0.05\n[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 4\nhosts_per_leaf = 16\nhost_bps = 10e9\nfabric_bps = 40e9\nlink_delay_s = 1e-6\n[aqm]\nkind = \"threshold\"\nk_pkts = 65\n[record]\ntraces = [\"link\"]\n{flows}"
    );
    let o = run(&text);
    let names = match o.table("ports").unwrap().column("name") {
        Some(Column::Str(v)) => v.clone(),
        _ => panic!(),
    };
    let tx = u64s(&o, "ports", "tx_bytes");
    let up: Vec<u64> = (0..4)
        .map(|j| {
            names
                .iter()
                .position(|n| *n == format!("leaf0->spine{j}"))
                .map(|i| tx[i])
                .unwrap()
        })
        .collect();
    let total: u64 = up.iter().sum();
    assert!(
        total > 64 * 200_000 * 9 / 10,
        "the transfers cross the fabric: {total}"
    );
    assert!(
        up.iter().all(|&b| (b as f64) < 0.4 * total as f64),
        "uplink bytes {up:?}"
    );
    assert!(f64s(&o, "flows", "fct_s").iter().all(|x| x.is_finite()));
    let again = run(&text);
    assert_eq!(u64s(&again, "ports", "tx_bytes"), tx);
}

/// CHOKe (P003 ref [8]): an unresponsive constant-rate flow sharing with TCP gets a smaller
/// share than under DropTail, because its packets dominate the queue and are matched.
#[test]
fn choke_cuts_the_share_of_an_unresponsive_flow() {
    let share = |aqm: &str| {
        let o = run(&format!(
            r#"
seed = 1
until_s = 0.6
[topology]
kind = "dumbbell"
senders = 3
bottleneck_bps = 1e9
access_bps = 10e9
rtt_s = 250e-6
buffer_pkts = 250
[aqm]
{aqm}
[tcp]
min_rto_s = 0.01
[[flow]]
src = "s0"
dst = "r0"
cc = "cbr"
rate_bps = 8e8
[[flow]]
src = "s1"
dst = "r0"
[[flow]]
src = "s2"
dst = "r0"
"#
        ));
        let d = u64s(&o, "flows", "received_bytes");
        d[0] as f64 / d.iter().sum::<u64>() as f64
    };
    let drop_tail = share("kind = \"drop_tail\"");
    let choke = share("kind = \"choke\"\nmin_th_pkts = 20\nmax_th_pkts = 60");
    assert!(
        drop_tail > 0.7,
        "under DropTail the CBR flow takes its 0.8 Gb/s: {drop_tail}"
    );
    assert!(
        choke < drop_tail - 0.05,
        "CHOKe {choke} vs DropTail {drop_tail}"
    );
}

fn dx_run(n: u32) -> RunOutput {
    dx_run_with(n, "")
}

fn dx_run_with(n: u32, dx: &str) -> RunOutput {
    run(&format!(
        r#"
seed = 1
until_s = 0.3
{dx}
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 80e-6
buffer_bytes = 256000
[tcp]
min_rto_s = 0.01
[flows]
count = {n}
cc = "dx"
start_jitter_s = 1e-3
[record]
traces = ["queue", "link", "cwnd"]
"#
    ))
}

fn dx_windows_after(o: &RunOutput, t0: f64) -> Vec<f64> {
    let t = f64s(o, "cwnd", "time_s");
    f64s(o, "cwnd", "cwnd_pkts")
        .iter()
        .zip(t)
        .filter(|(_, t)| **t > t0)
        .map(|(w, _)| *w)
        .collect()
}

/// DX (P004 Theorem 2) with R0 known exactly (`base_rtt_from_path`, as the model assumes):
/// the special state needs N >= C R0 / seg. The no-queue RTT here is 80 us plus 2 x 1.2 us
/// (data) plus 2 x 0.0512 us (64-B ACKs) = 82.5 us, so C R0 / seg = 68.75: at N = 80 and 100
/// every window sits at one segment, the link is full and the queue is N - 68.75 packets.
#[test]
fn dx_with_exact_base_rtt_sits_in_the_special_state_at_80_and_100_flows() {
    let cr0 = 10e9 * 82.5024e-6 / (1500.0 * 8.0);
    for n in [80u32, 100] {
        let o = dx_run_with(n, "[dx]\nbase_rtt_from_path = true");
        let w = dx_windows_after(&o, 0.15);
        let at_one = w.iter().filter(|&&x| x < 1.01).count() as f64 / w.len() as f64;
        assert!(
            at_one > 0.99,
            "N = {n}: {at_one} of window samples at one segment"
        );
        let q = mean(&queue_after(&o, 0.15));
        assert!(
            (q - (n as f64 - cr0)).abs() < 2.0,
            "N = {n}: queue {q} vs N - C R0/seg = {}",
            n as f64 - cr0
        );
        assert!(utilization_after(&o, 0.15, 10e9) > 0.99);
    }
    // N = 50 < 68.75: not in the special state
    let w = dx_windows_after(&dx_run_with(50, "[dx]\nbase_rtt_from_path = true"), 0.15);
    assert!(mean(&w) > 1.5, "N = 50: mean window {}", mean(&w));
}

/// DX with R0 = the minimum RTT measured (default): N = 100 reaches the special state (windows
/// at one segment, queue about N - C R0/seg); N = 50 does not. Near the threshold (N = 80) flows
/// that start into a standing queue overestimate R0, see the queue's minimum as "empty" and
/// keep probing, so the state is not reached: logged, not asserted (see docs/engine.md).
#[test]
fn dx_reaches_the_special_state_only_above_c_r0_over_seg() {
    let o = dx_run(80);
    let w = dx_windows_after(&o, 0.15);
    eprintln!(
        "DX N = 80, measured R0: mean window {:.3}, queue {:.1} pkts",
        mean(&w),
        mean(&queue_after(&o, 0.15))
    );
    let cr0 = 10e9 * 80e-6 / (1500.0 * 8.0);
    let o = dx_run(100);
    let w = dx_windows_after(&o, 0.15);
    let at_one = w.iter().filter(|&&x| x < 1.01).count() as f64 / w.len() as f64;
    assert!(
        at_one > 0.9,
        "N = 100: {at_one} of window samples at one segment"
    );
    let q = mean(&queue_after(&o, 0.15));
    // + a few packets: RTT includes two serializations per direction beyond R0
    assert!(
        (q - (100.0 - cr0)).abs() < 8.0,
        "N = 100: queue {q} vs N - C R0/seg = {}",
        100.0 - cr0
    );
    assert!(utilization_after(&o, 0.15, 10e9) > 0.99);
    let w = dx_windows_after(&dx_run(50), 0.15);
    assert!(
        mean(&w) > 1.5,
        "N = 50 is not in the special state: mean window {}",
        mean(&w)
    );
}

fn coexistence_ratio(aqm: &str, until: f64) -> f64 {
    let o = run(&format!(
        r#"
seed = 1
until_s = {until}
[topology]
kind = "dumbbell"
senders = 2
bottleneck_bps = 1e9
access_bps = 10e9
rtt_s = 250e-6
buffer_pkts = 250
[aqm]
{aqm}
[tcp]
ecn = true
[[flow]]
src = "s0"
dst = "r0"
cc = "new_reno"
start_s = 0.0005
[[flow]]
src = "s1"
dst = "r0"
cc = "dctcp"
[record]
traces = ["link"]
"#
    ));
    let d = u64s(&o, "flows", "received_bytes");
    d[1] as f64 / d[0] as f64
}

/// P003 §IV: under DropTail both protocols react only to loss and share equally; under DCTCP
/// threshold marking DCTCP takes several times TCP's share (Fig 3(c): T_r ~ 6 at K = 20).
#[test]
fn dctcp_and_newreno_share_equally_under_droptail_but_not_under_threshold_marking() {
    let drop_tail = coexistence_ratio("kind = \"drop_tail\"", 10.0);
    assert!(
        (0.8..=1.25).contains(&drop_tail),
        "DropTail T_r = {drop_tail}"
    );
    let k20 = coexistence_ratio("kind = \"threshold\"\nk_pkts = 20", 2.0);
    assert!((4.8..=7.9).contains(&k20), "threshold K = 20: T_r = {k20}");
    let k150 = coexistence_ratio("kind = \"threshold\"\nk_pkts = 150", 2.0);
    assert!(k150 > k20, "T_r rises with K: {k20} -> {k150}");
}

/// Incast: with a 64-packet buffer, 1 MB split over 4 senders completes near the transfer
/// time; over 48 senders the synchronized first windows overflow the buffer, flows time out
/// and the query completion time grows several-fold.
#[test]
fn incast_completion_time_grows_with_senders_once_the_buffer_overflows() {
    let qct = |n: usize| {
        let servers: Vec<String> = (0..n).map(|i| format!("\"s{i}\"")).collect();
        let o = run(&format!(
            "seed = 1\nuntil_s = 1.0\n[topology]\nkind = \"dumbbell\"\nsenders = {n}\nbottleneck_bps = 1e9\nrtt_s = 100e-6\nbuffer_pkts = 64\n[tcp]\nmin_rto_s = 0.01\n[record]\ntraces = [\"link\"]\n[[workload]]\nkind = \"incast\"\nclient = \"r0\"\nservers = [{}]\ntotal_bytes = 1000000\nrounds = 5\n",
            servers.join(", ")
        ));
        let c = f64s(&o, "rounds", "completion_s");
        assert_eq!(c.len(), 5);
        (mean(c), u64s(&o, "flows", "timeouts").iter().sum::<u64>())
    };
    let (few, to_few) = qct(4);
    let (many, to_many) = qct(48);
    assert!(
        few < 0.012 && to_few == 0,
        "4 senders: {few} s, {to_few} timeouts"
    );
    assert!(
        many > 2.0 * few && to_many > 0,
        "48 senders: {many} s, {to_many} timeouts"
    );
}

/// One-hop lookahead (`Simulation::settle`, `build::sole_feeders`): a port fed by one port only
/// takes its arrivals ahead of time. Asking for the drop/mark trace turns it off, so the same
/// scenario with and without that trace must agree on every other table bit for bit, while
/// the lookahead run needs fewer events. Covered: DCTCP marking, NewReno with overflow drops
/// at a small buffer and RED at the bottleneck, each with several flows on the reverse path.
#[test]
fn lookahead_changes_no_result_only_the_event_count() {
    let cases = [
        dctcp(4, 0.03, ""),
        reno_1g(3, 3, 30, ""),
        reno_1g(
            5,
            4,
            200,
            "[aqm]\nkind = \"red\"\nmin_th_pkts = 10\nmax_th_pkts = 40\nmax_p = 0.1\nw_q = 0.002\n\
             [tcp]\necn = true\n",
        ),
    ];
    for (i, with_drops) in cases.iter().enumerate() {
        let without = with_drops.replace(", \"drops\"]", "]");
        assert_ne!(
            &without, with_drops,
            "case {i}: the drops trace is listed last"
        );
        let off = run(with_drops);
        let on = run(&without);
        assert!(
            on.events < off.events,
            "case {i}: lookahead saves events ({} vs {})",
            on.events,
            off.events
        );
        for t in &on.tables {
            let other = off
                .table(t.name)
                .unwrap_or_else(|| panic!("case {i}: table {}", t.name));
            assert_eq!(
                format!("{:?}", t.columns),
                format!("{:?}", other.columns),
                "case {i}: table {} differs with lookahead",
                t.name
            );
        }
    }
}

/// NewReno flows on a 1 Gb/s, 250 us dumbbell with every trace (drops last), plus `extra` tables.
fn reno_1g(seed: u32, flows: u32, buffer_pkts: u32, extra: &str) -> String {
    format!(
        r#"
seed = {seed}
until_s = 0.05
[topology]
kind = "dumbbell"
bottleneck_bps = 1e9
rtt_s = 250e-6
buffer_pkts = {buffer_pkts}
{extra}[flows]
count = {flows}
cc = "new_reno"
start_jitter_s = 1e-3
[record]
traces = ["queue", "link", "cwnd", "delivered", "drops"]
queue_interval_s = 1e-5
flow_interval_s = 1e-4
"#
    )
}

/// A run in pieces equals the run in one go when the lookahead's feeder link is long: with
/// 40 us between the receiver and the switch and 53-us pieces, ACKs are often still on that
/// link at the end of a piece (scheduled as events), and the next ones for the same port must
/// wait for them (`ahead_pending`), else the port would see its arrivals out of order.
#[test]
fn lookahead_in_run_until_pieces_keeps_arrival_order() {
    let toml = dctcp(3, 0.004, "").replace(
        "rtt_s = 100e-6",
        "rtt_s = 100e-6\nbottleneck_delay_s = 40e-6",
    );
    let toml = toml.replace(", \"drops\"]", "]");
    let whole = run(&toml);
    let sc = parse(&toml, Format::Toml).unwrap();
    let mut sim = Simulation::new(&sc, None).unwrap();
    let end = sim.end();
    let mut t = SimTime::ZERO;
    while t < end {
        t = SimTime((t.0 + 53_000_000).min(end.0));
        sim.run_until(t);
    }
    let pieces = sim.finish().expect("packet conservation holds");
    assert!(pieces.events > whole.events, "pieces take fewer hops ahead");
    for tb in &whole.tables {
        let other = pieces.table(tb.name).unwrap();
        assert_eq!(
            format!("{:?}", tb.columns),
            format!("{:?}", other.columns),
            "table {} differs when run in pieces",
            tb.name
        );
    }
}

/// A chain of ports each fed by the one before (a line of switches, both directions): a port
/// fed ahead of time sends its packets on as events, and the next port in the chain must count
/// those as pending too, so a run in pieces still equals the run in one go.
#[test]
fn lookahead_along_a_chain_of_single_feeders_keeps_arrival_order() {
    let mut links = String::new();
    for (a, b, rate) in [
        ("h0", "sw1", "10e9"),
        ("sw1", "sw2", "10e9"),
        ("sw2", "sw3", "10e9"),
        ("sw3", "h1", "1e9"),
    ] {
        for (x, y) in [(a, b), (b, a)] {
            links += &format!(
                "[[topology.links]]\nfrom = \"{x}\"\nto = \"{y}\"\nrate_bps = {rate}\n\
                 delay_s = 20e-6\nbuffer_pkts = 40\nduplex = false\n"
            );
        }
    }
    let toml = format!(
        r#"
seed = 2
until_s = 0.01
[topology]
kind = "graph"
[[topology.nodes]]
name = "h0"
kind = "host"
[[topology.nodes]]
name = "sw1"
kind = "switch"
[[topology.nodes]]
name = "sw2"
kind = "switch"
[[topology.nodes]]
name = "sw3"
kind = "switch"
[[topology.nodes]]
name = "h1"
kind = "host"
{links}
[[flow]]
src = "h0"
dst = "h1"
cc = "new_reno"
[[flow]]
src = "h0"
dst = "h1"
cc = "new_reno"
start_s = 0.001
[record]
traces = ["queue", "link", "cwnd"]
ports = ["sw3->h1"]
"#
    );
    let whole = run(&toml);
    let sc = parse(&toml, Format::Toml).unwrap();
    let mut sim = Simulation::new(&sc, None).unwrap();
    let end = sim.end();
    let mut t = SimTime::ZERO;
    while t < end {
        t = SimTime((t.0 + 53_000_000).min(end.0));
        sim.run_until(t);
    }
    let pieces = sim.finish().expect("packet conservation holds");
    assert!(pieces.events > whole.events, "pieces take fewer hops ahead");
    for tb in &whole.tables {
        let other = pieces.table(tb.name).unwrap();
        assert_eq!(
            format!("{:?}", tb.columns),
            format!("{:?}", other.columns),
            "table {} differs when run in pieces",
            tb.name
        );
    }
}
