//! Several GPUs alone (`--device gpu --gpus N`): FPSGD's rule (thesis §3.1; Zhuang et al.,
//! RecSys 2013) at the grain of devices. The users are cut into N slabs and the items into N
//! blocks of equal rating mass; GPU g keeps slab g's rows of P resident, and an epoch runs in N
//! phases: in phase p, GPU g updates its slab over item block (g + p) mod N in one kernel run
//! (CuMF_SGD's batch-Hogwild! within the block). No two GPUs touch one row or column at once and
//! every rating is updated once an epoch. After each phase each block of Q goes from the GPU
//! that updated it to the one that updates it next, device to device (over NVLink where the
//! GPUs reach each other), in the factors' own precision.
//!
//! Why: HSGD*'s division (`run`) hands each GPU one column of n_c + 2n_g + 1 at a time, which on
//! an H200 neither fills the device nor leaves its warps enough rows of Q: two GPUs alone ran
//! no faster than one and ended 1.4 % above the planted RMSE where one GPU ends within 1 %
//! (bench/results/2026-11-29-two-gpus.md). `halves` does the same for one GPU and the CPU.

use std::ops::Range;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::blocks::Grid;
use crate::error::{MfError, Result};
use crate::gpu::{DeviceRatings, GpuSgd};
use crate::hybrid::division::{cut, even, masses};
use crate::model::{Model, Params, Step};
use crate::ratings::{Rating, Ratings};
use crate::train::{Engine, Epoch};

/// The ratings' layout over `n` devices: users and items renumbered and cut into `n` slabs and
/// `n` blocks of equal mass, and where each block lies in its slab's run of ratings.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The cuts; its blocks are emptied once the runs are made (only the cuts are read after).
    pub grid: Grid,
    /// Block c of slab g is `offsets[g][c]..offsets[g][c + 1]` of slab g's run.
    pub offsets: Vec<Vec<usize>>,
}

impl Layout {
    /// The layout of `ratings` over `n` devices, and each slab's run: its ratings block by
    /// block in global (renumbered) ids, each block's run shuffled (for the device; the host
    /// keeps no copy).
    pub fn new(ratings: &Ratings, n: usize, seed: u64) -> (Layout, Vec<Vec<Rating>>) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7f4a_7c15_9e37_79b9);
        let (user_mass, item_mass) = masses(ratings);
        let n = n.clamp(1, ratings.users.min(ratings.items).max(1));
        let users = cut(&user_mass, &even(1.0, n, 0.0), &mut rng);
        let mut items = cut(&item_mass, &even(1.0, n, 0.0), &mut rng);
        // Blocks start on even items, so that a block of half-precision Q (two halves a word)
        // is whole words whatever the rank.
        for s in &mut items.starts[1..n] {
            *s -= *s % 2;
        }
        let mut grid = Grid::with_cuts(ratings, users, items);
        let blocks = std::mem::take(&mut grid.blocks);
        let (mut runs, mut offsets) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (s, row) in blocks.chunks(n).enumerate() {
            let u0 = grid.users.starts[s] as u32;
            let mut run = Vec::new();
            let mut at = Vec::with_capacity(n + 1);
            for (c, block) in row.iter().enumerate() {
                at.push(run.len());
                let start = run.len();
                let v0 = grid.items.starts[c] as u32;
                run.extend(block.iter().map(|e| Rating { u: e.u + u0, v: e.v + v0, r: e.r }));
                run[start..].shuffle(&mut rng);
            }
            at.push(run.len());
            runs.push(run);
            offsets.push(at);
        }
        (Layout { grid, offsets }, runs)
    }

    /// Devices (slabs, blocks).
    pub fn parts(&self) -> usize {
        self.offsets.len()
    }

    /// The block GPU g updates in phase p.
    pub fn block(&self, g: usize, phase: usize) -> usize {
        (g + phase) % self.parts()
    }

    /// Block c's items (renumbered ids).
    pub fn items(&self, c: usize) -> Range<usize> {
        self.grid.items.range(c)
    }
}

/// A run on several GPUs (see the module).
pub struct Rotation<'g> {
    sgds: Vec<GpuSgd<'g>>,
    layout: Layout,
    ratings: Vec<DeviceRatings>,
    /// The start, renumbered; its shape is the model's.
    start: Model,
}

impl<'g> Rotation<'g> {
    /// A run over `ratings` on the GPUs of `sgds` (one engine a GPU, two or more) from LIBMF's
    /// start (the same as the CPU's for the same seed).
    pub fn new(mut sgds: Vec<GpuSgd<'g>>, ratings: &Ratings, params: &Params) -> Result<Rotation<'g>> {
        if sgds.len() < 2 {
            return Err(MfError::Parameter(format!("{} GPU: the rotation runs on two or more", sgds.len())));
        }
        let (layout, runs) = Layout::new(ratings, sgds.len(), params.seed);
        // With fewer users or items than GPUs, the GPUs past the cut's parts stay idle.
        sgds.truncate(layout.parts());
        let start = layout.grid.permute(&Model::start(ratings, params));
        let k = start.rank;
        let mut loaded = Vec::with_capacity(sgds.len());
        for (g, sgd) in sgds.iter_mut().enumerate() {
            let rows = layout.grid.users.range(g);
            sgd.put_p(rows.clone(), &start.p[rows.start * k..rows.end * k])?;
            let items = layout.items(layout.block(g, 0));
            sgd.put_q(items.clone(), &start.q[items.start * k..items.end * k])?;
            loaded.push(sgd.load_ratings(&runs[g])?);
        }
        // Direct copies between the GPUs that pass blocks on, where the devices allow them.
        for g in 0..sgds.len() {
            for h in 0..sgds.len() {
                sgds[g].gpu().enable_peer_access(sgds[h].gpu())?;
            }
        }
        Ok(Rotation { sgds, layout, ratings: loaded, start })
    }
}

impl Engine for Rotation<'_> {
    fn epoch(&mut self, step: Step) -> Result<Epoch> {
        let n = self.sgds.len();
        for phase in 0..n {
            for (g, sgd) in self.sgds.iter_mut().enumerate() {
                let c = self.layout.block(g, phase);
                sgd.run(&self.ratings[g], self.layout.offsets[g][c]..self.layout.offsets[g][c + 1], step)?;
            }
            // Each block on to the GPU whose next block it is: g - 1's, since block
            // (g + phase) mod n is block ((g - 1) + phase + 1) mod n.
            for g in 0..n {
                let items = self.layout.items(self.layout.block(g, phase));
                let (from, to) = pair(&mut self.sgds, g, (g + n - 1) % n);
                from.pass_q(items, to)?;
            }
        }
        let mut loss = 0.0;
        for sgd in &mut self.sgds {
            loss += sgd.take_loss()?;
        }
        let updates = self.ratings.iter().map(|r| r.len() as u64).sum();
        Ok(Epoch { loss, updates, cpu_updates: 0 })
    }

    fn model(&mut self) -> Result<Model> {
        let mut model = self.start.clone();
        let k = model.rank;
        // Between epochs GPU g holds its rows of P and block g of Q as last updated.
        for (g, sgd) in self.sgds.iter_mut().enumerate() {
            let rows = self.layout.grid.users.range(g);
            sgd.get_p(rows.clone(), &mut model.p[rows.start * k..rows.end * k])?;
            let items = self.layout.items(self.layout.block(g, 0));
            sgd.get_q(items.clone(), &mut model.q[items.start * k..items.end * k])?;
        }
        Ok(self.layout.grid.unpermute(&model))
    }
}

/// Two distinct elements of `v`, mutably.
fn pair<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "a block passes between two GPUs");
    if a < b {
        let (lo, hi) = v.split_at_mut(b);
        (&mut lo[a], &mut hi[0])
    } else {
        let (lo, hi) = v.split_at_mut(a);
        (&mut hi[0], &mut lo[b])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratings() -> Ratings {
        let mut entries = Vec::new();
        for u in 0..40u32 {
            for v in 0..30u32 {
                if (u * 7 + v * 3) % 5 != 0 {
                    entries.push(Rating { u, v, r: ((u + v) % 5) as f32 + 1.0 });
                }
            }
        }
        Ratings::new(40, 30, entries).unwrap()
    }

    #[test]
    fn every_rating_lies_once_in_its_slab_and_block() {
        let r = ratings();
        for n in [2, 3, 4] {
            let (layout, runs) = Layout::new(&r, n, 1);
            assert_eq!((layout.parts(), runs.len()), (n, n));
            let mut seen: Vec<(u32, u32)> = Vec::new();
            for g in 0..n {
                let users = layout.grid.users.range(g);
                for c in 0..n {
                    let items = layout.items(c);
                    for e in &runs[g][layout.offsets[g][c]..layout.offsets[g][c + 1]] {
                        assert!(users.contains(&(e.u as usize)) && items.contains(&(e.v as usize)));
                        seen.push((e.u, e.v));
                    }
                }
            }
            // Back in the original ids, exactly the ratings given.
            let mut old_user = vec![0u32; r.users];
            layout.grid.users.new.iter().enumerate().for_each(|(old, &new)| old_user[new as usize] = old as u32);
            let mut old_item = vec![0u32; r.items];
            layout.grid.items.new.iter().enumerate().for_each(|(old, &new)| old_item[new as usize] = old as u32);
            let mut got: Vec<(u32, u32)> =
                seen.iter().map(|&(u, v)| (old_user[u as usize], old_item[v as usize])).collect();
            let mut want: Vec<(u32, u32)> = r.entries.iter().map(|e| (e.u, e.v)).collect();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "{n} parts");
        }
    }

    #[test]
    fn blocks_start_on_even_items() {
        for n in [2, 3, 5] {
            let (layout, _) = Layout::new(&ratings(), n, 7);
            assert!((0..n).all(|c| layout.items(c).start.is_multiple_of(2)), "{n} parts");
            assert_eq!(layout.items(n - 1).end, 30);
        }
    }

    #[test]
    fn each_phase_gives_every_gpu_its_own_block_and_every_block_is_visited_once() {
        let (layout, _) = Layout::new(&ratings(), 3, 1);
        for phase in 0..3 {
            let mut blocks: Vec<usize> = (0..3).map(|g| layout.block(g, phase)).collect();
            blocks.sort_unstable();
            assert_eq!(blocks, [0, 1, 2]);
        }
        for g in 0..3 {
            let mut blocks: Vec<usize> = (0..3).map(|p| layout.block(g, p)).collect();
            blocks.sort_unstable();
            assert_eq!(blocks, [0, 1, 2]);
            // The block g updates next is the one g + 1 updates now.
            for p in 0..3 {
                assert_eq!(layout.block(g, p + 1), layout.block((g + 1) % 3, p));
            }
        }
    }
}
