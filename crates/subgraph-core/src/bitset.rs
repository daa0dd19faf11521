//! A fixed-size bitset over data vertices, for candidate membership tests.

/// Items per branch-free block of [`Bitset::count_in`] and [`Bitset::collect_in`].
const BLOCK: usize = 16;

#[derive(Debug, Clone)]
pub struct Bitset {
    words: Vec<u64>,
}

impl Bitset {
    pub fn new(len: usize) -> Bitset {
        Bitset { words: vec![0; len.div_ceil(64)] }
    }

    pub fn from_sorted(len: usize, items: &[u32]) -> Bitset {
        let mut b = Bitset::new(len);
        items.iter().for_each(|&i| b.insert(i));
        b
    }

    #[inline]
    pub fn insert(&mut self, i: u32) {
        self.words[i as usize >> 6] |= 1 << (i & 63);
    }

    #[inline]
    pub fn remove(&mut self, i: u32) {
        self.words[i as usize >> 6] &= !(1 << (i & 63));
    }

    /// The members of both (of equal length).
    pub fn and(mut self, other: &Bitset) -> Bitset {
        self.words.iter_mut().zip(&other.words).for_each(|(a, b)| *a &= b);
        self
    }

    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.bit(i) == 1
    }

    /// 1 when i is a member, else 0.
    #[inline]
    fn bit(&self, i: u32) -> usize {
        (self.words[i as usize >> 6] >> (i & 63) & 1) as usize
    }

    /// How many of `items` are members, counted branch-free in blocks and stopping after the
    /// block in which the count reaches `enough` (so the result is exact below `enough`, and at
    /// least `enough` otherwise).
    pub fn count_in(&self, items: &[u32], enough: usize) -> usize {
        let mut count = 0;
        let mut blocks = items.chunks_exact(BLOCK);
        for block in &mut blocks {
            count += block.iter().map(|&i| self.bit(i)).sum::<usize>();
            if count >= enough {
                return count;
            }
        }
        count + blocks.remainder().iter().map(|&i| self.bit(i)).sum::<usize>()
    }

    /// Appends the members among `items` to `out`, branch-free in blocks, and returns how many:
    /// all of them when fewer than `enough`, otherwise at least `enough` (it stops after the
    /// block in which the count reaches `enough`).
    pub fn collect_in(&self, items: &[u32], enough: usize, out: &mut Vec<u32>) -> usize {
        let start = out.len();
        // Before each block fewer than `enough` were kept, and a block keeps at most BLOCK.
        out.resize(start + items.len().min(enough.saturating_add(BLOCK - 1)), 0);
        let mut kept = 0;
        for block in items.chunks(BLOCK) {
            for &i in block {
                out[start + kept] = i;
                kept += self.bit(i);
            }
            if kept >= enough {
                break;
            }
        }
        out.truncate(start + kept);
        kept
    }

    /// The words, bit i of the set at bit i % 64 of word i / 64.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::Bitset;

    #[test]
    fn count_in_is_exact_below_enough() {
        let set = Bitset::from_sorted(200, &(0..200).filter(|i| i % 3 == 0).collect::<Vec<_>>());
        let items: Vec<u32> = (0..200).collect();
        let members = items.iter().filter(|&&i| set.contains(i)).count();
        assert_eq!(set.count_in(&items, usize::MAX), members);
        for enough in [0, 1, 5, 17, 40, members] {
            let c = set.count_in(&items, enough);
            assert!(c >= enough.min(members) && c <= members, "enough {enough}: {c}");
        }
        assert_eq!(set.count_in(&items[..10], 100), 4);
        assert_eq!(set.count_in(&[], 1), 0);
    }

    #[test]
    fn collect_in_keeps_members_in_order() {
        let set = Bitset::from_sorted(300, &(0..300).filter(|i| i % 7 == 2).collect::<Vec<_>>());
        let items: Vec<u32> = (0..300).rev().collect();
        let members: Vec<u32> = items.iter().copied().filter(|&i| set.contains(i)).collect();
        for enough in [0, 1, 3, 20, members.len(), usize::MAX] {
            let mut out = vec![9, 9];
            let c = set.collect_in(&items, enough, &mut out);
            assert_eq!(out.len(), 2 + c);
            assert_eq!(out[2..], members[..c]);
            assert!(c == members.len() || c >= enough, "enough {enough}: {c}");
        }
    }
}
