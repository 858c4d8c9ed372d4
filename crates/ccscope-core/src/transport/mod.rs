//! TCP transport: the sender (NewReno loss recovery, RTO, ECN per RFC 3168) and the receiver
//! (cumulative ACKs, optional delayed ACKs, RFC 3168 ECE latch or the DCTCP ECN-echo state
//! machine). Sans-IO: both take `now` and packets, and are polled for output.
//!
//! Sequence numbers count segments (MSS-sized, the last one of a bulk flow may be shorter).
//!
//! `rdma`: the RDMA-style transport of the rate-controlled RoCE flows (go-back-N, NACKs, the
//! DCQCN notification point).

pub mod rdma;
pub mod receiver;
pub mod sender;
pub use receiver::{AckInfo, TcpReceiver};
pub use sender::{RtoEstimator, RttSampling, Segment, TcpSender, TcpSenderConfig};
