//! The limit shared by the devices that run one query: each takes what it counts, so that
//! together they take exactly the limit, as the CPU engine does.

use std::sync::atomic::{AtomicU64, Ordering};

/// The embeddings the devices running one query have taken towards its limit: each device
/// reserves what it counts, so that together they take exactly the limit, as the CPU engine
/// does (one device: the same rule, uncontended).
pub(crate) struct Tally {
    limit: Option<u64>,
    taken: AtomicU64,
}

impl Tally {
    pub(crate) fn new(limit: Option<u64>) -> Tally {
        Tally { limit, taken: AtomicU64::new(0) }
    }

    pub(crate) fn limited(&self) -> bool {
        self.limit.is_some()
    }

    /// Takes up to `k` embeddings: how many were taken, and whether the limit is reached.
    pub(crate) fn take(&self, k: u128) -> (u128, bool) {
        let Some(limit) = self.limit else {
            return (k, false);
        };
        let (mut taken, mut reached) = (0, false);
        // The closure always returns Some: the update cannot fail.
        let _ = self.taken.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
            let left = (limit - t) as u128;
            (taken, reached) = (k.min(left), k >= left);
            Some(t + taken as u64)
        });
        (taken, reached)
    }

    /// Embeddings still to take under the limit; None without one.
    pub(crate) fn left(&self) -> Option<u128> {
        self.limit.map(|l| (l - self.taken.load(Ordering::Relaxed)) as u128)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_take_exactly_the_limit_together() {
        let free = Tally::new(None);
        assert_eq!(free.take(u128::MAX), (u128::MAX, false));
        assert_eq!(free.left(), None);
        let t = Tally::new(Some(10));
        assert_eq!(t.take(4), (4, false));
        assert_eq!(t.left(), Some(6));
        assert_eq!(t.take(6), (6, true));
        assert_eq!(t.take(1), (0, true));
        // Threads taking odd amounts together take exactly the limit.
        let limit = 1_000_003u64;
        let t = Tally::new(Some(limit));
        let taken: u128 = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4u128)
                .map(|i| {
                    let t = &t;
                    s.spawn(move || {
                        let mut mine = 0;
                        loop {
                            let (k, reached) = t.take(3 + i * 5);
                            mine += k;
                            if reached {
                                return mine;
                            }
                        }
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(taken, limit as u128);
        assert_eq!(t.left(), Some(0));
    }
}
