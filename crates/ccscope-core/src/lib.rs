//! # ccscope-core — the packet engine of ccscope
//!
//! A discrete-event simulator for datacenter congestion control. A tour of the layers, from
//! the bottom up:
//!
//! - [`units`]: picosecond [`units::SimTime`], [`units::BitsPerSec`], exact serialization times.
//! - [`engine`]: the `(time, seq)`-ordered [`engine::EventQueue`] of small `Copy` events.
//! - [`packet`], [`world`]: the `Copy` [`packet::Packet`] and typed arena ids.
//! - [`net`]: output ports (buffer + AQM + link) and routes computed once.
//! - [`aqm`]: queue policies (DropTail, DCTCP threshold, RED) behind one enum.
//! - [`cc`]: window congestion control (NewReno, DCTCP, DCTCP per-ACK) behind one enum.
//! - [`transport`]: TCP sender (NewReno recovery, RTO, ECN) and receiver (ECN echo, delayed ACK).
//! - [`record`]: columnar traces and the packet-conservation ledger.
//! - [`scenario`]: THE schema (serde, `deny_unknown_fields`) and its validation and expansion.
//! - [`flow`], [`workload`]: a flow's state and factory; workloads' flows created during the run.
//! - [`build`](mod@build) and [`sim`]: scenario -> [`sim::Simulation`] -> [`output::RunOutput`].
//!
//! What is NOT modelled: headers (packet size = wire size), SACK, Nagle, TCP handshake,
//! switch processing delay, link errors, PFC.

pub mod aqm;
pub mod budget;
pub mod build;
pub mod cc;
pub mod engine;
pub mod error;
pub mod flow;
pub mod fluid;
pub mod int;
pub mod net;
pub mod output;
pub mod packet;
pub mod rate;
pub mod record;
pub mod rng;
pub mod scenario;
pub mod sim;
mod tagged;
pub mod transport;
pub mod units;
pub mod workload;
pub mod world;

pub use error::{ScenarioError, SimulationError};
pub use output::RunOutput;
pub use scenario::{parse, Format, Scenario};
pub use sim::Simulation;

/// Parse, build and run a scenario to its end (or `until_s`), returning the recorded output.
pub fn run_scenario(
    text: &str,
    format: Format,
    until_s: Option<f64>,
) -> Result<RunOutput, Box<dyn std::error::Error + Send + Sync>> {
    let sc = parse(text, format)?;
    let mut sim = Simulation::new(&sc, until_s)?;
    sim.run();
    Ok(sim.finish()?)
}
