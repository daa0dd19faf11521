//! Several GPUs of one host (`--gpus`): one [`GpuEngine`](crate::GpuEngine) per device (a
//! [`GpuSet`](crate::GpuSet)), each holding the whole data graph (replicated), or, where it does
//! not fit, its own copy of SGSI's partitions ([`crate::partition`]), each device copying the
//! segments its passes read. A query is filtered and planned once, on the first device
//! (`join_on`); when its estimated work makes a
//! second device worth its fixed cost, the first level's rows are dealt to every device from
//! one shared queue (`Deal`: each device claims more as it finishes, so skewed rows do
//! not leave one device working alone), the limit is shared (`Tally`), the counts are
//! summed exactly and every device writes its matches to the one output.
//!
//! Past one host, the same split holds: the plan is made once, and first-level row ranges are
//! the unit of work a distributed engine would hand to its workers (each with the graph
//! loaded), with counts summed and outputs concatenated.

pub mod deal;

use std::time::Instant;

use subgraph_core::pipeline::MatchOptions;
use subgraph_core::sink::{Control, Output};
use subgraph_core::Graph;

use crate::device::GpuDevice;
use crate::error::Result;
use crate::gsi::query::Gsi;
use crate::options::GpuOptions;
use crate::shared::report::GpuReport;
use crate::shared::tally::Tally;

/// Joins `query` by GSI's join on `devices` (at least one, each with its GSI kernels; the run
/// started at `start`): filtered and planned on the first, joined on all of them when its
/// estimated work reaches `gpu_opts.shared_from`, else on the first alone.
pub(crate) fn join_on(
    devices: &mut [(&mut GpuDevice, &mut Gsi)],
    start: Instant,
    query: Graph,
    opts: &MatchOptions,
    gpu_opts: &GpuOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
) -> Result<GpuReport> {
    let ((first, gsi), rest) = devices.split_first_mut().expect("a GPU set has at least one device");
    let (planned, device_cands) = gsi.plan_query(first, query, opts, gpu_opts, output.is_none(), control)?;
    // A count the spasm can make without enumerating is made on the host's cores.
    if let Some(r) = planned.spasm_count(&first.data, opts, output.is_none(), start, control) {
        return Ok(r);
    }
    let devices = if planned.priced_cost() >= gpu_opts.shared_from as f64 { 1 + rest.len() } else { 1 };
    let tally = Tally::new(opts.limit);
    let deal = planned.deal(&first.data, devices);
    planned.begin(opts, control, output);
    let (planned, tally, deal) = (&planned, &tally, &deal);
    let joined = std::thread::scope(|s| {
        let others: Vec<_> = rest[..devices - 1]
            .iter_mut()
            .map(|(device, gsi)| {
                s.spawn(move || {
                    let r = gsi.join(device, planned, None, opts, gpu_opts, control, output, tally, deal);
                    // A device that failed claims nothing more; the others finish the rows.
                    if r.is_err() {
                        deal.abandon();
                    }
                    r
                })
            })
            .collect();
        let mine = gsi.join(first, planned, device_cands, opts, gpu_opts, control, output, tally, deal);
        if mine.is_err() {
            deal.abandon();
        }
        std::iter::once(mine)
            .chain(others.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))))
            .collect::<Result<Vec<_>>>()
    })?;
    Ok(GpuReport { strategy: gpu_opts.strategy.joined().name(), ..planned.report(start, opts, &joined, control) })
}
