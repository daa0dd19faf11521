//! MurmurHash2 (32-bit, Appleby), the hash the released GSI code uses for PCSR buckets and
//! signature positions (GSI §III-A, §IV-A; SGSI §3.1 names it). The device copy for 4-byte keys
//! is `murmur2_u32` in `pcsr.cu`; the two must agree.

/// The seed of the released GSI code (`HASHSEED`).
pub const SEED: u32 = 17;

/// MurmurHash2 of `key` with `seed`.
pub fn murmur2(key: &[u8], seed: u32) -> u32 {
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let mut h = seed ^ key.len() as u32;
    let mut chunks = key.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= (b as u32) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h
}

/// MurmurHash2 of the 4 little-endian bytes of `v`, as the device computes it.
pub fn murmur2_u32(v: u32, seed: u32) -> u32 {
    murmur2(&v.to_le_bytes(), seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Published vectors of the reference C implementation.
        assert_eq!(murmur2(b"", 0), 0);
        assert_eq!(murmur2(b"hello", 42), 2_013_460_684);
        assert_eq!(murmur2(b"hello", 1), 2_788_266_382);
    }

    #[test]
    fn tail_bytes_are_unsigned() {
        assert_ne!(murmur2(&[0x80], 17), murmur2(&[0x00], 17));
        assert_eq!(murmur2_u32(7, SEED), murmur2(&[7, 0, 0, 0], SEED));
    }
}
