//! Exact k nearest neighbours by brute force on the GPU (`brute.cu`): the ground truth of the
//! benchmarks (thesis §2.4: recall against exact k-NN) and the answer of a filtered search that
//! passes too few vectors for the graph. Every (query, row) distance is computed once, in a
//! fixed order, so the answer does not depend on how queries are batched or rows split.

use subgraph_cuda::{Arg, Gpu};

use crate::error::{AnnError, Result};
use crate::filter::Allowed;
use crate::gpu::resident::{batch_queries, to_u32, upload_allowed, DeviceVectors};
use crate::gpu::source::{brute_source, BruteShape, BRUTE_FINISH, BRUTE_TOPK};
use crate::neighbours::Neighbours;
use crate::vectors::{check_dim, Metric, Vectors};

/// Rows of the base a block streams at least (fewer splits where the base is small).
const MIN_SPLIT_ROWS: usize = 4096;
/// The most splits of the base (each adds a list of k per query to merge).
const MAX_SPLITS: usize = 64;
/// Blocks a launch aims at per multiprocessor, so that a few queries still fill the device.
const BLOCKS_PER_SM: usize = 4;
/// Rows of the base a block takes at a time (`BT` of `brute.cu`).
const TILE_ROWS: usize = 64;

/// How the `n` rows are split among blocks when `tiles` tiles of queries alone would leave the
/// `multiprocessors` idle: (rows a split, a multiple of [`TILE_ROWS`]; splits, each non-empty).
fn split_rows(n: usize, tiles: usize, multiprocessors: usize) -> (usize, usize) {
    let wanted = (BLOCKS_PER_SM * multiprocessors).div_ceil(tiles.max(1));
    let splits = wanted.min(MAX_SPLITS).min(n.div_ceil(MIN_SPLIT_ROWS)).max(1);
    let rows_per_split = n.div_ceil(splits).div_ceil(TILE_ROWS).max(1) * TILE_ROWS;
    (rows_per_split, n.div_ceil(rows_per_split).max(1))
}

/// The exact `k` nearest rows of `base` to each query, nearest first, ties by smaller row
/// (ids are row numbers); only rows that pass `allowed` where given, padded with
/// [`NONE`](crate::NONE) and infinity where fewer pass. `k` is 1 to 1024 and at most the rows.
pub fn brute_force(
    gpu: &Gpu,
    base: &DeviceVectors,
    metric: Metric,
    queries: &Vectors,
    k: usize,
    allowed: Option<&Allowed>,
) -> Result<Neighbours> {
    brute_batched(gpu, base, metric, queries, k, allowed, None)
}

/// [`brute_force`] with `batch` queries a launch where given (else as device memory allows).
pub fn brute_batched(
    gpu: &Gpu,
    base: &DeviceVectors,
    metric: Metric,
    queries: &Vectors,
    k: usize,
    allowed: Option<&Allowed>,
    batch: Option<usize>,
) -> Result<Neighbours> {
    let (n, dim) = (base.len(), base.dim());
    check_dim(dim, queries.dim(), "the queries")?;
    if k == 0 || k > n {
        return Err(AnnError::Parameter(format!("k {k}: brute force over {n} vectors takes 1 to {n}")));
    }
    let shape = BruteShape::new(dim, metric, k)?;
    let (words, filtered) = upload_allowed(gpu, allowed, n)?;
    let source = brute_source(shape);
    let topk = gpu.kernel(source, BRUTE_TOPK)?;
    let finish = gpu.kernel(source, BRUTE_FINISH)?;
    let (qt, threads) = (shape.queries_per_block(), to_u32("threads", 32 * shape.warps())?);
    let (n32, k32) = (to_u32("vectors", n)?, to_u32("k", k)?);
    let nq = queries.len();
    let batch = batch_queries(dim, k, batch);
    let mut out = Neighbours { k, ids: Vec::with_capacity(nq * k), distances: Vec::with_capacity(nq * k) };
    for start in (0..nq).step_by(batch) {
        let m = batch.min(nq - start);
        let rows = gpu.upload("ann queries", &queries.as_slice()[start * dim..(start + m) * dim])?;
        let tiles = m.div_ceil(qt);
        let (rows_per_split, splits) = split_rows(n, tiles, gpu.info().multiprocessors as usize);
        let mut partial = gpu.alloc_zeros::<u64>("ann brute-force lists", splits * m * k)?;
        let m32 = to_u32("queries", m)?;
        gpu.launch(
            &topk,
            to_u32("blocks", tiles * splits)?,
            threads,
            &mut [
                Arg::InF32(&rows),
                Arg::U32(m32),
                Arg::InF32(base.buffer()),
                Arg::U32(n32),
                Arg::U32(to_u32("rows", rows_per_split)?),
                Arg::U32(to_u32("tiles", tiles)?),
                Arg::U32(k32),
                Arg::In32(&words),
                Arg::U32(filtered),
                Arg::Out64(&mut partial),
            ],
        )?;
        let mut ids = gpu.alloc_zeros::<u32>("ann answer ids", m * k)?;
        let mut distances = gpu.alloc_zeros::<f32>("ann answer distances", m * k)?;
        gpu.launch(
            &finish,
            m32,
            32,
            &mut [
                Arg::In64(&partial),
                Arg::U32(m32),
                Arg::U32(k32),
                Arg::U32(to_u32("splits", splits)?),
                Arg::Out32(&mut ids),
                Arg::OutF32(&mut distances),
            ],
        )?;
        out.ids.extend(gpu.download(&ids)?);
        out.distances.extend(gpu.download(&distances)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_cover_every_row_once() {
        for n in [1, 63, 64, 65, 4095, 4096, 100_000, 1_000_000] {
            for tiles in [1, 7, 132, 625, 5000] {
                let (rows, splits) = split_rows(n, tiles, 132);
                assert!(rows % TILE_ROWS == 0 && rows > 0, "n {n} tiles {tiles}");
                assert!((1..=MAX_SPLITS).contains(&splits), "n {n} tiles {tiles}: {splits}");
                // Every split begins inside the rows, and together they reach the last.
                assert!((splits - 1) * rows < n && splits * rows >= n, "n {n} tiles {tiles}");
            }
        }
        assert_eq!(split_rows(1_000_000, 625, 132).1, 1, "10,000 queries fill the device alone");
        assert_eq!(split_rows(1_000_000, 1, 132), (15_680, 64));
    }
}
