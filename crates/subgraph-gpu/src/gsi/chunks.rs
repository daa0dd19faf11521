//! The chunks a join step extends a table in (GSI §V's Prealloc-Combine within a device-memory
//! budget, FSIG's α of Eq. 5.6): how many rows and first-link elements one chunk takes, paced
//! towards a time per chunk and doubled from small under a limit.

use std::time::Duration;

use crate::error::Result;

/// Most rows of one chunk, so grids and per-row u32 arrays stay in range.
pub const MAX_CHUNK_ROWS: u64 = 1 << 26;
/// Rows of a level's first chunk when the query has a limit; each next chunk doubles.
pub const LIMIT_FIRST_CHUNK_ROWS: u64 = 1 << 10;
/// First-link elements (a bound on the rows it makes) of a materialised level's first chunk
/// when the query has a limit; each next chunk doubles.
pub const LIMIT_FIRST_CHUNK_ELEMS: u64 = 1 << 15;
/// Most first-link slice elements one chunk examines (its rows' `sizes` summed).
pub const MAX_CHUNK_WORK: u64 = 1 << 28;
/// First-link elements of a level's first chunk; the next ones are paced by [`paced_work`].
pub const FIRST_CHUNK_WORK: u64 = 1 << 24;
/// The time a chunk's passes aim at: the deadline and Ctrl-C are checked between chunks, so this
/// bounds how late they stop a query, in count-only mode too.
pub const CHUNK_TARGET: Duration = Duration::from_millis(50);
/// Device bytes per chunk row besides the buffers: counts, their scan, task bookkeeping.
pub const ROW_OVERHEAD_BYTES: u64 = 64;
/// The measured α of a level's chunk times this margin sizes its next chunk.
pub const ALPHA_MARGIN: f64 = 1.5;
/// The least α a chunk is sized with.
pub const ALPHA_FLOOR: f64 = 1.0 / 64.0;

/// First-link elements of a chunk of a materialised level (the table has `cols` columns) whose
/// output buffer (4 bytes an element) and next table (`alpha` of the elements become rows of
/// cols + 1 words) fit `budget` bytes: FSIG's ES(M_i) of Eq. 5.6 without the per-row arrays,
/// which [`ROW_OVERHEAD_BYTES`] bounds. With `alpha` 1 (GSI's sizing) every element may
/// survive, and the chunk always fits.
pub fn chunk_elements(budget: u64, cols: usize, alpha: f64) -> u64 {
    (budget as f64 / (4.0 * (1.0 + alpha * (cols as f64 + 1.0)))) as u64
}

/// The end of the chunk of table rows that starts at `start`: as many rows as fit both
/// `max_rows` and `max_elems` buffer elements, at least one. `offset_at(r)` is the exclusive
/// scan of the rows' buffer sizes at row r (r = rows gives the total).
pub fn next_chunk_end(
    start: u64,
    rows: u64,
    max_rows: u64,
    max_elems: u64,
    mut offset_at: impl FnMut(u64) -> Result<u64>,
) -> Result<u64> {
    let hi = rows.min(start.saturating_add(max_rows.max(1)));
    let base = offset_at(start)?;
    if offset_at(hi)? - base <= max_elems {
        return Ok(hi);
    }
    // offset_at(lo) - base <= max_elems < offset_at(hi) - base, with lo >= start + 1 kept
    // even when a single row exceeds the budget.
    let (mut lo, mut hi) = (start + 1, hi);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if offset_at(mid)? - base <= max_elems {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// The first-link elements of a level's next chunk, from the `work` this one was allowed and the
/// time its passes took: scaled towards [`CHUNK_TARGET`], at most doubled or divided by 8 at a
/// time, within 1..=[`MAX_CHUNK_WORK`].
pub fn paced_work(work: u64, took: Duration) -> u64 {
    let scale = (CHUNK_TARGET.as_secs_f64() / took.as_secs_f64().max(1e-6)).clamp(0.125, 2.0);
    ((work as f64 * scale) as u64).clamp(1, MAX_CHUNK_WORK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_grow_as_alpha_falls_and_fit_at_one() {
        let budget = 1 << 30;
        for cols in 1..10 {
            // α = 1 is GSI's sizing: a buffer element and a next-table row of cols + 1 words each.
            let e = chunk_elements(budget, cols, 1.0);
            assert_eq!(e, budget / (4 * (cols as u64 + 2)));
            assert!(4 * e + 4 * e * (cols as u64 + 1) <= budget);
            assert!(chunk_elements(budget, cols, 0.25) > e);
            assert!(chunk_elements(budget, cols, ALPHA_FLOOR) <= budget / 4);
        }
    }

    #[test]
    fn chunk_work_is_paced_towards_the_target() {
        let w = FIRST_CHUNK_WORK;
        assert_eq!(paced_work(w, CHUNK_TARGET), w);
        assert_eq!(paced_work(w, CHUNK_TARGET * 2), w / 2);
        // A pass far too long shrinks the next by 8 at most; a fast one grows it by 2 at most.
        assert_eq!(paced_work(w, CHUNK_TARGET * 100), w / 8);
        assert_eq!(paced_work(w, Duration::ZERO), 2 * w);
        assert_eq!(paced_work(MAX_CHUNK_WORK, Duration::ZERO), MAX_CHUNK_WORK);
        assert_eq!(paced_work(1, CHUNK_TARGET * 100), 1);
    }

    #[test]
    fn chunks_cover_the_rows_within_the_budget() {
        let sizes: Vec<u64> = (0..1000u64).map(|i| (i * 7919) % 50).collect();
        let mut offsets = vec![0u64];
        for s in &sizes {
            offsets.push(offsets.last().unwrap() + s);
        }
        for (max_rows, max_elems) in [(u64::MAX, u64::MAX), (100, u64::MAX), (1000, 300), (7, 1)] {
            let mut start = 0;
            let mut chunks = 0;
            while start < 1000 {
                let end = next_chunk_end(start, 1000, max_rows, max_elems, |r| Ok(offsets[r as usize])).unwrap();
                assert!(end > start && end <= 1000);
                assert!(end - start <= max_rows.max(1));
                let elems = offsets[end as usize] - offsets[start as usize];
                assert!(elems <= max_elems || end == start + 1, "{start}..{end}: {elems}");
                // Maximal: one more row would break a bound.
                if end < 1000 {
                    let more = offsets[end as usize + 1] - offsets[start as usize];
                    assert!(more > max_elems || end + 1 - start > max_rows);
                }
                start = end;
                chunks += 1;
            }
            if max_elems == u64::MAX && max_rows == u64::MAX {
                assert_eq!(chunks, 1);
            }
            if max_elems == 300 {
                assert!(chunks >= (offsets[1000] / 300) as usize);
            }
        }
    }

    #[test]
    fn a_row_above_the_budget_is_its_own_chunk() {
        let offsets = [0u64, 10, 1010, 1020];
        let end = next_chunk_end(1, 3, u64::MAX, 100, |r| Ok(offsets[r as usize])).unwrap();
        assert_eq!(end, 2);
        let end = next_chunk_end(0, 3, u64::MAX, 100, |r| Ok(offsets[r as usize])).unwrap();
        assert_eq!(end, 1);
    }
}
