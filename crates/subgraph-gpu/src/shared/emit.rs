//! What a join's finished rows become (GSI §V's output): counts taken towards the limit
//! exactly, together with the other devices of the query, and written matches, each row
//! expanded by the automorphisms behind the plan's symmetry restrictions.

use std::ops::Range;

use rayon::prelude::*;
use subgraph_core::expand::Expand;
use subgraph_core::sink::{Control, Output, Stopped, OUTPUT_BATCH};
use subgraph_cuda::{DeviceBuffer, Gpu, HostBuffer, HOST_BUFFER_ELEMS};

use crate::error::Result;
use crate::shared::tally::Tally;

/// Embeddings [`Take::emit`] takes towards the limit and writes at a time (of the rows of
/// one pinned download).
const EMIT_SLICE: u64 = 1 << 20;

/// Most embeddings one formatting task writes.
const MAX_PIECE: u64 = 1 << 14;

/// Fewest embeddings one formatting task writes (unless fewer are left).
const MIN_PIECE: u64 = 1 << 8;

/// Writes embeddings `range` of `host` (rows of `n` columns, each standing for
/// `expand.per_row()` embeddings, row-major) to `out`, formatted in parallel in batches: in
/// tasks of at most [`MAX_PIECE`] embeddings, and at least four a host thread where the range
/// allows, for most tables a join chunk finishes are small (G3's sparse_12_4: a median of 23,000
/// rows, which whole tasks of 2^14 left to two threads; bench/results/2026-12-01-output-rate.md).
fn write_embeddings(out: &Output, name: &str, host: &[u32], n: usize, expand: &Expand, range: Range<u64>) {
    let per_row = expand.per_row();
    let tasks = 4 * rayon::current_num_threads() as u64;
    let size = ((range.end - range.start) / tasks).clamp(MIN_PIECE, MAX_PIECE);
    let pieces: Vec<Range<u64>> =
        (range.start..range.end).step_by(size as usize).map(|s| s..(s + size).min(range.end)).collect();
    pieces.into_par_iter().for_each(|piece| {
        let mut buf = Vec::with_capacity(OUTPUT_BATCH + 64 * n);
        let mut embedding = vec![0u32; n];
        let mut e = piece.start;
        while e < piece.end {
            let (r, skip) = (e / per_row, e % per_row);
            let take = (per_row - skip).min(piece.end - e);
            let row = &host[r as usize * n..][..n];
            expand.each(row, skip, take, &mut embedding, |emb| {
                out.format(name, emb, &mut buf);
                if buf.len() >= OUTPUT_BATCH {
                    out.write_batch(&buf);
                    buf.clear();
                }
                true
            });
            e += take;
        }
        out.write_batch(&buf);
    });
}

/// What one device's join of a query (GSI's or GpSM's) has taken towards the limit, and where
/// its matches go.
pub(crate) struct Take<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) tally: &'a Tally,
    pub(crate) control: &'a Control,
    pub(crate) output: Option<(&'a Output, &'a str)>,
    /// The engine's page-locked buffers that written matches are downloaded through, in turn.
    pub(crate) host: &'a mut [HostBuffer; 2],
    /// Most elements of one piece of a download (`GpuOptions::download_elements`, at most
    /// [`HOST_BUFFER_ELEMS`]).
    pub(crate) piece_elements: usize,
    /// Embeddings this device counted.
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
    /// Whether to stop: the limit was reached, or the control says so.
    pub(crate) fn stop_now(&mut self) -> bool {
        stop_now(self.control, &mut self.done)
    }

    /// Counts k embeddings, honouring the limit exactly as the CPU engine does (together with
    /// the other devices of the query); returns how many were taken.
    pub(crate) fn add(&mut self, k: u128) -> u128 {
        take(self.tally, self.control, &mut self.count, &mut self.done, k)
    }

    /// Full matches, `rows` rows of `n` columns in `table`: counted as `expand.per_row()` each
    /// (`multiplier` without an output), and written when there is an output, expanded by
    /// `expand`. The table comes to the host in pieces through the two page-locked buffers in
    /// turn, the next piece copied while this one is written. A piece is written in slices of at
    /// most [`EMIT_SLICE`] embeddings, each taken towards the limit whole and formatted by all
    /// host threads, so that a limit or a stop ends the output within a slice and the count is
    /// what was written.
    pub(crate) fn emit(
        &mut self,
        table: &DeviceBuffer<u32>,
        rows: u64,
        n: usize,
        expand: &Expand,
        multiplier: u128,
    ) -> Result<()> {
        let Some((out, name)) = self.output else {
            self.add(rows as u128 * multiplier);
            return Ok(());
        };
        let per_row = expand.per_row();
        let piece_rows = (self.piece_elements.min(HOST_BUFFER_ELEMS) / n).max(1) as u64;
        let pieces = rows.div_ceil(piece_rows);
        let piece = |i: u64| (i * piece_rows) as usize * n..((i + 1) * piece_rows).min(rows) as usize * n;
        if pieces == 0 || self.stop_now() {
            return Ok(());
        }
        let Take { gpu, tally, control, host, count, done, .. } = self;
        let [first, second] = &mut **host;
        gpu.download_pinned(table, piece(0), first)?;
        for i in 0..pieces {
            let (this, next) = if i % 2 == 0 { (&*first, &mut *second) } else { (&*second, &mut *first) };
            let words = this.range(0..piece(i).len())?;
            let (copied, ()) = rayon::join(
                || match i + 1 < pieces {
                    true => gpu.download_pinned(table, piece(i + 1), next).map(|_| ()),
                    false => Ok(()),
                },
                || {
                    let total = ((words.len() / n) as u64).saturating_mul(per_row);
                    let mut e = 0u64;
                    while e < total && !stop_now(control, done) {
                        let taken = take(tally, control, count, done, EMIT_SLICE.min(total - e) as u128) as u64;
                        write_embeddings(out, name, words, n, expand, e..e + taken);
                        e += taken;
                    }
                },
            );
            copied?;
            if stop_now(control, done) {
                break;
            }
        }
        Ok(())
    }
}
