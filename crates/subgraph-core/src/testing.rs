//! What the unit tests share: a small deterministic generator for their random graphs.

/// Xorshift64 from `seed` (not 0): each call steps it and returns the state modulo `m`.
pub fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut s = seed;
    move |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    }
}
