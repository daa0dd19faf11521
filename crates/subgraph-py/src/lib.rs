//! The native half of the Python package `subgraph` (`python/subgraph/__init__.py` is the
//! other): graphs read from files or built from id arrays, and one query (a query graph, or a
//! pattern's text run by `subgraph::patterns`, as `match --pattern`) matched on the device
//! asked for (`subgraph::Engine`, as the command line's `--device`: the CPU pipeline, the GPU
//! engine, or per query by estimated cost) with the GIL released, stopped by a timeout, a limit
//! or Ctrl-C (KeyboardInterrupt). Errors are `subgraph.SubgraphError` with the command line's
//! one-line messages, worded with the package's arguments where those name the command line's
//! options.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use subgraph::patterns::{check, run_pattern, Derived, PatternRunError};
use subgraph::{Engine, GpuCount, GpuError, GpuOptions, MatchOptions, Ran};
use subgraph_core::automorphism::Automorphisms;
use subgraph_core::error::IdError;
use subgraph_core::filter::Filter;
use subgraph_core::io::{self, Format, IdMode, ReadOptions};
use subgraph_core::pipeline::{explain_query, run_query};
use subgraph_core::sink::{Control, Output, OutputFormat, Stopped};
use subgraph_core::{GraphBuilder, LabelNames, Semantics, VertexIds};
use subgraph_pattern::compile::CompileError;
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

/// A name that is none of `names`, the values `what` takes.
fn unknown(what: &str, name: &str, names: &[&str]) -> PyErr {
    error(format!("unknown {what} '{name}' (one of {})", names.join(", ")))
}

/// `device`'s values, as the command line's --device.
const DEVICES: &[&str] = &["auto", "cpu", "gpu"];

/// `ids`' values: the command line's default, --keep-ids and --string-ids.
const IDS: &[&str] = &["compact", "keep", "names"];

/// A reader's error, in the package's words where the command line's name its options.
fn read_error(e: subgraph_core::Error) -> PyErr {
    match e {
        subgraph_core::Error::Id { file, line, error: IdError::NotANumber { what, token } } => error(format!(
            "{}:{line}: bad {what} '{token}'; use ids=\"names\" for ids that are not numbers",
            file.display()
        )),
        subgraph_core::Error::Id { file, line, error: IdError::TooManyKept { what, vertices, most } } => {
            error(format!(
                "{}:{line}: {what} with ids=\"keep\" would make {vertices} vertices; at most {most} are allowed for \
                 this file (without ids=\"keep\" ids are compacted)",
                file.display()
            ))
        }
        e => error(e),
    }
}

/// Why a pattern cannot run, in the package's words where the command line's name its options.
fn pattern_error(e: PatternRunError) -> String {
    let words = match e {
        PatternRunError::UniqueRestricted => {
            "unique=True divides by the pattern's automorphisms, which its property tests or its edges without \
             direction on directed data break; leave unique out"
        }
        PatternRunError::InducedWithoutDirection => {
            "semantics=\"induced\" does not say which direction an edge without direction forbids on directed data; \
             write -> or <-"
        }
        PatternRunError::Compile(CompileError::NoProperties) => {
            "property tests ({key: value} maps and WHERE) need the data graph's vertex properties: read it with \
             Graph.from_file(..., vertex_props=\"FILE.csv\")"
        }
        e => return e.to_string(),
    };
    words.to_string()
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

    /// The engine for `device` (one of [`DEVICES`]) on `gpus` GPUs, opened on first use; None
    /// for the CPU (asked for, or all `auto` found).
    fn engine(&self, device: &str, gpus: GpuCount) -> PyResult<Option<Arc<Mutex<Engine>>>> {
        if device == "cpu" {
            return Ok(None);
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
            Some(name) => Some(Format::from_name(name).ok_or_else(|| unknown("format", name, Format::NAMES))?),
        };
        let ids = match ids {
            "compact" => IdMode::Compact,
            "keep" => IdMode::Keep,
            "names" => IdMode::Names,
            other => return Err(unknown("ids", other, IDS)),
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
            .map_err(read_error)?;
        Ok(Graph::new(graph))
    }

    /// A graph of `num_vertices` vertices with the edges src[i] → dst[i] (int64 arrays of
    /// vertex numbers 0..num_vertices), `vertex_labels` (one per vertex, default 0) and
    /// `edge_labels` (one per edge, default 0): int64 arrays of label numbers, or lists of
    /// strings, which are numbers where every one is (digits only) and else names, numbered
    /// 0..k in byte order as a file's label names are. Duplicate edges are merged; self-loops
    /// dropped.
    #[staticmethod]
    #[pyo3(signature = (num_vertices, src, dst, vertex_labels=None, edge_labels=None, directed=false))]
    fn from_arrays(
        num_vertices: usize,
        src: PyReadonlyArray1<'_, i64>,
        dst: PyReadonlyArray1<'_, i64>,
        vertex_labels: Option<Labels<'_>>,
        edge_labels: Option<Labels<'_>>,
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
        let mut b = GraphBuilder::new(num_vertices, directed);
        let mut names = LabelNames::default();
        if let Some(labels) = vertex_labels {
            let (labels, vertex_names) = labels.read("vertex")?;
            if labels.len() != num_vertices {
                return Err(error(format!("{} vertex labels for {num_vertices} vertices", labels.len())));
            }
            b.set_labels(labels);
            names.vertex = vertex_names;
        }
        let edge_labels = edge_labels.map(|l| l.read("edge")).transpose()?.map(|(labels, edge_names)| {
            names.edge = edge_names;
            labels
        });
        if let Some(l) = edge_labels.as_ref().filter(|l| l.len() != src.len()) {
            return Err(error(format!("{} edge labels for {} edges", l.len(), src.len())));
        }
        b.reserve_edges(src.len());
        for (i, (&s, &d)) in src.iter().zip(dst).enumerate() {
            let l = edge_labels.as_ref().map_or(0, |l| l[i]);
            b.add_edge(vertex("src", i, s)?, vertex("dst", i, d)?, l);
        }
        if !names.is_empty() {
            b.set_label_names(names);
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

/// Labels as `Graph.from_arrays` takes them: numbers (an int64 array), or words (a list of
/// strings), numbered as a file's label tokens are ([`io::number_labels`]).
enum Labels<'py> {
    Numbers(PyReadonlyArray1<'py, i64>),
    Words(Vec<String>),
}

impl<'py> FromPyObject<'py> for Labels<'py> {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        Ok(if ob.is_instance_of::<PyList>() { Labels::Words(ob.extract()?) } else { Labels::Numbers(ob.extract()?) })
    }
}

impl Labels<'_> {
    /// The label numbers and, for names, the names; `kind` ("vertex", "edge") names them in
    /// errors.
    fn read(&self, kind: &str) -> PyResult<(Vec<u32>, Vec<String>)> {
        match self {
            Labels::Numbers(array) => {
                let numbers = array.as_slice()?.iter().enumerate().map(|(i, &x)| {
                    u32::try_from(x).map_err(|_| error(format!("{kind}_labels[{i}] = {x} is not a label (0..2^32)")))
                });
                Ok((numbers.collect::<PyResult<_>>()?, Vec::new()))
            }
            Labels::Words(words) => io::number_labels(words, &format!("{kind} label")).map_err(error),
        }
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

/// The semantics named `name`.
fn semantics_of(name: &str) -> PyResult<Semantics> {
    Semantics::from_name(name).ok_or_else(|| unknown("semantics", name, Semantics::NAMES))
}

/// The candidate filter named `name`.
fn filter_of(name: &str) -> PyResult<Filter> {
    Filter::from_name(name).ok_or_else(|| unknown("filter", name, Filter::NAMES))
}

/// `timeout` as a duration; an error unless it is a number of seconds.
fn timeout_of(timeout: Option<f64>) -> PyResult<Option<Duration>> {
    match timeout {
        None => Ok(None),
        // No time at all: the query stops before it starts (accepted since the first version).
        Some(0.0) => Ok(Some(Duration::ZERO)),
        Some(s) => subgraph_core::sink::timeout(s).map(Some).map_err(|e| error(format!("timeout {s}: {e}"))),
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

/// The keyword arguments every query call (`count`, `match`, `iter_matches`) takes, checked
/// once the package has them: an argument of the wrong type is a TypeError naming it, a value
/// that is none of its names a SubgraphError listing them.
#[pyclass(frozen, module = "subgraph._native")]
struct QueryArgs {
    /// None: the default of the query's kind (embed for a query graph, homomorphism for a
    /// pattern).
    semantics: Option<Semantics>,
    limit: Option<u64>,
    timeout: Option<Duration>,
    threads: Option<usize>,
    filter: Filter,
    /// One of [`DEVICES`].
    device: String,
    gpus: GpuCount,
}

#[pymethods]
impl QueryArgs {
    #[new]
    #[pyo3(signature = (semantics, limit, timeout, threads, filter, device, gpus))]
    fn new(
        semantics: Option<&str>,
        limit: Option<i128>,
        timeout: Option<f64>,
        threads: Option<i128>,
        filter: &str,
        device: &str,
        gpus: &Bound<'_, PyAny>,
    ) -> PyResult<QueryArgs> {
        if !DEVICES.contains(&device) {
            return Err(unknown("device", device, DEVICES));
        }
        Ok(QueryArgs {
            semantics: semantics.map(semantics_of).transpose()?,
            limit: limit.map(|n| at_least_one("limit", n)).transpose()?,
            timeout: timeout_of(timeout)?,
            threads: threads
                .map(|n| at_least_one("threads", n).and_then(|n| subgraph_core::cpu::threads(n).map_err(error)))
                .transpose()?,
            filter: filter_of(filter)?,
            device: device.to_string(),
            gpus: gpu_count(gpus)?,
        })
    }
}

/// The value of `name`, a count that must be at least 1 (a limit of no matches would stop every
/// query before it starts; as the command line's --threads, no threads is refused).
fn at_least_one<T: TryFrom<i128>>(name: &str, n: i128) -> PyResult<T> {
    if n < 1 {
        return Err(error(format!("{name} must be at least 1, got {n}")));
    }
    T::try_from(n).map_err(|_| error(format!("{name} {n} is too large")))
}

/// `gpus`: a positive number, or "all" (as the command line's --gpus).
fn gpu_count(gpus: &Bound<'_, PyAny>) -> PyResult<GpuCount> {
    let given = gpus.repr()?;
    let wrong = || format!("gpus must be a positive number or \"all\", got {given}");
    if gpus.is_instance_of::<PyInt>() {
        return match gpus.extract::<i64>() {
            Ok(n) if n > 0 => Ok(GpuCount::Count(n as usize)),
            _ => Err(error(wrong())),
        };
    }
    if gpus.is_instance_of::<PyString>() {
        return match gpus.extract::<String>()?.as_str() {
            "all" => Ok(GpuCount::All),
            _ => Err(error(wrong())),
        };
    }
    Err(PyTypeError::new_err(wrong()))
}

/// What a query call matches: a query graph, or a pattern's text (as `match --pattern`).
enum Query<'py> {
    Graph(PyRef<'py, Graph>),
    Pattern(String),
}

impl<'py> FromPyObject<'py> for Query<'py> {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(graph) = ob.extract() {
            return Ok(Query::Graph(graph));
        }
        if ob.is_instance_of::<PyString>() {
            return Ok(Query::Pattern(ob.extract()?));
        }
        let given = ob.get_type().name()?;
        Err(PyTypeError::new_err(format!("expected a subgraph.Graph or a pattern's text (a str), got {given}")))
    }
}

/// A query call's query, read: a query graph as the data graph sees it, or a parsed pattern.
enum Read {
    Graph(Arc<subgraph_core::Graph>),
    Pattern(Box<Pattern>),
}

impl Read {
    fn new(query: &Query<'_>, data: &Graph) -> PyResult<Read> {
        Ok(match query {
            Query::Graph(q) => Read::Graph(as_data_sees(&q.inner, &data.inner)?),
            Query::Pattern(text) => Read::Pattern(Box::new(subgraph_pattern::parse(text).map_err(error)?)),
        })
    }
}

/// `query` as `data` matches it: of the same direction (else an error in the package's
/// words), and where both graphs name a kind of label, with those labels renumbered by name to
/// `data`'s (a name `data` lacks becomes a label no data vertex or edge has), so that graphs
/// read or built apart (two files, two networkx graphs) match by their label names. A kind
/// the query names and `data` numbers is refused, as patterns refuse label names there.
fn as_data_sees(query: &Arc<subgraph_core::Graph>, data: &subgraph_core::Graph) -> PyResult<Arc<subgraph_core::Graph>> {
    if query.is_directed() != data.is_directed() {
        let (q, d) = if query.is_directed() { ("directed", "undirected") } else { ("undirected", "directed") };
        return Err(error(format!(
            "the query is {q} but the data graph is {d}; make both directed or both undirected (the directed= \
             argument of Graph.from_file, Graph.from_edges)"
        )));
    }
    let Some(names) = query.label_names().filter(|n| !n.is_empty()) else { return Ok(query.clone()) };
    let renumber = |kind: &str,
                    list: fn(&LabelNames) -> &Vec<String>,
                    find: fn(&LabelNames, &str) -> Option<u32>|
     -> PyResult<Option<Vec<u32>>> {
        if list(names).is_empty() {
            return Ok(None);
        }
        let Some(theirs) = data.label_names().filter(|t| !list(t).is_empty()) else {
            return Err(error(format!(
                "the query's {kind} labels are names and the data graph's are numbers; give both graphs label \
                 names, or neither"
            )));
        };
        let absent = list(theirs).len() as u32;
        Ok(Some(list(names).iter().map(|n| find(theirs, n).unwrap_or(absent)).collect()))
    };
    let vertex = renumber("vertex", |n| &n.vertex, LabelNames::vertex_label)?;
    let edge = renumber("edge", |n| &n.edge, LabelNames::edge_label)?;
    let relabel = |l: u32, map: &Option<Vec<u32>>| map.as_ref().map_or(l, |m| m[l as usize]);
    let mut b = GraphBuilder::new(query.num_vertices(), query.is_directed());
    b.set_labels(query.labels().iter().map(|&l| relabel(l, &vertex)).collect());
    b.reserve_edges(query.num_edges() as usize);
    query.edges().for_each(|(u, v, l)| b.add_edge(u, v, relabel(l, &edge)));
    Ok(Arc::new(b.try_build().map_err(error)?.0))
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
    // The query is read before the engine is opened (which uploads the data graph), so that a
    // mistake in it shows at once.
    let query = Read::new(query, data)?;
    let default = if matches!(query, Read::Pattern(_)) { Semantics::Homomorphism } else { Semantics::Embed };
    let semantics = args.semantics.unwrap_or(default);
    if unique && semantics == Semantics::Homomorphism {
        return Err(error(if args.semantics.is_none() {
            "unique=True counts distinct subgraphs, which homomorphisms (the default for patterns) do not define; \
             add semantics=\"embed\""
        } else {
            "unique=True counts distinct subgraphs, which homomorphisms do not define"
        }));
    }
    let opts = MatchOptions { semantics, limit: args.limit, filter: args.filter, ..MatchOptions::default() };
    let control = Arc::new(control(args.timeout, interrupt));
    let engine = data.engine(&args.device, args.gpus)?;
    let (graph, pool) = (data.inner.clone(), pool(args.threads)?);
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
                .map_err(pattern_error)?;
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
    args: &QueryArgs,
    collect: bool,
    unique: bool,
) -> PyResult<(Result, Option<Bound<'py, PyArray1<u32>>>)> {
    let all = Arc::new(Mutex::new(Vec::new()));
    let output = collect.then(|| Output::new(Box::new(Sink::Collect(all.clone())), OutputFormat::Words));
    let interrupt = Arc::new(AtomicBool::new(false));
    let prepared = query_work(data, &query, args, unique, &interrupt, output)?;
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
    fn new(data: &Graph, query: Query<'_>, args: &QueryArgs) -> PyResult<MatchBatches> {
        let interrupt = Arc::new(AtomicBool::new(false));
        let (tx, batches) = std::sync::mpsc::sync_channel(BATCHES_AHEAD);
        let output = Output::new(Box::new(Sink::Send(tx)), OutputFormat::Words);
        let Prepared { work, columns, count_star } = query_work(data, &query, args, false, &interrupt, Some(output))?;
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

/// The planner's view of the query (a Graph, or a pattern's text, whose label expansions are
/// explained in turn, as `explain --pattern`): every plan it estimated (order, vertices in
/// order, counted tail, estimated embeddings and work), the one chosen first, and the
/// expansion each is of (0 for a Graph). `semantics` is "embed" for a Graph and
/// "homomorphism" for a pattern unless given.
#[pyfunction]
#[pyo3(signature = (data, query, semantics=None, filter="auto", timeout=None))]
fn explain<'py>(
    py: Python<'py>,
    data: &Graph,
    query: Query<'py>,
    semantics: Option<&str>,
    filter: &str,
    timeout: Option<f64>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let query = Read::new(&query, data)?;
    let default = if matches!(query, Read::Pattern(_)) { Semantics::Homomorphism } else { Semantics::Embed };
    let semantics = semantics.map(semantics_of).transpose()?.unwrap_or(default);
    let opts = MatchOptions { semantics, filter: filter_of(filter)?, ..MatchOptions::default() };
    let timeout = timeout_of(timeout)?;
    let interrupt = Arc::new(AtomicBool::new(false));
    let (d, derived, stop) = (data.inner.clone(), data.derived.clone(), interrupt.clone());
    let expansions = run_detached(py, &interrupt, move || {
        let explain = |on: &subgraph_core::Graph, q: &subgraph_core::Graph| {
            explain_query(on, q.clone(), &opts, false, || control(timeout, &stop)).map_err(|e| e.to_string())
        };
        match query {
            Read::Graph(q) => Ok(vec![explain(&d, &q)?]),
            Read::Pattern(pattern) => {
                let (compiled, view) =
                    derived.compile(&pattern, &d, &control(timeout, &stop)).map_err(|e| pattern_error(e.into()))?;
                check(&compiled, semantics, false).map_err(pattern_error)?;
                let on = view.as_deref().unwrap_or(&d);
                compiled.queries.iter().map(|q| explain(on, q)).collect()
            }
        }
    })?;
    let mut out = Vec::new();
    for (expansion, runs) in expansions.into_iter().enumerate() {
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
                dict.set_item("expansion", expansion)?;
                out.push(dict);
            }
        }
    }
    Ok(out)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Graph>()?;
    m.add_class::<Result>()?;
    m.add_class::<MatchBatches>()?;
    m.add_class::<QueryArgs>()?;
    m.add_function(wrap_pyfunction!(run_query_py, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add("SubgraphError", m.py().get_type::<SubgraphError>())?;
    Ok(())
}
