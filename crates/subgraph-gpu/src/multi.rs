//! Several GPUs of one host (`--gpus`): one [`GpuEngine`] per device, each holding the whole
//! data graph (replicated; SGSI's partitions are for graphs that do not fit one device). A
//! query is filtered and planned once, on the first device; when its estimated work makes a
//! second device worth its fixed cost, the first level's rows are dealt to every device from
//! one shared queue (`join::Deal`: each device claims more as it finishes, so skewed rows do
//! not leave one device working alone), the limit is shared (`join::Tally`), the counts are
//! summed exactly and every device writes its matches to the one output.
//!
//! Past one host, the same split holds: the plan is made once, and first-level row ranges are
//! the unit of work a distributed engine would hand to its workers (each with the graph
//! loaded), with counts summed and outputs concatenated.

use std::sync::Arc;
use std::time::Instant;

use subgraph_core::pipeline::MatchOptions;
use subgraph_core::planner::GPU_COMPARE_COST;
use subgraph_core::sink::{Control, Output};
use subgraph_core::Graph;

use crate::cuda::{DeviceInfo, Gpu};
use crate::engine::{GpuEngine, GpuOptions, GpuReport};
use crate::error::{GpuError, Result};
use crate::join::Tally;

/// Estimated work (priced for the GPU, as the planner prices it) from which a query is joined
/// on every device of the set: five times the planner's threshold for comparing plans, about
/// 80 ms of one H200's join. Below it, one device runs the query and the others stay idle: a
/// second device's uploads and per-claim launches cost more than it saves (H200 ×2,
/// 2026-11-26: queries of 20–40 ms took 10–20 ms longer on two devices, those of 150 ms and
/// more took 0.52–0.88 of their time).
pub const SHARED_QUERY_COST: f64 = 5.0 * GPU_COMPARE_COST;

/// How many GPUs `--gpus` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuCount {
    /// This many (at least one).
    Count(usize),
    /// Every device the driver reports.
    All,
}

impl GpuCount {
    /// The device ordinals asked for, with `present` devices on the host: an error when more
    /// are asked for than there are.
    pub fn ordinals(self, present: usize) -> Result<Vec<usize>> {
        let n = match self {
            GpuCount::All => present.max(1),
            GpuCount::Count(n) => n.max(1),
        };
        if n > present.max(1) {
            return Err(GpuError::Mismatch(format!("--gpus {n}: the driver reports {present} device(s)")));
        }
        Ok((0..n).collect())
    }
}

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
        let present = Gpu::count()?;
        GpuSet::open(shared, opts, &count.ordinals(present)?)
    }

    /// The engine of the first device, which plans the queries (and runs GGQ's tree counts).
    pub fn first(&self) -> &GpuEngine {
        &self.engines[0]
    }

    pub fn first_mut(&mut self) -> &mut GpuEngine {
        &mut self.engines[0]
    }

    pub fn len(&self) -> usize {
        self.engines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.engines.is_empty()
    }

    /// Each device's name and number.
    pub fn device_infos(&self) -> Vec<&DeviceInfo> {
        self.engines.iter().map(|e| e.device_info()).collect()
    }

    /// The longest graph upload of the devices (they upload in parallel).
    pub fn graph_upload_ms(&self) -> f64 {
        self.engines.iter().map(GpuEngine::graph_upload_ms).fold(0.0, f64::max)
    }

    /// Device bytes held now, on the device that holds most.
    pub fn device_bytes(&self) -> u64 {
        self.engines.iter().map(GpuEngine::device_bytes).max().unwrap_or(0)
    }

    /// Matches `query` as [`GpuEngine::run_query`] does, on as many devices as its estimated
    /// work is worth (`gpu_opts.shared_from`, [`SHARED_QUERY_COST`] by default): the same
    /// count, limit and matches.
    pub fn run_query(
        &mut self,
        query: Graph,
        opts: &MatchOptions,
        gpu_opts: &GpuOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
    ) -> Result<GpuReport> {
        let start = Instant::now();
        self.engines.iter().for_each(GpuEngine::reset_peak);
        let (first, rest) = self.engines.split_first_mut().expect("a GPU set has at least one device");
        let (planned, device_cands) = first.plan_query(query, opts, gpu_opts, output.is_none(), control)?;
        let devices = if planned.priced_cost() >= gpu_opts.shared_from as f64 { 1 + rest.len() } else { 1 };
        let tally = Tally::new(opts.limit);
        let data = first.data().clone();
        let deal = planned.deal(&data, devices);
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
        Ok(planned.report(start, opts, &joined, control))
    }
}
