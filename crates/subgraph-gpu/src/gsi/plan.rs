//! A query filtered and planned for GSI's join (`Planned`), on one device, and what each
//! device's join of it did (`Joined`): the structure it reads, the deal of its first-level rows
//! to the devices, and its report from theirs.

use std::time::Instant;

use subgraph_core::pipeline::{MatchOptions, Report};
use subgraph_core::plan::Plan;
use subgraph_core::planner::H200_COSTS;
use subgraph_core::sink::{Control, Output, Stopped};
use subgraph_core::spasm;
use subgraph_core::{Graph, Query};

use crate::fsig;
use crate::multi::deal::Deal;
use crate::options::{CandidateFilter, Strategy, Structure};
use crate::shared::report::{DfsStats, GpuReport, Spill, Streamed};

/// A query filtered and planned (on one device), ready to be joined on that device or on
/// several, each claiming first-level rows from a [`Deal`].
pub(crate) struct Planned {
    pub(crate) q: Query,
    pub(crate) plan: Plan,
    pub(crate) filter: CandidateFilter,
    /// Whether the plan may count its last positions with the depth-first kernel.
    pub(crate) may_dfs: bool,
    /// Whether there is anything to join (the plan is not empty, nor stopped while planned).
    pub(crate) joins: bool,
}

/// What one device's join of a [`Planned`] query did.
pub(crate) struct Joined {
    pub(crate) structure: Structure,
    pub(crate) count: u128,
    pub(crate) upload_ms: f64,
    pub(crate) join_ms: f64,
    pub(crate) space_bytes: u64,
    pub(crate) peak_device_bytes: u64,
    pub(crate) nodes: u64,
    pub(crate) chunks: u64,
    pub(crate) buffer_elements: u64,
    pub(crate) joined_rows: u64,
    pub(crate) block_tasks: u64,
    pub(crate) grid_tasks: u64,
    pub(crate) dfs: DfsStats,
    pub(crate) spill: Spill,
    pub(crate) alpha_retries: u64,
    pub(crate) partitioned: bool,
    pub(crate) streamed: Streamed,
}

impl Planned {
    /// The query counted by its spasm on the host's cores instead of joined, where `opts`
    /// allow and the join's predicted time (from [`Planned::priced_cost`]) calls for it
    /// ([`spasm::attempt`]); None to join.
    pub(crate) fn spasm_count(
        &self,
        data: &Graph,
        opts: &MatchOptions,
        counting: bool,
        start: Instant,
        control: &Control,
    ) -> Option<GpuReport> {
        let c = spasm::attempt(data, &self.q, opts.spasm(counting, H200_COSTS.gpu_ms(self.priced_cost())), control)?;
        let mut r = self.report(start, opts, &[], control);
        r.report = r.report.counted(c);
        Some(r)
    }

    /// The structure the join reads under `structure`: [`Structure::Auto`] decided, the
    /// others as they are. `auto` builds A where the candidates come from the device filter
    /// (data graphs of 2^20 vertices and more under `--gpu-filter auto`, whose PCSR slices of
    /// hub vertices A shortens for a fraction of a millisecond) or where the join's predicted
    /// time reaches [`fsig::AUX_FROM_MS`]; else PCSR.
    pub(crate) fn structure(&self, structure: Structure) -> Structure {
        let device_filter = self.filter != CandidateFilter::Host;
        match structure {
            Structure::Auto if device_filter || H200_COSTS.gpu_ms(self.priced_cost()) >= fsig::AUX_FROM_MS => {
                Structure::Aux
            }
            Structure::Auto => Structure::Pcsr,
            other => other,
        }
    }

    /// The plan's estimated work as the planner prices it for the GPU; 0 when the planner did
    /// not sample it (a query its bound showed small).
    pub(crate) fn priced_cost(&self) -> f64 {
        let plan = &self.plan;
        plan.estimate.as_ref().map_or(0.0, |e| plan.options.price(e, plan.multiplier))
    }

    /// The first level's rows, dealt to `devices` devices (heaviest first by their data
    /// vertices' squared degrees in `data` when several).
    pub(crate) fn deal(&self, data: &Graph, devices: usize) -> Deal {
        if !self.joins {
            return Deal::whole(0);
        }
        match devices {
            1 => Deal::whole(self.plan.sizes[0] as u64),
            _ => Deal::weighted(&self.plan.candidates[0], |v| (data.total_degree(v) as u64).pow(2), devices),
        }
    }

    /// Starts the query once, before any device joins it: its output header, and a limit of
    /// zero reached at once.
    pub(crate) fn begin(&self, opts: &MatchOptions, control: &Control, output: Option<(&Output, &str)>) {
        if !self.joins {
            return;
        }
        if let Some((out, name)) = output {
            out.begin_query(name, self.plan.len());
        }
        if opts.limit == Some(0) {
            control.stop(Stopped::Limit);
        }
    }

    /// The query's report from its devices' joins (started at `start`): counts and work
    /// summed, times and memory of the slowest or largest device.
    pub(crate) fn report(
        &self,
        start: Instant,
        opts: &MatchOptions,
        joined: &[Joined],
        control: &Control,
    ) -> GpuReport {
        let plan = &self.plan;
        let max = |f: fn(&Joined) -> f64| joined.iter().map(f).fold(0.0, f64::max);
        let sum = |f: fn(&Joined) -> u64| joined.iter().map(f).sum::<u64>();
        let join_ms = max(|j| j.join_ms);
        let upload_ms = max(|j| j.upload_ms);
        let stopped = control.stopped();
        let report = Report {
            embeddings: joined.iter().map(|j| j.count).sum(),
            complete: stopped.is_none(),
            stopped,
            filter: self.filter.name_with(opts.filter.applied()),
            filter_ms: plan.filter_ms,
            order_ms: plan.order_ms,
            space_ms: upload_ms,
            enumerate_ms: join_ms,
            elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
            candidates: plan.candidate_count(),
            candidate_edges: 0,
            space_bytes: joined.iter().map(|j| j.space_bytes).max().unwrap_or(0),
            nodes: sum(|j| j.nodes),
            tasks: sum(|j| j.chunks),
            order: "",
            tail: 0,
            restrictions: 0,
            multiplier: 1,
            estimated_embeddings: None,
            estimated_cost: None,
            priced_cost: None,
            spasm_terms: 0,
            space: None,
            bitmaps: 0,
            trial_ms: 0.0,
            compare_ms: 0.0,
            probe_ms: 0.0,
            spasm_ms: 0.0,
        }
        .with_plan(plan);
        GpuReport {
            report,
            upload_ms,
            filter_ms: plan.filter_ms,
            join_ms,
            peak_device_bytes: joined.iter().map(|j| j.peak_device_bytes).max().unwrap_or(0),
            buffer_elements: sum(|j| j.buffer_elements),
            joined_rows: sum(|j| j.joined_rows),
            block_tasks: sum(|j| j.block_tasks),
            grid_tasks: sum(|j| j.grid_tasks),
            dfs: joined.iter().fold(DfsStats::default(), |a, j| a.merge(&j.dfs)),
            spill: joined.iter().map(|j| j.spill).sum(),
            alpha_retries: sum(|j| j.alpha_retries),
            devices: joined.len(),
            idle_ms: joined.iter().map(|j| join_ms - j.join_ms).sum(),
            strategy: Strategy::Gsi.name(),
            structure: joined.first().map_or("none", |j| j.structure.name()),
            partitioned: joined.iter().any(|j| j.partitioned),
            streamed: joined.iter().fold(Streamed::default(), |a, j| Streamed {
                segments: a.segments + j.streamed.segments,
                bytes: a.bytes + j.streamed.bytes,
            }),
        }
    }
}
