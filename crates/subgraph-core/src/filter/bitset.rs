//! A fixed-size bitset over data vertices, for candidate membership tests.

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

    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.words[i as usize >> 6] >> (i & 63) & 1 == 1
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }
}
