//! The grid of FPSGD (thesis §3.1; Zhuang et al., RecSys 2013): users and items renumbered by a
//! random permutation (so blocks hold about as many ratings each, and a block's rows and columns
//! are contiguous ranges of the factors), cut into `rows` × `cols` blocks; blocks sharing no
//! row and no column can be updated at once. Within a block, ratings are sorted by user (or by
//! item when items outnumber users), as LIBMF sorts them, so the larger factor matrix is read in
//! order.

use std::sync::Mutex;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::model::{Model, Step};
use crate::ratings::{Rating, Ratings};
use crate::simd;

/// A permutation of dense ids and the even cut of the permuted range into `parts` segments.
#[derive(Debug, Clone, PartialEq)]
pub struct Cut {
    /// The new id of each old id.
    pub new: Vec<u32>,
    /// `parts + 1` boundaries in new ids: segment s is `starts[s]..starts[s + 1]`.
    pub starts: Vec<usize>,
}

impl Cut {
    fn random(n: usize, parts: usize, rng: &mut Xoshiro256PlusPlus) -> Cut {
        let mut new: Vec<u32> = (0..n as u32).collect();
        new.shuffle(rng);
        Cut { new, starts: (0..=parts).map(|s| s * n / parts).collect() }
    }

    pub fn parts(&self) -> usize {
        self.starts.len() - 1
    }

    /// The segment of new id `id`.
    fn segment(&self, id: u32) -> usize {
        self.starts.partition_point(|&s| s <= id as usize) - 1
    }

    pub fn range(&self, s: usize) -> std::ops::Range<usize> {
        self.starts[s]..self.starts[s + 1]
    }
}

/// The ratings cut into blocks, ids renumbered ([`Cut::new`]) and local to their block's first
/// row and column.
#[derive(Debug, Clone)]
pub struct Grid {
    pub users: Cut,
    pub items: Cut,
    /// Row-major: block (i, j) is `blocks[i * cols + j]`.
    pub blocks: Vec<Vec<Rating>>,
}

impl Grid {
    /// `ratings` cut into `rows` × `cols` blocks under permutations drawn from `seed`.
    pub fn new(ratings: &Ratings, rows: usize, cols: usize, seed: u64) -> Grid {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
        let users = Cut::random(ratings.users, rows.clamp(1, ratings.users.max(1)), &mut rng);
        let items = Cut::random(ratings.items, cols.clamp(1, ratings.items.max(1)), &mut rng);
        Grid::with_cuts(ratings, users, items)
    }

    /// `ratings` cut along the given permutations and segments.
    pub fn with_cuts(ratings: &Ratings, users: Cut, items: Cut) -> Grid {
        let (rows, cols) = (users.parts(), items.parts());
        let row_of: Vec<u16> = (0..ratings.users).map(|u| users.segment(users.new[u]) as u16).collect();
        let col_of: Vec<u16> = (0..ratings.items).map(|v| items.segment(items.new[v]) as u16).collect();
        let mut counts = vec![0usize; rows * cols];
        for e in &ratings.entries {
            counts[row_of[e.u as usize] as usize * cols + col_of[e.v as usize] as usize] += 1;
        }
        let mut blocks: Vec<Vec<Rating>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
        for e in &ratings.entries {
            let (i, j) = (row_of[e.u as usize] as usize, col_of[e.v as usize] as usize);
            let u = users.new[e.u as usize] - users.starts[i] as u32;
            let v = items.new[e.v as usize] - items.starts[j] as u32;
            blocks[i * cols + j].push(Rating { u, v, r: e.r });
        }
        let by_user = ratings.users >= ratings.items;
        blocks.par_iter_mut().for_each(|b| {
            if by_user {
                b.sort_unstable_by_key(|e| (e.u, e.v));
            } else {
                b.sort_unstable_by_key(|e| (e.v, e.u));
            }
        });
        Grid { users, items, blocks }
    }

    pub fn rows(&self) -> usize {
        self.users.parts()
    }

    pub fn cols(&self) -> usize {
        self.items.parts()
    }

    pub fn block(&self, i: usize, j: usize) -> &[Rating] {
        &self.blocks[i * self.cols() + j]
    }

    /// `model` (in old ids) renumbered into this grid's ids.
    pub fn permute(&self, model: &Model) -> Model {
        let k = model.rank;
        let mut out = model.clone();
        for (old, &new) in self.users.new.iter().enumerate() {
            out.p[new as usize * k..(new as usize + 1) * k].copy_from_slice(&model.p[old * k..(old + 1) * k]);
        }
        for (old, &new) in self.items.new.iter().enumerate() {
            out.q[new as usize * k..(new as usize + 1) * k].copy_from_slice(&model.q[old * k..(old + 1) * k]);
        }
        out
    }

    /// `model` (in this grid's ids) back in old ids.
    pub fn unpermute(&self, model: &Model) -> Model {
        let k = model.rank;
        let mut out = model.clone();
        for (old, &new) in self.users.new.iter().enumerate() {
            out.p[old * k..(old + 1) * k].copy_from_slice(&model.p[new as usize * k..(new as usize + 1) * k]);
        }
        for (old, &new) in self.items.new.iter().enumerate() {
            out.q[old * k..(old + 1) * k].copy_from_slice(&model.q[new as usize * k..(new as usize + 1) * k]);
        }
        out
    }
}

/// A segment of a factor matrix's rows (in the grid's ids), and under the adaptive rule their
/// accumulators (empty otherwise).
pub struct Segment<'a> {
    pub rows: &'a mut [f32],
    pub g: &'a mut [f32],
}

impl Segment<'_> {
    /// The updates of `ratings` (local to the segments `self` and `q`), by the adaptive rule when
    /// the segments hold accumulators; Σ e².
    pub fn update(&mut self, q: &mut Segment<'_>, ratings: &[Rating], k: usize, step: Step) -> f64 {
        if self.g.is_empty() {
            simd::block(self.rows, q.rows, ratings, k, step)
        } else {
            simd::block_adaptive(self.rows, q.rows, self.g, q.g, ratings, k, step)
        }
    }
}

/// `data` (rows of `k` in the grid's ids) and `g` (one accumulator a row, or empty) cut along
/// `cut`'s segments, each behind its own lock: the scheduler gives a segment to one thread at a
/// time, so the locks are uncontended and make that exclusivity safe Rust.
pub fn segments<'a>(data: &'a mut [f32], g: &'a mut [f32], cut: &Cut, k: usize) -> Vec<Mutex<Segment<'a>>> {
    let (mut rest, mut rest_g) = (data, g);
    let adaptive = !rest_g.is_empty();
    let mut out = Vec::with_capacity(cut.parts());
    for s in 0..cut.parts() {
        let n = cut.range(s).len();
        let (rows, tail) = std::mem::take(&mut rest).split_at_mut(n * k);
        let (g, tail_g) = std::mem::take(&mut rest_g).split_at_mut(if adaptive { n } else { 0 });
        out.push(Mutex::new(Segment { rows, g }));
        rest = tail;
        rest_g = tail_g;
    }
    out
}

/// What one CPU worker's blocks came to: Σ e² (LIBMF's training loss), updates, and seconds
/// spent updating (waits for a free block excluded).
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub loss: f64,
    pub updates: u64,
    pub busy: f64,
}

/// One CPU worker's loop, whatever hands the blocks out: takes block (r, c) from `take` until
/// it gives none, updates `block(r, c)` under row segment r's and column segment c's locks, and
/// hands it back through `done`.
pub fn work_blocks<'r>(
    mut take: impl FnMut() -> Option<(usize, usize)>,
    mut done: impl FnMut(usize, usize),
    rows: &[Mutex<Segment<'_>>],
    cols: &[Mutex<Segment<'_>>],
    block: impl Fn(usize, usize) -> &'r [Rating],
    k: usize,
    step: Step,
) -> Tally {
    let mut tally = Tally::default();
    while let Some((r, c)) = take() {
        let t = std::time::Instant::now();
        let ratings = block(r, c);
        let mut p = rows[r].lock().unwrap_or_else(|e| e.into_inner());
        let mut q = cols[c].lock().unwrap_or_else(|e| e.into_inner());
        tally.loss += p.update(&mut q, ratings, k, step);
        tally.updates += ratings.len() as u64;
        drop((p, q));
        tally.busy += t.elapsed().as_secs_f64();
        done(r, c);
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rating_lands_once_in_the_block_of_its_row_and_column() {
        let entries: Vec<Rating> =
            (0..1000u32).map(|i| Rating { u: (i * 31) % 97, v: (i * 17) % 89, r: i as f32 }).collect();
        let ratings = Ratings::new(97, 89, entries.clone()).unwrap();
        let grid = Grid::new(&ratings, 5, 7, 3);
        assert_eq!(grid.blocks.iter().map(Vec::len).sum::<usize>(), 1000);
        let mut seen = Vec::new();
        for i in 0..5 {
            for j in 0..7 {
                for e in grid.block(i, j) {
                    assert!(e.u as usize + grid.users.starts[i] < grid.users.starts[i + 1]);
                    assert!(e.v as usize + grid.items.starts[j] < grid.items.starts[j + 1]);
                    seen.push((e.u as usize + grid.users.starts[i], e.v as usize + grid.items.starts[j], e.r));
                }
            }
        }
        let mut want: Vec<_> = entries
            .iter()
            .map(|e| (grid.users.new[e.u as usize] as usize, grid.items.new[e.v as usize] as usize, e.r))
            .collect();
        seen.sort_by(|a, b| a.partial_cmp(b).unwrap());
        want.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(seen, want);
        let m = Model::init(97, 89, 3, 0.0, 1);
        assert_eq!(grid.unpermute(&grid.permute(&m)), m);
    }
}
