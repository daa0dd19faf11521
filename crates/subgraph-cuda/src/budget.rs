//! The device-memory budget of one [`Gpu`](crate::Gpu): bytes held in its live buffers and the
//! most held since the last reset, the cap on them (a memory budget), and the device's free
//! bytes at the driver's last answer, from which small allocations are checked without asking
//! again.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes held in live [`DeviceBuffer`]s of one [`Gpu`], the most held since the last reset, the
/// cap on them, and the device's free bytes at the last look with the bytes held then.
#[derive(Debug)]
pub(crate) struct Usage {
    pub(crate) live: AtomicU64,
    pub(crate) peak: AtomicU64,
    /// Most bytes the buffers may hold together (`u64::MAX`: the device's free memory alone).
    pub(crate) cap: AtomicU64,
    /// Free device bytes when the driver was last asked (`cuMemGetInfo`), and `live` then.
    pub(crate) seen_free: AtomicU64,
    pub(crate) seen_live: AtomicU64,
}

impl Default for Usage {
    fn default() -> Self {
        Usage {
            live: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            cap: AtomicU64::new(u64::MAX),
            seen_free: AtomicU64::new(0),
            seen_live: AtomicU64::new(0),
        }
    }
}

impl Usage {
    /// Free device bytes by the last look, less what this `Gpu`'s buffers took since (plus
    /// what they gave back).
    pub(crate) fn free_guess(&self) -> u64 {
        let held_since = self.live.load(Ordering::Relaxed) as i128 - self.seen_live.load(Ordering::Relaxed) as i128;
        (self.seen_free.load(Ordering::Relaxed) as i128 - held_since).clamp(0, u64::MAX as i128) as u64
    }
}

/// An allocation of at most this share of the free bytes guessed from the last look
/// ([`Usage::free_guess`]) is made without asking the driver again: `cuMemGetInfo` costs about
/// 5 µs, as much as the allocation, and a small query allocates 100–150 buffers
/// (bench/results/2026-11-26-host-overhead.md).
pub(crate) const GUESS_SHARE: u64 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_free_guess_follows_the_buffers_since_the_last_look() {
        let usage = Usage::default();
        assert_eq!(usage.free_guess(), 0, "no look yet: every allocation asks the driver");
        usage.seen_free.store(1000, Ordering::Relaxed);
        usage.seen_live.store(100, Ordering::Relaxed);
        usage.live.store(100, Ordering::Relaxed);
        assert_eq!(usage.free_guess(), 1000);
        usage.live.store(300, Ordering::Relaxed);
        assert_eq!(usage.free_guess(), 800, "200 bytes taken since the look");
        usage.live.store(40, Ordering::Relaxed);
        assert_eq!(usage.free_guess(), 1060, "60 bytes given back since the look");
        usage.live.store(5000, Ordering::Relaxed);
        assert_eq!(usage.free_guess(), 0, "more taken than was free: nothing is guessed free");
    }
}
