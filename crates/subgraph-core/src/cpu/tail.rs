//! The plan's counted tail on the CPU (`crate::tail`): at the first tail position, the local
//! candidates of every tail position are set up from the matched prefix (the tail vertices are
//! pairwise non-adjacent, so only prefix positions bound them), the prefix's data vertices are
//! taken out, and the tail's matches are counted per label group: a lone vertex's set size, or
//! inclusion–exclusion over the group's sets of data vertices.
//!
//! It is an impl block of the engine's worker (`cpu`), which holds the tail's label groups and
//! buffers (`TailBuffers`): this file names the worker, and the worker reaches it only as a
//! method.

use super::failing::Fs;
use super::Worker;
use crate::tail::distinct_choices;

impl<'a, 's, const W: usize> Worker<'a, 's, W>
where
    'a: 's,
{
    /// Counts the tail that starts at position d (set up already) and returns the failing set:
    /// full when matches were found, else the positions the empty count depends on.
    pub(super) fn count_tail(&mut self, d: usize) -> Fs<W> {
        let sh = self.sh;
        let n = sh.n;
        for t in d + 1..n {
            self.setup(t);
        }
        let mut fs = Fs::EMPTY;
        for t in d..n {
            fs = fs.union(&sh.anc[t]);
        }
        let len = |w: &Self, t: usize| w.slots[t].level.end - w.slots[t].level.cursor;
        self.nodes += (d..n).map(|t| len(self, t) as u64).sum::<u64>();
        let mut total: u128 = 1;
        for group in &sh.tail_groups {
            let count = if !sh.injective {
                group.iter().map(|&t| len(self, t) as u128).product()
            } else if let [t] = group[..] {
                let mut hits = 0;
                for &p in sh.same_label[t].iter().filter(|&&p| p < d) {
                    if self.holds(t, self.slots[p].vid) {
                        hits += 1;
                        fs = fs.union(&sh.anc[p]);
                    }
                }
                (len(self, t) - hits) as u128
            } else {
                self.group_choices(d, group, &mut fs)
            };
            total *= count;
            if total == 0 {
                return fs;
            }
        }
        self.slots[d].bound += total.min(u64::MAX as u128) as u64;
        self.add(total * sh.plan.multiplier);
        Fs::FULL
    }

    /// Whether data vertex v is among the local candidates of position t.
    fn holds(&self, t: usize, v: u32) -> bool {
        let Ok(c) = self.sh.plan.candidates[t].binary_search(&v) else { return false };
        self.search(t, c as u32)
    }

    /// Binary search of candidate index c in position t's local range (sorted).
    fn search(&self, t: usize, c: u32) -> bool {
        let lv = &self.slots[t].level;
        let (mut lo, mut hi) = (lv.cursor, lv.end);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.item(t, mid) < c {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo < lv.end && self.item(t, lo) == c
    }

    /// Injective choices for a group of tail positions sharing a label: their local sets as
    /// data vertices without the prefix's, by inclusion–exclusion. Positions whose data vertex
    /// was taken out join the failing set.
    fn group_choices(&mut self, d: usize, group: &[usize], fs: &mut Fs<W>) -> u128 {
        let sh = self.sh;
        let mut vids = std::mem::take(&mut self.tail.vids);
        vids.resize_with(group.len(), Vec::new);
        for (set, &t) in vids.iter_mut().zip(group) {
            let cands = &sh.plan.candidates[t];
            let lv = self.slots[t].level;
            set.clear();
            set.extend((lv.cursor..lv.end).map(|k| cands[self.item(t, k) as usize]));
            for &p in sh.same_label[t].iter().filter(|&&p| p < d) {
                if let Ok(i) = set.binary_search(&self.slots[p].vid) {
                    set.remove(i);
                    *fs = fs.union(&sh.anc[p]);
                }
            }
        }
        let (count, _) = distinct_choices(&vids, &mut self.tail.scratch);
        self.tail.vids = vids;
        count
    }
}
