//! Where a count stops short (its deadline, Ctrl-C), the work each worker leaves
//! (`rest::Rest`), so that a later run goes on from there (`enumerate_rest`).
//!
//! An impl block of the engine's worker (`cpu`), as `tail.rs` is: this file names the worker,
//! and the worker reaches it only as a method.

use super::rest::Piece;
use super::Worker;

impl<'a, 's, const W: usize> Worker<'a, 's, W>
where
    'a: 's,
{
    /// The work this worker leaves, stopped in the loop of position `at`: at every position
    /// from its task's down to `at`, the candidates not yet begun under the ones bound above
    /// (at `at`, the candidate whose turn it was too).
    pub(super) fn left(&self, at: usize) -> Vec<Piece> {
        (self.root..=at)
            .filter_map(|l| {
                let lv = self.slots[l].level;
                let lo = if l == at { lv.cursor - 1 } else { lv.cursor };
                (lo < lv.end).then(|| self.task(l, lo, lv.end).into_piece())
            })
            .collect()
    }
}
