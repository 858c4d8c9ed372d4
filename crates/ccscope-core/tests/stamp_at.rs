//! When a TCP data packet is timestamped (`tcp.stamp_at`, `sim::stamp`): "send" (the default,
//! Linux) stamps it when the sender hands it to its host port, so the wait behind the host's
//! other packets is part of the RTT sample; "host_tx" (htsim's Swift host scheduler,
//! `BaseScheduler::beginService`) stamps it when the host port starts serializing it, so that
//! wait is left out. Checked on one host whose 10 Gb/s port holds the windows of four flows (the
//! only queue on the path): with "host_tx" every sample is the base RTT, on FIFO and
//! fair-queued host ports, with and without the host-queue limit, for NewReno and Swift; with
//! "send" the samples hold the host queue. The stamp changes what is measured, not what is
//! sent (NewReno's run is the same packet for packet); bad values name the field.

use ccscope_core::units::BitsPerSec;

mod common;
use common::*;

/// Four flows of 400 segments from one host (10 Gb/s) through a 100 Gb/s bottleneck (RTT 10
/// us, below Swift's target), initial window 20: the host port is the path's only queue.
fn one_host_four_flows(cc: &str, topology_extra: &str, tcp_extra: &str) -> String {
    format!(
        r#"
seed = 1
until_s = 0.1
[topology]
kind = "dumbbell"
senders = 1
bottleneck_bps = 100e9
access_bps = 10e9
rtt_s = 10e-6
bottleneck_delay_s = 1e-6
buffer_pkts = 1000
{topology_extra}
[tcp]
iw_pkts = 20
{tcp_extra}
[flows]
count = 4
size_bytes = 600000
cc = "{cc}"
"#
    )
}

/// Propagation plus each hop's serialization of a segment and of its ACK (40 bytes).
fn base_rtt_s() -> f64 {
    (10e-6 * 1e12
        + (BitsPerSec(10_000_000_000).tx_time(1500).0
            + BitsPerSec(100_000_000_000).tx_time(1500).0
            + BitsPerSec(100_000_000_000).tx_time(40).0
            + BitsPerSec(10_000_000_000).tx_time(40).0) as f64)
        * 1e-12
}

/// One frame at the host's 10 Gb/s.
fn frame_s() -> f64 {
    1500.0 * 8.0 / 10e9
}

fn all_complete(o: &ccscope_core::output::RunOutput) {
    let fcts = f64s(o, "flows", "fct_s");
    assert_eq!(fcts.len(), 4);
    assert!(fcts.iter().all(|f| f.is_finite() && *f > 0.0), "{fcts:?}");
}

#[test]
fn host_tx_samples_leave_out_the_host_queue_and_send_samples_hold_it() {
    let base = base_rtt_s();
    let fq = "host_aqm = { kind = \"fq\" }";
    for cc in ["new_reno", "swift"] {
        for host in ["", fq] {
            for limit in ["", "host_queue_pkts = 3"] {
                let case = format!("cc {cc}, host [{host}], [{limit}]");
                let tx = run(&one_host_four_flows(
                    cc,
                    host,
                    &format!("{limit}\nstamp_at = \"host_tx\""),
                ));
                let send = run(&one_host_four_flows(cc, host, limit));
                all_complete(&tx);
                all_complete(&send);
                eprintln!(
                    "{case}: srtt host_tx {:?}, send {:?}, base {base}",
                    f64s(&tx, "flows", "srtt_s"),
                    f64s(&send, "flows", "srtt_s")
                );
                // every sample is the base RTT: the smoothed RTT is exactly it
                for s in f64s(&tx, "flows", "srtt_s") {
                    assert!(
                        (s - base).abs() < 1e-12,
                        "{case}: host_tx srtt {s}, base {base}"
                    );
                }
                // stamped on entry, a sample holds the packets queued ahead in the host port:
                // at least two frames with the limit of 3, more without
                let ahead = if limit.is_empty() { 5.0 } else { 2.0 };
                for s in f64s(&send, "flows", "srtt_s") {
                    assert!(
                        *s > base + ahead * frame_s() - 1e-12,
                        "{case}: send srtt {s}, base {base}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_stamp_changes_what_is_measured_not_what_is_sent() {
    // NewReno without losses does not act on RTT samples (the timer never fires): the same
    // packets leave at the same times either way
    for host in ["", "host_aqm = { kind = \"fq\" }"] {
        let tx = run(&one_host_four_flows(
            "new_reno",
            host,
            "stamp_at = \"host_tx\"",
        ));
        let send = run(&one_host_four_flows("new_reno", host, ""));
        assert_eq!(f64s(&tx, "flows", "fct_s"), f64s(&send, "flows", "fct_s"));
        assert_eq!(
            u64s(&tx, "flows", "segments_sent"),
            u64s(&send, "flows", "segments_sent")
        );
        assert_eq!(u64s(&tx, "flows", "retransmits").iter().sum::<u64>(), 0);
    }
    // Swift acts on them: without the host wait in its samples its windows differ
    let tx = run(&one_host_four_flows("swift", "", "stamp_at = \"host_tx\""));
    let send = run(&one_host_four_flows("swift", "", ""));
    assert_ne!(f64s(&tx, "flows", "fct_s"), f64s(&send, "flows", "fct_s"));
}

#[test]
fn send_is_the_default() {
    let a = run(&one_host_four_flows("swift", "", ""));
    let b = run(&one_host_four_flows("swift", "", "stamp_at = \"send\""));
    assert_eq!(f64s(&a, "flows", "fct_s"), f64s(&b, "flows", "fct_s"));
    assert_eq!(f64s(&a, "flows", "srtt_s"), f64s(&b, "flows", "srtt_s"));
}

#[test]
fn bad_values_name_the_field_the_value_and_what_is_allowed() {
    for v in ["\"nic\"", "1", "true", "\"HOST_TX\""] {
        let e = error_of(&one_host_four_flows(
            "swift",
            "",
            &format!("stamp_at = {v}"),
        ));
        eprintln!("{v}: {e}");
        assert_eq!(e.path, "tcp.stamp_at", "{e}");
        let msg = e.to_string();
        assert!(msg.contains(v.trim_matches('"')), "{msg}");
        assert!(msg.contains("send") && msg.contains("host_tx"), "{msg}");
    }
}
