//! Several GPUs of one host (`--gpus`): one [`GpuEngine`] per device, each holding the whole
//! data graph (replicated), or, where it does not fit, its own copy of SGSI's partitions
//! ([`crate::partition`]), each device copying the segments its passes read. A
//! query is filtered and planned once, on the first device; when its estimated work makes a
//! second device worth its fixed cost, the first level's rows are dealt to every device from
//! one shared queue (`Deal`: each device claims more as it finishes, so skewed rows do
//! not leave one device working alone), the limit is shared (`Tally`), the counts are
//! summed exactly and every device writes its matches to the one output.
//!
//! Past one host, the same split holds: the plan is made once, and first-level row ranges are
//! the unit of work a distributed engine would hand to its workers (each with the graph
//! loaded), with counts summed and outputs concatenated.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use subgraph_core::pipeline::MatchOptions;
use subgraph_core::sink::{Control, Output};
use subgraph_core::Graph;
use subgraph_cuda::DeviceInfo;

use crate::engine::{GpuEngine, GpuOptions, GpuReport, Strategy};
use crate::error::Result;
use crate::options::GpuCount;

/// The engines of one data graph, one per device; the first plans every query.
pub struct GpuSet {
    engines: Vec<GpuEngine>,
}

impl GpuSet {
    /// Opens an engine on each device of `ordinals` (uploading the graph to each, in
    /// parallel). The same ordinal twice opens two engines on one device: the code path of
    /// several devices, on a host that has one.
    pub fn open(shared: Arc<Graph>, opts: &GpuOptions, ordinals: &[usize]) -> Result<GpuSet> {
        assert!(!ordinals.is_empty(), "a GPU set has at least one device");
        let engines: Result<Vec<GpuEngine>> = std::thread::scope(|s| {
            let opening: Vec<_> = ordinals
                .iter()
                .map(|&ordinal| {
                    let shared = shared.clone();
                    s.spawn(move || GpuEngine::open(shared, opts, ordinal))
                })
                .collect();
            opening.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
        });
        Ok(GpuSet { engines: engines? })
    }

    /// Opens the devices `count` asks for.
    pub fn open_count(shared: Arc<Graph>, opts: &GpuOptions, count: GpuCount) -> Result<GpuSet> {
        GpuSet::open(shared, opts, &count.present()?)
    }

    /// The engine of the first device, which plans the queries (and runs GGQ's tree counts).
    pub fn first(&self) -> &GpuEngine {
        &self.engines[0]
    }

    pub fn first_mut(&mut self) -> &mut GpuEngine {
        &mut self.engines[0]
    }

    /// Each device's name and number.
    pub fn device_infos(&self) -> Vec<&DeviceInfo> {
        self.engines.iter().map(|e| e.device_info()).collect()
    }

    /// The longest graph upload of the devices (they upload in parallel).
    pub fn graph_upload_ms(&self) -> f64 {
        self.engines.iter().map(GpuEngine::graph_upload_ms).fold(0.0, f64::max)
    }

    /// Matches `query` as [`GpuEngine::run_query`] does, on as many devices as its estimated
    /// work is worth (`gpu_opts.shared_from`, [`SHARED_QUERY_COST`] by default): the same
    /// count, limit and matches.
    ///
    /// [`SHARED_QUERY_COST`]: crate::options::SHARED_QUERY_COST
    pub fn run_query(
        &mut self,
        query: Graph,
        opts: &MatchOptions,
        gpu_opts: &GpuOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
    ) -> Result<GpuReport> {
        run_on(&mut self.engines, query, opts, gpu_opts, control, output)
    }
}

/// Runs `query` on `engines` (at least one): filtered and planned on the first, joined on all
/// of them when its estimated work reaches `gpu_opts.shared_from`, else on the first alone.
/// One engine's [`GpuEngine::run_query`] is this over itself.
pub(crate) fn run_on(
    engines: &mut [GpuEngine],
    query: Graph,
    opts: &MatchOptions,
    gpu_opts: &GpuOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
) -> Result<GpuReport> {
    let start = Instant::now();
    engines.iter().try_for_each(GpuEngine::reset_peak)?;
    let (first, rest) = engines.split_first_mut().expect("a GPU set has at least one device");
    // GpSM, the baseline, runs as its paper does: on one device, whatever it counts.
    if gpu_opts.strategy == Strategy::Gpsm {
        return first.run_gpsm(query, opts, gpu_opts, control, output);
    }
    let composed;
    let (opts, gpu_opts) = match gpu_opts.strategy {
        Strategy::Fsig => {
            composed = crate::fsig::compose(opts, gpu_opts);
            (&composed.0, &composed.1)
        }
        _ => (opts, gpu_opts),
    };
    let (planned, device_cands) = first.plan_query(query, opts, gpu_opts, output.is_none(), control)?;
    // A count the spasm can make without enumerating is made on the host's cores.
    if let Some(r) = planned.spasm_count(first.data(), opts, output.is_none(), start, control) {
        return Ok(r);
    }
    let devices = if planned.priced_cost() >= gpu_opts.shared_from as f64 { 1 + rest.len() } else { 1 };
    let tally = Tally::new(opts.limit);
    let deal = planned.deal(first.data(), devices);
    planned.begin(opts, control, output);
    let (planned, tally, deal) = (&planned, &tally, &deal);
    let joined = std::thread::scope(|s| {
        let others: Vec<_> = rest[..devices - 1]
            .iter_mut()
            .map(|engine| {
                s.spawn(move || {
                    let r = engine.join(planned, None, opts, gpu_opts, control, output, tally, deal);
                    // A device that failed claims nothing more; the others finish the rows.
                    if r.is_err() {
                        deal.abandon();
                    }
                    r
                })
            })
            .collect();
        let mine = first.join(planned, device_cands, opts, gpu_opts, control, output, tally, deal);
        if mine.is_err() {
            deal.abandon();
        }
        std::iter::once(mine)
            .chain(others.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))))
            .collect::<Result<Vec<_>>>()
    })?;
    Ok(GpuReport { strategy: gpu_opts.strategy.joined().name(), ..planned.report(start, opts, &joined, control) })
}

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
