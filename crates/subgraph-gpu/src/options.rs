//! What the GPU engine may be asked to do: the strategy (GSI, FSIG, GpSM, GGQ), the candidate
//! filter, the join structure and output scheme, load balancing, depth-first counting, and the
//! memory, partitioning and multi-device settings: the ablation switches of GSI §VIII and
//! SGSI §6–7 as one options struct.

use subgraph_core::filter::Filter;
use subgraph_core::planner::GPU_COMPARE_COST;
use subgraph_core::Graph;
use subgraph_cuda::{Gpu, GpuUnavailable, HOST_BUFFER_ELEMS};

use crate::error::{GpuError, Result};
use crate::gpsm::options::GpsmOptions;

/// Which seed system's matcher runs a query (`--gpu-strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// GSI's join, and for a tree pattern under homomorphism whose rows must be enumerated,
    /// GGQ's thread IDs where they are estimated cheaper (the `subgraph` crate's `patterns`).
    Auto,
    /// GSI's vertex-at-a-time join over the shared planner's plan (with its depth-first
    /// kernel, symmetry breaking and the spasm's counts).
    Gsi,
    /// GpSM's filter and edge join ([`crate::gpsm`]), the paper's baseline.
    Gpsm,
    /// FSIG's pipeline ([`crate::fsig::compose`]): GSI's join with FSIG's filter, structure A,
    /// CFL order and breadth-first levels with the host spill.
    Fsig,
    /// GGQ's thread-ID enumeration ([`crate::ggq::ids`]) for every tree pattern under
    /// homomorphism; GSI's join for the rest.
    Ggq,
}

impl Strategy {
    /// The strategy whose join runs a query that is not a tree pattern for GGQ: GSI's under
    /// `auto` and `ggq`.
    pub fn joined(self) -> Strategy {
        match self {
            Strategy::Auto | Strategy::Ggq => Strategy::Gsi,
            s => s,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Auto => "auto",
            Strategy::Ggq => "ggq",
            Strategy::Gsi => "gsi",
            Strategy::Gpsm => "gpsm",
            Strategy::Fsig => "fsig",
        }
    }
}

/// Where the join finds N(v, l).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Structure {
    /// PCSR per (edge label, direction), hashed lookup (GSI §IV-A).
    Pcsr,
    /// One labelled CSR per direction, N(v, l) by scanning N(v) (GSI Table II baseline).
    Csr,
    /// FSIG's auxiliary structure A, built per query ([`crate::fsig`]) from PCSR: each plan
    /// link's lists already within the linked position's candidates. The filter's refinement
    /// reads PCSR.
    Aux,
    /// PCSR, and A for queries whose candidates the device filtered or whose predicted join
    /// takes at least [`crate::fsig::AUX_FROM_MS`] (`Planned::structure`).
    Auto,
}

impl Structure {
    /// The structure of the data graph this one stands on: PCSR under [`Structure::Aux`] and
    /// [`Structure::Auto`].
    pub fn base(self) -> Structure {
        match self {
            Structure::Csr => Structure::Csr,
            _ => Structure::Pcsr,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Structure::Pcsr => "pcsr",
            Structure::Csr => "csr",
            Structure::Aux => "aux",
            Structure::Auto => "auto",
        }
    }
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
    /// GSI's thresholds raised per chunk by the cost model of [`crate::gsi::balance::Layers::for_chunk`]: a row
    /// leaves the warp layer only when one warp on it would outlast the chunk's share per
    /// resident warp.
    Model,
    /// SGSI §7's histogram cost model: thresholds per chunk from the histogram of its rows'
    /// first-slice sizes ([`crate::gsi::balance::Layers::from_histogram`]).
    Histogram,
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

/// How a parked table lies in page-locked host memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Row after row, as on the device: parked in one copy once the table is made (FSIG).
    Rows,
    /// Column after column (SGSI §6.2): made and parked one column at a time, so the table is
    /// never whole on the device; a block comes back as its columns' ranges.
    Columns,
}

impl Layout {
    pub const NAMES: &'static [&'static str] = &["rows", "columns"];

    pub fn from_name(name: &str) -> Option<Layout> {
        match name {
            "rows" => Some(Layout::Rows),
            "columns" => Some(Layout::Columns),
            _ => None,
        }
    }
}

/// When the join parks a table in host memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Park {
    /// Where the device is short: a table with another level below its next one, holding at
    /// least half of what its level may use (its own bytes and the device's headroom), with
    /// less than [`LOW_HEADROOM`] left beside it, where the host has twice its bytes available.
    ///
    /// [`LOW_HEADROOM`]: crate::partition::park::LOW_HEADROOM
    Auto,
    /// Every table with another level below its next one, where the host has room (blocks as
    /// under `Auto`): the spill exercised on any graph.
    On,
    /// Never: every level's table stays on the device while the levels below it run.
    Off,
}

impl Park {
    pub const NAMES: &'static [&'static str] = &["auto", "on", "off"];

    pub fn from_name(name: &str) -> Option<Park> {
        match name {
            "auto" => Some(Park::Auto),
            "on" => Some(Park::On),
            "off" => Some(Park::Off),
            _ => None,
        }
    }
}

/// When the engine partitions the data graph (`--gpu-partitions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitions {
    /// Where the in-core layout would take more than [`AUTO_SHARE`] of the device budget
    /// (`--gpu-memory`, else the device's free memory).
    ///
    /// [`AUTO_SHARE`]: crate::partition::AUTO_SHARE
    Auto,
    /// Always (the PCSR structure only).
    On,
    /// Never: a graph that does not fit fails on upload.
    Off,
}

impl Partitions {
    pub const NAMES: &'static [&'static str] = &["auto", "on", "off"];

    pub fn from_name(name: &str) -> Option<Partitions> {
        match name {
            "auto" => Some(Partitions::Auto),
            "on" => Some(Partitions::On),
            "off" => Some(Partitions::Off),
            _ => None,
        }
    }
}

/// How many GPUs `--gpus` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuCount {
    /// This many (at least one).
    Count(usize),
    /// Every device the driver reports.
    All,
}

impl GpuCount {
    /// The device ordinals asked for, of those the driver reports: an error when it reports
    /// none, or fewer than asked for.
    pub fn present(self) -> Result<Vec<usize>> {
        match Gpu::count()? {
            0 => Err(GpuUnavailable::Device("the driver reports no device".into()).into()),
            present => self.ordinals(present),
        }
    }

    /// The device ordinals asked for, with `present` devices on the host: an error when more
    /// are asked for than there are.
    pub fn ordinals(self, present: usize) -> Result<Vec<usize>> {
        let n = match self {
            GpuCount::All => present.max(1),
            GpuCount::Count(n) => n.max(1),
        };
        if n > present.max(1) {
            return Err(GpuError::Mismatch(format!("--gpus {n}: the driver reports {present} device(s)")));
        }
        Ok((0..n).collect())
    }
}

/// Estimated work (priced for the GPU, as the planner prices it) from which a query is joined
/// on every device of the set: five times the planner's threshold for comparing plans. That is
/// 80 ms of one H200's join at the planner's price (`H200_COSTS`), and about 11 ms at the
/// median price measured on 2026-11-27; the join then was about 2× faster than the one this
/// threshold was measured on. Below it, one device runs the query and the others stay idle: a
/// second device's uploads and per-claim launches cost more than it saves (H200 ×2,
/// 2026-11-26: queries of 20–40 ms took 10–20 ms longer on two devices, those of 150 ms and
/// more took 0.52–0.88 of their time).
pub const SHARED_QUERY_COST: f64 = 5.0 * GPU_COMPARE_COST;

/// GPU-only options: the ablation switches of GSI §VIII and a memory budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuOptions {
    pub strategy: Strategy,
    /// GpSM's switches, under [`Strategy::Gpsm`].
    pub gpsm: GpsmOptions,
    pub filter: CandidateFilter,
    pub structure: Structure,
    pub output: OutputScheme,
    pub write_cache: bool,
    pub load_balance: LoadBalance,
    pub depth_first: DepthFirst,
    /// Most rows (as the plan's estimate predicts them) of the table the breadth-first join
    /// hands the depth-first kernel ([`DFS_FRONTIER_ROWS`] by default).
    pub dfs_frontier_rows: u64,
    /// Work stealing in the depth-first kernel: warps without frontier rows take over ranges
    /// of candidates from busy ones ([`crate::dfs`]; on by default).
    pub dfs_steal: bool,
    /// Most device bytes one join chunk may use (the free memory bounds it anyway).
    pub memory_budget: Option<u64>,
    /// When the join parks a table in host memory (FSIG's spill, [`crate::partition::park`]).
    pub park: Park,
    /// How a parked table lies in host memory: row after row, parked once made (FSIG), or
    /// column after column, made and parked one column at a time (SGSI §6.2).
    pub park_layout: Layout,
    /// Most device bytes the engine may hold at once, data graph included (`--gpu-memory`):
    /// every allocation is checked against it and the join's chunks are sized within it; None:
    /// the device's free memory.
    pub device_memory: Option<u64>,
    /// The devices the engine opens (`--gpus`; [`crate::GpuEngine`] itself opens one).
    pub gpus: GpuCount,
    /// Estimated work (as the planner prices it for the GPU) from which a query is joined on
    /// every device of a [`crate::GpuSet`] ([`SHARED_QUERY_COST`] by default; 0: every query).
    pub shared_from: u64,
    /// When the data graph stays in host memory in segments ([`crate::partition`]).
    pub partitions: Partitions,
    /// Bytes of one segment of a partitioned graph (None: [`crate::partition::segment_bytes`] of the
    /// budget).
    pub segment_bytes: Option<u64>,
    /// Most bytes of a partitioned graph's segments kept on the device (None:
    /// [`crate::partition::RESIDENT_SHARE`] of the budget; 0: every segment copied when read).
    pub resident_bytes: Option<u64>,
    /// Whether a partitioned graph's segments and a parked table's blocks are copied one
    /// ahead, on a second stream, while the kernels read the one before (`--gpu-pipeline`);
    /// else each when it is read.
    pub pipeline: bool,
    /// Most elements of one download of written matches: a finished table comes to the host in
    /// pieces of at most this many, through two page-locked buffers in turn, one written while
    /// the next is copied ([`HOST_BUFFER_ELEMS`] by default, the most one buffer holds).
    pub download_elements: usize,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            strategy: Strategy::Auto,
            gpsm: GpsmOptions::default(),
            filter: CandidateFilter::Auto,
            structure: Structure::Auto,
            output: OutputScheme::PreallocCombine,
            write_cache: true,
            load_balance: LoadBalance::Model,
            depth_first: DepthFirst::Auto,
            dfs_frontier_rows: DFS_FRONTIER_ROWS,
            dfs_steal: true,
            memory_budget: None,
            park: Park::Auto,
            park_layout: Layout::Rows,
            device_memory: None,
            gpus: GpuCount::Count(1),
            shared_from: SHARED_QUERY_COST as u64,
            partitions: Partitions::Auto,
            segment_bytes: None,
            resident_bytes: None,
            pipeline: true,
            download_elements: HOST_BUFFER_ELEMS,
        }
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
