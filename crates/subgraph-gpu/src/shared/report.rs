//! What a query on the GPU reports: the core report with the GPU's phase times, memory and
//! work ([`GpuReport`]), and the work of its parts: the depth-first kernel ([`DfsStats`]), the
//! host spill ([`Spill`]) and the segments of a partitioned graph copied ([`Streamed`]).

use subgraph_core::pipeline::Report;

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
    /// The depth-first kernel's work: frontier rows, launches, the frontier table's columns,
    /// the kernel's time (within `join_ms`), ranges of candidates stolen and how busy its warps
    /// were.
    pub dfs: DfsStats,
    /// FSIG's host spill: tables parked in host memory, blocks brought back, bytes moved.
    pub spill: Spill,
    /// Join chunks run again because the measured α undershot their rows.
    pub alpha_retries: u64,
    /// GPUs that joined the query (`--gpus`), and the milliseconds they waited for the last
    /// one to finish, summed over them (0 on one GPU): the balance of the first level's deal.
    pub devices: usize,
    pub idle_ms: f64,
    /// The matcher that ran the query: `gsi`, `gpsm` or `ggq` (tree passes).
    pub strategy: &'static str,
    /// Whether the data graph is partitioned ([`crate::partition`]), and the segments copied
    /// to the device for this query, with their bytes (not those kept resident).
    pub partitioned: bool,
    pub streamed: Streamed,
    /// What the join read: [`Structure::name`] of GSI's (`none` when nothing was joined),
    /// `edge-tables` for GpSM's, `tree` for GGQ's passes.
    ///
    /// [`Structure::name`]: crate::options::Structure::name
    pub structure: &'static str,
}

impl GpuReport {
    /// The report of a query one device ran outside GSI's join (GGQ's tree passes, GpSM): its
    /// matcher and what it read, phase times and peak, none of the join's counters.
    pub fn of(
        report: Report,
        (strategy, structure): (&'static str, &'static str),
        upload_ms: f64,
        filter_ms: f64,
        join_ms: f64,
        peak_device_bytes: u64,
    ) -> GpuReport {
        GpuReport {
            strategy,
            structure,
            report,
            upload_ms,
            filter_ms,
            join_ms,
            peak_device_bytes,
            buffer_elements: 0,
            joined_rows: 0,
            block_tasks: 0,
            grid_tasks: 0,
            dfs: DfsStats::default(),
            spill: Spill::default(),
            alpha_retries: 0,
            devices: 1,
            idle_ms: 0.0,
            partitioned: false,
            streamed: Streamed::default(),
        }
    }
}

/// The depth-first kernel's work over a query's launches (on one device, or summed over
/// several: [`DfsStats::merge`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DfsStats {
    /// Frontier rows extended and counted.
    pub rows: u64,
    pub launches: u64,
    /// Columns of the frontier table (0 without the kernel).
    pub columns: u64,
    /// The kernel's time, within the join's.
    pub ms: f64,
    /// Ranges of a level's candidates idle warps took over from busy ones (work stealing).
    pub stolen: u64,
    /// Nanoseconds warps spent on partial matches, and warps times each launch's span: their
    /// ratio is how busy the warps were.
    pub busy_ns: u64,
    pub warp_ns: u64,
}

impl DfsStats {
    /// `launch` added to this device's work.
    pub fn add(&mut self, launch: &DfsStats) {
        self.rows += launch.rows;
        self.launches += launch.launches;
        self.columns = launch.columns;
        self.ms += launch.ms;
        self.stolen += launch.stolen;
        self.busy_ns += launch.busy_ns;
        self.warp_ns += launch.warp_ns;
    }

    /// The work of devices that joined one query together: sums, the widest frontier and
    /// the longest time.
    pub fn merge(&self, other: &DfsStats) -> DfsStats {
        DfsStats {
            rows: self.rows + other.rows,
            launches: self.launches + other.launches,
            columns: self.columns.max(other.columns),
            ms: self.ms.max(other.ms),
            stolen: self.stolen + other.stolen,
            busy_ns: self.busy_ns + other.busy_ns,
            warp_ns: self.warp_ns + other.warp_ns,
        }
    }

    /// The fraction of the launches' warp time spent on partial matches (None without a
    /// launch).
    pub fn busy(&self) -> Option<f64> {
        (self.warp_ns > 0).then(|| self.busy_ns as f64 / self.warp_ns as f64)
    }
}

/// What the spill did in one query: tables parked (of them, those made and parked column by
/// column), blocks brought back and bytes moved across PCIe both ways.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spill {
    pub tables: u64,
    pub columnar: u64,
    pub blocks: u64,
    pub bytes: u64,
}

impl std::ops::Add for Spill {
    type Output = Spill;

    fn add(self, o: Spill) -> Spill {
        Spill {
            tables: self.tables + o.tables,
            columnar: self.columnar + o.columnar,
            blocks: self.blocks + o.blocks,
            bytes: self.bytes + o.bytes,
        }
    }
}

impl std::iter::Sum for Spill {
    fn sum<I: Iterator<Item = Spill>>(iter: I) -> Spill {
        iter.fold(Spill::default(), |a, b| a + b)
    }
}

/// Segments copied to the device for one query, and their bytes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Streamed {
    pub segments: u64,
    pub bytes: u64,
}
