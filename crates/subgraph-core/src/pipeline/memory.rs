//! A plan's candidate space, built as `--space` says within the memory the host has and
//! `--max-memory` allows: refused with an error where even its tightest bound cannot fit. Its
//! bitmaps (`--bitmaps`) take only what the cap leaves beside the lists' loose bound.

use super::options::MatchOptions;
use crate::error::Error;
use crate::graph::Graph;
use crate::host::bytes;
use crate::plan::Plan;
use crate::sink::Control;
use crate::space::{CandidateSpace, BITMAP_BYTES};
use std::time::Instant;

/// The candidate space of `plan` (None when `control` stopped its build) and its time, made as
/// `opts.space` says (`auto`: lazy for a trial, which may stop early, or under a limit) and
/// refused when it cannot fit the available memory or `max_memory`.
pub(super) fn build_space(
    data: &Graph,
    plan: &Plan,
    opts: &MatchOptions,
    trial: bool,
    control: &Control,
) -> Result<(Option<CandidateSpace>, f64), Error> {
    let t = Instant::now();
    // A space under 64 MiB (and under the cap) is allocated without asking the system (a /proc
    // read costs more than small queries take).
    let loose = CandidateSpace::bound(data, plan, false);
    if loose.bytes > (64 << 20u64).min(opts.max_memory.unwrap_or(u64::MAX)) {
        let free = crate::host::available_memory().map(|f| (f, "of memory is available"));
        let cap = opts.max_memory.map(|m| (m, "are allowed by --max-memory"));
        let budget = [free, cap].into_iter().flatten().min_by_key(|&(b, _)| b);
        if let Some((budget, why)) = budget.filter(|&(b, _)| loose.bytes > b) {
            let need = CandidateSpace::bound(data, plan, true).bytes;
            if need > budget {
                return Err(Error::Limit(format!(
                    "the candidate space needs up to {} but only {} {why}; try a stronger filter (--filter gql or cs)",
                    bytes(need),
                    bytes(budget)
                )));
            }
        }
    }
    let build = opts.space.resolve(loose.scanned, trial || opts.limit.is_some());
    // The bitmaps take what the cap leaves beside the lists' bound, at most BITMAP_BYTES.
    let left = opts.max_memory.map_or(BITMAP_BYTES, |m| m.saturating_sub(loose.bytes));
    let space = CandidateSpace::build_with(data, plan, loose, build, (opts.bitmaps, left.min(BITMAP_BYTES)), control);
    Ok((space, t.elapsed().as_secs_f64() * 1e3))
}
