//! subgraph-core: the graph model, file formats, candidate filters, matching orders, the
//! planner and the parallel CPU matcher that every engine of subgraph shares. A query flows
//! read (`io`) → graph (`graph`) → filter (`filter`) → order (`order`, `automorphism`) →
//! plan (`plan`, chosen by `planner` on `estimate`s) → candidate space (`space`) →
//! enumerate (`cpu`, counting its tail by `tail`; tree patterns counted without enumerating by
//! `tree`) → sink (`sink`).
//!
//! Modules import in one direction only (`scripts/import-loops.py` checks it): a module never
//! names one that names it back. Planning is layered as `order` (the orders' names) and
//! `estimate` (what an estimate is) → `plan` → `space` → `estimate::sampling` →
//! `order::compute` → `planner` → `pipeline`. A folder's `mod.rs` names the children it
//! declares, re-exports or calls (`graph`, `filter`, `io::binary`, `pipeline`), and those never
//! name it back; where children compute on the parent's own types instead (`order`, `estimate`,
//! `cpu::tail`), the parent does not name them.

pub mod automorphism;
pub mod bitset;
pub mod cpu;
pub mod decimal;
pub mod error;
pub mod estimate;
pub mod expand;
pub mod filter;
pub mod graph;
pub mod host;
pub mod intersect;
pub mod io;
pub mod oracle;
pub mod order;
pub mod pipeline;
pub mod plan;
pub mod planner;
pub mod query;
pub mod sink;
pub mod space;
pub mod spasm;
pub mod tail;
#[cfg(test)]
mod testing;
pub mod tree;

pub use error::{Error, Result};
pub use graph::{Dir, Graph, GraphBuilder, Id, LabelNames, VertexIds};
pub use query::{Query, Semantics};
