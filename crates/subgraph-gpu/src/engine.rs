//! The GPU engine (GSI §V–§VI): the data graph resident on the device (PCSR per edge label and
//! direction, §IV-A, or the plain CSR baseline of Table II), and queries run as GSI's
//! vertex-at-a-time join over the core plan: Prealloc-Combine or the two-step output scheme,
//! warp-level set operations with a write cache, 4-layer-style load balancing without dynamic
//! parallelism, count-only last level, and chunked processing of a table whose next level
//! would not fit in device memory. Answers equal the CPU engine's (same plan, same checks).

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use subgraph_core::filter::{Bitset, Filter};
use subgraph_core::pipeline::{MatchOptions, Report};
use subgraph_core::plan::{Device, Plan, PlanOptions, Tail};
use subgraph_core::planner;
use subgraph_core::sink::{Control, Output, Stopped, OUTPUT_BATCH};
use subgraph_core::tree::TreeQuery;
use subgraph_core::{Dir, Graph, Query, Semantics};

use crate::cuda::{Arg, DeviceBuffer, DeviceInfo, Gpu, Kernel};
use crate::dfs::{self, largest_groups, DfsKernels, DfsPlan, LevelAddresses};
use crate::error::{to_u32, GpuError, Result};
use crate::filter::{filter_on_device, DeviceCandidateSet, FilterKernels};
use crate::ggq::{self, GpuTreeCount, TreeGraph};
use crate::join::{
    dir_index, level_descriptor, next_chunk_end, paced_work, Layers, COUNT_ONLY, FIRST_CHUNK_WORK,
    LIMIT_FIRST_CHUNK_ELEMS, LIMIT_FIRST_CHUNK_ROWS, MAX_CHUNK_ROWS, MAX_COLUMNS, ROW_BLOCK, ROW_OVERHEAD_BYTES,
    SOURCE, TASK_BLOCK, W1, WRITE_CACHE,
};
use crate::pcsr::{ColumnOrder, LabelledCsr, Pcsr};
use crate::refine::{links_of, refine, RefineKernels};
use crate::signature::{DeviceSignatureTable, Signature, SignatureTable};

/// Where the join finds N(v, l).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structure {
    /// PCSR per (edge label, direction), hashed lookup (GSI §IV-A).
    Pcsr,
    /// One labelled CSR per direction, N(v, l) by scanning N(v) (GSI Table II baseline).
    Csr,
}

/// How a join step sizes its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputScheme {
    /// One pass into buffers preallocated from the first link's slice sizes (GSI §V).
    PreallocCombine,
    /// A counting pass, then the writing pass (GpSM / GunrockSM's "join twice").
    TwoStep,
}

/// Where the candidate sets come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CandidateFilter {
    /// [`CandidateFilter::Refined`] on data graphs of at least [`AUTO_DEVICE_FILTER_VERTICES`]
    /// vertices, else [`CandidateFilter::Host`]: the device filter's launches cost milliseconds
    /// per query whatever the graph, the host filter's work grows with it (measured in
    /// bench/results/2026-11-21-h200-gpu-filters.md: host twice as fast on the Sun & Luo sets of
    /// 3,112 to 76,853 vertices, a tie within run-to-run noise at 2^20 vertices (G3), refined 4
    /// times faster at 2^23).
    Auto,
    /// GSI's signature filter on the device (§III-A): candidates and bitsets stay there.
    Signature,
    /// The signature filter, then FSIG's edge-consistency refinement on the device.
    Refined,
    /// The core filter of `MatchOptions::filter` on the host, then uploaded.
    Host,
}

/// Data graphs from this many vertices take the device filter under [`CandidateFilter::Auto`].
pub const AUTO_DEVICE_FILTER_VERTICES: usize = 1 << 20;

impl CandidateFilter {
    /// The filter that runs on `data`: [`CandidateFilter::Auto`] decided, the others as they are.
    pub fn resolve(self, data: &Graph) -> CandidateFilter {
        match self {
            CandidateFilter::Auto if data.num_vertices() >= AUTO_DEVICE_FILTER_VERTICES => CandidateFilter::Refined,
            CandidateFilter::Auto => CandidateFilter::Host,
            other => other,
        }
    }

    /// The name of the filter a query ran with: `signature` or `refined` for the device
    /// filters, else the host filter's name (`host`).
    pub fn name_with(self, host: Filter) -> &'static str {
        match self {
            CandidateFilter::Signature => "signature",
            CandidateFilter::Refined => "refined",
            CandidateFilter::Host | CandidateFilter::Auto => host.name(),
        }
    }
}

/// Load balancing of heavy rows (GSI §VI-A): which rows leave the one-warp-per-row layer for
/// a whole block or pieces on a separate grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadBalance {
    /// Every row on one warp.
    Off,
    /// GSI's fixed thresholds (W2, W1 of Table VIII) in every chunk.
    Gsi,
    /// GSI's thresholds raised per chunk by the cost model of [`Layers::for_chunk`]: a row
    /// leaves the warp layer only when one warp on it would outlast the chunk's share per
    /// resident warp.
    Model,
}

/// When counting queries count their last positions with the depth-first kernel (`dfs`): the
/// breadth-first join makes the rows of the first counted position (the plan's tail, or the
/// last position), and persistent warps count each row's matches there; where the planner
/// expects that table to pass `GpuOptions::dfs_frontier_rows` rows, the kernel takes over at
/// the deepest level below it and enumerates the levels in between depth first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepthFirst {
    /// For counting queries whose plan has a counted tail (which it prefers on the GPU).
    Auto,
    /// For every counting query of at least two vertices.
    On,
    /// Never: the breadth-first join to the last level, no counted tails.
    Off,
}

/// Most rows the breadth-first join makes (in chunks) for the depth-first kernel by default
/// (`GpuOptions::dfs_frontier_rows`, `--gpu-dfs-frontier`): beyond them
/// it hands over a shallower level (measured on G3: one warp enumerating a hub row's subtree
/// alone is slower than the breadth-first join by up to 100 times, so the handover is as deep
/// as memory traffic allows).
pub const DFS_FRONTIER_ROWS: u64 = 1 << 28;

/// GPU-only options: the ablation switches of GSI §VIII and a memory budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuOptions {
    pub filter: CandidateFilter,
    pub structure: Structure,
    pub output: OutputScheme,
    pub write_cache: bool,
    pub load_balance: LoadBalance,
    pub depth_first: DepthFirst,
    /// Most rows (as the plan's estimate predicts them) of the table the breadth-first join
    /// hands the depth-first kernel ([`DFS_FRONTIER_ROWS`] by default).
    pub dfs_frontier_rows: u64,
    /// Most device bytes one join chunk may use (the free memory bounds it anyway).
    pub memory_budget: Option<u64>,
    /// Most device bytes the engine may hold at once, data graph included (`--gpu-memory`):
    /// every allocation is checked against it and the join's chunks are sized within it; None:
    /// the device's free memory.
    pub device_memory: Option<u64>,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            filter: CandidateFilter::Auto,
            structure: Structure::Pcsr,
            output: OutputScheme::PreallocCombine,
            write_cache: true,
            load_balance: LoadBalance::Model,
            depth_first: DepthFirst::Auto,
            dfs_frontier_rows: DFS_FRONTIER_ROWS,
            memory_budget: None,
            device_memory: None,
        }
    }
}

/// The result of one query on the GPU: the core report (as the CPU engine fills it, with
/// `space_*` describing the per-query device data, `enumerate_ms` the join, `nodes` the
/// intermediate rows and `tasks` the join chunks) and GPU phase times.
#[derive(Debug, Clone, Copy)]
pub struct GpuReport {
    pub report: Report,
    /// Host-to-device copies of this query (structures built lazily, candidates, bitsets).
    pub upload_ms: f64,
    /// Candidate filtering: the signature filter (and the refinement) on the device, the
    /// candidates staying there, or the core filter on the host.
    pub filter_ms: f64,
    pub join_ms: f64,
    /// Most device bytes held by the engine during the query, data graph included.
    pub peak_device_bytes: u64,
    /// Output-buffer (GBA) elements allocated over the query's materialised levels: the first
    /// links' slice sizes under Prealloc-Combine, the exact survivors under two-step.
    pub buffer_elements: u64,
    /// Rows the materialised levels produced (the survivors written into those buffers).
    pub joined_rows: u64,
    /// Heavy rows run by a whole block, and pieces of heavier rows run by the separate grid
    /// (load balancing's second and third layers), over all passes.
    pub block_tasks: u64,
    pub grid_tasks: u64,
    /// Frontier rows the depth-first kernel extended and counted, its launches, the frontier
    /// table's columns (0 without the kernel) and the kernel's time (within `join_ms`).
    pub dfs_rows: u64,
    pub dfs_launches: u64,
    pub dfs_columns: u64,
    pub dfs_ms: f64,
}

/// One adjacency structure on the device, in the layout `join.cu` reads.
struct DeviceStructure {
    groups: DeviceBuffer<u32>,
    meta: DeviceBuffer<u64>,
    columns: DeviceBuffer<u32>,
    elabels: DeviceBuffer<u32>,
}

/// The data graph on the device: vertex labels, the join structures and the signature table
/// (uploaded when first needed) and, for induced matching, the id-sorted adjacency that
/// non-edges are checked in.
pub struct DeviceGraph {
    labels: DeviceBuffer<u32>,
    signatures: Option<DeviceSignatureTable>,
    pcsr: Option<DeviceStructure>,
    csr: Option<DeviceStructure>,
    adjacency: Option<(DeviceBuffer<u64>, DeviceBuffer<u32>)>,
}

fn directions(data: &Graph) -> &'static [Dir] {
    if data.is_directed() {
        &[Dir::Out, Dir::In]
    } else {
        &[Dir::Out]
    }
}

/// The nine data-graph arguments every kernel of `slices.cu` (the join's and the refinement's)
/// starts with.
struct GraphArgs<'a> {
    st: &'a DeviceStructure,
    labels: &'a DeviceBuffer<u32>,
    adj_off: &'a DeviceBuffer<u64>,
    adj_col: &'a DeviceBuffer<u32>,
    mode: u32,
    nverts: u32,
}

impl<'a> GraphArgs<'a> {
    fn args(&self) -> Vec<Arg<'a>> {
        vec![
            Arg::In32(&self.st.groups),
            Arg::In64(&self.st.meta),
            Arg::In32(&self.st.columns),
            Arg::In32(&self.st.elabels),
            Arg::In32(self.labels),
            Arg::In64(self.adj_off),
            Arg::In32(self.adj_col),
            Arg::U32(self.mode),
            Arg::U32(self.nverts),
        ]
    }
}

impl DeviceGraph {
    /// The kernel arguments of `which` (uploaded already) over a graph of `nverts` vertices;
    /// the placeholders stand in for the id-sorted adjacency when it is not uploaded.
    fn args<'b>(
        &'b self,
        which: Structure,
        nverts: u32,
        dummy64: &'b DeviceBuffer<u64>,
        dummy32: &'b DeviceBuffer<u32>,
    ) -> Result<GraphArgs<'b>> {
        let st = self.structure(which).ok_or_else(|| GpuError::Mismatch("structure not uploaded".into()))?;
        let adjacency = self.adjacency.as_ref();
        Ok(GraphArgs {
            st,
            labels: &self.labels,
            adj_off: adjacency.map_or(dummy64, |a| &a.0),
            adj_col: adjacency.map_or(dummy32, |a| &a.1),
            mode: structure_mode(which),
            nverts,
        })
    }

    fn structure(&self, which: Structure) -> Option<&DeviceStructure> {
        match which {
            Structure::Pcsr => self.pcsr.as_ref(),
            Structure::Csr => self.csr.as_ref(),
        }
    }

    /// Uploads `which` unless present.
    fn ensure(&mut self, gpu: &Gpu, data: &Graph, which: Structure) -> Result<()> {
        if self.structure(which).is_some() {
            return Ok(());
        }
        let mut groups = Vec::new();
        let mut meta = Vec::new();
        let mut columns = Vec::new();
        let mut elabels = Vec::new();
        match which {
            Structure::Pcsr => {
                for p in Pcsr::build_all(data, ColumnOrder::ByNeighbourLabel)? {
                    meta.extend([groups.len() as u64, p.num_groups() as u64, columns.len() as u64]);
                    groups.extend_from_slice(p.groups());
                    columns.extend_from_slice(p.columns());
                }
            }
            Structure::Csr => {
                for &dir in directions(data) {
                    let csr = LabelledCsr::build(data, dir)?;
                    let base = columns.len() as u64;
                    meta.extend(csr.offsets().iter().map(|&o| base + o as u64));
                    columns.extend_from_slice(csr.columns());
                    elabels.extend_from_slice(csr.edge_labels());
                }
            }
        }
        let s = DeviceStructure {
            groups: gpu.upload("PCSR groups", &groups)?,
            meta: gpu.upload("structure offsets", &meta)?,
            columns: gpu.upload("structure columns", &columns)?,
            elabels: gpu.upload("CSR edge labels", &elabels)?,
        };
        match which {
            Structure::Pcsr => self.pcsr = Some(s),
            Structure::Csr => self.csr = Some(s),
        }
        Ok(())
    }

    /// Builds and uploads the signature table unless present.
    fn ensure_signatures(&mut self, gpu: &Gpu, data: &Graph) -> Result<&DeviceSignatureTable> {
        if self.signatures.is_none() {
            self.signatures = Some(SignatureTable::build(data)?.upload(gpu)?);
        }
        self.signatures.as_ref().ok_or_else(|| GpuError::Mismatch("signature table not uploaded".into()))
    }

    /// Uploads the id-sorted adjacency of every direction unless present.
    fn ensure_adjacency(&mut self, gpu: &Gpu, data: &Graph) -> Result<()> {
        if self.adjacency.is_some() {
            return Ok(());
        }
        let mut offsets = Vec::new();
        let mut columns: Vec<u32> = Vec::new();
        for &dir in directions(data) {
            for v in 0..data.num_vertices() as u32 {
                offsets.push(columns.len() as u64);
                let start = columns.len();
                columns.extend_from_slice(data.neighbors(v, dir));
                columns[start..].sort_unstable();
            }
            offsets.push(columns.len() as u64);
        }
        self.adjacency = Some((gpu.upload("adjacency offsets", &offsets)?, gpu.upload("adjacency columns", &columns)?));
        Ok(())
    }
}

/// The kernels of `join.cu`, loaded once.
struct Kernels {
    sizes: Kernel,
    rows: Kernel,
    tasks: Kernel,
    classify: Kernel,
    expand: Kernel,
    link: Kernel,
    /// Warps of `join_rows` the device runs at once (its multiprocessors times its occupancy):
    /// the load-balance cost model's parallelism.
    resident_warps: u64,
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
    /// The data graph's largest N(v, dir, pair), computed on the first depth-first query.
    largest: Option<Vec<Vec<u32>>>,
    /// The data graph as GGQ's tree passes read it, uploaded on the first tree query.
    tree_graph: Option<TreeGraph>,
    graph_upload_ms: f64,
}

impl GpuEngine {
    /// Opens the GPU, compiles the join kernels and uploads `data` with the structure of
    /// `opts`. Returns [`GpuError::Unavailable`] when no driver, device or NVRTC is usable.
    pub fn new(shared: Arc<Graph>, opts: &GpuOptions) -> Result<Self> {
        let data = &*shared;
        let gpu = Gpu::new()?;
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
            expand: gpu.kernel(&SOURCE, "join_expand")?,
            link: gpu.kernel(&SOURCE, "join_link")?,
        };
        if data.num_vertices() as u64 >= u32::MAX as u64 {
            return Err(GpuError::TooLarge {
                what: "data graph vertices",
                len: data.num_vertices() as u64,
                max: u32::MAX as u64 - 1,
            });
        }
        let t = Instant::now();
        let mut graph = DeviceGraph {
            labels: gpu.upload("vertex labels", data.labels())?,
            signatures: None,
            pcsr: None,
            csr: None,
            adjacency: None,
        };
        graph.ensure(&gpu, data, opts.structure)?;
        let filter = opts.filter.resolve(data);
        if filter != CandidateFilter::Host {
            graph.ensure_signatures(&gpu, data)?;
        }
        gpu.synchronize()?;
        let graph_upload_ms = t.elapsed().as_secs_f64() * 1e3;
        // Compiled here, outside the upload time, for the filter `opts` runs, so the first
        // query does not pay NVRTC; other filters' kernels on their first use.
        crate::scan::prepare(&gpu)?;
        let filter_kernels = if filter == CandidateFilter::Host { None } else { Some(FilterKernels::new(&gpu)?) };
        let refine_kernels = if filter == CandidateFilter::Refined { Some(RefineKernels::new(&gpu)?) } else { None };
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
            largest,
            tree_graph: None,
            graph_upload_ms,
        })
    }

    /// Counts a tree-pattern query's homomorphisms (GGQ, [`crate::ggq`]), uploading the
    /// data graph's tree-pass layout on the first; None when `control` stopped it.
    /// The count's `upload_ms` is the layout's upload where this query paid it, and its `ms`
    /// includes it.
    pub fn count_tree(&mut self, tree: &TreeQuery, control: &Control) -> Result<Option<GpuTreeCount>> {
        self.gpu.reset_peak();
        let t = Instant::now();
        let g = match &mut self.tree_graph {
            Some(g) => g,
            slot => slot.insert(TreeGraph::upload(&self.gpu, &self.data)?),
        };
        let upload_ms = t.elapsed().as_secs_f64() * 1e3;
        let counted = ggq::count(&self.gpu, g, &self.graph.labels, &self.data, tree, control)?;
        Ok(counted.map(|c| GpuTreeCount { upload_ms, ms: c.ms + upload_ms, ..c }))
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
        let start = Instant::now();
        let q = Query::new(query, &self.data, opts.semantics)?;
        if q.num_vertices() > MAX_COLUMNS {
            return Err(GpuError::TooLarge {
                what: "query vertices",
                len: q.num_vertices() as u64,
                max: MAX_COLUMNS as u64,
            });
        }
        // Only the depth-first kernel counts a tail; plans are priced for the GPU.
        let counting = output.is_none();
        let may_dfs = counting && gpu_opts.depth_first != DepthFirst::Off;
        let tail = if may_dfs { opts.tail } else { Tail::Off };
        let plan_opts = PlanOptions { tail, device: Device::Gpu, ..opts.plan(counting) };
        self.gpu.reset_peak();
        let t = Instant::now();
        self.graph.ensure(&self.gpu, &self.data, gpu_opts.structure)?;
        let ensure_ms = t.elapsed().as_secs_f64() * 1e3;
        let dummy64 = self.gpu.alloc_zeros::<u64>("placeholder", 1)?;
        let dummy32 = self.gpu.alloc_zeros::<u32>("placeholder", 1)?;
        let filter = gpu_opts.filter.resolve(&self.data);
        let (plan, device_cands) = match filter {
            CandidateFilter::Signature | CandidateFilter::Refined => {
                let t = Instant::now();
                // A query edge whose (edge label, neighbour label) the data lacks has no match.
                let pairs_exist = (0..q.num_vertices() as u32)
                    .all(|u| q.edges(u).iter().all(|e| self.data.pair_id(e.label, q.label(e.to)).is_some()));
                let mut set = if pairs_exist { Some(self.signature_filter(&q, opts.semantics)?) } else { None };
                if let Some(set) = set.as_mut().filter(|s| !s.any_empty()) {
                    if filter == CandidateFilter::Refined {
                        self.refine(&q, gpu_opts.structure, set, &dummy64, &dummy32)?;
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
        let n = plan.len();
        // A query the deadline or Ctrl-C stopped while it was planned uploads and joins nothing.
        let joins = !plan.empty && !control.should_stop();
        let t = Instant::now();
        if opts.semantics == Semantics::Induced {
            self.graph.ensure_adjacency(&self.gpu, &self.data)?;
        }
        let levels = match joins {
            true => self.upload_levels(&plan, &q, opts.semantics, gpu_opts.structure, device_cands.as_ref())?,
            false => Vec::new(),
        };
        drop(device_cands);
        let use_dfs = may_dfs
            && joins
            && n >= 2
            && match gpu_opts.depth_first {
                DepthFirst::On => true,
                DepthFirst::Auto => plan.tail > 0,
                DepthFirst::Off => false,
            };
        let dfs = if use_dfs { Some(self.dfs_plan(&plan, &q, opts.semantics, gpu_opts, &levels)?) } else { None };
        let upload_ms = ensure_ms + t.elapsed().as_secs_f64() * 1e3;
        let space_bytes = self.gpu.live_bytes();
        let t = Instant::now();
        let nverts = self.data.num_vertices() as u32;
        let mut join = Join {
            gpu: &self.gpu,
            k: &self.kernels,
            graph: self.graph.args(gpu_opts.structure, nverts, &dummy64, &dummy32)?,
            plan: &plan,
            levels: &levels,
            opts: gpu_opts,
            limit: opts.limit,
            control,
            output,
            dummy64: &dummy64,
            count: 0,
            done: false,
            nodes: 0,
            chunks: 0,
            buffer_elements: 0,
            joined_rows: 0,
            block_tasks: Cell::new(0),
            grid_tasks: Cell::new(0),
            dfs: dfs.as_ref().map(|p| (self.dfs_kernels.as_ref().expect("loaded with the DFS plan"), p)),
            dfs_rows: 0,
            dfs_launches: 0,
            dfs_columns: 0,
            dfs_ms: 0.0,
            embedding: vec![0; n],
            buf: Vec::new(),
        };
        if joins {
            if let Some((out, name)) = output {
                out.begin_query(name, n);
            }
            if opts.limit == Some(0) {
                control.stop(Stopped::Limit);
            } else {
                let rows = plan.sizes[0];
                let mut first = self.gpu.alloc_zeros::<u32>("first column", rows)?;
                self.gpu.copy(&levels[0].cands, 0, &mut first, 0, rows)?;
                let rows = rows as u64;
                join.nodes = rows;
                join.extend(1, first, rows)?;
            }
        }
        if let Some((out, _)) = output {
            out.write_batch(&join.buf);
        }
        self.gpu.synchronize()?;
        let join_ms = t.elapsed().as_secs_f64() * 1e3;
        let stopped = control.stopped();
        let report = Report {
            embeddings: join.count,
            complete: stopped.is_none(),
            stopped,
            filter: filter.name_with(opts.filter.applied()),
            filter_ms: plan.filter_ms,
            order_ms: plan.order_ms,
            space_ms: upload_ms,
            enumerate_ms: join_ms,
            elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
            candidates: plan.candidate_count(),
            candidate_edges: 0,
            space_bytes,
            nodes: join.nodes,
            tasks: join.chunks,
            order: "",
            tail: 0,
            restrictions: 0,
            multiplier: 1,
            estimated_embeddings: None,
            estimated_cost: None,
        }
        .with_plan(&plan);
        Ok(GpuReport {
            report,
            upload_ms,
            filter_ms: plan.filter_ms,
            join_ms,
            peak_device_bytes: self.gpu.peak_bytes(),
            buffer_elements: join.buffer_elements,
            joined_rows: join.joined_rows,
            block_tasks: join.block_tasks.get(),
            grid_tasks: join.grid_tasks.get(),
            dfs_rows: join.dfs_rows,
            dfs_launches: join.dfs_launches,
            dfs_columns: join.dfs_columns,
            dfs_ms: join.dfs_ms,
        })
    }

    /// C(u) of every query vertex by the signature filter on the device, in one pass (for
    /// homomorphisms the query's counters are capped at one: several query neighbours may
    /// share a data vertex), within the data vertices the query restricts u to.
    fn signature_filter(&mut self, q: &Query, semantics: Semantics) -> Result<DeviceCandidateSet> {
        let kernels = loaded(&mut self.filter_kernels, || FilterKernels::new(&self.gpu))?;
        let table = self.graph.ensure_signatures(&self.gpu, &self.data)?;
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
        filter_on_device(&self.gpu, kernels, table, &sigs, &allowed)
    }

    /// FSIG's refinement of the signature filter's candidates (crate::refine) over the join's
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
        let graph = self.graph.args(structure, self.data.num_vertices() as u32, dummy64, dummy32)?;
        let index = structure_index(&self.data, structure);
        let links: Vec<Vec<u32>> = (0..q.num_vertices() as u32).map(|u| links_of(q, u, &index)).collect();
        refine(&self.gpu, kernels, &|| graph.args(), &links, cands)
    }

    /// The depth-first kernel's records for `plan` over its uploaded levels (loading the
    /// kernels and the data graph's largest groups on first use).
    fn dfs_plan(
        &mut self,
        plan: &Plan,
        q: &Query,
        semantics: Semantics,
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
        let index = structure_index(data, gpu_opts.structure);
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
        let index = structure_index(&self.data, structure);
        (0..plan.len())
            .map(|pos| {
                let u = plan.vertices[pos];
                let desc = self.gpu.upload(
                    "level descriptor",
                    &level_descriptor(plan, pos, q.label(u), semantics.injective(), &index),
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

/// The `mode` argument of the kernels of `slices.cu`: 0 PCSR, 1 CSR.
fn structure_mode(structure: Structure) -> u32 {
    match structure {
        Structure::Pcsr => 0,
        Structure::Csr => 1,
    }
}

/// The device index of N(·, dir, edge label) in `structure`: one PCSR per (direction, edge
/// label), one CSR per direction. Edge labels absent from the data map to 0; a plan whose query
/// has one is empty and never reaches the device.
fn structure_index(data: &Graph, structure: Structure) -> impl Fn(Dir, u32) -> u32 + '_ {
    let labels = data.edge_label_values();
    move |dir, label| match structure {
        Structure::Pcsr => dir_index(dir) * labels.len() as u32 + labels.binary_search(&label).unwrap_or(0) as u32,
        Structure::Csr => dir_index(dir),
    }
}

/// What the kernels read about one plan position.
struct LevelData {
    desc: DeviceBuffer<u32>,
    bitset: DeviceBuffer<u32>,
    cands: DeviceBuffer<u32>,
}

/// Grid size for one warp per row.
fn warp_grid(rows: u64) -> Result<u32> {
    let blocks = (rows * 32).div_ceil(ROW_BLOCK as u64);
    u32::try_from(blocks).map_err(|_| GpuError::TooLarge {
        what: "rows of one launch",
        len: rows,
        max: (u32::MAX as u64 * ROW_BLOCK as u64) / 32,
    })
}

/// One query's join: the table of each level, extended chunk by chunk, depth first.
struct Join<'a> {
    gpu: &'a Gpu,
    k: &'a Kernels,
    graph: GraphArgs<'a>,
    plan: &'a Plan,
    levels: &'a [LevelData],
    opts: &'a GpuOptions,
    limit: Option<u64>,
    control: &'a Control,
    output: Option<(&'a Output, &'a str)>,
    dummy64: &'a DeviceBuffer<u64>,
    count: u128,
    done: bool,
    nodes: u64,
    chunks: u64,
    buffer_elements: u64,
    joined_rows: u64,
    block_tasks: Cell<u64>,
    grid_tasks: Cell<u64>,
    /// Depth-first counting from a frontier level on, when the query takes it.
    dfs: Option<(&'a DfsKernels, &'a DfsPlan)>,
    dfs_rows: u64,
    dfs_launches: u64,
    dfs_columns: u64,
    dfs_ms: f64,
    embedding: Vec<u32>,
    buf: Vec<u8>,
}

/// Most first-link offsets copied to the host at once (8 bytes each): a level's whole scan, in
/// the synchronisation that reads its total, when the level has at most this many rows; else
/// the window of a chunk's candidate rows when the chunk's row bound is this small (under a
/// limit). Chunk planning and the light-row check then read no more from the device.
const HOST_OFFSET_ROWS: usize = 1 << 16;

/// The exclusive scan of a level's first-link sizes, read at chunk boundaries: from the host
/// window when it covers the row, else one element at a time from the device, each kept (a
/// chunk starts where the one before ended).
struct RowOffsets<'b> {
    gpu: &'b Gpu,
    device: &'b DeviceBuffer<u64>,
    /// offsets[first..first + window.len()] on the host.
    first: u64,
    window: Vec<u64>,
    read: HashMap<u64, u64>,
}

impl RowOffsets<'_> {
    fn covers(&self, r: u64) -> bool {
        r >= self.first && r - self.first < self.window.len() as u64
    }

    /// Copies offsets[start..=end] to the host unless covered or more than [`HOST_OFFSET_ROWS`].
    fn load(&mut self, start: u64, end: u64) -> Result<()> {
        if (self.covers(start) && self.covers(end)) || end - start >= HOST_OFFSET_ROWS as u64 {
            return Ok(());
        }
        self.window = self.gpu.download_range(self.device, start as usize..end as usize + 1)?;
        self.first = start;
        Ok(())
    }

    /// The offset of row `r` (r = rows: the total).
    fn at(&mut self, r: u64) -> Result<u64> {
        if self.covers(r) {
            return Ok(self.window[(r - self.first) as usize]);
        }
        if let Some(&value) = self.read.get(&r) {
            return Ok(value);
        }
        let value = self.gpu.download_range(self.device, r as usize..r as usize + 1)?[0];
        self.read.insert(r, value);
        Ok(value)
    }

    /// Whether some row of [start, end) may have more than `heavy` first-link elements: exact
    /// when the window covers the rows, else assumed.
    fn may_have_heavy(&self, start: u64, end: u64, heavy: u32) -> bool {
        if !(self.covers(start) && self.covers(end)) {
            return true;
        }
        let (lo, hi) = ((start - self.first) as usize, (end - self.first) as usize);
        self.window[lo..=hi].windows(2).any(|w| w[1] - w[0] > heavy as u64)
    }
}

/// Where one pass writes: the buffer offsets (indexed by row - `f_row0`), the element
/// `gba_base` maps to position 0 of `out`, the per-chunk-row counters and the buffer.
struct Sink<'b> {
    offsets: &'b DeviceBuffer<u64>,
    f_row0: u64,
    gba_base: u64,
    counts: &'b mut DeviceBuffer<u32>,
    out: &'b mut DeviceBuffer<u32>,
}

impl<'a> Join<'a> {
    /// The graph and level arguments every join kernel starts with.
    fn head<'b>(&'b self, lv: &'b LevelData, pos: usize) -> Vec<Arg<'b>> {
        let mut args = self.graph.args();
        args.extend([
            Arg::In32(&lv.desc),
            Arg::In32(&lv.bitset),
            Arg::In32(&lv.cands),
            Arg::U32(self.plan.sizes[pos] as u32),
        ]);
        args
    }

    /// Whether to stop: the limit was reached, or the control says so.
    fn stop_now(&mut self) -> bool {
        if !self.done && self.control.should_stop() {
            self.done = true;
        }
        self.done
    }

    /// Counts k embeddings, honouring the limit exactly as the CPU engine does; returns how
    /// many were taken.
    fn add(&mut self, k: u128) -> u128 {
        let taken = match self.limit {
            None => k,
            Some(limit) => {
                let left = limit as u128 - self.count;
                if k >= left {
                    self.control.stop(Stopped::Limit);
                    self.done = true;
                    left
                } else {
                    k
                }
            }
        };
        self.count += taken;
        self.control.found.fetch_add(taken.min(u64::MAX as u128) as u64, std::sync::atomic::Ordering::Relaxed);
        taken
    }

    /// Full matches: counted as the plan's multiplier each, and written when there is an
    /// output, expanded by the automorphisms behind the plan's restrictions.
    fn emit(&mut self, table: &DeviceBuffer<u32>, rows: u64) -> Result<()> {
        let plan = self.plan;
        let Some((out, name)) = self.output else {
            self.add(rows as u128 * plan.multiplier);
            return Ok(());
        };
        let mut position = vec![0; plan.len()];
        plan.vertices.iter().enumerate().for_each(|(p, &u)| position[u as usize] = p);
        let host = self.gpu.download(table)?;
        for row in host.chunks_exact(plan.len()) {
            let more = match &plan.symmetry {
                None => {
                    for (p, &u) in plan.vertices.iter().enumerate() {
                        self.embedding[u as usize] = row[p];
                    }
                    self.write(out, name)
                }
                Some(aut) => aut.for_each(|sigma| {
                    for (u, &s) in sigma.iter().enumerate() {
                        self.embedding[u] = row[position[s as usize]];
                    }
                    self.write(out, name)
                }),
            };
            if !more {
                break;
            }
        }
        Ok(())
    }

    /// Counts and writes the embedding in `self.embedding`; false once the limit is reached,
    /// or once a full batch is written and the control says stop (a chunk's table may hold
    /// millions of matches).
    fn write(&mut self, out: &Output, name: &str) -> bool {
        if self.add(1) == 0 {
            return false;
        }
        out.format(name, &self.embedding, &mut self.buf);
        if self.buf.len() >= OUTPUT_BATCH {
            out.write_batch(&self.buf);
            self.buf.clear();
            return !self.stop_now();
        }
        !self.done
    }

    /// Extends `table` (`cols` columns, `rows` rows) by plan position `cols`, chunk by chunk,
    /// and recurses into each chunk's result.
    fn extend(&mut self, cols: usize, table: DeviceBuffer<u32>, rows: u64) -> Result<()> {
        let n = self.plan.len();
        if cols == n {
            return self.emit(&table, rows);
        }
        if let Some((k, d)) = self.dfs {
            if cols >= d.frontier() {
                return self.depth_first(k, d, cols, &table, rows);
            }
        }
        if rows == 0 || self.stop_now() {
            return Ok(());
        }
        let levels = self.levels;
        let lv = &levels[cols];
        let count_only = cols + 1 == n && self.output.is_none();
        let mut sizes = self.gpu.alloc_zeros::<u32>("row sizes", rows as usize)?;
        let mut firsts = self.gpu.alloc_zeros::<u32>("row first links", rows as usize)?;
        let mut args = self.head(lv, cols);
        args.extend([Arg::In32(&table), Arg::U64(rows), Arg::Out32(&mut sizes), Arg::Out32(&mut firsts)]);
        self.gpu.launch(&self.k.sizes, warp_grid(rows)?, ROW_BLOCK, &mut args)?;
        drop(args);
        let (offsets, _, host) = crate::scan::exclusive_scan_to_host(self.gpu, &sizes, HOST_OFFSET_ROWS)?;
        let mut probe = RowOffsets {
            gpu: self.gpu,
            device: &offsets,
            first: 0,
            window: host.unwrap_or_default(),
            read: HashMap::new(),
        };
        // Under a limit, chunks start small and double, in rows and (a materialised level) in
        // first-link elements, which bound the rows the chunk makes: the first matches come
        // after a few small chunks, depth first (the DFS side of FSIG's BFS-DFS switch), while
        // a query whose matches are rare still runs in few chunks.
        let mut limit_rows = if self.limit.is_some() { LIMIT_FIRST_CHUNK_ROWS } else { u64::MAX };
        let mut limit_elems = if self.limit.is_some() && !count_only { LIMIT_FIRST_CHUNK_ELEMS } else { u64::MAX };
        let mut work = FIRST_CHUNK_WORK;
        let mut start = 0;
        while start < rows {
            if self.stop_now() {
                return Ok(());
            }
            let budget = self.budget()?;
            let max_rows = (budget / ROW_OVERHEAD_BYTES).clamp(1, MAX_CHUNK_ROWS).min(limit_rows);
            limit_rows = limit_rows.saturating_mul(2);
            let buffer_elems = if count_only { u64::MAX } else { budget / (4 * (cols as u64 + 2)) };
            let max_elems = buffer_elems.min(work).min(limit_elems);
            limit_elems = limit_elems.saturating_mul(2);
            probe.load(start, rows.min(start.saturating_add(max_rows)))?;
            let end = next_chunk_end(start, rows, max_rows, max_elems, |r| probe.at(r))?;
            self.chunks += 1;
            let chunk = end - start;
            let layers = match self.opts.load_balance {
                LoadBalance::Off => None,
                LoadBalance::Gsi => Some(Layers::GSI),
                LoadBalance::Model => Some(Layers::for_chunk(probe.at(end)? - probe.at(start)?, self.k.resident_warps)),
            };
            let layers = layers.filter(|l| probe.may_have_heavy(start, end, l.heavy));
            let passes = Instant::now();
            if count_only {
                let mut counts = self.gpu.alloc_zeros::<u32>("row counts", chunk as usize)?;
                let mut none = self.gpu.alloc_zeros::<u32>("placeholder", 1)?;
                let sink = Sink { offsets: self.dummy64, f_row0: 0, gba_base: 0, counts: &mut counts, out: &mut none };
                self.pass(cols, &table, start, end, &sizes, &firsts, sink, COUNT_ONLY, layers)?;
                let (_, total) = crate::scan::exclusive_scan(self.gpu, &counts)?;
                work = paced_work(work, passes.elapsed());
                self.add(total as u128 * self.plan.multiplier);
            } else {
                let flags = if self.opts.write_cache { WRITE_CACHE } else { 0 };
                let mut counts = self.gpu.alloc_zeros::<u32>("row counts", chunk as usize)?;
                let (exact, f_row0, gba_base, gba_len) = match self.opts.output {
                    OutputScheme::PreallocCombine => {
                        let (first, last) = (probe.at(start)?, probe.at(end)?);
                        (None, 0, first, last - first)
                    }
                    OutputScheme::TwoStep => {
                        let mut none = self.gpu.alloc_zeros::<u32>("placeholder", 1)?;
                        let sink =
                            Sink { offsets: self.dummy64, f_row0: 0, gba_base: 0, counts: &mut counts, out: &mut none };
                        self.pass(cols, &table, start, end, &sizes, &firsts, sink, COUNT_ONLY, layers)?;
                        let (exact, total) = crate::scan::exclusive_scan(self.gpu, &counts)?;
                        counts = self.gpu.alloc_zeros::<u32>("row counts", chunk as usize)?;
                        (Some(exact), start, 0, total)
                    }
                };
                let buffer_offsets = exact.as_ref().unwrap_or(&offsets);
                self.buffer_elements += gba_len;
                let mut gba = self.gpu.alloc_zeros::<u32>("GBA", gba_len as usize)?;
                let sink = Sink { offsets: buffer_offsets, f_row0, gba_base, counts: &mut counts, out: &mut gba };
                self.pass(cols, &table, start, end, &sizes, &firsts, sink, flags, layers)?;
                let (row_offsets, new_rows) = crate::scan::exclusive_scan(self.gpu, &counts)?;
                work = paced_work(work, passes.elapsed());
                let next_len = new_rows.checked_mul(cols as u64 + 1).ok_or(GpuError::TooLarge {
                    what: "next table",
                    len: new_rows,
                    max: u64::MAX / (cols as u64 + 1),
                })?;
                let mut next = self.gpu.alloc_zeros::<u32>("next table", next_len as usize)?;
                self.gpu.launch(
                    &self.k.link,
                    warp_grid(chunk)?,
                    ROW_BLOCK,
                    &mut [
                        Arg::In32(&table),
                        Arg::U64(start),
                        Arg::U64(chunk),
                        Arg::U32(cols as u32),
                        Arg::In64(buffer_offsets),
                        Arg::U64(f_row0),
                        Arg::U64(gba_base),
                        Arg::In32(&gba),
                        Arg::In32(&counts),
                        Arg::In64(&row_offsets),
                        Arg::Out32(&mut next),
                    ],
                )?;
                drop((gba, counts, row_offsets, exact));
                self.nodes += new_rows;
                self.joined_rows += new_rows;
                self.extend(cols + 1, next, new_rows)?;
            }
            if self.done {
                return Ok(());
            }
            start = end;
        }
        Ok(())
    }

    /// Counts every row of `table` (`cols` columns) depth first, honouring the limit and the
    /// control.
    fn depth_first(
        &mut self,
        k: &DfsKernels,
        d: &DfsPlan,
        cols: usize,
        table: &DeviceBuffer<u32>,
        rows: u64,
    ) -> Result<()> {
        if rows == 0 || self.stop_now() {
            return Ok(());
        }
        let m = self.plan.multiplier;
        // The kernel counts plan matches: a limit of embeddings needs ceil(left / m) of them.
        let left = self.limit.map_or(0, |l| ((l as u128 - self.count).div_ceil(m)).clamp(1, u64::MAX as u128) as u64);
        let control = self.control;
        let budget = self.budget()?;
        let t = Instant::now();
        let out =
            dfs::count(self.gpu, k, d, self.graph.args(), table, rows, cols, left, budget, || control.should_stop())?;
        self.dfs_ms += t.elapsed().as_secs_f64() * 1e3;
        self.dfs_rows += rows;
        self.dfs_launches += 1;
        self.dfs_columns = cols as u64;
        self.add(out.matches * m);
        if out.stopped {
            self.stop_now();
        }
        Ok(())
    }

    /// Device bytes one chunk may use: half of what may still be allocated (the free memory,
    /// within `--gpu-memory`), within the configured chunk budget.
    fn budget(&self) -> Result<u64> {
        Ok((self.gpu.headroom()? / 2).min(self.opts.memory_budget.unwrap_or(u64::MAX)))
    }

    /// One join pass over chunk rows [start, end): the warp-per-row kernel, then (with
    /// `layers`) the heavy rows gathered on the device into block and grid tasks.
    #[allow(clippy::too_many_arguments)]
    fn pass(
        &self,
        pos: usize,
        table: &DeviceBuffer<u32>,
        start: u64,
        end: u64,
        sizes: &DeviceBuffer<u32>,
        firsts: &DeviceBuffer<u32>,
        sink: Sink<'_>,
        flags: u32,
        layers: Option<Layers>,
    ) -> Result<()> {
        let lv = &self.levels[pos];
        let chunk = end - start;
        let heavy = layers.map_or(u32::MAX, |l| l.heavy);
        let mut args = self.head(lv, pos);
        args.extend([
            Arg::In32(table),
            Arg::U64(start),
            Arg::U64(chunk),
            Arg::In32(sizes),
            Arg::In32(firsts),
            Arg::In64(sink.offsets),
            Arg::U64(sink.f_row0),
            Arg::U64(sink.gba_base),
            Arg::Out32(&mut *sink.counts),
            Arg::Out32(&mut *sink.out),
            Arg::U32(flags),
            Arg::U32(heavy),
        ]);
        self.gpu.launch(&self.k.rows, warp_grid(chunk)?, ROW_BLOCK, &mut args)?;
        drop(args);
        let Some(layers) = layers else {
            return Ok(());
        };
        let mut nblock = self.gpu.alloc_zeros::<u32>("block tasks", chunk as usize)?;
        let mut ngrid = self.gpu.alloc_zeros::<u32>("grid tasks", chunk as usize)?;
        self.gpu.launch(
            &self.k.classify,
            to_u32("rows of one launch", chunk.div_ceil(1024))?,
            1024,
            &mut [
                Arg::In32(sizes),
                Arg::U64(start),
                Arg::U64(chunk),
                Arg::U32(layers.heavy),
                Arg::U32(layers.grid),
                Arg::U32(W1),
                Arg::Out32(&mut nblock),
                Arg::Out32(&mut ngrid),
            ],
        )?;
        for (ntask, piece, layer) in [(&nblock, u32::MAX, &self.block_tasks), (&ngrid, W1, &self.grid_tasks)] {
            let (offs, total) = crate::scan::exclusive_scan(self.gpu, ntask)?;
            if total == 0 {
                continue;
            }
            layer.set(layer.get() + total);
            let ntasks = to_u32("load-balance tasks", total)?;
            let mut task_row = self.gpu.alloc_zeros::<u32>("task rows", total as usize)?;
            let mut task_lo = self.gpu.alloc_zeros::<u32>("task starts", total as usize)?;
            let mut task_len = self.gpu.alloc_zeros::<u32>("task lengths", total as usize)?;
            self.gpu.launch(
                &self.k.expand,
                to_u32("rows of one launch", chunk.div_ceil(1024))?,
                1024,
                &mut [
                    Arg::In32(ntask),
                    Arg::In64(&offs),
                    Arg::In32(sizes),
                    Arg::U64(start),
                    Arg::U64(chunk),
                    Arg::U32(piece),
                    Arg::Out32(&mut task_row),
                    Arg::Out32(&mut task_lo),
                    Arg::Out32(&mut task_len),
                ],
            )?;
            let mut args = self.head(lv, pos);
            args.extend([
                Arg::In32(table),
                Arg::U64(start),
                Arg::In32(firsts),
                Arg::In64(sink.offsets),
                Arg::U64(sink.f_row0),
                Arg::U64(sink.gba_base),
                Arg::Out32(&mut *sink.counts),
                Arg::Out32(&mut *sink.out),
                Arg::U32(flags),
                Arg::In32(&task_row),
                Arg::In32(&task_lo),
                Arg::In32(&task_len),
                Arg::U32(ntasks),
            ]);
            self.gpu.launch(&self.k.tasks, ntasks, TASK_BLOCK, &mut args)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::GraphBuilder;

    #[test]
    fn auto_takes_the_device_filter_from_the_threshold() {
        let graph = |n: usize| GraphBuilder::from_parts(vec![0; n], Vec::new(), false).build().0;
        let (small, large) = (graph(AUTO_DEVICE_FILTER_VERTICES - 1), graph(AUTO_DEVICE_FILTER_VERTICES));
        assert_eq!(CandidateFilter::Auto.resolve(&small), CandidateFilter::Host);
        assert_eq!(CandidateFilter::Auto.resolve(&large), CandidateFilter::Refined);
        for f in [CandidateFilter::Signature, CandidateFilter::Refined, CandidateFilter::Host] {
            assert_eq!(f.resolve(&small), f);
            assert_eq!(f.resolve(&large), f);
        }
    }
}
