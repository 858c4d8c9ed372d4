//! The per-flow limit on a TCP sender's packets in its host port (`tcp.host_queue_pkts`, as
//! Linux's TCP Small Queues and htsim's Swift source, `sim::tsq`): with the limit a host's
//! flows interleave in its FIFO port (a short flow started last waits for N packets of each
//! other flow, not for their windows), the wait in the socket is not part of an RTT sample,
//! on the general path (fair-queued host ports) too; every flow completes, lossy runs too;
//! unset or 0 changes nothing; bad values name the field. `run` checks packet conservation.

use ccscope_core::units::{BitsPerSec, SimTime};

mod common;
use common::*;

fn short_flow_wait_frames(o: &ccscope_core::output::RunOutput) -> f64 {
    (f64s(o, "flows", "fct_s")[15] - o.ideal_fct_s[15]) / FRAME_S
}

fn all_complete(o: &ccscope_core::output::RunOutput) {
    let fcts = f64s(o, "flows", "fct_s");
    assert!(fcts.iter().all(|f| f.is_finite() && *f > 0.0), "{fcts:?}");
}

#[test]
fn with_three_packets_per_flow_a_short_flow_waits_three_packets_of_each_other_flow() {
    let unlimited = run(&one_host("", ""));
    let three = run(&one_host("", "host_queue_pkts = 3"));
    let one = run(&one_host("", "host_queue_pkts = 1"));
    let (w_unl, w3, w1) = (
        short_flow_wait_frames(&unlimited),
        short_flow_wait_frames(&three),
        short_flow_wait_frames(&one),
    );
    eprintln!("short flow's wait, frames: unlimited {w_unl:.1}, N = 3 {w3:.1}, N = 1 {w1:.1}");
    // unlimited: behind 15 windows of 15 packets
    assert!(w_unl > 200.0, "{w_unl}");
    // N = 3: behind 3 packets of each of the 15 others (45 frames), a frame of slack for the
    // ACK's way back
    assert!((44.0..=47.0).contains(&w3), "{w3}");
    assert!((14.0..=17.0).contains(&w1), "{w1}");
    for o in [&unlimited, &three, &one] {
        all_complete(o);
    }
}

#[test]
fn unset_and_zero_are_the_unlimited_port() {
    let a = run(&one_host("", ""));
    let b = run(&one_host("", "host_queue_pkts = 0"));
    assert_eq!(f64s(&a, "flows", "fct_s"), f64s(&b, "flows", "fct_s"));
    assert_eq!(
        u64s(&a, "flows", "segments_sent"),
        u64s(&b, "flows", "segments_sent")
    );
}

#[test]
fn fair_queued_host_ports_keep_the_limit() {
    // the general path: the port decides at dequeue; a packet's end is known when it starts
    let fq = "host_aqm = { kind = \"fq\" }";
    let three = run(&one_host(fq, "host_queue_pkts = 3"));
    let unl = run(&one_host(fq, ""));
    all_complete(&three);
    all_complete(&unl);
    // fair queueing alone already lets the short flow through after one packet of each
    assert!(short_flow_wait_frames(&three) <= 17.0);
    // the long flows finish no later than 1 % after the unlimited run's (the link stays busy)
    let last = |o: &ccscope_core::output::RunOutput| {
        f64s(o, "flows", "fct_s")
            .iter()
            .cloned()
            .fold(0.0, f64::max)
    };
    assert!(
        last(&three) <= last(&unl) * 1.01,
        "{} {}",
        last(&three),
        last(&unl)
    );
}

/// One flow of 400 segments from a 1 Gb/s host through a 10 Gb/s bottleneck (RTT 100 us), a
/// window above the limit (initial window 20): with N packets in the host port a packet enters
/// the port when one of the flow's leaves, behind N - 1 packets, one of them starting. With
/// N = 1 every RTT sample is the base RTT: propagation plus each hop's serialization of the
/// segment and of its ACK (the time the rest of the window waits in the socket is not in it).
fn single_flow(tcp_extra: &str) -> String {
    format!(
        r#"
seed = 1
until_s = 0.1
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
access_bps = 1e9
rtt_s = 100e-6
bottleneck_delay_s = 10e-6
buffer_pkts = 1000
[tcp]
iw_pkts = 20
{tcp_extra}
[flows]
count = 1
size_bytes = 600000
"#
    )
}

#[test]
fn rtt_samples_leave_out_the_wait_in_the_socket() {
    let base = SimTime(
        100_000_000
            + BitsPerSec(1_000_000_000).tx_time(1500).0
            + BitsPerSec(10_000_000_000).tx_time(1500).0
            + BitsPerSec(10_000_000_000).tx_time(40).0
            + BitsPerSec(1_000_000_000).tx_time(40).0,
    )
    .as_secs_f64();
    let frame_1g = BitsPerSec(1_000_000_000).tx_time(1500).as_secs_f64();
    let one = run(&single_flow("host_queue_pkts = 1"));
    let srtt1 = f64s(&one, "flows", "srtt_s")[0];
    assert!(
        (srtt1 - base).abs() < 1e-12,
        "N = 1: srtt {srtt1} against the base RTT {base}"
    );
    // N = 3: each packet (after the first round) waits for two frames at 1 Gb/s
    let three = run(&single_flow("host_queue_pkts = 3"));
    let srtt3 = f64s(&three, "flows", "srtt_s")[0];
    assert!(
        (srtt3 - (base + 2.0 * frame_1g)).abs() < 0.05 * frame_1g,
        "N = 3: srtt {srtt3}, want {}",
        base + 2.0 * frame_1g
    );
    // unlimited: the window waits in the port and is counted in the sample
    let unl = run(&single_flow(""));
    let srtt_unl = f64s(&unl, "flows", "srtt_s")[0];
    assert!(
        srtt_unl > base + 5.0 * frame_1g,
        "unlimited srtt {srtt_unl}"
    );
    // the same bytes in no more time: the 1 Gb/s link stays busy either way
    let fct = |o: &ccscope_core::output::RunOutput| f64s(o, "flows", "fct_s")[0];
    assert!(
        fct(&one) <= fct(&unl) * 1.001,
        "{} {}",
        fct(&one),
        fct(&unl)
    );
}

#[test]
fn a_lossy_run_with_retransmissions_and_timeouts_completes() {
    // 8 senders into a 20-packet bottleneck buffer, windows of 40: drops, fast retransmits
    // and timeouts; with the limit every flow still completes
    let text = |extra: &str| {
        format!(
            r#"
seed = 3
until_s = 2.0
[topology]
kind = "dumbbell"
senders = 8
bottleneck_bps = 1e9
access_bps = 10e9
rtt_s = 100e-6
buffer_pkts = 20
[tcp]
iw_pkts = 40
min_rto_s = 0.001
{extra}
[flows]
count = 8
size_bytes = 300000
"#
        )
    };
    let o = run(&text("host_queue_pkts = 2"));
    all_complete(&o);
    let retx: u64 = u64s(&o, "flows", "retransmits").iter().sum();
    let tos: u64 = u64s(&o, "flows", "timeouts").iter().sum();
    eprintln!("retransmits {retx}, timeouts {tos}");
    assert!(retx > 0 && tos > 0, "retransmits {retx}, timeouts {tos}");
}

#[test]
fn bad_values_name_the_field_the_value_and_what_is_allowed() {
    for v in ["-1", "2.5", "\"3\"", "4294967296"] {
        let e = error_of(&one_host("", &format!("host_queue_pkts = {v}")));
        eprintln!("{v}: {e}");
        assert_eq!(e.path, "tcp.host_queue_pkts", "{e}");
        assert!(e.to_string().contains(v.trim_matches('"')), "{e}");
    }
}
