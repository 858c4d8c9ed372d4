//! Network: output ports (egress queue + link) and routes computed once.
pub mod port;
pub mod routing;
pub mod sched;
pub mod spray;
pub use port::{Admit, DropReason, Port, PortPath, PortStats};
pub use sched::Sched;
