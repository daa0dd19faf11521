//! The native half of the Python package `subgraph` (`python/subgraph/__init__.py` is the
//! other): graphs read from files or built from id arrays, and one query matched by the CPU
//! pipeline (`subgraph_core::pipeline`) with the GIL released, stopped by a timeout, a limit or
//! Ctrl-C (KeyboardInterrupt). Errors are `subgraph.SubgraphError` with the command line's
//! one-line messages.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use subgraph_core::filter::Filter;
use subgraph_core::io::{self, Format, ReadOptions};
use subgraph_core::pipeline::{run_query, MatchOptions, Report};
use subgraph_core::sink::{Control, Output, OutputFormat, Stopped};
use subgraph_core::{GraphBuilder, Semantics, VertexIds};

create_exception!(
    subgraph,
    SubgraphError,
    PyValueError,
    "A bad input or a query that cannot run, with its one-line message."
);

fn error(e: impl std::fmt::Display) -> PyErr {
    SubgraphError::new_err(e.to_string())
}

/// A labelled graph (data or query), immutable once built.
#[pyclass(frozen, module = "subgraph._native")]
struct Graph {
    inner: Arc<subgraph_core::Graph>,
}

#[pymethods]
impl Graph {
    /// Reads a graph file: Sun & Luo `.graph`, GSI `.g`, `.sgb`, edge lists, Matrix Market,
    /// KONECT; gzip and zstd are decompressed. `format` names the format when the extension
    /// does not; `directed` applies to edge lists.
    #[staticmethod]
    #[pyo3(signature = (path, format=None, directed=false))]
    fn from_file(py: Python<'_>, path: PathBuf, format: Option<&str>, directed: bool) -> PyResult<Graph> {
        let format = match format {
            None => None,
            Some(name) => Some(Format::from_name(name).ok_or_else(|| error(format!("unknown format '{name}'")))?),
        };
        let opts = ReadOptions { format, directed, ..ReadOptions::default() };
        let loaded = py.detach(|| io::read_graph(&path, &opts)).map_err(error)?;
        Ok(Graph { inner: Arc::new(loaded.graph) })
    }

    /// A graph of `num_vertices` vertices with the edges src[i] → dst[i] (int64 arrays of
    /// vertex numbers 0..num_vertices), `vertex_labels` (one per vertex, default 0) and
    /// `edge_labels` (one per edge, default 0). Duplicate edges are merged; self-loops dropped.
    #[staticmethod]
    #[pyo3(signature = (num_vertices, src, dst, vertex_labels=None, edge_labels=None, directed=false))]
    fn from_arrays(
        num_vertices: usize,
        src: PyReadonlyArray1<'_, i64>,
        dst: PyReadonlyArray1<'_, i64>,
        vertex_labels: Option<PyReadonlyArray1<'_, i64>>,
        edge_labels: Option<PyReadonlyArray1<'_, i64>>,
        directed: bool,
    ) -> PyResult<Graph> {
        let (src, dst) = (src.as_slice()?, dst.as_slice()?);
        if src.len() != dst.len() {
            return Err(error(format!("src has {} ids but dst has {}", src.len(), dst.len())));
        }
        let vertex = |what: &str, i: usize, x: i64| {
            u32::try_from(x)
                .ok()
                .filter(|&v| (v as usize) < num_vertices)
                .ok_or_else(|| error(format!("{what}[{i}] = {x} is not a vertex of 0..{num_vertices}")))
        };
        let label = |what: &str, i: usize, x: i64| {
            u32::try_from(x).map_err(|_| error(format!("{what}[{i}] = {x} is not a label (0..2^32)")))
        };
        let mut b = GraphBuilder::new(num_vertices, directed);
        if let Some(labels) = vertex_labels {
            let labels = labels.as_slice()?;
            if labels.len() != num_vertices {
                return Err(error(format!("{} vertex labels for {num_vertices} vertices", labels.len())));
            }
            let labels =
                labels.iter().enumerate().map(|(i, &x)| label("vertex_labels", i, x)).collect::<PyResult<_>>()?;
            b.set_labels(labels);
        }
        let edge_labels = edge_labels.as_ref().map(|l| l.as_slice()).transpose()?;
        if let Some(l) = edge_labels.filter(|l| l.len() != src.len()) {
            return Err(error(format!("{} edge labels for {} edges", l.len(), src.len())));
        }
        b.reserve_edges(src.len());
        for (i, (&s, &d)) in src.iter().zip(dst).enumerate() {
            let l = edge_labels.map_or(Ok(0), |l| label("edge_labels", i, l[i]))?;
            b.add_edge(vertex("src", i, s)?, vertex("dst", i, d)?, l);
        }
        let (graph, _) = b.try_build().map_err(error)?;
        Ok(Graph { inner: Arc::new(graph) })
    }

    /// Writes the graph; the format comes from the extension (`.sgb` loads at disk speed).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let format = Format::from_extension(&path).unwrap_or(Format::Binary);
        py.detach(|| io::write_graph(&self.inner, &path, format)).map_err(error)
    }

    #[getter]
    fn num_vertices(&self) -> usize {
        self.inner.num_vertices()
    }

    #[getter]
    fn num_edges(&self) -> u64 {
        self.inner.num_edges()
    }

    #[getter]
    fn directed(&self) -> bool {
        self.inner.is_directed()
    }

    /// Vertex labels, one per vertex (uint32).
    fn labels<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_slice(py, self.inner.labels())
    }

    /// The file's original vertex ids: None when they are the vertex numbers, else a uint64
    /// array or a list of names, indexed by vertex number.
    fn original_ids<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(match self.inner.ids().map(|ids| &**ids) {
            None => None,
            Some(VertexIds::Numbers(n)) => Some(PyArray1::from_slice(py, n).into_any()),
            Some(ids @ VertexIds::Names { .. }) => {
                let names: Vec<String> = (0..self.inner.num_vertices() as u32)
                    .map(|v| match ids.get(v) {
                        subgraph_core::Id::Name(s) => s.to_string(),
                        subgraph_core::Id::Number(x) => x.to_string(),
                    })
                    .collect();
                Some(names.into_pyobject(py)?.into_any())
            }
        })
    }

    fn __repr__(&self) -> String {
        let kind = if self.inner.is_directed() { "directed" } else { "undirected" };
        format!("Graph({} vertices, {} edges, {kind})", self.inner.num_vertices(), self.inner.num_edges())
    }
}

/// One query's result: the count and how the query ran.
#[pyclass(frozen, get_all, module = "subgraph._native")]
struct Result {
    /// Matches found; all of them when `complete`.
    embeddings: u128,
    complete: bool,
    /// None, "limit", "timeout" or "interrupted".
    stopped: Option<&'static str>,
    elapsed_ms: f64,
    filter_ms: f64,
    order_ms: f64,
    space_ms: f64,
    enumerate_ms: f64,
    /// The filter the candidates had and the plan's order.
    filter: &'static str,
    order: &'static str,
}

#[pymethods]
impl Result {
    fn __repr__(&self) -> String {
        format!(
            "Result(embeddings={}, complete={}, stopped={:?}, elapsed_ms={:.3})",
            self.embeddings,
            if self.complete { "True" } else { "False" },
            self.stopped,
            self.elapsed_ms
        )
    }
}

impl From<Report> for Result {
    fn from(r: Report) -> Result {
        Result {
            embeddings: r.embeddings,
            complete: r.complete,
            stopped: r.stopped.map(|s| match s {
                Stopped::Limit => "limit",
                Stopped::Timeout => "timeout",
                Stopped::Interrupted => "interrupted",
            }),
            elapsed_ms: r.elapsed_ms,
            filter_ms: r.filter_ms,
            order_ms: r.order_ms,
            space_ms: r.space_ms,
            enumerate_ms: r.enumerate_ms,
            filter: r.filter,
            order: r.order,
        }
    }
}

/// Where `run_query_py` collects the matches.
#[derive(Clone, Default)]
struct Words(Arc<Mutex<Vec<u8>>>);

impl Write for Words {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The match options of the keyword arguments.
fn options(semantics: &str, limit: Option<u64>, filter: &str) -> PyResult<MatchOptions> {
    let semantics = Semantics::from_name(semantics)
        .ok_or_else(|| error(format!("unknown semantics '{semantics}' (embed, induced or homomorphism)")))?;
    let filter = Filter::from_name(filter).ok_or_else(|| error(format!("unknown filter '{filter}'")))?;
    Ok(MatchOptions { semantics, limit, filter, ..MatchOptions::default() })
}

/// Runs one query with the GIL released, on `threads` threads (None: all cores), polling for
/// Ctrl-C: a KeyboardInterrupt stops the query and is raised once it has stopped.
fn run(
    py: Python<'_>,
    data: &Graph,
    query: &Graph,
    opts: MatchOptions,
    timeout: Option<f64>,
    threads: Option<usize>,
    output: Option<&Output>,
) -> PyResult<Report> {
    let deadline = match timeout {
        Some(s) if !(s >= 0.0 && s.is_finite()) => {
            return Err(error(format!("timeout {s} is not a number of seconds")))
        }
        Some(s) => Some(Instant::now() + Duration::from_secs_f64(s)),
        None => None,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.unwrap_or(0)).build().map_err(error)?;
    let interrupt = Arc::new(AtomicBool::new(false));
    let control = Control::new(deadline, interrupt.clone());
    let (data, query) = (&*data.inner, (*query.inner).clone());
    let report = std::thread::scope(|s| {
        let worker = s.spawn(|| pool.install(|| run_query(data, query, &opts, &control, output.map(|o| (o, "query")))));
        while !worker.is_finished() {
            py.detach(|| std::thread::sleep(Duration::from_millis(20)));
            if py.check_signals().is_err() {
                interrupt.store(true, Ordering::Relaxed);
            }
        }
        worker.join()
    });
    let report = report.map_err(|_| error("the matching thread panicked"))?.map_err(error)?;
    if interrupt.load(Ordering::Relaxed) {
        return Err(PyKeyboardInterrupt::new_err("the query was interrupted"));
    }
    Ok(report)
}

/// Matches `query` in `data`: the result and, with `collect`, the matches' data vertex numbers
/// as one u32 array, one per query vertex in query vertex order (the package's `count` and
/// `match` call this; `match` reshapes the array).
#[pyfunction]
#[pyo3(signature = (data, query, semantics, limit, timeout, threads, filter, collect))]
#[allow(clippy::too_many_arguments)]
fn run_query_py<'py>(
    py: Python<'py>,
    data: &Graph,
    query: &Graph,
    semantics: &str,
    limit: Option<u64>,
    timeout: Option<f64>,
    threads: Option<usize>,
    filter: &str,
    collect: bool,
) -> PyResult<(Result, Option<Bound<'py, PyArray1<u32>>>)> {
    let opts = options(semantics, limit, filter)?;
    if !collect {
        return Ok((run(py, data, query, opts, timeout, threads, None)?.into(), None));
    }
    let words = Words::default();
    let output = Output::new(Box::new(words.clone()), OutputFormat::Words);
    let report = run(py, data, query, opts, timeout, threads, Some(&output))?;
    output.finish().map_err(error)?;
    let bytes = std::mem::take(&mut *words.0.lock().unwrap_or_else(|e| e.into_inner()));
    let ids: Vec<u32> = bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
    Ok((report.into(), Some(PyArray1::from_vec(py, ids))))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Graph>()?;
    m.add_class::<Result>()?;
    m.add_function(wrap_pyfunction!(run_query_py, m)?)?;
    m.add("SubgraphError", m.py().get_type::<SubgraphError>())?;
    Ok(())
}
