//! Host side of the GSI join (§V, Alg. 3–4): the kernels of `join.cu` over each level's
//! descriptor ([`crate::shared::levels`]), extending the tables chunk by chunk
//! ([`crate::gsi::chunks`], within a device-memory budget), depth first. Each chunk's
//! load-balance layers are [`crate::gsi::balance`]'s; its finished rows go to
//! [`crate::shared::emit`].

use std::cell::Cell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::time::Instant;
use subgraph_core::host::available_memory;
use subgraph_core::plan::Plan;
use subgraph_cuda::{pipelined, Arg, DeviceBuffer, Gpu, HostBuffer, Kernel, KernelDecl, KernelSource, Param};

use crate::dfs::{self, DfsKernels, DfsPlan};
use crate::error::{to_u32, GpuError, Result};
use crate::gsi::balance::{Layers, HISTOGRAM_BINS, W1};
use crate::gsi::chunks::{
    chunk_elements, next_chunk_end, paced_work, ALPHA_FLOOR, ALPHA_MARGIN, FIRST_CHUNK_WORK, LIMIT_FIRST_CHUNK_ELEMS,
    LIMIT_FIRST_CHUNK_ROWS, MAX_CHUNK_ROWS, ROW_OVERHEAD_BYTES,
};
use crate::options::Layout;
use crate::options::{GpuOptions, LoadBalance, OutputScheme};
use crate::partition::park::{self, Parked};
use crate::shared::emit::Take;
use crate::shared::levels::LevelData;
use crate::shared::report::{DfsStats, Spill};
use crate::shared::slices::GraphArgs;

use Param::{BufU32 as B32, BufU64 as B64, U32, U64};

/// Threads per block of the one-warp-per-row kernels (`J_ROW_WARPS` warps).
pub const ROW_BLOCK: u32 = 256;
/// Threads per block of `join_tasks` (`J_TASK_WARPS` warps).
pub const TASK_BLOCK: u32 = 512;
/// Flag: count the survivors only.
pub const COUNT_ONLY: u32 = 1;
/// Flag: write survivors through the per-warp write cache.
pub const WRITE_CACHE: u32 = 2;
/// `join_link`'s column argument for whole rows (`J_ALL_COLUMNS`).
pub const ALL_COLUMNS: u32 = u32::MAX;

// Every join kernel starts with the graph (groups, meta, columns, edge labels, vertex labels,
// adjacency offsets and columns, mode, vertices) and the level (descriptor, bitset,
// candidates, candidate count).
static SIZES: [Param; 17] = [
    B32, B64, B32, B32, B32, B64, B32, U32, U32, B32, B32, B32, U32, //
    B32, U64, B32, B32,
];
static ROWS: [Param; 25] = [
    B32, B64, B32, B32, B32, B64, B32, U32, U32, B32, B32, B32, U32, //
    B32, U64, U64, B32, B32, B64, U64, U64, B32, B32, U32, U32,
];
static TASKS: [Param; 26] = [
    B32, B64, B32, B32, B32, B64, B32, U32, U32, B32, B32, B32, U32, //
    B32, U64, B32, B64, U64, U64, B32, B32, U32, B32, B32, B32, U32,
];

/// The kernels of `join.cu` (compiled after `pcsr.cu` and `slices.cu`, whose lookups they call).
pub static SOURCE: KernelSource = KernelSource {
    name: "join.cu",
    code: concat!(include_str!("pcsr.cu"), "\n", include_str!("../shared/slices.cu"), "\n", include_str!("join.cu")),
    kernels: &[
        KernelDecl { name: "join_sizes", params: &SIZES },
        KernelDecl { name: "join_rows", params: &ROWS },
        KernelDecl { name: "join_tasks", params: &TASKS },
        KernelDecl { name: "join_classify", params: &[B32, U64, U64, U32, U32, U32, B32, B32] },
        KernelDecl { name: "join_histogram", params: &[B32, U64, U64, B32, U32] },
        KernelDecl { name: "join_expand", params: &[B32, B64, B32, U64, U64, U32, B32, B32, B32] },
        KernelDecl { name: "join_link", params: &[B32, U64, U64, U32, B64, U64, U64, B32, B32, B64, U32, B32] },
    ],
};

/// The kernels of `join.cu`, loaded once.
pub(crate) struct Kernels {
    pub(crate) sizes: Kernel,
    pub(crate) rows: Kernel,
    pub(crate) tasks: Kernel,
    pub(crate) classify: Kernel,
    pub(crate) histogram: Kernel,
    /// The device's multiprocessors: the histogram model's parallelism.
    pub(crate) multiprocessors: u64,
    pub(crate) expand: Kernel,
    pub(crate) link: Kernel,
    /// `park.cu`'s: a columnar block laid out in rows.
    pub(crate) park_rows: Kernel,
    /// Warps of `join_rows` the device runs at once (its multiprocessors times its occupancy):
    /// the load-balance cost model's parallelism.
    pub(crate) resident_warps: u64,
}

impl Kernels {
    /// Compiles (once per process) and loads the join's kernels and `park.cu`'s.
    pub(crate) fn new(gpu: &Gpu) -> Result<Kernels> {
        let rows = gpu.kernel(&SOURCE, "join_rows")?;
        let resident_warps = gpu.info().multiprocessors as u64
            * gpu.resident_blocks(&rows, ROW_BLOCK)?.max(1) as u64
            * (ROW_BLOCK / 32) as u64;
        Ok(Kernels {
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
        })
    }
}

/// Grid size for one warp per row.
pub(crate) fn warp_grid(rows: u64) -> Result<u32> {
    let blocks = (rows * 32).div_ceil(ROW_BLOCK as u64);
    u32::try_from(blocks).map_err(|_| GpuError::TooLarge {
        what: "rows of one launch",
        len: rows,
        max: (u32::MAX as u64 * ROW_BLOCK as u64) / 32,
    })
}

/// One query's join on one device: the table of each level, extended chunk by chunk, depth
/// first, from the first-level rows it claims.
pub(crate) struct Join<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) k: &'a Kernels,
    pub(crate) graph: GraphArgs<'a>,
    pub(crate) plan: &'a Plan,
    pub(crate) levels: &'a [LevelData],
    pub(crate) opts: &'a GpuOptions,
    pub(crate) take: Take<'a>,
    pub(crate) dummy64: &'a DeviceBuffer<u64>,
    pub(crate) nodes: u64,
    pub(crate) chunks: u64,
    pub(crate) buffer_elements: u64,
    pub(crate) joined_rows: u64,
    pub(crate) block_tasks: Cell<u64>,
    pub(crate) grid_tasks: Cell<u64>,
    /// Depth-first counting from a frontier level on, when the query takes it.
    pub(crate) dfs: Option<(&'a DfsKernels, &'a DfsPlan)>,
    pub(crate) dfs_stats: DfsStats,
    /// FSIG's host spill: what it did, and the page-locked memory of each depth's parked table
    /// (reused by the next table parked there).
    pub(crate) spill: Spill,
    pub(crate) parks: Vec<HostBuffer>,
    /// Chunks run again because the measured α undershot their rows.
    pub(crate) alpha_retries: u64,
    /// Under a limit, the rows and first-link elements of each level's next chunk (by the
    /// table's columns): small for the level's first chunk of the query, then doubled chunk
    /// after chunk, also from one of the level's tables to the next (each chunk of the level
    /// above makes one), so that only the query's first matches come through small chunks.
    pub(crate) limit_chunks: Vec<(u64, u64)>,
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
    pub(crate) fn stop_now(&mut self) -> bool {
        self.take.stop_now()
    }

    /// Full matches, counted as the plan's multiplier each and written when there is an
    /// output, expanded by the automorphisms behind the plan's restrictions.
    fn emit(&mut self, table: &DeviceBuffer<u32>, rows: u64) -> Result<()> {
        let plan = self.plan;
        self.take.emit(table, rows, plan.len(), plan.multiplier)
    }

    /// Extends `table` (`cols` columns, `rows` rows) by plan position `cols`, chunk by chunk,
    /// and recurses into each chunk's result; a table that [`park::parks`] is parked in host
    /// memory first and extended one block at a time.
    pub(crate) fn extend(&mut self, cols: usize, table: DeviceBuffer<u32>, rows: u64) -> Result<()> {
        let n = self.plan.len();
        if cols == n {
            return self.emit(&table, rows);
        }
        if let Some((k, d)) = self.depth_first_from(cols) {
            return self.depth_first(k, d, cols, &table, rows);
        }
        if rows == 0 || self.stop_now() {
            return Ok(());
        }
        if park::parks(self.opts.park, cols, n, rows, || Ok(self.gpu.headroom()?), available_memory)? {
            let host = self.park_host(cols);
            let parked = Parked::park(self.gpu, &table, rows, cols, host, &mut self.spill)?;
            drop(table);
            return self.extend_parked(cols, parked);
        }
        self.extend_resident(cols, table, rows)
    }

    /// The depth-first kernels and plan, where a table of `cols` columns is counted depth first.
    fn depth_first_from(&self, cols: usize) -> Option<(&'a DfsKernels, &'a DfsPlan)> {
        self.dfs.filter(|(_, d)| cols >= d.frontier())
    }

    /// The page-locked memory of the table parked at `cols` columns (reused from the table
    /// parked there before).
    fn park_host(&mut self, cols: usize) -> HostBuffer {
        if self.parks.len() <= cols {
            self.parks.resize_with(cols + 1, HostBuffer::default);
        }
        std::mem::take(&mut self.parks[cols])
    }

    /// Extends the `parked` table (`cols` columns) block by block ([`park::block_rows`] of the
    /// chunk budget left), each block as a table of its own, the next block copied on the copy
    /// stream while this one is extended (under `--gpu-pipeline`).
    fn extend_parked(&mut self, cols: usize, parked: Parked) -> Result<()> {
        let block = park::block_rows(cols, self.budget()?);
        let blocks: Vec<usize> = (0..parked.rows().div_ceil(block) as usize).collect();
        let range = |i: usize| (i as u64 * block, parked.rows().min((i as u64 + 1) * block));
        let (gpu, k, moved) = (self.gpu, self.k, Cell::new(Spill::default()));
        let start = |i: usize, lane| {
            let (start, end) = range(i);
            parked.start_block(gpu, lane, start, end, &moved)
        };
        let arrive = |a| Ok(gpu.arrived(a)?);
        let passed = pipelined(self.opts.pipeline, &blocks, &|_| true, &start, &arrive, &mut |i, arrived| {
            let (start, end) = range(i);
            let [block] = arrived.expect("every block is copied");
            let table = parked.in_rows(gpu, &k.park_rows, block, end - start)?;
            self.extend_resident(cols, table, end - start)?;
            let stop = self.take.done || self.stop_now();
            Ok(if stop { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
        });
        if let Err(e) = passed {
            // The default stream waits for every copy started from `parked`: they end before
            // its page-locked memory is freed (the synchronisation's own failure adds nothing).
            gpu.synchronize().ok();
            return Err(e);
        }
        self.spill = self.spill + moved.get();
        self.parks[cols] = parked.into_host();
        Ok(())
    }

    /// Whether the next table (`cols` columns, `rows` rows) is made column by column straight
    /// into host memory (`--gpu-park-layout columns`): where [`Join::extend`] would park it,
    /// and the query goes on (else `extend` decides, and stops).
    /// `freed` is what the chunk's buffers give back once it is made, so that the headroom
    /// asked is the one `extend` would see.
    fn parks_columns(&mut self, cols: usize, rows: u64, freed: u64) -> Result<bool> {
        if self.opts.park_layout != Layout::Columns
            || cols == self.plan.len()
            || self.depth_first_from(cols).is_some()
            || self.stop_now()
        {
            return Ok(false);
        }
        let headroom = || Ok((self.gpu.headroom()? + freed).saturating_sub(rows.saturating_mul(4 * cols as u64)));
        park::parks(self.opts.park, cols, self.plan.len(), rows, headroom, available_memory)
    }

    /// [`Join::extend`] with `table` on the device throughout.
    fn extend_resident(&mut self, cols: usize, table: DeviceBuffer<u32>, rows: u64) -> Result<()> {
        let n = self.plan.len();
        let levels = self.levels;
        let lv = &levels[cols];
        let count_only = cols + 1 == n && !self.take.writes();
        let mut sizes = self.gpu.alloc_zeros::<u32>("row sizes", rows as usize)?;
        let mut firsts = self.gpu.alloc_zeros::<u32>("row first links", rows as usize)?;
        let mut args = self.head(lv, cols);
        args.extend([Arg::In32(&table), Arg::U64(rows), Arg::Out32(&mut sizes), Arg::Out32(&mut firsts)]);
        self.gpu.launch(&self.k.sizes, warp_grid(rows)?, ROW_BLOCK, &mut args)?;
        drop(args);
        let (offsets, _, host) = crate::shared::scan::exclusive_scan_to_host(self.gpu, &sizes, HOST_OFFSET_ROWS)?;
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
        // a query whose matches are rare still runs in few chunks. A level's next table goes on
        // from the size its last one reached (`limit_chunks`).
        let limited = self.take.tally.limited();
        if self.limit_chunks.len() <= cols {
            self.limit_chunks.resize(cols + 1, (LIMIT_FIRST_CHUNK_ROWS, LIMIT_FIRST_CHUNK_ELEMS));
        }
        let (mut limit_rows, mut limit_elems) = match limited {
            true => self.limit_chunks[cols],
            false => (u64::MAX, u64::MAX),
        };
        if count_only {
            limit_elems = u64::MAX;
        }
        let mut work = FIRST_CHUNK_WORK;
        // FSIG's α (Eq. 5.6): the share of a chunk's buffer elements that become rows, measured
        // on the chunk before (with a margin) where the thesis sets it by hand per data set.
        let mut alpha = 1.0;
        let mut start = 0;
        while start < rows {
            if self.stop_now() {
                return Ok(());
            }
            let budget = self.budget()?;
            let max_rows = (budget / ROW_OVERHEAD_BYTES).clamp(1, MAX_CHUNK_ROWS).min(limit_rows);
            limit_rows = limit_rows.saturating_mul(2);
            let buffer_elems = if count_only { u64::MAX } else { chunk_elements(budget, cols, alpha) };
            let max_elems = buffer_elems.min(work).min(limit_elems);
            limit_elems = limit_elems.saturating_mul(2);
            if limited {
                self.limit_chunks[cols] = (limit_rows, limit_elems);
            }
            probe.load(start, rows.min(start.saturating_add(max_rows)))?;
            let end = next_chunk_end(start, rows, max_rows, max_elems, |r| probe.at(r))?;
            self.chunks += 1;
            let chunk = end - start;
            let layers = match self.opts.load_balance {
                LoadBalance::Off => None,
                LoadBalance::Gsi => Some(Layers::GSI),
                LoadBalance::Model => Some(Layers::for_chunk(probe.at(end)? - probe.at(start)?, self.k.resident_warps)),
                LoadBalance::Histogram => Some(self.histogram_layers(&sizes, start, end)?),
            };
            let layers = layers.filter(|l| probe.may_have_heavy(start, end, l.heavy));
            let passes = Instant::now();
            if count_only {
                let mut counts = self.gpu.alloc_zeros::<u32>("row counts", chunk as usize)?;
                let mut none = self.gpu.alloc_zeros::<u32>("placeholder", 1)?;
                let sink = Sink { offsets: self.dummy64, f_row0: 0, gba_base: 0, counts: &mut counts, out: &mut none };
                self.pass(cols, &table, start, end, &sizes, &firsts, sink, COUNT_ONLY, layers)?;
                let (_, total) = crate::shared::scan::exclusive_scan(self.gpu, &counts)?;
                work = paced_work(work, passes.elapsed());
                self.take.add(total as u128 * self.plan.multiplier);
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
                        let (exact, total) = crate::shared::scan::exclusive_scan(self.gpu, &counts)?;
                        counts = self.gpu.alloc_zeros::<u32>("row counts", chunk as usize)?;
                        (Some(exact), start, 0, total)
                    }
                };
                let buffer_offsets = exact.as_ref().unwrap_or(&offsets);
                self.buffer_elements += gba_len;
                let mut gba = self.gpu.alloc_zeros::<u32>("GBA", gba_len as usize)?;
                let sink = Sink { offsets: buffer_offsets, f_row0, gba_base, counts: &mut counts, out: &mut gba };
                self.pass(cols, &table, start, end, &sizes, &firsts, sink, flags, layers)?;
                let (row_offsets, new_rows) = crate::shared::scan::exclusive_scan(self.gpu, &counts)?;
                work = paced_work(work, passes.elapsed());
                let next_len = new_rows.checked_mul(cols as u64 + 1).ok_or(GpuError::TooLarge {
                    what: "next table",
                    len: new_rows,
                    max: u64::MAX / (cols as u64 + 1),
                })?;
                if alpha < 1.0 && next_len.saturating_mul(4) > self.gpu.headroom()? {
                    // α undershot: the chunk again, sized for every element becoming a row.
                    alpha = 1.0;
                    self.alpha_retries += 1;
                    continue;
                }
                if exact.is_none() && gba_len > 0 {
                    alpha = (new_rows as f64 / gba_len as f64 * ALPHA_MARGIN).clamp(ALPHA_FLOOR, 1.0);
                }
                let (gpu, k) = (self.gpu, self.k);
                let link = |column: u32, next: &mut DeviceBuffer<u32>| -> Result<()> {
                    Ok(gpu.launch(
                        &k.link,
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
                            Arg::U32(column),
                            Arg::Out32(next),
                        ],
                    )?)
                };
                let freed = [gba.bytes(), counts.bytes(), row_offsets.bytes(), exact.as_ref().map_or(0, |e| e.bytes())];
                self.nodes += new_rows;
                self.joined_rows += new_rows;
                if self.parks_columns(cols + 1, new_rows, freed.iter().sum())? {
                    let host = self.park_host(cols + 1);
                    let parked =
                        Parked::build_columns(self.gpu, new_rows, cols + 1, host, &mut self.spill, |c, col| {
                            link(c as u32, col)
                        })?;
                    drop((gba, counts, row_offsets, exact));
                    self.extend_parked(cols + 1, parked)?;
                } else {
                    let mut next = self.gpu.alloc_zeros::<u32>("next table", next_len as usize)?;
                    link(ALL_COLUMNS, &mut next)?;
                    drop((gba, counts, row_offsets, exact));
                    self.extend(cols + 1, next, new_rows)?;
                }
            }
            if self.take.done {
                return Ok(());
            }
            start = end;
        }
        Ok(())
    }

    /// The layers of SGSI §7's histogram model for rows `start..end`, whose first-slice sizes
    /// are in `sizes`: the histogram made on the device, the thresholds on the host.
    fn histogram_layers(&self, sizes: &DeviceBuffer<u32>, start: u64, end: u64) -> Result<Layers> {
        let mut bins = self.gpu.alloc_zeros::<u32>("size histogram", HISTOGRAM_BINS as usize)?;
        let blocks = to_u32("histogram rows", (end - start).div_ceil(ROW_BLOCK as u64))?;
        let mut args =
            [Arg::In32(sizes), Arg::U64(start), Arg::U64(end - start), Arg::Out32(&mut bins), Arg::U32(HISTOGRAM_BINS)];
        self.gpu.launch(&self.k.histogram, blocks, ROW_BLOCK, &mut args)?;
        Ok(Layers::from_histogram(&self.gpu.download(&bins)?, self.k.multiprocessors))
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
        let left = self.take.tally.left().map_or(0, |l| l.div_ceil(m).clamp(1, u64::MAX as u128) as u64);
        let control = self.take.control;
        let budget = self.budget()?;
        let steal = self.opts.dfs_steal;
        let out = dfs::count(self.gpu, k, d, self.graph.args(), table, rows, cols, left, budget, steal, || {
            control.should_stop()
        })?;
        self.dfs_stats.add(&out.stats);
        self.take.add(out.matches * m);
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
            let (offs, total) = crate::shared::scan::exclusive_scan(self.gpu, ntask)?;
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
