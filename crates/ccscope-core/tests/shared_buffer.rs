//! Shared-buffer switches (`[shared_buffer]`; `sim/pool.rs`, docs/engine.md) on packet runs:
//! Choudhury and Hahne's dynamic thresholds (IEEE/ACM ToN 1998) hold N congested queues at
//! alpha B / (1 + N alpha) each, within one packet; a congested queue cannot take the whole pool,
//! so a second port's burst finds room (complete sharing, a huge alpha, drops it); the pool never
//! holds more than B. Every run goes through `finish()`, which fails on a conservation violation.

use ccscope_core::output::{Column, RunOutput};
use ccscope_core::{parse, Format, Simulation};

fn run(toml: &str) -> RunOutput {
    let sc = parse(toml, Format::Toml).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.finish().expect("packet conservation holds")
}
fn col<'a>(o: &'a RunOutput, c: &str) -> &'a Column {
    o.table("ports")
        .and_then(|t| t.column(c))
        .unwrap_or_else(|| panic!("no column ports.{c}"))
}
fn u64s<'a>(o: &'a RunOutput, c: &str) -> &'a [u64] {
    match col(o, c) {
        Column::U64(v) => v,
        _ => panic!("ports.{c} is not u64"),
    }
}
fn num(o: &RunOutput, c: &str, port: &str) -> f64 {
    let names = match col(o, "name") {
        Column::Str(v) => v,
        _ => panic!("ports.name is not text"),
    };
    let i = names
        .iter()
        .position(|n| n == port)
        .unwrap_or_else(|| panic!("no port {port}"));
    match col(o, c) {
        Column::U64(v) => v[i] as f64,
        Column::U32(v) => v[i] as f64,
        Column::F64(v) => v[i],
        _ => panic!("ports.{c} is not a number"),
    }
}

const PKT: f64 = 1500.0;
const B: u64 = 150_000;

/// Hosts h0, h1 -> switch sw (10 Gb/s) -> r0, r1 (1 Gb/s each), every port buffering 10 packets
/// (the pool replaces that at the switch): `flows` are [[flow]] tables;
/// the switch's pool holds `B` bytes with this `alpha` (a TOML value).
fn net(alpha: &str, flows: &str) -> String {
    let mut s = format!(
        "seed = 3\nuntil_s = 0.02\n[shared_buffer]\nbytes = {B}\nalpha = {alpha}\n[topology]\nkind = \"graph\"\n"
    );
    for (n, k) in [
        ("h0", "host"),
        ("h1", "host"),
        ("sw", "switch"),
        ("r0", "host"),
        ("r1", "host"),
    ] {
        s += &format!("[[topology.nodes]]\nname = \"{n}\"\nkind = \"{k}\"\n");
    }
    for (a, b, r) in [
        ("h0", "sw", 10e9),
        ("h1", "sw", 10e9),
        ("sw", "r0", 1e9),
        ("sw", "r1", 1e9),
    ] {
        s += &format!(
            "[[topology.links]]\nfrom = \"{a}\"\nto = \"{b}\"\nrate_bps = {r:e}\ndelay_s = 1e-6\nbuffer_pkts = 10\nduplex = true\n"
        );
    }
    s + flows
}

const CBR0: &str = "[[flow]]\nsrc = \"h0\"\ndst = \"r0\"\ncc = \"cbr\"\nrate_bps = 2e9\n";
const CBR1: &str = "[[flow]]\nsrc = \"h1\"\ndst = \"r1\"\ncc = \"cbr\"\nrate_bps = 2e9\n";

#[test]
fn one_congested_queue_settles_at_alpha_over_one_plus_alpha_of_the_pool() {
    for (alpha, a) in [("1.0", 1.0), ("0.5", 0.5), ("3.0", 3.0)] {
        let o = run(&net(alpha, CBR0));
        let want = a / (1.0 + a) * B as f64;
        let q = num(&o, "max_queue_pkts", "sw->r0") * PKT;
        assert!(
            (q - want).abs() <= PKT,
            "alpha {alpha}: the queue peaks at {q} B, DT's steady state is {want} B"
        );
        // time-averaged over the run (the fill takes about 1 ms of the 20): within 5 %
        let mean = num(&o, "mean_queue_bytes", "sw->r0");
        assert!(
            (mean - want).abs() <= 0.05 * want + PKT,
            "alpha {alpha}: mean queue {mean} B, want {want} B"
        );
        assert!(num(&o, "pool_drops", "sw->r0") > 0.0, "the threshold drops");
        assert_eq!(
            num(&o, "drops_overflow", "sw->r0"),
            num(&o, "pool_drops", "sw->r0")
        );
        assert_eq!(
            num(&o, "pool_max_bytes", "sw->r0"),
            q,
            "one queue is the pool"
        );
        // the port's own 10-packet buffer does not apply; the hosts' ports report no pool
        assert_eq!(num(&o, "pool_max_bytes", "h0->sw"), 0.0);
    }
}

#[test]
fn two_congested_queues_hold_alpha_over_one_plus_two_alpha_each() {
    for (alpha, a) in [("1.0", 1.0), ("2.0", 2.0)] {
        let o = run(&net(alpha, &format!("{CBR0}{CBR1}")));
        let want = a / (1.0 + 2.0 * a) * B as f64;
        for port in ["sw->r0", "sw->r1"] {
            let q = num(&o, "max_queue_pkts", port) * PKT;
            assert!(
                (q - want).abs() <= PKT,
                "alpha {alpha}: {port} peaks at {q} B, DT's steady state is {want} B"
            );
            let mean = num(&o, "mean_queue_bytes", port);
            assert!(
                (mean - want).abs() <= 0.05 * want + PKT,
                "alpha {alpha}: {port} mean {mean} B, want {want} B"
            );
        }
        let pool = num(&o, "pool_max_bytes", "sw->r0");
        assert!(
            (pool - 2.0 * want).abs() <= 2.0 * PKT,
            "pool peaks at {pool} B, want {} B",
            2.0 * want
        );
    }
}

/// A second port's burst of 20 packets at line rate, 5 ms into a run whose first queue is
/// congested: the dynamic threshold kept a free part of the pool for it.
#[test]
fn a_burst_at_a_second_port_finds_room_that_complete_sharing_would_not_leave() {
    let burst = "[[flow]]\nsrc = \"h1\"\ndst = \"r1\"\ncc = \"cbr\"\nrate_bps = 10e9\nstart_s = 0.005\nsize_bytes = 30000\n";
    let flows = format!("{CBR0}{burst}");
    let dt = run(&net("1.0", &flows));
    assert_eq!(
        num(&dt, "drops_overflow", "sw->r1"),
        0.0,
        "the burst fits below the threshold"
    );
    assert_eq!(num(&dt, "tx_pkts", "sw->r1"), 20.0, "all 20 packets go out");
    // complete sharing: the congested queue fills the pool and the burst is dropped
    let cs = run(&net("1e6", &flows));
    assert!(
        num(&cs, "max_queue_pkts", "sw->r0") * PKT >= (B as f64) - PKT,
        "complete sharing lets one queue take the pool"
    );
    assert!(
        num(&cs, "pool_drops", "sw->r1") >= 10.0,
        "the burst finds a full pool: {} dropped",
        num(&cs, "pool_drops", "sw->r1")
    );
    for o in [&dt, &cs] {
        for &m in u64s(o, "pool_max_bytes") {
            assert!(m <= B, "the pool never holds more than B ({m} B)");
        }
    }
}

#[test]
fn a_reservation_admits_a_queue_the_threshold_would_refuse() {
    // alpha so small that the threshold alone admits a queue of at most 1 packet
    let tiny = "0.000001";
    let o = run(&net(tiny, CBR0));
    assert!(num(&o, "max_queue_pkts", "sw->r0") <= 1.0);
    let with = net(tiny, CBR0).replace("alpha = ", "reserve_bytes = 30000\nalpha = ");
    let o = run(&with);
    let q = num(&o, "max_queue_pkts", "sw->r0") * PKT;
    assert_eq!(q, 30_000.0, "the queue fills its reservation exactly");
}

#[test]
fn bad_tables_name_the_field() {
    for (bad, field) in [
        ("bytes = 0\n", "shared_buffer.bytes"),
        ("bytes = 1000\nalpha = 0\n", "shared_buffer.alpha"),
        (
            "bytes = 1000\nalpha = [1.0, -1.0]\n",
            "shared_buffer.alpha[1]",
        ),
        (
            "bytes = 1000\nreserve_bytes = 1000\n",
            "shared_buffer.reserve_bytes",
        ),
        ("bytes = 1000\nalpha = \"x\"\n", "alpha"),
        ("bytes = 1000\nbeta = 1\n", "beta"),
    ] {
        let toml = net("1.0", CBR0).replace(
            &format!("[shared_buffer]\nbytes = {B}\nalpha = 1.0\n"),
            &format!("[shared_buffer]\n{bad}"),
        );
        let e = match parse(&toml, Format::Toml) {
            Err(e) => e.to_string(),
            Ok(sc) => match Simulation::new(&sc, None) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("{bad:?} was accepted"),
            },
        };
        assert!(e.contains(field), "{bad:?}: {e}");
    }
}
