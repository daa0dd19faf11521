//! The native half of `subgraph.mf` (`python/subgraph/mf.py` is the other): a model R ≈ P·Qᵀ
//! trained by SGD on ratings given as numpy arrays of ids (any unsigned integers, compacted as
//! the command line compacts a file's) and values, on the device asked for
//! (`subgraph_mf::engine`, as `subgraph mf train --device`) with the GIL released and Ctrl-C
//! looked for after each epoch; predictions, a user's top items (the vector search's exact
//! search by inner product, as `subgraph mf recommend`), and the `.sgm` model file.

use std::path::PathBuf;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use subgraph::CudaError;
use subgraph_ann::brute::brute_force;
use subgraph_ann::{Allowed, Metric, Vectors, NONE};
use subgraph_mf::engine::{self, Device, Options, Plan};
use subgraph_mf::file::{self, SavedModel};
use subgraph_mf::hybrid::division::Schedule;
use subgraph_mf::{Dataset, EpochStats, MfError, Params, RawRatings};

use crate::errors::error;

/// Ratings from three arrays of one length (the Python side checks the lengths, the ids' signs
/// and the values' finiteness first, naming the position).
fn raw(
    users: &PyReadonlyArray1<'_, u64>,
    items: &PyReadonlyArray1<'_, u64>,
    values: &PyReadonlyArray1<'_, f32>,
) -> PyResult<RawRatings> {
    let contiguous = |e| error(format!("ids and ratings must be contiguous arrays: {e}"));
    let (u, i, r) = (
        users.as_slice().map_err(contiguous)?,
        items.as_slice().map_err(contiguous)?,
        values.as_slice().map_err(contiguous)?,
    );
    if u.len() != r.len() || i.len() != r.len() {
        return Err(error(format!(
            "{} user ids, {} item ids and {} ratings: one of each a rating",
            u.len(),
            i.len(),
            r.len()
        )));
    }
    Ok(RawRatings { users: u.to_vec(), items: i.to_vec(), values: r.to_vec() })
}

/// One epoch of the history: (epoch, train_rmse, test_rmse, elapsed_ms, cpu_share).
type HistoryRow = (usize, f64, Option<f64>, f64, f64);

/// A user's top items as Python gets them: (item ids, predictions).
type Top<'py> = (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<f32>>);

/// A trained or loaded model (see `subgraph.mf.Model`).
#[pyclass(module = "subgraph._native", name = "MfModel")]
pub struct MfModel {
    saved: SavedModel,
    history: Vec<EpochStats>,
    reached: Option<usize>,
    plan: Option<Plan>,
    /// Q as vectors for the inner-product search, made at the first `recommend`.
    items: Option<Vectors>,
}

#[pymethods]
impl MfModel {
    #[staticmethod]
    #[pyo3(signature = (users, items, ratings, test, rank, epochs, lr, decay, lambda_p, lambda_q, seed, adaptive, device, schedule, threads, gpus, half, target_rmse))]
    #[allow(clippy::too_many_arguments)]
    fn train(
        py: Python<'_>,
        users: PyReadonlyArray1<'_, u64>,
        items: PyReadonlyArray1<'_, u64>,
        ratings: PyReadonlyArray1<'_, f32>,
        test: Option<(PyReadonlyArray1<'_, u64>, PyReadonlyArray1<'_, u64>, PyReadonlyArray1<'_, f32>)>,
        rank: usize,
        epochs: usize,
        lr: f32,
        decay: f32,
        lambda_p: f32,
        lambda_q: f32,
        seed: u64,
        adaptive: bool,
        device: &str,
        schedule: &str,
        threads: Option<usize>,
        gpus: Option<usize>,
        half: bool,
        target_rmse: Option<f64>,
    ) -> PyResult<MfModel> {
        let params = Params { rank, epochs, lambda_p, lambda_q, lr, decay, seed, adaptive };
        params.check().map_err(error)?;
        let device: Device = device.parse().map_err(error)?;
        let schedule: Schedule = schedule.parse().map_err(error)?;
        if adaptive && matches!(device, Device::Gpu | Device::Hybrid) {
            return Err(error(format!(
                "adaptive=True runs on the CPU engine only: use device=\"cpu\" (or \"auto\"), or a fixed rate with decay, \
                 not device=\"{device}\""
            )));
        }
        let options = Options { device, schedule, threads, gpus, half, ..Options::default() };
        let train = raw(&users, &items, &ratings)?;
        let test = test.map(|(u, i, r)| raw(&u, &i, &r)).transpose()?;
        let (data, test) = py
            .detach(|| -> Result<_, MfError> {
                let data = Dataset::compact(&train)?;
                let test = test.map(|t| data.map(&t)).transpose()?;
                Ok((data, test))
            })
            .map_err(error)?;
        let mut history = Vec::new();
        let mut interrupted = None;
        let trained = py.detach(|| {
            let mut on_epoch = |s: &EpochStats| {
                history.push(s.clone());
                match Python::attach(|py| py.check_signals()) {
                    Ok(()) => true,
                    Err(e) => {
                        interrupted = Some(e);
                        false
                    }
                }
            };
            engine::train(&data.ratings, test.as_ref(), &params, &options, target_rmse, &mut on_epoch)
        });
        if let Some(e) = interrupted {
            return Err(e);
        }
        let (trained, plan) = trained.map_err(|e| match e {
            MfError::Gpu(e @ CudaError::Unavailable(_)) => error(format!("device=\"{device}\": {e}")),
            e => error(e),
        })?;
        let saved = SavedModel { model: trained.model, users: data.users, items: data.items };
        Ok(MfModel { saved, history: trained.history, reached: trained.reached, plan: Some(plan), items: None })
    }

    /// The prediction of each (users[j], items[j]): p_u·q_v, or the training mean where the
    /// user or the item is not in the model.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        users: PyReadonlyArray1<'_, u64>,
        items: PyReadonlyArray1<'_, u64>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let contiguous = |e| error(format!("ids must be contiguous arrays: {e}"));
        let (u, i) = (users.as_slice().map_err(contiguous)?, items.as_slice().map_err(contiguous)?);
        if u.len() != i.len() {
            return Err(error(format!("{} user ids and {} item ids: one of each a pair", u.len(), i.len())));
        }
        let s = &self.saved;
        let out: Vec<f32> = py.detach(|| {
            u.iter()
                .zip(i)
                .map(|(&u, &v)| match (s.users.get(u), s.items.get(v)) {
                    (Some(u), Some(v)) => s.model.predict(u, v),
                    _ => s.model.mean,
                })
                .collect()
        });
        Ok(PyArray1::from_vec(py, out))
    }

    /// The k items of the largest p_u·q_v for `user`, best first, leaving out `exclude`'s:
    /// (original item ids, predictions).
    #[pyo3(signature = (user, k, exclude))]
    fn recommend<'py>(
        &mut self,
        py: Python<'py>,
        user: u64,
        k: usize,
        exclude: Option<PyReadonlyArray1<'_, u64>>,
    ) -> PyResult<Top<'py>> {
        if k == 0 {
            return Err(error("k must be at least 1"));
        }
        let Some(u) = self.saved.users.get(user) else {
            return Err(error(format!("user {user} is not in the model")));
        };
        let excluded: Vec<u32> = match &exclude {
            Some(e) => e
                .as_slice()
                .map_err(|e| error(format!("exclude must be a contiguous array: {e}")))?
                .iter()
                .filter_map(|&v| self.saved.items.get(v))
                .collect(),
            None => Vec::new(),
        };
        let m = &self.saved.model;
        if self.items.is_none() {
            self.items = Some(Vectors::new(m.rank, m.q.clone()).map_err(|e| error(format!("Q: {e}")))?);
        }
        let items = self.items.as_ref().expect("made above");
        let query = Vectors::new(m.rank, m.p_row(u).to_vec()).map_err(|e| error(format!("P: {e}")))?;
        let (ids, scores): (Vec<u64>, Vec<f32>) = py.detach(|| {
            let allowed = (!excluded.is_empty()).then(|| {
                let mut out = vec![true; m.items];
                for &v in &excluded {
                    out[v as usize] = false;
                }
                Allowed::from_fn(m.items, |v| out[v])
            });
            let found = brute_force(items, Metric::Ip, &query, k.min(m.items), allowed.as_ref());
            found.ids.iter().filter(|&&v| v != NONE).map(|&v| (self.saved.items.original(v), m.predict(u, v))).unzip()
        });
        Ok((PyArray1::from_vec(py, ids), PyArray1::from_vec(py, scores)))
    }

    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| file::save(&path, &self.saved)).map_err(error)
    }

    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<MfModel> {
        let saved = py.detach(|| file::load(&path)).map_err(error)?;
        Ok(MfModel { saved, history: Vec::new(), reached: None, plan: None, items: None })
    }

    #[getter(P)]
    fn p<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let m = &self.saved.model;
        PyArray1::from_slice(py, &m.p).reshape([m.users, m.rank])
    }

    #[getter(Q)]
    fn q<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let m = &self.saved.model;
        PyArray1::from_slice(py, &m.q).reshape([m.items, m.rank])
    }

    #[getter]
    fn user_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_slice(py, self.saved.users.ids())
    }

    #[getter]
    fn item_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_slice(py, self.saved.items.ids())
    }

    #[getter]
    fn rank(&self) -> usize {
        self.saved.model.rank
    }

    #[getter]
    fn mean(&self) -> f32 {
        self.saved.model.mean
    }

    #[getter]
    fn history(&self) -> Vec<HistoryRow> {
        self.history.iter().map(|s| (s.epoch, s.train_rmse, s.test_rmse, s.elapsed_ms, s.cpu_share)).collect()
    }

    #[getter]
    fn reached_epoch(&self) -> Option<usize> {
        self.reached
    }

    /// Where training ran ("cpu", "gpu" or "hybrid"); None for a loaded model.
    #[getter]
    fn device(&self) -> Option<String> {
        self.plan.as_ref().map(|p| p.device.to_string())
    }
}
