//! GSI's join (Zeng et al., ICDE 2020) and its parts: one query on one device (`query`, `plan`),
//! the join steps (`join`, `join.cu`) in chunks within the memory budget (`chunks`) with their
//! load balancing (`balance`), the data graph on the device (`device_graph`) in PCSR (`pcsr`,
//! `pcsr.cu`, `hash`), and the signature filter (`signature`, `filter`, `filter.cu`).

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
