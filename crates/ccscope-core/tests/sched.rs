//! The general path of a port (traffic classes and a scheduler deciding at dequeue, `[sched]`,
//! docs/engine.md): its results against the committed FIFO where the two must agree, and the
//! published rules of strict priority and deficit round robin on small runs. Every run goes
//! through `finish()`, which fails on a conservation violation (packets waiting in class queues
//! count as in flight).

use ccscope_core::output::{Column, RunOutput};
use ccscope_core::{parse, Format};

mod common;
use common::*;

fn dctcp(extra: &str) -> String {
    format!(
        r#"
seed = 3
until_s = 0.03
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 100e-6
buffer_pkts = 200
[aqm]
kind = "threshold"
k_pkts = 65
[flows]
count = 4
cc = "dctcp"
start_jitter_s = 1e-3
[record]
traces = ["queue", "link", "cwnd", "drops"]
queue_interval_s = 1e-6
flow_interval_s = 1e-5
{extra}
"#
    )
}

/// One class on the general path is the same FIFO as the committed one: the same packets leave
/// at the same times, so every per-flow count and the queue trace agree.
#[test]
fn one_class_on_the_general_path_gives_the_committed_fifo_results() {
    let fifo = run(&dctcp(""));
    let general = run(&dctcp("[sched]\npath = \"general\""));
    for c in [
        "delivered_bytes",
        "segments_sent",
        "ecn_reductions",
        "retransmits",
    ] {
        assert_eq!(u64s(&fifo, "flows", c), u64s(&general, "flows", c), "{c}");
    }
    assert_eq!(
        f64s(&fifo, "queue", "time_s").len(),
        f64s(&general, "queue", "time_s").len()
    );
    match (
        col(&fifo, "queue", "queue_pkts"),
        col(&general, "queue", "queue_pkts"),
    ) {
        (Column::U32(a), Column::U32(b)) => assert_eq!(a, b, "queue trace"),
        _ => panic!("queue_pkts is u32"),
    }
    assert!(general.table("classes").is_some() && fifo.table("classes").is_none());
    // the general path costs one more event per packet at the port
    assert!(general.events > fifo.events);
}

/// Two hosts h0, h1 on 10 Gb/s links into a switch `sw` whose port to host `r` runs at 1 Gb/s
/// with `buffer` frames (1-us links).
fn two_hosts_into_one_port(buffer: u32) -> String {
    r#"[topology]
kind = "graph"
[[topology.nodes]]
name = "h0"
kind = "host"
[[topology.nodes]]
name = "h1"
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
from = "h1"
to = "sw"
rate_bps = 10e9
delay_s = 1e-6
duplex = true
[[topology.links]]
from = "sw"
to = "r"
rate_bps = 1e9
delay_s = 1e-6
buffer_pkts = BUFFER
duplex = true
"#
    .replace("BUFFER", &buffer.to_string())
}

/// Rows of classes 0 and 1 of the port sw->r in the classes table.
fn bottleneck_classes(o: &RunOutput) -> (usize, usize) {
    let Column::Str(names) = col(o, "classes", "name") else {
        panic!("classes.name is text")
    };
    let Column::U32(class) = col(o, "classes", "class") else {
        panic!("classes.class is u32")
    };
    let row = |c: u32| {
        (0..names.len())
            .find(|&i| names[i] == "sw->r" && class[i] == c)
            .expect("sw->r row")
    };
    (row(0), row(1))
}

/// Two hosts into one 1 Gb/s port: `low` saturates it (2 Gb/s of constant-rate class-1 frames),
/// `high` sends 100 class-0 frames at 100 Mb/s.
fn two_classes(sched: &str, high_class: u8) -> RunOutput {
    let topo = two_hosts_into_one_port(100);
    run(&format!(
        r#"
seed = 1
until_s = 0.02
packet_bytes = 1500
{topo}
[sched]
{sched}
[[flow]]
src = "h0"
dst = "r"
cc = "cbr"
rate_bps = 2e9
class = 1
[[flow]]
src = "h1"
dst = "r"
cc = "cbr"
rate_bps = 1e8
size_bytes = 150000
start_s = 0.005
class = {high_class}
"#
    ))
}

/// Strict priority (802.1Q; ns-3 PrioQueueDisc): a class-0 frame waits at most for the frame
/// on the wire, one maximum-size transmission (12 us at 1 Gb/s), however full class 1 is. The
/// high flow's last frame leaves its host at 5 ms + 99 x 120 us; its completion is bounded by
/// that, the path's propagation and serializations, and one 12-us wait. In one FIFO class the
/// same frames wait behind the full buffer (100 x 12 us) or are dropped.
#[test]
fn strict_priority_bounds_the_high_class_wait_by_one_frame_time() {
    let o = two_classes(
        "classes = 2\nscheduler = \"strict\"\nclass_buffer_pkts = [100, 50]",
        0,
    );
    let fct = f64s(&o, "flows", "fct_s")[1];
    let send_span = 99.0 * 1500.0 * 8.0 / 1e8;
    // serializations: 1.2 us on the 10 Gb/s access link, 12 us on the bottleneck; 2 x 1 us
    let path = 1.2e-6 + 12e-6 + 2e-6;
    let wait_bound = 12e-6;
    assert!(
        fct <= send_span + path + wait_bound + 1e-9,
        "fct {fct} > {}",
        send_span + path + wait_bound
    );
    assert!(fct >= send_span + path - 1e-9);
    // no high-class frame is dropped; the low class loses what exceeds the link
    let (c0, c1) = bottleneck_classes(&o);
    let drops = u64s(&o, "classes", "drops");
    assert_eq!(drops[c0], 0);
    assert!(drops[c1] > 0);
    // the same frames in one FIFO class wait behind the saturating flow
    let fifo = two_classes("classes = 1", 0);
    let fifo_fct = f64s(&fifo, "flows", "fct_s")[1];
    assert!(
        fifo_fct.is_nan() || fifo_fct > send_span + path + 50.0 * wait_bound,
        "FIFO fct {fifo_fct}"
    );
}

/// Deficit round robin (Shreedhar and Varghese 1995): two saturating classes with weights 1 and
/// 3 share the link's bytes 1:3 within 1 % over more than 10^4 frames. Each class has its own
/// 100 frames of the buffer, so both stay backlogged (with one shared limit, two constant-rate
/// sources in lock step can leave one class nothing to send).
#[test]
fn drr_shares_the_link_in_the_ratio_of_the_weights() {
    let topo = two_hosts_into_one_port(200);
    let o = run(&format!(
        r#"
seed = 1
until_s = 0.2
{topo}
[sched]
classes = 2
scheduler = "drr"
weights = [1, 3]
class_buffer_pkts = [100, 100]
[[flow]]
src = "h0"
dst = "r"
cc = "cbr"
rate_bps = 2e9
class = 0
[[flow]]
src = "h1"
dst = "r"
cc = "cbr"
rate_bps = 2e9
class = 1
"#
    ));
    let (c0, c1) = bottleneck_classes(&o);
    let tx = u64s(&o, "classes", "tx_bytes");
    let tx = [tx[c0], tx[c1]];
    let pkts = u64s(&o, "classes", "tx_pkts")[c0] + u64s(&o, "classes", "tx_pkts")[c1];
    assert!(pkts > 10_000, "{pkts} frames");
    let share = tx[1] as f64 / (tx[0] + tx[1]) as f64;
    assert!((share - 0.75).abs() <= 0.01 * 0.75, "class 1 share {share}");
}

/// Bad `[sched]` values are errors naming the field.
#[test]
fn bad_sched_values_name_the_field() {
    for (extra, field) in [
        ("[sched]\nclasses = 9", "sched.classes"),
        (
            "[sched]\nclasses = 2\nscheduler = \"drr\"\nweights = [1, -1]",
            "sched.weights[1]",
        ),
        ("[sched]\nclasses = 2\nweights = [1, 1]", "sched.weights"),
        (
            "[sched]\nclasses = 2\nclass_buffer_pkts = [10, 500]",
            "sched.class_buffer_pkts[1]",
        ),
    ] {
        let e = parse(&dctcp(extra), Format::Toml).unwrap_err();
        assert_eq!(e.path, field, "{extra}: {e}");
    }
    let e = parse(
        &dctcp("").replace("cc = \"dctcp\"", "cc = \"dctcp\"\nclass = 8"),
        Format::Toml,
    )
    .unwrap_err();
    assert_eq!(e.path, "flows.class", "{e}");
}

/// The dequeue-time policies' dumbbell (`common::aqm_dumbbell_text`), run.
fn codel_dumbbell(aqm: &str, until_s: f64) -> RunOutput {
    run(&aqm_dumbbell_text(aqm, until_s))
}

/// CoDel (RFC 8289) on that dumbbell: the standing queue settles near the 5-ms target instead
/// of filling the buffer.
#[test]
fn codel_keeps_the_standing_queue_near_its_target() {
    let run_with = |aqm: &str| codel_dumbbell(aqm, 10.0);
    let codel = run_with("kind = \"codel\"");
    let droptail = run_with("kind = \"drop_tail\"");
    let delay_median = |o: &RunOutput| {
        let t = f64s(o, "queue", "time_s");
        let Column::U64(b) = col(o, "queue", "queue_bytes") else {
            panic!("queue_bytes is u64")
        };
        let mut d: Vec<f64> = t
            .iter()
            .zip(b)
            .filter(|(t, _)| **t >= 2.0)
            .map(|(_, b)| *b as f64 * 8.0 / 100e6)
            .collect();
        d.sort_by(|a, b| a.partial_cmp(b).unwrap());
        d[d.len() / 2]
    };
    let (c, dt) = (delay_median(&codel), delay_median(&droptail));
    eprintln!("median queueing delay after 2 s: codel {c} s, drop-tail {dt} s");
    let Column::F64(soj) = col(&codel, "classes", "mean_sojourn_s") else {
        panic!("mean_sojourn_s is f64")
    };
    eprintln!("codel mean sojourn {:?}", soj);
    assert!(
        dt > 4.0 * 0.005,
        "drop-tail holds a standing queue far above the target: {dt}"
    );
    assert!((c - 0.005).abs() <= 0.2 * 0.005, "codel median delay {c}");
}

/// RFC 8289's control law on the packet run: within a dropping episode the k-th gap between
/// CoDel's drops is interval / sqrt(k) (§5.7), k rising by one per drop, each drop at the first
/// dequeue at or after its scheduled time, so a measured gap is off by less than one frame time
/// (1500 B at 100 Mb/s = 120 us). Gaps longer than 0.95 interval (k = 1, or between episodes)
/// are not judged; the run must show at least ten judged gaps.
#[test]
fn codel_drops_follow_the_control_law_on_a_packet_run() {
    let o = codel_dumbbell("kind = \"codel\"", 10.0);
    let t = f64s(&o, "drops", "time_s");
    let Column::U8(ev) = col(&o, "drops", "event") else {
        panic!("drops.event is u8")
    };
    let times: Vec<f64> = t
        .iter()
        .zip(ev)
        .filter(|(_, e)| **e == 1)
        .map(|(t, _)| *t)
        .collect();
    let (interval, frame) = (0.1, 1500.0 * 8.0 / 100e6);
    let mut judged = 0;
    let mut last_k: Option<u64> = None;
    for w in times.windows(2) {
        let g = w[1] - w[0];
        if g > 0.95 * interval {
            last_k = None;
            continue;
        }
        let k = ((interval / g).powi(2)).round().max(1.0) as u64;
        let want = interval / (k as f64).sqrt();
        assert!(
            (g - want).abs() <= frame + 1e-9,
            "gap {g} s after the drop at {} s is not interval/sqrt(k) for any k (nearest k = {k}: {want} s)",
            w[0]
        );
        if let Some(prev) = last_k {
            assert_eq!(
                k,
                prev + 1,
                "count rises by one per drop (drop at {} s)",
                w[1]
            );
        }
        last_k = Some(k);
        judged += 1;
    }
    assert!(judged >= 10, "only {judged} gaps inside dropping episodes");
}

/// A 100 Mb/s dumbbell, RTT 20 ms, 1000-packet buffer: 4 long NewReno flows from s0..s3 (none
/// with `bulk = false`) and ten one-packet flows from s4, 0.5 s apart from 5 s, under `aqm`.
fn sparse_flows(aqm: &str, bulk: bool) -> RunOutput {
    let mut flows = String::new();
    if bulk {
        for i in 0..4 {
            flows += &format!(
                "[[flow]]\nsrc = \"s{i}\"\ndst = \"r0\"\nstart_s = {}\n",
                0.01 * i as f64
            );
        }
    }
    for k in 0..10 {
        flows += &format!(
            "[[flow]]\nsrc = \"s4\"\ndst = \"r0\"\nsize_bytes = 1000\nstart_s = {}\n",
            5.0 + 0.5 * k as f64
        );
    }
    run(&format!(
        r#"
seed = 1
until_s = 10
[topology]
kind = "dumbbell"
senders = 5
bottleneck_bps = 100e6
access_bps = 1e9
rtt_s = 0.02
buffer_pkts = 1000
[aqm]
{aqm}
{flows}
"#
    ))
}

/// RFC 8290's sparse-flow rule on a packet run: a flow that becomes active goes on the new-flows
/// list and is served before the backlogged flows, so a one-packet flow crosses the loaded
/// bottleneck almost as on an empty one — its completion time exceeds the empty-network one by
/// at most a few frame times (the frame in transmission, and a bulk queue that re-entered the
/// new list before it; bound: 5 frames = 0.6 ms) — while behind plain CoDel's single FIFO it
/// waits in the standing queue (CoDel's target is 5 ms; bound: median excess >= 2 ms) and
/// behind drop-tail in the full buffer (median excess >= 20 ms).
#[test]
fn fq_codel_serves_a_new_sparse_flow_ahead_of_the_standing_queue() {
    let fct = |o: &RunOutput| -> Vec<f64> { f64s(o, "flows", "fct_s")[4..].to_vec() };
    let empty = {
        let o = sparse_flows("kind = \"drop_tail\"", false);
        f64s(&o, "flows", "fct_s").to_vec()
    };
    let excess = |aqm: &str| -> Vec<f64> {
        let mut e: Vec<f64> = fct(&sparse_flows(aqm, true))
            .iter()
            .zip(&empty)
            .map(|(f, e)| f - e)
            .collect();
        e.sort_by(|a, b| a.partial_cmp(b).unwrap());
        e
    };
    let (fq, codel, droptail) = (
        excess("kind = \"fq_codel\""),
        excess("kind = \"codel\""),
        excess("kind = \"drop_tail\""),
    );
    eprintln!("excess FCT (s): fq_codel {fq:?}\ncodel {codel:?}\ndrop-tail {droptail:?}");
    assert_eq!(empty.len(), 10);
    eprintln!("empty-network FCT (s): {empty:?}");
    assert!(empty.iter().all(|f| f.is_finite() && *f > 0.01));
    let frame = 1500.0 * 8.0 / 100e6;
    assert!(
        fq.iter().all(|e| *e <= 5.0 * frame),
        "fq_codel excess {fq:?}"
    );
    assert!(codel[5] >= 0.002, "codel median excess {}", codel[5]);
    assert!(
        droptail[5] >= 0.02,
        "drop-tail median excess {}",
        droptail[5]
    );
}

/// Workload flows take their workload's class: an incast whose responses are class 1 puts every
/// data packet at the bottleneck in class 1 (class 0 sees none); a class above 7 is refused.
#[test]
fn an_incast_workload_puts_its_flows_in_its_class() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/incast_dctcp.toml"
    ))
    .expect("scenarios/incast_dctcp.toml")
    .replace("until_s = 1.0", "until_s = 0.2")
    .replace("rounds = 10", "rounds = 3\nclass = 1")
        + "\n[sched]\nclasses = 2\n";
    let o = run(&text);
    let (c0, c1) = {
        let Column::Str(names) = col(&o, "classes", "name") else {
            panic!("classes.name is text")
        };
        let row = |c: usize| {
            (0..names.len())
                .find(|&i| names[i] == "sw->r0" && i % 2 == c)
                .expect("sw->r0 rows")
        };
        (row(0), row(1))
    };
    let tx = u64s(&o, "classes", "tx_pkts");
    assert_eq!(tx[c0], 0);
    assert!(tx[c1] > 1000, "class 1 frames: {}", tx[c1]);
    let bad = text.replace("class = 1", "class = 9");
    let e = parse(&bad, Format::Toml).unwrap_err();
    assert_eq!(e.path, "workload[0].class", "{e}");
}
