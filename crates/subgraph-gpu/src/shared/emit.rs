//! What a join's finished rows become (GSI §V's output): counts taken towards the limit
//! exactly, together with the other devices of the query, and written matches, each row
//! expanded by the automorphisms behind the plan's symmetry restrictions. Written tables come
//! to the host through page-locked buffers, each handed to a writer thread of the query
//! ([`writing`]) that takes its embeddings towards the limit, formats and writes them while
//! the join goes on.

use std::ops::Range;
use std::sync::mpsc;
use std::time::Duration;

use rayon::prelude::*;
use subgraph_core::expand::Expand;
use subgraph_core::sink::{Control, Gathering, Output, Stopped, OUTPUT_BATCH};
use subgraph_cuda::{DeviceBuffer, Gpu, HostBuffer, HOST_BUFFER_ELEMS};

use crate::error::{GpuError, Result};
use crate::shared::tally::Tally;

/// Embeddings the writer takes towards the limit and writes at a time (of the rows of one
/// page-locked buffer), so that a limit or a stop ends the output within a slice.
const EMIT_SLICE: u64 = 1 << 20;

/// Most embeddings one formatting task writes.
const MAX_PIECE: u64 = 1 << 14;

/// Fewest embeddings one formatting task writes (unless fewer are left).
const MIN_PIECE: u64 = 1 << 8;

/// Bytes a formatting task gathers before it writes them, taking the output's lock once a
/// batch: G3's sparse_12_4 writes 18 GB of binary rows a second, which batches of the output's
/// 64 KiB ([`OUTPUT_BATCH`]) took about 270,000 times a second; with 1 MiB its rows are
/// written 1.2–1.35 times as fast, 4.2–5.1·10^8 a second (calls D2 and D4,
/// bench/results/2026-12-01-decimal.md), text and G1's binary rows unchanged.
const WRITE_BATCH: usize = 1 << 20;
// The output's buffer passes a batch that large straight through.
const _: () = assert!(WRITE_BATCH >= OUTPUT_BATCH);

/// Page-locked buffers a device's written tables go through: one filled by the join's
/// download while the writer formats another and a third waits, so that neither waits for the
/// other while both keep up.
pub(crate) const WRITE_BUFFERS: usize = 3;

/// Writes embeddings `range` of `host` (rows of `n` columns, each standing for
/// `expand.per_row()` embeddings, row-major) to `out`, formatted in parallel in batches: in
/// tasks of at most [`MAX_PIECE`] embeddings, and at least four a host thread where the range
/// allows, for most tables a join chunk finishes are small (G3's sparse_12_4: a median of 23,000
/// rows, which whole tasks of 2^14 left to two threads; bench/results/2026-12-01-output-rate.md).
fn write_embeddings(out: &Output, name: &str, host: &[u32], n: usize, expand: &Expand, range: Range<u64>) {
    let tasks = 4 * rayon::current_num_threads() as u64;
    let size = ((range.end - range.start) / tasks).clamp(MIN_PIECE, MAX_PIECE);
    let pieces: Vec<Range<u64>> =
        (range.start..range.end).step_by(size as usize).map(|s| s..(s + size).min(range.end)).collect();
    pieces.into_par_iter().for_each(|piece| match (out.writes_words(), expand.listed()) {
        (true, Some(listed)) => write_words(out, host, n, listed, piece),
        (false, Some(listed)) => write_gathered(out, name, host, n, listed, piece),
        (_, None) => write_formatted(out, name, host, n, expand, piece),
    });
}

/// Calls `f(row, skip, take)` for each row of `host` (rows of `n` columns, each standing for
/// `per_row` embeddings, row-major) that embeddings `piece` fall in: its embeddings
/// `skip..skip + take` are among them.
fn each_row(host: &[u32], n: usize, per_row: u64, piece: Range<u64>, mut f: impl FnMut(&[u32], u64, u64)) {
    let mut e = piece.start;
    while e < piece.end {
        let (r, skip) = (e / per_row, e % per_row);
        let take = (per_row - skip).min(piece.end - e);
        f(&host[r as usize * n..][..n], skip, take);
        e += take;
    }
}

/// [`write_embeddings`]' task where `out` writes each id as its little-endian u32
/// ([`Output::writes_words`]) and the expansions are listed: each embedding gathered from its
/// row's columns straight into the batch, without a call per embedding.
fn write_words(out: &Output, host: &[u32], n: usize, listed: &[Vec<usize>], piece: Range<u64>) {
    let (per_row, bytes) = (listed.len() as u64, 4 * n);
    let mut buf = Vec::with_capacity(WRITE_BATCH + bytes);
    let mut e = piece.start;
    while e < piece.end {
        // A batch of at least WRITE_BATCH bytes where the piece allows, filled, then written:
        // the output's buffer passes a batch of OUTPUT_BATCH or more straight through, where it
        // copies a smaller one under the output's lock (rows of 12 columns once fell 8 bytes
        // short of it, and their copies held every writing thread to one: G3's sparse_12_4,
        // call Z6).
        let end = e + (WRITE_BATCH.div_ceil(bytes) as u64).min(piece.end - e);
        buf.resize((end - e) as usize * bytes, 0);
        let mut slots = buf.chunks_exact_mut(bytes);
        each_row(host, n, per_row, e..end, |row, skip, take| {
            for (columns, slot) in listed[skip as usize..(skip + take) as usize].iter().zip(&mut slots) {
                for (word, &c) in slot.chunks_exact_mut(4).zip(columns) {
                    word.copy_from_slice(&row[c].to_le_bytes());
                }
            }
        });
        out.write_batch(&buf);
        e = end;
    }
}

/// [`write_embeddings`]' task where the expansions are listed: each embedding formatted from
/// its row's columns ([`Output::format_gathered`]).
fn write_gathered(out: &Output, name: &str, host: &[u32], n: usize, listed: &[Vec<usize>], piece: Range<u64>) {
    let mut buf = Vec::with_capacity(WRITE_BATCH + 64 * n);
    let mut scratch = Gathering::default();
    each_row(host, n, listed.len() as u64, piece, |row, skip, take| {
        for columns in &listed[skip as usize..(skip + take) as usize] {
            out.format_gathered(name, row, columns, &mut scratch, &mut buf);
            if buf.len() >= WRITE_BATCH {
                out.write_batch(&buf);
                buf.clear();
            }
        }
    });
    out.write_batch(&buf);
}

/// [`write_embeddings`]' task where the expansions are walked: each embedding formatted by
/// `out`.
fn write_formatted(out: &Output, name: &str, host: &[u32], n: usize, expand: &Expand, piece: Range<u64>) {
    let mut buf = Vec::with_capacity(WRITE_BATCH + 64 * n);
    let mut embedding = vec![0u32; n];
    each_row(host, n, expand.per_row(), piece, |row, skip, take| {
        expand.each(row, skip, take, &mut embedding, |emb| {
            out.format(name, emb, &mut buf);
            if buf.len() >= WRITE_BATCH {
                out.write_batch(&buf);
                buf.clear();
            }
            true
        });
    });
    out.write_batch(&buf);
}

/// A downloaded table (or a piece of one) for the writer thread: `len` ids of rows of `n`
/// columns in `host`.
struct Job {
    host: HostBuffer,
    len: usize,
    n: usize,
}

/// The join's side of a query's writer ([`writing`]): the page-locked buffers not with the
/// writer thread, and where filled ones go.
pub(crate) struct Writer {
    /// To the writer thread; None without an output (matches are only counted).
    jobs: Option<mpsc::Sender<Job>>,
    /// Buffers the writer thread has written, given back.
    back: mpsc::Receiver<HostBuffer>,
    free: Vec<HostBuffer>,
    /// Buffers with the writer thread.
    away: usize,
}

impl Writer {
    /// A buffer to download into (`Gpu::download_pinned` grows it): a free one, a new one
    /// while fewer than [`WRITE_BUFFERS`] exist, else the next the writer thread gives back
    /// (waiting for it).
    fn buffer(&mut self) -> Result<HostBuffer> {
        if let Some(host) = self.free.pop() {
            return Ok(host);
        }
        if self.away < WRITE_BUFFERS {
            return Ok(HostBuffer::default());
        }
        let host = next_back(&self.back)?;
        self.away -= 1;
        Ok(host)
    }

    fn send(&mut self, job: Job) -> Result<()> {
        let jobs = self.jobs.as_ref().expect("a writer with an output");
        jobs.send(job).map_err(|_| writer_gone())?;
        self.away += 1;
        Ok(())
    }
}

fn writer_gone() -> GpuError {
    GpuError::Mismatch("the thread writing matches ended before the join".into())
}

/// How long a wait for a written buffer sleeps when the pool has nothing to run meanwhile.
const BACK_POLL: Duration = Duration::from_micros(200);

/// The next buffer the writer thread gives back. The join runs on a thread of rayon's pool (the
/// command line's query loop, Python's calls), which the writer's formatting tasks need too: a
/// join waiting for a buffer runs the pool's work meanwhile, so that a pool of one thread
/// formats there rather than waiting on itself.
fn next_back(back: &mpsc::Receiver<HostBuffer>) -> Result<HostBuffer> {
    loop {
        match back.try_recv() {
            Ok(host) => return Ok(host),
            Err(mpsc::TryRecvError::Disconnected) => return Err(writer_gone()),
            Err(mpsc::TryRecvError::Empty) => {}
        }
        if rayon::yield_now() != Some(rayon::Yield::Executed) {
            match back.recv_timeout(BACK_POLL) {
                Ok(host) => return Ok(host),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(writer_gone()),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    }
}

/// Runs `join` with a writer of its matches to `output` (when there is one) on a thread of its
/// own, expanded by `expand` and taken towards the limit (`tally`, `control`) as they are
/// written, through the page-locked buffers `host` (kept there for the device's next query).
/// Returns what `join` returned and the embeddings written; where the writer failed, its error
/// (a join that lost its writer fails for that reason).
pub(crate) fn writing<R>(
    output: Option<(&Output, &str)>,
    expand: &Expand,
    tally: &Tally,
    control: &Control,
    host: &mut Vec<HostBuffer>,
    join: impl FnOnce(&mut Writer) -> Result<R>,
) -> Result<(R, u128)> {
    std::thread::scope(|s| {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (give_back, back) = mpsc::channel();
        let thread = output
            .map(move |(out, name)| s.spawn(move || write_jobs(out, name, expand, tally, control, queue, give_back)));
        let mut writer = Writer { jobs: thread.is_some().then_some(jobs), back, free: std::mem::take(host), away: 0 };
        let joined = join(&mut writer);
        // The writer thread ends once its queue is written; its buffers come back first.
        writer.jobs = None;
        while writer.away > 0 {
            match next_back(&writer.back) {
                Ok(h) => {
                    writer.free.push(h);
                    writer.away -= 1;
                }
                Err(_) => break,
            }
        }
        *host = writer.free;
        let written = match thread.map(|t| t.join()) {
            None => Ok(0),
            Some(Ok(written)) => written,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
        };
        let written = written?;
        Ok((joined?, written))
    })
}

/// The writer thread: each job's embeddings taken towards the limit a slice at a time and
/// written, its buffer given back; returns the embeddings written.
fn write_jobs(
    out: &Output,
    name: &str,
    expand: &Expand,
    tally: &Tally,
    control: &Control,
    queue: mpsc::Receiver<Job>,
    give_back: mpsc::Sender<HostBuffer>,
) -> Result<u128> {
    let (mut count, mut done) = (0u128, false);
    for job in queue {
        let words = job.host.range(0..job.len)?;
        let total = ((job.len / job.n) as u64).saturating_mul(expand.per_row());
        let mut e = 0u64;
        while e < total && !stop_now(control, &mut done) {
            let taken = take(tally, control, &mut count, &mut done, EMIT_SLICE.min(total - e) as u128) as u64;
            write_embeddings(out, name, words, job.n, expand, e..e + taken);
            e += taken;
        }
        if give_back.send(job.host).is_err() {
            break;
        }
    }
    Ok(count)
}

/// What one device's join of a query (GSI's or GpSM's) has taken towards the limit, and where
/// its matches go.
pub(crate) struct Take<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) tally: &'a Tally,
    pub(crate) control: &'a Control,
    /// Where written matches go ([`writing`]).
    pub(crate) writer: &'a mut Writer,
    /// Most elements of one piece of a download (`GpuOptions::download_elements`, at most
    /// [`HOST_BUFFER_ELEMS`]).
    pub(crate) piece_elements: usize,
    /// Embeddings this device counted without writing them (the writer counts those it
    /// writes).
    pub(crate) count: u128,
    pub(crate) done: bool,
}

/// Whether to stop: the limit was reached (`done`), or the control says so.
fn stop_now(control: &Control, done: &mut bool) -> bool {
    if !*done && control.should_stop() {
        *done = true;
    }
    *done
}

/// Counts k embeddings into `count`, honouring the limit exactly as the CPU engine does
/// (together with the other devices of the query); returns how many were taken.
fn take(tally: &Tally, control: &Control, count: &mut u128, done: &mut bool, k: u128) -> u128 {
    let (taken, reached) = tally.take(k);
    if reached {
        control.stop(Stopped::Limit);
        *done = true;
    }
    *count += taken;
    control.found.fetch_add(taken.min(u64::MAX as u128) as u64, std::sync::atomic::Ordering::Relaxed);
    taken
}

impl Take<'_> {
    /// Whether matches are written (else only counted).
    pub(crate) fn writes(&self) -> bool {
        self.writer.jobs.is_some()
    }

    /// Whether to stop: the limit was reached, or the control says so.
    pub(crate) fn stop_now(&mut self) -> bool {
        stop_now(self.control, &mut self.done)
    }

    /// Counts k embeddings, honouring the limit exactly as the CPU engine does (together with
    /// the other devices of the query); returns how many were taken.
    pub(crate) fn add(&mut self, k: u128) -> u128 {
        take(self.tally, self.control, &mut self.count, &mut self.done, k)
    }

    /// Full matches, `rows` rows of `n` columns in `table`: counted as `multiplier` each
    /// without an output; with one, the table comes to the host in pieces, each downloaded into
    /// a page-locked buffer and handed to the writer, which takes and writes its embeddings
    /// while the join goes on (waiting only where every buffer is still with the writer).
    pub(crate) fn emit(&mut self, table: &DeviceBuffer<u32>, rows: u64, n: usize, multiplier: u128) -> Result<()> {
        if !self.writes() {
            self.add(rows as u128 * multiplier);
            return Ok(());
        }
        let piece_rows = (self.piece_elements.min(HOST_BUFFER_ELEMS) / n).max(1) as u64;
        for i in 0..rows.div_ceil(piece_rows) {
            if self.stop_now() {
                break;
            }
            let range = (i * piece_rows) as usize * n..((i + 1) * piece_rows).min(rows) as usize * n;
            let len = range.len();
            let mut host = self.writer.buffer()?;
            if let Err(e) = self.gpu.download_pinned(table, range, &mut host) {
                self.writer.free.push(host);
                return Err(e.into());
            }
            self.writer.send(Job { host, len, n })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use subgraph_core::plan::{Plan, PlanOptions};
    use subgraph_core::sink::OutputFormat;
    use subgraph_core::{GraphBuilder, Query, Semantics};

    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The sizes of the writes `write` makes to an output of u32 words.
    fn write_sizes(write: impl Fn(&Output)) -> Vec<usize> {
        #[derive(Clone, Default)]
        struct Sizes(Arc<Mutex<Vec<usize>>>);
        impl std::io::Write for Sizes {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().push(b.len());
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let sizes = Sizes::default();
        let out = Output::new(Box::new(sizes.clone()), OutputFormat::Words);
        write(&out);
        out.finish().unwrap();
        let got = sizes.0.lock().unwrap().clone();
        got
    }

    #[test]
    fn gathered_words_go_in_batches_the_output_buffer_passes_through() {
        // Rows of 12 columns: OUTPUT_BATCH / 48 rows fell 8 bytes short of 64 KiB, which a
        // buffer of OUTPUT_BATCH copies (under the output's lock) instead of passing through;
        // batches of WRITE_BATCH take the output's lock a sixteenth as often.
        let (n, rows) = (12, 60_000);
        let table: Vec<u32> = (0..(n * rows) as u32).collect();
        let listed = vec![(0..n).collect::<Vec<usize>>()];
        let sizes = write_sizes(|out| write_words(out, &table, n, &listed, 0..rows as u64));
        assert_eq!(sizes.iter().sum::<usize>(), 4 * n * rows);
        let (last, whole) = sizes.split_last().unwrap();
        assert!(whole.len() >= 2 && whole.iter().all(|&s| s >= WRITE_BATCH), "{sizes:?}");
        assert!(*last > 0);
    }

    /// What `write` puts in an output of `format`.
    fn written(format: OutputFormat, write: impl Fn(&Output)) -> Vec<u8> {
        let buf = Shared::default();
        let out = Output::new(Box::new(buf.clone()), format);
        write(&out);
        out.finish().unwrap();
        let bytes = buf.0.lock().unwrap().clone();
        bytes
    }

    #[test]
    fn gathered_embeddings_are_the_formatted_ones() {
        // A 4-clique of one label: 24 automorphisms, listed, one row standing for each; and a
        // plain permutation of the columns, one embedding a row.
        let edges: Vec<(u32, u32, u32)> = (0..4).flat_map(|a| (a + 1..4).map(move |b| (a, b, 0))).collect();
        let data = GraphBuilder::from_parts(vec![0; 4], edges, false).build().0;
        let q = Query::new(data.clone(), &data, Semantics::Embed).unwrap();
        let plan = Plan::new(&data, &q, PlanOptions::default(), &Control::unlimited());
        let rows = 2000u64;
        // Every id distinct, and rows whose columns repeat from row to row (the text formats
        // keep a column's digits from the row before).
        let distinct: Vec<u32> = (0..4 * rows as u32).map(|i| 7 * i + 1).collect();
        let repeating: Vec<u32> = (0..4 * rows as u32).map(|i| (i % 4 + 1) * (i / (4 << (i % 4))) * 99_991).collect();
        for (table, expand) in [&distinct, &repeating]
            .into_iter()
            .flat_map(|t| [(t, Expand::of(&plan)), (t, Expand::columns(vec![2, 0, 3, 1]))])
        {
            let listed = expand.listed().expect("listed");
            let total = rows * expand.per_row();
            // Within a row, across rows, and across the writer's batches: the whole range of the
            // listed automorphisms' 48,000 text rows passes WRITE_BATCH (1 MiB).
            let ranges = [0..total, 0..1, 5..6, 3..total - 2, 23..49, 4000..9000, total - 1..total];
            for range in ranges.into_iter().filter(|r| r.end <= total) {
                let words = OutputFormat::Words;
                let gathered = written(words, |out| write_words(out, table, 4, listed, range.clone()));
                let formatted = written(words, |out| write_formatted(out, "q", table, 4, &expand, range.clone()));
                assert_eq!(gathered.len() as u64, 16 * (range.end - range.start), "{range:?}");
                assert!(gathered == formatted, "{range:?}");
                for format in [OutputFormat::Text, OutputFormat::Csv, OutputFormat::Jsonl, OutputFormat::Binary] {
                    let gathered = written(format, |out| write_gathered(out, "q", table, 4, listed, range.clone()));
                    let formatted = written(format, |out| write_formatted(out, "q", table, 4, &expand, range.clone()));
                    assert!(!gathered.is_empty() && gathered == formatted, "{format:?} {range:?}");
                }
            }
        }
    }
}
