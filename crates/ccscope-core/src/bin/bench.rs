//! Benchmark runner: runs a scenario file to its end with light recording and prints one JSON
//! line (wall time, events, delivered packets, peak RSS). `make bench` drives it.
//!
//! usage: ccscope-bench SCENARIO.toml [--until SECONDS]

use ccscope_core::{parse, Format, Simulation};
use std::time::Instant;

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: ccscope-bench SCENARIO.toml [--until SECONDS]");
        std::process::exit(2);
    }
    let text = match std::fs::read_to_string(&args[1]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", args[1]);
            std::process::exit(2);
        }
    };
    let until = args
        .iter()
        .position(|a| a == "--until")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse::<f64>().ok());
    let fmt = if args[1].ends_with(".json") {
        Format::Json
    } else {
        Format::Toml
    };
    let sc = match parse(&text, fmt) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    let mut sim = match Simulation::new(&sc, until) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    sim.run();
    let events = sim.events_processed();
    let out = match sim.finish() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let wall = t0.elapsed().as_secs_f64();
    let ports = out.table("ports").expect("ports table");
    let mut data_pkts_bottleneck = 0u64;
    if let (
        Some(ccscope_core::output::Column::U64(tx)),
        Some(ccscope_core::output::Column::U8(rec)),
    ) = (ports.column("tx_pkts"), ports.column("recorded"))
    {
        for (t, r) in tx.iter().zip(rec) {
            if *r == 1 {
                data_pkts_bottleneck += t;
            }
        }
    }
    println!(
        "{{\"wall_s\": {wall:.6}, \"events\": {events}, \"events_per_s\": {:.0}, \"bottleneck_pkts\": {data_pkts_bottleneck}, \"packets_per_s\": {:.0}, \"delivered_pkts\": {}, \"peak_rss_kb\": {}}}",
        events as f64 / wall,
        data_pkts_bottleneck as f64 / wall,
        out.ledger.delivered,
        peak_rss_kb()
    );
}
