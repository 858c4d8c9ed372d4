//! The bounded run step (`Simulation::run_until_bounded`) that interruptible drivers use: a run
//! cut into slices of any size gives exactly the run of one call (same events, same order,
//! same tables), a slice stops at an event boundary, and a run stopped early can be finished
//! into consistent tables (a partial result).

use ccscope_core::output::{Column, RunOutput};
use ccscope_core::units::SimTime;
use ccscope_core::{parse, Format, Simulation};

/// A dumbbell whose access ports take arrivals ahead of time (no drop trace, unrecorded
/// single-feeder ports), so the slices cut through runs of lookahead hops.
const LOOKAHEAD: &str = r#"
seed = 3
until_s = 0.01
[topology]
kind = "dumbbell"
bottleneck_bps = 10e9
rtt_s = 100e-6
buffer_pkts = 200
access_bps = 4e9
receivers = 2
[aqm]
kind = "threshold"
k_pkts = 40
[flows]
count = 4
cc = "dctcp"
start_jitter_s = 1e-4
[record]
traces = ["queue", "link", "cwnd", "alpha", "delivered"]
queue_interval_s = 1e-5
flow_interval_s = 1e-5
"#;

/// Drop-tail NewReno with every drop recorded and Poisson arrivals (randomness, losses,
/// timers, workload events; no lookahead).
const LOSSY: &str = r#"
seed = 5
until_s = 0.02
[topology]
kind = "dumbbell"
senders = 4
bottleneck_bps = 1e9
access_bps = 10e9
rtt_s = 100e-6
buffer_pkts = 20
[[flow]]
src = "s0"
dst = "r0"
cc = "new_reno"
[[flow]]
src = "s1"
dst = "r0"
cc = "new_reno"
[[workload]]
kind = "poisson"
src = ["s2", "s3"]
dst = ["r0"]
load = 0.3
reference_bps = 1e9
size = { kind = "uniform", min_bytes = 10000, max_bytes = 50000 }
cc = ["new_reno"]
[record]
traces = ["queue", "link", "cwnd", "delivered", "drops"]
queue_interval_s = 1e-5
"#;

fn sim(toml: &str) -> Simulation {
    let sc = parse(toml, Format::Toml).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&sc, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Every table, cell for cell (NaN equals NaN: compared through their bit patterns).
fn same_tables(a: &RunOutput, b: &RunOutput) {
    assert_eq!(a.tables.len(), b.tables.len());
    for (ta, tb) in a.tables.iter().zip(&b.tables) {
        assert_eq!(ta.name, tb.name);
        assert_eq!(ta.columns.len(), tb.columns.len(), "{}", ta.name);
        for ((na, ca), (nb, cb)) in ta.columns.iter().zip(&tb.columns) {
            assert_eq!(na, nb);
            let same = match (ca, cb) {
                (Column::F64(x), Column::F64(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
                }
                (Column::U64(x), Column::U64(y)) => x == y,
                (Column::U32(x), Column::U32(y)) => x == y,
                (Column::U8(x), Column::U8(y)) => x == y,
                (Column::Str(x), Column::Str(y)) => x == y,
                _ => false,
            };
            assert!(same, "{}.{} differs", ta.name, na);
        }
    }
    assert_eq!(a.ledger.sent, b.ledger.sent);
    assert_eq!(a.ledger.delivered, b.ledger.delivered);
    assert_eq!(a.ledger.dropped, b.ledger.dropped);
    assert_eq!(a.ledger.in_flight, b.ledger.in_flight);
    assert_eq!(a.sim_time_s, b.sim_time_s);
}

fn whole(toml: &str) -> RunOutput {
    let mut s = sim(toml);
    s.run();
    s.finish().expect("conservation")
}

/// Slice sizes from a small fixed-seed generator (1 to 500 events), so the cuts fall at
/// arbitrary event boundaries.
fn sliced(toml: &str, first: u64) -> (RunOutput, usize) {
    let mut s = sim(toml);
    let end = s.end();
    let mut x = first;
    let mut slices = 0;
    loop {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let n = 1 + (x >> 33) % 500;
        let before = s.events_processed();
        let done = s.run_until_bounded(end, n);
        let took = s.events_processed() - before;
        slices += 1;
        if done {
            assert!(took <= n);
            assert_eq!(
                s.now(),
                end,
                "a finished slice sets the clock to the target"
            );
            break;
        }
        assert_eq!(took, n, "a slice that stops early took its whole budget");
        assert!(s.now() <= end);
    }
    (s.finish().expect("conservation"), slices)
}

#[test]
fn a_run_cut_into_bounded_slices_equals_one_call_with_lookahead() {
    let a = whole(LOOKAHEAD);
    for seed in [1, 2, 3] {
        let (b, slices) = sliced(LOOKAHEAD, seed);
        assert!(slices > 10, "the run was cut ({slices} slices)");
        same_tables(&a, &b);
        assert_eq!(
            a.events, b.events,
            "the same events, not only the same tables"
        );
    }
}

#[test]
fn a_run_cut_into_bounded_slices_equals_one_call_with_losses_and_workloads() {
    let a = whole(LOSSY);
    let drops = match a.table("drops").and_then(|t| t.column("time_s")) {
        Some(c) => c.len(),
        None => 0,
    };
    assert!(drops > 0, "the scenario drops packets");
    for seed in [7, 8] {
        let (b, slices) = sliced(LOSSY, seed);
        assert!(slices > 10, "the run was cut ({slices} slices)");
        same_tables(&a, &b);
        assert_eq!(a.events, b.events);
    }
}

#[test]
fn single_event_slices_equal_one_call() {
    let a = whole(LOOKAHEAD);
    let mut s = sim(LOOKAHEAD);
    let end = s.end();
    while !s.run_until_bounded(end, 1) {}
    let b = s.finish().expect("conservation");
    same_tables(&a, &b);
    assert_eq!(a.events, b.events);
}

#[test]
fn a_slice_stops_at_an_event_boundary_before_the_target() {
    let mut s = sim(LOOKAHEAD);
    let end = s.end();
    assert!(!s.run_until_bounded(end, 1000));
    assert_eq!(s.events_processed(), 1000);
    let now = s.now();
    assert!(now < end);
    // the next event is not earlier than the clock: the stop is between two events
    assert!(s.peek().is_some_and(|t| t >= now));
    // a target already reached: nothing to do, the clock stays
    assert!(s.run_until_bounded(now, 10) || s.now() == now);
}

#[test]
fn a_run_stopped_early_finishes_into_consistent_partial_tables() {
    // stop at many event boundaries mid-run, some with arrivals already taken ahead into the
    // access ports (their clocks past the simulation clock)
    for stop in (1_000..9_000).step_by(97) {
        let mut s = sim(LOOKAHEAD);
        let end = s.end();
        assert!(!s.run_until_bounded(end, stop));
        let now = s.now();
        assert!(now > SimTime::ZERO && now < end);
        let out = s
            .finish()
            .expect("conservation holds for a run stopped early");
        assert_eq!(out.sim_time_s, now.as_secs_f64());
        let t = match out.table("queue").and_then(|t| t.column("time_s")) {
            Some(Column::F64(v)) => v.clone(),
            _ => panic!("queue trace"),
        };
        assert!(
            t.iter().all(|&x| x <= now.as_secs_f64()),
            "no sample past the clock"
        );
        // every port's time-averaged queue stays within its buffer (a port whose clock is
        // ahead of the finish time must not integrate backwards)
        let ports = out.table("ports").expect("ports");
        match ports.column("mean_queue_pkts") {
            Some(Column::F64(v)) => assert!(
                v.iter().all(|q| q.is_finite() && *q >= 0.0 && *q <= 200.0),
                "stopped after {stop} events: mean queues {v:?}"
            ),
            _ => panic!("ports.mean_queue_pkts"),
        }
    }
}
