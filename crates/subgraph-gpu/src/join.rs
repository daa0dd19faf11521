//! Host side of the GSI join (§V, Alg. 3–4; load balancing §VI-A): the kernels of `join.cu`,
//! the per-level descriptor the kernels read (links, non-edges, injectivity), the Prealloc-
//! Combine chunk planner that keeps each step's buffers within a device-memory budget, and the
//! load-balance layers: GSI Table VIII's thresholds W1 = 4096, W2 = 1024, raised per chunk by a
//! cost model.

use std::time::Duration;
use subgraph_core::plan::Plan;
use subgraph_core::Dir;

use crate::cuda::{KernelDecl, KernelSource, Param};
use crate::error::Result;

use Param::{BufU32 as B32, BufU64 as B64, U32, U64};

/// Rows whose first slice exceeds W1 are split into W1-element tasks run by a separate grid.
pub const W1: u32 = 4096;
/// Rows whose first slice exceeds W2 (and not W1) are run by a whole block.
pub const W2: u32 = 1024;
/// Most columns (query vertices) a table may have; the row is cached in shared memory.
pub const MAX_COLUMNS: usize = 64;
/// Threads per block of the one-warp-per-row kernels (`J_ROW_WARPS` warps).
pub const ROW_BLOCK: u32 = 256;
/// Threads per block of `join_tasks` (`J_TASK_WARPS` warps).
pub const TASK_BLOCK: u32 = 512;
/// Flag: count the survivors only.
pub const COUNT_ONLY: u32 = 1;
/// Flag: write survivors through the per-warp write cache.
pub const WRITE_CACHE: u32 = 2;
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
    code: concat!(include_str!("pcsr.cu"), "\n", include_str!("slices.cu"), "\n", include_str!("join.cu")),
    kernels: &[
        KernelDecl { name: "join_sizes", params: &SIZES },
        KernelDecl { name: "join_rows", params: &ROWS },
        KernelDecl { name: "join_tasks", params: &TASKS },
        KernelDecl { name: "join_classify", params: &[B32, U64, U64, U32, U32, U32, B32, B32] },
        KernelDecl { name: "join_expand", params: &[B32, B64, B32, U64, U64, U32, B32, B32, B32] },
        KernelDecl { name: "join_link", params: &[B32, U64, U64, U32, B64, U64, U64, B32, B32, B64, B32] },
    ],
};

/// Index of a direction in the device structures: 0 out (all edges when undirected), 1 in.
pub fn dir_index(dir: Dir) -> u32 {
    match dir {
        Dir::Out => 0,
        Dir::In => 1,
    }
}

/// Words of a level descriptor before its links.
pub const DESC_HEADER: usize = 8;

/// The descriptor of plan position `pos` as `join.cu` reads it: [0] columns of the table
/// (= pos), [1] links, [2] non-edges, [3] injective, [4] label of the query vertex, [5]
/// symmetry bounds; then per link (from, structure, edge label), where `structure(dir, edge
/// label)` names the device structure holding the link's slices; then per non-edge (from,
/// direction); then per bound the column whose vertex the candidate must exceed.
pub fn level_descriptor(
    plan: &Plan,
    pos: usize,
    vertex_label: u32,
    injective: bool,
    structure: impl Fn(Dir, u32) -> u32,
) -> Vec<u32> {
    let links = &plan.backward[pos];
    let non_edges = &plan.non_edges[pos];
    let mut desc = vec![0u32; DESC_HEADER];
    desc[0] = pos as u32;
    desc[1] = links.len() as u32;
    desc[2] = non_edges.len() as u32;
    desc[3] = u32::from(injective);
    desc[4] = vertex_label;
    desc[5] = plan.greater_than[pos].len() as u32;
    for l in links {
        desc.extend([l.from as u32, structure(l.dir, l.edge_label), l.edge_label]);
    }
    for ne in non_edges {
        desc.extend([ne.from as u32, dir_index(ne.dir)]);
    }
    desc.extend(plan.greater_than[pos].iter().map(|&p| p as u32));
    desc
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

/// The load-balance layers of one chunk (GSI §VI-A): rows whose first slice exceeds `heavy`
/// leave the warp layer; those up to `grid` run on one block, longer ones in W1-element pieces
/// on the separate grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layers {
    pub heavy: u32,
    pub grid: u32,
}

impl Layers {
    /// GSI's fixed thresholds.
    pub const GSI: Layers = Layers { heavy: W2, grid: W1 };

    /// The layers of a chunk whose rows' first slices total `elems` elements, on a device that
    /// runs `resident_warps` warps of the warp layer at once. GSI's thresholds (W2, W1) are
    /// raised by a cost model: a row leaves the warp layer only when one warp on it would
    /// outlast the chunk's even share per resident warp. When heavy rows are many, the warp
    /// layer is balanced already and the block and grid layers' per-warp set-up (the row, the
    /// slice lookups) is extra work: 2.2 times the kernel time on the hub-heavy workload of
    /// bench/results/2026-11-21-h200-gpu-launches.md.
    pub fn for_chunk(elems: u64, resident_warps: u64) -> Layers {
        let share = elems.div_ceil(resident_warps.max(1));
        let heavy = share.clamp(W2 as u64, u32::MAX as u64) as u32;
        Layers { heavy, grid: heavy.max(W1) }
    }

    /// (block tasks, grid tasks) of a row whose first slice has `size` elements: the host
    /// statement of `join_classify` and `join_expand`; (0, 0) is the warp layer.
    pub fn tasks(self, size: u32) -> (u32, u32) {
        if size > self.grid {
            (0, size.div_ceil(W1))
        } else if size > self.heavy {
            (1, 0)
        } else {
            (0, 0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::filter::Filter;
    use subgraph_core::order::Order;
    use subgraph_core::plan::PlanOptions;
    use subgraph_core::sink::Control;
    use subgraph_core::{GraphBuilder, Query, Semantics};

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

    #[test]
    fn layers_follow_the_gsi_thresholds_on_a_small_chunk() {
        let layers = Layers::for_chunk(1000, 4224);
        assert_eq!(layers, Layers::GSI);
        assert_eq!(layers.tasks(0), (0, 0));
        assert_eq!(layers.tasks(W2), (0, 0));
        assert_eq!(layers.tasks(W2 + 1), (1, 0));
        assert_eq!(layers.tasks(W1), (1, 0));
        assert_eq!(layers.tasks(W1 + 1), (0, 2));
        assert_eq!(layers.tasks(10 * W1), (0, 10));
        // Every element of a row is covered by exactly one grid task.
        for size in [W1 + 1, 3 * W1 - 1, 3 * W1, 77_777] {
            let (_, tasks) = layers.tasks(size);
            let covered: u64 = (0..tasks).map(|q| (size as u64 - q as u64 * W1 as u64).min(W1 as u64)).sum();
            assert_eq!(covered, size as u64);
        }
    }

    #[test]
    fn layers_rise_with_the_share_per_warp() {
        // 2,000 elements per warp: rows up to it stay in the warp layer, longer ones up to W1
        // run on a block.
        let layers = Layers::for_chunk(2000 * 4224, 4224);
        assert_eq!(layers, Layers { heavy: 2000, grid: W1 });
        assert_eq!(layers.tasks(2000), (0, 0));
        assert_eq!(layers.tasks(2001), (1, 0));
        // 10,000 per warp: above W1, so a row leaving the warp layer goes to the grid.
        let layers = Layers::for_chunk(10_000 * 4224 - 1, 4224);
        assert_eq!(layers, Layers { heavy: 10_000, grid: 10_000 });
        assert_eq!(layers.tasks(10_000), (0, 0));
        assert_eq!(layers.tasks(10_001), (0, 3));
        // Beyond u32: no row is heavy.
        assert_eq!(Layers::for_chunk(u64::MAX, 1).heavy, u32::MAX);
        assert_eq!(Layers::for_chunk(5, 0).heavy, W2);
    }

    #[test]
    fn descriptor_layout() {
        // Directed triangle 0→1→2→0 with labels; query = the same triangle.
        let data = GraphBuilder::from_parts(vec![5, 6, 7], vec![(0, 1, 3), (1, 2, 4), (2, 0, 3)], true).build().0;
        let query = data.clone();
        for semantics in [Semantics::Embed, Semantics::Induced, Semantics::Homomorphism] {
            let q = Query::new(query.clone(), &data, semantics).unwrap();
            let opts =
                PlanOptions { semantics, filter: Filter::Ldf, order: Some(Order::Gsi), ..PlanOptions::default() };
            let plan = Plan::new(&data, &q, opts, &Control::unlimited());
            for pos in 0..plan.len() {
                let label = query.label(plan.vertices[pos]);
                let desc = level_descriptor(&plan, pos, label, semantics.injective(), |d, l| 10 * dir_index(d) + l);
                let k = plan.backward[pos].len();
                let m = plan.non_edges[pos].len();
                let b = plan.greater_than[pos].len();
                assert_eq!(desc.len(), DESC_HEADER + 3 * k + 2 * m + b);
                assert_eq!(
                    desc[..6],
                    [pos as u32, k as u32, m as u32, u32::from(semantics.injective()), label, b as u32]
                );
                for (t, &p) in plan.greater_than[pos].iter().enumerate() {
                    assert_eq!(desc[DESC_HEADER + 3 * k + 2 * m + t], p as u32);
                }
                for (j, l) in plan.backward[pos].iter().enumerate() {
                    let at = DESC_HEADER + 3 * j;
                    assert_eq!(desc[at..at + 3], [l.from as u32, 10 * dir_index(l.dir) + l.edge_label, l.edge_label]);
                }
                for (t, ne) in plan.non_edges[pos].iter().enumerate() {
                    let at = DESC_HEADER + 3 * k + 2 * t;
                    assert_eq!(desc[at..at + 2], [ne.from as u32, dir_index(ne.dir)]);
                }
                assert_eq!(k, pos, "a triangle links each position to all earlier ones");
                if semantics != Semantics::Induced {
                    assert_eq!(m, 0);
                }
            }
        }
    }
}
