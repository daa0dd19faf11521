//! Where vector work runs: every CPU core, one GPU or several (`--device`, `--gpus`), the
//! same answers on each. An engine builds indexes (GGraphCon on the GPU, or the CPU builder;
//! the KNN graph and additions always on the CPU) and holds an index resident for many
//! searches: on the GPU its vectors and graph are uploaded once, and a batch of queries is
//! split evenly over the GPUs.

use std::fmt;
use std::str::FromStr;

use subgraph_cuda::Gpu;

use crate::cpu::{self, BuildParams};
use crate::error::{AnnError, Result};
use crate::filter::Allowed;
use crate::gpu::{self, GpuIndex};
use crate::graph::GraphKind;
use crate::index::{Filter, Index};
use crate::neighbours::{Neighbours, SearchParams};
use crate::vectors::{Metric, Vectors};

/// The device asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    /// A GPU where one is usable, else the CPU (saying why).
    Auto,
    Cpu,
    Gpu,
}

impl Device {
    pub const NAMES: [&'static str; 3] = ["auto", "cpu", "gpu"];
}

impl FromStr for Device {
    type Err = AnnError;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Device::Auto),
            "cpu" => Ok(Device::Cpu),
            "gpu" => Ok(Device::Gpu),
            _ => Err(AnnError::Parameter(format!("device {s:?}: expected auto, cpu or gpu"))),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Device::NAMES[*self as usize])
    }
}

/// The GPUs work runs on (none: the CPU).
pub struct Engine {
    gpus: Vec<Gpu>,
    fallback: Option<String>,
}

impl Engine {
    /// `count` GPUs for `Gpu`, as many as usable up to `count` for `Auto` (none, with the
    /// reason, when there is none), none for `Cpu`.
    pub fn new(device: Device, count: usize) -> Result<Engine> {
        if count == 0 {
            return Err(AnnError::Parameter("--gpus 0: give at least one".into()));
        }
        let open = || -> Result<Vec<Gpu>> {
            let available = Gpu::count()?;
            if available < count {
                return Err(AnnError::Parameter(format!("{count} GPUs asked for, {available} usable")));
            }
            (0..count).map(|i| Ok(Gpu::open(i)?)).collect()
        };
        match device {
            Device::Cpu => Ok(Engine { gpus: Vec::new(), fallback: None }),
            Device::Gpu => Ok(Engine { gpus: open()?, fallback: None }),
            Device::Auto => match open() {
                Ok(gpus) => Ok(Engine { gpus, fallback: None }),
                Err(e) => Ok(Engine { gpus: Vec::new(), fallback: Some(e.to_string()) }),
            },
        }
    }

    /// Why `auto` runs on the CPU, where it does.
    pub fn fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    pub fn on_gpu(&self) -> bool {
        !self.gpus.is_empty()
    }

    /// `cpu`, `gpu` or `gpu x N`.
    pub fn name(&self) -> String {
        match self.gpus.len() {
            0 => "cpu".into(),
            1 => "gpu".into(),
            n => format!("gpu x {n}"),
        }
    }

    /// Where a build of `kind` runs: the GPU builds NSW and HNSW graphs.
    pub fn build_device(&self, kind: GraphKind) -> &'static str {
        if self.on_gpu() && kind != GraphKind::Knn {
            "gpu"
        } else {
            "cpu"
        }
    }

    /// Builds an index over `vectors` (the GPU's GGraphCon where the engine has a GPU and the
    /// graph is NSW or HNSW; the CPU builder otherwise, its HNSW graph then renumbered for the
    /// CPU search's locality), with where the time went.
    pub fn build(
        &self,
        vectors: Vectors,
        metric: Metric,
        params: &BuildParams,
        labels: Option<Vec<u32>>,
    ) -> Result<(Index, Vec<(String, f64)>)> {
        crate::index::check_labels(labels.as_deref(), vectors.len())?;
        let prepared = metric.prepare(vectors)?;
        let mut built = match self.gpus.first() {
            Some(gpu) if params.kind != GraphKind::Knn => gpu::build(gpu, &prepared, metric, params)?,
            _ => cpu::localize(cpu::build(&prepared, metric, params)?),
        };
        let phases = std::mem::take(&mut built.phases);
        Ok((Index::assemble(metric, *params, built, labels), phases))
    }

    /// Adds vectors to `index` (on the CPU: the builder's merge step; see [`Index::add`]).
    pub fn add(&self, index: &mut Index, vectors: Vectors, labels: Option<Vec<u32>>) -> Result<()> {
        index.add(vectors, labels)
    }

    /// `index` ready for many searches: uploaded to every GPU of the engine (nothing to do on
    /// the CPU). The searches must be given the same index, unchanged.
    pub fn resident(&self, index: &Index) -> Result<Resident<'_>> {
        let gpus = self
            .gpus
            .iter()
            .map(|gpu| {
                GpuIndex::new(gpu, index.internal_vectors(), index.metric(), index.graph())?.with_ids(index.order())
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Resident { gpus })
    }

    /// The exact `k` nearest rows of `base` to each query (row numbers), by brute force on the
    /// first GPU or every core; for ground truth.
    pub fn exact(&self, base: &Vectors, queries: &Vectors, metric: Metric, k: usize) -> Result<Neighbours> {
        SearchParams::new(k, None)?.check_against(base.len())?;
        crate::vectors::check_dim(base.dim(), queries.dim(), "the queries")?;
        let base = metric.prepare(base.clone())?;
        let queries = metric.prepare(queries.clone())?;
        match self.gpus.first() {
            Some(gpu) => gpu::brute_force(gpu, &gpu::DeviceVectors::upload(gpu, &base)?, metric, &queries, k, None),
            None => Ok(crate::brute::brute_force(&base, metric, &queries, k, None)),
        }
    }
}

/// An index's copies on the engine's GPUs (none on the CPU): what its searches read.
pub struct Resident<'g> {
    gpus: Vec<GpuIndex<'g>>,
}

impl Resident<'_> {
    /// The `params.k` nearest vectors of each query (the caller's ids), by GANNS on the GPUs
    /// (queries split evenly) or best-first search on every core.
    pub fn search(
        &self,
        index: &Index,
        queries: Vectors,
        params: SearchParams,
        filter: Option<&Filter>,
    ) -> Result<Neighbours> {
        self.run(
            index,
            queries,
            filter,
            |gpu, q, allowed| gpu.search(q, params, allowed),
            |q, allowed| cpu::search(index.internal_vectors(), index.metric(), index.graph(), q, params, allowed),
        )
    }

    /// The exact `k` nearest of each query by brute force, on the GPUs or every core.
    pub fn brute_force(
        &self,
        index: &Index,
        queries: Vectors,
        k: usize,
        filter: Option<&Filter>,
    ) -> Result<Neighbours> {
        SearchParams::new(k, None)?.check_against(index.len())?;
        self.run(
            index,
            queries,
            filter,
            |gpu, q, allowed| gpu.brute(q, k, allowed),
            |q, allowed| Ok(crate::brute::brute_force(index.internal_vectors(), index.metric(), q, k, allowed)),
        )
    }

    fn run(
        &self,
        index: &Index,
        queries: Vectors,
        filter: Option<&Filter>,
        on_gpu: impl Fn(&GpuIndex<'_>, &Vectors, Option<&Allowed>) -> Result<Neighbours> + Sync,
        on_cpu: impl Fn(&Vectors, Option<&Allowed>) -> Result<Neighbours>,
    ) -> Result<Neighbours> {
        let queries = index.prepare_queries(queries)?;
        let allowed = filter.map(|f| index.allowed(f)).transpose()?;
        // The GPUs answer in the caller's numbering (GpuIndex::with_ids), the CPU in the index's.
        let found = match self.gpus.len() {
            0 => {
                let mut found = on_cpu(&queries, allowed.as_ref())?;
                found.map_ids(index.order());
                found
            }
            g if g == 1 || queries.len() < g => on_gpu(&self.gpus[0], &queries, allowed.as_ref())?,
            g => {
                // Each part copied on its own thread, unchecked (the rows were checked): the
                // checked copy on one thread took 4-5 of a two-GPU search's 8 ms at
                // 10,000 × 128 (bench/results/2026-11-29-two-gpus.md).
                let parts = queries.split(queries.len().div_ceil(g).max(1));
                let answers: Vec<Result<Neighbours>> = std::thread::scope(|s| {
                    let handles: Vec<_> = parts
                        .iter()
                        .zip(&self.gpus)
                        .map(|(part, gpu)| {
                            let (on_gpu, allowed) = (&on_gpu, allowed.as_ref());
                            s.spawn(move || on_gpu(gpu, part, allowed))
                        })
                        .collect();
                    handles.into_iter().map(|h| h.join().expect("a GPU's search thread")).collect()
                });
                let mut all: Option<Neighbours> = None;
                for answer in answers {
                    let answer = answer?;
                    match &mut all {
                        None => all = Some(answer),
                        Some(a) => {
                            a.ids.extend(answer.ids);
                            a.distances.extend(answer.distances);
                        }
                    }
                }
                all.expect("at least one part")
            }
        };
        Ok(found)
    }
}
