//! The GPU engine (thesis §3.2's GPU side, CuMF_SGD's design): P and Q held on the device in
//! float or half precision, ratings kept resident, `sgd.cu`'s batch-Hogwild! kernel run over any
//! range of them by a chosen number of parallel workers (warps), and ranges of rows copied in and
//! out on three streams: ratings and rows in on the copy stream ([`Lane::Ahead`]), kernels on the
//! default stream ([`Lane::Now`]), rows out on the download stream ([`Lane::Back`]).
//!
//! Order of the work, whatever stream it runs on: a run waits for the puts before it; a get
//! waits for the runs and puts before it; a put waits for the runs and gets before it, except
//! `put_*_ahead`, which waits for nothing, so that the next block's rows come in while the
//! kernel works on this block's (rows no run still in flight updates, and no get still reads).
//! Runs do not wait for gets: a get of rows that a later run updates must be waited for
//! ([`PinnedBuffer::wait`]) before that run is enqueued, as a schedule of disjoint blocks does
//! naturally. Half-precision rows are converted on the device, on the stream of their copy.

use std::ops::Range;

use rayon::prelude::*;
use subgraph_cuda::{Arg, DeviceBuffer, Event, Gpu, HostSource, Kernel, Lane, PinnedBuffer};

use crate::error::{MfError, Result};
use crate::gpu::source::{sgd_source, SgdShape, CONVERT_THREADS, FROM_HALF, SGD_UPDATE, TO_HALF, WARPS_PER_BLOCK};
use crate::model::Step;
use crate::ratings::Rating;

/// How the GPU engine runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuOptions {
    /// Parallel workers (warps at work, each taking chunks of ratings in turn): the thesis varies
    /// them from 32 to 512 to slow the GPU down; 0 (the default) is as many as the device
    /// holds at once (on the H200 at k = 128: 6336, 48 a multiprocessor, in float and in half;
    /// over a Netflix-shaped set the memory is nearly as busy from about 2000 on: a float epoch
    /// took 12.5 ms with 2112 workers, 11.6 ms with 6336). More workers race
    /// on more shared rows (Hogwild!): over 10^4 items a full H200 (5280 workers at k = 32) ended
    /// an epoch at RMSE 0.40 where the CPU reached 0.27; over 2·10^5 items, 1.4% above the CPU
    /// (0.5% with 1792 workers). CuMF_SGD runs Netflix (17,770 items) with 1792.
    pub workers: u32,
    /// Factors stored in half precision on the device (CuMF_SGD's), arithmetic in float.
    pub half: bool,
}

/// Ratings held on the device: `len` (u, v, r) triples, r as float bits, in the order given.
pub struct DeviceRatings {
    buf: DeviceBuffer<u32>,
    len: usize,
    /// One more than the largest user and item (0 for none): the smallest model they fit.
    users: usize,
    items: usize,
}

impl DeviceRatings {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// P or Q on the device.
enum Factors {
    Float(DeviceBuffer<f32>),
    /// Two halves a word; element i of the matrix is the low half of word i / 2 when i is even.
    Half(DeviceBuffer<u32>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    P,
    Q,
}

/// Float rows on their way to or from a half matrix: the copy stream's and the download
/// stream's, each allocated and used on its stream only (so waiting for no kernel), grown on
/// demand to the next power of two.
struct Stage {
    lane: Lane,
    what: &'static str,
    buf: Option<DeviceBuffer<f32>>,
}

impl Stage {
    fn new(lane: Lane, what: &'static str) -> Self {
        Stage { lane, what, buf: None }
    }

    fn at_least(&mut self, gpu: &Gpu, len: usize) -> Result<&mut DeviceBuffer<f32>> {
        if self.buf.as_ref().is_none_or(|b| b.len() < len) {
            self.buf = None;
            self.buf = Some(gpu.alloc_zeros_on(self.lane, self.what, len.next_power_of_two())?);
        }
        Ok(self.buf.as_mut().expect("allocated above"))
    }
}

/// SGD on one GPU over factors held there (see the module for the order of its work).
pub struct GpuSgd<'g> {
    gpu: &'g Gpu,
    shape: SgdShape,
    users: usize,
    items: usize,
    workers: u32,
    update: Kernel,
    /// Half only: `to_half` and `from_half`.
    convert: Option<(Kernel, Kernel)>,
    p: Factors,
    q: Factors,
    stage_in: Stage,
    stage_out: Stage,
    last_run: Option<Event>,
    last_put: Option<Event>,
    last_get: Option<Event>,
    /// One slot a worker: Σ e² of its updates since the last [`GpuSgd::take_loss`].
    losses: DeviceBuffer<f32>,
    /// Losses read out of a smaller slot buffer when the workers grew.
    carried: f64,
}

impl<'g> GpuSgd<'g> {
    /// P (`users` × `rank`) and Q (`items` × `rank`) on `gpu`, zeroed, in the precision of
    /// `options`; each allocation is checked against the free device memory and the budget
    /// first. Compiles the kernels of this rank and precision (once per process).
    pub fn new(gpu: &'g Gpu, users: usize, items: usize, rank: usize, options: GpuOptions) -> Result<Self> {
        let shape = SgdShape::new(rank, options.half)?;
        if users > u32::MAX as usize || items > u32::MAX as usize {
            return Err(MfError::Parameter(format!("{users} users × {items} items: at most 2^32 - 1 of each")));
        }
        let source = sgd_source(shape);
        let update = gpu.kernel(source, SGD_UPDATE)?;
        let convert = match options.half {
            true => Some((gpu.kernel(source, TO_HALF)?, gpu.kernel(source, FROM_HALF)?)),
            false => None,
        };
        let alloc = |what: &'static str, rows: usize| -> Result<Factors> {
            Ok(match options.half {
                true => Factors::Half(gpu.alloc_zeros(what, (rows * rank).div_ceil(2))?),
                false => Factors::Float(gpu.alloc_zeros(what, rows * rank)?),
            })
        };
        let p = alloc("mf P", users)?;
        let q = alloc("mf Q", items)?;
        // Readied now for the copy and download streams, so that no first copy there waits
        // for a running kernel.
        for lane in [Lane::Ahead, Lane::Back] {
            for factors in [&p, &q] {
                match factors {
                    Factors::Float(buf) => gpu.use_on(lane, buf)?,
                    Factors::Half(buf) => gpu.use_on(lane, buf)?,
                }
            }
        }
        let mut sgd = GpuSgd {
            gpu,
            shape,
            users,
            items,
            workers: 1,
            update,
            convert,
            p,
            q,
            stage_in: Stage::new(Lane::Ahead, "mf rows in"),
            stage_out: Stage::new(Lane::Back, "mf rows out"),
            last_run: None,
            last_put: None,
            last_get: None,
            losses: gpu.alloc_zeros("mf losses", 1)?,
            carried: 0.0,
        };
        sgd.set_workers(options.workers)?;
        Ok(sgd)
    }

    pub fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    pub fn rank(&self) -> usize {
        self.shape.rank
    }

    pub fn users(&self) -> usize {
        self.users
    }

    pub fn items(&self) -> usize {
        self.items
    }

    pub fn half(&self) -> bool {
        self.shape.half
    }

    /// The parallel workers of later runs.
    pub fn workers(&self) -> u32 {
        self.workers
    }

    /// Sets the parallel workers of later runs (0: as many warps as the device holds at once,
    /// by the kernel's occupancy).
    pub fn set_workers(&mut self, workers: u32) -> Result<()> {
        self.workers = match workers {
            0 => {
                let blocks = self.gpu.resident_blocks(&self.update, WARPS_PER_BLOCK * 32)?.max(1);
                blocks.saturating_mul(self.gpu.info().multiprocessors).saturating_mul(WARPS_PER_BLOCK)
            }
            w => w,
        };
        if self.workers as usize > self.losses.len() {
            self.carried += self.take_loss()?;
            self.losses = self.gpu.alloc_zeros("mf losses", self.workers as usize)?;
        }
        Ok(())
    }

    /// Σ e² over the updates of the runs since the last call (each error taken before its
    /// update: LIBMF's training loss); waits for those runs.
    pub fn take_loss(&mut self) -> Result<f64> {
        let mut host = vec![0f32; self.losses.len()];
        self.gpu.read_on(Lane::Now, &self.losses, 0, &mut host)?;
        self.gpu.write_on(Lane::Now, &mut self.losses, 0, &vec![0f32; host.len()])?;
        Ok(host.iter().map(|&x| x as f64).sum::<f64>() + std::mem::take(&mut self.carried))
    }

    /// Copies `data` (rows `rows` of P, row-major) to the device, after the runs and gets
    /// enqueued before; returns once `data` is copied or staged (it may be reused at once).
    pub fn put_p(&mut self, rows: Range<usize>, data: &[f32]) -> Result<()> {
        self.put(Side::P, rows, data, true)
    }

    /// [`GpuSgd::put_p`] for Q.
    pub fn put_q(&mut self, rows: Range<usize>, data: &[f32]) -> Result<()> {
        self.put(Side::Q, rows, data, true)
    }

    /// [`GpuSgd::put_p`] without waiting for earlier runs and gets, to overlap them: for rows
    /// that no run still in flight updates and no get still reads.
    pub fn put_p_ahead(&mut self, rows: Range<usize>, data: &[f32]) -> Result<()> {
        self.put(Side::P, rows, data, false)
    }

    /// [`GpuSgd::put_p_ahead`] for Q.
    pub fn put_q_ahead(&mut self, rows: Range<usize>, data: &[f32]) -> Result<()> {
        self.put(Side::Q, rows, data, false)
    }

    /// Rows `rows` of P into `out` (row-major), once the runs and puts before are done; waits
    /// for the copy (the kernels go on meanwhile).
    pub fn get_p(&mut self, rows: Range<usize>, out: &mut [f32]) -> Result<()> {
        self.get(Side::P, rows, out)
    }

    /// [`GpuSgd::get_p`] for Q.
    pub fn get_q(&mut self, rows: Range<usize>, out: &mut [f32]) -> Result<()> {
        self.get(Side::Q, rows, out)
    }

    /// Rows `rows` of P into `host[at..]`, on the download stream after the runs and puts
    /// before, returning at once: `host`'s accessors wait for the copy
    /// (`gpu().pinned_buffer::<f32>(len)` makes one).
    pub fn get_p_async(&mut self, rows: Range<usize>, host: &mut PinnedBuffer<f32>, at: usize) -> Result<()> {
        self.get_async(Side::P, rows, host, at)
    }

    /// [`GpuSgd::get_p_async`] for Q.
    pub fn get_q_async(&mut self, rows: Range<usize>, host: &mut PinnedBuffer<f32>, at: usize) -> Result<()> {
        self.get_async(Side::Q, rows, host, at)
    }

    /// Copies rows `rows` of Q, as they are (in this engine's precision), from this engine's
    /// device to `to`'s, device to device, after this engine's runs and before `to`'s next
    /// runs, puts and gets (over NVLink where [`Gpu::enable_peer_access`] allowed it); this
    /// engine's rows must not be written until the copy is done. Both engines must share one
    /// shape; under half precision, `rows.start · rank` and `rows.end · rank` must be even (a
    /// word holds two halves).
    pub fn pass_q(&mut self, rows: Range<usize>, to: &mut GpuSgd<'_>) -> Result<()> {
        let range = self.elements(Side::Q, &rows, None)?;
        if (to.shape, to.items) != (self.shape, self.items) {
            return Err(MfError::Parameter("Q passed between engines of different shapes".into()));
        }
        if range.is_empty() {
            return Ok(());
        }
        // The copy runs on `to`'s default stream after the work this engine's default stream
        // has enqueued (its runs); puts and gets run on the other lanes: wait for them.
        self.synchronize()?;
        to.synchronize()?;
        match (&self.q, &mut to.q) {
            (Factors::Float(from), Factors::Float(into)) => {
                to.gpu.copy(from, range.start, into, range.start, range.len())?
            }
            (Factors::Half(from), Factors::Half(into))
                if range.start.is_multiple_of(2) && range.end.is_multiple_of(2) =>
            {
                to.gpu.copy(from, range.start / 2, into, range.start / 2, range.len() / 2)?
            }
            _ => {
                return Err(MfError::Parameter(format!(
                    "rows {rows:?} of half-precision Q of rank {} do not start and end on a word",
                    self.shape.rank
                )))
            }
        }
        // `to`'s gets and puts wait for its runs' event: the copy is one more of them.
        to.last_run = Some(to.gpu.record(Lane::Now)?);
        Ok(())
    }

    /// `ratings` on the device, kept there, copied on the copy stream (later runs wait for the
    /// copy; the host returns once it is staged). Every id must fit this engine's P and Q.
    pub fn load_ratings(&self, ratings: &[Rating]) -> Result<DeviceRatings> {
        let (users, items) = ratings
            .par_iter()
            .fold(|| (0usize, 0usize), |(u, v), e| (u.max(e.u as usize + 1), v.max(e.v as usize + 1)))
            .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
        self.fits(users, items)?;
        let words: &[u32] = bytemuck::cast_slice(ratings);
        let arriving = self.gpu.upload_parts(Lane::Ahead, [("mf ratings", HostSource::Pageable(words))])?;
        let [buf] = self.gpu.arrived(arriving)?;
        Ok(DeviceRatings { buf, len: ratings.len(), users, items })
    }

    /// Enqueues the kernel over `ratings[range]` with `step`, after the puts before; returns
    /// at once. With one worker the ratings are updated in order, one after another.
    pub fn run(&mut self, ratings: &DeviceRatings, range: Range<usize>, step: Step) -> Result<()> {
        if range.start > range.end || range.end > ratings.len {
            return Err(MfError::Parameter(format!("ratings {range:?} of {}", ratings.len)));
        }
        self.fits(ratings.users, ratings.items)?;
        for (name, v) in [("learning rate", step.lr), ("lambda_p", step.lambda_p), ("lambda_q", step.lambda_q)] {
            if !v.is_finite() {
                return Err(MfError::Parameter(format!("{name} {v}: must be a finite number")));
            }
        }
        if range.is_empty() {
            return Ok(());
        }
        if let Some(put) = self.last_put.take() {
            self.gpu.wait_for(Lane::Now, &put)?;
        }
        let grid = self.workers.div_ceil(WARPS_PER_BLOCK);
        let (p, q) = match (&mut self.p, &mut self.q) {
            (Factors::Float(p), Factors::Float(q)) => (Arg::OutF32(p), Arg::OutF32(q)),
            (Factors::Half(p), Factors::Half(q)) => (Arg::Out32(p), Arg::Out32(q)),
            _ => unreachable!("P and Q share one precision"),
        };
        self.gpu.launch_on(
            Lane::Now,
            &self.update,
            grid,
            WARPS_PER_BLOCK * 32,
            &mut [
                Arg::In32(&ratings.buf),
                Arg::U64(range.start as u64),
                Arg::U64(range.end as u64),
                p,
                q,
                Arg::F32(step.lr),
                Arg::F32(step.lambda_p),
                Arg::F32(step.lambda_q),
                Arg::U32(self.workers),
                Arg::OutF32(&mut self.losses),
            ],
        )?;
        self.last_run = Some(self.gpu.record(Lane::Now)?);
        Ok(())
    }

    /// Waits for all work enqueued on the three streams.
    pub fn synchronize(&mut self) -> Result<()> {
        for lane in [Lane::Ahead, Lane::Now, Lane::Back] {
            self.gpu.synchronize_on(lane)?;
        }
        (self.last_run, self.last_put, self.last_get) = (None, None, None);
        Ok(())
    }

    /// Waits for the runs enqueued so far without keeping a core busy: polls their end, sleeping
    /// up to 50 µs between polls (a hybrid run's CPU threads want every core).
    pub fn wait_idle(&mut self) -> Result<()> {
        Ok(self.gpu.wait_polling_every(std::time::Duration::from_micros(50), || {})?)
    }

    /// Refuses ratings whose ids pass this engine's P or Q.
    fn fits(&self, users: usize, items: usize) -> Result<()> {
        if users > self.users || items > self.items {
            return Err(MfError::Ratings(format!(
                "ratings with users up to {users} and items up to {items} do not fit {} users × {} items",
                self.users, self.items
            )));
        }
        Ok(())
    }

    /// The element range of `rows` of `side`, checked against it and, where given, the
    /// length of the host rows.
    fn elements(&self, side: Side, rows: &Range<usize>, len: Option<usize>) -> Result<Range<usize>> {
        let (n, name) = match side {
            Side::P => (self.users, "P"),
            Side::Q => (self.items, "Q"),
        };
        let k = self.shape.rank;
        if rows.start > rows.end || rows.end > n {
            return Err(MfError::Parameter(format!("rows {rows:?} of {name}, which has {n}")));
        }
        if let Some(len) = len.filter(|&l| l != rows.len() * k) {
            return Err(MfError::Parameter(format!(
                "rows {rows:?} of {name} are {} values of rank {k}, given {len}",
                rows.len() * k
            )));
        }
        Ok(rows.start * k..rows.end * k)
    }

    fn put(&mut self, side: Side, rows: Range<usize>, data: &[f32], after: bool) -> Result<()> {
        let range = self.elements(side, &rows, Some(data.len()))?;
        if range.is_empty() {
            return Ok(());
        }
        if after {
            for event in [&self.last_run, &self.last_get].into_iter().flatten() {
                self.gpu.wait_for(Lane::Ahead, event)?;
            }
        }
        let gpu = self.gpu;
        let factors = match side {
            Side::P => &mut self.p,
            Side::Q => &mut self.q,
        };
        match factors {
            Factors::Float(buf) => gpu.write_on(Lane::Ahead, buf, range.start, data)?,
            Factors::Half(buf) => {
                let stage = self.stage_in.at_least(gpu, data.len())?;
                gpu.write_on(Lane::Ahead, stage, 0, data)?;
                let (to_half, _) = self.convert.as_ref().expect("half engines have conversions");
                gpu.launch_on(
                    Lane::Ahead,
                    to_half,
                    convert_grid(gpu, data.len()),
                    CONVERT_THREADS,
                    &mut [
                        Arg::InF32(stage),
                        Arg::U64(data.len() as u64),
                        Arg::Out32(buf),
                        Arg::U64(range.start as u64),
                    ],
                )?;
            }
        }
        self.last_put = Some(gpu.record(Lane::Ahead)?);
        Ok(())
    }

    /// Makes the download stream wait for the runs and puts before, and, for half factors,
    /// converts the rows into the download stage there: the buffer and range to copy out.
    fn prepare_get(&mut self, side: Side, range: Range<usize>) -> Result<(&DeviceBuffer<f32>, Range<usize>)> {
        for event in [&self.last_run, &self.last_put].into_iter().flatten() {
            self.gpu.wait_for(Lane::Back, event)?;
        }
        let gpu = self.gpu;
        let factors = match side {
            Side::P => &self.p,
            Side::Q => &self.q,
        };
        match factors {
            Factors::Float(buf) => Ok((buf, range)),
            Factors::Half(buf) => {
                let n = range.len();
                let stage = self.stage_out.at_least(gpu, n)?;
                let (_, from_half) = self.convert.as_ref().expect("half engines have conversions");
                gpu.launch_on(
                    Lane::Back,
                    from_half,
                    convert_grid(gpu, n),
                    CONVERT_THREADS,
                    &mut [Arg::In32(buf), Arg::U64(range.start as u64), Arg::U64(n as u64), Arg::OutF32(stage)],
                )?;
                Ok((stage, 0..n))
            }
        }
    }

    fn get(&mut self, side: Side, rows: Range<usize>, out: &mut [f32]) -> Result<()> {
        let range = self.elements(side, &rows, Some(out.len()))?;
        if range.is_empty() {
            return Ok(());
        }
        let gpu = self.gpu;
        let (buf, range) = self.prepare_get(side, range)?;
        gpu.read_on(Lane::Back, buf, range.start, out)?;
        // The download stream is idle now: later puts need not wait for it.
        self.last_get = None;
        Ok(())
    }

    fn get_async(&mut self, side: Side, rows: Range<usize>, host: &mut PinnedBuffer<f32>, at: usize) -> Result<()> {
        let range = self.elements(side, &rows, None)?;
        if range.is_empty() {
            return Ok(());
        }
        let gpu = self.gpu;
        let (buf, range) = self.prepare_get(side, range)?;
        gpu.download_async(Lane::Back, buf, range, host, at)?;
        self.last_get = Some(gpu.record(Lane::Back)?);
        Ok(())
    }
}

/// Blocks of a conversion over `n` elements: one element a thread, at most 8 blocks a
/// multiprocessor (the kernels loop over the rest).
fn convert_grid(gpu: &Gpu, n: usize) -> u32 {
    let most = gpu.info().multiprocessors.saturating_mul(8).max(1) as usize;
    n.div_ceil(CONVERT_THREADS as usize).clamp(1, most) as u32
}
