//! What one query answers: its [`Report`] (counts, phase times, the plan's shape and
//! estimates), the [`Explained`] run with the plans it compared, the [`Probe`] between two
//! plans, and how a run becomes a report.

use crate::cpu;
use crate::filter::Filter;
use crate::plan::Plan;
use crate::planner::Considered;
use crate::sink::{Control, Stopped};
use crate::space::{CandidateSpace, SpaceBuild};
use crate::spasm;
use std::time::Instant;

/// The result of one query with its phase times in milliseconds.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Report {
    /// Matches found; all of them when `complete`.
    pub embeddings: u128,
    pub complete: bool,
    pub stopped: Option<Stopped>,
    /// The filter the candidates had (`gql` or `nlf` under `auto`).
    pub filter: &'static str,
    pub filter_ms: f64,
    pub order_ms: f64,
    pub space_ms: f64,
    pub enumerate_ms: f64,
    /// Sum of the phases (graph loading excluded).
    pub elapsed_ms: f64,
    pub candidates: u64,
    /// Candidate edges made (by a lazy space: those of the blocks the search read).
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
    /// The planner's estimate of the embeddings and of the work (units of `estimate`), when
    /// it made one.
    pub estimated_embeddings: Option<f64>,
    pub estimated_cost: Option<f64>,
    /// That work priced for the device the plan was made for (rows weigh four times as much
    /// on the GPU, [`crate::estimate::GPU_WEIGHTS`]), up to the limit: what the GPU's choices
    /// of structure, spasm and sharing compare.
    pub priced_cost: Option<f64>,
    /// The distinct quotients whose homomorphisms made the count (`spasm`; 0: enumerated).
    pub spasm_terms: usize,
    /// How the CPU's candidate space was made (`eager`, `lazy`), when one was.
    pub space: Option<&'static str>,
    /// Positions whose lists the CPU's candidate space also held as bitmaps (`--bitmaps`).
    pub bitmaps: usize,
    /// Where the planning went beyond ordering, each also inside a phase above: trials of the
    /// default plan run before plans are compared (in `enumerate_ms`), the comparison's
    /// estimates (in `order_ms` where the plan it chose ran, else only in `elapsed_ms`), and the
    /// probe that settles between the default plan and the one the estimates chose, with the
    /// challenger's candidate space where the default plan stays (in `enumerate_ms`).
    pub trial_ms: f64,
    pub compare_ms: f64,
    pub probe_ms: f64,
    /// The spasm's attempt where it did not count the query (`--spasm auto` declined once its
    /// quotients were made and planned, or was not tried): outside every phase, only in
    /// `elapsed_ms`. Where it counted, its time is `enumerate_ms`.
    pub spasm_ms: f64,
}

impl Report {
    /// No match and no work, `stopped` or not: the report of a query that nothing was run for
    /// (a pattern whose labels occur together nowhere).
    pub fn nothing(filter: Filter, stopped: Option<Stopped>) -> Report {
        Report {
            embeddings: 0,
            complete: stopped.is_none(),
            stopped,
            filter: filter.name(),
            filter_ms: 0.0,
            order_ms: 0.0,
            space_ms: 0.0,
            enumerate_ms: 0.0,
            elapsed_ms: 0.0,
            candidates: 0,
            candidate_edges: 0,
            space_bytes: 0,
            nodes: 0,
            tasks: 0,
            order: "none",
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
    }

    /// The report of a count the spasm made (made after it, so that `elapsed_ms` holds it):
    /// complete, its time as the enumeration's.
    pub fn counted(mut self, c: spasm::Counted) -> Report {
        self.embeddings = c.embeddings;
        self.complete = true;
        self.stopped = None;
        self.enumerate_ms += c.ms;
        self.spasm_terms = c.terms;
        self
    }

    /// The report's plan fields.
    pub fn with_plan(mut self, plan: &Plan) -> Report {
        self.order = plan.order.name();
        self.tail = plan.tail;
        self.restrictions = plan.restriction_count();
        self.multiplier = plan.multiplier;
        self.estimated_embeddings = plan.estimate.as_ref().map(|e| e.matches * plan.multiplier as f64);
        self.estimated_cost = plan.estimate.as_ref().map(|e| e.cost);
        self.priced_cost = plan.estimate.as_ref().map(|e| plan.options.price(e, plan.multiplier));
        self
    }

    /// The distinct subgraphs the embeddings stand for, given the query's `automorphisms`
    /// (|Aut(Q)|): embeddings / |Aut(Q)|, when the count is complete.
    pub fn unique(&self, automorphisms: Option<u128>) -> Option<u128> {
        crate::automorphism::distinct_subgraphs(self.embeddings, self.complete, automorphisms)
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
    /// The probe that settled between the default plan and the plan of least estimated cost,
    /// when they differed ([`probe_prefers`](super::probe_prefers)).
    pub probe: Option<Probe>,
}

/// A probe of two plans on their first levels ([`probe_prefers`](super::probe_prefers)): each one's predicted
/// milliseconds (None: its probe did not finish within its time, or was not run), whether
/// the challenger, the plan of least estimated cost, replaced the default plan, whether the
/// default plan was probed (not where the challenger's probe ran the whole query), and the
/// rounds the probes took (more than one where neither finished and both went on with twice
/// the budget).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Probe {
    pub challenger: &'static str,
    pub challenger_tail: usize,
    pub default_ms: Option<f64>,
    pub challenger_ms: Option<f64>,
    pub switched: bool,
    pub default_probed: bool,
    pub rounds: u32,
}

/// The report of a query that `control` stopped before its candidate space was built: nothing
/// found, and no space.
pub(super) fn stopped_early(
    start: Instant,
    filter: Filter,
    plan: Plan,
    space_ms: f64,
    enumerate_ms: f64,
    control: &Control,
    considered: Vec<Considered>,
) -> Explained {
    let out = cpu::Outcome::nothing(plan.len(), control.stopped());
    let report = report(start, filter, &plan, &CandidateSpace::default(), space_ms, enumerate_ms, &out);
    Explained { report, levels: out.levels, plan, considered, probe: None }
}

/// The report of a run of `plan` over `space` (`out`), started at `start`.
pub(super) fn report(
    start: Instant,
    filter: Filter,
    plan: &Plan,
    space: &CandidateSpace,
    space_ms: f64,
    enumerate_ms: f64,
    out: &cpu::Outcome,
) -> Report {
    Report {
        embeddings: out.embeddings,
        filter_ms: plan.filter_ms,
        order_ms: plan.order_ms,
        space_ms,
        enumerate_ms,
        elapsed_ms: start.elapsed().as_secs_f64() * 1e3,
        candidates: plan.candidate_count(),
        candidate_edges: space.edge_count(),
        space_bytes: space.memory_bytes(),
        space: space.build_kind().map(SpaceBuild::name),
        bitmaps: space.bitmap_positions(),
        nodes: out.nodes,
        tasks: out.tasks,
        ..Report::nothing(filter, out.stopped)
    }
    .with_plan(plan)
}
