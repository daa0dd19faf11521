//! Local candidates kept between siblings (issue 44; the thesis' §1 observation that sibling
//! partial matches share intersections, BUG's cache): a position whose links all come from
//! positions above its parent has the same local candidates under every candidate of its
//! parent, so the level made for one sibling serves the next while the link vertices and the
//! symmetry cut it was made from are the same.

use crate::plan::Plan;

/// Per position of `plan`, whether its level may repeat between siblings of its parent: two
/// links or more (one link's level is a slice, made for free), none from the position just
/// above it.
pub(super) fn reusable(plan: &Plan) -> Vec<bool> {
    plan.backward.iter().enumerate().map(|(d, back)| back.len() >= 2 && back.iter().all(|l| l.from + 1 < d)).collect()
}

/// A worker's record, per reusable position, of what its last level was made from: the
/// vertices bound at its links, then the cut, and the count a counted last level had.
pub(super) struct Keys {
    stride: usize,
    keys: Vec<u32>,
    made: Vec<bool>,
    /// Per position, the candidates its last counted level had ([`Keys::counted`]).
    counts: Vec<u64>,
}

impl Keys {
    pub(super) fn new(plan: &Plan) -> Keys {
        let n = plan.len();
        let stride = plan.backward.iter().map(Vec::len).max().unwrap_or(0) + 1;
        Keys { stride, keys: vec![0; n * stride], made: vec![false; n], counts: vec![0; n] }
    }

    /// Whether position d's last level was made from `vids` (the vertices at its links, in
    /// order) and `cut`; if not, records them as what the level about to be made is made from.
    #[inline]
    pub(super) fn same(&mut self, d: usize, vids: impl ExactSizeIterator<Item = u32>, cut: u32) -> bool {
        let k = vids.len();
        let key = &mut self.keys[d * self.stride..d * self.stride + k + 1];
        let mut same = self.made[d] && key[k] == cut;
        for (slot, v) in key.iter_mut().zip(vids) {
            same &= *slot == v;
            *slot = v;
        }
        key[k] = cut;
        self.made[d] = true;
        same
    }

    /// The count of position d's last counted level, where [`Keys::same`] found it the same.
    #[inline]
    pub(super) fn counted(&self, d: usize) -> u64 {
        self.counts[d]
    }

    #[inline]
    pub(super) fn count(&mut self, d: usize, count: u64) {
        self.counts[d] = count;
    }
}
