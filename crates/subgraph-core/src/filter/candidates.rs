//! Candidate sets, the type every filter fills, and the parallel pass that thins them while
//! the query runs: below both the local pass (`filter`) and the global refinement
//! (`filter::refine`).

use crate::sink::Control;
use rayon::prelude::*;

/// Candidates per parallel piece of work: below this, splitting costs more than it saves.
pub(super) const PAR_MIN: usize = 512;

/// Candidate vertices of each query vertex, sorted by id.
pub type Candidates = Vec<Vec<u32>>;

/// The vertices of `items` that pass `keep`, in order, tested in parallel pieces: once
/// `control` says stop (it is asked once per piece), the pieces not yet tested are kept whole.
pub(super) fn keep_while_running(items: &[u32], control: &Control, keep: impl Fn(u32) -> bool + Sync) -> Vec<u32> {
    let keep = &keep;
    items
        .par_chunks(PAR_MIN)
        .flat_map_iter(|piece| {
            let stopped = control.should_stop();
            piece.iter().copied().filter(move |&v| stopped || keep(v))
        })
        .collect()
}
