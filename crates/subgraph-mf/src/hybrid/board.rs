//! The shared board of a hybrid epoch (thesis §3.2): which blocks are done, which rows and
//! columns are held, which rows of P live on which GPU, and the phase. CPU threads and GPU
//! drivers take jobs from it under one lock; a job's rows and column are theirs alone until
//! they give it back.
//!
//! HSGD*: in the static phase a GPU takes its row over a free column (all its sub-blocks
//! there), and the CPU's threads take their own blocks. When either side runs out of its own
//! blocks the dynamic phase begins (if stealing is on): the GPUs take single sub-blocks of their
//! rows, or the CPU's blocks; the CPU's threads take the GPUs' sub-blocks whose rows are on the
//! host, and ask the GPUs to write back the rows they would take. HSGD: every block is the
//! CPU's, and a GPU takes blocks as one more worker.

use std::sync::{Condvar, Mutex, MutexGuard};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::hybrid::division::{Division, Home, Schedule};

/// A GPU's job: blocks (row, column) of one column, and the rows to upload first.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub col: usize,
    pub rows: Vec<usize>,
    /// Rows of `rows` whose P is on the host.
    pub upload: Vec<usize>,
}

/// How fast each side updates, in ratings a second: one CPU thread, and each GPU (its jobs'
/// transfers included). A side steals a block only if it would finish it before the other side
/// finishes what it has left anyway, so that a slow side never makes the epoch wait on a block
/// it took from a fast one.
#[derive(Debug, Clone, PartialEq)]
pub struct Rates {
    pub cpu_thread: f64,
    pub gpu: Vec<f64>,
}

/// What a GPU driver is to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Take {
    Job(Job),
    /// Write back the rows [`Board::wanted_of`] names, then ask again.
    WriteBack,
    /// Nothing more in this epoch.
    Finished,
}

pub struct Board<'d> {
    division: &'d Division,
    schedule: Schedule,
    stealing: bool,
    /// None: steal whenever a side runs out (the thesis' rule, before any rate is known).
    rates: Option<Rates>,
    cpu_threads: usize,
    state: Mutex<State>,
    changed: Condvar,
}

struct State {
    done: Vec<bool>,
    left: usize,
    left_cpu: usize,
    left_gpu: Vec<usize>,
    /// Ratings of the blocks not done, by home.
    ratings_cpu: u64,
    ratings_gpu: Vec<u64>,
    busy_row: Vec<bool>,
    busy_col: Vec<bool>,
    /// The GPU holding each row's P, if one does.
    device: Vec<Option<usize>>,
    /// Rows a CPU thread asked for: written back by their GPU, and the CPU's for the rest of
    /// the epoch (so that no row goes back and forth).
    wanted: Vec<bool>,
    dynamic: bool,
    aborted: bool,
    rng: Xoshiro256PlusPlus,
}

impl<'d> Board<'d> {
    /// An epoch's board; `device` is where each row's P is at its start; `rates` the sides'
    /// speeds, when known, for `cpu_threads` threads.
    pub fn new(
        division: &'d Division,
        schedule: Schedule,
        stealing: bool,
        device: Vec<Option<usize>>,
        rates: Option<Rates>,
        cpu_threads: usize,
        seed: u64,
    ) -> Self {
        let (rows, cols) = (division.grid.rows(), division.grid.cols());
        let mut left_gpu = vec![0; division.gpus];
        let mut ratings_gpu = vec![0u64; division.gpus];
        let (mut left_cpu, mut ratings_cpu) = (0, 0u64);
        for (r, home) in division.home.iter().enumerate() {
            let mass: u64 = (0..cols).map(|c| division.grid.block(r, c).len() as u64).sum();
            match home {
                Home::Gpu(g) => {
                    left_gpu[*g] += cols;
                    ratings_gpu[*g] += mass;
                }
                Home::Cpu => {
                    left_cpu += cols;
                    ratings_cpu += mass;
                }
            }
        }
        let state = State {
            done: vec![false; rows * cols],
            left: rows * cols,
            left_cpu,
            left_gpu,
            ratings_cpu,
            ratings_gpu,
            busy_row: vec![false; rows],
            busy_col: vec![false; cols],
            device,
            wanted: vec![false; rows],
            dynamic: false,
            aborted: false,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        };
        Board { division, schedule, stealing, rates, cpu_threads, state: Mutex::new(state), changed: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, s: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed.wait(s).unwrap_or_else(|e| e.into_inner())
    }

    fn cols(&self) -> usize {
        self.division.grid.cols()
    }

    /// The first block (row, column) in a random rotation of `rows` × all columns that is not
    /// done, whose row and column are free and that passes `ok`.
    fn find(&self, s: &mut State, rows: &[usize], ok: impl Fn(&State, usize, usize) -> bool) -> Option<(usize, usize)> {
        let cols = self.cols();
        if rows.is_empty() {
            return None;
        }
        let n = rows.len() * cols;
        let start = s.rng.random_range(0..n);
        (0..n)
            .map(|i| (start + i) % n)
            .map(|i| (rows[i / cols], i % cols))
            .find(|&(r, c)| !s.done[r * cols + c] && !s.busy_row[r] && !s.busy_col[c] && ok(s, r, c))
    }

    fn size(&self, r: usize, c: usize) -> f64 {
        self.division.grid.block(r, c).len() as f64
    }

    /// Whether a CPU thread finishes block (`r`, `c`) of GPU `g`'s before `g` finishes its rest.
    fn cpu_may_take(&self, s: &State, r: usize, c: usize, g: usize) -> bool {
        self.rates.as_ref().is_none_or(|k| self.size(r, c) / k.cpu_thread < s.ratings_gpu[g] as f64 / k.gpu[g])
    }

    /// Whether one CPU thread finishes what is left of GPU row `r` before its GPU finishes the
    /// rest of its rows.
    fn cpu_may_cede(&self, s: &State, r: usize) -> bool {
        let Home::Gpu(g) = self.division.home[r] else { return false };
        let cols = self.cols();
        let left: f64 = (0..cols).filter(|&c| !s.done[r * cols + c]).map(|c| self.size(r, c)).sum();
        left > 0.0
            && self.rates.as_ref().is_none_or(|k| left / k.cpu_thread < (s.ratings_gpu[g] as f64 - left) / k.gpu[g])
    }

    /// Whether GPU `g` finishes the CPU's block (`r`, `c`) before the CPU's threads finish theirs.
    fn gpu_may_take(&self, s: &State, r: usize, c: usize, g: usize) -> bool {
        self.rates.as_ref().is_none_or(|k| {
            self.size(r, c) / k.gpu[g] < s.ratings_cpu as f64 / (k.cpu_thread * self.cpu_threads.max(1) as f64)
        })
    }

    fn rows_where(&self, f: impl Fn(Home) -> bool) -> Vec<usize> {
        (0..self.division.home.len()).filter(|&r| f(self.division.home[r])).collect()
    }

    /// A CPU thread's next block, its row and column now held; None when it has no more to do
    /// in this epoch.
    pub fn take_cpu(&self) -> Option<(usize, usize)> {
        let own = self.rows_where(|h| h == Home::Cpu);
        let theirs = self.rows_where(|h| h != Home::Cpu);
        let mut s = self.lock();
        loop {
            if s.aborted || s.left == 0 || (s.left_cpu == 0 && !(self.stealing && s.left > 0)) {
                return None;
            }
            if let Some((r, c)) = self.find(&mut s, &own, |s, r, _| s.device[r].is_none()) {
                return Some(self.hold(&mut s, r, c));
            }
            if s.left_cpu == 0 && self.stealing {
                s.dynamic = true;
            }
            if s.dynamic {
                let may = |s: &State, r: usize, c: usize| match self.division.home[r] {
                    Home::Gpu(g) => self.cpu_may_take(s, r, c, g),
                    Home::Cpu => true,
                };
                let ok = |s: &State, r: usize, c: usize| s.device[r].is_none() && (s.wanted[r] || may(s, r, c));
                if let Some((r, c)) = self.find(&mut s, &theirs, ok) {
                    return Some(self.hold(&mut s, r, c));
                }
                // Ask for the GPUs' rows worth taking: a GPU writes them back when it lets them
                // go and leaves them to the CPU for the rest of the epoch, where one thread at a
                // time works on a row, so the whole row must be done before its GPU finishes the
                // rest.
                let mut asked = false;
                for &r in &theirs {
                    if s.device[r].is_some() && !s.wanted[r] && self.cpu_may_cede(&s, r) {
                        s.wanted[r] = true;
                        asked = true;
                    }
                }
                if asked {
                    self.changed.notify_all();
                }
            }
            s = self.wait(s);
        }
    }

    fn hold(&self, s: &mut State, r: usize, c: usize) -> (usize, usize) {
        s.busy_row[r] = true;
        s.busy_col[c] = true;
        (r, c)
    }

    /// Gives back a CPU thread's block, done.
    pub fn done_cpu(&self, r: usize, c: usize) {
        let mut s = self.lock();
        self.complete(&mut s, r, c);
        s.busy_row[r] = false;
        s.busy_col[c] = false;
        self.changed.notify_all();
    }

    fn complete(&self, s: &mut State, r: usize, c: usize) {
        let cols = self.cols();
        debug_assert!(!s.done[r * cols + c]);
        s.done[r * cols + c] = true;
        s.left -= 1;
        let mass = self.division.grid.block(r, c).len() as u64;
        match self.division.home[r] {
            Home::Gpu(g) => {
                s.left_gpu[g] -= 1;
                s.ratings_gpu[g] -= mass;
            }
            Home::Cpu => {
                s.left_cpu -= 1;
                s.ratings_cpu -= mass;
            }
        }
    }

    /// GPU `g`'s next job, its rows and column now held, the rows to upload marked as on `g`;
    /// or rows to write back first; or the end of its epoch.
    pub fn take_gpu(&self, g: usize) -> Take {
        let own = self.rows_where(|h| h == Home::Gpu(g));
        let cpu = self.rows_where(|h| h == Home::Cpu);
        let cols = self.cols();
        let mut s = self.lock();
        loop {
            let stealing = self.stealing || self.schedule == Schedule::Hsgd;
            if s.aborted || s.left == 0 || (s.left_gpu[g] == 0 && !stealing) {
                return Take::Finished;
            }
            if self.schedule == Schedule::HsgdStar && s.left_gpu[g] == 0 && self.stealing {
                s.dynamic = true;
            }
            // Its rows over a free column: every sub-row not done there that no CPU thread holds
            // or asked for (all of them in the static phase).
            let mine = |s: &State, r: usize| s.device[r].is_none_or(|d| d == g);
            let start = s.rng.random_range(0..cols);
            let mut job = (0..cols).map(|i| (start + i) % cols).find_map(|c| {
                let rows: Vec<usize> = own
                    .iter()
                    .copied()
                    .filter(|&r| !s.done[r * cols + c] && !s.busy_row[r] && !s.wanted[r] && mine(&s, r))
                    .collect();
                let whole = s.dynamic || own.iter().all(|&r| s.done[r * cols + c] || !s.busy_row[r]);
                (!s.busy_col[c] && !rows.is_empty() && whole).then_some((c, rows))
            });
            let steal = self.schedule == Schedule::Hsgd || s.dynamic;
            if job.is_none() && steal {
                let ok = |s: &State, r: usize, c: usize| {
                    mine(s, r) && (self.schedule == Schedule::Hsgd || self.gpu_may_take(s, r, c, g))
                };
                job = self.find(&mut s, &cpu, ok).map(|(r, c)| (c, vec![r]));
            }
            if let Some((col, rows)) = job {
                s.busy_col[col] = true;
                let mut upload = Vec::new();
                for &r in &rows {
                    s.busy_row[r] = true;
                    if s.device[r] != Some(g) {
                        s.device[r] = Some(g);
                        upload.push(r);
                    }
                }
                return Take::Job(Job { col, rows, upload });
            }
            if (0..s.wanted.len()).any(|r| s.wanted[r] && s.device[r] == Some(g) && !s.busy_row[r]) {
                return Take::WriteBack;
            }
            s = self.wait(s);
        }
    }

    /// Marks GPU `g`'s job done and returns the rows it must write back before [`Board::release`]:
    /// rows not its own (stolen, or any row under HSGD), and its rows a CPU thread wants.
    pub fn done_gpu(&self, g: usize, job: &Job) -> Vec<usize> {
        let mut s = self.lock();
        for &r in &job.rows {
            self.complete(&mut s, r, job.col);
        }
        self.write_backs(&mut s, g, &job.rows)
    }

    fn write_backs(&self, s: &mut State, g: usize, held: &[usize]) -> Vec<usize> {
        let mut back: Vec<usize> = held.iter().copied().filter(|&r| self.division.home[r] != Home::Gpu(g)).collect();
        for r in 0..s.wanted.len() {
            if s.wanted[r] && s.device[r] == Some(g) && (held.contains(&r) || !s.busy_row[r]) && !back.contains(&r) {
                back.push(r);
            }
        }
        for &r in &back {
            s.busy_row[r] = true;
        }
        back
    }

    /// Releases GPU `g`'s job (its column and rows); `written` are the rows it wrote back,
    /// now on the host.
    pub fn release(&self, g: usize, job: Option<&Job>, written: &[usize]) {
        let mut s = self.lock();
        if let Some(job) = job {
            s.busy_col[job.col] = false;
            for &r in &job.rows {
                s.busy_row[r] = false;
            }
        }
        for &r in written {
            debug_assert_eq!(s.device[r], Some(g));
            s.device[r] = None;
            s.busy_row[r] = false;
        }
        self.changed.notify_all();
    }

    /// Rows GPU `g` should write back now, between jobs (held until [`Board::release`]).
    pub fn wanted_of(&self, g: usize) -> Vec<usize> {
        let mut s = self.lock();
        self.write_backs(&mut s, g, &[])
    }

    /// Stops the epoch: every `take_*` answers None.
    pub fn abort(&self) {
        self.lock().aborted = true;
        self.changed.notify_all();
    }

    /// Where each row's P is, at the end.
    pub fn device(&self) -> Vec<Option<usize>> {
        self.lock().device.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ratings::{Rating, Ratings};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Every block done exactly once, no row or column held twice at once, rows written back
    /// before a CPU thread takes them: CPU threads and GPU drivers doing pretend work.
    fn epoch(
        schedule: Schedule,
        stealing: bool,
        (cpu_micros, gpu_micros): (u64, u64),
        rates: Option<Rates>,
    ) -> (usize, usize) {
        let entries = (0..20_000u32).map(|i| Rating { u: (i * 7919) % 800, v: (i * 613) % 300, r: 1.0 }).collect();
        let ratings = Ratings::new(800, 300, entries).unwrap();
        let d = Division::new(&ratings, schedule, 0.5, 3, 2, 1);
        let (rows, cols) = (d.grid.rows(), d.grid.cols());
        let mut device = vec![None; rows];
        for round in 0..3 {
            let board = Board::new(&d, schedule, stealing, device, rates.clone(), 3, round);
            let held_rows: Vec<AtomicUsize> = (0..rows).map(|_| AtomicUsize::new(0)).collect();
            let held_cols: Vec<AtomicUsize> = (0..cols).map(|_| AtomicUsize::new(0)).collect();
            let done: Vec<AtomicUsize> = (0..rows * cols).map(|_| AtomicUsize::new(0)).collect();
            let by_cpu = AtomicUsize::new(0);
            let hold = |rs: &[usize], c: usize| {
                for &r in rs {
                    assert_eq!(held_rows[r].fetch_add(1, Ordering::SeqCst), 0, "row {r} held twice");
                }
                assert_eq!(held_cols[c].fetch_add(1, Ordering::SeqCst), 0, "column {c} held twice");
            };
            let free = |rs: &[usize], c: usize| {
                for &r in rs {
                    held_rows[r].fetch_sub(1, Ordering::SeqCst);
                    done[r * cols + c].fetch_add(1, Ordering::SeqCst);
                }
                held_cols[c].fetch_sub(1, Ordering::SeqCst);
            };
            // A failed assertion stops the epoch rather than leaving the others waiting.
            struct Abort<'a, 'd>(&'a Board<'d>);
            impl Drop for Abort<'_, '_> {
                fn drop(&mut self) {
                    if std::thread::panicking() {
                        self.0.abort();
                    }
                }
            }
            std::thread::scope(|s| {
                for _ in 0..3 {
                    s.spawn(|| {
                        let _abort = Abort(&board);
                        while let Some((r, c)) = board.take_cpu() {
                            assert!(board.lock().device[r].is_none(), "row {r} taken by the CPU while on a GPU");
                            hold(&[r], c);
                            std::thread::sleep(std::time::Duration::from_micros(cpu_micros));
                            free(&[r], c);
                            by_cpu.fetch_add(1, Ordering::SeqCst);
                            board.done_cpu(r, c);
                        }
                    });
                }
                for g in 0..2 {
                    let (board, hold, free) = (&board, &hold, &free);
                    s.spawn(move || loop {
                        let _abort = Abort(board);
                        match board.take_gpu(g) {
                            Take::Finished => break,
                            Take::WriteBack => {
                                let back = board.wanted_of(g);
                                board.release(g, None, &back);
                            }
                            Take::Job(job) => {
                                hold(&job.rows, job.col);
                                std::thread::sleep(std::time::Duration::from_micros(gpu_micros));
                                free(&job.rows, job.col);
                                let back = board.done_gpu(g, &job);
                                board.release(g, Some(&job), &back);
                            }
                        }
                    });
                }
            });
            let counts: Vec<usize> = done.iter().map(|d| d.load(Ordering::SeqCst)).collect();
            assert!(counts.iter().all(|&n| n == 1), "round {round}: {counts:?}");
            device = board.device();
            if round == 2 {
                let own = d.home.iter().filter(|&&h| h == Home::Cpu).count() * cols;
                return (by_cpu.into_inner(), own);
            }
        }
        unreachable!()
    }

    #[test]
    fn hybrid_epochs_do_every_block_once_with_rows_and_columns_held_alone() {
        for schedule in [Schedule::HsgdStar, Schedule::Hsgd] {
            for stealing in [true, false] {
                for micros in [10, 200, 2000] {
                    epoch(schedule, stealing, (200, micros), None);
                }
            }
        }
    }

    #[test]
    fn a_fast_gpu_steals_the_cpus_blocks_and_a_slow_one_has_its_blocks_stolen() {
        // Sides 200 times apart in speed, so that a loaded host's late wake-ups from short
        // sleeps (CI's two cores, busy compiling) still leave one clearly the faster.
        let (cpu, own) = epoch(Schedule::HsgdStar, true, (2000, 10), None);
        assert!(cpu < own, "a fast GPU takes some of the CPU's {own} blocks: the CPU did {cpu}");
        let (cpu, own) = epoch(Schedule::HsgdStar, true, (20, 4000), None);
        assert!(cpu > own, "the CPU takes some of a slow GPU's blocks: it did {cpu}, its own {own}");
        let (cpu, own) = epoch(Schedule::HsgdStar, false, (200, 10), None);
        assert_eq!(cpu, own, "no stealing: the CPU does its own rows");
    }

    #[test]
    fn known_rates_keep_a_slow_side_from_taking_what_the_fast_one_finishes_sooner() {
        // The GPUs a thousand times faster than a thread: no CPU thread takes a GPU's block,
        // even when the GPU is slowed down in fact (the rates are what the board believes).
        let fast_gpu = Rates { cpu_thread: 1.0, gpu: vec![1000.0, 1000.0] };
        let (cpu, own) = epoch(Schedule::HsgdStar, true, (200, 2000), Some(fast_gpu));
        assert!(cpu <= own, "the CPU did {cpu}, its own {own}");
        // A GPU a thousand times slower takes none of the CPU's blocks.
        let slow_gpu = Rates { cpu_thread: 1000.0, gpu: vec![1.0, 1.0] };
        let (cpu, own) = epoch(Schedule::HsgdStar, true, (200, 10), Some(slow_gpu));
        assert!(cpu >= own, "the CPU did {cpu}, its own {own}");
    }
}
