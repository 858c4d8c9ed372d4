//! Helpers shared by the engine's integration tests: run a scenario through `finish()` (which
//! fails on a conservation violation) and read its output columns.
#![allow(dead_code)]

use ccscope_core::output::{Column, RunOutput};
use ccscope_core::{parse, Format, Simulation};

/// Run a TOML scenario to its end; panics with the error on bad input or a broken ledger.
pub fn run(toml: &str) -> RunOutput {
    let sc = parse(toml, Format::Toml).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.finish().expect("packet conservation holds")
}

pub fn col<'a>(o: &'a RunOutput, table: &str, c: &str) -> &'a Column {
    o.table(table)
        .and_then(|t| t.column(c))
        .unwrap_or_else(|| panic!("no column {table}.{c}"))
}
pub fn u64s<'a>(o: &'a RunOutput, table: &str, c: &str) -> &'a [u64] {
    match col(o, table, c) {
        Column::U64(v) => v,
        _ => panic!("{table}.{c} is not u64"),
    }
}
pub fn f64s<'a>(o: &'a RunOutput, table: &str, c: &str) -> &'a [f64] {
    match col(o, table, c) {
        Column::F64(v) => v,
        _ => panic!("{table}.{c} is not f64"),
    }
}
pub fn names<'a>(o: &'a RunOutput, table: &str) -> &'a [String] {
    match col(o, table, "name") {
        Column::Str(v) => v,
        _ => panic!("{table}.name is not text"),
    }
}

/// The dumbbell of the dequeue-time policies' tests: 100 Mb/s, RTT 20 ms, 4 NewReno flows
/// without ECN, a 1000-packet buffer, with the given `[aqm]` body; queue sampled every 1 ms.
pub fn aqm_dumbbell_text(aqm: &str, until_s: f64) -> String {
    format!(
        r#"
seed = 1
until_s = {until_s}
[topology]
kind = "dumbbell"
bottleneck_bps = 100e6
access_bps = 1e9
rtt_s = 0.02
buffer_pkts = 1000
[aqm]
{aqm}
[flows]
count = 4
cc = "new_reno"
start_jitter_s = 0.01
[record]
traces = ["queue", "drops"]
queue_interval_s = 1e-3
"#
    )
}

/// One 1500-byte frame at 10 Gb/s, seconds (the `one_host` scenario's line rate).
pub const FRAME_S: f64 = 1500.0 * 8.0 / 10e9;

/// 10 Gb/s, RTT 20 us, initial window 15: fifteen 1-MB flows and then a one-packet flow (the
/// last into the host port) all start at t = 0 from s0.
pub fn one_host(topology_extra: &str, tcp_extra: &str) -> String {
    let mut flows = String::new();
    for _ in 0..15 {
        flows += "[[flow]]\nsrc = \"s0\"\ndst = \"r0\"\nsize_bytes = 1000000\n";
    }
    flows += "[[flow]]\nsrc = \"s0\"\ndst = \"r0\"\nsize_bytes = 1000\n";
    format!(
        r#"
seed = 1
until_s = 0.1
[topology]
kind = "dumbbell"
senders = 1
bottleneck_bps = 10e9
rtt_s = 20e-6
buffer_pkts = 1000
{topology_extra}
[tcp]
iw_pkts = 15
{tcp_extra}
{flows}
"#
    )
}

/// The error a TOML scenario is refused with, at parse or at build; panics if it is accepted.
pub fn error_of(text: &str) -> ccscope_core::error::ScenarioError {
    match parse(text, Format::Toml) {
        Err(e) => e,
        Ok(sc) => match Simulation::new(&sc, None) {
            Err(e) => e,
            Ok(_) => panic!("accepted: {text}"),
        },
    }
}
