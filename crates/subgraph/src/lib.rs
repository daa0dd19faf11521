//! subgraph, as a library: the runner that sends each query to the CPU or the GPU engine
//! (`--device cpu|gpu|auto`), patterns on it, and the options and results front ends use; the
//! command line and the Python package are built on it alone among the engines.
//!
//! - [`devices`]: [`Engine`], the engine of one data graph (the CPU pipeline of subgraph-core,
//!   the GPU engine of subgraph-gpu, or each query where its estimated cost is lower), and what
//!   a query came to ([`Ran`], [`TreeRan`]).
//! - [`derived`]: what queries derive from one data graph ([`Derived`]): the label triples
//!   that label expansions read and the label-free views that too many expansions run on.
//! - [`patterns`]: a pattern compiled onto the data graph (subgraph-pattern) and run through the
//!   [`Engine`]: its label expansions, its rows, and tree patterns counted or enumerated by
//!   GGQ's passes.
//! - [`record`]: one query of a run ([`Item`]: a query graph or a pattern) run through the
//!   [`Engine`], and its [`Record`], the JSON record `match --format json` writes and the server
//!   answers.
//! - [`parts`]: the parts a query is matched with, by name ([`parts::Parts`]).
//! - [`numbering`]: the data graph's vertex numbering the engines see, the file's or by degree
//!   ([`numbering::VertexOrder`]).
//! - [`explanation`]: how a query is planned, as `explain` reports it ([`Explanation`]).
//! - The options and results: [`MatchOptions`] and [`Report`] (both engines'), [`GpuOptions`]
//!   and its switches, [`GpuReport`], and the errors ([`GpuError`], [`CudaError`]).

pub mod derived;
pub mod devices;
pub mod explanation;
pub mod numbering;
pub mod parts;
pub mod patterns;
pub mod record;

pub use derived::Derived;
pub use devices::{Engine, GpuSlot, Lender, Ran, TreeRan};
pub use explanation::Explanation;
pub use record::{Item, Record};
pub use subgraph_core::pipeline::{MatchOptions, Report};
pub use subgraph_cuda::{CudaError, GpuUnavailable};
pub use subgraph_gpu::gpsm::options as gpsm;
pub use subgraph_gpu::{
    CandidateFilter, DepthFirst, GpuCount, GpuError, GpuOptions, GpuReport, GpuSet, LoadBalance, OutputScheme, Park,
    ParkLayout, Partitions, Spill, Strategy, Streamed, Structure, DFS_FRONTIER_ROWS, SHARED_QUERY_COST,
};
