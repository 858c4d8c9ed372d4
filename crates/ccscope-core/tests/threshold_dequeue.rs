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

/// A queue policy per class (`sched.class_aqm`): two DRR classes of two DCTCP flows each share
/// the bottleneck; class 0 marks at K = 20 (threshold), class 1 is drop-tail. Class 0's flows
/// see marks and never fill their buffer; class 1's see none and fill their 150 packets until
/// they drop. With `class_aqm = [threshold_dequeue, drop_tail]` class 0 marks at dequeue instead.
#[test]
fn each_class_runs_its_own_queue_policy() {
    let text = |first: &str| {
        let mut flows = String::new();
        for (i, c) in [0, 0, 1, 1].iter().enumerate() {
            flows += &format!(
                "[[flow]]\nsrc = \"s{i}\"\ndst = \"r0\"\ncc = \"dctcp\"\nclass = {c}\nstart_s = {}\n",
                i as f64 * 1e-4
            );
        }
        format!(
            r#"
seed = 1
until_s = 0.03
[topology]
kind = "dumbbell"
senders = 4
bottleneck_bps = 10e9
rtt_s = 100e-6
buffer_pkts = 300
[sched]
classes = 2
scheduler = "drr"
class_buffer_pkts = [150, 150]
class_aqm = [{{ kind = "{first}", k_pkts = {K} }}, {{ kind = "drop_tail" }}]
{flows}
[record]
traces = ["drops"]
"#
        )
    };
    for first in ["threshold", "threshold_dequeue"] {
        let o = run(&text(first));
        let cn = names(&o, "classes");
        let rows: Vec<usize> = (0..cn.len()).filter(|&i| cn[i] == "sw->r0").collect();
        assert_eq!(rows.len(), 2);
        let marks = u64s(&o, "classes", "marks");
        let drops = u64s(&o, "classes", "drops");
        let maxq = u64s(&o, "classes", "max_q_pkts");
        let tx = u64s(&o, "classes", "tx_bytes");
        let (a, b) = (rows[0], rows[1]);
        eprintln!(
            "{first}: class 0 marks {} drops {} maxq {} tx {}; class 1 marks {} drops {} maxq {} tx {}",
            marks[a], drops[a], maxq[a], tx[a], marks[b], drops[b], maxq[b], tx[b]
        );
        assert!(marks[a] > 100, "class 0 marks ({first})");
        assert_eq!(marks[b], 0, "class 1 is drop-tail");
        assert!(drops[b] > 0, "class 1 overflows the shared buffer");
        assert_eq!(drops[a], 0, "class 0's marks keep it below its buffer");
        assert!(maxq[a] < 100, "class 0's largest queue {}", maxq[a]);
        assert_eq!(maxq[b], 150, "class 1 fills its buffer");
        // DRR still shares the link about equally
        let share = tx[a] as f64 / (tx[a] + tx[b]) as f64;
        assert!((share - 0.5).abs() < 0.1, "share {share}");
    }
}

#[test]
fn class_policies_are_one_per_class_and_never_choke() {
    let base = dumbbell("threshold", r#"["drops"]"#).replace(
        "[flows]",
        "[sched]\nclasses = 2\nclass_aqm = CLASS_AQM\n[flows]",
    );
    for (aqm, field) in [
        ("[{ kind = \"drop_tail\" }]", "sched.class_aqm"),
        (
            "[{ kind = \"drop_tail\" }, { kind = \"choke\", min_th_pkts = 5, max_th_pkts = 15 }]",
            "sched.class_aqm[1].kind",
        ),
        (
            "[{ kind = \"threshold\", k_pkts = 900 }, { kind = \"drop_tail\" }]",
            "sched.class_aqm[0].k_pkts",
        ),
    ] {
        let e = parse(&base.replace("CLASS_AQM", aqm), Format::Toml).unwrap_err();
        assert_eq!(e.path, field, "{e}");
    }
}
