//! One query through the whole CPU pipeline, timed per phase: plan (filter, order), candidate
//! space, enumeration.

use crate::cpu::{self, EngineOptions, FailingSets};
use crate::error::Error;
use crate::filter::Filter;
use crate::graph::Graph;
use crate::order::Order;
use crate::plan::{Plan, PlanOptions};
use crate::query::{Query, Semantics};
use crate::sink::{Control, Output, Stopped};
use crate::space::CandidateSpace;
use std::time::Instant;

const GIB: f64 = (1u64 << 30) as f64;

/// Memory the system can still give this process (Linux `MemAvailable`), if known.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Everything that decides how one query is matched.
#[derive(Debug, Clone, Copy)]
pub struct MatchOptions {
    pub semantics: Semantics,
    pub filter: Filter,
    pub order: Order,
    pub limit: Option<u64>,
    pub failing_sets: FailingSets,
}

impl Default for MatchOptions {
    fn default() -> Self {
        let p = PlanOptions::default();
        MatchOptions {
            semantics: p.semantics,
            filter: p.filter,
            order: p.order,
            limit: None,
            failing_sets: FailingSets::Auto,
        }
    }
}

impl MatchOptions {
    pub fn plan(&self) -> PlanOptions {
        PlanOptions { semantics: self.semantics, filter: self.filter, order: self.order }
    }
}

/// The result of one query with its phase times in milliseconds.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Report {
    /// Matches found; all of them when `complete`.
    pub embeddings: u128,
    pub complete: bool,
    pub stopped: Option<Stopped>,
    pub filter_ms: f64,
    pub order_ms: f64,
    pub space_ms: f64,
    pub enumerate_ms: f64,
    /// Sum of the phases (graph loading excluded).
    pub elapsed_ms: f64,
    pub candidates: u64,
    pub candidate_edges: u64,
    pub space_bytes: u64,
    pub nodes: u64,
    pub tasks: u64,
}

/// Matches `query` against `data` on the CPU with the current rayon pool's threads.
pub fn run_query(
    data: &Graph,
    query: Graph,
    opts: &MatchOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
) -> Result<Report, Error> {
    // Run on a pool thread: parallel loops started there cost a deque push, while each one
    // started from outside the pool waits for a sleeping worker to wake.
    let start = Instant::now();
    rayon::scope(|_| plan_and_enumerate(start, data, query, opts, control, output))
}

fn plan_and_enumerate(
    start: Instant,
    data: &Graph,
    query: Graph,
    opts: &MatchOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
) -> Result<Report, Error> {
    let q = Query::new(query, data, opts.semantics)?;
    let plan = Plan::new(data, &q, opts.plan());
    let t = Instant::now();
    // A space under 64 MiB is allocated without asking the system (a /proc read costs more
    // than small queries take).
    let loose = CandidateSpace::estimate_bytes(data, &plan, false);
    if loose > 64 << 20 {
        let free = available_memory().filter(|&free| loose > free);
        if let Some(free) = free {
            let need = CandidateSpace::estimate_bytes(data, &plan, true);
            if need > free {
                return Err(Error::Limit(format!(
                    "the candidate space needs up to {:.1} GiB but only {:.1} GiB of memory is available; \
                     try a stronger filter (--filter gql or cs)",
                    need as f64 / GIB,
                    free as f64 / GIB
                )));
            }
        }
    }
    let space = CandidateSpace::build(data, &plan);
    let space_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let engine = EngineOptions { limit: opts.limit, failing_sets: opts.failing_sets };
    let out = cpu::enumerate(data, &plan, &space, engine, control, output);
    let enumerate_ms = t.elapsed().as_secs_f64() * 1e3;
    Ok(Report {
        embeddings: out.embeddings,
        complete: out.stopped.is_none(),
        stopped: out.stopped,
        filter_ms: plan.filter_ms,
        order_ms: plan.order_ms,
        space_ms,
        enumerate_ms,
        elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
        candidates: plan.candidate_count(),
        candidate_edges: space.edge_count(),
        space_bytes: space.memory_bytes(),
        nodes: out.nodes,
        tasks: out.tasks,
    })
}
