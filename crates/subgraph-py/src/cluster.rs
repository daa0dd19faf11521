//! One process of a cluster run, for `subgraph.cluster` (`python/subgraph/cluster.py`): the
//! queries of a file counted over a partition's manifest as process `process` of the hosts
//! file's, with subgraph-cluster (timely dataflow, as `match --cluster`). It is meant for a
//! process of its own (`python -m subgraph._cluster`), which `subgraph.cluster.count` starts:
//! a broken connection or a set-up past the connection timeout ends the process it runs in.

use crate::errors::{error, read_error, unknown};
use crate::graph::Graph;
use crate::options::{semantics_of, timeout_of};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;
use subgraph::numbering::{self, VertexOrder};
use subgraph_cluster::plan::{DEFAULT_ORDER, ORDERS};
use subgraph_cluster::replicate::DEFAULT_CACHE_BYTES;
use subgraph_cluster::{partition, read_hosts, Cluster, Local, Manifest, Matching, QueryCount, Rule};
use subgraph_core::io::{read_graphs, ReadOptions};
use subgraph_core::order::Order;
use subgraph_core::plan::Tail;
use subgraph_core::sink::{Control, Stopped};

/// Counts the queries of the file `query` over the partition at `manifest` as process
/// `process` of those `hosts` lists, with `threads` timely workers; on process 0, one dict per
/// query (the command line's JSON record of `match --cluster`: its count and the cluster's
/// fields; with `unique`, `automorphisms` and, when complete, `unique`, as `--unique`), else
/// None.
#[pyfunction]
#[pyo3(signature = (manifest, query, hosts, process, threads=1, semantics=None, limit=None, timeout=None,
    order=None, symmetry=true, cache_memory=None, connect_timeout=30.0, unique=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn cluster_process<'py>(
    py: Python<'py>,
    manifest: PathBuf,
    query: PathBuf,
    hosts: PathBuf,
    process: usize,
    threads: usize,
    semantics: Option<&str>,
    limit: Option<u64>,
    timeout: Option<f64>,
    order: Option<&str>,
    symmetry: bool,
    cache_memory: Option<u64>,
    connect_timeout: f64,
    unique: bool,
) -> PyResult<Option<Vec<Bound<'py, PyDict>>>> {
    let semantics = semantics_of(semantics.unwrap_or("embed"))?;
    let timeout = timeout_of(timeout)?;
    let order = match order {
        None => DEFAULT_ORDER,
        Some(name) => Order::from_name(name)
            .filter(|o| ORDERS.contains(o))
            .ok_or_else(|| unknown("order", name, &ORDERS.map(|o| o.name())))?,
    };
    let connect_timeout =
        subgraph_core::sink::timeout(connect_timeout).map_err(|e| error(format!("connect_timeout: {e}")))?;
    let addresses = read_hosts(&hosts).map_err(error)?;
    if process >= addresses.len() {
        return Err(error(format!("process {process}: {} lists {} processes", hosts.display(), addresses.len())));
    }
    let directed = Manifest::load(&manifest).map_err(error)?.directed;
    let opts = ReadOptions { directed, ..ReadOptions::default() };
    let name = query.display().to_string();
    let queries: Vec<(String, subgraph_core::Graph)> =
        read_graphs(&query, &opts).map_err(read_error)?.into_iter().map(|q| (name.clone(), q.graph)).collect();
    let matching = Matching { semantics, symmetry, order, limit, rows: None, unique, tail: Tail::Auto };
    let cluster = Cluster {
        addresses,
        process,
        threads,
        connect_timeout,
        cache_bytes: cache_memory.unwrap_or(DEFAULT_CACHE_BYTES),
    };
    let counts = py.detach(|| {
        let local = Local::load(&manifest, process, cluster.addresses.len())?;
        let interrupt = Arc::new(AtomicBool::new(false));
        let control = Arc::new(move || Control::new(timeout.map(|t| Instant::now() + t), interrupt.clone()));
        subgraph_cluster::run::run(&cluster, local, queries, &matching, control)
    });
    let Some(counts) = counts.map_err(error)? else { return Ok(None) };
    let records = counts.into_iter().map(|c| c.map_err(error).and_then(|c| record(py, &c)));
    records.collect::<PyResult<Vec<_>>>().map(Some)
}

/// Writes `data` in `parts` parts into `output` by `by` ("hash" or "range") in the numbering
/// `vertex_order` names ("auto", "file" or "degree"), as `subgraph partition`; returns the
/// manifest's path.
#[pyfunction]
#[pyo3(signature = (data, parts, output, by="hash", vertex_order="auto"))]
pub(crate) fn cluster_partition(
    py: Python<'_>,
    data: &Graph,
    parts: usize,
    output: PathBuf,
    by: &str,
    vertex_order: &str,
) -> PyResult<PathBuf> {
    let rule = Rule::from_name(by).ok_or_else(|| unknown("partition rule", by, &["hash", "range"]))?;
    let order = VertexOrder::from_name(vertex_order)
        .ok_or_else(|| unknown("vertex order", vertex_order, VertexOrder::NAMES))?;
    let graph = data.inner.clone();
    py.detach(|| {
        let graph = match numbering::partition_renumbers(order, &graph, None) {
            true => Arc::new(numbering::by_degree(&graph, None).map_err(|e| e.to_string())?),
            false => graph,
        };
        partition(&graph, parts, rule, &output).map_err(|e| e.to_string())
    })
    .map_err(error)?;
    Ok(output.join("manifest.json"))
}

/// A query's count as `match --cluster --format json` reports it.
fn record<'py>(py: Python<'py>, c: &QueryCount) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("embeddings", c.embeddings)?;
    d.set_item("complete", c.complete)?;
    let stopped = c.stopped.map(|s| match s {
        Stopped::Limit => "limit",
        Stopped::Timeout => "timeout",
        Stopped::Interrupted => "interrupted",
    });
    d.set_item("stopped", stopped)?;
    d.set_item("elapsed_ms", c.filter_ms + c.order_ms + c.enumerate_ms)?;
    d.set_item("filter_ms", c.filter_ms)?;
    d.set_item("order_ms", c.order_ms)?;
    d.set_item("enumerate_ms", c.enumerate_ms)?;
    d.set_item("candidates", c.candidates)?;
    d.set_item("order", c.order)?;
    d.set_item("tail", c.tail)?;
    d.set_item("restrictions", c.restrictions)?;
    d.set_item("multiplier", c.multiplier)?;
    d.set_item("processes", c.processes)?;
    d.set_item("bytes_sent", c.bytes_sent)?;
    d.set_item("busy_ms", &c.busy_ms)?;
    d.set_item("peak_rss_bytes", &c.peak_rss_bytes)?;
    d.set_item("replicated_positions", c.replicated_positions)?;
    d.set_item("replicated_entries", c.replicated_entries)?;
    d.set_item("search", c.search)?;
    d.set_item("automorphisms", c.automorphisms)?;
    d.set_item("unique", c.unique())?;
    Ok(d)
}
