//! Network: output ports (egress queue + link) and routes computed once.
pub mod port;
pub mod routing;
pub use port::{Admit, DropReason, Port, PortStats};
