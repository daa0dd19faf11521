//! `subgraph.Graph`: a labelled graph read from a file or built from id arrays (labels as
//! numbers or names), immutable once built, with the engines opened for it as a data graph.

use crate::errors::{error, read_error, unknown, IDS};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use subgraph::patterns::Derived;
use subgraph::{Engine, GpuCount, GpuOptions};
use subgraph_core::io::{self, Format, IdMode, ReadOptions};
use subgraph_core::{GraphBuilder, LabelNames, VertexIds};

/// What an opened engine is for: the device name (`auto`, `gpu`) and the GPU count.
type EngineKey = (String, GpuCount);

/// A labelled graph (data or query), immutable once built.
#[pyclass(frozen, module = "subgraph._native")]
pub(crate) struct Graph {
    pub(crate) inner: Arc<subgraph_core::Graph>,
    /// The engines opened for it as a data graph, per `device` name (`auto`, `gpu`) and GPU
    /// count: opening one uploads the graph to its GPUs, once.
    engines: Mutex<Vec<(EngineKey, Arc<Mutex<Engine>>)>>,
    /// What patterns derive from it as a data graph, made once.
    pub(crate) derived: Arc<Derived>,
}

impl Graph {
    pub(crate) fn new(graph: subgraph_core::Graph) -> Graph {
        Graph { inner: Arc::new(graph), engines: Mutex::new(Vec::new()), derived: Arc::default() }
    }

    /// The engine for `device` (one of [`DEVICES`]) on `gpus` GPUs, opened on first use; None
    /// for the CPU (asked for, or all `auto` found).
    pub(crate) fn engine(&self, device: &str, gpus: GpuCount) -> PyResult<Option<Arc<Mutex<Engine>>>> {
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
    /// 0..k in byte order as a file's label names are. An exact duplicate edge (same ends and
    /// label) is one edge; edges of different labels on one pair are all kept, as are self loops
    /// (the vertices' loop labels; see the manual's Semantics).
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
            Some(ids) if ids.are_numbers() => {
                let numbers: Vec<u64> = (0..self.inner.num_vertices() as u32)
                    .map(|v| match ids.get(v) {
                        subgraph_core::Id::Number(x) => x,
                        subgraph_core::Id::Name(_) => unreachable!("the ids are numbers"),
                    })
                    .collect();
                Some(PyArray1::from_vec(py, numbers).into_any())
            }
            Some(ids) => {
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
