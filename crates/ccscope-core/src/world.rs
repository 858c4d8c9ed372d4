//! Typed ids for the arenas the engine keeps (nodes, ports, routes, flows).
//!
//! Components never hold references to each other; they hold these ids, which index plain
//! `Vec`s owned by the [`crate::sim::Simulation`].

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A host or switch.
    NodeId
);
id_type!(
    /// An output port: the egress queue of one direction of a link.
    PortId
);
id_type!(
    /// A precomputed route: the ordered ports a packet crosses.
    RouteId
);
id_type!(
    /// A transport flow (one sender, one receiver).
    FlowId
);
