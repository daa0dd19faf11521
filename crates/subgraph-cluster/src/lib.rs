//! subgraph-cluster: counting and listing a query's embeddings across processes on timely
//! dataflow, over a data graph partitioned into `.sgb` parts, after BiGJoin (Ammar, McSherry,
//! Salihoglu and Joglekar, VLDB 2018): partial matches are routed to the owner of the adjacency
//! list they are extended or intersected by.
//!
//! The flow runs one way: [`manifest`] (what a partition is, validated) → [`partition`](mod@partition)
//! (writing one) → [`load`] (a process's parts) → [`filter`] (each worker's candidates, made
//! global, by [`gather`]'s exchange to each process) → [`plan`] (the matching order, from subgraph-core's
//! planner) → [`replicate`] (the lists the plan reads, copied to every process) → [`dataflow`]
//! (one query on one worker; [`held`] where every list it reads is held) → [`emit`] (its
//! matches counted or written, the limit) → [`run`] (the processes connected, every query run,
//! the counts gathered and summed on process 0).

pub mod dataflow;
pub mod emit;
pub mod error;
pub mod filter;
pub mod gather;
pub mod held;
pub mod load;
pub mod manifest;
pub mod partition;
pub mod plan;
pub mod replicate;
pub mod run;

pub use emit::Rows;
pub use error::{Error, Result};
pub use load::Local;
pub use manifest::{Assignment, Manifest};
pub use partition::{partition, Rule};
pub use plan::ClusterPlan;
pub use run::{read_hosts, Cluster, Matching, QueryCount};
