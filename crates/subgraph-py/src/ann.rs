//! The native half of `subgraph.ann` (`python/subgraph/ann.py` is the other): a vector index
//! built from a float32 numpy array, searched into two numpy arrays like hnswlib's and faiss',
//! grown, saved and loaded; on the device asked for (`subgraph_ann::engine`, as the command
//! line's `--device`), with the GIL released while it works. An index searched on a GPU stays
//! uploaded there until it changes.

use std::path::PathBuf;
use std::sync::Mutex;

use numpy::{PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use subgraph_ann::engine::{Device, Engine, Resident};
use subgraph_ann::{
    file, BuildParams, Filter, GraphKind, Index, Metric, Neighbours, Precision, Prune, SearchParams, Vectors, NONE,
};

use crate::errors::error;
use crate::options::{in_pool, pool};

/// The engine of (device, GPUs), made once per process and kept: GPU contexts and the kernels
/// compiled for them are worth keeping across indexes.
fn engine(device: &str, gpus: usize) -> PyResult<&'static Engine> {
    static ENGINES: Mutex<Vec<((Device, usize), &'static Engine)>> = Mutex::new(Vec::new());
    let device: Device = device.parse().map_err(error)?;
    let mut engines = ENGINES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, e)) = engines.iter().find(|(key, _)| *key == (device, gpus)) {
        return Ok(e);
    }
    let e: &'static Engine = Box::leak(Box::new(Engine::new(device, gpus).map_err(error)?));
    engines.push(((device, gpus), e));
    Ok(e)
}

/// Rows of a C-contiguous float32 array as vectors.
fn vectors(x: &PyReadonlyArray2<'_, f32>, what: &str) -> PyResult<Vectors> {
    let (rows, dim) = (x.shape()[0], x.shape()[1]);
    let data = x.as_slice().map_err(|_| error(format!("{what} must be a C-contiguous float32 array")))?.to_vec();
    if dim == 0 {
        return Err(error(format!("{what} has {rows} rows of dimension 0")));
    }
    Vectors::new(dim, data).map_err(|e| error(format!("{what}: {e}")))
}

/// Labels as u32.
fn labels_of(l: Option<PyReadonlyArray1<'_, i64>>) -> PyResult<Option<Vec<u32>>> {
    l.map(|l| {
        l.as_slice()?
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                u32::try_from(x).map_err(|_| error(format!("labels[{i}] = {x} is not a label (0..2^32 - 1)")))
            })
            .collect()
    })
    .transpose()
}

/// A vector index over a proximity graph (see `subgraph.ann.Index`).
#[pyclass(module = "subgraph._native", name = "AnnIndex")]
pub struct AnnIndex {
    index: Index,
    engine: &'static Engine,
    /// The index on the engine's GPUs, made at the first search after each change.
    resident: Option<Resident<'static>>,
}

impl AnnIndex {
    fn resident(&mut self) -> PyResult<&Resident<'static>> {
        if self.resident.is_none() {
            self.resident = Some(self.engine.resident(&self.index).map_err(error)?);
        }
        Ok(self.resident.as_ref().expect("made above"))
    }
}

/// A search's answer as Python gets it: (ids, distances).
type Answer<'py> = (Bound<'py, PyArray2<i64>>, Bound<'py, PyArray2<f32>>);

/// (ids, distances) as two (m, k) arrays: int64 ids with -1 where none, float32 distances.
fn to_arrays<'py>(py: Python<'py>, found: Neighbours) -> PyResult<Answer<'py>> {
    let (m, k) = (found.queries(), found.k);
    let ids: Vec<Vec<i64>> = found
        .ids
        .chunks(k.max(1))
        .map(|r| r.iter().map(|&i| if i == NONE { -1 } else { i as i64 }).collect())
        .collect();
    let dists: Vec<Vec<f32>> = found.distances.chunks(k.max(1)).map(|r| r.to_vec()).collect();
    let ids = if m == 0 { PyArray2::zeros(py, [0, k], false) } else { PyArray2::from_vec2(py, &ids).map_err(error)? };
    let dists =
        if m == 0 { PyArray2::zeros(py, [0, k], false) } else { PyArray2::from_vec2(py, &dists).map_err(error)? };
    Ok((ids, dists))
}

#[pymethods]
impl AnnIndex {
    #[staticmethod]
    #[pyo3(signature = (x, metric, graph, degree, d_min, ef_construction, prune, labels, seed, device, gpus, threads))]
    #[allow(clippy::too_many_arguments)]
    fn build(
        py: Python<'_>,
        x: PyReadonlyArray2<'_, f32>,
        metric: &str,
        graph: &str,
        degree: usize,
        d_min: Option<usize>,
        ef_construction: Option<usize>,
        prune: &str,
        labels: Option<PyReadonlyArray1<'_, i64>>,
        seed: u64,
        device: &str,
        gpus: usize,
        threads: Option<usize>,
    ) -> PyResult<AnnIndex> {
        let vectors = vectors(&x, "x")?;
        let metric: Metric = metric.parse().map_err(error)?;
        let kind: GraphKind = graph.parse().map_err(error)?;
        let mut params = BuildParams::new(kind, degree).map_err(error)?;
        params.d_min = d_min.unwrap_or(params.d_min);
        params.ef_construction = ef_construction.unwrap_or(BuildParams::default_ef_construction(params.d_min));
        params.prune = prune.parse::<Prune>().map_err(error)?;
        params.seed = seed;
        params.check().map_err(error)?;
        let labels = labels_of(labels)?;
        let engine = engine(device, gpus)?;
        let pool = pool(threads)?;
        let (index, _phases) =
            py.detach(|| in_pool(&pool, || engine.build(vectors, metric, &params, labels))).map_err(error)?;
        Ok(AnnIndex { index, engine, resident: None })
    }

    #[pyo3(signature = (q, k, ef, labels, mask, brute_force, threads, precision))]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &mut self,
        py: Python<'py>,
        q: PyReadonlyArray2<'_, f32>,
        k: usize,
        ef: Option<usize>,
        labels: Option<PyReadonlyArray1<'_, i64>>,
        mask: Option<PyReadonlyArray1<'_, bool>>,
        brute_force: bool,
        threads: Option<usize>,
        precision: &str,
    ) -> PyResult<Answer<'py>> {
        let queries = vectors(&q, "q")?;
        let filter = match (labels_of(labels)?, mask) {
            (Some(l), None) => Some(Filter::Labels(l)),
            (None, Some(m)) => Some(Filter::Mask(m.as_slice()?.to_vec())),
            (None, None) => None,
            (Some(_), Some(_)) => return Err(error("filter: labels or a mask, not both")),
        };
        let params =
            SearchParams::new(k, ef).and_then(|p| Ok(p.with_precision(Precision::parse(precision)?))).map_err(error)?;
        let pool = pool(threads)?;
        self.resident()?;
        let (index, resident) = (&self.index, self.resident.as_ref().expect("made above"));
        let found = py
            .detach(|| {
                in_pool(&pool, || {
                    if brute_force {
                        resident.brute_force(index, queries, k, filter.as_ref())
                    } else {
                        resident.search(index, queries, params, filter.as_ref())
                    }
                })
            })
            .map_err(error)?;
        to_arrays(py, found)
    }

    #[pyo3(signature = (x, labels, threads))]
    fn add(
        &mut self,
        py: Python<'_>,
        x: PyReadonlyArray2<'_, f32>,
        labels: Option<PyReadonlyArray1<'_, i64>>,
        threads: Option<usize>,
    ) -> PyResult<()> {
        let vectors = vectors(&x, "x")?;
        let labels = labels_of(labels)?;
        let pool = pool(threads)?;
        self.resident = None;
        let (engine, index) = (self.engine, &mut self.index);
        py.detach(|| in_pool(&pool, || engine.add(index, vectors, labels))).map_err(error)
    }

    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| file::save(&self.index, &path)).map_err(error)
    }

    #[staticmethod]
    #[pyo3(signature = (path, device, gpus))]
    fn load(py: Python<'_>, path: PathBuf, device: &str, gpus: usize) -> PyResult<AnnIndex> {
        let engine = engine(device, gpus)?;
        let index = py.detach(|| file::load(&path)).map_err(error)?;
        Ok(AnnIndex { index, engine, resident: None })
    }

    fn __len__(&self) -> usize {
        self.index.len()
    }

    #[getter]
    fn dim(&self) -> usize {
        self.index.dim()
    }

    #[getter]
    fn metric(&self) -> &'static str {
        self.index.metric().name()
    }

    #[getter]
    fn graph(&self) -> &'static str {
        self.index.graph().kind.name()
    }

    #[getter]
    fn degree(&self) -> usize {
        self.index.params().d_max
    }

    #[getter]
    fn device(&self) -> String {
        self.engine.name()
    }

    #[getter]
    fn has_labels(&self) -> bool {
        self.index.has_labels()
    }
}
