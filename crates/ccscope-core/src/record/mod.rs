//! Recorders: columnar trace tables filled during the run (append-only `Vec`s, reserved up
//! front from the sampling plan), plus the packet-conservation ledger.
//!
//! Tables hold raw integers (picoseconds, bytes); conversion to seconds happens once, when
//! the run's output is built.
//!
//! Sampled series have a size known before the run (series x samples), counted by the memory
//! budget (`budget.rs`). Event-driven series (drops and marks, every queue change, feedback
//! frames) have none, and share one mechanism, [`Spill`]:
//!
//! - without a spill directory, each holds at most its `cap_rows` (set inside the budget at
//!   build); rows past the cap are counted in `left_out`, not stored, and the output names the
//!   series in a `truncated` table (reason "memory");
//! - with one ([`SpillDir`], given by [`crate::sim::Simulation::set_spill`]), a series whose
//!   in-memory rows reach its chunk size (`SPILL_CHUNK_ROWS`, or its cap if smaller) writes
//!   them to one chunk file and clears its buffers (which keep their capacity), so its memory
//!   stays bounded by one chunk; the run's chunks together may use at most the directory's
//!   disk cap, past which (or on an I/O error) the series stops, reason "disk".
//!
//! The test on the hot path is the one it always was: one compare of the row count against
//! `Spill::limit` per row; writing a chunk is out of line.
//!
//! # Chunk files
//!
//! `<dir>/<series>-<index, 6 digits>.bin` (series: `drops`, `feedback`, `pfc`, `queue-<port id>`),
//! written once, never changed: the 8 bytes `CCSPILL1`, the row count (u64 little-endian),
//! then each column of the output table in turn (the order of the series' `COLUMNS`), `rows`
//! values each, little-endian, no padding. Dtypes: `f8` f64, `u8` u64, `u4` u32, `u1` u8,
//! `ps` u64 picoseconds (the output's seconds are `ps as f64 / 1e12`). One file per chunk
//! rather than one `.npy` per column: one open and one buffered write per 2^16 rows, and the
//! reader (numpy `frombuffer` at fixed offsets) needs no header parsing beyond the row count.

use crate::scenario::TraceKind;
use crate::units::SimTime;
use crate::world::{FlowId, PortId};
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Rows an event-driven series may hold at most, whatever the budget (2^24, ~16.8 million).
pub const MAX_EVENT_ROWS: u64 = 1 << 24;
/// Rows a spilling series holds in memory before it writes them as one chunk (2^16).
pub const SPILL_CHUNK_ROWS: u64 = 1 << 16;
/// First bytes of a chunk file.
pub const CHUNK_MAGIC: &[u8; 8] = b"CCSPILL1";
/// Bytes of a chunk file before its columns (magic, row count).
pub const CHUNK_HEADER_BYTES: u64 = 16;

/// How a column is stored in a chunk file (numpy-like codes, see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    F64,
    U64,
    U32,
    U8,
    /// u64 picoseconds, seconds in the output.
    Ps,
}

impl Dtype {
    pub fn code(self) -> &'static str {
        match self {
            Dtype::F64 => "f8",
            Dtype::U64 => "u8",
            Dtype::U32 => "u4",
            Dtype::U8 => "u1",
            Dtype::Ps => "ps",
        }
    }
    pub fn bytes(self) -> u64 {
        match self {
            Dtype::F64 | Dtype::U64 | Dtype::Ps => 8,
            Dtype::U32 => 4,
            Dtype::U8 => 1,
        }
    }
}

/// Why an event-driven series stopped recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Its row cap in memory (no spill directory).
    Memory,
    /// The spill directory's disk cap, or an I/O error writing a chunk.
    Disk,
}

impl StopReason {
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Memory => "memory",
            StopReason::Disk => "disk",
        }
    }
}

#[derive(Debug, Default)]
struct SpillDirState {
    created: bool,
    used_bytes: u64,
}

/// Where a run's event-driven series spill, shared by all of them: the directory (created on
/// the first chunk, so a run that never spills touches no file) and the disk cap of all chunks.
#[derive(Debug)]
pub struct SpillDir {
    pub path: PathBuf,
    pub disk_cap_bytes: u64,
    state: Mutex<SpillDirState>,
}

impl SpillDir {
    pub fn new(path: impl Into<PathBuf>, disk_cap_bytes: u64) -> Self {
        SpillDir {
            path: path.into(),
            disk_cap_bytes,
            state: Mutex::new(SpillDirState::default()),
        }
    }

    /// Bytes of chunk files written so far.
    pub fn used_bytes(&self) -> u64 {
        self.state.lock().map(|s| s.used_bytes).unwrap_or(0)
    }

    /// Write one chunk of `bytes` bytes (header included) to `file` inside the directory:
    /// refused past the disk cap; on an I/O error the partial file is removed and nothing is
    /// counted. The error says why, for the `truncated` table.
    fn write_chunk(
        &self,
        file: &str,
        rows: u64,
        bytes: u64,
        columns: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<PathBuf, String> {
        let mut st = match self.state.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        };
        if st.used_bytes.saturating_add(bytes) > self.disk_cap_bytes {
            return Err(format!(
                "disk cap {} of the spill directory reached",
                crate::units::fmt_bytes(self.disk_cap_bytes)
            ));
        }
        if !st.created {
            let mut b = std::fs::DirBuilder::new();
            b.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                b.mode(0o700);
            }
            b.create(&self.path)
                .map_err(|e| format!("cannot create {}: {e}", self.path.display()))?;
            st.created = true;
        }
        let path = self.path.join(file);
        let written = (|| -> io::Result<()> {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)?;
            let mut w = io::BufWriter::with_capacity(1 << 16, f);
            w.write_all(CHUNK_MAGIC)?;
            w.write_all(&rows.to_le_bytes())?;
            columns(&mut w)?;
            w.into_inner().map_err(|e| e.into_error())?;
            Ok(())
        })();
        match written {
            Ok(()) => {
                st.used_bytes += bytes;
                Ok(path)
            }
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                Err(format!("cannot write {}: {e}", path.display()))
            }
        }
    }
}

/// The state an event-driven series keeps about its cap, its chunks on disk and what it left
/// out. One per series; the series' `push` tests `rows >= limit` and calls [`make_room`] when
/// it holds.
#[derive(Clone, Debug, Default)]
pub struct Spill {
    /// Rows the series holds in memory before the next row spills them (or is left out):
    /// `cap_rows` without a spill directory, the chunk size with one.
    pub limit: usize,
    /// Rows the series may hold in memory (set at build, inside the memory budget).
    pub cap_rows: u64,
    /// Rows not recorded.
    pub left_out: u64,
    /// Rows per chunk when spilling.
    pub chunk_rows: u64,
    /// File name stem of its chunks.
    pub stem: String,
    pub dir: Option<Arc<SpillDir>>,
    /// Chunk files written, in order, with their rows.
    pub chunks: Vec<(PathBuf, u64)>,
    /// Rows in `chunks`.
    pub spilled_rows: u64,
    /// Set when the series stopped: why, and the detail (the cap, the I/O error).
    pub stopped: Option<(StopReason, String)>,
}

impl Spill {
    pub fn with_cap(cap_rows: u64, stem: &str) -> Self {
        Spill {
            limit: usize::try_from(cap_rows).unwrap_or(usize::MAX),
            cap_rows,
            stem: stem.to_string(),
            ..Default::default()
        }
    }

    /// Cap the rows held in memory (no spill directory: the rows kept).
    pub fn set_cap(&mut self, cap_rows: u64) {
        self.cap_rows = cap_rows;
        self.update_limit();
    }

    /// Spill chunks of `chunk_rows` (at most the cap, at least 1) into `dir`.
    pub fn set_dir(&mut self, dir: Arc<SpillDir>, chunk_rows: u64) {
        self.dir = Some(dir);
        self.chunk_rows = chunk_rows;
        self.update_limit();
    }

    fn update_limit(&mut self) {
        let rows = if self.dir.is_some() {
            self.chunk_rows.min(self.cap_rows).max(1)
        } else {
            self.cap_rows
        };
        self.limit = usize::try_from(rows).unwrap_or(usize::MAX);
    }

    /// Why rows were left out (None when every row was kept).
    pub fn reason(&self) -> Option<(StopReason, String)> {
        if self.left_out == 0 {
            return None;
        }
        Some(self.stopped.clone().unwrap_or((
            StopReason::Memory,
            format!("row cap {} in memory", self.cap_rows),
        )))
    }
}

/// A table of an event-driven series as its chunks store it.
pub trait SpillRows {
    /// Columns as written to a chunk: the output table's names and their storage.
    const COLUMNS: &'static [(&'static str, Dtype)];
    fn rows(&self) -> usize;
    fn write_columns(&self, w: &mut dyn Write) -> io::Result<()>;
    /// Empty the rows, keeping the buffers' capacity.
    fn clear_rows(&mut self);
    fn spill(&self) -> &Spill;
    fn spill_mut(&mut self) -> &mut Spill;
}

/// Bytes of one row in a chunk of `T`.
pub fn row_bytes<T: SpillRows>() -> u64 {
    T::COLUMNS.iter().map(|c| c.1.bytes()).sum()
}

/// The row count reached the series' limit: write the rows as one chunk and clear them (true:
/// the next row fits), or stop the series (false: the row is left out). Out of line: it runs
/// once per chunk, and on every row of a series that has stopped.
#[cold]
#[inline(never)]
pub fn make_room<T: SpillRows>(t: &mut T) -> bool {
    let sp = t.spill();
    if sp.stopped.is_some() {
        return false;
    }
    let Some(dir) = sp.dir.clone() else {
        return false;
    };
    let rows = t.rows() as u64;
    if rows == 0 {
        return true;
    }
    let file = format!("{}-{:06}.bin", sp.stem, sp.chunks.len());
    let bytes = CHUNK_HEADER_BYTES + rows * row_bytes::<T>();
    let written = dir.write_chunk(&file, rows, bytes, |w| t.write_columns(w));
    let sp = t.spill_mut();
    match written {
        Ok(path) => {
            sp.chunks.push((path, rows));
            sp.spilled_rows += rows;
            t.clear_rows();
            true
        }
        Err(why) => {
            sp.stopped = Some((StopReason::Disk, why));
            false
        }
    }
}

fn put_u64(w: &mut dyn Write, v: impl Iterator<Item = u64>) -> io::Result<()> {
    for x in v {
        w.write_all(&x.to_le_bytes())?;
    }
    Ok(())
}
fn put_u32(w: &mut dyn Write, v: impl Iterator<Item = u32>) -> io::Result<()> {
    for x in v {
        w.write_all(&x.to_le_bytes())?;
    }
    Ok(())
}
fn put_f64(w: &mut dyn Write, v: &[f64]) -> io::Result<()> {
    for x in v {
        w.write_all(&x.to_le_bytes())?;
    }
    Ok(())
}

/// A port's queue at every change: (time, queue pkts, queue bytes); see [`Spill`] for its cap.
#[derive(Clone, Debug, Default)]
pub struct ChangeLog {
    pub rows: Vec<(SimTime, u32, u64)>,
    /// The port (written to the chunks' `port` column).
    pub port: u32,
    pub spill: Spill,
}

impl ChangeLog {
    pub fn with_cap(cap_rows: u64) -> Self {
        Self::for_port(0, cap_rows)
    }
    pub fn for_port(port: u32, cap_rows: u64) -> Self {
        ChangeLog {
            rows: Vec::with_capacity(cap_rows.min(1024) as usize),
            port,
            spill: Spill::with_cap(cap_rows, &format!("queue-{port}")),
        }
    }
    #[inline]
    pub fn push(&mut self, row: (SimTime, u32, u64)) {
        if self.rows.len() >= self.spill.limit && !make_room(self) {
            self.spill.left_out += 1;
            return;
        }
        self.rows.push(row);
    }
}

impl SpillRows for ChangeLog {
    const COLUMNS: &'static [(&'static str, Dtype)] = &[
        ("time_s", Dtype::Ps),
        ("port", Dtype::U32),
        ("queue_pkts", Dtype::U32),
        ("queue_bytes", Dtype::U64),
    ];
    fn rows(&self) -> usize {
        self.rows.len()
    }
    fn write_columns(&self, w: &mut dyn Write) -> io::Result<()> {
        put_u64(w, self.rows.iter().map(|r| r.0 .0))?;
        put_u32(w, self.rows.iter().map(|_| self.port))?;
        put_u32(w, self.rows.iter().map(|r| r.1))?;
        put_u64(w, self.rows.iter().map(|r| r.2))
    }
    fn clear_rows(&mut self) {
        self.rows.clear();
    }
    fn spill(&self) -> &Spill {
        &self.spill
    }
    fn spill_mut(&mut self) -> &mut Spill {
        &mut self.spill
    }
}

/// Queue length samples (or every change) of the recorded ports.
#[derive(Clone, Debug, Default)]
pub struct QueueTable {
    pub time_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub pkts: Vec<u32>,
    pub bytes: Vec<u64>,
}

/// Cumulative bytes whose transmission started, per recorded port.
#[derive(Clone, Debug, Default)]
pub struct LinkTable {
    pub time_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub tx_bytes: Vec<u64>,
}

/// Per-flow samples: cwnd, ssthresh, alpha, delivered bytes.
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    pub time_ps: Vec<u64>,
    pub flow: Vec<u32>,
    pub cwnd_pkts: Vec<f64>,
    pub ssthresh_pkts: Vec<f64>,
    /// 1 while the flow is in fast recovery (cwnd then carries the dupack inflation).
    pub in_recovery: Vec<u8>,
    pub alpha: Vec<f64>,
    pub delivered_bytes: Vec<u64>,
    pub received_bytes: Vec<u64>,
}

/// Rate samples of rate-based flows.
#[derive(Clone, Debug, Default)]
pub struct RateTable {
    pub time_ps: Vec<u64>,
    pub flow: Vec<u32>,
    pub rate_bps: Vec<f64>,
    pub target_rate_bps: Vec<f64>,
}

/// 802.1Qau feedback frames: one row when a congestion point sends one (`event` 0) and one when
/// its source applies it (`event` 1). `a`/`b`: QCN quantized |Fb| and 0, or ASM's Qf and dQ
/// (signed quantum units). `queue_bytes` is set on send rows; the rates on apply rows.
#[derive(Clone, Debug, Default)]
pub struct FeedbackTable {
    pub time_ps: Vec<u64>,
    pub event: Vec<u8>,
    /// The congestion point's port (= CPID).
    pub cpid: Vec<u32>,
    pub flow: Vec<u32>,
    pub a: Vec<f64>,
    pub b: Vec<f64>,
    pub queue_bytes: Vec<f64>,
    pub rate_before_bps: Vec<f64>,
    pub rate_after_bps: Vec<f64>,
    /// When the frame was sent (for apply rows: the delay is time - sent).
    pub sent_ps: Vec<u64>,
    /// Its cap, chunks and rows left out.
    pub spill: Spill,
}

impl FeedbackTable {
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        time_ps: u64,
        event: u8,
        fb: &crate::rate::Feedback,
        flow: FlowId,
        queue_bytes: f64,
        rate_before_bps: f64,
        rate_after_bps: f64,
        sent_ps: u64,
    ) {
        if self.time_ps.len() >= self.spill.limit && !make_room(self) {
            self.spill.left_out += 1;
            return;
        }
        let (a, b) = match fb.kind {
            crate::rate::FeedbackKind::Qcn { fb_q } => (fb_q as f64, 0.0),
            crate::rate::FeedbackKind::Asm { qf, dq } => (qf as f64, dq as f64),
        };
        self.time_ps.push(time_ps);
        self.event.push(event);
        self.cpid.push(fb.cpid);
        self.flow.push(flow.0);
        self.a.push(a);
        self.b.push(b);
        self.queue_bytes.push(queue_bytes);
        self.rate_before_bps.push(rate_before_bps);
        self.rate_after_bps.push(rate_after_bps);
        self.sent_ps.push(sent_ps);
    }
}

impl SpillRows for FeedbackTable {
    const COLUMNS: &'static [(&'static str, Dtype)] = &[
        ("time_s", Dtype::Ps),
        ("event", Dtype::U8),
        ("port", Dtype::U32),
        ("flow", Dtype::U32),
        ("a", Dtype::F64),
        ("b", Dtype::F64),
        ("queue_bytes", Dtype::F64),
        ("rate_before_bps", Dtype::F64),
        ("rate_after_bps", Dtype::F64),
        ("sent_s", Dtype::Ps),
    ];
    fn rows(&self) -> usize {
        self.time_ps.len()
    }
    fn write_columns(&self, w: &mut dyn Write) -> io::Result<()> {
        put_u64(w, self.time_ps.iter().copied())?;
        w.write_all(&self.event)?;
        put_u32(w, self.cpid.iter().copied())?;
        put_u32(w, self.flow.iter().copied())?;
        put_f64(w, &self.a)?;
        put_f64(w, &self.b)?;
        put_f64(w, &self.queue_bytes)?;
        put_f64(w, &self.rate_before_bps)?;
        put_f64(w, &self.rate_after_bps)?;
        put_u64(w, self.sent_ps.iter().copied())
    }
    fn clear_rows(&mut self) {
        self.time_ps.clear();
        self.event.clear();
        self.cpid.clear();
        self.flow.clear();
        self.a.clear();
        self.b.clear();
        self.queue_bytes.clear();
        self.rate_before_bps.clear();
        self.rate_after_bps.clear();
        self.sent_ps.clear();
    }
    fn spill(&self) -> &Spill {
        &self.spill
    }
    fn spill_mut(&mut self) -> &mut Spill {
        &mut self.spill
    }
}

/// PFC frames (`[pfc]`, trace "pfc"), one row per frame as it reaches the port it acts on:
/// `event` 0 a pause (a first pause or a refresh), 1 a resume (quanta 0); `port` the paused
/// port (the upstream node's port into the switch that sent the frame); `sent_ps` when the
/// switch sent it (the frame took the reverse link's delay and its 64-byte frame time).
#[derive(Clone, Debug, Default)]
pub struct PfcTable {
    pub time_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub class: Vec<u8>,
    pub event: Vec<u8>,
    pub quanta: Vec<u32>,
    pub sent_ps: Vec<u64>,
    /// Its cap, chunks and rows left out.
    pub spill: Spill,
}

/// `PfcTable::event` of a pause frame.
pub const PFC_PAUSE: u8 = 0;
/// `PfcTable::event` of a resume frame (a PAUSE with quanta 0).
pub const PFC_RESUME: u8 = 1;

impl PfcTable {
    /// One frame reached `port` at `time_ps`.
    pub fn push(
        &mut self,
        time_ps: u64,
        port: PortId,
        class: u8,
        event: u8,
        quanta: u32,
        sent_ps: u64,
    ) {
        if self.time_ps.len() >= self.spill.limit && !make_room(self) {
            self.spill.left_out += 1;
            return;
        }
        self.time_ps.push(time_ps);
        self.port.push(port.0);
        self.class.push(class);
        self.event.push(event);
        self.quanta.push(quanta);
        self.sent_ps.push(sent_ps);
    }
}

impl SpillRows for PfcTable {
    const COLUMNS: &'static [(&'static str, Dtype)] = &[
        ("time_s", Dtype::Ps),
        ("port", Dtype::U32),
        ("class", Dtype::U8),
        ("event", Dtype::U8),
        ("quanta", Dtype::U32),
        ("sent_s", Dtype::Ps),
    ];
    fn rows(&self) -> usize {
        self.time_ps.len()
    }
    fn write_columns(&self, w: &mut dyn Write) -> io::Result<()> {
        put_u64(w, self.time_ps.iter().copied())?;
        put_u32(w, self.port.iter().copied())?;
        w.write_all(&self.class)?;
        w.write_all(&self.event)?;
        put_u32(w, self.quanta.iter().copied())?;
        put_u64(w, self.sent_ps.iter().copied())
    }
    fn clear_rows(&mut self) {
        self.time_ps.clear();
        self.port.clear();
        self.class.clear();
        self.event.clear();
        self.quanta.clear();
        self.sent_ps.clear();
    }
    fn spill(&self) -> &Spill {
        &self.spill
    }
    fn spill_mut(&mut self) -> &mut Spill {
        &mut self.spill
    }
}

/// What happened to a packet at a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PortEventKind {
    DropOverflow = 0,
    DropAqm = 1,
    Mark = 2,
}

/// Every drop and mark.
#[derive(Clone, Debug, Default)]
pub struct PortEventTable {
    pub time_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub flow: Vec<u32>,
    pub seq: Vec<u64>,
    pub kind: Vec<u8>,
    /// 0 = data, 1 = ack.
    pub packet_kind: Vec<u8>,
    /// Its cap, chunks and rows left out.
    pub spill: Spill,
}

impl SpillRows for PortEventTable {
    const COLUMNS: &'static [(&'static str, Dtype)] = &[
        ("time_s", Dtype::Ps),
        ("port", Dtype::U32),
        ("flow", Dtype::U32),
        ("seq", Dtype::U64),
        ("event", Dtype::U8),
        ("is_ack", Dtype::U8),
    ];
    fn rows(&self) -> usize {
        self.time_ps.len()
    }
    fn write_columns(&self, w: &mut dyn Write) -> io::Result<()> {
        put_u64(w, self.time_ps.iter().copied())?;
        put_u32(w, self.port.iter().copied())?;
        put_u32(w, self.flow.iter().copied())?;
        put_u64(w, self.seq.iter().copied())?;
        w.write_all(&self.kind)?;
        w.write_all(&self.packet_kind)
    }
    fn clear_rows(&mut self) {
        self.time_ps.clear();
        self.port.clear();
        self.flow.clear();
        self.seq.clear();
        self.kind.clear();
        self.packet_kind.clear();
    }
    fn spill(&self) -> &Spill {
        &self.spill
    }
    fn spill_mut(&mut self) -> &mut Spill {
        &mut self.spill
    }
}

/// Packet conservation: sent = delivered + dropped + in flight, checked at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
}

impl Ledger {
    pub fn balanced(&self) -> bool {
        self.sent == self.delivered + self.dropped + self.in_flight
    }
}

#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub want_queue: bool,
    pub want_link: bool,
    pub want_cwnd: bool,
    pub want_alpha: bool,
    pub want_delivered: bool,
    pub want_drops: bool,
    pub want_rate: bool,
    pub want_feedback: bool,
    pub want_pfc: bool,
    pub queue_every_change: bool,
    pub ports: Vec<PortId>,
    pub queue: QueueTable,
    pub link: LinkTable,
    pub flows: FlowTable,
    pub events: PortEventTable,
    pub rates: RateTable,
    pub feedback: FeedbackTable,
    pub pfc: PfcTable,
}

impl Recorder {
    pub fn new(traces: &[TraceKind], ports: Vec<PortId>, every_change: bool) -> Self {
        let has = |k| traces.contains(&k);
        Recorder {
            want_queue: has(TraceKind::Queue),
            want_link: has(TraceKind::Link),
            want_cwnd: has(TraceKind::Cwnd),
            want_alpha: has(TraceKind::Alpha),
            want_delivered: has(TraceKind::Delivered),
            want_drops: has(TraceKind::Drops),
            want_rate: has(TraceKind::Rate),
            want_feedback: has(TraceKind::Feedback),
            want_pfc: has(TraceKind::Pfc),
            queue_every_change: every_change && has(TraceKind::Queue),
            ports,
            events: PortEventTable {
                spill: Spill::with_cap(MAX_EVENT_ROWS, "drops"),
                ..Default::default()
            },
            feedback: FeedbackTable {
                spill: Spill::with_cap(MAX_EVENT_ROWS, "feedback"),
                ..Default::default()
            },
            pfc: PfcTable {
                spill: Spill::with_cap(MAX_EVENT_ROWS, "pfc"),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// Cap every event-driven series at `rows` (drops/marks, feedback; change logs are
    /// created with their share by the build).
    pub fn set_event_cap(&mut self, rows: u64) {
        self.events.spill.set_cap(rows);
        self.feedback.spill.set_cap(rows);
        self.pfc.spill.set_cap(rows);
    }

    /// Spill the drops/marks and feedback series into `dir` in chunks of `chunk_rows` (at
    /// most their caps); change logs are given theirs by [`crate::sim::Simulation::set_spill`].
    pub fn set_spill(&mut self, dir: &Arc<SpillDir>, chunk_rows: u64) {
        self.events.spill.set_dir(dir.clone(), chunk_rows);
        self.feedback.spill.set_dir(dir.clone(), chunk_rows);
        self.pfc.spill.set_dir(dir.clone(), chunk_rows);
    }

    pub fn wants_flow_samples(&self) -> bool {
        self.want_cwnd || self.want_alpha || self.want_delivered || self.want_rate
    }

    pub fn wants_queue_samples(&self) -> bool {
        (self.want_queue && !self.queue_every_change) || self.want_link
    }

    #[inline]
    pub fn port_event(
        &mut self,
        time_ps: u64,
        port: PortId,
        flow: FlowId,
        seq: u64,
        kind: PortEventKind,
        is_ack: bool,
    ) {
        if self.want_drops {
            let e = &mut self.events;
            if e.time_ps.len() >= e.spill.limit && !make_room(e) {
                e.spill.left_out += 1;
                return;
            }
            e.time_ps.push(time_ps);
            e.port.push(port.0);
            e.flow.push(flow.0);
            e.seq.push(seq);
            e.kind.push(kind as u8);
            e.packet_kind.push(is_ack as u8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_series_stop_at_their_cap_and_count_what_they_leave_out() {
        let mut r = Recorder::new(&[TraceKind::Drops], vec![], false);
        r.set_event_cap(3);
        for i in 0..10 {
            r.port_event(
                i,
                PortId(0),
                FlowId(0),
                i,
                PortEventKind::DropOverflow,
                false,
            );
        }
        assert_eq!(r.events.time_ps, vec![0, 1, 2]);
        assert_eq!(r.events.spill.left_out, 7);
        assert_eq!(r.events.spill.reason().unwrap().0, StopReason::Memory);
        let mut log = ChangeLog::with_cap(2);
        for i in 0..5 {
            log.push((SimTime(i), 1, 2));
        }
        assert_eq!((log.rows.len(), log.spill.left_out), (2, 3));
    }

    /// A path under the temporary directory, removed (file or tree) when dropped, a failed
    /// assertion included.
    struct Scratch(PathBuf);
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
            let _ = std::fs::remove_file(&self.0);
        }
    }
    impl std::ops::Deref for Scratch {
        type Target = PathBuf;
        fn deref(&self) -> &PathBuf {
            &self.0
        }
    }

    fn scratch(name: &str) -> Scratch {
        let d =
            std::env::temp_dir().join(format!("ccscope-spill-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        Scratch(d)
    }

    /// The columns of a chunk file as u64 bit patterns (every test column is integer).
    fn read_chunk(path: &std::path::Path, cols: &[(&str, Dtype)]) -> Vec<Vec<u64>> {
        let b = std::fs::read(path).unwrap();
        assert_eq!(&b[..8], CHUNK_MAGIC);
        let rows = u64::from_le_bytes(b[8..16].try_into().unwrap()) as usize;
        let width: u64 = cols.iter().map(|c| c.1.bytes()).sum();
        assert_eq!(b.len() as u64, CHUNK_HEADER_BYTES + rows as u64 * width);
        let mut at = 16;
        cols.iter()
            .map(|(_, d)| {
                let n = d.bytes() as usize;
                (0..rows)
                    .map(|_| {
                        let mut x = [0u8; 8];
                        x[..n].copy_from_slice(&b[at..at + n]);
                        at += n;
                        u64::from_le_bytes(x)
                    })
                    .collect()
            })
            .collect()
    }

    fn drops(r: &mut Recorder, n: u64) {
        for i in 0..n {
            r.port_event(
                1000 + i,
                PortId(i as u32 % 3),
                FlowId(7),
                i * 10,
                PortEventKind::Mark,
                i % 2 == 1,
            );
        }
    }

    #[test]
    fn a_spilled_series_is_its_chunks_then_its_tail_with_every_row_and_bounded_memory() {
        let dir = scratch("rows");
        let mut r = Recorder::new(&[TraceKind::Drops], vec![], false);
        r.set_event_cap(1000);
        let d = Arc::new(SpillDir::new(dir.as_path(), u64::MAX));
        r.set_spill(&d, 4);
        assert!(!dir.exists(), "nothing is created before the first chunk");
        drops(&mut r, 10);
        let e = &r.events;
        assert_eq!(e.spill.chunks.len(), 2);
        assert_eq!(
            (e.spill.spilled_rows, e.time_ps.len(), e.spill.left_out),
            (8, 2, 0)
        );
        // the buffers were cleared and reused, never grown past a chunk
        assert!(e.time_ps.capacity() <= 8 && e.packet_kind.capacity() <= 8);
        let mut time = vec![];
        let mut ack = vec![];
        for (path, rows) in &e.spill.chunks {
            let c = read_chunk(path, PortEventTable::COLUMNS);
            assert_eq!(c[0].len() as u64, *rows);
            time.extend(c[0].iter().copied());
            ack.extend(c[5].iter().copied());
        }
        time.extend(e.time_ps.iter().copied());
        ack.extend(e.packet_kind.iter().map(|&x| x as u64));
        assert_eq!(time, (1000..1010).collect::<Vec<u64>>());
        assert_eq!(ack, (0..10).map(|i| i % 2).collect::<Vec<u64>>());
        assert_eq!(d.used_bytes(), 2 * (CHUNK_HEADER_BYTES + 4 * 26));
        assert!(r.events.spill.reason().is_none());
    }

    #[test]
    fn a_series_that_fits_one_chunk_writes_nothing() {
        let dir = scratch("none");
        let mut r = Recorder::new(&[TraceKind::Drops], vec![], false);
        let d = Arc::new(SpillDir::new(dir.as_path(), u64::MAX));
        r.set_spill(&d, 16);
        drops(&mut r, 16);
        assert!(!dir.exists());
        assert_eq!(r.events.time_ps.len(), 16);
    }

    #[test]
    fn the_chunk_is_at_most_the_memory_cap() {
        let mut r = Recorder::new(&[TraceKind::Drops], vec![], false);
        r.set_event_cap(3);
        r.set_spill(
            &Arc::new(SpillDir::new(scratch("limit").as_path(), 0)),
            SPILL_CHUNK_ROWS,
        );
        assert_eq!(r.events.spill.limit, 3);
    }

    #[test]
    fn past_the_disk_cap_the_series_stops_and_says_disk() {
        let dir = scratch("cap");
        let chunk = CHUNK_HEADER_BYTES + 4 * 24;
        let d = Arc::new(SpillDir::new(dir.as_path(), 2 * chunk + 10));
        // two change logs share the directory's cap
        let mut a = ChangeLog::for_port(1, 1000);
        let mut b = ChangeLog::for_port(2, 1000);
        a.spill.set_dir(d.clone(), 4);
        b.spill.set_dir(d.clone(), 4);
        for i in 0..6 {
            a.push((SimTime(i), i as u32, 2 * i));
        }
        for i in 0..10 {
            b.push((SimTime(i), 1, 2));
        }
        assert_eq!((a.spill.chunks.len(), a.rows.len()), (1, 2));
        // b wrote one chunk, then the cap stopped it: 4 rows stay in memory, 2 left out
        assert_eq!(
            (b.spill.chunks.len(), b.rows.len(), b.spill.left_out),
            (1, 4, 2)
        );
        let (why, detail) = b.spill.reason().unwrap();
        assert_eq!(why, StopReason::Disk);
        assert!(detail.contains("disk cap"), "{detail}");
        let c = read_chunk(&a.spill.chunks[0].0, ChangeLog::COLUMNS);
        assert_eq!(c[0], vec![0, 1, 2, 3]);
        assert_eq!(c[1], vec![1, 1, 1, 1]);
        assert_eq!(c[3], vec![0, 2, 4, 6]);
        assert_eq!(d.used_bytes(), 2 * chunk);
    }

    #[test]
    fn an_io_error_stops_the_series_with_the_error_never_a_panic() {
        // the spill directory cannot be created: its parent is a regular file
        let f = scratch("file");
        std::fs::write(f.as_path(), b"x").unwrap();
        let mut r = Recorder::new(&[TraceKind::Drops], vec![], false);
        r.set_spill(&Arc::new(SpillDir::new(f.join("sub"), u64::MAX)), 2);
        drops(&mut r, 5);
        assert_eq!((r.events.time_ps.len(), r.events.spill.left_out), (2, 3));
        let (why, detail) = r.events.spill.reason().unwrap();
        assert_eq!(why, StopReason::Disk);
        assert!(detail.starts_with("cannot create"), "{detail}");
    }
}
