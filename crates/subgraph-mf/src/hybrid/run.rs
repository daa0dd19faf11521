//! A hybrid training run (thesis §3.2): the CPU's threads update their blocks as FPSGD does,
//! while one driver thread per GPU takes jobs from the board, moves the factor rows and columns
//! the job needs (a row of P stays on its GPU between jobs and epochs until a CPU thread asks
//! for it; a column of Q goes up before and comes back after every job), and runs the kernel
//! over the job's ratings, which every GPU holds for the whole run, shuffled within each block.

use std::ops::Range;
use std::sync::Mutex;
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::blocks::{segments, work_blocks, Grid, Segment, Tally};
use crate::error::Result;
use crate::gpu::{DeviceRatings, GpuSgd};
use crate::hybrid::board::{Board, Job, Rates, Take};
use crate::hybrid::division::{Division, Home, Schedule};
use crate::model::{Model, Params, Step};
use crate::ratings::{Rating, Ratings};
use crate::train::{Engine, Epoch};

/// One GPU of the run: its engine and its copy of every block's ratings.
struct Side<'g> {
    sgd: GpuSgd<'g>,
    ratings: DeviceRatings,
}

/// A hybrid run: the division, the factors on the host (in the grid's ids), the GPUs.
pub struct Hybrid<'g> {
    division: Division,
    schedule: Schedule,
    stealing: bool,
    cpu_threads: usize,
    model: Model,
    /// Device range of each block (row-major), the same on every GPU.
    ranges: Vec<Range<usize>>,
    gpus: Vec<Side<'g>>,
    /// The GPU holding each row's P between epochs.
    device: Vec<Option<usize>>,
    /// The sides' speeds: the cost model's at first, then those measured in the last epoch.
    rates: Option<Rates>,
    seed: u64,
    epoch: u64,
}

impl<'g> Hybrid<'g> {
    /// A run over `ratings` from LIBMF's start, divided by `schedule` with the GPUs' share
    /// `alpha`, on `cpu_threads` threads and the given GPU engines (one or more).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ratings: &Ratings,
        params: &Params,
        schedule: Schedule,
        alpha: f64,
        stealing: bool,
        cpu_threads: usize,
        mut engines: Vec<GpuSgd<'g>>,
        rates: Option<Rates>,
    ) -> Result<Hybrid<'g>> {
        let division = Division::new(ratings, schedule, alpha, cpu_threads, engines.len(), params.seed);
        let model = division.grid.permute(&Model::start(ratings, params));
        let (order, ranges) = device_layout(&division);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(params.seed ^ 0x2545_f491_4f6c_dd1d);
        let grid = &division.grid;
        let mut flat = Vec::with_capacity(ratings.len());
        for &(r, c) in &order {
            let start = flat.len();
            let (u0, v0) = (grid.users.starts[r] as u32, grid.items.starts[c] as u32);
            flat.extend(grid.block(r, c).iter().map(|e| Rating { u: e.u + u0, v: e.v + v0, r: e.r }));
            flat[start..].shuffle(&mut rng);
        }
        let mut gpus = Vec::with_capacity(engines.len());
        for mut sgd in engines.drain(..) {
            sgd.put_p(0..model.users, &model.p)?;
            sgd.put_q(0..model.items, &model.q)?;
            let ratings = sgd.load_ratings(&flat)?;
            gpus.push(Side { sgd, ratings });
        }
        let device = vec![None; division.grid.rows()];
        Ok(Hybrid {
            division,
            schedule,
            stealing,
            cpu_threads,
            model,
            ranges,
            gpus,
            device,
            rates,
            seed: params.seed,
            epoch: 0,
        })
    }

    pub fn division(&self) -> &Division {
        &self.division
    }
}

/// The order of the blocks on the device, and each block's range there (row-major): a GPU's
/// sub-blocks of one column next to each other, so that a static job is one range.
fn device_layout(d: &Division) -> (Vec<(usize, usize)>, Vec<Range<usize>>) {
    let (rows, cols) = (d.grid.rows(), d.grid.cols());
    let mut order = Vec::with_capacity(rows * cols);
    for g in 0..d.gpus {
        for c in 0..cols {
            order.extend(d.home.iter().enumerate().filter(|(_, h)| **h == Home::Gpu(g)).map(|(r, _)| (r, c)));
        }
    }
    for r in (0..rows).filter(|&r| d.home[r] == Home::Cpu) {
        order.extend((0..cols).map(|c| (r, c)));
    }
    let mut ranges = vec![0..0; rows * cols];
    let mut at = 0;
    for &(r, c) in &order {
        let len = d.grid.block(r, c).len();
        ranges[r * cols + c] = at..at + len;
        at += len;
    }
    (order, ranges)
}

/// Ranges merged where one ends where the next begins.
fn merged(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges.into_iter().filter(|r| !r.is_empty()) {
        match out.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ => out.push(r),
        }
    }
    out
}

/// What every thread of an epoch shares.
struct Shared<'a, 'm> {
    board: &'a Board<'a>,
    p_rows: &'a [Mutex<Segment<'m>>],
    q_cols: &'a [Mutex<Segment<'m>>],
    /// Device range of each block.
    ranges: &'a [Range<usize>],
    grid: &'a Grid,
    step: Step,
}

impl Engine for Hybrid<'_> {
    fn epoch(&mut self, step: Step) -> Result<Epoch> {
        self.epoch += 1;
        let k = self.model.rank;
        let grid = &self.division.grid;
        let board = Board::new(
            &self.division,
            self.schedule,
            self.stealing,
            std::mem::take(&mut self.device),
            self.rates.clone(),
            self.cpu_threads,
            self.seed.wrapping_add(self.epoch),
        );
        let p_rows = segments(&mut self.model.p, &mut [], &grid.users, k);
        let q_cols = segments(&mut self.model.q, &mut [], &grid.items, k);
        let shared = Shared { board: &board, p_rows: &p_rows, q_cols: &q_cols, ranges: &self.ranges, grid, step };
        let shared = &shared;
        let board = &board;
        let (p_rows, q_cols) = (&p_rows, &q_cols);
        let (cpu, gpu): (Vec<Tally>, Vec<Result<Tally>>) = std::thread::scope(|scope| {
            let cpu: Vec<_> = (0..self.cpu_threads)
                .map(|_| {
                    scope.spawn(move || {
                        let (take, done) = (|| board.take_cpu(), |r, c| board.done_cpu(r, c));
                        work_blocks(take, done, p_rows, q_cols, |r, c| grid.block(r, c), k, step)
                    })
                })
                .collect();
            let gpu: Vec<_> = self
                .gpus
                .iter_mut()
                .enumerate()
                .map(|(g, side)| {
                    scope.spawn(move || {
                        let driven = drive(g, side, shared);
                        if driven.is_err() {
                            board.abort();
                        }
                        driven
                    })
                })
                .collect();
            let cpu = cpu.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect();
            let gpu = gpu.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect();
            (cpu, gpu)
        });
        self.device = board.device();
        let mut done = Epoch::default();
        let mut cpu_busy = 0f64;
        for tally in cpu {
            done.loss += tally.loss;
            done.updates += tally.updates;
            done.cpu_updates += tally.updates;
            cpu_busy += tally.busy;
        }
        let mut gpu_rates = Vec::with_capacity(gpu.len());
        for tally in gpu {
            let Tally { loss, updates, busy } = tally?;
            done.loss += loss;
            done.updates += updates;
            gpu_rates.push((updates, busy));
        }
        // Measured speeds replace the model's where the epoch measured them.
        let known = self.rates.clone();
        let cpu_thread = match (done.cpu_updates, known.as_ref()) {
            (n, _) if n > 0 && cpu_busy > 0.0 => Some(n as f64 / cpu_busy),
            (_, k) => k.map(|k| k.cpu_thread),
        };
        let gpu: Option<Vec<f64>> = gpu_rates
            .iter()
            .enumerate()
            .map(|(g, &(n, busy))| match known.as_ref() {
                _ if n > 0 && busy > 0.0 => Some(n as f64 / busy),
                Some(k) => Some(k.gpu[g]),
                None => None,
            })
            .collect();
        if let (Some(cpu_thread), Some(gpu)) = (cpu_thread, gpu) {
            self.rates = Some(Rates { cpu_thread, gpu });
        }
        Ok(done)
    }

    fn model(&mut self) -> Result<Model> {
        let mut model = self.model.clone();
        let k = model.rank;
        let users = &self.division.grid.users;
        for (r, at) in self.device.iter().enumerate() {
            if let Some(g) = at {
                let rows = users.range(r);
                self.gpus[*g].sgd.get_p(rows.clone(), &mut model.p[rows.start * k..rows.end * k])?;
            }
        }
        Ok(self.division.grid.unpermute(&model))
    }
}

/// GPU `g`'s driver: jobs from the board until its epoch ends.
fn drive(g: usize, side: &mut Side<'_>, sh: &Shared<'_, '_>) -> Result<Tally> {
    let (board, grid) = (sh.board, sh.grid);
    let cols = grid.cols();
    let (mut updates, mut busy) = (0u64, 0f64);
    loop {
        let job: Job = match board.take_gpu(g) {
            Take::Finished => break,
            Take::WriteBack => {
                let back = board.wanted_of(g);
                write_back(side, &back, sh)?;
                board.release(g, None, &back);
                continue;
            }
            Take::Job(job) => job,
        };
        let t = Instant::now();
        for &r in &job.upload {
            let p = sh.p_rows[r].lock().unwrap_or_else(|e| e.into_inner());
            side.sgd.put_p(grid.users.range(r), p.rows)?;
        }
        let c = job.col;
        {
            let q = sh.q_cols[c].lock().unwrap_or_else(|e| e.into_inner());
            side.sgd.put_q(grid.items.range(c), q.rows)?;
        }
        for range in merged(job.rows.iter().map(|&r| sh.ranges[r * cols + c].clone()).collect()) {
            updates += range.len() as u64;
            side.sgd.run(&side.ratings, range, sh.step)?;
        }
        {
            let mut q = sh.q_cols[c].lock().unwrap_or_else(|e| e.into_inner());
            side.sgd.get_q(grid.items.range(c), q.rows)?;
        }
        let back = board.done_gpu(g, &job);
        write_back(side, &back, sh)?;
        board.release(g, Some(&job), &back);
        busy += t.elapsed().as_secs_f64();
    }
    let loss = side.sgd.take_loss()?;
    Ok(Tally { loss, updates, busy })
}

/// Rows `rows` of P copied from the GPU into the host's segments.
fn write_back(side: &mut Side<'_>, rows: &[usize], sh: &Shared<'_, '_>) -> Result<()> {
    for &r in rows {
        let mut p = sh.p_rows[r].lock().unwrap_or_else(|e| e.into_inner());
        side.sgd.get_p(sh.grid.users.range(r), p.rows)?;
    }
    Ok(())
}
