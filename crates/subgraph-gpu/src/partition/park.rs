//! FSIG's host spill (Yu's thesis §5.4, `../shared/papers/thesis-fsig.md` §1.9): a table of
//! partial matches that takes a large share of the device memory while the join goes deeper is
//! parked in page-locked host memory, and its rows come back one block at a time. The join is
//! a depth-first walk over chunks (`Join::extend`); without the spill every level
//! it passes keeps its table on the device, so each deeper level works in about half the memory
//! of the one above. With it, a parked level holds only the block being extended, and the
//! levels below it get the memory back (`--gpu-park`).
//!
//! A parked table lies in host memory row after row (FSIG) or column after column, as SGSI
//! keeps its intermediate tables (§6.2, Alg. 6, `../shared/papers/gsi-sgsi.md` §6.3): a
//! columnar table is built on the device one column at a time, each copied out before the
//! next is made, so at most one column of it and the block being extended are on the device
//! (`--gpu-park-layout`). Under `--gpu-pipeline on`, blocks come back one ahead on the copy
//! stream ([`subgraph_cuda::pipelined`]).

use std::cell::Cell;
use subgraph_cuda::{
    Arg, Arriving, DeviceBuffer, Gpu, HostBuffer, HostSource, Kernel, KernelDecl, KernelSource, Lane, Param,
};

use crate::error::{to_u32, Result};
use crate::options::{Layout, Park};
use crate::shared::report::Spill;

/// The kernel of `park.cu`.
pub static SOURCE: KernelSource = KernelSource {
    name: "park.cu",
    code: include_str!("park.cu"),
    kernels: &[KernelDecl { name: "park_rows", params: &[Param::BufU32, Param::U64, Param::U32, Param::BufU32] }],
};

/// Threads per block of `park_rows`, and the most blocks of one launch (it strides).
const ROWS_BLOCK: u32 = 256;
const ROWS_GRID: u64 = 1 << 16;

/// Under [`Park::Auto`], a table holding half or more of what its level may use is parked when
/// the device memory left beside it is below this (256 MiB: the levels below would work in
/// chunks of under 128 MiB, 2^25 buffer elements). Measured on an H100
/// (bench/results/2026-11-26-fsig.md): parking every table of an eighth or more of its level
/// made FSIG's strategy 1.4–2.9× slower on the G3 queries it parked under 1–2 GiB budgets and
/// 0.78× as far on G1 under 8 GiB, and from a half still 1.5–2.6× slower on two of them.
/// Without the spill the levels below work in smaller chunks, but the GPU join stays fast on
/// them, while each parked byte crosses PCIe twice into freshly pinned memory. So the spill is
/// kept for a device that is nearly full.
pub const LOW_HEADROOM: u64 = 256 << 20;
/// A parked table's blocks: rows whose table words and per-row arrays take at most this
/// fraction (1/8) of a join chunk's budget (itself half the device memory the level may use),
/// so that most of it is left to the levels made from the block.
pub const BLOCK_SHARE: u64 = 8;
/// Device bytes per table row besides its columns while a level is extended: its first-link
/// size and link (u32 each) and their scan (u64).
pub const ROW_ARRAY_BYTES: u64 = 16;

/// Device bytes of a level's table of `rows` rows and `cols` columns, with its per-row arrays.
pub fn level_bytes(rows: u64, cols: usize) -> u64 {
    rows.saturating_mul(4 * cols as u64 + ROW_ARRAY_BYTES)
}

/// Whether the table at `cols` columns (`rows` rows, of a plan of `n` positions) is parked:
/// only where a level is made from its next one (a spill before the last level frees nothing
/// that a deeper level uses), the table has two rows or more, and the host can hold it twice
/// over (`host_available`, None where unknown: no spill). `headroom` is what the device may
/// still allocate with the table held. Both are asked only when the answer depends on them,
/// since the join asks this of every table it extends.
pub fn parks(
    park: Park,
    cols: usize,
    n: usize,
    rows: u64,
    headroom: impl FnOnce() -> Result<u64>,
    host_available: impl FnOnce() -> Option<u64>,
) -> Result<bool> {
    if cols + 2 > n || rows < 2 {
        return Ok(false);
    }
    let wanted = match park {
        Park::Off => false,
        Park::On => true,
        Park::Auto => {
            let headroom = headroom()?;
            level_bytes(rows, cols) >= headroom && headroom < LOW_HEADROOM
        }
    };
    let table = rows.saturating_mul(4 * cols as u64);
    Ok(wanted && host_available().is_some_and(|a| table.saturating_mul(2) <= a))
}

/// Rows of each block of a parked table at `cols` columns, where a join chunk may use `budget`
/// device bytes once the table is parked: at least one.
pub fn block_rows(cols: usize, budget: u64) -> u64 {
    (budget / BLOCK_SHARE / level_bytes(1, cols)).max(1)
}

/// The ranges of host memory that hold rows [start, end) of a parked table of `rows` rows and
/// `cols` columns, in the order the device copy takes them: one range of whole rows, or each
/// column's range (the block then lies column after column on the device).
fn block_ranges(layout: Layout, rows: u64, cols: usize, start: u64, end: u64) -> Vec<std::ops::Range<usize>> {
    let (a, b, n) = (start as usize, end as usize, rows as usize);
    match layout {
        Layout::Rows => std::iter::once(a * cols..b * cols).collect(),
        Layout::Columns => (0..cols).map(|c| c * n + a..c * n + b).collect(),
    }
}

/// A table parked in page-locked host memory: `rows` rows of `cols` words, laid out as
/// `layout` says.
pub struct Parked {
    host: HostBuffer,
    cols: usize,
    rows: u64,
    layout: Layout,
}

impl Parked {
    /// Copies `table` (`rows` rows of `cols` words) into `host` (reused page-locked memory,
    /// grown as needed) row after row, counting the bytes moved in `spill`.
    pub fn park(
        gpu: &Gpu,
        table: &DeviceBuffer<u32>,
        rows: u64,
        cols: usize,
        mut host: HostBuffer,
        spill: &mut Spill,
    ) -> Result<Parked> {
        let len = rows as usize * cols;
        gpu.park(table, len, &mut host, 0, len)?;
        spill.tables += 1;
        spill.bytes += len as u64 * 4;
        Ok(Parked { host, cols, rows, layout: Layout::Rows })
    }

    /// Makes a table of `rows` rows and `cols` columns one column at a time on the device
    /// (`column(c, buffer)` writes column c into a buffer of `rows` elements) and parks each
    /// in `host` column after column before the next is made (SGSI's Alg. 6), counting the
    /// bytes moved in `spill`.
    pub fn build_columns(
        gpu: &Gpu,
        rows: u64,
        cols: usize,
        mut host: HostBuffer,
        spill: &mut Spill,
        mut column: impl FnMut(usize, &mut DeviceBuffer<u32>) -> Result<()>,
    ) -> Result<Parked> {
        let (n, total) = (rows as usize, rows as usize * cols);
        let mut buffer = gpu.alloc_zeros::<u32>("parked column", n)?;
        for c in 0..cols {
            column(c, &mut buffer)?;
            gpu.park(&buffer, n, &mut host, c * n, total)?;
        }
        spill.tables += 1;
        spill.columnar += 1;
        spill.bytes += total as u64 * 4;
        Ok(Parked { host, cols, rows, layout: Layout::Columns })
    }

    /// Starts the device copy of rows [start, end) on `lane`, counted in `spill` as a block;
    /// once [`Gpu::arrived`], [`Parked::in_rows`] makes it a table.
    pub fn start_block(&self, gpu: &Gpu, lane: Lane, start: u64, end: u64, spill: &Cell<Spill>) -> Result<Arriving<1>> {
        let ranges = block_ranges(self.layout, self.rows, self.cols, start, end);
        let block = gpu.upload_parts(lane, [("parked block", HostSource::Pinned(&self.host, ranges))])?;
        let moved = Spill { blocks: 1, bytes: (end - start) * self.cols as u64 * 4, ..Spill::default() };
        spill.set(spill.get() + moved);
        Ok(block)
    }

    /// The copied `block` (of `rows` rows) as a table on the device, row after row: a
    /// columnar block is laid out in rows by `park_rows` (`kernel`).
    pub fn in_rows(
        &self,
        gpu: &Gpu,
        kernel: &Kernel,
        block: DeviceBuffer<u32>,
        rows: u64,
    ) -> Result<DeviceBuffer<u32>> {
        if self.layout == Layout::Rows || self.cols == 1 {
            return Ok(block);
        }
        let len = rows as usize * self.cols;
        let mut table = gpu.alloc_zeros::<u32>("parked block rows", len)?;
        let grid = to_u32("park_rows blocks", (len as u64).div_ceil(ROWS_BLOCK as u64).clamp(1, ROWS_GRID))?;
        gpu.launch(
            kernel,
            grid,
            ROWS_BLOCK,
            &mut [Arg::In32(&block), Arg::U64(rows), Arg::U32(self.cols as u32), Arg::Out32(&mut table)],
        )?;
        Ok(table)
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The page-locked memory, for the next table parked at this depth.
    pub fn into_host(self) -> HostBuffer {
        self.host
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    fn parks(park: Park, cols: usize, n: usize, rows: u64, headroom: u64, host: Option<u64>) -> bool {
        super::parks(park, cols, n, rows, || Ok(headroom), || host).unwrap()
    }

    /// A block's ranges cover its rows' words exactly once, in the device copy's order: row
    /// after row, or column after column.
    #[test]
    fn a_block_is_its_rows_in_either_layout() {
        let (rows, cols) = (10u64, 3usize);
        // Word (r, c) of the table in each host layout.
        let rows_major = |r: usize, c: usize| r * cols + c;
        let columns = |r: usize, c: usize| c * rows as usize + r;
        for (start, end) in [(0, 10), (0, 4), (4, 8), (8, 10), (9, 10)] {
            let words =
                |layout| -> Vec<usize> { block_ranges(layout, rows, cols, start, end).into_iter().flatten().collect() };
            let rs = start as usize..end as usize;
            let expect_rows: Vec<usize> = rs.clone().flat_map(|r| (0..cols).map(move |c| rows_major(r, c))).collect();
            let expect_columns: Vec<usize> = (0..cols).flat_map(|c| rs.clone().map(move |r| columns(r, c))).collect();
            assert_eq!(words(Layout::Rows), expect_rows, "rows {start}..{end}");
            assert_eq!(words(Layout::Columns), expect_columns, "columns {start}..{end}");
        }
    }

    #[test]
    fn auto_parks_a_table_of_half_its_level_on_a_nearly_full_device() {
        // 10^7 rows of 4 columns: 320 MB with its arrays; the headroom beside it at most that,
        // and under 256 MiB.
        let rows = 10_000_000;
        let bytes = level_bytes(rows, 4);
        assert_eq!(bytes, 320_000_000);
        assert!(parks(Park::Auto, 4, 8, rows, LOW_HEADROOM - 1, Some(64 * GIB)));
        assert!(!parks(Park::Auto, 4, 8, rows, LOW_HEADROOM, Some(64 * GIB)));
        assert!(!parks(Park::Auto, 4, 8, rows / 100, LOW_HEADROOM - 1, Some(64 * GIB)));
        assert!(!parks(Park::Auto, 4, 8, rows, 80 * GIB, Some(64 * GIB)));
    }

    #[test]
    fn nothing_is_parked_before_the_last_level_without_host_room_or_when_off() {
        let rows = 1 << 20;
        assert!(parks(Park::On, 3, 5, rows, GIB, Some(GIB)));
        // The next level is the last: nothing below it would use the memory.
        assert!(!parks(Park::On, 4, 5, rows, GIB, Some(GIB)));
        // The host must hold the table's 12 MiB twice over.
        assert!(parks(Park::On, 3, 5, rows, GIB, Some(24 << 20)));
        assert!(!parks(Park::On, 3, 5, rows, GIB, Some((24 << 20) - 1)));
        assert!(!parks(Park::On, 3, 5, rows, GIB, None));
        assert!(!parks(Park::On, 3, 5, 1, GIB, Some(GIB)));
        assert!(!parks(Park::Off, 3, 5, rows, 1, Some(64 * GIB)));
    }

    #[test]
    fn blocks_take_an_eighth_of_the_chunk_budget() {
        assert_eq!(block_rows(4, 8 * 32 * 1000), 1000);
        assert_eq!(block_rows(4, 0), 1);
    }

    #[test]
    fn spills_add_up() {
        let a = Spill { tables: 1, columnar: 1, blocks: 3, bytes: 100 };
        assert_eq!([a, a].into_iter().sum::<Spill>(), Spill { tables: 2, columnar: 2, blocks: 6, bytes: 200 });
    }
}
