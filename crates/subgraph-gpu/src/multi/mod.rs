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

pub mod deal;

use std::sync::Arc;
use std::time::Instant;

use subgraph_core::pipeline::MatchOptions;
use subgraph_core::sink::{Control, Output};
use subgraph_core::Graph;
use subgraph_cuda::DeviceInfo;

use crate::engine::{GpuEngine, GpuOptions, Strategy};
use crate::error::Result;
use crate::options::GpuCount;
use crate::shared::report::GpuReport;
use crate::shared::tally::Tally;

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
