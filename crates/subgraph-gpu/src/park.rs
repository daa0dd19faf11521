//! FSIG's host spill (Yu's thesis §5.4, `../shared/papers/thesis-fsig.md` §1.9): a table of
//! partial matches that takes a large share of the device memory while the join goes deeper is
//! parked in page-locked host memory, and its rows come back one block at a time. The join is
//! a depth-first walk over chunks (`Join::extend`); without the spill every level
//! it passes keeps its table on the device, so each deeper level works in about half the memory
//! of the one above. With it, a parked level holds only the block being extended, and the
//! levels below it get the memory back (`--gpu-park`).

use crate::cuda::{DeviceBuffer, Gpu, HostBuffer};
use crate::error::Result;

/// When the join parks a table in host memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Park {
    /// Where the device is short: a table with another level below its next one, holding at
    /// least half of what its level may use (its own bytes and the device's headroom), with
    /// less than [`LOW_HEADROOM`] left beside it, where the host has twice its bytes available.
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

/// What the spill did in one query: tables parked, blocks brought back and bytes moved across
/// PCIe both ways.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spill {
    pub tables: u64,
    pub blocks: u64,
    pub bytes: u64,
}

impl std::ops::Add for Spill {
    type Output = Spill;

    fn add(self, o: Spill) -> Spill {
        Spill { tables: self.tables + o.tables, blocks: self.blocks + o.blocks, bytes: self.bytes + o.bytes }
    }
}

impl std::iter::Sum for Spill {
    fn sum<I: Iterator<Item = Spill>>(iter: I) -> Spill {
        iter.fold(Spill::default(), |a, b| a + b)
    }
}

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

/// A table parked in page-locked host memory, `cols` words per row.
pub struct Parked {
    host: HostBuffer,
    cols: usize,
    rows: u64,
}

impl Parked {
    /// Copies `table` (`rows` rows of `cols` words) into `host` (reused page-locked memory,
    /// grown as needed), counting the bytes moved in `spill`.
    pub fn park(
        gpu: &Gpu,
        table: &DeviceBuffer<u32>,
        rows: u64,
        cols: usize,
        mut host: HostBuffer,
        spill: &mut Spill,
    ) -> Result<Parked> {
        gpu.park(table, &mut host)?;
        spill.tables += 1;
        spill.bytes += rows * cols as u64 * 4;
        Ok(Parked { host, cols, rows })
    }

    /// The device copy of rows [start, end), counted in `spill` as a block.
    pub fn block(&self, gpu: &Gpu, start: u64, end: u64, spill: &mut Spill) -> Result<DeviceBuffer<u32>> {
        let (a, b) = (start as usize * self.cols, end as usize * self.cols);
        let block = gpu.upload_parked("parked block", &self.host, a..b)?;
        spill.blocks += 1;
        spill.bytes += (b - a) as u64 * 4;
        Ok(block)
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
        let a = Spill { tables: 1, blocks: 3, bytes: 100 };
        assert_eq!([a, a].into_iter().sum::<Spill>(), Spill { tables: 2, blocks: 6, bytes: 200 });
    }
}
