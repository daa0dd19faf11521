//! The first level's rows of one query, dealt to the devices that join it from one shared queue.

use std::sync::atomic::{AtomicU64, Ordering};

/// Guided self-scheduling of one query's first-level rows: each claim takes a
/// 1/(`DEAL_SHARE` · devices) share of the work left. Every claim costs a device the launches
/// and synchronisations of each level, so claims are few, about 16 for two devices, yet the
/// last ones small, so that the devices finish together (H200 ×2, 2026-11-26, G1's dense_8_4,
/// 3.9 s on two devices: with 1/8 shares and a 1/128 floor, 29 claims, the devices waited
/// 86 ms in all for the last; with 1/4 shares and a 1/32 floor, 11 claims, 379 ms).
pub const DEAL_SHARE: u64 = 2;
/// No claim is smaller than 1/(`DEAL_FLOOR` · devices) of all the work (nor than one row).
pub const DEAL_FLOOR: u64 = 64;

/// The first level's rows of one query, dealt to the devices that join it as each asks for
/// more (a shared queue, not a static split). Several devices get the rows heaviest first
/// (by a weight per row: its data vertex's squared degree, a hub's subtree dwarfing the
/// rest), in claims of a shrinking share of the work left: a hub row is a claim of its own,
/// light rows go in claims of thousands, and the devices finish together (contiguous ranges
/// of rows by id left one device working alone for 1.5 s of a 3.8 s query on a 10^9-edge
/// graph, where hubs sat in the last claims). One device takes all rows, in the plan's order,
/// in one claim.
pub(crate) struct Deal {
    /// The rows in dealing order (data vertices of the first position); None: the plan's
    /// order, `len` rows.
    rows: Option<Vec<u32>>,
    len: u64,
    /// Work up to and including each row, in dealing order (empty: one claim of all rows).
    ends: Vec<u64>,
    devices: u64,
    next: AtomicU64,
}

impl Deal {
    /// All `rows` rows in the plan's order, in one claim (one device).
    pub(crate) fn whole(rows: u64) -> Deal {
        Deal { rows: None, len: rows, ends: Vec::new(), devices: 1, next: AtomicU64::new(0) }
    }

    /// The data vertices `rows` weighted by `weight`, heaviest first, for `devices` devices.
    pub(crate) fn weighted(rows: &[u32], weight: impl Fn(u32) -> u64, devices: usize) -> Deal {
        let mut weighted: Vec<(u64, u32)> = rows.iter().map(|&v| (weight(v), v)).collect();
        weighted.sort_unstable_by(|a, b| b.cmp(a));
        let ends = weighted
            .iter()
            .scan(0u64, |sum, &(w, _)| {
                *sum = sum.saturating_add(w.max(1));
                Some(*sum)
            })
            .collect();
        let rows: Vec<u32> = weighted.into_iter().map(|(_, v)| v).collect();
        let len = rows.len() as u64;
        Deal { rows: Some(rows), len, ends, devices: devices.max(1) as u64, next: AtomicU64::new(0) }
    }

    /// The rows in dealing order, where they are not the plan's.
    pub(crate) fn rows(&self) -> Option<&[u32]> {
        self.rows.as_deref()
    }

    /// Deals no more rows (a device failed: the query ends with its error).
    pub(crate) fn abandon(&self) {
        self.next.fetch_max(self.len, Ordering::Relaxed);
    }

    /// The next rows to join, [start, end) in dealing order; None when all are claimed.
    pub(crate) fn claim(&self) -> Option<(u64, u64)> {
        let mut claimed = None;
        let _ = self.next.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |start| {
            claimed = None;
            if start >= self.len {
                return None;
            }
            let end = match self.ends.last() {
                None => self.len,
                Some(&total) => {
                    let done = if start == 0 { 0 } else { self.ends[start as usize - 1] };
                    let share = ((total - done) / (DEAL_SHARE * self.devices)).max(total / (DEAL_FLOOR * self.devices));
                    // The rows that reach the share, the one reaching it included.
                    let below = self.ends[start as usize..].partition_point(|&e| e - done < share.max(1));
                    (start + below as u64 + 1).min(self.len)
                }
            };
            claimed = Some((start, end));
            Some(end)
        });
        claimed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deals_cover_every_row_once_heaviest_first() {
        // One device: every row, in the plan's order, in one claim.
        let one = Deal::whole(1000);
        assert_eq!((one.claim(), one.rows()), (Some((0, 1000)), None));
        assert_eq!(one.claim(), None);
        assert_eq!(Deal::weighted(&[], |_| 1, 3).claim(), None);
        for (n, devices) in [(1u32, 2usize), (7, 2), (1000, 2), (100_003, 4)] {
            // Skewed weights: a few hubs, many light rows, some of weight 0.
            let rows: Vec<u32> = (0..n).map(|i| i * 3).collect();
            let weight = |v: u32| match v % 1000 {
                0 => 1 << 30,
                x if x % 7 == 0 => 0,
                x => x as u64,
            };
            let deal = Deal::weighted(&rows, weight, devices);
            let order = deal.rows().unwrap().to_vec();
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, rows, "every row once");
            assert!(order.windows(2).all(|w| weight(w[0]) >= weight(w[1])), "heaviest first");
            let mut claims = Vec::new();
            while let Some(c) = deal.claim() {
                claims.push(c);
            }
            assert_eq!((claims[0].0, claims.last().unwrap().1), (0, n as u64));
            claims.windows(2).for_each(|w| assert_eq!(w[0].1, w[1].0));
            // Each claim stops at the row that reaches its share of the work left.
            let w = |i: u64| weight(order[i as usize]).max(1);
            let total: u64 = (0..n as u64).map(w).sum();
            let mut left = total;
            for &(a, b) in &claims {
                let share = (left / (DEAL_SHARE * devices as u64)).max(total / (DEAL_FLOOR * devices as u64)).max(1);
                let work: u64 = (a..b).map(w).sum();
                assert!(work - w(b - 1) < share, "{a}..{b}: {work} for a share of {share}");
                assert!(work >= share || b == n as u64);
                left -= work;
            }
            assert!(claims.len() as u64 <= 8 * DEAL_SHARE * devices as u64 + DEAL_FLOOR, "{}", claims.len());
            // A lone hub (2^30 against less than 10^3 · n for the rest) is a claim of its own.
            if n == 1000 {
                assert_eq!(claims[0], (0, 1));
            }
        }
        // Threads claiming together get disjoint claims that cover the rows; an abandoned
        // deal deals nothing more.
        let rows: Vec<u32> = (0..1 << 20).collect();
        let deal = Deal::weighted(&rows, |v| (v % 97) as u64, 4);
        let claimed: Vec<Vec<(u64, u64)>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        let mut mine = Vec::new();
                        while let Some(c) = deal.claim() {
                            mine.push(c);
                        }
                        mine
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all: Vec<(u64, u64)> = claimed.into_iter().flatten().collect();
        all.sort();
        assert_eq!((all[0].0, all.last().unwrap().1), (0, 1 << 20));
        all.windows(2).for_each(|w| assert_eq!(w[0].1, w[1].0));
        let deal = Deal::weighted(&rows[..100], |_| 1, 2);
        deal.claim();
        deal.abandon();
        assert_eq!(deal.claim(), None);
    }
}
