//! The GPU engine of one data graph: [`GpuEngine`] on one device, [`GpuSet`] on several (each
//! device holding the data graph, [`crate::device`]). It opens the devices, uploads the data
//! graph and loads the kernels its options need, and sends each query to the strategy that runs
//! it: GSI's join ([`crate::gsi`], on one device or dealt to several by [`crate::multi`]), with
//! FSIG's parts composed in under `--gpu-strategy fsig` ([`crate::fsig::compose`]), GpSM's edge
//! join ([`crate::gpsm`]), or GGQ's tree passes and thread IDs ([`crate::ggq`]).

use std::sync::Arc;
use std::time::Instant;

use subgraph_core::pipeline::MatchOptions;
use subgraph_core::sink::{Control, Output};
use subgraph_core::tree::TreeQuery;
use subgraph_core::Graph;
use subgraph_cuda::{DeviceBuffer, DeviceInfo, Gpu};

use crate::device::GpuDevice;
use crate::error::{GpuError, Result};
use crate::fsig;
use crate::ggq::ids::{Ask, IdPlan, IdRun};
use crate::ggq::{self, GpuTreeCount, TreeGraph};
use crate::gpsm;
use crate::gpsm::kernels::GpsmKernels;
use crate::gsi::device_graph::DeviceGraph;
use crate::gsi::join::Kernels;
use crate::gsi::query::Gsi;
use crate::multi;
use crate::options::{CandidateFilter, GpuCount, GpuOptions, Strategy};
use crate::partition::PartitionedGraph;
use crate::shared::report::GpuReport;

/// The GPU engine for one data graph on one device; runs any number of queries.
pub struct GpuEngine {
    device: GpuDevice,
    /// GSI's kernels, which every query but GpSM's and GGQ's runs.
    gsi: Gsi,
    /// Loaded on the first GpSM query.
    gpsm_kernels: Option<GpsmKernels>,
    /// The data graph as GGQ's tree passes read it, uploaded on the first tree query.
    tree_graph: Option<TreeGraph>,
    graph_upload_ms: f64,
}

impl GpuEngine {
    /// Opens the first GPU, compiles the join kernels and uploads `data` with the structure of
    /// `opts`. Returns [`GpuError::Cuda`] of [`CudaError::Unavailable`] when no driver, device or
    /// NVRTC is usable.
    ///
    /// [`CudaError::Unavailable`]: subgraph_cuda::CudaError::Unavailable
    pub fn new(shared: Arc<Graph>, opts: &GpuOptions) -> Result<Self> {
        GpuEngine::open(shared, opts, 0)
    }

    /// [`GpuEngine::new`] on device `ordinal`.
    pub fn open(shared: Arc<Graph>, opts: &GpuOptions, ordinal: usize) -> Result<Self> {
        let data = &*shared;
        let gpu = Gpu::open(ordinal)?;
        gpu.set_memory_cap(opts.device_memory);
        let kernels = Kernels::new(&gpu)?;
        if data.num_vertices() as u64 >= u32::MAX as u64 {
            return Err(GpuError::TooLarge {
                what: "data graph vertices",
                len: data.num_vertices() as u64,
                max: u32::MAX as u64 - 1,
            });
        }
        let t = Instant::now();
        let filter = opts.filter.resolve(data);
        let graph = DeviceGraph::open(&gpu, data, opts, filter)?;
        gpu.synchronize()?;
        let graph_upload_ms = t.elapsed().as_secs_f64() * 1e3;
        let gsi = Gsi::prepare(&gpu, data, opts, filter, kernels)?;
        Ok(GpuEngine {
            device: GpuDevice { gpu, data: shared, graph, host: Default::default() },
            gsi,
            gpsm_kernels: None,
            tree_graph: None,
            graph_upload_ms,
        })
    }

    /// Counts a tree-pattern query's homomorphisms (GGQ, [`crate::ggq`]), uploading the
    /// data graph's tree-pass layout on the first; None when `control` stopped it.
    /// The count's `upload_ms` is the layout's upload where this query paid it, and its `ms`
    /// includes it.
    pub fn count_tree(&mut self, tree: &TreeQuery, control: &Control) -> Result<Option<GpuTreeCount>> {
        let (gpu, g, labels, data, upload_ms) = self.tree_layout()?;
        let counted = ggq::count(gpu, g, labels, data, tree, control)?;
        Ok(counted.map(|c| GpuTreeCount { upload_ms, ms: c.ms + upload_ms, ..c }))
    }

    /// Enumerates a tree query's matches by GGQ's thread IDs on `plan` ([`ggq::ids`]), as
    /// `ask` says, handing rows to `sink`; the tree layout is uploaded on first use, and the
    /// run's `ms` includes it.
    pub fn enumerate_tree(
        &mut self,
        tree: &TreeQuery,
        plan: &IdPlan,
        ask: &Ask,
        control: &Control,
        sink: &mut dyn FnMut(&[u32], u64),
    ) -> Result<IdRun> {
        let (gpu, g, labels, data, upload_ms) = self.tree_layout()?;
        let run = ggq::enumerate(gpu, g, labels, data, tree, plan, ask, control, sink)?;
        Ok(IdRun { ms: run.ms + upload_ms, ..run })
    }

    /// Starts a tree query's peak of device bytes and gives what GGQ's kernels read: the
    /// device, the tree layout (uploaded on first use), the vertex labels and the data graph,
    /// with the milliseconds this upload took (0 after the first).
    fn tree_layout(&mut self) -> Result<(&Gpu, &mut TreeGraph, &DeviceBuffer<u32>, &Graph, f64)> {
        self.device.whole("tree-pattern passes")?;
        self.device.gpu.reset_peak()?;
        let t = Instant::now();
        let g = match &mut self.tree_graph {
            Some(g) => g,
            slot => slot.insert(TreeGraph::upload(&self.device.gpu, &self.device.data)?),
        };
        Ok((&self.device.gpu, g, &self.device.graph.labels, &self.device.data, t.elapsed().as_secs_f64() * 1e3))
    }

    pub fn device_info(&self) -> &DeviceInfo {
        self.device.gpu.info()
    }

    /// The candidate filter `opts` runs on this engine's data graph.
    pub fn candidate_filter(&self, opts: &GpuOptions) -> CandidateFilter {
        opts.filter.resolve(&self.device.data)
    }

    /// Milliseconds `new` spent building and uploading the data graph.
    pub fn graph_upload_ms(&self) -> f64 {
        self.graph_upload_ms
    }

    /// The data graph.
    pub fn data(&self) -> &Arc<Graph> {
        &self.device.data
    }

    /// The data graph's segments, where it is partitioned.
    pub fn partitioned(&self) -> Option<&PartitionedGraph> {
        self.device.graph.partitioned.as_ref()
    }

    /// Most device bytes held since the last query began.
    pub fn peak_device_bytes(&self) -> u64 {
        self.device.gpu.peak_bytes()
    }

    /// Device bytes held now (the resident data graph between queries).
    pub fn device_bytes(&self) -> u64 {
        self.device.gpu.live_bytes()
    }

    /// Matches `query` against the engine's data graph. Counts, honours `opts.limit` and
    /// `control` like the CPU engine, and writes the embeddings to `output` when given.
    pub fn run_query(
        &mut self,
        query: Graph,
        opts: &MatchOptions,
        gpu_opts: &GpuOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
    ) -> Result<GpuReport> {
        run_on(std::slice::from_mut(self), query, opts, gpu_opts, control, output)
    }
}

/// The engines of one data graph, one per device; the first plans every query.
pub struct GpuSet {
    engines: Vec<GpuEngine>,
}

impl GpuSet {
    /// Opens an engine on each device of `ordinals` (uploading the graph to each, in
    /// parallel). The same ordinal twice opens two engines on one device: the code path of
    /// several devices, on a host that has one.
    pub fn open(shared: Arc<Graph>, opts: &GpuOptions, ordinals: &[usize]) -> Result<GpuSet> {
        assert!(!ordinals.is_empty(), "a GPU set has at least one device");
        let engines: Result<Vec<GpuEngine>> = std::thread::scope(|s| {
            let opening: Vec<_> = ordinals
                .iter()
                .map(|&ordinal| {
                    let shared = shared.clone();
                    s.spawn(move || GpuEngine::open(shared, opts, ordinal))
                })
                .collect();
            opening.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
        });
        Ok(GpuSet { engines: engines? })
    }

    /// Opens the devices `count` asks for.
    pub fn open_count(shared: Arc<Graph>, opts: &GpuOptions, count: GpuCount) -> Result<GpuSet> {
        GpuSet::open(shared, opts, &count.present()?)
    }

    /// The engine of the first device, which plans the queries (and runs GGQ's tree counts).
    pub fn first(&self) -> &GpuEngine {
        &self.engines[0]
    }

    pub fn first_mut(&mut self) -> &mut GpuEngine {
        &mut self.engines[0]
    }

    /// Each device's name and number.
    pub fn device_infos(&self) -> Vec<&DeviceInfo> {
        self.engines.iter().map(|e| e.device_info()).collect()
    }

    /// The longest graph upload of the devices (they upload in parallel).
    pub fn graph_upload_ms(&self) -> f64 {
        self.engines.iter().map(GpuEngine::graph_upload_ms).fold(0.0, f64::max)
    }

    /// Matches `query` as [`GpuEngine::run_query`] does, on as many devices as its estimated
    /// work is worth (`gpu_opts.shared_from`, [`SHARED_QUERY_COST`] by default): the same
    /// count, limit and matches.
    ///
    /// [`SHARED_QUERY_COST`]: crate::options::SHARED_QUERY_COST
    pub fn run_query(
        &mut self,
        query: Graph,
        opts: &MatchOptions,
        gpu_opts: &GpuOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
    ) -> Result<GpuReport> {
        run_on(&mut self.engines, query, opts, gpu_opts, control, output)
    }
}

/// Runs `query` on `engines` (at least one) by the strategy `gpu_opts` names: GpSM's on the
/// first alone, else GSI's join (with FSIG's parts under its strategy), planned on the first and
/// joined on as many as its estimated work is worth ([`multi::join_on`]). One engine's
/// [`GpuEngine::run_query`] is this over itself.
fn run_on(
    engines: &mut [GpuEngine],
    query: Graph,
    opts: &MatchOptions,
    gpu_opts: &GpuOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
) -> Result<GpuReport> {
    let start = Instant::now();
    engines.iter().try_for_each(|e| e.device.reset_peak())?;
    // GpSM, the baseline, runs as its paper does: on one device, whatever it counts.
    if gpu_opts.strategy == Strategy::Gpsm {
        let first = &mut engines[0];
        return gpsm::run_query(&mut first.device, &mut first.gpsm_kernels, query, opts, gpu_opts, control, output);
    }
    let composed;
    let (opts, gpu_opts) = match gpu_opts.strategy {
        Strategy::Fsig => {
            composed = fsig::compose(opts, gpu_opts);
            (&composed.0, &composed.1)
        }
        _ => (opts, gpu_opts),
    };
    let mut devices: Vec<(&mut GpuDevice, &mut Gsi)> =
        engines.iter_mut().map(|e| (&mut e.device, &mut e.gsi)).collect();
    multi::join_on(&mut devices, start, query, opts, gpu_opts, control, output)
}
