//! A position's candidate-edge lists as bitmaps over its candidates, where they are dense
//! (issue 44; gMatch's bitmap candidate graph, Chen et al., PVLDB 19(8)): a level's local
//! candidates are then the bits of the AND of one row per link, and a count at the last level
//! its popcount, a few words each, instead of an intersection of sorted lists of dozens or
//! hundreds of indices.

use crate::plan::Plan;

/// Whether an eager space also keeps its lists as bitmaps (`--bitmaps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bitmaps {
    /// Where they are dense enough ([`DENSE`]) and small enough ([`MAX_BYTES`]).
    Auto,
    /// Wherever the plan allows them, within [`MAX_BYTES`].
    On,
    Off,
}

impl Bitmaps {
    pub const NAMES: &'static [&'static str] = &["auto", "on", "off"];

    pub fn name(self) -> &'static str {
        match self {
            Bitmaps::Auto => "auto",
            Bitmaps::On => "on",
            Bitmaps::Off => "off",
        }
    }

    pub fn from_name(name: &str) -> Option<Bitmaps> {
        [Bitmaps::Auto, Bitmaps::On, Bitmaps::Off].into_iter().find(|b| b.name() == name)
    }
}

/// The most bytes a query's bitmaps may take (less where `--max-memory` leaves less).
pub const MAX_BYTES: u64 = 32 << 20;

/// `auto` keeps a link's lists as bitmaps where a row's words are at most this many times its
/// mean list length: an AND and a popcount per word against a merge step per index.
pub const DENSE: f64 = 1.0;

/// The positions of `plan` whose lists may also be kept as bitmaps, deepest first, within
/// `budget` bytes together: those with two links or more (one list needs no intersection)
/// that the engine sets up from lists (not those of a counted tail).
pub(super) fn positions(plan: &Plan, budget: u64) -> Vec<usize> {
    if plan.empty {
        return Vec::new();
    }
    let mut total = 0;
    (0..plan.len() - plan.tail)
        .rev()
        .filter(|&i| plan.backward[i].len() >= 2)
        .filter(|&i| {
            let b = bytes(plan, i);
            total += b;
            total <= budget
        })
        .collect()
}

/// Bytes of the bitmaps of position `pos` of `plan`, one row per candidate of each link's source.
pub(super) fn bytes(plan: &Plan, pos: usize) -> u64 {
    let words = plan.candidates[pos].len().div_ceil(64) as u64;
    plan.backward[pos].iter().map(|l| plan.candidates[l.from].len() as u64 * words * 8).sum()
}

/// The bitmaps of one position's links: row `a` of link `j` has bit `c` set where candidate
/// `c` of the position is adjacent to candidate `a` of the link's source.
#[derive(Debug)]
pub struct Bits {
    /// Words a row.
    pub words: usize,
    rows: Vec<Vec<u64>>,
    popcnt: bool,
}

impl Bits {
    /// The bitmaps of `pos` from its sorted lists (`list(j, a)`: link j, source candidate a),
    /// when `mode` and the lists' density call for them.
    pub(super) fn make<'l>(
        plan: &Plan,
        pos: usize,
        mode: Bitmaps,
        list: impl Fn(usize, u32) -> &'l [u32],
        edges: impl Fn(usize) -> u64,
    ) -> Option<Bits> {
        if mode == Bitmaps::Off {
            return None;
        }
        let words = plan.candidates[pos].len().div_ceil(64);
        let back = &plan.backward[pos];
        if mode == Bitmaps::Auto {
            // Every link dense: the count's AND reads every link's row.
            let dense = back.iter().enumerate().all(|(j, l)| {
                let mean = edges(j) as f64 / plan.candidates[l.from].len().max(1) as f64;
                words as f64 <= DENSE * mean
            });
            if !dense {
                return None;
            }
        }
        let rows = (0..back.len())
            .map(|j| {
                let sources = plan.candidates[back[j].from].len();
                let mut row = vec![0u64; sources * words];
                for a in 0..sources {
                    let r = &mut row[a * words..(a + 1) * words];
                    for &c in list(j, a as u32) {
                        r[c as usize >> 6] |= 1 << (c & 63);
                    }
                }
                row
            })
            .collect();
        #[cfg(target_arch = "x86_64")]
        let popcnt = std::arch::is_x86_feature_detected!("popcnt");
        #[cfg(not(target_arch = "x86_64"))]
        let popcnt = false;
        Some(Bits { words, rows, popcnt })
    }

    /// Row `a` of link `j`.
    #[inline(always)]
    pub fn row(&self, j: usize, a: u32) -> &[u64] {
        let w = self.words;
        &self.rows[j][a as usize * w..(a as usize + 1) * w]
    }

    /// Candidates (indices from `cut` on) set in every row.
    #[inline]
    pub fn count(&self, rows: &[&[u64]], cut: u32) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if self.popcnt {
            // SAFETY: the CPU has POPCNT, checked when the bitmaps were made.
            return unsafe { count_popcnt(rows, cut) };
        }
        count_with(rows, cut)
    }

    /// Appends to `out` the candidates (indices from `cut` on) set in every row, in order.
    #[inline]
    pub fn collect(&self, rows: &[&[u64]], cut: u32, out: &mut Vec<u32>) {
        let (first, rest) = rows.split_first().expect("two rows or more");
        let start = cut as usize >> 6;
        for w in start..first.len() {
            let mut x = first[w];
            for r in rest {
                x &= r[w];
            }
            if w == start {
                x &= !0u64 << (cut & 63);
            }
            while x != 0 {
                out.push((w as u32) << 6 | x.trailing_zeros());
                x &= x - 1;
            }
        }
    }

    /// Whether candidate `c` is set in every row.
    #[inline]
    pub fn all(rows: &[&[u64]], c: u32) -> bool {
        rows.iter().all(|r| r[c as usize >> 6] >> (c & 63) & 1 == 1)
    }

    pub fn memory_bytes(&self) -> u64 {
        self.rows.iter().map(|r| r.len() as u64 * 8).sum()
    }
}

#[inline(always)]
fn count_with(rows: &[&[u64]], cut: u32) -> u64 {
    let (first, rest) = rows.split_first().expect("two rows or more");
    let start = cut as usize >> 6;
    let mut total = 0u64;
    for w in start..first.len() {
        let mut x = first[w];
        for r in rest {
            x &= r[w];
        }
        if w == start {
            x &= !0u64 << (cut & 63);
        }
        total += x.count_ones() as u64;
    }
    total
}

/// [`count_with`] compiled with the POPCNT instruction.
///
/// # Safety
/// The CPU must support POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn count_popcnt(rows: &[&[u64]], cut: u32) -> u64 {
    count_with(rows, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_is_the_and_from_the_cut_on() {
        let a = [0b1011u64, !0, 1 << 63];
        let b = [0b0111u64, 0x00ff, 1 << 63];
        let rows: [&[u64]; 2] = [&a, &b];
        // Word 0: 0b0011; word 1: 8 bits; word 2: bit 191.
        assert_eq!(count_with(&rows, 0), 2 + 8 + 1);
        assert_eq!(count_with(&rows, 1), 1 + 8 + 1);
        assert_eq!(count_with(&rows, 2), 8 + 1);
        assert_eq!(count_with(&rows, 64 + 4), 4 + 1);
        assert_eq!(count_with(&rows, 191), 1);
        assert!(Bits::all(&rows, 191) && Bits::all(&rows, 1) && !Bits::all(&rows, 2));
        let bits = Bits { words: 3, rows: Vec::new(), popcnt: false };
        let mut out = Vec::new();
        bits.collect(&rows, 1, &mut out);
        assert_eq!(out, [1, 64, 65, 66, 67, 68, 69, 70, 71, 191]);
        out.clear();
        bits.collect(&rows, 70, &mut out);
        assert_eq!(out, [70, 71, 191]);
    }
}
