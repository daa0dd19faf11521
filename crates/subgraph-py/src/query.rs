//! One query run: a query graph or a pattern's text, its work on the engine, counted
//! (`run_query_py`), its matches in batches (`MatchBatches`), or its plans (`explain`).

use crate::errors::{error, pattern_error};
use crate::graph::Graph;
use crate::options::{control, filter_of, in_pool, pool, receive, run_detached, semantics_of, timeout_of, QueryArgs};
use crate::result::{Result, Sink};
use numpy::PyArray1;
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use subgraph::patterns::{check, run_pattern};
use subgraph::{Engine, MatchOptions};
use subgraph_core::automorphism::Automorphisms;
use subgraph_core::pipeline::explain_query;
use subgraph_core::sink::{Output, OutputFormat};
use subgraph_core::{GraphBuilder, LabelNames, Semantics};
use subgraph_pattern::{Pattern, Return};

/// What a query call matches: a query graph, or a pattern's text (as `match --pattern`).
pub(crate) enum Query<'py> {
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
            let derived = data.derived.clone();
            let work = move || {
                let output = output.as_ref().map(|o| (o, "query"));
                // The runner on the CPU too: it expands a query over the data's label sets.
                let ran = in_pool(&pool, || {
                    let mut cpu = Engine::Cpu { why: None };
                    let mut held = engine.as_ref().map(|e| e.lock().unwrap_or_else(|e| e.into_inner()));
                    let engine = held.as_deref_mut().unwrap_or(&mut cpu);
                    engine.run(&graph, query, &derived, &opts, &control, output)
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
pub(crate) fn run_query_py<'py>(
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
pub(crate) struct MatchBatches {
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
pub(crate) fn explain<'py>(
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
            // A query over the data's label sets: each query it expands into, as a pattern's.
            Read::Graph(q) => {
                let e = derived.expand(&q, &d, &control(timeout, &stop)).map_err(|e| pattern_error(e.into()))?;
                if e.some_edges && semantics == Semantics::Induced {
                    return Err(
                        "semantics=\"induced\" forbids edges of every label, and the query's labels expand into \
                                too many queries over the data's sets of labels: it would run over the data's edges of \
                                its edge label alone"
                            .to_string(),
                    );
                }
                let on = e.view.as_deref().unwrap_or(&d);
                e.queries.iter().map(|q| explain(on, q)).collect::<std::result::Result<Vec<_>, String>>()
            }
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
