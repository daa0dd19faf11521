//! FPSGD on every core (thesis §3.1, the CPU side of HSGD*): the factors renumbered into the
//! grid's ids and cut into the grid's row and column segments, each behind a lock that the
//! scheduler's rule leaves uncontended; each thread takes a free block, runs the SIMD update
//! loop over it and gives it back, until the epoch has handed out as many blocks as the grid
//! has.

use crate::blocks::{segments, work_blocks, Grid};
use crate::cpu::schedule::Scheduler;
use crate::error::Result;
use crate::model::{Model, Params, Step};
use crate::ratings::Ratings;
use crate::train::{Engine, Epoch};

/// A CPU training run: the grid, the factors in its ids, the scheduler and its threads.
pub struct Fpsgd {
    grid: Grid,
    model: Model,
    scheduler: Scheduler,
    threads: usize,
    /// The adaptive rule's accumulators of P's and Q's rows (empty under plain SGD).
    pg: Vec<f32>,
    qg: Vec<f32>,
}

impl Fpsgd {
    /// Blocks per side for `threads` threads: LIBMF's default, max(20, 2·threads + 1).
    pub fn default_bins(threads: usize) -> usize {
        (2 * threads + 1).max(20)
    }

    /// A run over `ratings` from LIBMF's start, on `threads` threads (at least 1), the grid
    /// `bins` × `bins` (at least `threads + 1`; [`Fpsgd::default_bins`] when None).
    pub fn new(ratings: &Ratings, params: &Params, threads: usize, bins: Option<usize>) -> Fpsgd {
        let threads = threads.max(1);
        let bins = bins.unwrap_or_else(|| Fpsgd::default_bins(threads)).max(threads + 1);
        let grid = Grid::new(ratings, bins, bins, params.seed);
        let model = grid.permute(&Model::start(ratings, params));
        let scheduler = Scheduler::new(grid.rows(), grid.cols(), params.seed);
        let (pg, qg) = accumulators(params, ratings.users, ratings.items);
        Fpsgd { grid, model, scheduler, threads, pg, qg }
    }

    /// One epoch at `step`: Σ e² over the updates (LIBMF's training loss), and the updates.
    pub fn run_epoch(&mut self, step: Step) -> Epoch {
        let k = self.model.rank;
        let rows = segments(&mut self.model.p, &mut self.pg, &self.grid.users, k);
        let cols = segments(&mut self.model.q, &mut self.qg, &self.grid.items, k);
        let (grid, scheduler) = (&self.grid, &self.scheduler);
        scheduler.start_epoch();
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..self.threads)
                .map(|_| {
                    scope.spawn(|| {
                        let (take, done) = (|| scheduler.take(), |i, j| scheduler.give_back(i, j));
                        work_blocks(take, done, &rows, &cols, |i, j| grid.block(i, j), k, step)
                    })
                })
                .collect();
            let mut done = Epoch::default();
            for w in workers {
                let tally = w.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                done.loss += tally.loss;
                done.updates += tally.updates;
            }
            done.cpu_updates = done.updates;
            done
        })
    }

    /// The factors, in the ratings' ids.
    pub fn model(&self) -> Model {
        self.grid.unpermute(&self.model)
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }
}

impl Engine for Fpsgd {
    fn epoch(&mut self, step: Step) -> Result<Epoch> {
        Ok(self.run_epoch(step))
    }

    fn model(&mut self) -> Result<Model> {
        Ok(Fpsgd::model(self))
    }
}

/// The adaptive rule's accumulators of `users` and `items` rows, all 1 (LIBMF's start), or
/// none under plain SGD.
pub fn accumulators(params: &Params, users: usize, items: usize) -> (Vec<f32>, Vec<f32>) {
    if params.adaptive {
        (vec![1.0; users], vec![1.0; items])
    } else {
        (Vec::new(), Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reference_epoch;
    use crate::ratings::Rating;

    fn planted(users: u32, items: u32, n: usize) -> Ratings {
        let entries = (0..n as u32)
            .map(|i| {
                let (u, v) = ((i * 7919) % users, (i * 104_729 + i / users) % items);
                Rating { u, v, r: 1.0 + ((u % 5) as f32 * 0.5 + (v % 3) as f32 * 0.7) }
            })
            .collect();
        Ratings::new(users as usize, items as usize, entries).unwrap()
    }

    #[test]
    fn one_thread_on_one_block_equals_the_reference_loop_in_the_blocks_order() {
        let ratings = planted(37, 23, 400);
        let params = Params { rank: 24, ..Params::default() };
        let step = Step::of(&params, 0);
        let mut run = Fpsgd::new(&ratings, &params, 1, Some(1));
        assert_eq!((run.grid().rows(), run.grid().cols()), (2, 2), "at least threads + 1 bins");
        let mut one = Fpsgd { grid: Grid::new(&ratings, 1, 1, params.seed), ..run };
        one.model = one.grid.permute(&Model::start(&ratings, &params));
        one.scheduler = Scheduler::new(1, 1, 1);
        let mut want = one.model.clone();
        for _ in 0..3 {
            reference_epoch(&mut want, one.grid.block(0, 0), step);
            one.run_epoch(step);
        }
        for (x, y) in want.p.iter().chain(&want.q).zip(one.model.p.iter().chain(&one.model.q)) {
            assert!((x - y).abs() <= 1e-5 * x.abs().max(1.0), "{x} vs {y}");
        }
        run = Fpsgd::new(&ratings, &params, 1, Some(1));
        assert_eq!(run.model().p, Model::start(&ratings, &params).p);
    }

    #[test]
    fn threads_lower_the_error_as_one_thread_does() {
        let ratings = planted(500, 300, 20_000);
        let params = Params { rank: 16, lr: 0.02, ..Params::default() };
        let start = Model::start(&ratings, &params).rmse(&ratings.entries);
        for threads in [1, 4] {
            let mut run = Fpsgd::new(&ratings, &params, threads, None);
            for e in 0..10 {
                run.run_epoch(Step::of(&params, e));
            }
            let end = run.model().rmse(&ratings.entries);
            assert!(end < 0.5 * start, "{threads} threads: {start} → {end}");
        }
    }
}
