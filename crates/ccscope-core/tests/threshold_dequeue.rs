//! Dequeue-time threshold marking (`aqm.kind = "threshold_dequeue"`, `aqm/threshold_dequeue.rs`)
//! on packet runs: DCTCP keeps the queue near K with it, every mark is set when the queue the
//! packet leaves behind is above K, and bad values name the field.

use ccscope_core::output::{Column, RunOutput};
use ccscope_core::{parse, Format};

mod common;
use common::*;

const K: u32 = 20;

fn dumbbell(kind: &str, traces: &str) -> String {
    format!(
        r#"
seed = 1
until_s = 0.05
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 100e-6
buffer_pkts = 400
[aqm]
kind = "{kind}"
k_pkts = {K}
[flows]
count = 4
cc = "dctcp"
start_jitter_s = 1e-4
[record]
traces = {traces}
queue_every_change = true
"#
    )
}

fn u32s<'a>(o: &'a RunOutput, table: &str, c: &str) -> &'a [u32] {
    match col(o, table, c) {
        Column::U32(v) => v,
        _ => panic!("{table}.{c} is not u32"),
    }
}

#[test]
fn dctcp_holds_the_queue_near_k_and_every_mark_leaves_more_than_k_behind() {
    let o = run(&dumbbell("threshold_dequeue", r#"["queue", "drops"]"#));
    let ports = names(&o, "ports");
    let b = ports
        .iter()
        .position(|n| n == "sw->r0")
        .expect("bottleneck");
    let mean = f64s(&o, "ports", "mean_queue_pkts")[b];
    let marks = u64s(&o, "ports", "marks")[b];
    let drops = u64s(&o, "ports", "drops_overflow")[b];
    eprintln!("dequeue marking: mean queue {mean:.1} pkts, {marks} marks, {drops} drops");
    assert!(marks > 100 && drops == 0, "{marks} marks, {drops} drops");
    assert!(
        mean > 0.5 * K as f64 && mean < 2.0 * K as f64,
        "mean queue {mean}"
    );
    // each mark: the queue at that instant (after the departure, before or after arrivals of
    // the same instant) holds more than K packets
    let (qt, qp, qport) = (
        f64s(&o, "queue", "time_s"),
        u32s(&o, "queue", "queue_pkts"),
        u32s(&o, "queue", "port"),
    );
    let (mt, mport, ev) = (
        f64s(&o, "drops", "time_s"),
        u32s(&o, "drops", "port"),
        match col(&o, "drops", "event") {
            Column::U8(v) => v.as_slice(),
            _ => panic!("event"),
        },
    );
    let mut checked = 0;
    for i in 0..mt.len() {
        if ev[i] != 2 || mport[i] as usize != b {
            continue;
        }
        let at: Vec<u32> = (0..qt.len())
            .filter(|&j| qport[j] as usize == b && qt[j] == mt[i])
            .map(|j| qp[j])
            .collect();
        assert!(
            at.iter().any(|&q| q > K),
            "mark at {} with the queue {at:?}",
            mt[i]
        );
        checked += 1;
    }
    assert_eq!(checked as u64, marks);
    // enqueue-time marking on the same run, for the record
    let e = run(&dumbbell("threshold", r#"["drops"]"#));
    let mean_e = f64s(&e, "ports", "mean_queue_pkts")[b];
    eprintln!("enqueue marking: mean queue {mean_e:.1} pkts");
}

#[test]
fn bad_values_name_the_field() {
    for (body, field) in [
        ("kind = \"threshold_dequeue\"", "aqm.k_pkts"),
        (
            "kind = \"threshold_dequeue\"\nk_pkts = 5\nk_bytes = 9000",
            "aqm.k_bytes",
        ),
        ("kind = \"threshold_dequeue\"\nk_pkts = 500", "aqm.k_pkts"),
    ] {
        let t = dumbbell("threshold_dequeue", r#"["drops"]"#)
            .replace(&format!("kind = \"threshold_dequeue\"\nk_pkts = {K}"), body);
        let e = parse(&t, Format::Toml).unwrap_err();
        assert_eq!(e.path, field, "{e}");
    }
}
