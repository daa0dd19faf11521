//! Deterministic random numbers: SplitMix64 to derive seeds and hash positions, xoshiro256**
//! (Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2021) for streams.

/// One SplitMix64 step: a bijective 64-bit mix, used to hash (seed, position) to a value.
#[inline]
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A value determined by `seed` and a sequence of keys.
#[inline]
pub(crate) fn hash(seed: u64, keys: &[u64]) -> u64 {
    keys.iter().fold(mix(seed), |h, &k| mix(h ^ k))
}

/// A uniform value below `bound` (> 0) from 64 random bits (Lemire's multiply-shift; the bias
/// is below bound / 2^64).
#[inline]
pub(crate) fn below(bits: u64, bound: u64) -> u64 {
    ((bits as u128 * bound as u128) >> 64) as u64
}

/// A uniform float in [0, 1) from 64 random bits.
#[inline]
pub(crate) fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// xoshiro256**, seeded through SplitMix64.
#[derive(Debug, Clone)]
pub(crate) struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        let mut z = seed;
        let mut s = [0u64; 4];
        for x in &mut s {
            z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
            *x = mix(z);
        }
        Rng { s }
    }

    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform below `bound` (> 0).
    #[inline]
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        below(self.next_u64(), bound)
    }

    #[inline]
    pub(crate) fn unit(&mut self) -> f64 {
        unit(self.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_roughly_uniform() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            let x = a.below(10);
            assert_eq!(x, b.below(10));
            counts[x as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (9_000..11_000).contains(&c)), "{counts:?}");
        assert_ne!(Rng::new(8).next_u64(), Rng::new(7).next_u64());
        assert_ne!(hash(1, &[2, 3]), hash(1, &[3, 2]));
        let u = unit(u64::MAX);
        assert!(u < 1.0 && u > 0.999);
    }
}
