//! One query through the whole CPU pipeline, timed per phase: plan (filter, order), candidate
//! space, enumeration.

use crate::cpu::{self, EngineOptions, FailingSets};
use crate::error::Error;
use crate::estimate;
use crate::filter::Filter;
use crate::graph::Graph;
use crate::order::Order;
use crate::plan::{Plan, PlanOptions, Symmetry, Tail};
use crate::planner::{self, Considered};
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
    /// The matching order; `None`: the planner's choice by estimated cost.
    pub order: Option<Order>,
    pub symmetry: Symmetry,
    pub tail: Tail,
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
            symmetry: p.symmetry,
            tail: p.tail,
            limit: None,
            failing_sets: FailingSets::Auto,
        }
    }
}

impl MatchOptions {
    /// The plan options; `counting` when no match is written.
    pub fn plan(&self, counting: bool) -> PlanOptions {
        PlanOptions {
            semantics: self.semantics,
            filter: self.filter,
            order: self.order,
            symmetry: self.symmetry,
            tail: self.tail,
            counting,
        }
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
    /// The order the plan matched in.
    pub order: &'static str,
    /// Last positions counted together (0: none).
    pub tail: usize,
    /// Symmetry-breaking restrictions, and the embeddings each match stands for.
    pub restrictions: usize,
    pub multiplier: u128,
    /// The planner's estimate of the embeddings, when it made one.
    pub estimated_embeddings: Option<f64>,
}

impl Report {
    /// The report's plan fields.
    pub fn with_plan(mut self, plan: &Plan) -> Report {
        self.order = plan.order.name();
        self.tail = plan.tail;
        self.restrictions = plan.restriction_count();
        self.multiplier = plan.multiplier;
        self.estimated_embeddings = plan.estimate.as_ref().map(|e| e.matches * plan.multiplier as f64);
        self
    }
}

/// A query as it ran: the report, the plan, the plans the planner estimated, and the partial
/// matches per position (`cpu::Outcome::levels`).
#[derive(Debug, Clone)]
pub struct Explained {
    pub report: Report,
    pub plan: Plan,
    pub considered: Vec<Considered>,
    pub levels: Vec<u64>,
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
    rayon::scope(|_| plan_and_enumerate(start, data, query, opts, control, output)).map(|e| e.report)
}

/// Plans `query` comparing every plan the planner considers (whatever the query's size), then
/// runs the chosen one; with `every`, runs each considered plan in turn (under a control from
/// `control`) and returns them all, the chosen one first.
pub fn explain_query(
    data: &Graph,
    query: Graph,
    opts: &MatchOptions,
    every: bool,
    control: impl Fn() -> Control + Sync,
) -> Result<Vec<Explained>, Error> {
    let start = Instant::now();
    rayon::scope(|_| {
        let q = Query::new(query, data, opts.semantics)?;
        let popts = opts.plan(true);
        let t = Instant::now();
        let cands = popts.filter.run(data, &q, popts.semantics);
        let filter_ms = t.elapsed().as_secs_f64() * 1e3;
        let engine = EngineOptions { limit: opts.limit, failing_sets: opts.failing_sets };
        let (plan, considered) = planner::compare(data, &q, popts, cands, filter_ms, planner::FULL_PARTICLES);
        let mut others = Vec::new();
        if every {
            let sizes: Vec<usize> = plan.sizes.clone();
            let by_vertex = {
                let mut p = plan.clone();
                p.take_candidates()
            };
            let mut size_of = vec![0; q.num_vertices()];
            plan.vertices.iter().zip(&sizes).for_each(|(&u, &s)| size_of[u as usize] = s);
            for c in considered.iter().filter(|c| c.vertices != plan.vertices || c.tail != plan.tail) {
                let order = Order::from_name(c.order).expect("a planner order");
                let mut p = Plan::shaped(data, &q, popts, order, c.vertices.clone(), c.tail, &size_of)
                    .with_candidates(by_vertex.clone());
                p.filter_ms = filter_ms;
                p.estimate = Some(c.estimate.clone());
                others.push(p);
            }
        }
        let mut out = Vec::new();
        for (i, plan) in std::iter::once(plan).chain(others).enumerate() {
            let start = if i == 0 { start } else { Instant::now() };
            let (space, space_ms) = build_space(data, &plan)?;
            let t = Instant::now();
            let run = cpu::enumerate(data, &plan, &space, engine, &control(), None);
            let enumerate_ms = t.elapsed().as_secs_f64() * 1e3;
            let report = report(start, &plan, &space, space_ms, enumerate_ms, &run);
            let considered = if i == 0 { considered.clone() } else { Vec::new() };
            out.push(Explained { report, levels: run.levels, plan, considered });
        }
        Ok(out)
    })
}

fn plan_and_enumerate(
    start: Instant,
    data: &Graph,
    query: Graph,
    opts: &MatchOptions,
    control: &Control,
    output: Option<(&Output, &str)>,
) -> Result<Explained, Error> {
    let q = Query::new(query, data, opts.semantics)?;
    let popts = opts.plan(output.is_none());
    let t = Instant::now();
    let cands = popts.filter.run(data, &q, popts.semantics);
    let filter_ms = t.elapsed().as_secs_f64() * 1e3;
    let engine = EngineOptions { limit: opts.limit, failing_sets: opts.failing_sets };
    // The default plan and its candidate space; a gate estimate over that space (cheap: its
    // lists are filtered already) says whether comparing plans would pay.
    let mut plan = planner::default_plan(data, &q, popts, cands, filter_ms);
    let (mut space, mut space_ms) = build_space(data, &plan)?;
    let mut considered = Vec::new();
    if !plan.empty && planner::has_alternatives(&popts) && estimate::space_bound(&plan, &space) >= planner::SMALL_COST {
        let t = Instant::now();
        let gate = estimate::space_estimate(&plan, &space, planner::GATE_PARTICLES, GATE_SEED);
        let per_particle = t.elapsed().as_secs_f64() * 1e3 / planner::GATE_PARTICLES as f64;
        match planner::comparison_particles(&gate, per_particle, rayon::current_num_threads()) {
            None => {
                plan.order_ms += t.elapsed().as_secs_f64() * 1e3;
                considered.push(Considered::of(&plan, gate.clone()));
                plan.estimate = Some(gate);
            }
            Some(particles) => {
                let (vertices, tail) = (plan.vertices.clone(), plan.tail);
                let (best, c) = planner::compare(data, &q, popts, plan.take_candidates(), filter_ms, particles);
                considered = c;
                let same = best.vertices == vertices && best.tail == tail;
                plan = best;
                if !same {
                    (space, space_ms) = build_space(data, &plan)?;
                }
            }
        }
    }
    let t = Instant::now();
    let out = cpu::enumerate(data, &plan, &space, engine, control, output);
    let enumerate_ms = t.elapsed().as_secs_f64() * 1e3;
    let report = report(start, &plan, &space, space_ms, enumerate_ms, &out);
    Ok(Explained { report, levels: out.levels, plan, considered })
}

/// Seed of the gate's sampling.
const GATE_SEED: u64 = 0x9a7e_5eed;

/// The candidate space of `plan`, refused when it cannot fit the available memory.
fn build_space(data: &Graph, plan: &Plan) -> Result<(CandidateSpace, f64), Error> {
    let t = Instant::now();
    // A space under 64 MiB is allocated without asking the system (a /proc read costs more
    // than small queries take).
    let loose = CandidateSpace::estimate_bytes(data, plan, false);
    if loose > 64 << 20 {
        let free = available_memory().filter(|&free| loose > free);
        if let Some(free) = free {
            let need = CandidateSpace::estimate_bytes(data, plan, true);
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
    let space = CandidateSpace::build(data, plan);
    Ok((space, t.elapsed().as_secs_f64() * 1e3))
}

fn report(
    start: Instant,
    plan: &Plan,
    space: &CandidateSpace,
    space_ms: f64,
    enumerate_ms: f64,
    out: &cpu::Outcome,
) -> Report {
    Report {
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
        order: "",
        tail: 0,
        restrictions: 0,
        multiplier: 1,
        estimated_embeddings: None,
    }
    .with_plan(plan)
}
