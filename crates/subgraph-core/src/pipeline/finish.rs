//! After the default plan (`Prepared::finish`): a counting query's scout or watch of the
//! default plan, the staged comparison of plans where it pays (`planner::compare_staged`), the
//! probe between the default plan and a challenger (`probe`), and the run of the plan kept,
//! which goes on from what its scout and probe counted.

use super::memory::build_space;
use super::options::MatchOptions;
use super::probe::{escalation, probe_prefers, uncounted, Probes};
use super::report::{report, stopped_early, Explained, Report};
use super::{Prepared, TRIAL};
use crate::cpu::{self, EngineOptions};
use crate::error::Error;
use crate::graph::Graph;
use crate::planner::{self, Considered};
use crate::sink::{Control, Output, Stopped};
use std::time::{Duration, Instant};

/// The share of the comparison's first stage (at least `TRIAL`) a counting query's scout of
/// its default plan runs before plans are compared. The scout's work is kept where the default
/// plan stays and lost where a challenger wins; since it is kept, a shorter scout pays: on
/// yeast's 629 queries of 2–300 ms (one thread, this VM) the shares 2, 1, 0.5, 0.25 and 0.1
/// took 1.07, 1, 0.94, 0.90 and 0.91 times as long by the geomean
/// (bench/results/2026-12-01-resume.md).
pub const SCOUT_SHARE: f64 = 0.25;

impl Prepared {
    /// Compares plans when that pays, then enumerates; `trial_ms` of trials that did not
    /// finish count as enumeration.
    pub(super) fn finish(
        self,
        data: &Graph,
        opts: &MatchOptions,
        control: &Control,
        output: Option<(&Output, &str)>,
        trial_ms: f64,
    ) -> Result<Explained, Error> {
        let filter = self.filter();
        let Prepared { start, query, options, mut plan, space, mut space_ms, gate, .. } = self;
        let Some(mut space) = space else {
            return Ok(stopped_early(start, filter, plan, space_ms, trial_ms, control, Vec::new()));
        };
        let engine = EngineOptions { limit: opts.limit, failing_sets: opts.failing_sets };
        let filter_ms = plan.filter_ms;
        let mut considered = Vec::new();
        let mut probe = None;
        // Planning's stages: trials, the comparison, the probe (`Report::trial_ms` …); the
        // trials and the probe count as enumeration.
        let mut stages = Stages { trial_ms, ..Stages::default() };
        // What the chosen plan's scout or probe counted, and the work it left.
        let mut scouted = None;
        if let Some((gate, per_particle)) = gate {
            let threads = rayon::current_num_threads();
            let cost = options.price(&gate, plan.multiplier);
            // The price the default plan's run has shown, where it ran on past its prediction.
            let mut overrun = 0.0;
            let alternatives = planner::has_alternatives(&options);
            let mut particles =
                planner::comparison_particles(&options, cost, per_particle, threads).filter(|_| alternatives);
            // A counting query first runs its default plan: for `SCOUT_SHARE` of what the
            // comparison's first stage would take (at least `TRIAL`) where a comparison pays,
            // as the estimates do not see the failing sets' pruning and many queries they call
            // heavy end at once; else for `OVERRUN` times its predicted time, as a gate whose
            // particles died prices the search above where they died only (yeast's
            // sparse_24_138: 3.9 ms predicted, 4.6 s taken, where a counted tail takes 5 ms).
            // What it counts is kept, with the work it left, for the default plan's run.
            let watch = match particles {
                Some(p) => {
                    let scout = p.min(planner::SCOUT_PARTICLES);
                    let stage = planner::comparison_ms(&options, scout, per_particle);
                    Some(TRIAL.max(Duration::from_secs_f64(stage * 1e-3)).mul_f64(SCOUT_SHARE))
                }
                None => alternatives.then(|| {
                    let predicted_ms = planner::predicted_ms(cost, threads);
                    TRIAL.max(Duration::from_secs_f64(planner::OVERRUN * predicted_ms * 1e-3))
                }),
            };
            if let (Some(budget), None) = (watch, output) {
                let t = Instant::now();
                let trial = control.trial(budget);
                let (out, left) = cpu::enumerate_rest(
                    data,
                    &plan,
                    &space,
                    engine,
                    &trial,
                    cpu::Rest::whole(plan.candidates[0].len()),
                );
                if out.stopped != Some(Stopped::Timeout) || control.should_stop() {
                    let enumerate_ms = stages.trial_ms + t.elapsed().as_secs_f64() * 1e3;
                    let report = stages.on(report(start, filter, &plan, &space, space_ms, enumerate_ms, &out));
                    plan.estimate = Some(gate);
                    return Ok(Explained { report, levels: out.levels, plan, considered, probe: None });
                }
                let ms = t.elapsed().as_secs_f64() * 1e3;
                stages.trial_ms += ms;
                scouted = Some((out, left));
                if particles.is_none() {
                    // The prediction is refuted: the default plan is priced at OVERRUN times what
                    // it has taken, and compared where that pays.
                    overrun = planner::OVERRUN * planner::units_in_ms(ms, threads);
                    particles = planner::comparison_particles(&options, overrun, per_particle, threads);
                }
            }
            match particles {
                None => {
                    considered.push(Considered::of(&plan, gate.clone()));
                    plan.estimate = Some(gate);
                }
                Some(particles) => {
                    let (vertices, tail) = (plan.vertices.clone(), plan.tail);
                    let cands = plan.candidates_by_vertex();
                    let t = Instant::now();
                    let (best, c, used) = planner::compare_staged(
                        data,
                        &query,
                        options,
                        cands,
                        filter_ms,
                        particles,
                        cost,
                        overrun,
                        per_particle,
                        control,
                    );
                    stages.compare_ms = t.elapsed().as_secs_f64() * 1e3;
                    considered = c;
                    if best.vertices != vertices || best.tail != tail {
                        let t = Instant::now();
                        let (built, best_space_ms) = build_space(data, &best, opts, false, control)?;
                        let Some(best_space) = built else {
                            return Ok(stopped_early(
                                start,
                                filter,
                                best,
                                best_space_ms,
                                stages.trial_ms,
                                control,
                                considered,
                            ));
                        };
                        // The estimates that chose `best` err on searches whose work sits in
                        // a few prefixes: the challenger is probed, then the default plan
                        // within what the challenger's probe took, before the default plan is
                        // given up. The probes count as enumeration, as trials do.
                        // As long as the comparison took; `probe_prefers` gives at least PROBE_MIN.
                        let budget =
                            Duration::from_secs_f64(planner::comparison_ms(&options, used, per_particle) * 1e-3);
                        // The default plan's probe goes on from its scout.
                        let scout = scouted.take().unwrap_or_else(|| uncounted(&plan));
                        // The default plan's estimate is the comparison's first.
                        let default = considered.first().map(|d| &d.estimate);
                        let trusted = default.is_some_and(|e| planner::outprices(&options, &best, e, plan.multiplier));
                        let escalate = default.map_or(Duration::ZERO, |e| escalation(&options, e, plan.multiplier));
                        let Probes { probe: p, answer, challenger, incumbent } = probe_prefers(
                            data,
                            (&best, &best_space),
                            trusted,
                            (&plan, &space, scout),
                            engine,
                            control,
                            budget,
                            escalate,
                            output.is_none(),
                        );
                        let probe_ms = t.elapsed().as_secs_f64() * 1e3;
                        if let Some(out) = answer {
                            // A probe ran its plan's whole first level: the query's count, with
                            // the plan kept (the challenger, or the default that stays). The
                            // challenger's space is the run's `space_ms` where it won, else
                            // part of the probe.
                            stages.probe_ms = probe_ms - if p.switched { best_space_ms } else { 0.0 };
                            let enumerate_ms = stages.trial_ms + stages.probe_ms;
                            let (plan, space, space_ms) =
                                if p.switched { (best, best_space, best_space_ms) } else { (plan, space, space_ms) };
                            let report = stages.on(report(start, filter, &plan, &space, space_ms, enumerate_ms, &out));
                            return Ok(Explained { report, levels: out.levels, plan, considered, probe: Some(p) });
                        }
                        stages.probe_ms = probe_ms;
                        let switch = p.switched;
                        probe = Some(p);
                        // The plan kept goes on from its probe (the default's, from its scout
                        // and its probe).
                        if switch {
                            (plan, space, space_ms) = (best, best_space, best_space_ms);
                            stages.probe_ms -= best_space_ms;
                        }
                        scouted = output.is_none().then_some(if switch { challenger } else { incumbent });
                    } else {
                        plan = best;
                    }
                }
            }
        }
        let t = Instant::now();
        let out = match scouted {
            // The plan's run goes on from where its scout (the default plan kept) or its probe
            // (the challenger chosen) stopped, towards what is left of the limit.
            Some((mut found, left)) => {
                let counted = found.embeddings.min(u64::MAX as u128) as u64;
                let engine = EngineOptions { limit: engine.limit.map(|l| l.saturating_sub(counted)), ..engine };
                found.add(&cpu::enumerate_rest(data, &plan, &space, engine, control, left).0);
                found
            }
            None => cpu::enumerate(data, &plan, &space, engine, control, output),
        };
        // A trial that did not finish is enumeration too.
        let enumerate_ms = stages.trial_ms + stages.probe_ms + t.elapsed().as_secs_f64() * 1e3;
        let report = stages.on(report(start, filter, &plan, &space, space_ms, enumerate_ms, &out));
        Ok(Explained { report, levels: out.levels, plan, considered, probe })
    }
}

/// Milliseconds of planning's stages after the default plan is made ([`Report::trial_ms`]).
#[derive(Debug, Default, Clone, Copy)]
struct Stages {
    trial_ms: f64,
    compare_ms: f64,
    probe_ms: f64,
}

impl Stages {
    fn on(self, report: Report) -> Report {
        Report { trial_ms: self.trial_ms, compare_ms: self.compare_ms, probe_ms: self.probe_ms, ..report }
    }
}
