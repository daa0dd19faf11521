//! GSI's join (Zeng et al., ICDE 2020) and its parts.

pub mod balance;
pub mod chunks;
pub mod device_graph;
pub mod filter;
pub mod hash;
pub mod join;
pub mod pcsr;
pub mod plan;
pub mod query;
pub mod signature;
