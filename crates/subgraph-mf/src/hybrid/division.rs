//! HSGD*'s non-uniform division of the ratings (thesis §3.2), and HSGD's uniform one.
//!
//! HSGD*: users renumbered at random; the first users, holding a share α of the ratings, are
//! the GPUs' rows R_g, the rest the CPU's rows R_c. Columns: n_c + 2·n_g + 1 segments, so that
//! every GPU can know its next block and a free column always exists. R_c is cut into
//! n_c + n_g row segments; R_g into n_g rows, one per GPU, each cut into
//! S = ⌈(n_g + n_c) / n_g⌉ sub-rows. A GPU's static-phase block is its row over one column (its
//! S sub-blocks together, contiguous on the device); in the dynamic phase blocks are single
//! sub-blocks, so the CPU's threads can share a GPU's row.
//!
//! HSGD (the baseline): the GPU is one more FPSGD worker on a uniform grid of
//! (n_c + n_g + 1) × (n_c + n_g) blocks (the thesis' Rule 1).
//!
//! Every cut is by rating mass (segments hold about as many ratings each), not by id count.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::blocks::{Cut, Grid};
use crate::ratings::Ratings;

/// Who a row segment belongs to in the static phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// Sub-row of GPU g.
    Gpu(usize),
    Cpu,
}

/// How the ratings are divided between the devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// HSGD*: the cost model's split, the non-uniform division, GPU rows resident, stealing.
    HsgdStar,
    /// HSGD: a uniform grid, the GPU one more FPSGD worker.
    Hsgd,
    /// HSGD*'s split with wide GPU jobs: an epoch in two phases over halves of the items, the
    /// split following the measured speeds (`hybrid::halves`; one GPU).
    Halves,
    /// Halves on one GPU, HSGD* on several.
    Auto,
}

/// The division: the grid (rows: the GPUs' sub-rows first, then the CPU's rows), each row's
/// home, and the sub-rows of a GPU's row.
#[derive(Debug, Clone)]
pub struct Division {
    pub grid: Grid,
    pub home: Vec<Home>,
    /// S, sub-rows per GPU row (0 under HSGD).
    pub sub_rows: usize,
    pub gpus: usize,
}

impl Division {
    /// The division of `ratings` for `cpu_threads` threads and `gpus` GPUs, the GPUs' share
    /// `alpha` (HSGD* only).
    pub fn new(
        ratings: &Ratings,
        schedule: Schedule,
        alpha: f64,
        cpu_threads: usize,
        gpus: usize,
        seed: u64,
    ) -> Division {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5851_f42d_4c95_7f2d);
        let (nc, ng) = (cpu_threads, gpus);
        let (user_mass, item_mass) = masses(ratings);
        // HSGD's uniform grid, or HSGD*'s division (the hybrid runs of every other schedule).
        let (users, items, home, sub_rows) = if schedule == Schedule::Hsgd {
            let rows = nc + ng + 1;
            let users = cut(&user_mass, &even(1.0, rows, 0.0), &mut rng);
            let items = cut(&item_mass, &even(1.0, (nc + ng).max(1), 0.0), &mut rng);
            (users, items, vec![Home::Cpu; rows], 0)
        } else {
            let alpha = if ng == 0 {
                0.0
            } else if nc == 0 {
                1.0
            } else {
                alpha.clamp(0.0, 1.0)
            };
            let s = if ng == 0 { 0 } else { (ng + nc).div_ceil(ng) };
            let cpu_rows = if nc == 0 { 0 } else { nc + ng };
            let mut bounds = even(alpha, ng * s, 0.0);
            bounds.extend(even(1.0 - alpha, cpu_rows, alpha));
            let users = cut(&user_mass, &bounds, &mut rng);
            let items = cut(&item_mass, &even(1.0, nc + 2 * ng + 1, 0.0), &mut rng);
            let mut home: Vec<Home> = (0..ng * s).map(|r| Home::Gpu(r / s)).collect();
            home.extend(std::iter::repeat_n(Home::Cpu, cpu_rows));
            (users, items, home, s)
        };
        Division { grid: Grid::with_cuts(ratings, users, items), home, sub_rows, gpus: ng }
    }

    /// The rows of GPU `g` (its sub-rows), under HSGD*.
    pub fn gpu_rows(&self, g: usize) -> std::ops::Range<usize> {
        g * self.sub_rows..(g + 1) * self.sub_rows
    }
}

/// The ratings of each user and of each item.
pub(crate) fn masses(ratings: &Ratings) -> (Vec<u64>, Vec<u64>) {
    let (mut users, mut items) = (vec![0u64; ratings.users], vec![0u64; ratings.items]);
    for e in &ratings.entries {
        users[e.u as usize] += 1;
        items[e.v as usize] += 1;
    }
    (users, items)
}

/// `parts` boundaries splitting a share `width` of the mass evenly, starting at `from`.
pub(crate) fn even(width: f64, parts: usize, from: f64) -> Vec<f64> {
    (1..=parts).map(|i| from + width * i as f64 / parts as f64).collect()
}

/// A random renumbering of ids with `mass`, cut where the cumulative mass crosses each of
/// `bounds` (fractions of the total, rising; the last is 1).
pub(crate) fn cut(mass: &[u64], bounds: &[f64], rng: &mut Xoshiro256PlusPlus) -> Cut {
    let mut order: Vec<u32> = (0..mass.len() as u32).collect();
    order.shuffle(rng);
    let mut new = vec![0u32; mass.len()];
    for (n, &old) in order.iter().enumerate() {
        new[old as usize] = n as u32;
    }
    let total: u64 = mass.iter().sum();
    let mut starts = vec![0usize];
    let (mut acc, mut at) = (0u64, 0usize);
    for (i, &b) in bounds.iter().enumerate() {
        let target = if i + 1 == bounds.len() { total } else { (b * total as f64).round() as u64 };
        while at < order.len() && acc < target {
            acc += mass[order[at] as usize];
            at += 1;
        }
        if i + 1 == bounds.len() {
            at = order.len();
        }
        starts.push(at);
    }
    Cut { new, starts }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ratings::Rating;

    fn ratings() -> Ratings {
        let entries = (0..50_000u32).map(|i| Rating { u: (i * 7919) % 3000, v: (i * 613) % 1000, r: 1.0 }).collect();
        Ratings::new(3000, 1000, entries).unwrap()
    }

    #[test]
    fn hsgd_star_divides_as_the_thesis_says() {
        let r = ratings();
        // n_c = 4, n_g = 2: 9 columns, R_c in 6 rows, each GPU row in 3 sub-rows.
        let d = Division::new(&r, Schedule::HsgdStar, 0.6, 4, 2, 1);
        assert_eq!((d.grid.rows(), d.grid.cols(), d.sub_rows), (12, 9, 3));
        assert_eq!(d.home[..6], [Home::Gpu(0), Home::Gpu(0), Home::Gpu(0), Home::Gpu(1), Home::Gpu(1), Home::Gpu(1)]);
        let mass = |rows: std::ops::Range<usize>| -> usize {
            rows.map(|i| (0..9).map(|j| d.grid.block(i, j).len()).sum::<usize>()).sum()
        };
        let gpu = mass(0..6) as f64 / 50_000.0;
        assert!((gpu - 0.6).abs() < 0.01, "GPU share {gpu}");
        let per_cpu_row = mass(6..7) as f64 / 50_000.0;
        assert!((per_cpu_row - 0.4 / 6.0).abs() < 0.01, "{per_cpu_row}");
        assert_eq!(d.grid.blocks.iter().map(Vec::len).sum::<usize>(), 50_000);
    }

    #[test]
    fn hsgd_is_uniform_and_the_extremes_leave_one_side_empty() {
        let r = ratings();
        let d = Division::new(&r, Schedule::Hsgd, 0.5, 4, 1, 1);
        assert_eq!((d.grid.rows(), d.grid.cols()), (6, 5));
        assert!(d.home.iter().all(|&h| h == Home::Cpu));
        let gpu_only = Division::new(&r, Schedule::HsgdStar, 0.3, 0, 1, 1);
        assert_eq!((gpu_only.grid.rows(), gpu_only.grid.cols()), (1, 3));
        assert_eq!(gpu_only.grid.blocks.iter().map(Vec::len).sum::<usize>(), 50_000);
    }
}
