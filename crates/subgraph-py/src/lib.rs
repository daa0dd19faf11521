//! The native half of the Python package `subgraph` (`python/subgraph/__init__.py` is the
//! other): graphs read from files or built from id arrays, and one query (a query graph, or a
//! pattern's text run by `subgraph::patterns`, as `match --pattern`) matched on the device
//! asked for (`subgraph::Engine`, as the command line's `--device`: the CPU pipeline, the GPU
//! engine, or per query by estimated cost) with the GIL released, stopped by a timeout, a limit
//! or Ctrl-C (KeyboardInterrupt); vector indexes (`ann`, for `subgraph.ann`) and matrix
//! factorisation models (`mf`, for `subgraph.mf`); one process of a cluster count (`cluster`,
//! for `subgraph.cluster`). Errors are `subgraph.SubgraphError` with the
//! command line's one-line messages, worded with the package's arguments where those name the
//! command line's options.

mod ann;
mod cluster;
mod errors;
mod graph;
mod mf;
mod options;
mod query;
mod result;

use errors::SubgraphError;
use graph::Graph;
use options::QueryArgs;
use pyo3::prelude::*;
use query::{explain, run_query_py, MatchBatches};
use result::Result;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Graph>()?;
    m.add_class::<ann::AnnIndex>()?;
    m.add_class::<mf::MfModel>()?;
    m.add_class::<Result>()?;
    m.add_class::<MatchBatches>()?;
    m.add_class::<QueryArgs>()?;
    m.add_function(wrap_pyfunction!(run_query_py, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(cluster::cluster_process, m)?)?;
    m.add_function(wrap_pyfunction!(cluster::cluster_partition, m)?)?;
    m.add("SubgraphError", m.py().get_type::<SubgraphError>())?;
    Ok(())
}
