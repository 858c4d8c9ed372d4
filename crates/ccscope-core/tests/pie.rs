//! PIE (RFC 8033, `aqm.kind = "pie"`, `aqm/pie.rs`) on packet runs: the queueing delay it holds
//! on a congested dumbbell against drop-tail, and its decisions unchanged when the one-hop
//! lookahead feeds its port ahead of time. The RFC's rules on hand-made sequences are the unit
//! tests in `aqm/pie.rs`.

use ccscope_core::output::{Column, RunOutput};
use ccscope_core::{parse, Format};

mod common;
use common::*;

/// A 100 Mb/s dumbbell, RTT 20 ms, 4 NewReno flows without ECN and a 1000-packet buffer, with
/// the given `[aqm]` body (the setup of CoDel's test in tests/sched.rs).
fn dumbbell(aqm: &str, until_s: f64) -> RunOutput {
    run(&aqm_dumbbell_text(aqm, until_s))
}

/// Queueing delays of the bottleneck's queue samples (1 ms apart) after `from_s`, sorted:
/// waiting bytes at line rate.
fn delays_after(o: &RunOutput, from_s: f64) -> Vec<f64> {
    let Column::F64(t) = col(o, "queue", "time_s") else {
        panic!("queue.time_s is f64")
    };
    let Column::U64(b) = col(o, "queue", "queue_bytes") else {
        panic!("queue.queue_bytes is u64")
    };
    let mut d: Vec<f64> = t
        .iter()
        .zip(b)
        .filter(|(t, _)| **t >= from_s)
        .map(|(_, b)| *b as f64 * 8.0 / 100e6)
        .collect();
    d.sort_by(|a, b| a.partial_cmp(b).unwrap());
    d
}

/// PIE's reference delay is 15 ms (RFC 8033 §4.2): after 2 s the mean and the median queueing
/// delay are within 20 % of it, where drop-tail keeps a standing queue several times larger,
/// and the link stays busy (PIE's safeguards keep it work-conserving).
#[test]
fn pie_keeps_the_queueing_delay_near_its_reference() {
    let pie = dumbbell("kind = \"pie\"", 10.0);
    let droptail = dumbbell("kind = \"drop_tail\"", 10.0);
    let (p, dt) = (delays_after(&pie, 2.0), delays_after(&droptail, 2.0));
    let mean = p.iter().sum::<f64>() / p.len() as f64;
    let (median, dt_median) = (p[p.len() / 2], dt[dt.len() / 2]);
    let Column::U64(drops) = col(&pie, "ports", "drops_aqm") else {
        panic!("ports.drops_aqm is u64")
    };
    let Column::U64(tx) = col(&pie, "ports", "tx_bytes") else {
        panic!("ports.tx_bytes is u64")
    };
    let tx_max = *tx.iter().max().unwrap();
    eprintln!(
        "queueing delay after 2 s: pie mean {mean} s median {median} s, drop-tail median \
         {dt_median} s; pie early drops {drops:?}; bottleneck throughput {} Mb/s",
        tx_max as f64 * 8.0 / 10.0 / 1e6
    );
    assert!(
        dt_median > 2.0 * 0.015,
        "drop-tail holds a standing queue above the reference: {dt_median}"
    );
    assert!((mean - 0.015).abs() <= 0.2 * 0.015, "pie mean delay {mean}");
    assert!(
        (median - 0.015).abs() <= 0.2 * 0.015,
        "pie median delay {median}"
    );
    assert!(drops.iter().sum::<u64>() > 50, "PIE drops early: {drops:?}");
    assert!(
        tx_max as f64 * 8.0 / 10.0 > 0.95 * 100e6,
        "the bottleneck stays busy: {tx_max} bytes in 10 s"
    );
}

/// A PIE port fed by one port only (h0's NIC feeds sw1->sw2, the 100 Mb/s bottleneck of a chain)
/// may be offered its arrivals ahead of time (`Aqm::may_be_fed_ahead`): its timer is caught up at
/// each arrival, so its decisions depend on its own arrivals alone. With the lookahead (no drops
/// trace) the run takes fewer events and every other table is the same bit for bit.
#[test]
fn a_pie_port_fed_ahead_decides_as_without_the_lookahead() {
    let mut links = String::new();
    for (a, b, rate, aqm) in [
        ("h0", "sw1", "1e9", ""),
        ("sw1", "sw2", "100e6", "aqm = { kind = \"pie\" }\n"),
        ("sw2", "h1", "1e9", ""),
    ] {
        for (x, y, aqm) in [(a, b, aqm), (b, a, "")] {
            links += &format!(
                "[[topology.links]]\nfrom = \"{x}\"\nto = \"{y}\"\nrate_bps = {rate}\n\
                 delay_s = 2e-3\nbuffer_pkts = 1000\nduplex = false\n{aqm}"
            );
        }
    }
    let mut flows = String::new();
    for i in 0..3 {
        flows += &format!(
            "[[flow]]\nsrc = \"h0\"\ndst = \"h1\"\ncc = \"new_reno\"\nstart_s = {}\n",
            i as f64 * 0.01
        );
    }
    let toml = |traces: &str| {
        format!(
            "seed = 3\nuntil_s = 3\n[topology]\nkind = \"graph\"\n\
             [[topology.nodes]]\nname = \"h0\"\nkind = \"host\"\n\
             [[topology.nodes]]\nname = \"sw1\"\nkind = \"switch\"\n\
             [[topology.nodes]]\nname = \"sw2\"\nkind = \"switch\"\n\
             [[topology.nodes]]\nname = \"h1\"\nkind = \"host\"\n\
             {links}{flows}[record]\ntraces = [{traces}]\nports = [\"sw2->h1\"]\n"
        )
    };
    let off = run(&toml("\"cwnd\", \"queue\", \"drops\""));
    let on = run(&toml("\"cwnd\", \"queue\""));
    eprintln!(
        "events with the lookahead {}, without {}",
        on.events, off.events
    );
    assert!(
        on.events < off.events,
        "the lookahead saves events ({} vs {})",
        on.events,
        off.events
    );
    let Column::U64(drops) = col(&on, "ports", "drops_aqm") else {
        panic!("ports.drops_aqm is u64")
    };
    assert!(
        drops.iter().sum::<u64>() > 10,
        "PIE drops early in this run: {drops:?}"
    );
    for t in &on.tables {
        let other = off
            .table(t.name)
            .unwrap_or_else(|| panic!("table {}", t.name));
        assert_eq!(
            format!("{:?}", t.columns),
            format!("{:?}", other.columns),
            "table {} differs with the lookahead",
            t.name
        );
    }
}

/// Bad PIE values in a scenario are errors naming the field.
#[test]
fn bad_pie_values_name_the_field() {
    for (body, field) in [
        ("target_s = -0.01", "aqm.target_s"),
        ("t_update_s = 0", "aqm.t_update_s"),
        ("alpha = 0", "aqm.alpha"),
        ("ecn_max_p = 0", "aqm.ecn_max_p"),
    ] {
        let text = format!(
            "until_s = 1\n[topology]\nkind = \"dumbbell\"\nbottleneck_bps = 1e8\naccess_bps = 1e9\n\
             rtt_s = 0.02\nbuffer_pkts = 100\n[aqm]\nkind = \"pie\"\n{body}\n\
             [flows]\ncount = 1\ncc = \"new_reno\"\n"
        );
        let e = parse(&text, Format::Toml).unwrap_err();
        assert_eq!(e.path, field, "{body}: {e}");
    }
}

/// With `ecn = true` and ECN-capable flows PIE marks instead of dropping while its probability
/// stays below `ecn_max_p` (RFC 8033 §5.1). The slow start's overshoot takes the probability
/// above 0.1 for a while (ECN-capable packets are dropped then, as the RFC says, at 1.2-1.6 s,
/// and the flows take until about 4 s to refill the queue); after 4 s the bottleneck only marks,
/// and holds the delay as with drops.
#[test]
fn pie_with_ecn_marks_instead_of_dropping() {
    let o = run(&format!(
        "{}[tcp]\necn = true\n",
        aqm_dumbbell_text("kind = \"pie\"\necn = true", 10.0)
    ));
    let Column::F64(t) = col(&o, "drops", "time_s") else {
        panic!("drops.time_s is f64")
    };
    let Column::U8(ev) = col(&o, "drops", "event") else {
        panic!("drops.event is u8")
    };
    // events: 0 overflow drop, 1 AQM drop, 2 mark
    let after = |e: u8| {
        t.iter()
            .zip(ev)
            .filter(|(t, v)| **t >= 4.0 && **v == e)
            .count()
    };
    let d = delays_after(&o, 4.0);
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    eprintln!(
        "pie ecn after 4 s: marks {}, early drops {}, overflow drops {}, mean delay {mean}",
        after(2),
        after(1),
        after(0)
    );
    assert!(after(2) > 10, "PIE marks");
    assert_eq!((after(1), after(0)), (0, 0), "no drop once p is below 0.1");
    assert!((mean - 0.015).abs() <= 0.2 * 0.015, "mean delay {mean}");
}

/// PIE on the general path (one class scheduled at dequeue, `[sched] path = "general"`): the port
/// reports its drain time as the end of the transmission in progress plus the waiting bytes at
/// line rate, and PIE decides as on the committed FIFO: the same drops and the same queue samples.
/// (Found by this test: a drain time taken as `max(busy_until, now) + waiting` read a link that
/// had gone idle between two arrivals as busy until the later one, so the updates in between saw
/// a delay that was not there; PIE then held 10.9 ms and left the link 10 % idle.)
#[test]
fn pie_on_the_general_path_decides_as_on_the_committed_fifo() {
    let fifo = dumbbell("kind = \"pie\"", 10.0);
    let general = run(&format!(
        "{}[sched]\npath = \"general\"\n",
        aqm_dumbbell_text("kind = \"pie\"", 10.0)
    ));
    assert!(
        general.table("classes").is_some(),
        "the port took the general path"
    );
    for (table, c) in [
        ("drops", "time_s"),
        ("queue", "queue_bytes"),
        ("ports", "drops_aqm"),
    ] {
        assert_eq!(
            format!("{:?}", col(&fifo, table, c)),
            format!("{:?}", col(&general, table, c)),
            "{table}.{c}"
        );
    }
}
