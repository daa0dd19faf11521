//! What a join's finished rows become (GSI §V's output): counts taken towards the limit
//! exactly, together with the other devices of the query, and written matches, each row
//! expanded by the automorphisms behind the plan's symmetry restrictions.

use std::ops::Range;

use rayon::prelude::*;
use subgraph_core::plan::Plan;
use subgraph_core::sink::{Control, Output, Stopped, OUTPUT_BATCH};
use subgraph_cuda::{DeviceBuffer, Gpu, HostBuffer, HOST_BUFFER_ELEMS};

use crate::error::Result;
use crate::shared::tally::Tally;

/// Embeddings [`Join::emit`] takes towards the limit and writes at a time (of the rows of
/// one pinned download).
const EMIT_SLICE: u64 = 1 << 20;

/// How each row of a finished table becomes embeddings: the row's column of each query vertex,
/// for each automorphism behind the plan's restrictions (listed once when there are at most
/// [`LISTED_EXPANSIONS`], else walked per row).
pub(crate) struct Expand<'p> {
    /// Embeddings per row: the plan's multiplier.
    per_row: u64,
    listed: Vec<Vec<usize>>,
    walked: Option<(&'p subgraph_core::automorphism::Automorphisms, Vec<usize>)>,
}

/// Automorphisms [`Expand`] lists rather than walks for every row.
const LISTED_EXPANSIONS: u128 = 1 << 12;

impl<'p> Expand<'p> {
    /// Rows whose column `position[u]` holds query vertex u's match, one embedding each.
    pub(crate) fn columns(position: Vec<usize>) -> Expand<'p> {
        Expand { per_row: 1, listed: vec![position], walked: None }
    }

    pub(crate) fn of(plan: &'p Plan) -> Expand<'p> {
        let mut position = vec![0; plan.len()];
        plan.vertices.iter().enumerate().for_each(|(p, &u)| position[u as usize] = p);
        match &plan.symmetry {
            None => Expand::columns(position),
            Some(aut) if plan.multiplier <= LISTED_EXPANSIONS => {
                let mut listed = Vec::new();
                aut.for_each(|sigma| {
                    listed.push(sigma.iter().map(|&s| position[s as usize]).collect());
                    true
                });
                Expand { per_row: listed.len() as u64, listed, walked: None }
            }
            Some(aut) => Expand {
                per_row: u64::try_from(plan.multiplier).unwrap_or(u64::MAX),
                listed: Vec::new(),
                walked: Some((aut, position)),
            },
        }
    }

    /// Calls `f` with the embeddings `skip..` of `row` (at most `take`), in order; stops when
    /// `f` returns false.
    fn each(&self, row: &[u32], skip: u64, take: u64, embedding: &mut [u32], mut f: impl FnMut(&[u32]) -> bool) {
        let mut k = 0u64;
        let mut visit = |columns: &mut dyn Iterator<Item = usize>| {
            if k >= skip + take {
                return false;
            }
            if k >= skip {
                embedding.iter_mut().zip(columns).for_each(|(e, c)| *e = row[c]);
                if !f(embedding) {
                    return false;
                }
            }
            k += 1;
            k < skip + take
        };
        match &self.walked {
            None => {
                for columns in &self.listed {
                    if !visit(&mut columns.iter().copied()) {
                        break;
                    }
                }
            }
            Some((aut, position)) => {
                aut.for_each(|sigma| visit(&mut sigma.iter().map(|&s| position[s as usize])));
            }
        }
    }
}

/// Writes embeddings `range` of `host` (rows of `n` columns, each standing for
/// `expand.per_row` embeddings, row-major) to `out`, formatted in parallel in batches.
fn write_embeddings(out: &Output, name: &str, host: &[u32], n: usize, expand: &Expand, range: Range<u64>) {
    const PIECE: u64 = 1 << 14;
    let per_row = expand.per_row;
    let pieces: Vec<Range<u64>> =
        (range.start..range.end).step_by(PIECE as usize).map(|s| s..(s + PIECE).min(range.end)).collect();
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
    /// The engine's page-locked buffer that written matches are downloaded through.
    pub(crate) host: &'a mut HostBuffer,
    /// Embeddings this device counted.
    pub(crate) count: u128,
    pub(crate) done: bool,
}

impl Take<'_> {
    /// Whether to stop: the limit was reached, or the control says so.
    pub(crate) fn stop_now(&mut self) -> bool {
        if !self.done && self.control.should_stop() {
            self.done = true;
        }
        self.done
    }

    /// Counts k embeddings, honouring the limit exactly as the CPU engine does (together with
    /// the other devices of the query); returns how many were taken.
    pub(crate) fn add(&mut self, k: u128) -> u128 {
        let (taken, reached) = self.tally.take(k);
        if reached {
            self.control.stop(Stopped::Limit);
            self.done = true;
        }
        self.count += taken;
        self.control.found.fetch_add(taken.min(u64::MAX as u128) as u64, std::sync::atomic::Ordering::Relaxed);
        taken
    }

    /// Full matches, `rows` rows of `n` columns in `table`: counted as `expand.per_row` each
    /// (`multiplier` without an output), and written when there is an output, expanded by
    /// `expand`. Written in slices of at most [`EMIT_SLICE`] embeddings, each taken towards the
    /// limit whole and formatted by all host threads, so that a limit or a stop ends the output
    /// within a slice and the count is what was written.
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
        // The table comes over in pieces through one page-locked buffer.
        let per_row = expand.per_row;
        let piece_rows = (HOST_BUFFER_ELEMS / n).max(1) as u64;
        let mut pinned = std::mem::take(&mut *self.host);
        let mut row0 = 0u64;
        while row0 < rows && !self.stop_now() {
            let r = piece_rows.min(rows - row0);
            let range = (row0 * n as u64) as usize..((row0 + r) * n as u64) as usize;
            let host = match self.gpu.download_pinned(table, range, &mut pinned) {
                Ok(h) => h,
                Err(e) => {
                    *self.host = pinned;
                    return Err(e.into());
                }
            };
            let total = r.saturating_mul(per_row);
            let mut next = 0u64;
            while next < total && !self.stop_now() {
                let want = EMIT_SLICE.min(total - next);
                let taken = self.add(want as u128) as u64;
                write_embeddings(out, name, host, n, expand, next..next + taken);
                next += taken;
            }
            row0 += r;
        }
        *self.host = pinned;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use subgraph_core::plan::PlanOptions;
    use subgraph_core::sink::Control;
    use subgraph_core::{GraphBuilder, Query, Semantics};

    #[test]
    fn listed_and_walked_expansions_give_the_same_embeddings() {
        // A 4-clique of one label: 24 automorphisms, restricted to one order per match.
        let edges: Vec<(u32, u32, u32)> = (0..4).flat_map(|a| (a + 1..4).map(move |b| (a, b, 0))).collect();
        let data = GraphBuilder::from_parts(vec![0; 4], edges, false).build().0;
        let q = Query::new(data.clone(), &data, Semantics::Embed).unwrap();
        let plan = Plan::new(&data, &q, PlanOptions::default(), &Control::unlimited());
        assert_eq!(plan.multiplier, 24);
        let listed = Expand::of(&plan);
        assert!(listed.walked.is_none() && listed.per_row == 24);
        let aut = plan.symmetry.as_ref().unwrap();
        let mut position = vec![0; 4];
        plan.vertices.iter().enumerate().for_each(|(p, &u)| position[u as usize] = p);
        let walked = Expand { per_row: 24, listed: Vec::new(), walked: Some((aut, position)) };
        let row = [10, 11, 12, 13];
        let all = |e: &Expand, skip, take| {
            let mut got = Vec::new();
            e.each(&row, skip, take, &mut [0; 4], |emb| {
                got.push(emb.to_vec());
                true
            });
            got
        };
        let every = all(&listed, 0, 24);
        assert_eq!(every.len(), 24);
        let distinct: std::collections::HashSet<_> = every.iter().collect();
        assert_eq!(distinct.len(), 24, "every ordering of the row once");
        for (skip, take) in [(0, 24), (0, 5), (3, 7), (23, 1), (10, 14)] {
            assert_eq!(all(&walked, skip, take), every[skip as usize..(skip + take) as usize]);
            assert_eq!(all(&listed, skip, take), every[skip as usize..(skip + take) as usize]);
        }
    }
}
