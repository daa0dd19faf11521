//! The native half of the Python package `subgraph` (`python/subgraph/__init__.py` is the
//! other): graphs read from files or built from id arrays, and one query (a query graph, or a
//! pattern's text run by `subgraph_gpu::patterns`, as `match --pattern`) matched on the device
//! asked for (`subgraph_gpu::Engine`, as the command line's `--device`: the CPU pipeline, the GPU
//! engine, or per query by estimated cost) with the GIL released, stopped by a timeout, a limit
//! or Ctrl-C (KeyboardInterrupt). Errors are `subgraph.SubgraphError` with the command line's
//! one-line messages.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use subgraph_core::automorphism::Automorphisms;
use subgraph_core::filter::Filter;
use subgraph_core::io::{self, Format, IdMode, ReadOptions};
use subgraph_core::pipeline::{explain_query, run_query, MatchOptions};
use subgraph_core::sink::{Control, Output, OutputFormat, Stopped};
use subgraph_core::{GraphBuilder, Semantics, VertexIds};
use subgraph_gpu::patterns::{run_pattern, Derived};
use subgraph_gpu::{Engine, GpuCount, GpuError, GpuOptions, Ran};
use subgraph_pattern::{Pattern, Return};

create_exception!(
    subgraph,
    SubgraphError,
    PyValueError,
    "A bad input or a query that cannot run, with its one-line message."
);

fn error(e: impl std::fmt::Display) -> PyErr {
    SubgraphError::new_err(e.to_string())
}

/// What an opened engine is for: the device name (`auto`, `gpu`) and the GPU count.
type EngineKey = (String, GpuCount);

/// A labelled graph (data or query), immutable once built.
#[pyclass(frozen, module = "subgraph._native")]
struct Graph {
    inner: Arc<subgraph_core::Graph>,
    /// The engines opened for it as a data graph, per `device` name (`auto`, `gpu`) and GPU
    /// count: opening one uploads the graph to its GPUs, once.
    engines: Mutex<Vec<(EngineKey, Arc<Mutex<Engine>>)>>,
    /// What patterns derive from it as a data graph, made once.
    derived: Arc<Derived>,
}

impl Graph {
    fn new(graph: subgraph_core::Graph) -> Graph {
        Graph { inner: Arc::new(graph), engines: Mutex::new(Vec::new()), derived: Arc::default() }
    }

    /// The engine for `device` (auto or gpu) on `gpus` GPUs, opened on first use; None for the
    /// CPU (asked for, or all `auto` found).
    fn engine(&self, device: &str, gpus: GpuCount) -> PyResult<Option<Arc<Mutex<Engine>>>> {
        if device == "cpu" {
            return Ok(None);
        }
        if device != "auto" && device != "gpu" {
            return Err(error(format!("unknown device '{device}' (auto, cpu or gpu)")));
        }
        let mut engines = self.engines.lock().unwrap_or_else(|e| e.into_inner());
        let engine = match engines.iter().find(|((d, g), _)| d == device && *g == gpus) {
            Some((_, e)) => e.clone(),
            None => {
                let opened = Engine::open(device, self.inner.clone(), GpuOptions { gpus, ..GpuOptions::default() })
                    .map_err(|e| error(format!("device gpu: {e}")))?;
                let e = Arc::new(Mutex::new(opened));
                engines.push(((device.to_string(), gpus), e.clone()));
                e
            }
        };
        let on_gpu = engine.lock().unwrap_or_else(|e| e.into_inner()).has_gpu();
        Ok(on_gpu.then_some(engine))
    }
}

#[pymethods]
impl Graph {
    /// Reads a graph file: Sun & Luo `.graph`, GSI `.g`, `.sgb`, edge lists, Matrix Market,
    /// KONECT, RDF; gzip and zstd are decompressed. `format` names the format when the extension
    /// does not; `directed` applies to edge lists. As the command line's options of the same
    /// names: `vertex_labels`, a file of `id label` lines (edge lists, mtx, KONECT);
    /// `vertex_props`, a CSV file of vertex properties for patterns' property tests; `ids`, how
    /// edge lists', mtx and KONECT ids become vertices: "compact" (numbers compacted to 0..n),
    /// "keep" (`--keep-ids`) or "names" (`--string-ids`).
    #[staticmethod]
    #[pyo3(signature = (path, format=None, directed=false, vertex_labels=None, vertex_props=None, ids="compact"))]
    fn from_file(
        py: Python<'_>,
        path: PathBuf,
        format: Option<&str>,
        directed: bool,
        vertex_labels: Option<PathBuf>,
        vertex_props: Option<PathBuf>,
        ids: &str,
    ) -> PyResult<Graph> {
        let format = match format {
            None => None,
            Some(name) => Some(Format::from_name(name).ok_or_else(|| error(format!("unknown format '{name}'")))?),
        };
        let ids = match ids {
            "compact" => IdMode::Compact,
            "keep" => IdMode::Keep,
            "names" => IdMode::Names,
            other => return Err(error(format!("unknown ids '{other}' (compact, keep or names)"))),
        };
        let opts = ReadOptions { format, directed, vertex_labels, ids, ..ReadOptions::default() };
        let graph = py
            .detach(|| {
                let mut graph = io::read_graph(&path, &opts)?.graph;
                if let Some(props) = &vertex_props {
                    let props = io::props::read(props, &graph, None)?;
                    graph.set_properties(props);
                }
                Ok::<_, subgraph_core::Error>(graph)
            })
            .map_err(error)?;
        Ok(Graph::new(graph))
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
        Ok(Graph::new(graph))
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
    /// With `unique=True`: |Aut(query)|, and the distinct subgraphs (embeddings / |Aut|) when
    /// the count is complete.
    automorphisms: Option<u128>,
    unique: Option<u128>,
    /// Where it ran: "cpu" or "gpu"; and why a query meant for the GPU ran on the CPU.
    device: &'static str,
    note: Option<String>,
    /// Patterns only: the result rows (after RETURN, DISTINCT and LIMIT; 1 for `count(*)`)
    /// and their column names.
    rows: Option<u128>,
    columns: Option<Vec<String>>,
}

#[pymethods]
impl Result {
    fn __repr__(&self) -> String {
        format!(
            "Result(embeddings={}, complete={}, stopped={}, elapsed_ms={:.3})",
            self.embeddings,
            if self.complete { "True" } else { "False" },
            self.stopped.map_or("None".to_string(), |s| format!("'{s}'")),
            self.elapsed_ms
        )
    }
}

impl From<Ran> for Result {
    fn from(ran: Ran) -> Result {
        let r = ran.report;
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
            automorphisms: None,
            unique: None,
            device: if ran.gpu.is_some() { "gpu" } else { "cpu" },
            note: ran.note,
            rows: None,
            columns: None,
        }
    }
}

/// Where a listing query's matches go: all collected in memory, or sent in batches to an
/// iterator (a bounded channel: the engine waits while the reader is behind).
#[derive(Clone)]
enum Sink {
    Collect(Arc<Mutex<Vec<u8>>>),
    Send(SyncSender<Vec<u8>>),
}

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Collect(all) => all.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(b),
            Sink::Send(to) => to.send(b.to_vec()).map_err(|_| std::io::ErrorKind::BrokenPipe)?,
        }
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

/// `timeout` as a duration; an error unless it is a number of seconds.
fn timeout_of(timeout: Option<f64>) -> PyResult<Option<Duration>> {
    match timeout {
        Some(s) if !(s >= 0.0 && s.is_finite()) => Err(error(format!("timeout {s} is not a number of seconds"))),
        t => Ok(t.map(Duration::from_secs_f64)),
    }
}

/// A control whose deadline is `timeout` from now, stopped by `interrupt` too.
fn control(timeout: Option<Duration>, interrupt: &Arc<AtomicBool>) -> Control {
    Control::new(timeout.map(|t| Instant::now() + t), interrupt.clone())
}

/// The pool of `threads` threads, made once per size and kept (a pool costs a thread start per
/// thread); None for all cores, rayon's global pool.
fn pool(threads: Option<usize>) -> PyResult<Option<Arc<ThreadPool>>> {
    static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());
    let Some(n) = threads else { return Ok(None) };
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(k, _)| *k == n) {
        return Ok(Some(p.clone()));
    }
    let p = Arc::new(ThreadPoolBuilder::new().num_threads(n).build().map_err(error)?);
    pools.push((n, p.clone()));
    Ok(Some(p))
}

/// Runs `work` in `pool` (None: where it is called, in rayon's global pool).
fn in_pool<T: Send>(pool: &Option<Arc<ThreadPool>>, work: impl FnOnce() -> T + Send) -> T {
    match pool {
        Some(p) => p.install(work),
        None => work(),
    }
}

/// How long a waiting call sleeps between looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Receives from `rx` with the GIL released, looking for Ctrl-C every [`SIGNAL_POLL`]: Ctrl-C
/// raises `interrupt` (which stops the work that sends) and the wait goes on. None when the
/// sender is gone.
fn receive<T: Send>(py: Python<'_>, rx: &Mutex<Receiver<T>>, interrupt: &AtomicBool) -> Option<T> {
    loop {
        match py.detach(|| rx.lock().unwrap_or_else(|e| e.into_inner()).recv_timeout(SIGNAL_POLL)) {
            Ok(v) => return Some(v),
            Err(RecvTimeoutError::Disconnected) => return None,
            Err(RecvTimeoutError::Timeout) => {
                if py.check_signals().is_err() {
                    interrupt.store(true, Ordering::Relaxed);
                }
            }
        }
    }
}

/// Runs `work` on a thread of rayon's global pool (starting a thread per call would cost tens
/// of microseconds) and waits for it with the GIL released; Ctrl-C raises `interrupt` for the
/// work to stop, and KeyboardInterrupt once it has.
fn run_detached<T: Send + 'static, E: std::fmt::Display + Send + 'static>(
    py: Python<'_>,
    interrupt: &AtomicBool,
    work: impl FnOnce() -> std::result::Result<T, E> + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    rayon::spawn(move || {
        let _ = tx.send(work());
    });
    let out = receive(py, &Mutex::new(rx), interrupt).ok_or_else(|| error("the matching thread panicked"))?;
    if interrupt.load(Ordering::Relaxed) {
        return Err(PyKeyboardInterrupt::new_err("the query was interrupted"));
    }
    out.map_err(error)
}

/// The arguments every query call takes, as the package passes them: (semantics, limit,
/// timeout, threads, filter, device, gpus); semantics None is the default of the query's kind.
#[derive(FromPyObject)]
struct QueryArgs(Option<String>, Option<u64>, Option<f64>, Option<usize>, String, String, Gpus);

/// `gpus`: a positive number, or "all" (as the command line's --gpus).
#[derive(FromPyObject)]
enum Gpus {
    Count(i64),
    Name(String),
}

impl Gpus {
    fn count(&self) -> PyResult<GpuCount> {
        match self {
            Gpus::Count(n) if *n > 0 => Ok(GpuCount::Count(*n as usize)),
            Gpus::Name(s) if s == "all" => Ok(GpuCount::All),
            Gpus::Count(n) => Err(error(format!("gpus must be a positive number or \"all\", got {n}"))),
            Gpus::Name(s) => Err(error(format!("gpus must be a positive number or \"all\", got \"{s}\""))),
        }
    }
}

/// What a query call matches: a query graph, or a pattern's text (as `match --pattern`).
#[derive(FromPyObject)]
enum Query<'py> {
    Graph(PyRef<'py, Graph>),
    Pattern(String),
}

/// A query call's query, read: a query graph, or a parsed pattern.
enum Read {
    Graph(Arc<subgraph_core::Graph>),
    Pattern(Box<Pattern>),
}

/// One query's work, to run off the GIL: its result, or the error's message.
type Work = Box<dyn FnOnce() -> std::result::Result<Result, String> + Send>;

/// A query ready to run, and the shape of its rows: `columns` names a pattern's (None for a
/// query graph, whose rows have one column per query vertex); `count_star` says the pattern's
/// one row is its count (`Result.embeddings`), which no match writes.
struct Prepared {
    work: Work,
    columns: Option<Vec<String>>,
    count_star: bool,
}

/// The work of one query as `args` say: `query` matched in `data`, stopped by `interrupt` too,
/// written to `output` (`OutputFormat::Words`: a query graph's matches, a pattern's rows) when
/// given; with `unique`, distinct subgraphs are counted too.
fn query_work(
    data: &Graph,
    query: &Query<'_>,
    args: &QueryArgs,
    unique: bool,
    interrupt: &Arc<AtomicBool>,
    output: Option<Output>,
) -> PyResult<Prepared> {
    let QueryArgs(semantics, limit, timeout, threads, filter, device, gpus) = args;
    // A pattern is read first, so that a mistake in it shows whatever else is wrong.
    let query = match query {
        Query::Graph(q) => Read::Graph(q.inner.clone()),
        Query::Pattern(text) => Read::Pattern(Box::new(subgraph_pattern::parse(text).map_err(error)?)),
    };
    let default = if matches!(query, Read::Pattern(_)) { "homomorphism" } else { "embed" };
    let opts = options(semantics.as_deref().unwrap_or(default), *limit, filter)?;
    if unique && opts.semantics == Semantics::Homomorphism {
        return Err(error("unique is refused for homomorphisms, which do not define distinct subgraphs"));
    }
    let control = Arc::new(control(timeout_of(*timeout)?, interrupt));
    let engine = data.engine(device, gpus.count()?)?;
    let (graph, pool) = (data.inner.clone(), pool(*threads)?);
    Ok(match query {
        Read::Graph(query) => {
            let auts = unique.then(|| Automorphisms::of(&query).order()).flatten();
            let query = (*query).clone();
            let work = move || {
                let output = output.as_ref().map(|o| (o, "query"));
                let ran = in_pool(&pool, || match &engine {
                    Some(e) => e.lock().unwrap_or_else(|e| e.into_inner()).run(&graph, query, &opts, &control, output),
                    None => run_query(&graph, query, &opts, &control, output)
                        .map(|report| Ran { report, gpu: None, choice: None, note: None })
                        .map_err(GpuError::from),
                })
                .map_err(|e| e.to_string())?;
                let distinct = ran.report.unique(auts);
                let mut result = Result::from(ran);
                (result.automorphisms, result.unique) = (auts, distinct);
                Ok(result)
            };
            Prepared { work: Box::new(work), columns: None, count_star: false }
        }
        Read::Pattern(pattern) => {
            let (columns, count_star) = (pattern.column_names(), pattern.returns == Return::CountStar);
            let derived = data.derived.clone();
            let output = output.map(Arc::new);
            let work = move || {
                let run = in_pool(&pool, || {
                    let mut cpu = Engine::Cpu { why: None };
                    let mut held = engine.as_ref().map(|e| e.lock().unwrap_or_else(|e| e.into_inner()));
                    let engine = held.as_deref_mut().unwrap_or(&mut cpu);
                    run_pattern(
                        &pattern,
                        "pattern",
                        &graph,
                        engine,
                        &opts,
                        &control,
                        output.as_ref(),
                        unique,
                        true,
                        &derived,
                    )
                })
                .map_err(|e| e.to_string())?;
                let mut result = Result::from(run.ran);
                (result.unique, result.rows, result.columns) = (run.unique, Some(run.rows), Some(run.names));
                Ok(result)
            };
            Prepared { work: Box::new(work), columns: Some(columns), count_star }
        }
    })
}

/// Matches `query` (a Graph, or a pattern's text) in `data`: the result and, with `collect`,
/// the matches' data vertex numbers as one u32 array, one per query vertex in query vertex
/// order, or a pattern's rows, one per column (None for a `count(*)` pattern, whose one row is
/// the result's `embeddings`). The package's `count` and `match` call this; `match` reshapes
/// the array.
#[pyfunction]
fn run_query_py<'py>(
    py: Python<'py>,
    data: &Graph,
    query: Query<'py>,
    args: QueryArgs,
    collect: bool,
    unique: bool,
) -> PyResult<(Result, Option<Bound<'py, PyArray1<u32>>>)> {
    let all = Arc::new(Mutex::new(Vec::new()));
    let output = collect.then(|| Output::new(Box::new(Sink::Collect(all.clone())), OutputFormat::Words));
    let interrupt = Arc::new(AtomicBool::new(false));
    let prepared = query_work(data, &query, &args, unique, &interrupt, output)?;
    let result = run_detached(py, &interrupt, prepared.work)?;
    let words = std::mem::take(&mut *all.lock().unwrap_or_else(|e| e.into_inner()));
    let ids = (collect && !prepared.count_star).then(|| PyArray1::from_vec(py, words_to_ids(&words)));
    Ok((result, ids))
}

fn words_to_ids(words: &[u8]) -> Vec<u32> {
    words.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
}

/// A listing query running in the background: each step gives the next batch of matches (the
/// data vertex numbers as u32, one per query vertex in query vertex order, or a pattern's rows,
/// one per column), at most a few batches ahead of the reader. Dropping it stops the query.
#[pyclass(module = "subgraph._native")]
struct MatchBatches {
    interrupt: Arc<AtomicBool>,
    batches: Mutex<Receiver<Vec<u8>>>,
    done: Mutex<Receiver<std::result::Result<Result, String>>>,
    /// The query's result once every batch is read.
    #[pyo3(get)]
    result: Option<Py<Result>>,
    /// A pattern's column names (None for a query graph), and whether its one row is its
    /// count (`count(*)`), which comes in no batch.
    #[pyo3(get)]
    columns: Option<Vec<String>>,
    #[pyo3(get)]
    count_star: bool,
}

/// Batches an iterator may hold before the engine waits for its reader.
const BATCHES_AHEAD: usize = 4;

#[pymethods]
impl MatchBatches {
    #[new]
    fn new(data: &Graph, query: Query<'_>, args: QueryArgs) -> PyResult<MatchBatches> {
        let interrupt = Arc::new(AtomicBool::new(false));
        let (tx, batches) = std::sync::mpsc::sync_channel(BATCHES_AHEAD);
        let output = Output::new(Box::new(Sink::Send(tx)), OutputFormat::Words);
        let Prepared { work, columns, count_star } = query_work(data, &query, &args, false, &interrupt, Some(output))?;
        let (report, done) = std::sync::mpsc::channel();
        // The work owns the output: its sender is dropped, ending the batches, before the
        // report is sent.
        std::thread::spawn(move || {
            let _ = report.send(work());
        });
        Ok(MatchBatches {
            interrupt,
            batches: Mutex::new(batches),
            done: Mutex::new(done),
            result: None,
            columns,
            count_star,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray1<u32>>>> {
        if self.result.is_some() {
            return Ok(None);
        }
        let batch = receive(py, &self.batches, &self.interrupt);
        if let (Some(b), false) = (&batch, self.interrupt.load(Ordering::Relaxed)) {
            return Ok(Some(PyArray1::from_vec(py, words_to_ids(b))));
        }
        let report = receive(py, &self.done, &self.interrupt).ok_or_else(|| error("the matching thread panicked"))?;
        if self.interrupt.load(Ordering::Relaxed) {
            return Err(PyKeyboardInterrupt::new_err("the query was interrupted"));
        }
        self.result = Some(Py::new(py, report.map_err(error)?)?);
        Ok(None)
    }
}

impl Drop for MatchBatches {
    fn drop(&mut self) {
        self.interrupt.store(true, Ordering::Relaxed);
    }
}

/// The planner's view of the query: every plan it estimated (order, vertices in order, counted
/// tail, estimated embeddings and work), the one chosen first, and the result of running it.
#[pyfunction]
#[pyo3(signature = (data, query, semantics="embed", filter="auto", timeout=None))]
fn explain<'py>(
    py: Python<'py>,
    data: &Graph,
    query: &Graph,
    semantics: &str,
    filter: &str,
    timeout: Option<f64>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let opts = options(semantics, None, filter)?;
    let timeout = timeout_of(timeout)?;
    let interrupt = Arc::new(AtomicBool::new(false));
    let (d, q, stop) = (data.inner.clone(), (*query.inner).clone(), interrupt.clone());
    let runs = run_detached(py, &interrupt, move || explain_query(&d, q, &opts, false, || control(timeout, &stop)))?;
    let mut out = Vec::new();
    for run in runs {
        let chosen = (run.plan.vertices.clone(), run.plan.tail);
        for c in run.considered {
            let dict = PyDict::new(py);
            dict.set_item("order", c.order)?;
            dict.set_item("vertices", c.vertices.clone())?;
            dict.set_item("tail", c.tail)?;
            dict.set_item("estimated_embeddings", c.estimate.matches)?;
            dict.set_item("estimated_cost", c.estimate.cost)?;
            dict.set_item("chosen", (c.vertices, c.tail) == chosen)?;
            out.push(dict);
        }
    }
    Ok(out)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Graph>()?;
    m.add_class::<Result>()?;
    m.add_class::<MatchBatches>()?;
    m.add_function(wrap_pyfunction!(run_query_py, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add("SubgraphError", m.py().get_type::<SubgraphError>())?;
    Ok(())
}
