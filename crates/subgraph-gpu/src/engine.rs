//! The GPU engine (GSI §V–§VI): over the data graph on the device ([`crate::gsi::device_graph`]:
//! PCSR, or SGSI's segments in host memory, over which queries join FSIG's A built from the
//! segments they read), with the options of [`crate::options`], queries run as GSI's
//! vertex-at-a-time join over the core plan: Prealloc-Combine or the two-step output scheme,
//! warp-level set operations with a write cache, 4-layer-style load balancing without dynamic
//! parallelism, count-only last level, and chunked processing of a table whose next level
//! would not fit in device memory. Answers equal the CPU engine's (same plan, same checks).

use std::cell::Cell;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use subgraph_core::filter::Bitset;
use subgraph_core::pipeline::{MatchOptions, Report};
use subgraph_core::plan::{Device, Link, Plan, PlanOptions, Tail};
use subgraph_core::planner::{self, H200_COSTS};
use subgraph_core::sink::{Control, Output, Stopped};
use subgraph_core::spasm;
use subgraph_core::tree::TreeQuery;
use subgraph_core::{Dir, Graph, Query, Semantics};
use subgraph_cuda::{DeviceBuffer, DeviceInfo, Gpu, HostBuffer};

use crate::dfs::{largest_groups, DfsKernels, DfsPlan, LevelAddresses};
use crate::error::{GpuError, Result};
use crate::fsig;
use crate::fsig::refine::{links_of, refine, Lists, RefineKernels, SegmentArgs};
use crate::ggq::ids::{Ask, IdPlan, IdRun};
use crate::ggq::{self, GpuTreeCount, TreeGraph};
use crate::gpsm::{self, GpsmKernels};
use crate::gsi::device_graph::DeviceGraph;
use crate::gsi::filter::{filter_on_device, filter_segments, DeviceCandidateSet, FilterKernels, TableSegment};
use crate::gsi::join::{Join, Kernels, ROW_BLOCK, SOURCE};
use crate::gsi::signature::Signature;
use crate::multi::deal::Deal;
pub use crate::options::{
    CandidateFilter, DepthFirst, GpuOptions, LoadBalance, OutputScheme, Strategy, Structure, DFS_FRONTIER_ROWS,
};
use crate::partition::park;
use crate::partition::PartitionedGraph;
use crate::shared::emit::Take;
use crate::shared::levels::{dir_index, level_descriptor, LevelData, MAX_COLUMNS};
use crate::shared::report::{DfsStats, GpuReport, Spill, Streamed};
use crate::shared::slices::DeviceStructure;
use crate::shared::tally::Tally;

/// A query filtered and planned (on one device), ready to be joined on that device or on
/// several, each claiming first-level rows from a [`Deal`].
pub(crate) struct Planned {
    q: Query,
    plan: Plan,
    filter: CandidateFilter,
    /// Whether the plan may count its last positions with the depth-first kernel.
    may_dfs: bool,
    /// Whether there is anything to join (the plan is not empty, nor stopped while planned).
    joins: bool,
}

/// What one device's join of a [`Planned`] query did.
pub(crate) struct Joined {
    structure: Structure,
    count: u128,
    upload_ms: f64,
    join_ms: f64,
    space_bytes: u64,
    peak_device_bytes: u64,
    nodes: u64,
    chunks: u64,
    buffer_elements: u64,
    joined_rows: u64,
    block_tasks: u64,
    grid_tasks: u64,
    dfs: DfsStats,
    spill: Spill,
    alpha_retries: u64,
    partitioned: bool,
    streamed: Streamed,
}

impl Planned {
    /// The query counted by its spasm on the host's cores instead of joined, where `opts`
    /// allow and the join's predicted time (from [`Planned::priced_cost`]) calls for it
    /// ([`spasm::attempt`]); None to join.
    pub(crate) fn spasm_count(
        &self,
        data: &Graph,
        opts: &MatchOptions,
        counting: bool,
        start: Instant,
        control: &Control,
    ) -> Option<GpuReport> {
        let c = spasm::attempt(data, &self.q, opts.spasm(counting, H200_COSTS.gpu_ms(self.priced_cost())), control)?;
        let mut r = self.report(start, opts, &[], control);
        r.report = r.report.counted(c);
        Some(r)
    }

    /// The structure the join reads under `structure`: [`Structure::Auto`] decided, the
    /// others as they are. `auto` builds A where the candidates come from the device filter
    /// (data graphs of 2^20 vertices and more under `--gpu-filter auto`, whose PCSR slices of
    /// hub vertices A shortens for a fraction of a millisecond) or where the join's predicted
    /// time reaches [`fsig::AUX_FROM_MS`]; else PCSR.
    pub(crate) fn structure(&self, structure: Structure) -> Structure {
        let device_filter = self.filter != CandidateFilter::Host;
        match structure {
            Structure::Auto if device_filter || H200_COSTS.gpu_ms(self.priced_cost()) >= fsig::AUX_FROM_MS => {
                Structure::Aux
            }
            Structure::Auto => Structure::Pcsr,
            other => other,
        }
    }

    /// The plan's estimated work as the planner prices it for the GPU; 0 when the planner did
    /// not sample it (a query its bound showed small).
    pub(crate) fn priced_cost(&self) -> f64 {
        let plan = &self.plan;
        plan.estimate.as_ref().map_or(0.0, |e| plan.options.price(e, plan.multiplier))
    }

    /// The first level's rows, dealt to `devices` devices (heaviest first by their data
    /// vertices' squared degrees in `data` when several).
    pub(crate) fn deal(&self, data: &Graph, devices: usize) -> Deal {
        if !self.joins {
            return Deal::whole(0);
        }
        match devices {
            1 => Deal::whole(self.plan.sizes[0] as u64),
            _ => Deal::weighted(&self.plan.candidates[0], |v| (data.total_degree(v) as u64).pow(2), devices),
        }
    }

    /// Starts the query once, before any device joins it: its output header, and a limit of
    /// zero reached at once.
    pub(crate) fn begin(&self, opts: &MatchOptions, control: &Control, output: Option<(&Output, &str)>) {
        if !self.joins {
            return;
        }
        if let Some((out, name)) = output {
            out.begin_query(name, self.plan.len());
        }
        if opts.limit == Some(0) {
            control.stop(Stopped::Limit);
        }
    }

    /// The query's report from its devices' joins (started at `start`): counts and work
    /// summed, times and memory of the slowest or largest device.
    pub(crate) fn report(
        &self,
        start: Instant,
        opts: &MatchOptions,
        joined: &[Joined],
        control: &Control,
    ) -> GpuReport {
        let plan = &self.plan;
        let max = |f: fn(&Joined) -> f64| joined.iter().map(f).fold(0.0, f64::max);
        let sum = |f: fn(&Joined) -> u64| joined.iter().map(f).sum::<u64>();
        let join_ms = max(|j| j.join_ms);
        let upload_ms = max(|j| j.upload_ms);
        let stopped = control.stopped();
        let report = Report {
            embeddings: joined.iter().map(|j| j.count).sum(),
            complete: stopped.is_none(),
            stopped,
            filter: self.filter.name_with(opts.filter.applied()),
            filter_ms: plan.filter_ms,
            order_ms: plan.order_ms,
            space_ms: upload_ms,
            enumerate_ms: join_ms,
            elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
            candidates: plan.candidate_count(),
            candidate_edges: 0,
            space_bytes: joined.iter().map(|j| j.space_bytes).max().unwrap_or(0),
            nodes: sum(|j| j.nodes),
            tasks: sum(|j| j.chunks),
            order: "",
            tail: 0,
            restrictions: 0,
            multiplier: 1,
            estimated_embeddings: None,
            estimated_cost: None,
            priced_cost: None,
            spasm_terms: 0,
            space: None,
        }
        .with_plan(plan);
        GpuReport {
            report,
            upload_ms,
            filter_ms: plan.filter_ms,
            join_ms,
            peak_device_bytes: joined.iter().map(|j| j.peak_device_bytes).max().unwrap_or(0),
            buffer_elements: sum(|j| j.buffer_elements),
            joined_rows: sum(|j| j.joined_rows),
            block_tasks: sum(|j| j.block_tasks),
            grid_tasks: sum(|j| j.grid_tasks),
            dfs: joined.iter().fold(DfsStats::default(), |a, j| a.merge(&j.dfs)),
            spill: joined.iter().map(|j| j.spill).sum(),
            alpha_retries: sum(|j| j.alpha_retries),
            devices: joined.len(),
            idle_ms: joined.iter().map(|j| join_ms - j.join_ms).sum(),
            strategy: Strategy::Gsi.name(),
            structure: joined.first().map_or("none", |j| j.structure.name()),
            partitioned: joined.iter().any(|j| j.partitioned),
            streamed: joined.iter().fold(Streamed::default(), |a, j| Streamed {
                segments: a.segments + j.streamed.segments,
                bytes: a.bytes + j.streamed.bytes,
            }),
        }
    }
}

/// The GPU engine for one data graph; runs any number of queries. It shares the host graph
/// (plans are made on the host) instead of copying it.
pub struct GpuEngine {
    gpu: Gpu,
    data: Arc<Graph>,
    graph: DeviceGraph,
    kernels: Kernels,
    /// Loaded by `new` when its options filter on the device, else on first use.
    filter_kernels: Option<FilterKernels>,
    /// Loaded by `new` when its options refine, else on the first refinement.
    refine_kernels: Option<RefineKernels>,
    /// Loaded on the first depth-first query.
    dfs_kernels: Option<DfsKernels>,
    /// Loaded on the first GpSM query.
    gpsm_kernels: Option<GpsmKernels>,
    /// The data graph's largest N(v, dir, pair), computed on the first depth-first query.
    largest: Option<Vec<Vec<u32>>>,
    /// The data graph as GGQ's tree passes read it, uploaded on the first tree query.
    tree_graph: Option<TreeGraph>,
    /// Page-locked memory that written matches come to the host through, allocated on the
    /// first query that writes them.
    host: HostBuffer,
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
        let rows = gpu.kernel(&SOURCE, "join_rows")?;
        let resident_warps = gpu.info().multiprocessors as u64
            * gpu.resident_blocks(&rows, ROW_BLOCK)?.max(1) as u64
            * (ROW_BLOCK / 32) as u64;
        let kernels = Kernels {
            sizes: gpu.kernel(&SOURCE, "join_sizes")?,
            rows,
            resident_warps,
            tasks: gpu.kernel(&SOURCE, "join_tasks")?,
            classify: gpu.kernel(&SOURCE, "join_classify")?,
            histogram: gpu.kernel(&SOURCE, "join_histogram")?,
            multiprocessors: gpu.info().multiprocessors as u64,
            expand: gpu.kernel(&SOURCE, "join_expand")?,
            link: gpu.kernel(&SOURCE, "join_link")?,
            park_rows: gpu.kernel(&park::SOURCE, "park_rows")?,
        };
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
        // Compiled here, outside the upload time, for the filter `opts` runs, so the first
        // query does not pay NVRTC; other filters' kernels on their first use.
        crate::shared::scan::prepare(&gpu)?;
        let filter_kernels = if filter == CandidateFilter::Host { None } else { Some(FilterKernels::new(&gpu)?) };
        let refine_kernels = if filter == CandidateFilter::Refined { Some(RefineKernels::new(&gpu)?) } else { None };
        if matches!(opts.structure, Structure::Aux | Structure::Auto) {
            fsig::prepare(&gpu)?;
        }
        // The GSI order, which the planner tries, reads the data's edge-label counts, computed
        // on first use: here, once per graph, rather than in the first query.
        data.edge_label_count(0);
        // The depth-first kernels (whose first load JIT-compiles seconds of code) and the
        // largest neighbour groups they size their scratch by, when queries may use them.
        let (dfs_kernels, largest) = match opts.depth_first {
            DepthFirst::Off => (None, None),
            _ => (Some(DfsKernels::new(&gpu)?), Some(largest_groups(data))),
        };
        Ok(GpuEngine {
            gpu,
            data: shared,
            graph,
            kernels,
            filter_kernels,
            refine_kernels,
            dfs_kernels,
            gpsm_kernels: None,
            largest,
            tree_graph: None,
            host: HostBuffer::default(),
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
        let run = ggq::ids::enumerate(gpu, g, labels, data, tree, plan, ask, control, sink)?;
        Ok(IdRun { ms: run.ms + upload_ms, ..run })
    }

    /// Starts a tree query's peak of device bytes and gives what GGQ's kernels read: the
    /// device, the tree layout (uploaded on first use), the vertex labels and the data graph,
    /// with the milliseconds this upload took (0 after the first).
    fn tree_layout(&mut self) -> Result<(&Gpu, &mut TreeGraph, &DeviceBuffer<u32>, &Graph, f64)> {
        self.whole("tree-pattern passes")?;
        self.gpu.reset_peak()?;
        let t = Instant::now();
        let g = match &mut self.tree_graph {
            Some(g) => g,
            slot => slot.insert(TreeGraph::upload(&self.gpu, &self.data)?),
        };
        Ok((&self.gpu, g, &self.graph.labels, &self.data, t.elapsed().as_secs_f64() * 1e3))
    }

    pub fn device_info(&self) -> &DeviceInfo {
        self.gpu.info()
    }

    /// The candidate filter `opts` runs on this engine's data graph.
    pub fn candidate_filter(&self, opts: &GpuOptions) -> CandidateFilter {
        opts.filter.resolve(&self.data)
    }

    /// Milliseconds `new` spent building and uploading the data graph.
    pub fn graph_upload_ms(&self) -> f64 {
        self.graph_upload_ms
    }

    /// The data graph.
    pub fn data(&self) -> &Arc<Graph> {
        &self.data
    }

    /// The data graph's segments, where it is partitioned.
    pub fn partitioned(&self) -> Option<&PartitionedGraph> {
        self.graph.partitioned.as_ref()
    }

    /// Fails with [`GpuError::Partitioned`] naming `what` where the data graph is partitioned
    /// (`what` reads the whole graph on the device).
    pub(crate) fn whole(&self, what: &'static str) -> Result<()> {
        match self.graph.partitioned {
            Some(_) => Err(GpuError::Partitioned { what }),
            None => Ok(()),
        }
    }

    /// Starts a query's peak of device bytes (and looks at the device's free memory), and its
    /// count of streamed segments.
    pub(crate) fn reset_peak(&self) -> Result<()> {
        if let Some(p) = &self.graph.partitioned {
            p.take_streamed();
            p.release();
        }
        Ok(self.gpu.reset_peak()?)
    }

    /// Most device bytes held since the last query began.
    pub fn peak_device_bytes(&self) -> u64 {
        self.gpu.peak_bytes()
    }

    /// Device bytes held now (the resident data graph between queries).
    pub fn device_bytes(&self) -> u64 {
        self.gpu.live_bytes()
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
        crate::multi::run_on(std::slice::from_mut(self), query, opts, gpu_opts, control, output)
    }

    /// Matches `query` by GpSM ([`crate::gpsm`]) on this device, uploading the id-sorted
    /// adjacency and loading the kernels on the first such query.
    pub(crate) fn run_gpsm(
        &mut self,
        query: Graph,
        opts: &MatchOptions,
        gpu_opts: &GpuOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
    ) -> Result<GpuReport> {
        self.whole("GpSM's edge join")?;
        let t = Instant::now();
        let q = Query::new(query, &self.data, opts.semantics)?;
        let kernels = loaded(&mut self.gpsm_kernels, || GpsmKernels::new(&self.gpu))?;
        self.graph.ensure_adjacency(&self.gpu, &self.data)?;
        let graph = &self.graph;
        let adj = graph.adjacency.as_ref().ok_or_else(|| GpuError::Mismatch("adjacency not uploaded".into()))?;
        let upload_ms = t.elapsed().as_secs_f64() * 1e3;
        let dev = gpsm::Device {
            gpu: &self.gpu,
            k: kernels,
            labels: &graph.labels,
            adj,
            memory_budget: gpu_opts.memory_budget,
        };
        let r = gpsm::run(&dev, &mut self.host, &self.data, &q, opts, &gpu_opts.gpsm, control, output)?;
        Ok(GpuReport { upload_ms, ..r })
    }

    /// Filters and plans `query` on this device for a join that counts (`counting`) or writes
    /// its matches; the candidate sets the device filter made stay on this device for its join.
    pub(crate) fn plan_query(
        &mut self,
        query: Graph,
        opts: &MatchOptions,
        gpu_opts: &GpuOptions,
        counting: bool,
        control: &Control,
    ) -> Result<(Planned, Option<DeviceCandidateSet>)> {
        if opts.semantics == Semantics::Induced {
            self.whole("induced matching (its non-edge checks)")?;
        }
        let q = Query::new(query, &self.data, opts.semantics)?;
        if q.num_vertices() > MAX_COLUMNS {
            return Err(GpuError::TooLarge {
                what: "query vertices",
                len: q.num_vertices() as u64,
                max: MAX_COLUMNS as u64,
            });
        }
        // Only the depth-first kernel counts a tail; plans are priced for the GPU.
        let may_dfs = counting && gpu_opts.depth_first != DepthFirst::Off;
        let tail = if may_dfs { opts.tail } else { Tail::Off };
        let plan_opts = PlanOptions { tail, device: Device::Gpu, ..opts.plan(counting) };
        let filter = gpu_opts.filter.resolve(&self.data);
        let (plan, device_cands) = match filter {
            CandidateFilter::Signature | CandidateFilter::Refined => {
                let t = Instant::now();
                self.graph.ensure(&self.gpu, &self.data, gpu_opts.structure)?;
                let dummy64 = self.gpu.alloc_zeros::<u64>("placeholder", 1)?;
                let dummy32 = self.gpu.alloc_zeros::<u32>("placeholder", 1)?;
                // A query edge whose (edge label, neighbour label) the data lacks has no match.
                let pairs_exist = (0..q.num_vertices() as u32)
                    .all(|u| q.edges(u).iter().all(|e| self.data.pair_id(e.label, q.label(e.to)).is_some()));
                let mut set = if pairs_exist { Some(self.signature_filter(&q, opts.semantics)?) } else { None };
                if let Some(set) = set.as_mut().filter(|s| !s.any_empty()) {
                    if filter == CandidateFilter::Refined {
                        self.refine(&q, gpu_opts.structure.base(), set, &dummy64, &dummy32)?;
                    }
                }
                // The sets stay on the device for the join; the planner samples a host copy.
                let set = set.filter(|s| !s.any_empty());
                let lists = match &set {
                    Some(s) => s.lists_to_host(&self.gpu)?,
                    None => vec![Vec::new(); q.num_vertices()],
                };
                let filter_ms = t.elapsed().as_secs_f64() * 1e3;
                let (plan, _) = planner::choose(&self.data, &q, plan_opts, lists, filter_ms, control);
                (plan, set)
            }
            CandidateFilter::Host | CandidateFilter::Auto => (Plan::new(&self.data, &q, plan_opts, control), None),
        };
        // A query the deadline or Ctrl-C stopped while it was planned uploads and joins nothing.
        let joins = !plan.empty && !control.should_stop();
        Ok((Planned { q, plan, filter, may_dfs, joins }, device_cands))
    }

    /// Joins `planned` on this device from the first-level rows it claims from `deal`, taking
    /// embeddings towards the limit through `tally` (both shared with the query's other
    /// devices): uploads the levels (from `device_cands` where this device filtered, else from
    /// the plan's lists), then extends every claim.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn join(
        &mut self,
        planned: &Planned,
        device_cands: Option<DeviceCandidateSet>,
        opts: &MatchOptions,
        gpu_opts: &GpuOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
        tally: &Tally,
        deal: &Deal,
    ) -> Result<Joined> {
        let Planned { q, plan, may_dfs, joins, .. } = planned;
        let n = plan.len();
        let t = Instant::now();
        self.graph.ensure(&self.gpu, &self.data, gpu_opts.structure)?;
        let dummy64 = self.gpu.alloc_zeros::<u64>("placeholder", 1)?;
        let dummy32 = self.gpu.alloc_zeros::<u32>("placeholder", 1)?;
        if opts.semantics == Semantics::Induced {
            self.graph.ensure_adjacency(&self.gpu, &self.data)?;
        }
        let structure = match self.graph.partitioned {
            Some(_) => Structure::Aux,
            None => planned.structure(gpu_opts.structure),
        };
        let levels = match joins {
            true => self.upload_levels(plan, q, opts.semantics, structure, device_cands.as_ref())?,
            false => Vec::new(),
        };
        drop(device_cands);
        let nverts = self.data.num_vertices() as u32;
        let aux = match (*joins && structure == Structure::Aux, &self.graph.partitioned) {
            (true, _) => {
                let aux = self.build_aux(plan, q, &levels, &dummy64, &dummy32)?;
                // The join reads A alone: the segments this query kept go back.
                if let Some(p) = &self.graph.partitioned {
                    p.release();
                }
                Some(aux)
            }
            // Nothing is joined, so nothing is read; a partitioned graph has no whole PCSR to
            // stand in for A.
            (false, Some(_)) => Some(DeviceStructure::empty(&self.gpu)?),
            (false, None) => None,
        };
        let use_dfs = *may_dfs
            && *joins
            && n >= 2
            && match gpu_opts.depth_first {
                DepthFirst::On => true,
                DepthFirst::Auto => plan.tail > 0,
                DepthFirst::Off => false,
            };
        let dfs =
            if use_dfs { Some(self.dfs_plan(plan, q, opts.semantics, structure, gpu_opts, &levels)?) } else { None };
        let upload_ms = t.elapsed().as_secs_f64() * 1e3;
        let space_bytes = self.gpu.live_bytes();
        let t = Instant::now();
        let mut join = Join {
            gpu: &self.gpu,
            k: &self.kernels,
            graph: self.graph.args(structure, aux.as_ref(), nverts, &dummy64, &dummy32)?,
            plan,
            levels: &levels,
            opts: gpu_opts,
            take: Take { gpu: &self.gpu, tally, control, output, host: &mut self.host, count: 0, done: false },
            dummy64: &dummy64,
            nodes: 0,
            chunks: 0,
            buffer_elements: 0,
            joined_rows: 0,
            block_tasks: Cell::new(0),
            grid_tasks: Cell::new(0),
            dfs: dfs.as_ref().map(|p| (self.dfs_kernels.as_ref().expect("loaded with the DFS plan"), p)),
            dfs_stats: DfsStats::default(),
            spill: Spill::default(),
            parks: Vec::new(),
            alpha_retries: 0,
        };
        if *joins {
            while let Some((start, end)) = deal.claim() {
                if join.stop_now() {
                    break;
                }
                let rows = (end - start) as usize;
                let first = match deal.rows() {
                    Some(order) => self.gpu.upload("first column", &order[start as usize..end as usize])?,
                    None => {
                        let mut first = self.gpu.alloc_zeros::<u32>("first column", rows)?;
                        self.gpu.copy(&levels[0].cands, start as usize, &mut first, 0, rows)?;
                        first
                    }
                };
                join.nodes += rows as u64;
                join.extend(1, first, rows as u64)?;
            }
        }
        self.gpu.synchronize()?;
        Ok(Joined {
            structure,
            count: join.take.count,
            upload_ms,
            join_ms: t.elapsed().as_secs_f64() * 1e3,
            space_bytes,
            peak_device_bytes: self.gpu.peak_bytes(),
            nodes: join.nodes,
            chunks: join.chunks,
            buffer_elements: join.buffer_elements,
            joined_rows: join.joined_rows,
            block_tasks: join.block_tasks.get(),
            grid_tasks: join.grid_tasks.get(),
            dfs: join.dfs_stats,
            spill: join.spill,
            alpha_retries: join.alpha_retries,
            partitioned: self.graph.partitioned.is_some(),
            streamed: self.graph.partitioned.as_ref().map_or(Streamed::default(), |p| p.take_streamed()),
        })
    }

    /// FSIG's A of `plan` over its uploaded `levels`, from the resident PCSR, or from the
    /// segments of a partitioned graph that hold sources of the plan's links.
    fn build_aux(
        &self,
        plan: &Plan,
        q: &Query,
        levels: &[LevelData],
        dummy64: &DeviceBuffer<u64>,
        dummy32: &DeviceBuffer<u32>,
    ) -> Result<DeviceStructure> {
        let nverts = self.data.num_vertices() as u32;
        let labels: Vec<u32> = plan.vertices.iter().map(|&u| q.label(u)).collect();
        let index = structure_index(&self.data, Structure::Pcsr);
        let graph = &self.graph;
        let Some(parts) = &graph.partitioned else {
            let base = graph.args(Structure::Pcsr, None, nverts, dummy64, dummy32)?;
            return fsig::build(&self.gpu, &mut |each| each(&base, None), &index, plan, &labels, levels);
        };
        // Each link's structure, its source position's label and candidates (sorted), and
        // where its keys start among all: a segment is read for the candidates it holds lists
        // of.
        let mut start = 0u64;
        let links: Vec<(u32, u32, &[u32], u64)> = plan
            .backward
            .iter()
            .flatten()
            .map(|l| {
                let cands = plan.candidates[l.from].as_slice();
                start += cands.len() as u64;
                (index(l.dir, l.edge_label), labels[l.from], cands, start - cands.len() as u64)
            })
            .collect();
        // Each segment's windows, once for both of A's passes.
        let windows: Vec<Vec<Range<u64>>> = parts
            .segments()
            .iter()
            .map(|seg| {
                links
                    .iter()
                    .filter(|&&(st, ..)| st == seg.st)
                    .map(|&(_, label, cands, start)| {
                        let held = seg.held(label, cands);
                        start + held.start as u64..start + held.end as u64
                    })
                    .filter(|w| !w.is_empty())
                    .collect()
            })
            .collect();
        let order: Vec<usize> = (0..windows.len()).filter(|&i| !windows[i].is_empty()).collect();
        fsig::build(
            &self.gpu,
            &mut |each| {
                parts.each_segment(&self.gpu, &order, &mut |i, st| {
                    each(&graph.segment_args(st, nverts, dummy64, dummy32), Some(&windows[i]))
                })
            },
            &index,
            plan,
            &labels,
            levels,
        )
    }

    /// C(u) of every query vertex by the signature filter on the device, in one pass (for
    /// homomorphisms the query's counters are capped at one: several query neighbours may
    /// share a data vertex), within the data vertices the query restricts u to.
    fn signature_filter(&mut self, q: &Query, semantics: Semantics) -> Result<DeviceCandidateSet> {
        let kernels = loaded(&mut self.filter_kernels, || FilterKernels::new(&self.gpu))?;
        let sigs: Vec<Signature> = (0..q.num_vertices() as u32)
            .map(|u| {
                let sig = Signature::of_vertex(q.graph(), u);
                if semantics.injective() {
                    sig
                } else {
                    sig.at_most_one()
                }
            })
            .collect();
        let allowed: Vec<Option<&Bitset>> = (0..q.num_vertices() as u32).map(|u| q.graph().allowed(u)).collect();
        let (gpu, data) = (&self.gpu, &*self.data);
        match &mut self.graph.partitioned {
            Some(parts) => {
                let n = data.num_vertices() as u32;
                let mut labels: Vec<u32> = (0..q.num_vertices() as u32).map(|u| q.label(u)).collect();
                labels.sort_unstable();
                labels.dedup();
                let mut segments = |each: &mut TableSegment<'_>| parts.each_table_segment(gpu, data, &labels, each);
                filter_segments(gpu, kernels, n, &mut segments, &sigs, &allowed)
            }
            None => filter_on_device(gpu, kernels, self.graph.ensure_signatures(gpu, data)?, &sigs, &allowed),
        }
    }

    /// FSIG's refinement of the signature filter's candidates (crate::fsig::refine) over the join's
    /// structure.
    fn refine(
        &mut self,
        q: &Query,
        structure: Structure,
        cands: &mut DeviceCandidateSet,
        dummy64: &DeviceBuffer<u64>,
        dummy32: &DeviceBuffer<u32>,
    ) -> Result<()> {
        let kernels = loaded(&mut self.refine_kernels, || RefineKernels::new(&self.gpu))?;
        let nverts = self.data.num_vertices() as u32;
        let index = structure_index(&self.data, structure);
        let links: Vec<Vec<u32>> = (0..q.num_vertices() as u32).map(|u| links_of(q, u, &index)).collect();
        let (gpu, graph) = (&self.gpu, &self.graph);
        let Some(parts) = &graph.partitioned else {
            let graph = graph.args(structure, None, nverts, dummy64, dummy32)?;
            return refine(gpu, kernels, Lists::Whole(&|| graph.args()), &links, cands);
        };
        // A segment is read when it holds sources of a query vertex's label with an edge of
        // its structure.
        let sources: Vec<(u32, u32)> = (0..q.num_vertices() as u32)
            .flat_map(|u| q.edges(u).iter().map(|e| (index(e.dir, e.label), q.label(u))).collect::<Vec<_>>())
            .collect();
        let segs = parts.segments();
        let order: Vec<usize> = (0..segs.len())
            .filter(|&i| sources.iter().any(|&(st, label)| st == segs[i].st && segs[i].holds_label(&[label])))
            .collect();
        let mut segments = |each: &mut SegmentArgs<'_>| {
            parts.each_segment(gpu, &order, &mut |i, st| {
                each(graph.segment_args(st, nverts, dummy64, dummy32).args(), (segs[i].first, segs[i].last))
            })
        };
        refine(gpu, kernels, Lists::Segments(&mut segments), &links, cands)
    }

    /// The depth-first kernel's records for `plan` over its uploaded levels (loading the
    /// kernels and the data graph's largest groups on first use).
    fn dfs_plan(
        &mut self,
        plan: &Plan,
        q: &Query,
        semantics: Semantics,
        structure: Structure,
        gpu_opts: &GpuOptions,
        levels: &[LevelData],
    ) -> Result<DfsPlan> {
        loaded(&mut self.dfs_kernels, || DfsKernels::new(&self.gpu))?;
        let data = &*self.data;
        let largest: &Vec<Vec<u32>> = match &mut self.largest {
            Some(l) => l,
            slot => slot.insert(largest_groups(data)),
        };
        let addresses: Vec<LevelAddresses> = levels
            .iter()
            .map(|l| LevelAddresses {
                bitset: l.bitset.device_address(),
                cands: l.cands.device_address(),
                ncands: l.cands.len() as u64,
            })
            .collect();
        let index = link_index(data, structure, plan);
        DfsPlan::new(
            &self.gpu,
            plan,
            q,
            semantics.injective(),
            index,
            &addresses,
            largest,
            gpu_opts.dfs_frontier_rows as f64,
        )
    }

    /// Descriptor, candidate bitset and candidate list of every plan position; the bitset and
    /// list are copied from `device_cands` (indexed by query vertex) when the device filter
    /// made them, else built from the plan and uploaded.
    fn upload_levels(
        &self,
        plan: &Plan,
        q: &Query,
        semantics: Semantics,
        structure: Structure,
        device_cands: Option<&DeviceCandidateSet>,
    ) -> Result<Vec<LevelData>> {
        let words = self.data.num_vertices().div_ceil(32).max(1);
        let index = link_index(&self.data, structure, plan);
        (0..plan.len())
            .map(|pos| {
                let u = plan.vertices[pos];
                let desc = self.gpu.upload(
                    "level descriptor",
                    &level_descriptor(plan, pos, q.label(u), semantics.injective(), |k, l| index(pos, k, l)),
                )?;
                if let Some(set) = device_cands {
                    let (cands, bitset) = set.take(&self.gpu, u as usize)?;
                    return Ok(LevelData { desc, bitset, cands });
                }
                let mut bitset = vec![0u32; words];
                for &v in &plan.candidates[pos] {
                    bitset[v as usize / 32] |= 1 << (v % 32);
                }
                Ok(LevelData {
                    desc,
                    bitset: self.gpu.upload("candidate bitset", &bitset)?,
                    cands: self.gpu.upload("candidates", &plan.candidates[pos])?,
                })
            })
            .collect()
    }
}

/// The kernels in `slot`, loaded by `load` unless they were already.
fn loaded<T>(slot: &mut Option<T>, load: impl FnOnce() -> Result<T>) -> Result<&T> {
    Ok(match slot {
        Some(kernels) => kernels,
        None => slot.insert(load()?),
    })
}

/// The device index of N(·, dir, edge label) in `structure`: one PCSR per (direction, edge
/// label), one CSR per direction. Edge labels absent from the data map to 0; a plan whose query
/// has one is empty and never reaches the device.
fn structure_index(data: &Graph, structure: Structure) -> impl Fn(Dir, u32) -> u32 + '_ {
    let labels = data.edge_label_values();
    move |dir, label| match structure.base() {
        Structure::Csr => dir_index(dir),
        _ => dir_index(dir) * labels.len() as u32 + labels.binary_search(&label).unwrap_or(0) as u32,
    }
}

/// The device index of link k of plan position pos in `structure`: its table of A under
/// [`Structure::Aux`] ([`fsig::link_starts`]), else [`structure_index`] of its direction and
/// edge label.
fn link_index<'d>(data: &'d Graph, structure: Structure, plan: &Plan) -> impl Fn(usize, usize, &Link) -> u32 + 'd {
    let index = structure_index(data, structure);
    let starts = (structure == Structure::Aux).then(|| fsig::link_starts(plan));
    move |pos, k, l| match &starts {
        Some(starts) => starts[pos] + k as u32,
        None => index(l.dir, l.edge_label),
    }
}
