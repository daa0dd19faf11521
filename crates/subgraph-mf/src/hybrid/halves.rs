//! HSGD* with wide GPU jobs (`--schedule halves`): the thesis' split of the ratings between
//! the devices (§3.2: the GPU takes a share α of the rows, its P resident, the CPU's threads run
//! FPSGD on the rest), with an epoch in two phases instead of per-column jobs. The items are cut
//! into two halves of equal rating mass; in phase A the GPU updates its rows over half 1 in one
//! kernel run while the CPU's threads update theirs over half 2, and in phase B the halves swap.
//! No two workers touch one row or column at once, every rating is updated once an epoch, and a
//! half of Q crosses the bus each way a phase.
//!
//! Why: on an H200 a GPU job of one column of the thesis' division (1/19 of the items) is too
//! small to fill the device and crowds its thousands of warps onto few rows of Q, so the GPU
//! ran at a quarter of its own speed inside HSGD* (bench/results/2026-11-29-mf.md); the
//! thesis names the same limit of small blocks (Problem 1). With equal halves both phases
//! balance at the same α = v_g / (v_g + v_c), so the epoch can reach the ideal combined speed.
//!
//! The split follows the measured speeds: the users are cut into many slabs of equal mass, the
//! GPU's rows are a prefix of slabs, and after each epoch the prefix moves to α from the
//! speeds just measured (moving a slab moves only its rows of P). Where one side alone would be
//! faster than both with the phases' fixed cost (measured), the other side gets nothing. Where
//! the gain predicted is small, one epoch of the GPU alone is timed, and the run keeps both
//! sides only while an epoch of both is faster than that ([`Follow`]): the GPU's speed inside
//! the phases is not its speed alone.

use std::ops::Range;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use subgraph_cuda::PinnedBuffer;

use crate::blocks::{segments, work_blocks, Cut, Grid};
use crate::error::Result;
use crate::gpu::{DeviceRatings, GpuSgd};
use crate::hybrid::division::{cut, even, masses};
use crate::model::{Model, Params, Step};
use crate::ratings::{Rating, Ratings};
use crate::train::{Engine, Epoch};

/// Slabs of users per CPU thread (and one more thread's worth): enough that α moves in steps
/// under 1% and that the CPU keeps more rows than threads down to a share of about 1/16.
const SLABS_PER_THREAD: usize = 16;

/// The ratings' layout: users cut into slabs, items into two halves of `per_half` columns (the
/// CPU's FPSGD needs more columns than threads); on the device, half 0's ratings slab by slab,
/// then half 1's, each slab's run shuffled.
#[derive(Debug, Clone)]
pub struct Layout {
    pub grid: Grid,
    pub per_half: usize,
    /// `offsets[h][s]..offsets[h][s + 1]`: slab s's ratings of half h on the device.
    pub offsets: [Vec<usize>; 2],
}

impl Layout {
    /// The layout of `ratings` for `threads` CPU threads; also the device array.
    pub fn new(ratings: &Ratings, threads: usize, seed: u64) -> (Layout, Vec<Rating>) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5851_f42d_4c95_7f2d);
        let (user_mass, item_mass) = masses(ratings);
        let slabs = (SLABS_PER_THREAD * (threads + 1)).clamp(1, ratings.users.max(1));
        let per_half = (threads + 1).clamp(1, (ratings.items / 2).max(1));
        let users = cut(&user_mass, &even(1.0, slabs, 0.0), &mut rng);
        let items = cut(&item_mass, &even(1.0, 2 * per_half, 0.0), &mut rng);
        let grid = Grid::with_cuts(ratings, users, items);
        let mut flat = Vec::with_capacity(ratings.len());
        let mut offsets = [Vec::with_capacity(slabs + 1), Vec::with_capacity(slabs + 1)];
        for (h, offsets) in offsets.iter_mut().enumerate() {
            for s in 0..slabs {
                offsets.push(flat.len());
                let start = flat.len();
                let u0 = grid.users.starts[s] as u32;
                for c in h * per_half..(h + 1) * per_half {
                    let v0 = grid.items.starts[c] as u32;
                    flat.extend(grid.block(s, c).iter().map(|e| Rating { u: e.u + u0, v: e.v + v0, r: e.r }));
                }
                flat[start..].shuffle(&mut rng);
            }
            offsets.push(flat.len());
        }
        (Layout { grid, per_half, offsets }, flat)
    }

    pub fn slabs(&self) -> usize {
        self.grid.rows()
    }

    /// Half h's columns.
    pub fn columns(&self, h: usize) -> Range<usize> {
        h * self.per_half..(h + 1) * self.per_half
    }

    /// Half h's items.
    pub fn items(&self, h: usize) -> Range<usize> {
        let c = self.columns(h);
        self.grid.items.starts[c.start]..self.grid.items.starts[c.end]
    }

    /// The ratings of slabs `0..g` (both halves).
    pub fn mass(&self, g: usize) -> usize {
        (0..2).map(|h| self.offsets[h][g] - self.offsets[h][0]).sum()
    }

    /// The prefix of slabs whose ratings come nearest a share `alpha` of all.
    pub fn slabs_for(&self, alpha: f64) -> usize {
        let want = alpha.clamp(0.0, 1.0) * self.mass(self.slabs()) as f64;
        (0..=self.slabs())
            .min_by(|&a, &b| (self.mass(a) as f64 - want).abs().total_cmp(&(self.mass(b) as f64 - want).abs()))
            .unwrap_or(0)
    }
}

/// What the last epochs measured: each side's speed in ratings a second (the CPU's threads
/// together), and the fixed cost of an epoch in two phases (transfers, waits), in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speeds {
    pub gpu: f64,
    pub cpu: f64,
    pub fixed: f64,
}

impl Speeds {
    /// The GPU's share for the next epoch of `n` ratings: the balance v_g / (v_g + v_c), or all
    /// to one side where that side alone is predicted faster than both with the fixed cost.
    pub fn share(&self, n: f64) -> f64 {
        let together = self.together(n);
        let (gpu_alone, cpu_alone) = (n / self.gpu, n / self.cpu);
        if gpu_alone <= together.min(cpu_alone) {
            1.0
        } else if cpu_alone <= together {
            0.0
        } else {
            self.balance()
        }
    }

    /// The GPU's share where both sides finish together, v_g / (v_g + v_c).
    pub fn balance(&self) -> f64 {
        self.gpu / (self.gpu + self.cpu)
    }

    /// Seconds of an epoch of `n` ratings on both sides at the balance, with the fixed cost.
    pub fn together(&self, n: f64) -> f64 {
        n / (self.gpu + self.cpu) + self.fixed
    }
}

/// Where the speeds predict less than this gain (both sides' epoch over the GPU's alone, the
/// GPU's speed taken from the phases), one epoch of the GPU alone is timed before the run
/// settles on both. On the H200 the GPU ran 11 % slower per rating inside the phases than
/// alone (the full Netflix shape at full occupancy, `bench/results/2026-11-29-mf-halves.md`).
const PROBE_BELOW: f64 = 0.9;

/// The GPU's share after each epoch, from what the epochs measured: the balance of the speeds,
/// checked against a timed epoch of the GPU alone where the gain is in doubt.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Follow {
    /// Seconds of the last epoch of the GPU alone.
    alone: Option<f64>,
    /// Seconds of the last epoch of both sides.
    both: Option<f64>,
    /// The share to return to after an epoch of the GPU alone, if both are faster.
    resume: Option<f64>,
}

impl Follow {
    /// The share after epoch `epoch` (from 1) of both sides, which took `wall` seconds at
    /// `speeds`, `n` ratings an epoch. The first epoch's speeds include first-touch costs:
    /// they set the balance, but only a later epoch may hand everything to one side.
    pub fn after_both(&mut self, epoch: u64, speeds: Speeds, n: f64, wall: f64) -> f64 {
        self.both = Some(wall);
        if epoch == 1 {
            return speeds.balance();
        }
        if self.alone.is_some_and(|alone| wall >= alone) {
            return 1.0;
        }
        let share = speeds.share(n);
        if share > 0.0 && share < 1.0 && self.alone.is_none() && speeds.together(n) > PROBE_BELOW * n / speeds.gpu {
            self.resume = Some(share);
            return 1.0;
        }
        share
    }

    /// The share after an epoch of the GPU alone that took `wall` seconds: back to both where
    /// this epoch was a probe and both were faster, else the GPU alone still.
    pub fn after_alone(&mut self, wall: f64) -> f64 {
        self.alone = Some(wall);
        match (self.resume.take(), self.both) {
            (Some(share), Some(both)) if both < wall => share,
            _ => 1.0,
        }
    }
}

/// A phase's blocks for the CPU's threads: each handed out once, none sharing a row or column
/// with a block held.
pub struct PhaseBoard {
    rows: usize,
    cols: usize,
    state: Mutex<PhaseState>,
    changed: Condvar,
}

struct PhaseState {
    done: Vec<bool>,
    left: usize,
    busy_row: Vec<bool>,
    busy_col: Vec<bool>,
    rng: Xoshiro256PlusPlus,
}

impl PhaseBoard {
    pub fn new(rows: usize, cols: usize, seed: u64) -> PhaseBoard {
        let state = PhaseState {
            done: vec![false; rows * cols],
            left: rows * cols,
            busy_row: vec![false; rows],
            busy_col: vec![false; cols],
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        };
        PhaseBoard { rows, cols, state: Mutex::new(state), changed: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, PhaseState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A block (row, column) not yet handed out whose row and column are free, now held; None
    /// once every block is handed out.
    pub fn take(&self) -> Option<(usize, usize)> {
        let n = self.rows * self.cols;
        let mut s = self.lock();
        loop {
            if s.left == 0 {
                return None;
            }
            let start = s.rng.random_range(0..n);
            let free = (0..n)
                .map(|i| (start + i) % n)
                .find(|&b| !s.done[b] && !s.busy_row[b / self.cols] && !s.busy_col[b % self.cols]);
            if let Some(b) = free {
                let (r, c) = (b / self.cols, b % self.cols);
                s.done[b] = true;
                s.left -= 1;
                s.busy_row[r] = true;
                s.busy_col[c] = true;
                return Some((r, c));
            }
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Gives back a block taken.
    pub fn give_back(&self, r: usize, c: usize) {
        let mut s = self.lock();
        s.busy_row[r] = false;
        s.busy_col[c] = false;
        self.changed.notify_all();
    }
}

/// A hybrid run in two phases an epoch, on one GPU.
pub struct Halves<'g> {
    layout: Layout,
    /// The factors in the grid's ids: P of slabs `gpu_slabs..` is current here (the GPU holds
    /// P of slabs `..gpu_slabs`); Q is in `q` (`model.q` is empty).
    model: Model,
    /// Q in page-locked memory, where `q_host` says it is current: the CPU's threads update it
    /// in place and the halves cross the bus at the link's speed (from pageable memory the
    /// driver stages every copy).
    q: PinnedBuffer<f32>,
    sgd: GpuSgd<'g>,
    ratings: DeviceRatings,
    threads: usize,
    gpu_slabs: usize,
    /// Whether the host's (and the device's) copy of each half of Q is current.
    q_host: [bool; 2],
    q_device: [bool; 2],
    /// A share fixed by the caller, or None to follow the measured speeds.
    fixed: Option<f64>,
    speeds: Option<Speeds>,
    follow: Follow,
    seed: u64,
    epoch: u64,
}

impl<'g> Halves<'g> {
    /// A run over `ratings` from LIBMF's start on `threads` threads and `sgd`'s GPU, the GPU's
    /// share `alpha` at first; `adapt`: move the share to the measured speeds after each epoch.
    pub fn new(
        ratings: &Ratings,
        params: &Params,
        alpha: f64,
        adapt: bool,
        threads: usize,
        mut sgd: GpuSgd<'g>,
    ) -> Result<Halves<'g>> {
        let threads = threads.max(1);
        let (layout, flat) = Layout::new(ratings, threads, params.seed);
        let mut model = layout.grid.permute(&Model::start(ratings, params));
        let gpu_slabs = layout.slabs_for(alpha);
        let k = model.rank;
        let on_gpu = layout.grid.users.starts[gpu_slabs];
        sgd.put_p(0..on_gpu, &model.p[..on_gpu * k])?;
        let mut q = sgd.gpu().pinned_buffer::<f32>(model.q.len())?;
        q.as_mut_slice()?.copy_from_slice(&model.q);
        model.q = Vec::new();
        sgd.put_q(0..model.items, q.as_slice()?)?;
        let ratings = sgd.load_ratings(&flat)?;
        Ok(Halves {
            layout,
            model,
            q,
            sgd,
            ratings,
            threads,
            gpu_slabs,
            q_host: [true; 2],
            q_device: [true; 2],
            fixed: (!adapt).then_some(alpha),
            speeds: None,
            follow: Follow::default(),
            seed: params.seed,
            epoch: 0,
        })
    }

    /// The GPU's share of the ratings now.
    pub fn share(&self) -> f64 {
        self.layout.mass(self.gpu_slabs) as f64 / self.ratings.len().max(1) as f64
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Moves the GPU's rows to the prefix of `g` slabs, P of the slabs that change side crossing.
    fn move_to(&mut self, g: usize) -> Result<()> {
        let (k, starts) = (self.model.rank, &self.layout.grid.users.starts);
        let (a, b) = (starts[g.min(self.gpu_slabs)], starts[g.max(self.gpu_slabs)]);
        if g > self.gpu_slabs {
            self.sgd.put_p(a..b, &self.model.p[a * k..b * k])?;
        } else if g < self.gpu_slabs {
            self.sgd.get_p(a..b, &mut self.model.p[a * k..b * k])?;
        }
        self.gpu_slabs = g;
        Ok(())
    }

    /// Half h of Q made current on the device (`device`) or on the host.
    fn q_current(&mut self, h: usize, device: bool) -> Result<()> {
        let (k, items) = (self.model.rank, self.layout.items(h));
        let rows = items.start * k..items.end * k;
        if device && !self.q_device[h] {
            self.sgd.put_q(items, &self.q.as_slice()?[rows])?;
            self.q_device[h] = true;
        } else if !device && !self.q_host[h] {
            self.sgd.get_q(items, &mut self.q.as_mut_slice()?[rows])?;
            self.q_host[h] = true;
        }
        Ok(())
    }
}

/// What a phase did: the CPU's loss, updates and wall seconds; the GPU's updates and seconds.
#[derive(Default)]
struct Phase {
    cpu_loss: f64,
    cpu_updates: u64,
    cpu_secs: f64,
    gpu_updates: u64,
    gpu_secs: f64,
}

impl Halves<'_> {
    /// Phase `gh`: the GPU's rows over half `gh`, the CPU's over the other half.
    fn phase(&mut self, gh: usize, step: Step) -> Result<Phase> {
        let ch = 1 - gh;
        let (g, slabs) = (self.gpu_slabs, self.layout.slabs());
        let (gpu_works, cpu_works) = (g > 0, g < slabs);
        if gpu_works {
            self.q_current(gh, true)?;
        }
        if cpu_works {
            self.q_current(ch, false)?;
        }
        let k = self.model.rank;
        let grid = &self.layout.grid;
        let cols = self.layout.columns(ch);
        let split_q = grid.items.starts[self.layout.per_half] * k;
        let (q0, q1) = self.q.as_mut_slice()?.split_at_mut(split_q);
        let (gpu_q, cpu_q) = if gh == 0 { (q0, q1) } else { (q1, q0) };
        let p_cpu = &mut self.model.p[grid.users.starts[g] * k..];
        let p_rows = segments(p_cpu, &mut [], &sub_cut(&grid.users, g..slabs), k);
        let q_cols = segments(cpu_q, &mut [], &sub_cut(&grid.items, cols.clone()), k);
        let board =
            PhaseBoard::new(slabs - g, cols.len(), self.seed ^ self.epoch.wrapping_mul(2).wrapping_add(gh as u64));
        let (sgd, ratings, offsets) = (&mut self.sgd, &self.ratings, &self.layout.offsets[gh]);
        let items = self.layout.items(gh);
        let mut phase = Phase::default();
        let started = Instant::now();
        let cpu: Vec<(f64, u64)> = std::thread::scope(|scope| -> Result<Vec<(f64, u64)>> {
            let workers: Vec<_> = (0..if cpu_works { self.threads } else { 0 })
                .map(|_| {
                    let (board, p_rows, q_cols, cols) = (&board, &p_rows, &q_cols, cols.clone());
                    scope.spawn(move || {
                        let (take, done) = (|| board.take(), |r, c| board.give_back(r, c));
                        let block = |r, c| grid.block(g + r, cols.start + c);
                        let tally = work_blocks(take, done, p_rows, q_cols, block, k, step);
                        (tally.loss, tally.updates, started.elapsed().as_secs_f64())
                    })
                })
                .collect();
            if gpu_works {
                let range = offsets[0]..offsets[g];
                phase.gpu_updates = range.len() as u64;
                sgd.run(ratings, range, step)?;
                sgd.wait_idle()?;
                phase.gpu_secs = started.elapsed().as_secs_f64();
                // The CPU takes this half next phase: it comes back while the CPU works on.
                if cpu_works {
                    sgd.get_q(items.clone(), gpu_q)?;
                }
            }
            let mut out = Vec::with_capacity(workers.len());
            for w in workers {
                let (loss, updates, secs) = w.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                phase.cpu_secs = phase.cpu_secs.max(secs);
                out.push((loss, updates));
            }
            Ok(out)
        })?;
        for (loss, updates) in cpu {
            phase.cpu_loss += loss;
            phase.cpu_updates += updates;
        }
        if gpu_works {
            self.q_host[gh] = cpu_works;
            self.q_device[gh] = true;
        }
        if cpu_works {
            self.q_device[ch] = false;
        }
        Ok(phase)
    }
}

impl Halves<'_> {
    /// An epoch with every row on the GPU: one run over both halves (the device array is both
    /// halves back to back), as the GPU alone trains.
    fn gpu_alone(&mut self, step: Step) -> Result<Epoch> {
        for h in 0..2 {
            self.q_current(h, true)?;
            self.q_host[h] = false;
        }
        let n = self.ratings.len();
        self.sgd.run(&self.ratings, 0..n, step)?;
        Ok(Epoch { loss: self.sgd.take_loss()?, updates: n as u64, cpu_updates: 0 })
    }
}

/// The segments `parts` of `cut`, as a cut of their own (for [`segments`] over a slice that
/// starts at the first of them).
fn sub_cut(cut: &Cut, parts: Range<usize>) -> Cut {
    let base = cut.starts[parts.start];
    Cut { new: Vec::new(), starts: cut.starts[parts.start..=parts.end].iter().map(|s| s - base).collect() }
}

impl Engine for Halves<'_> {
    fn epoch(&mut self, step: Step) -> Result<Epoch> {
        self.epoch += 1;
        let started = Instant::now();
        if self.gpu_slabs == self.layout.slabs() {
            let epoch = self.gpu_alone(step)?;
            if self.fixed.is_none() {
                let share = self.follow.after_alone(started.elapsed().as_secs_f64());
                self.move_to(self.layout.slabs_for(share))?;
            }
            return Ok(epoch);
        }
        let a = self.phase(0, step)?;
        let b = self.phase(1, step)?;
        let wall = started.elapsed().as_secs_f64();
        let gpu_loss = self.sgd.take_loss()?;
        let (gpu_updates, cpu_updates) = (a.gpu_updates + b.gpu_updates, a.cpu_updates + b.cpu_updates);
        let (gpu_secs, cpu_secs) = (a.gpu_secs + b.gpu_secs, a.cpu_secs + b.cpu_secs);
        let last = self.speeds;
        let gpu =
            if gpu_updates > 0 && gpu_secs > 0.0 { Some(gpu_updates as f64 / gpu_secs) } else { last.map(|s| s.gpu) };
        let cpu =
            if cpu_updates > 0 && cpu_secs > 0.0 { Some(cpu_updates as f64 / cpu_secs) } else { last.map(|s| s.cpu) };
        // The fixed cost is what both sides working beyond the slower phase's work cost; an
        // epoch on one side alone measures none.
        let fixed = if gpu_updates > 0 && cpu_updates > 0 {
            Some((wall - a.gpu_secs.max(a.cpu_secs) - b.gpu_secs.max(b.cpu_secs)).max(0.0))
        } else {
            last.map(|s| s.fixed)
        };
        if let (Some(gpu), Some(cpu), Some(fixed)) = (gpu, cpu, fixed) {
            self.speeds = Some(Speeds { gpu, cpu, fixed });
        }
        if let (None, Some(s)) = (self.fixed, self.speeds) {
            let share = self.follow.after_both(self.epoch, s, self.ratings.len() as f64, wall);
            self.move_to(self.layout.slabs_for(share))?;
        }
        Ok(Epoch { loss: a.cpu_loss + b.cpu_loss + gpu_loss, updates: gpu_updates + cpu_updates, cpu_updates })
    }

    fn model(&mut self) -> Result<Model> {
        let mut model = Model { q: self.q.as_slice()?.to_vec(), ..self.model.clone() };
        let k = model.rank;
        let on_gpu = self.layout.grid.users.starts[self.gpu_slabs];
        self.sgd.get_p(0..on_gpu, &mut model.p[..on_gpu * k])?;
        for h in 0..2 {
            if !self.q_host[h] {
                let items = self.layout.items(h);
                self.sgd.get_q(items.clone(), &mut model.q[items.start * k..items.end * k])?;
            }
        }
        Ok(self.layout.grid.unpermute(&model))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratings() -> Ratings {
        let entries = (0..60_000u32).map(|i| Rating { u: (i * 7919) % 3000, v: (i * 613) % 1000, r: 1.0 }).collect();
        Ratings::new(3000, 1000, entries).unwrap()
    }

    #[test]
    fn every_rating_lies_once_in_its_slab_and_half() {
        let r = ratings();
        let (layout, flat) = Layout::new(&r, 4, 7);
        assert_eq!((layout.slabs(), layout.per_half, layout.grid.cols()), (80, 5, 10));
        assert_eq!(flat.len(), 60_000);
        let users = &layout.grid.users;
        for h in 0..2 {
            for s in 0..layout.slabs() {
                for e in &flat[layout.offsets[h][s]..layout.offsets[h][s + 1]] {
                    assert!(users.range(s).contains(&(e.u as usize)), "user {} outside slab {s}", e.u);
                    assert!(layout.items(h).contains(&(e.v as usize)), "item {} outside half {h}", e.v);
                }
            }
        }
        let mut seen: Vec<(u32, u32)> = flat.iter().map(|e| (e.u, e.v)).collect();
        let mut want: Vec<(u32, u32)> =
            r.entries.iter().map(|e| (users.new[e.u as usize], layout.grid.items.new[e.v as usize])).collect();
        seen.sort_unstable();
        want.sort_unstable();
        assert_eq!(seen, want);
        // The halves hold about half the ratings each.
        let half0 = layout.offsets[0][80] - layout.offsets[0][0];
        assert!((half0 as f64 / 60_000.0 - 0.5).abs() < 0.02, "{half0}");
    }

    #[test]
    fn the_gpus_prefix_follows_the_share() {
        let (layout, _) = Layout::new(&ratings(), 4, 7);
        assert_eq!(layout.slabs_for(0.0), 0);
        assert_eq!(layout.slabs_for(1.0), 80);
        for alpha in [0.1, 0.37, 0.5, 0.93] {
            let g = layout.slabs_for(alpha);
            let share = layout.mass(g) as f64 / 60_000.0;
            assert!((share - alpha).abs() < 0.01, "{alpha}: {g} slabs hold {share}");
        }
    }

    #[test]
    fn the_share_balances_the_sides_unless_one_alone_is_faster() {
        let n = 1e6;
        // Speeds 3:1: balance at 0.75, an epoch of 0.25 ms plus the fixed cost.
        let s = Speeds { gpu: 3e9, cpu: 1e9, fixed: 0.0 };
        assert!((s.share(n) - 0.75).abs() < 1e-12);
        // With a fixed cost above what the CPU saves, the GPU alone.
        assert_eq!(Speeds { fixed: 1e-4, ..s }.share(n), 1.0);
        assert_eq!(Speeds { gpu: 1e9, cpu: 3e9, fixed: 1e-4 }.share(n), 0.0);
    }

    #[test]
    fn a_small_gain_is_checked_against_an_epoch_of_the_gpu_alone() {
        let n = 1e6;
        // Speeds 3:1: both take 0.75 of the GPU's time alone, no probe.
        let clear = Speeds { gpu: 3e9, cpu: 1e9, fixed: 0.0 };
        let mut f = Follow::default();
        assert_eq!(f.after_both(1, clear, n, 3e-4), 0.75);
        assert_eq!(f.after_both(2, clear, n, 2.5e-4), 0.75);
        // Speeds 19:1: both would take 0.95 of it, so one epoch of the GPU alone is timed.
        let small = Speeds { gpu: 19e9, cpu: 1e9, fixed: 0.0 };
        let mut f = Follow::default();
        assert_eq!(f.after_both(1, small, n, 6e-5), 0.95, "the first epoch only balances");
        assert_eq!(f.after_both(2, small, n, 5e-5), 1.0, "the probe");
        assert_eq!(f.after_alone(5.5e-5), 0.95, "both were faster: back to both");
        assert_eq!(f.after_both(4, small, n, 5e-5), 0.95, "no second probe");
        assert_eq!(f.after_both(5, small, n, 5.6e-5), 1.0, "both slower than the GPU alone");
        assert_eq!(f.after_alone(5.5e-5), 1.0, "and the GPU alone from then on");
        // The GPU alone faster than both at the probe: it stays alone.
        let mut f = Follow::default();
        f.after_both(1, small, n, 6e-5);
        assert_eq!(f.after_both(2, small, n, 5e-5), 1.0);
        assert_eq!(f.after_alone(4.5e-5), 1.0);
        assert_eq!(f.after_alone(4.5e-5), 1.0);
    }

    #[test]
    fn a_phase_hands_each_block_out_once_never_two_on_a_row_or_column() {
        let board = PhaseBoard::new(9, 7, 3);
        let held = Mutex::new((vec![false; 9], vec![false; 7], Vec::new()));
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    while let Some((r, c)) = board.take() {
                        {
                            let mut h = held.lock().unwrap();
                            assert!(!h.0[r] && !h.1[c], "({r}, {c}) shares a row or column");
                            (h.0[r], h.1[c]) = (true, true);
                            h.2.push(r * 7 + c);
                        }
                        std::thread::yield_now();
                        let mut h = held.lock().unwrap();
                        (h.0[r], h.1[c]) = (false, false);
                        drop(h);
                        board.give_back(r, c);
                    }
                });
            }
        });
        let mut blocks = held.into_inner().unwrap().2;
        blocks.sort_unstable();
        assert_eq!(blocks, (0..63).collect::<Vec<_>>());
    }
}
