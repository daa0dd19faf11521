//! Load balancing of a join step's rows (GSI §VI-A; SGSI §7): which rows leave the
//! one-warp-per-row layer for a whole block, or for W1-element pieces on a separate grid. GSI's
//! fixed thresholds, raised per chunk by a cost model (`--gpu-load-balance on`), or chosen from
//! the chunk's histogram of row sizes by SGSI's model (`histogram`).

/// Rows whose first slice exceeds W1 are split into W1-element tasks run by a separate grid.
pub const W1: u32 = 4096;
/// Rows whose first slice exceeds W2 (and not W1) are run by a whole block.
pub const W2: u32 = 1024;
/// Bins of SGSI §7's histogram (32 sizes each; the last takes every larger size).
pub const HISTOGRAM_BINS: u32 = 4096;

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

    /// The layers SGSI §7's histogram cost model picks for a chunk whose rows' first-slice
    /// sizes fall in `bins` (bin b: sizes in [32b, 32(b + 1))) on a device of `sms`
    /// multiprocessors. A row of bin i costs i warp steps (32 elements each) in the warp layer
    /// (32 warps an SM run at once), in the block layer ⌈32i / 1024⌉ steps plus a
    /// synchronisation, on the grid ⌈32i / W1⌉ pieces of W1 / 1024 steps and a
    /// synchronisation each: the layers' cost is the busiest SM's, bin by bin (Eq. 1 with our
    /// three layers: SGSI's multi-warp layer has no counterpart here, and our grid layer is
    /// one launch for all pieces where SGSI launches a kernel per row). The thresholds
    /// minimise the sum over all bins, searched in O(bins) with prefix sums where SGSI
    /// brute-forces every pair.
    pub fn from_histogram(bins: &[u32], sms: u64) -> Layers {
        const SYNC: f64 = 1.0;
        let sms = sms.max(1) as f64;
        let per_sm = |n: u32, lanes: f64| (n as f64 / lanes).ceil();
        let warp = |i: usize, n: u32| i as f64 * per_sm(n, 32.0 * sms);
        let block = |i: usize, n: u32| (1.0 + SYNC) * per_sm(n, sms) * (32.0 * i as f64 / 1024.0).ceil().max(1.0);
        let grid = |i: usize, n: u32| {
            let pieces = n as f64 * (32.0 * i as f64 / W1 as f64).ceil().max(1.0);
            (1.0 + SYNC) * (pieces / sms).ceil() * (W1 / 1024) as f64
        };
        let b = bins.len();
        // prefix[k]: the cost of bins below k in a layer; the warp layer holds bins 0..=h, the
        // block layer h+1..=g, the grid the rest.
        let prefix = |f: &dyn Fn(usize, u32) -> f64| {
            let mut p = vec![0.0; b + 1];
            for (i, &n) in bins.iter().enumerate() {
                p[i + 1] = p[i] + if n > 0 { f(i, n) } else { 0.0 };
            }
            p
        };
        let (w, k, r) = (prefix(&warp), prefix(&block), prefix(&grid));
        // best[g]: min over g' >= g of k[g'] + (r[b] - r[g']): where the block layer ends.
        let mut best = vec![(f64::INFINITY, b); b + 1];
        for g in (0..=b).rev() {
            let here = (k[g] + r[b] - r[g], g);
            best[g] = if g == b || here.0 <= best[g + 1].0 { here } else { best[g + 1] };
        }
        // Bins below h on warps (sizes up to 32h - 1), from g on the grid (above 32g - 1).
        let threshold = |bin: usize| (32 * bin as u64).saturating_sub(1).clamp(32, u32::MAX as u64) as u32;
        let (mut cost, mut layers) = (f64::INFINITY, Layers::GSI);
        for h in 0..=b {
            let (rest, g) = best[h];
            let c = w[h] + rest - k[h];
            if c < cost {
                cost = c;
                let heavy = threshold(h);
                layers = Layers { heavy, grid: threshold(g).max(heavy) };
            }
        }
        layers
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

    /// SGSI §7's model: rows that one warp runs as fast as any layer stay on warps; a few hub
    /// rows among many light ones leave them, the longest for the grid; a chunk of many rows
    /// of one size, even a large one, is balanced on warps already.
    #[test]
    fn the_histogram_model_sends_only_outliers_off_the_warps() {
        let sms = 132;
        let mut bins = vec![0u32; 4096];
        bins[1] = 1_000_000;
        bins[3] = 200_000;
        let light = Layers::from_histogram(&bins, sms);
        assert!(light.heavy >= 4 * 32 - 1, "{light:?}");
        bins[500] = 40;
        bins[4000] = 3;
        let hubs = Layers::from_histogram(&bins, sms);
        assert!(hubs.heavy < 500 * 32 && hubs.heavy >= 4 * 32 - 1, "{hubs:?}");
        assert!(hubs.grid < 4000 * 32, "{hubs:?}");
        let mut only = vec![0u32; 64];
        only[40] = 100_000;
        let even = Layers::from_histogram(&only, sms);
        assert!(even.heavy >= 41 * 32 - 1, "{even:?}");
        assert_eq!(Layers::from_histogram(&[0; 8], sms).heavy, 32);
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
}
