//! What a finished run hands back: named columnar tables (units in column names), the
//! expanded scenario, and run metadata. The Python layer turns each table into a DataFrame.

use crate::cc::{CcProbe, CongestionControl};
use crate::error::SimulationError;
use crate::record::{Ledger, SpillRows};
use crate::sim::Simulation;
use crate::units::PS_PER_S;

/// One column of a table.
#[derive(Clone, Debug)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    U8(Vec<u8>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::U8(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A named table of equal-length columns.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c)
    }
}

/// A piece of a spilled table, in the table's row order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A chunk file (format: the `record` module docs) and its rows.
    File { path: String, rows: u64 },
    /// Rows `start..start + rows` of the table's in-memory columns.
    Memory { start: u64, rows: u64 },
}

/// An event-driven table whose rows are partly on disk: the whole table is its segments in
/// order (the in-memory table in `RunOutput::tables` holds the rows not spilled).
#[derive(Clone, Debug)]
pub struct Spilled {
    pub table: &'static str,
    /// Column names and chunk storage codes (`Dtype::code`), the output table's order.
    pub columns: Vec<(&'static str, &'static str)>,
    pub segments: Vec<Segment>,
    /// Rows of the whole table.
    pub rows: u64,
}

fn columns_of<T: SpillRows>() -> Vec<(&'static str, &'static str)> {
    T::COLUMNS.iter().map(|(n, d)| (*n, d.code())).collect()
}

/// `t`'s chunks, then its in-memory rows (at `start` of the output table).
fn segments_of<T: SpillRows>(t: &T, start: u64, out: &mut Vec<Segment>) {
    for (path, rows) in &t.spill().chunks {
        out.push(Segment::File {
            path: path.to_string_lossy().into_owned(),
            rows: *rows,
        });
    }
    if t.rows() > 0 {
        out.push(Segment::Memory {
            start,
            rows: t.rows() as u64,
        });
    }
}

/// The manifest of a table made of the series `parts` (their in-memory rows concatenated in
/// this order), when any of them spilled.
fn spilled<T: SpillRows>(table: &'static str, parts: &[&T]) -> Option<Spilled> {
    if parts.iter().all(|t| t.spill().chunks.is_empty()) {
        return None;
    }
    let (mut segments, mut start, mut rows) = (Vec::new(), 0u64, 0u64);
    for t in parts {
        segments_of(*t, start, &mut segments);
        start += t.rows() as u64;
        rows += t.spill().spilled_rows + t.rows() as u64;
    }
    Some(Spilled {
        table,
        columns: columns_of::<T>(),
        segments,
        rows,
    })
}

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub tables: Vec<Table>,
    /// Event-driven tables with rows on disk (none when nothing spilled).
    pub spilled: Vec<Spilled>,
    /// The expanded scenario, JSON.
    pub scenario_json: String,
    pub ledger: Ledger,
    pub events: u64,
    pub sim_time_s: f64,
    /// Per flow (the `flows` table's order): its ideal FCT, seconds ([`ideal_fct_ps`]; NaN for
    /// a flow without a size). Kept beside the tables; the Python result adds it to `flows`
    /// with the slowdown `fct_s / ideal_fct_s`.
    pub ideal_fct_s: Vec<f64>,
    /// Per flow: its sender-side FCT, seconds: from its start until an ACK first told the
    /// sender that every byte arrived (NaN for a flow without a size, one that did not finish,
    /// and a rate-based flow that takes no ACKs). Kept beside the tables like `ideal_fct_s`
    /// (the Python result adds it to `flows` as `fct_sender_s`).
    pub fct_sender_s: Vec<f64>,
    /// Per flow: [`ideal_fct_ps`] plus the trip of one ACK back over the flow's reverse route
    /// ([`ack_return_ps`]), seconds: the sender-side end point's ideal (NaN without a size).
    pub ideal_fct_sender_s: Vec<f64>,
}

/// The trip of one `ack_bytes` ACK over `rev` on the empty fabric, picoseconds: every hop's
/// propagation delay plus its serialization, floor(8 ack_bytes 10^12 / r_i) ps (the same
/// store-and-forward terms as [`ideal_fct_ps`] for a one-packet train).
pub(crate) fn ack_return_ps(sim: &Simulation, rev: crate::world::RouteId) -> u64 {
    let (off, len) = sim.routes[rev.idx()];
    let hops = &sim.route_ports[off as usize..off as usize + len as usize];
    let bits = sim.ack_bytes as u128 * 8 * PS_PER_S as u128;
    hops.iter()
        .map(|p| {
            let port = &sim.ports[p.idx()];
            port.delay.0 + (bits / port.rate().0.max(1) as u128) as u64
        })
        .sum()
}

/// The ideal FCT of a flow of `size` bytes on its forward route, picoseconds: the time from
/// its start until its last byte reaches the receiver when it is alone on the empty fabric and
/// sends at line rate from the start (docs/workloads.md, "FCT slowdown").
///
/// The flow is n = ceil(size / mss) packets as the sender cuts it (the first min(size, mss)
/// bytes, the last size - (n-1) mss; a packet's size on the wire is its data, the engine adds
/// no header bytes). Store-and-forward hops with rates r_1..r_h and delays d_1..d_h pass such
/// a train in (the max-plus form of a tandem of queues)
///   sum_i d_i + max_j [ sum_{i<j} t_i(first) + t_j(size) + sum_{i>j} t_i(last) ],
/// t_i(b) = floor(8 b 10^12 / r_i) ps: the first packet is serialized at every hop before the
/// bottleneck j, the whole flow at j, the last packet at every hop after it. Every term is the
/// floor of what a port takes (its serializer only adds carried remainders), so a flow's FCT is
/// never below this.
pub(crate) fn ideal_fct_ps(sim: &Simulation, fwd: crate::world::RouteId, size: u64) -> u64 {
    let (off, len) = sim.routes[fwd.idx()];
    let hops = &sim.route_ports[off as usize..off as usize + len as usize];
    let mss = sim.mss.max(1) as u64;
    let n = size.div_ceil(mss).max(1);
    let first = size.min(mss);
    let last = size - (n - 1) * mss;
    let t = |rate: u64, bytes: u64| -> u64 {
        ((bytes as u128 * 8 * PS_PER_S as u128) / rate.max(1) as u128) as u64
    };
    let rates: Vec<u64> = hops.iter().map(|p| sim.ports[p.idx()].rate().0).collect();
    let prop: u64 = hops.iter().map(|p| sim.ports[p.idx()].delay.0).sum();
    let before = |j: usize| -> u64 { rates[..j].iter().map(|&r| t(r, first)).sum() };
    let after = |j: usize| -> u64 { rates[j + 1..].iter().map(|&r| t(r, last)).sum() };
    let serial = (0..rates.len())
        .map(|j| before(j) + t(rates[j], size) + after(j))
        .max()
        .unwrap_or(0);
    prop + serial
}

impl RunOutput {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    pub(crate) fn collect(sim: Simulation, ledger: Ledger) -> RunOutput {
        let secs =
            |v: &[u64]| -> Vec<f64> { v.iter().map(|&t| t as f64 / PS_PER_S as f64).collect() };
        let mut tables = Vec::new();
        let mut spills = Vec::new();
        let rec = &sim.rec;
        if rec.want_queue {
            if rec.queue_every_change {
                let (mut t, mut p, mut qp, mut qb) = (vec![], vec![], vec![], vec![]);
                let logs: Vec<&crate::record::ChangeLog> = rec
                    .ports
                    .iter()
                    .filter_map(|pid| sim.ports[pid.idx()].change_log.as_ref())
                    .collect();
                spills.extend(spilled("queue", &logs));
                for pid in &rec.ports {
                    if let Some(log) = &sim.ports[pid.idx()].change_log {
                        for &(tt, a, b) in &log.rows {
                            t.push(tt.0 as f64 / PS_PER_S as f64);
                            p.push(pid.0);
                            qp.push(a);
                            qb.push(b);
                        }
                    }
                }
                tables.push(Table {
                    name: "queue",
                    columns: vec![
                        ("time_s", Column::F64(t)),
                        ("port", Column::U32(p)),
                        ("queue_pkts", Column::U32(qp)),
                        ("queue_bytes", Column::U64(qb)),
                    ],
                });
            } else {
                let q = &rec.queue;
                tables.push(Table {
                    name: "queue",
                    columns: vec![
                        ("time_s", Column::F64(secs(&q.time_ps))),
                        ("port", Column::U32(q.port.clone())),
                        ("queue_pkts", Column::U32(q.pkts.clone())),
                        ("queue_bytes", Column::U64(q.bytes.clone())),
                    ],
                });
            }
        }
        if rec.want_link {
            let l = &rec.link;
            tables.push(Table {
                name: "link",
                columns: vec![
                    ("time_s", Column::F64(secs(&l.time_ps))),
                    ("port", Column::U32(l.port.clone())),
                    ("tx_bytes", Column::U64(l.tx_bytes.clone())),
                ],
            });
        }
        let f = &rec.flows;
        let ft = secs(&f.time_ps);
        if rec.want_cwnd {
            tables.push(Table {
                name: "cwnd",
                columns: vec![
                    ("time_s", Column::F64(ft.clone())),
                    ("flow", Column::U32(f.flow.clone())),
                    ("cwnd_pkts", Column::F64(f.cwnd_pkts.clone())),
                    ("ssthresh_pkts", Column::F64(f.ssthresh_pkts.clone())),
                    ("in_recovery", Column::U8(f.in_recovery.clone())),
                ],
            });
        }
        if rec.want_alpha {
            // only flows that have an alpha (DCTCP family)
            let keep: Vec<usize> = (0..f.flow.len())
                .filter(|&i| !f.alpha[i].is_nan())
                .collect();
            tables.push(Table {
                name: "alpha",
                columns: vec![
                    ("time_s", Column::F64(keep.iter().map(|&i| ft[i]).collect())),
                    (
                        "flow",
                        Column::U32(keep.iter().map(|&i| f.flow[i]).collect()),
                    ),
                    (
                        "alpha",
                        Column::F64(keep.iter().map(|&i| f.alpha[i]).collect()),
                    ),
                ],
            });
        }
        if rec.want_delivered {
            tables.push(Table {
                name: "delivered",
                columns: vec![
                    ("time_s", Column::F64(ft)),
                    ("flow", Column::U32(f.flow.clone())),
                    ("delivered_bytes", Column::U64(f.delivered_bytes.clone())),
                    ("received_bytes", Column::U64(f.received_bytes.clone())),
                ],
            });
        }
        if rec.want_rate {
            let r = &rec.rates;
            tables.push(Table {
                name: "rate",
                columns: vec![
                    ("time_s", Column::F64(secs(&r.time_ps))),
                    ("flow", Column::U32(r.flow.clone())),
                    ("rate_bps", Column::F64(r.rate_bps.clone())),
                    ("target_rate_bps", Column::F64(r.target_rate_bps.clone())),
                ],
            });
        }
        if rec.want_feedback {
            let b = &rec.feedback;
            spills.extend(spilled("feedback", &[b]));
            tables.push(Table {
                name: "feedback",
                columns: vec![
                    ("time_s", Column::F64(secs(&b.time_ps))),
                    ("event", Column::U8(b.event.clone())),
                    ("port", Column::U32(b.cpid.clone())),
                    ("flow", Column::U32(b.flow.clone())),
                    ("a", Column::F64(b.a.clone())),
                    ("b", Column::F64(b.b.clone())),
                    ("queue_bytes", Column::F64(b.queue_bytes.clone())),
                    ("rate_before_bps", Column::F64(b.rate_before_bps.clone())),
                    ("rate_after_bps", Column::F64(b.rate_after_bps.clone())),
                    ("sent_s", Column::F64(secs(&b.sent_ps))),
                ],
            });
        }
        if rec.want_pfc && sim.pfc.is_some() {
            let b = &rec.pfc;
            spills.extend(spilled("pfc", &[b]));
            tables.push(Table {
                name: "pfc",
                columns: vec![
                    ("time_s", Column::F64(secs(&b.time_ps))),
                    ("port", Column::U32(b.port.clone())),
                    ("class", Column::U8(b.class.clone())),
                    ("event", Column::U8(b.event.clone())),
                    ("quanta", Column::U32(b.quanta.clone())),
                    ("sent_s", Column::F64(secs(&b.sent_ps))),
                ],
            });
        }
        if rec.want_drops {
            let e = &rec.events;
            spills.extend(spilled("drops", &[e]));
            tables.push(Table {
                name: "drops",
                columns: vec![
                    ("time_s", Column::F64(secs(&e.time_ps))),
                    ("port", Column::U32(e.port.clone())),
                    ("flow", Column::U32(e.flow.clone())),
                    ("seq", Column::U64(e.seq.clone())),
                    ("event", Column::U8(e.kind.clone())),
                    ("is_ack", Column::U8(e.packet_kind.clone())),
                ],
            });
        }
        if let Some(t) = truncated_table(&sim) {
            tables.push(t);
        }
        tables.push(flows_table(&sim));
        let r = &sim.rounds;
        tables.push(Table {
            name: "rounds",
            columns: vec![
                (
                    "workload",
                    Column::U32(r.iter().map(|x| x.workload).collect()),
                ),
                ("round", Column::U32(r.iter().map(|x| x.round).collect())),
                (
                    "start_s",
                    Column::F64(r.iter().map(|x| x.start.as_secs_f64()).collect()),
                ),
                (
                    "end_s",
                    Column::F64(r.iter().map(|x| x.end.as_secs_f64()).collect()),
                ),
                (
                    "completion_s",
                    Column::F64(r.iter().map(|x| (x.end - x.start).as_secs_f64()).collect()),
                ),
            ],
        });
        tables.push(ports_table(&sim));
        if let Some(t) = classes_table(&sim) {
            tables.push(t);
        }
        RunOutput {
            tables,
            spilled: spills,
            scenario_json: sim.scenario.to_json(),
            ledger,
            events: sim.events.processed(),
            sim_time_s: sim.now.as_secs_f64(),
            ideal_fct_s: sim
                .flows
                .iter()
                .map(|f| {
                    f.size_bytes.map_or(f64::NAN, |b| {
                        crate::units::SimTime(ideal_fct_ps(&sim, f.fwd, b)).as_secs_f64()
                    })
                })
                .collect(),
            fct_sender_s: sim
                .flows
                .iter()
                .map(|f| {
                    let done = match f.rate.as_deref().and_then(|r| r.rdma.as_ref()) {
                        Some(d) => d.tx.done_at,
                        None => f.sender.done_at,
                    };
                    match (f.size_bytes, f.receiver.done_at, done) {
                        (Some(_), Some(_), Some(d)) => (d - f.start).as_secs_f64(),
                        _ => f64::NAN,
                    }
                })
                .collect(),
            ideal_fct_sender_s: sim
                .flows
                .iter()
                .map(|f| {
                    f.size_bytes.map_or(f64::NAN, |b| {
                        let ps = ideal_fct_ps(&sim, f.fwd, b) + ack_return_ps(&sim, f.rev);
                        crate::units::SimTime(ps).as_secs_f64()
                    })
                })
                .collect(),
        }
    }
}

/// Event-driven series that stopped recording: which, rows kept (on disk and in memory), rows
/// left out, the memory cap, why (`memory`: its row cap, no spill directory; `disk`: the spill
/// directory's disk cap or an I/O error) and the detail. None when nothing was cut.
fn truncated_table(sim: &Simulation) -> Option<Table> {
    let rec = &sim.rec;
    let mut rows: Vec<(String, u64, u64, u64, &'static str, String)> = Vec::new();
    let mut add = |name: String, sp: &crate::record::Spill, in_memory: usize| {
        if let Some((why, detail)) = sp.reason() {
            rows.push((
                name,
                sp.spilled_rows + in_memory as u64,
                sp.left_out,
                sp.cap_rows,
                why.name(),
                detail,
            ));
        }
    };
    add("drops".into(), &rec.events.spill, rec.events.rows());
    add("feedback".into(), &rec.feedback.spill, rec.feedback.rows());
    add("pfc".into(), &rec.pfc.spill, rec.pfc.rows());
    for pid in &rec.ports {
        if let Some(log) = &sim.ports[pid.idx()].change_log {
            add(
                format!("queue {}", sim.port_names[pid.idx()]),
                &log.spill,
                log.rows.len(),
            );
        }
    }
    if rows.is_empty() {
        return None;
    }
    Some(Table {
        name: "truncated",
        columns: vec![
            (
                "series",
                Column::Str(rows.iter().map(|r| r.0.clone()).collect()),
            ),
            ("rows_kept", Column::U64(rows.iter().map(|r| r.1).collect())),
            (
                "rows_left_out",
                Column::U64(rows.iter().map(|r| r.2).collect()),
            ),
            ("cap_rows", Column::U64(rows.iter().map(|r| r.3).collect())),
            (
                "reason",
                Column::Str(rows.iter().map(|r| r.4.to_string()).collect()),
            ),
            (
                "detail",
                Column::Str(rows.iter().map(|r| r.5.clone()).collect()),
            ),
        ],
    })
}

fn flows_table(sim: &Simulation) -> Table {
    let n = sim.flows.len();
    let mut c: Vec<(&'static str, Column)> = Vec::new();
    let nan = f64::NAN;
    let mss = sim.mss as f64;
    let mut probe = CcProbe::default();
    let mut cw = Vec::with_capacity(n);
    let mut al = Vec::with_capacity(n);
    for fl in &sim.flows {
        fl.sender.cc.probe(&mut probe);
        cw.push(probe.cwnd_bytes / mss);
        al.push(probe.alpha);
    }
    let fs = &sim.flows;
    c.push(("flow", Column::U32((0..n as u32).collect())));
    c.push((
        "workload",
        Column::F64(
            fs.iter()
                .map(|f| f.workload.map_or(nan, |w| w.0 as f64))
                .collect(),
        ),
    ));
    c.push((
        "round",
        Column::F64(
            fs.iter()
                .map(|f| f.workload.map_or(nan, |w| w.1 as f64))
                .collect(),
        ),
    ));
    c.push((
        "src",
        Column::Str(
            fs.iter()
                .map(|f| sim.node_names[f.src.idx()].clone())
                .collect(),
        ),
    ));
    c.push((
        "dst",
        Column::Str(
            fs.iter()
                .map(|f| sim.node_names[f.dst.idx()].clone())
                .collect(),
        ),
    ));
    c.push((
        "cc",
        Column::Str(fs.iter().map(|f| f.cc_kind.name().to_string()).collect()),
    ));
    c.push((
        "start_s",
        Column::F64(fs.iter().map(|f| f.start.as_secs_f64()).collect()),
    ));
    c.push((
        "size_bytes",
        Column::F64(
            fs.iter()
                .map(|f| f.size_bytes.map_or(nan, |b| b as f64))
                .collect(),
        ),
    ));
    c.push((
        "fct_s",
        Column::F64(
            fs.iter()
                .map(|f| {
                    f.receiver
                        .done_at
                        .map_or(nan, |d| (d - f.start).as_secs_f64())
                })
                .collect(),
        ),
    ));
    c.push((
        "delivered_bytes",
        Column::U64(fs.iter().map(|f| f.receiver.delivered_bytes()).collect()),
    ));
    c.push((
        "received_bytes",
        Column::U64(
            fs.iter()
                .map(|f| f.receiver.unique_bytes_received)
                .collect(),
        ),
    ));
    c.push((
        "segments_sent",
        Column::U64(fs.iter().map(|f| f.sender.stats.segments_sent).collect()),
    ));
    c.push((
        "retransmits",
        Column::U64(fs.iter().map(|f| f.sender.stats.retransmits).collect()),
    ));
    c.push((
        "fast_retransmits",
        Column::U64(fs.iter().map(|f| f.sender.stats.fast_retransmits).collect()),
    ));
    c.push((
        "timeouts",
        Column::U64(fs.iter().map(|f| f.sender.stats.timeouts).collect()),
    ));
    c.push((
        "ecn_reductions",
        Column::U64(fs.iter().map(|f| f.sender.stats.ecn_reductions).collect()),
    ));
    c.push((
        "ece_acks",
        Column::U64(fs.iter().map(|f| f.sender.stats.ece_acks).collect()),
    ));
    c.push((
        "ce_bytes_received",
        Column::U64(fs.iter().map(|f| f.receiver.ce_bytes_received).collect()),
    ));
    c.push(("final_cwnd_pkts", Column::F64(cw)));
    c.push(("final_alpha", Column::F64(al)));
    c.push((
        "dx_decrease_fraction",
        Column::F64(
            fs.iter()
                .map(|f| match &f.sender.cc {
                    crate::cc::Cc::Dx(d) if d.decreases + d.increases > 0 => {
                        d.decreases as f64 / (d.decreases + d.increases) as f64
                    }
                    _ => nan,
                })
                .collect(),
        ),
    ));
    c.push((
        "srtt_s",
        Column::F64(
            fs.iter()
                .map(|f| f.sender.srtt().map_or(nan, |d| d.as_secs_f64()))
                .collect(),
        ),
    ));
    if let Some(t) = sim.spray.as_ref() {
        // runs with per-packet spraying only (`topology.load_balance = "spray"`)
        c.push((
            "ooo_segments",
            Column::U64(fs.iter().map(|f| f.receiver.ooo_arrivals).collect()),
        ));
        c.push((
            "spray_paths",
            Column::U32(
                (0..n as u32)
                    .map(|i| t.flow_paths(crate::world::FlowId(i)).unwrap_or(1))
                    .collect(),
            ),
        ));
    }
    Table {
        name: "flows",
        columns: c,
    }
}

/// Per traffic class of every general-path port (`[sched]`): arrivals, transmitted packets and
/// bytes, drops, marks and the largest queue. None when no port has classes.
fn classes_table(sim: &Simulation) -> Option<Table> {
    let mut port = Vec::new();
    let mut name = Vec::new();
    let mut class = Vec::new();
    let mut st = Vec::new();
    for (i, p) in sim.ports.iter().enumerate() {
        if let Some(s) = &p.sched {
            for (c, q) in s.classes.iter().enumerate() {
                port.push(i as u32);
                name.push(sim.port_names[i].clone());
                class.push(c as u32);
                let mut stats = q.stats;
                stats.paused_ps = q.paused_ps_at(sim.now);
                st.push(stats);
            }
        }
    }
    if port.is_empty() {
        return None;
    }
    let ingress = sim
        .pfc
        .as_ref()
        .map(|p| p.ingress_by_class(sim, &port, &class));
    let col =
        |f: fn(&crate::net::sched::ClassStats) -> u64| Column::U64(st.iter().map(f).collect());
    let mut columns = vec![
        ("port", Column::U32(port)),
        ("name", Column::Str(name)),
        ("class", Column::U32(class)),
        ("arrivals", col(|s| s.arrivals)),
        ("tx_pkts", col(|s| s.tx_pkts)),
        ("tx_bytes", col(|s| s.tx_bytes)),
        ("drops", col(|s| s.drops)),
        ("marks", col(|s| s.marks)),
        ("max_q_pkts", col(|s| s.max_q_pkts as u64)),
        (
            "mean_sojourn_s",
            Column::F64(
                st.iter()
                    .map(|s| s.sojourn_ps as f64 * 1e-12 / s.tx_pkts.max(1) as f64)
                    .collect(),
            ),
        ),
    ];
    if let Some((max_in, exceeded)) = ingress {
        // PFC: the frames each port received per class, and the time the class was paused
        columns.push(("pause_rx", col(|s| s.pause_rx)));
        columns.push((
            "paused_s",
            Column::F64(st.iter().map(|s| s.paused_ps as f64 * 1e-12).collect()),
        ));
        // the ingress side of the port: the largest count of its bytes waiting in the next
        // switch, and the arrivals that took the count above XOFF + headroom
        columns.push(("ingress_max_bytes", Column::U64(max_in)));
        columns.push(("headroom_exceeded", Column::U64(exceeded)));
    }
    Some(Table {
        name: "classes",
        columns,
    })
}

fn ports_table(sim: &Simulation) -> Table {
    let t = sim.now.0.max(1) as f64;
    let ps = &sim.ports;
    let mut recorded = vec![0u8; ps.len()];
    for p in &sim.rec.ports {
        recorded[p.idx()] = 1;
    }
    let (from, to): (Vec<String>, Vec<String>) = sim
        .port_names
        .iter()
        .map(|n| {
            let mut it = n.splitn(2, "->");
            (
                it.next().unwrap_or("").to_string(),
                it.next().unwrap_or("").to_string(),
            )
        })
        .unzip();
    let mut t = Table {
        name: "ports",
        columns: vec![
            ("port", Column::U32((0..ps.len() as u32).collect())),
            ("name", Column::Str(sim.port_names.clone())),
            ("from", Column::Str(from)),
            ("to", Column::Str(to)),
            (
                "rate_bps",
                Column::F64(ps.iter().map(|p| p.rate().as_f64()).collect()),
            ),
            (
                "delay_s",
                Column::F64(ps.iter().map(|p| p.delay.as_secs_f64()).collect()),
            ),
            (
                "arrivals",
                Column::U64(ps.iter().map(|p| p.stats.arrivals).collect()),
            ),
            (
                "tx_pkts",
                Column::U64(ps.iter().map(|p| p.stats.tx_pkts).collect()),
            ),
            (
                "tx_bytes",
                Column::U64(ps.iter().map(|p| p.stats.tx_bytes).collect()),
            ),
            (
                "drops_overflow",
                Column::U64(ps.iter().map(|p| p.stats.drops_overflow).collect()),
            ),
            (
                "drops_aqm",
                Column::U64(ps.iter().map(|p| p.stats.drops_aqm).collect()),
            ),
            (
                "marks",
                Column::U64(ps.iter().map(|p| p.stats.marks).collect()),
            ),
            (
                "mean_queue_pkts",
                Column::F64(
                    ps.iter()
                        .map(|p| p.stats.q_integral_pkt_ps as f64 / t)
                        .collect(),
                ),
            ),
            (
                "mean_queue_bytes",
                Column::F64(
                    ps.iter()
                        .map(|p| p.stats.q_integral_byte_ps as f64 / t)
                        .collect(),
                ),
            ),
            (
                "max_queue_pkts",
                Column::U32(ps.iter().map(|p| p.stats.max_q_pkts).collect()),
            ),
            (
                "utilization",
                Column::F64(
                    ps.iter()
                        .map(|p| {
                            p.stats.tx_bytes as f64 * 8.0
                                / (p.rate().as_f64() * t / PS_PER_S as f64)
                        })
                        .collect(),
                ),
            ),
            ("recorded", Column::U8(recorded)),
        ],
    };
    if let Some(p) = &sim.pools {
        // shared buffers: the largest occupancy of the pool each port draws from (0 at a
        // host's port) and the arrivals the pool's threshold refused at the port
        t.columns.push((
            "pool_max_bytes",
            Column::U64((0..ps.len()).map(|i| p.max_of_port(i)).collect()),
        ));
        t.columns.push(("pool_drops", Column::U64(p.drops.clone())));
    }
    if sim.pfc.is_some() {
        // PFC, per port over its classes: frames received and the time any class was paused
        let (rx, paused) = crate::sim::pfc::pause_by_port(sim);
        t.columns.push(("pause_rx", Column::U64(rx)));
        t.columns.push(("paused_s", Column::F64(paused)));
    }
    t
}

impl Simulation {
    /// Close the run: bring ports up to date, check conservation, return everything recorded.
    pub fn finish(mut self) -> Result<RunOutput, SimulationError> {
        let now = self.now;
        for p in self.ports.iter_mut() {
            p.close(now);
        }
        let ledger = self.ledger();
        if !ledger.balanced() {
            return Err(SimulationError(format!(
                "packet conservation violated: sent {} != delivered {} + dropped {} + in flight {}",
                ledger.sent, ledger.delivered, ledger.dropped, ledger.in_flight
            )));
        }
        Ok(RunOutput::collect(self, ledger))
    }
}
