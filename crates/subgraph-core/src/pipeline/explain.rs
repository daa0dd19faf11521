//! `explain`'s run of a query: every plan the planner considers compared, whatever the
//! query's size; the chosen one probed against the default plan and run, and with `every` each
//! other plan run in turn.

use super::memory::build_space;
use super::options::MatchOptions;
use super::probe::{escalation, probe_prefers, uncounted, PROBE_MIN};
use super::report::{report, stopped_early, Explained};
use crate::cpu::{self, EngineOptions};
use crate::error::Error;
use crate::graph::Graph;
use crate::order::Order;
use crate::plan::Plan;
use crate::planner::{self, Chooser, Considered};
use crate::query::Query;
use crate::sink::Control;
use std::time::{Duration, Instant};

/// Plans `query` comparing every plan the planner considers (whatever the query's size), then
/// runs the chosen one; with `every`, runs each considered plan in turn and returns them all,
/// the chosen one first. Each plan runs under a control from `control`; the first plan's also
/// covers the filter and the comparison.
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
        let first = control();
        let t = Instant::now();
        let cands = popts.filter.run(data, &q, popts.semantics, &first);
        let filter_ms = t.elapsed().as_secs_f64() * 1e3;
        let engine = EngineOptions { limit: opts.limit, failing_sets: opts.failing_sets };
        let t = Instant::now();
        let (mut plan, considered) =
            planner::compare(data, &q, popts, cands, filter_ms, planner::FULL_PARTICLES, Chooser::Probe, &first);
        let compare_ms = t.elapsed().as_secs_f64() * 1e3;
        let by_vertex = plan.candidates_by_vertex();
        let mut size_of = vec![0; q.num_vertices()];
        plan.vertices.iter().zip(&plan.sizes).for_each(|(&u, &s)| size_of[u as usize] = s);
        // A considered plan, rebuilt with its candidates.
        let rebuild = |c: &Considered| {
            let order = Order::from_name(c.order).expect("a planner order");
            let mut p = Plan::shaped(data, &q, popts, order, c.vertices.clone(), c.tail, &size_of, &first)
                .with_candidates(by_vertex.clone());
            p.filter_ms = filter_ms;
            p.estimate = Some(c.estimate.clone());
            p
        };
        // As `match` does, the plan of least estimated cost replaces the default plan (the
        // first considered) only when a probe of their first levels agrees.
        // The chosen plan's space, when the probe built it.
        let (mut probe, mut chosen_space) = (None, None);
        let t = Instant::now();
        if let Some(default) = considered.first().filter(|c| c.vertices != plan.vertices || c.tail != plan.tail) {
            let default = rebuild(default);
            let estimate = default.estimate.as_ref();
            let trusted = estimate.is_some_and(|e| planner::outprices(&popts, &plan, e, default.multiplier));
            let escalate = estimate.map_or(Duration::ZERO, |e| escalation(&popts, e, default.multiplier));
            let (a, a_ms) = build_space(data, &plan, opts, false, &first)?;
            let (b, b_ms) = build_space(data, &default, opts, false, &first)?;
            if let (Some(a), Some(b)) = (a, b) {
                let p = probe_prefers(
                    data,
                    (&plan, &a),
                    trusted,
                    (&default, &b, uncounted(&default)),
                    engine,
                    &first,
                    PROBE_MIN,
                    escalate,
                    false,
                )
                .probe;
                chosen_space = Some(if p.switched { (a, a_ms) } else { (b, b_ms) });
                if !p.switched {
                    plan = Plan { order_ms: plan.order_ms, ..default };
                }
                probe = Some(p);
            }
        }
        // Less the chosen plan's space, which its run reuses and reports as `space_ms`.
        let probe_ms = match &chosen_space {
            Some((_, space_ms)) => t.elapsed().as_secs_f64() * 1e3 - space_ms,
            None => 0.0,
        };
        let mut others = Vec::new();
        if every {
            for c in considered.iter().filter(|c| c.vertices != plan.vertices || c.tail != plan.tail) {
                others.push(rebuild(c));
            }
        }
        let mut out = Vec::new();
        let filter = popts.filter.applied();
        for (i, plan) in std::iter::once(plan).chain(others).enumerate() {
            let (start, later) = if i == 0 { (start, None) } else { (Instant::now(), Some(control())) };
            let c = later.as_ref().unwrap_or(&first);
            let (considered, probe) = if i == 0 { (considered.clone(), probe.clone()) } else { (Vec::new(), None) };
            let (space, space_ms) = match chosen_space.take() {
                Some((space, ms)) => (Some(space), ms),
                None => build_space(data, &plan, opts, false, c)?,
            };
            let Some(space) = space else {
                out.push(stopped_early(start, filter, plan, space_ms, 0.0, c, considered));
                continue;
            };
            let t = Instant::now();
            let run = cpu::enumerate(data, &plan, &space, engine, c, None);
            let enumerate_ms = t.elapsed().as_secs_f64() * 1e3;
            let mut report = report(start, filter, &plan, &space, space_ms, enumerate_ms, &run);
            if i == 0 {
                // The chosen plan's run carries the planning: the comparison (its `order_ms`
                // and the candidate bitsets) and the probe with the spaces it built.
                (report.compare_ms, report.probe_ms) = (compare_ms, probe_ms);
            }
            out.push(Explained { report, levels: run.levels, plan, considered, probe });
        }
        Ok(out)
    })
}
