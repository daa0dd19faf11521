//! subgraph-bench: the workloads of the benchmarks: synthetic data graphs (R-MAT,
//! Barabási–Albert, Erdős–Rényi), GRR-like RDF (GGQ's data) and query sets extracted by random walks as in Sun & Luo's
//! SIGMOD 2020 study and GSI's evaluation; and the benchmark runner that times query sets and
//! reports them as CSV, Markdown and SVG.

pub mod ann_plot;
pub mod gen_graph;
pub mod gen_queries;
pub mod gen_rdf;
mod rng;
pub mod runner;

/// Errors of the generators.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// A generator parameter out of range or contradicting another.
    #[error("{0}")]
    Spec(String),
    /// Query extraction gave up: no walk produced a query of the asked kind.
    #[error("{0}")]
    NoQuery(String),
    #[error(transparent)]
    Core(#[from] subgraph_core::Error),
}
