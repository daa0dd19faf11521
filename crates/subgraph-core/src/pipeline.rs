//! One query through the whole CPU pipeline, timed per phase: plan (filter, order), candidate
//! space, enumeration.
//!
//! This file drives it: [`run_query`] is [`prepare`] (filter, default plan, space, estimate),
//! then [`Prepared::run`] (the spasm's count, a deferred refinement's trial, the plans'
//! comparison, the enumeration). Below it, `options` and `report` are what a query is asked
//! and what it answers, `memory` builds a plan's candidate space within the memory allowed,
//! `finish` compares plans after the default plan's scout and runs the plan kept, and `probe`
//! settles between two plans; `explain` runs `explain`'s comparison of every plan.

mod explain;
mod finish;
mod memory;
mod options;
mod probe;
mod report;

pub use crate::host::bytes;
pub use explain::explain_query;
pub use options::MatchOptions;
pub use probe::{probe_prefers, uncounted, Counted, Probes, PROBE_HEAVY_ROOTS, PROBE_MIN, PROBE_ROOTS};
pub use report::{Explained, Probe, Report};

use crate::cpu::{self, EngineOptions};
use crate::error::Error;
use crate::estimate::sampling::{space_bound, space_estimate};
use crate::estimate::Estimate;
use crate::filter::Filter;
use crate::graph::Graph;
use crate::plan::{Plan, PlanOptions};
use crate::planner::{self, Chooser};
use crate::query::Query;
use crate::sink::{Control, Output, Stopped};
use crate::space::{CandidateSpace, SpaceBuild};
use crate::spasm;
use memory::build_space;
use report::report;
use std::time::{Duration, Instant};

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
    rayon::scope(|_| {
        prepare(data, query, opts, output.is_none(), f64::INFINITY, control)?.run(data, opts, control, output)
    })
    .map(|e| e.report)
}

/// A query ready for the CPU engine: checked, filtered, planned by default, its candidate
/// space built and its work estimated (a bound, or the gate's sample over that space), so that
/// `--device auto` can choose before anything is done twice. A query whose control stopped it
/// (the deadline, Ctrl-C) during the preparation has no space: it reports what it found, nothing.
pub struct Prepared {
    start: Instant,
    query: Query,
    options: PlanOptions,
    /// `auto`'s refinement, not yet run: its predicted milliseconds.
    deferred: Option<f64>,
    plan: Plan,
    space: Option<CandidateSpace>,
    space_ms: f64,
    /// The plan's estimated work, and the gate's sample with its time per particle when the
    /// bound did not settle it.
    cost: f64,
    gate: Option<(Estimate, f64)>,
}

/// Nanoseconds one check of GraphQL's refinement takes on one thread (a candidate against
/// the candidates next to it over one query edge; wordnet's sparse_16 queries, about 2·10^6
/// checks in 38 ms over two rounds, 2026-11-25).
pub const REFINE_NS_PER_CHECK: f64 = 20.0;
/// `--filter auto` defers its refinement only when it is predicted to take at least this many
/// milliseconds: below, a query that needs it would lose more to a wasted trial than the
/// others gain.
pub const DEFER_MIN_MS: f64 = 2.0;
/// A deferred refinement runs at once, without the trial over the NLF candidates, when the
/// default plan's estimated enumeration is more than this many times its predicted time: the
/// trial would not finish. Counting every match on wordnet's dense_8 (60 queries, one thread,
/// 2026-11-30), 14 of the 15 trials under 2 times finished, 2 of the 3 from 2 to 4 times, and
/// 1 of the 21 above; each trial that did not finish cost its budget, then about 26 ms, and
/// the refinement after it took longer (bench/results/2026-11-30-planner-trials.md).
pub const TRIAL_FACTOR: f64 = 4.0;
/// A deferred refinement's trial without a limit runs for this many times the refinement's
/// predicted time (with the lazy space's): what giving it up costs, the refinement, the refined
/// space and plan, measured 1.2–1.6 times that prediction on wordnet's dense_8, and the
/// enumeration after them. Doubled from once, it took wordnet's dense_4 0.90 times as long by
/// the geomean (60 queries, one thread), dense_8 0.995 and dense_12 0.97; under `--limit 100000`
/// it measured 0.94–1.02 on dense_12, dense_20 and sparse_12, and the limit keeps one
/// (bench/results/2026-11-30-planner-trials.md).
pub const TRIAL_BUDGET: f64 = 2.0;
/// A deferred refinement's trial that is on its way to the limit (at the rate it has found
/// matches) may run up to this many times its budget.
pub const TRIAL_REACH: f64 = 3.0;

/// Filters `query`, makes the default plan and its candidate space, and estimates its work
/// where the planner could use the estimate to compare plans, or where the space's bound on
/// the work reaches `price_from` (for `--device auto`: the work from which another device
/// could be faster; `f64::INFINITY` for none); `counting` when no match is written. Under
/// `--filter auto` the refinement waits (in [`Prepared::run`]) when it would be costly and no
/// match is written. `control` cuts the filter short and stops the space's build.
pub fn prepare(
    data: &Graph,
    query: Graph,
    opts: &MatchOptions,
    counting: bool,
    price_from: f64,
    control: &Control,
) -> Result<Prepared, Error> {
    let start = Instant::now();
    let q = Query::new(query, data, opts.semantics)?;
    let popts = opts.plan(counting);
    let t = Instant::now();
    let mut cands = popts.filter.local(data, &q, popts.semantics, control);
    let threads = rayon::current_num_threads().max(1) as f64;
    let refine_ms = 2.0 * Filter::refine_checks(&q, &cands) * REFINE_NS_PER_CHECK * 1e-6 / threads;
    let deferred = (popts.filter == Filter::Auto && counting && refine_ms >= DEFER_MIN_MS).then_some(refine_ms);
    if deferred.is_none() {
        popts.filter.refine(data, &q, popts.semantics, &mut cands, control);
    }
    let filter_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut plan = planner::default_plan(data, &q, popts, cands, filter_ms, control);
    // The NLF space of a deferred refinement serves a trial that may stop early.
    let (space, space_ms) = build_space(data, &plan, opts, deferred.is_some(), control)?;
    // A deferred refinement needs the sample: it decides whether the trial is worth running.
    let price_from = if deferred.is_some() { 0.0 } else { price_from };
    let (cost, gate) = estimate_work(data, &mut plan, space.as_ref(), popts, price_from, control);
    Ok(Prepared { start, query: q, options: popts, deferred, plan, space, space_ms, cost, gate })
}

/// The work of `plan` over `space`: a bound from the space's longest lists first, then a
/// sample over the space (cheap: its lists are filtered already) when the bound does not show
/// the query small and the planner or `price_from` could use it. The sample's time is added
/// to the plan's `order_ms`. Without a space (the control stopped its build) nothing is left
/// to price: 0.
fn estimate_work(
    data: &Graph,
    plan: &mut Plan,
    space: Option<&CandidateSpace>,
    popts: PlanOptions,
    price_from: f64,
    control: &Control,
) -> (f64, Option<(Estimate, f64)>) {
    let Some(space) = space else {
        return (0.0, None);
    };
    let bound = if plan.empty { 0.0 } else { space_bound(plan, space) };
    if bound < planner::SMALL_COST || (bound < price_from && !planner::has_alternatives(&popts)) {
        return (bound, None);
    }
    let t = Instant::now();
    let mut particles = planner::GATE_PARTICLES;
    let mut g = space_estimate(data, plan, space, particles, GATE_SEED, control);
    let mut read = g.read;
    // Few particles miss the rare heavy subtrees of skewed searches: an estimate far below the
    // bound is sampled again, with more.
    if g.cost * planner::GATE_DOUBT < bound {
        particles = planner::GATE_RECHECK_PARTICLES;
        g = space_estimate(data, plan, space, particles, GATE_SEED ^ 1, control);
        read += g.read;
    }
    let per_particle = planner::ms_per_particle(read, particles);
    plan.order_ms += t.elapsed().as_secs_f64() * 1e3;
    (popts.price(&g, plan.multiplier), Some((g, per_particle)))
}

impl Prepared {
    /// The default plan's estimated work (units of `estimate`, up to the limit): the space's
    /// upper bound where it shows the query small (below `SMALL_COST`, or below `price_from`
    /// for a plan that is not compared), else the gate's sample.
    pub fn estimated_cost(&self) -> f64 {
        self.cost
    }

    /// The query graph.
    pub fn query(&self) -> &Graph {
        self.query.graph()
    }

    /// Counts by the spasm where it applies and calls for it; else runs a deferred
    /// refinement's trial when it may pay (and refines when it does not finish the query),
    /// then compares plans when that pays (and the options leave a choice), then enumerates.
    pub fn run(
        self,
        data: &Graph,
        opts: &MatchOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
    ) -> Result<Explained, Error> {
        let predicted_ms = planner::predicted_ms(self.cost, rayon::current_num_threads());
        let attempt = opts.spasm(output.is_none(), predicted_ms);
        let t = Instant::now();
        if let Some(c) = self.space.as_ref().and_then(|_| spasm::attempt(data, &self.query, attempt, control)) {
            let filter = self.filter();
            let Prepared { start, mut plan, space, space_ms, gate, .. } = self;
            let space = space.expect("checked above");
            let out = cpu::Outcome::nothing(plan.len(), None);
            let report = report(start, filter, &plan, &space, space_ms, 0.0, &out).counted(c);
            plan.estimate = gate.map(|g| g.0);
            return Ok(Explained { report, levels: out.levels, plan, considered: Vec::new(), probe: None });
        }
        let spasm_ms = t.elapsed().as_secs_f64() * 1e3;
        let mut done = self.plan_and_run(data, opts, control, output)?;
        done.report.spasm_ms = spasm_ms;
        Ok(done)
    }

    /// [`Prepared::run`] past the spasm's attempt: the deferred refinement's trial, the
    /// comparison and the run.
    fn plan_and_run(
        mut self,
        data: &Graph,
        opts: &MatchOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
    ) -> Result<Explained, Error> {
        let threads = rayon::current_num_threads().max(1) as f64;
        let mut trial_ms = 0.0;
        if let Some(refine_ms) = self.deferred.filter(|_| self.space.is_some()) {
            if opts.limit.is_some() {
                self.compare_orders(data, opts, control)?;
            }
            // The trial lasts as long as the refinement would (twice as long when it counts
            // every match, `TRIAL_BUDGET`), and is skipped when the estimate shows the query
            // longer still. Not under a limit, whose search the estimate prices whole where
            // its particles found no match (wordnet's dense_20_26: 2.2·10^9 units, 11 s
            // predicted; the trial reached 10^5 matches in 0.1 s).
            let predicted_ms = planner::predicted_ms(self.cost, rayon::current_num_threads());
            if opts.limit.is_some() || predicted_ms <= TRIAL_FACTOR * refine_ms {
                let t = Instant::now();
                // A lazy space makes its lists during the trial: it gets the time an eager
                // build would have taken before it, too.
                let lazy = self.space.as_ref().filter(|s| s.build_kind() == Some(SpaceBuild::Lazy));
                let lazy_ms = lazy.map_or(0.0, |s| s.eager_ms(threads));
                let times = if opts.limit.is_some() { 1.0 } else { TRIAL_BUDGET };
                let budget = Duration::from_secs_f64(times * (refine_ms + lazy_ms) * 1e-3).max(TRIAL);
                match self.try_unrefined(data, opts, control, budget) {
                    Ok(done) => return Ok(done),
                    Err(back) => self = *back,
                }
                trial_ms = t.elapsed().as_secs_f64() * 1e3;
            }
            self.refine_deferred(data, opts, control)?;
        }
        self.finish(data, opts, control, output, trial_ms)
    }

    /// Under a limit, before a deferred refinement's trial: the plan of least estimated work
    /// among [`planner::LIMIT_ORDERS`] over the candidates the trial runs on, when the
    /// comparison pays (`planner::comparison_particles`), with its space. The trial would
    /// otherwise run the default order, and the orders' times to the limit differ most where
    /// the trial is long (wordnet's dense queries: RI's median half GQL's).
    fn compare_orders(&mut self, data: &Graph, opts: &MatchOptions, control: &Control) -> Result<(), Error> {
        let options = self.options;
        let Some((gate, per_particle)) = self.gate.as_ref().filter(|_| planner::compares_under_limit(&options)) else {
            return Ok(());
        };
        // Whatever the gate's price, which errs low here (wordnet's dense_20_36: 1.3·10^4
        // units, a trial of GQL's order that did not finish and one of RI's that did in
        // 24 ms): a refinement deferred is predicted to take 2 ms or more, against which the
        // comparison's fewest particles cost little.
        let threads = rayon::current_num_threads();
        let cost = options.price(gate, self.plan.multiplier).max(planner::SMALL_COST);
        let Some(particles) = planner::comparison_particles(&options, cost, *per_particle, threads) else {
            return Ok(());
        };
        let per_particle = *per_particle;
        let cands = self.plan.candidates_by_vertex();
        let (mut best, _) = planner::compare(
            data,
            &self.query,
            options,
            cands,
            self.plan.filter_ms,
            particles,
            Chooser::Estimates,
            control,
        );
        best.order_ms += self.plan.order_ms;
        if best.vertices == self.plan.vertices {
            self.plan = best;
            return Ok(());
        }
        let (space, space_ms) = build_space(data, &best, opts, true, control)?;
        self.gate = best.estimate.clone().map(|e| (e, per_particle));
        self.cost = self.gate.as_ref().map_or(self.cost, |(e, _)| options.price(e, best.multiplier));
        (self.plan, self.space, self.space_ms) = (best, space, self.space_ms + space_ms);
        Ok(())
    }

    /// Runs the query over the candidates it has (a deferred refinement's NLF candidates) for
    /// at most `budget`, counting only: the result when that finishes it (or a limit, the
    /// timeout or Ctrl-C stops it), else (or without a space) the query back, as it was.
    fn try_unrefined(
        self,
        data: &Graph,
        opts: &MatchOptions,
        control: &Control,
        budget: Duration,
    ) -> Result<Explained, Box<Prepared>> {
        let engine = EngineOptions { limit: opts.limit, failing_sets: opts.failing_sets };
        let t = Instant::now();
        let Some(space) = &self.space else {
            return Err(Box::new(self));
        };
        // A trial heading for the limit fast enough may take up to TRIAL_REACH budgets: the
        // refinement and the run after it would take about as long.
        let trial = control.trial_toward(budget, opts.limit, budget.mul_f64(TRIAL_REACH));
        let out = cpu::enumerate(data, &self.plan, space, engine, &trial, None);
        if out.stopped == Some(Stopped::Timeout) && !control.should_stop() {
            return Err(Box::new(self));
        }
        let enumerate_ms = t.elapsed().as_secs_f64() * 1e3;
        let report = report(self.start, self.filter(), &self.plan, space, self.space_ms, enumerate_ms, &out);
        let Prepared { mut plan, gate, .. } = self;
        plan.estimate = gate.map(|g| g.0);
        Ok(Explained { report, levels: out.levels, plan, considered: Vec::new(), probe: None })
    }

    /// The filter the candidates have had so far: NLF while `auto`'s refinement waits, else
    /// the one the options name (GQL for `auto`).
    fn filter(&self) -> Filter {
        match self.deferred {
            Some(_) => Filter::Nlf,
            None => self.options.filter.applied(),
        }
    }

    /// Runs the deferred GQL refinement, then plans, builds the space and estimates again;
    /// `control` cuts the refinement short and stops the build.
    fn refine_deferred(&mut self, data: &Graph, opts: &MatchOptions, control: &Control) -> Result<(), Error> {
        let t = Instant::now();
        let mut cands = self.plan.take_candidates();
        self.options.filter.refine(data, &self.query, self.options.semantics, &mut cands, control);
        let filter_ms = self.plan.filter_ms + t.elapsed().as_secs_f64() * 1e3;
        // The order compared before the trial (`compare_orders`), else the default one.
        self.plan = planner::ordered_plan(data, &self.query, self.options, self.plan.order, cands, filter_ms, control);
        (self.space, self.space_ms) = build_space(data, &self.plan, opts, false, control)?;
        (self.cost, self.gate) =
            estimate_work(data, &mut self.plan, self.space.as_ref(), self.options, f64::INFINITY, control);
        self.deferred = None;
        Ok(())
    }
}

/// The least time a deferred refinement's trial runs, and the least time from which the
/// scout's share is taken (`Prepared::finish`).
pub const TRIAL: Duration = Duration::from_millis(1);
/// Seed of the gate's sampling.
const GATE_SEED: u64 = 0x9a7e_5eed;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    /// A ring of `n` vertices with chords to the vertices 7 and 31 ahead, one label.
    fn ring(n: u32) -> Graph {
        let mut b = GraphBuilder::new(n as usize, false);
        for v in 0..n {
            [1, 7, 31].iter().for_each(|&d| b.add_edge(v, (v + d) % n, 0));
        }
        b.build().0
    }

    fn path(k: u32) -> Graph {
        let mut b = GraphBuilder::new(k as usize, false);
        (1..k).for_each(|v| b.add_edge(v - 1, v, 0));
        b.build().0
    }

    #[test]
    fn the_cpu_engine_counts_the_roots_it_begins() {
        let control = Control::unlimited();
        let r = run_query(&ring(2000), path(4), &MatchOptions::default(), &control, None).unwrap();
        assert!(r.complete && r.embeddings > 0);
        use std::sync::atomic::Ordering::Relaxed;
        let (begun, total) = (control.roots.load(Relaxed), control.roots_total.load(Relaxed));
        assert!(total > 0 && begun == total, "{begun} of {total} roots");
    }

    #[test]
    fn a_query_stopped_while_prepared_builds_no_space() {
        let data = ring(20_000);
        let expired = Control::new(Some(Instant::now()), Default::default());
        for filter in [Filter::Auto, Filter::Gql, Filter::Nlf] {
            let opts = MatchOptions { filter, ..MatchOptions::default() };
            let r = run_query(&data, path(5), &opts, &expired, None).unwrap();
            assert_eq!((r.embeddings, r.complete, r.stopped), (0, false, Some(Stopped::Timeout)));
            assert_eq!((r.candidate_edges, r.space_bytes), (0, 0), "{filter:?}");
            assert!(r.candidates > 0);
        }
        let stopped = explain_query(&data, path(5), &MatchOptions::default(), true, || {
            Control::new(Some(Instant::now()), Default::default())
        })
        .unwrap();
        assert!(stopped.iter().all(|e| e.report.stopped == Some(Stopped::Timeout) && e.report.space_bytes == 0));
    }

    #[test]
    fn auto_filter_defers_its_refinement_and_stays_exact() {
        // 20,000 candidates per query vertex and 8 or more query-edge ends: at least 6 ms of
        // refinement on one thread, above DEFER_MIN_MS.
        let data = ring(20_000);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let opts = |filter, limit| MatchOptions { filter, limit, ..MatchOptions::default() };
        let prepare = |k, counting, o: &MatchOptions| {
            one.install(|| prepare(&data, path(k), o, counting, f64::INFINITY, &Control::unlimited())).unwrap()
        };
        let count =
            |k, o: &MatchOptions| one.install(|| run_query(&data, path(k), o, &Control::unlimited(), None)).unwrap();
        let auto = opts(Filter::Auto, None);
        // Counting defers; with matches written (no restart possible) it refines at once.
        assert!(prepare(5, true, &auto).deferred.is_some());
        assert!(prepare(5, false, &auto).deferred.is_none());
        // The first match takes microseconds: the trial over the NLF candidates finishes it.
        let r = count(5, &opts(Filter::Auto, Some(1)));
        assert_eq!((r.embeddings, r.complete, r.filter), (1, false, "nlf"));
        // A trial that runs out gives the query back untouched, and the refinement after it
        // counts what GQL counts.
        let gql = count(6, &opts(Filter::Gql, None));
        assert_eq!(gql.filter, "gql");
        let mut back = match one
            .install(|| prepare(6, true, &auto).try_unrefined(&data, &auto, &Control::unlimited(), Duration::ZERO))
        {
            Ok(done) => panic!("a 6-vertex path over 20,000 vertices counted in no time: {:?}", done.report),
            Err(back) => back,
        };
        assert_eq!(back.filter(), Filter::Nlf);
        one.install(|| back.refine_deferred(&data, &auto, &Control::unlimited())).unwrap();
        assert_eq!((back.filter(), back.deferred), (Filter::Gql, None));
        let refined = one.install(|| back.run(&data, &auto, &Control::unlimited(), None)).unwrap().report;
        assert_eq!((refined.embeddings, refined.filter), (gql.embeddings, "gql"));
        // A trial that finishes counts exactly, and so does the whole pipeline.
        let done = one.install(|| {
            prepare(6, true, &auto).try_unrefined(&data, &auto, &Control::unlimited(), Duration::from_secs(600))
        });
        assert_eq!(done.map(|e| e.report.embeddings).ok(), Some(gql.embeddings));
        assert_eq!(count(6, &auto).embeddings, gql.embeddings);
        assert_eq!(count(6, &opts(Filter::Nlf, None)).embeddings, gql.embeddings);
    }

    #[test]
    fn a_limited_deferred_query_compares_orders_before_its_trial_and_keeps_the_choice() {
        let data = ring(20_000);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let unlimited = Control::unlimited();
        let limited = MatchOptions { limit: Some(1000), ..MatchOptions::default() };
        let prepare =
            |o: &MatchOptions| one.install(|| prepare(&data, path(6), o, true, f64::INFINITY, &unlimited)).unwrap();
        let mut p = prepare(&limited);
        assert!(p.deferred.is_some() && p.gate.is_some() && p.plan.estimate.is_none());
        one.install(|| p.compare_orders(&data, &limited, &unlimited)).unwrap();
        let chosen = p.plan.order;
        assert!(planner::LIMIT_ORDERS.contains(&chosen) && p.plan.estimate.is_some(), "{chosen:?}");
        // The refinement after a trial keeps the order compared, and the limit is exact.
        one.install(|| p.refine_deferred(&data, &limited, &unlimited)).unwrap();
        assert_eq!(p.plan.order, chosen);
        let r = one.install(|| p.run(&data, &limited, &unlimited, None)).unwrap().report;
        assert_eq!((r.embeddings, r.stopped), (1000, Some(Stopped::Limit)));
        // Without a limit nothing is compared before the trial.
        let free = MatchOptions::default();
        let mut p = prepare(&free);
        one.install(|| p.compare_orders(&data, &free, &unlimited)).unwrap();
        assert!(p.plan.estimate.is_none());
    }

    #[test]
    fn a_default_plan_that_overruns_its_prediction_is_compared_and_stays_exact() {
        // A 7-vertex path over a ring of 20,000: about 10^8 partial matches, a tenth of a second
        // or more on one thread. Its gate is made to predict 2 ms with no match reached, as
        // when the particles die early: too little for a comparison to pay.
        let data = ring(20_000);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let unlimited = Control::unlimited();
        let opts = MatchOptions { filter: Filter::Gql, spasm: spasm::Mode::Off, ..MatchOptions::default() };
        let fixed = MatchOptions { order: Some(crate::order::Order::Gql), tail: crate::plan::Tail::Off, ..opts };
        let exact = one.install(|| run_query(&data, path(7), &fixed, &unlimited, None)).unwrap().embeddings;
        let mut p = one.install(|| prepare(&data, path(7), &opts, true, f64::INFINITY, &unlimited)).unwrap();
        let (gate, per_particle) = p.gate.as_mut().expect("a large search is sampled");
        let units = planner::units_in_ms(2.0, 1);
        let scale = units / p.options.price(gate, p.plan.multiplier);
        (gate.work, gate.nodes, gate.leaves, gate.matches) =
            (gate.work * scale, gate.nodes * scale, gate.leaves * scale, 0.0);
        assert!(planner::comparison_particles(&p.options, units, *per_particle, 1).is_none());
        // The default plan runs for OVERRUN times the prediction, does not finish, and the
        // plans are compared; the count goes on from what that run counted.
        let r = one.install(|| p.run(&data, &opts, &unlimited, None)).unwrap().report;
        assert!(r.trial_ms >= planner::OVERRUN * 2.0 && r.compare_ms > 0.0, "{r:?}");
        assert_eq!((r.embeddings, r.complete), (exact, true));
    }

    /// A prepared plan over `data` and its candidate space, in the given order (no symmetry
    /// breaking, no tail).
    fn planned(data: &Graph, query: Graph, order: crate::order::Order) -> (Plan, CandidateSpace) {
        let opts = MatchOptions {
            order: Some(order),
            symmetry: crate::plan::Symmetry::Off,
            tail: crate::plan::Tail::Off,
            ..MatchOptions::default()
        };
        let p = prepare(data, query, &opts, true, f64::INFINITY, &Control::unlimited()).unwrap();
        (p.plan, p.space.unwrap())
    }

    #[test]
    fn probes_that_neither_finish_go_on_with_twice_the_budget_within_their_bound() {
        // Paths of 12 in a ring with chords: over 10^8 matches under the heaviest first
        // vertices alone, far more than three rounds of probes reach.
        let data = ring(3_000);
        let (plan, space) = planned(&data, path(12), crate::order::Order::Gql);
        let (other, other_space) = planned(&data, path(12), crate::order::Order::Ri);
        let (engine, control) = (EngineOptions::default(), Control::unlimited());
        let probe = |trusted, escalate| {
            let incumbent = (&plan, &space, uncounted(&plan));
            let challenger = (&other, &other_space);
            probe_prefers(&data, challenger, trusted, incumbent, engine, &control, PROBE_MIN, escalate, true).probe
        };
        let far = Duration::from_secs(60);
        // Not trusted: ESCALATIONS rounds more, then the default plan stays.
        let p = probe(false, far);
        assert_eq!((p.rounds, p.switched, p.default_ms, p.challenger_ms), (1 + probe::ESCALATIONS, false, None, None));
        // Not past `escalate` (a second round would take twice two budgets), and not for a
        // trusted challenger, which wins as before.
        for escalate in [Duration::ZERO, PROBE_MIN * 4] {
            let p = probe(false, escalate);
            assert_eq!((p.rounds, p.switched), (1, false), "{escalate:?}");
        }
        let p = probe(true, far);
        assert_eq!((p.rounds, p.switched), (1, true));
    }

    #[test]
    fn root_samples_partition_the_count_and_probes_decide() {
        let data = ring(3_000);
        let (plan, space) = planned(&data, path(4), crate::order::Order::Gql);
        let engine = EngineOptions::default();
        let all = cpu::enumerate(&data, &plan, &space, engine, &Control::unlimited(), None).embeddings;
        assert!(all > 0);
        // The first level's candidates split three ways count what the whole level counts.
        let len = plan.candidates[0].len() as u32;
        let parts: u128 = (0..3u32)
            .map(|k| {
                let roots: Vec<u32> = (0..len).filter(|i| i % 3 == k).collect();
                let (out, left) =
                    cpu::enumerate_rest(&data, &plan, &space, engine, &Control::unlimited(), cpu::Rest::roots(roots));
                assert!(left.is_empty());
                out.embeddings
            })
            .sum();
        assert_eq!(parts, all);
        // Two plans probed with time to finish: both predicted.
        let (other, other_space) = planned(&data, path(4), crate::order::Order::Ri);
        let roomy = Duration::from_secs(600);
        let probe = |challenger: &Plan, control: &Control, answers: bool, scout: Counted| {
            let trusted = challenger.estimate.as_ref().is_some_and(|e| e.reliable());
            let incumbent = (&plan, &space, scout);
            let escalate = Duration::ZERO;
            probe_prefers(
                &data,
                (challenger, &other_space),
                trusted,
                incumbent,
                engine,
                control,
                roomy,
                escalate,
                answers,
            )
        };
        // What a plan's runs counted and the work they left make its whole count.
        let resumed = |(plan, space): (&Plan, &CandidateSpace), (mut found, left): Counted| {
            let (rest, none) = cpu::enumerate_rest(&data, plan, space, engine, &Control::unlimited(), left);
            assert!(none.is_empty());
            found.add(&rest);
            found
        };
        let other_all = cpu::enumerate(&data, &other, &other_space, engine, &Control::unlimited(), None);
        let whole = |(plan, space), counted| {
            let (run, all) = (
                resumed((plan, space), counted),
                cpu::enumerate(&data, plan, space, engine, &Control::unlimited(), None),
            );
            assert_eq!((run.embeddings, &run.levels), (all.embeddings, &all.levels));
        };
        // The challenger's estimate, reliable where its particles reached matches.
        let estimate = |matches| crate::estimate::Estimate {
            levels: vec![1.0; 4],
            matches,
            cost: 1.0,
            work: 1.0,
            nodes: 1.0,
            leaves: 1.0,
            particles: 16,
            read: 1.0,
        };
        let (reliable, unreliable) = (
            Plan { estimate: Some(estimate(5.0)), ..other.clone() },
            Plan { estimate: Some(estimate(0.0)), ..other.clone() },
        );
        // An unreliable challenger wins only within UNTRUSTED_MARGIN of the default's time.
        let p = probe(&unreliable, &Control::unlimited(), false, uncounted(&plan)).probe;
        let (c, d) = (p.challenger_ms.unwrap(), p.default_ms.unwrap());
        assert_eq!(p.switched, c < probe::UNTRUSTED_MARGIN * d, "{p:?}");
        let Probes { probe: p, answer, challenger, incumbent } =
            probe(&reliable, &Control::unlimited(), false, uncounted(&plan));
        assert!(p.default_ms.is_some() && p.challenger_ms.is_some() && p.default_probed, "{p:?}");
        assert_eq!(p.switched, p.challenger_ms < p.default_ms);
        assert_eq!(p.challenger, "ri");
        assert!(answer.is_none());
        assert!(challenger.0.embeddings > 0 && challenger.0.embeddings < other_all.embeddings);
        assert!(incumbent.0.embeddings > 0 && incumbent.0.embeddings < all);
        whole((&other, &other_space), challenger);
        whole((&plan, &space), incumbent);
        // The default plan's probe goes on from a scout's runs: it does not run the roots the
        // scout ran again, and together they make the whole count.
        let (scouted, mut scout_left) = cpu::enumerate_rest(
            &data,
            &plan,
            &space,
            engine,
            &Control::unlimited(),
            cpu::Rest::roots((0..500).collect()),
        );
        scout_left.add(cpu::Rest::roots((500..len).collect()));
        let Probes { incumbent, .. } = probe(&other, &Control::unlimited(), false, (scouted.clone(), scout_left));
        assert!(incumbent.0.embeddings > scouted.embeddings);
        whole((&plan, &space), incumbent);
        // A scout stopped by its deadline within the roots it began: its probe counts what the
        // scout left of them too.
        for micros in [0, 20, 100, 1_000] {
            let deadline = Control::new(Some(Instant::now() + Duration::from_micros(micros)), Default::default());
            let scout = cpu::enumerate_rest(&data, &plan, &space, engine, &deadline, cpu::Rest::whole(len as usize));
            let Probes { incumbent, .. } = probe(&other, &Control::unlimited(), false, scout);
            whole((&plan, &space), incumbent);
        }
        // No time for either: the default plan's probe stops too, and the challenger wins where
        // the estimates chose it (trusted: here, its estimate reliable); its run then does all
        // the work. One not trusted gives way.
        let expired = Control::new(Some(std::time::Instant::now()), Default::default());
        for (estimated, switched) in [(&reliable, true), (&unreliable, false)] {
            let Probes { probe: p, answer, challenger, incumbent } = probe(estimated, &expired, true, uncounted(&plan));
            assert_eq!((p.default_ms, p.challenger_ms, p.switched, p.default_probed), (None, None, switched, true));
            assert!(answer.is_none());
            assert_eq!((challenger.0.embeddings, incumbent.0.embeddings), (0, 0));
            whole((&other, &other_space), challenger);
            whole((&plan, &space), incumbent);
        }
        // A first level smaller than the probe's sample is run whole: for a counting query the
        // challenger's probe is the answer, and the default plan is not probed.
        let small = ring(100);
        let (plan, space) = planned(&small, path(4), crate::order::Order::Gql);
        let (other, other_space) = planned(&small, path(4), crate::order::Order::Ri);
        assert!(other.candidates[0].len() < 4 * PROBE_ROOTS);
        let all = cpu::enumerate(&small, &other, &other_space, engine, &Control::unlimited(), None).embeddings;
        let control = Control::unlimited();
        let small_probe = |answers| {
            probe_prefers(
                &small,
                (&other, &other_space),
                true,
                (&plan, &space, uncounted(&plan)),
                engine,
                &control,
                roomy,
                Duration::ZERO,
                answers,
            )
        };
        let Probes { probe: p, answer, .. } = small_probe(true);
        assert!(p.switched && !p.default_probed && p.default_ms.is_none(), "{p:?}");
        assert_eq!(answer.map(|a| a.embeddings), Some(all));
        // Not for a query that writes its matches: the default plan is probed as before.
        let Probes { probe: p, answer, .. } = small_probe(false);
        assert!(p.default_probed && answer.is_none(), "{p:?}");
    }
}
