//! Failing sets (DP-iso, Han et al. SIGMOD 2019 §5): bitsets over matching-order positions,
//! `W` words wide.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Fs<const W: usize>([u64; W]);

impl<const W: usize> Fs<W> {
    pub(super) const EMPTY: Fs<W> = Fs([0; W]);
    /// Every position: the set returned when a match was found below, which prunes nothing.
    pub(super) const FULL: Fs<W> = Fs([!0; W]);

    #[inline]
    pub(super) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub(super) fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    #[inline]
    pub(super) fn union(&self, o: &Fs<W>) -> Fs<W> {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(o.0.iter()) {
            *a |= b;
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::Fs;

    #[test]
    fn set_ops() {
        let mut a = Fs::<2>::EMPTY;
        a.insert(3);
        a.insert(70);
        assert!(a.contains(3) && a.contains(70) && !a.contains(4));
        let mut b = Fs::<2>::EMPTY;
        b.insert(4);
        let c = a.union(&b);
        assert!(c.contains(4) && c.contains(70));
        assert!(Fs::<2>::FULL.contains(127));
    }
}
