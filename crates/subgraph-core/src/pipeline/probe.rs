//! Probing two plans on a sample of their first levels, where the sampled estimates chose a
//! plan other than the default: the default plan gives way only when the probe agrees, a
//! challenger whose probe ran its whole first level has answered a counting query, and a
//! challenger chosen goes on from what its probe counted.

use super::report::Probe;
use crate::cpu::{self, EngineOptions};
use crate::estimate::Estimate;
use crate::graph::Graph;
use crate::plan::{Plan, PlanOptions};
use crate::planner;
use crate::sink::Control;
use crate::space::CandidateSpace;
use std::time::{Duration, Instant};

/// First-level candidates a plan's probe runs ([`probe_prefers`]) besides its heaviest ones,
/// evenly spaced over the rest of the level; a level of fewer than four times as many is run
/// whole.
pub const PROBE_ROOTS: usize = 64;
/// The heaviest first-level candidates (by data degree) a probe runs, all counted in full.
pub const PROBE_HEAVY_ROOTS: usize = 8;
/// The least time the challenger's probe is given, and the budget of `explain`'s probe.
pub const PROBE_MIN: Duration = Duration::from_millis(10);

/// The share of the default plan's predicted time within which a challenger whose estimate is
/// not reliable must be predicted to win the probe. A probe's sample of first candidates can
/// miss where the work sits as the estimates can: on wordnet's dense_8_53 RI with a counted
/// tail was probed at 21 ms against the default's 21 ms and ran 9 times as long. Over
/// wordnet's 200 dense_8 queries (this VM, one thread) the unreliable challengers predicted
/// at half the default's time or less nearly all won, those from 0.75 up mostly lost.
pub(super) const UNTRUSTED_MARGIN: f64 = 0.8;

/// The times probes that find neither plan faster are run again with twice the budget, at
/// most ([`probe_prefers`]): three rounds of 10, 20 and 40 ms cost at most 140 ms where the
/// default plan stays. Yeast's dense_16_122 needed two (its challenger, RI with a counted tail,
/// ran 30 ms where GQL ran 1.1 s); with no limit but `escalate`, dense_32_173 and dense_24_86
/// ran twice as long as their default plans (1.8 s to 3.7 s on the H200 host), the
/// challenger's probes as long as the default's.
pub const ESCALATIONS: u32 = 2;

/// How long a probe that finds neither plan faster may go on ([`probe_prefers`]'s
/// `escalate`): [`planner::OVERRUN`] times the default plan's predicted time where its
/// estimate, `default` (its plan's matches standing for `multiplier` embeddings each), is not
/// reliable, its price a floor of its work rather than an estimate of it; else not at all.
pub fn escalation(options: &PlanOptions, default: &Estimate, multiplier: u128) -> Duration {
    if default.reliable() {
        return Duration::ZERO;
    }
    let ms = planner::OVERRUN * planner::predicted_ms(options.price(default, multiplier), rayon::current_num_threads());
    Duration::from_secs_f64(ms.min(1e9) * 1e-3)
}

/// One plan's probe: its predicted milliseconds (the heavy part plus the sample scaled to the
/// rest of the level), the milliseconds it took, and, where it ran all that was left, the
/// plan's whole count.
struct Probed {
    predicted_ms: f64,
    spent: Duration,
    whole: Option<cpu::Outcome>,
}

/// What a plan's runs have counted, and the work they left (the roots not run, and what
/// stopped runs left): the plan's run, if the plan is chosen, goes on from there.
pub type Counted = (cpu::Outcome, cpu::Rest);

/// Nothing counted yet: the whole search of `plan` left.
pub fn uncounted(plan: &Plan) -> Counted {
    (cpu::Outcome::nothing(plan.len(), None), cpu::Rest::whole(plan.candidates[0].len()))
}

/// What [`probe_prefers`] found.
pub struct Probes {
    /// The probes' predictions and the choice.
    pub probe: Probe,
    /// For a counting query, the run that answers it, where there is one.
    pub answer: Option<cpu::Outcome>,
    /// What the challenger has counted, with its probe, and the work it left.
    pub challenger: Counted,
    /// What the default plan has counted (its scout's and its probe's runs), and the work it
    /// left.
    pub incumbent: Counted,
}

/// Whether `challenger` (a plan and its candidate space) should replace `incumbent` (the
/// default plan, with what it has counted so far: its scout's runs, or [`uncounted`]), the
/// probes' predictions, and, for a counting query (`answers`), the run that answers it where
/// there is one: the challenger's, where its probe covered its whole first level (the default
/// is then not probed), or the default's, where the default stays and its probe ran all it had
/// left (its runs are the query's count: no need to run it again). Also what each plan has
/// counted and the work it left ([`Counted`]): a counting query goes on from there with the
/// plan it keeps, neither probe thrown away.
///
/// Each probe counts the matches under its first level's [`PROBE_HEAVY_ROOTS`] candidates of
/// highest degree, then under [`PROBE_ROOTS`] of the others evenly spaced; its predicted time
/// is the first part plus the second scaled to all the others (plans with the same first
/// vertex run the same candidates). The default plan's probe takes these among the first
/// candidates its scout did not begin, counts what the scout left of those it began with the
/// heaviest, and predicts the time of all it had left: what the scout counted is done
/// whichever plan runs on. Where fewer than `4 · PROBE_ROOTS` first candidates are left, the
/// probe runs all that is left.
///
/// The challenger is probed first, within `budget` (at least [`PROBE_MIN`]):
/// - finished over its whole level, with `answers`: it switches, and its run is returned;
/// - finished otherwise: the default plan is probed within twice the challenger's time and at
///   least the challenger's prediction up to [`PROBE_MIN`]. A default that does not finish
///   there would be predicted slower (its prediction is at least its probe's time), so the
///   choice is the one probing both in full would make; else the one predicted faster wins;
/// - not finished: the default plan is probed within the same `budget`; it stays where it
///   finishes, else the challenger wins where the estimates chose it (`trusted`: its estimate
///   reliable, its particles having reached matches, and priced below the default plan's,
///   `planner::outprices`). A challenger whose particles all died says only that the search
///   above where they died is cheaper, and one priced above a default plan whose particles
///   all died was chosen for the default's want of an estimate, not on its own: the default
///   stays, and where both finished such a challenger wins only when predicted within
///   [`UNTRUSTED_MARGIN`] of the default's time (yeast's dense_32_181: `card`, reliable and
///   priced above GQL's floor, neither probe finished; chosen, it ran 3.1 s where GQL takes
///   0.5 s).
///
/// Where neither finished and the challenger is not trusted, both are probed again with
/// twice the budget, each going on from where its probe stopped, at most [`ESCALATIONS`] times
/// and for as long as the probes stay within `escalate` (`Duration::ZERO`: not at all). The
/// caller allows it where the default plan's estimate is not reliable, as its time is then
/// unknown ([`escalation`]; yeast's dense_16_122: GQL, priced by its floor at 64 ms, ran
/// 1.1 s; RI with its counted tail, 30 ms, did not finish its first 10 ms probe).
///
/// On wordnet's dense_8_3 the sampled estimates chose `card` (435 ms) over the default GQL
/// order (94 ms): the work sits in the subtrees of a few hubs, which uniform resampling misses
/// at any particle count (and an even sample of 64 first vertices missed too, timing `card` at
/// half of GQL).
#[allow(clippy::too_many_arguments)]
pub fn probe_prefers(
    data: &Graph,
    challenger: (&Plan, &CandidateSpace),
    trusted: bool,
    incumbent: (&Plan, &CandidateSpace, Counted),
    engine: EngineOptions,
    control: &Control,
    budget: Duration,
    escalate: Duration,
    answers: bool,
) -> Probes {
    // A plan's probe, from what it had counted and left, and what it has counted and left
    // then (all it had left where it ran out before its first run ended).
    let probe = |(plan, space): (&Plan, &CandidateSpace), (mut found, mut left): Counted, budget: Duration| {
        let t = Instant::now();
        let trial = control.trial(budget);
        let first = &plan.candidates[0];
        let roots = left.take_roots();
        // Milliseconds to count `rest`, and the run, if that finished within the budget; what
        // it counted and left joins `found` and `left`.
        let run = |found: &mut cpu::Outcome, left: &mut cpu::Rest, rest: cpu::Rest| {
            let t = Instant::now();
            let (out, rest) = cpu::enumerate_rest(data, plan, space, engine, &trial, rest);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let done = out.stopped.is_none();
            found.add(&out);
            left.add(rest);
            done.then_some(ms)
        };
        if roots.len() < 4 * PROBE_ROOTS {
            let mut all = std::mem::take(&mut left);
            all.add(cpu::Rest::roots(roots));
            let probed = run(&mut found, &mut left, all).map(|ms| Probed {
                predicted_ms: ms,
                spent: t.elapsed(),
                whole: Some(found.clone()),
            });
            return (probed, (found, left));
        }
        let mut by_degree = roots.clone();
        by_degree.select_nth_unstable_by_key(PROBE_HEAVY_ROOTS, |&i| {
            std::cmp::Reverse(data.total_degree(first[i as usize]))
        });
        let mut heavy = by_degree[..PROBE_HEAVY_ROOTS].to_vec();
        heavy.sort_unstable();
        let mut rest = by_degree[PROBE_HEAVY_ROOTS..].to_vec();
        rest.sort_unstable();
        let others = rest.len();
        let sample: Vec<u32> = (0..PROBE_ROOTS).map(|i| rest[i * others / PROBE_ROOTS]).collect();
        let mut ran = [heavy.as_slice(), sample.as_slice()].concat();
        ran.sort_unstable();
        let unrun: Vec<u32> = roots.into_iter().filter(|i| ran.binary_search(i).is_err()).collect();
        // The heavy part: the heaviest roots, and what a scout left of the roots it began
        // (counted in full, as the heavy roots are, and not among the sampled roots).
        let mut first_part = std::mem::take(&mut left);
        first_part.add(cpu::Rest::roots(heavy));
        let heavy_ms = run(&mut found, &mut left, first_part);
        let sample_ms = heavy_ms.and_then(|_| run(&mut found, &mut left, cpu::Rest::roots(sample.clone())));
        // The sample where the heavy part ran out, and the roots neither part runs, are left
        // whole.
        if heavy_ms.is_none() {
            left.add(cpu::Rest::roots(sample));
        }
        left.add(cpu::Rest::roots(unrun));
        let probed = match (heavy_ms, sample_ms) {
            (Some(h), Some(s)) => Some(Probed {
                predicted_ms: h + s * others as f64 / PROBE_ROOTS as f64,
                spent: t.elapsed(),
                whole: None,
            }),
            _ => None,
        };
        (probed, (found, left))
    };
    let t = Instant::now();
    let mut budget = budget.max(PROBE_MIN);
    let (plan, space, scouted) = incumbent;
    let (mut counted, mut incumbent) = (uncounted(challenger.0), scouted);
    let mut rounds = 0;
    let (c, d, default_probed) = loop {
        let (c, challenger_counted) = probe(challenger, counted, budget);
        counted = challenger_counted;
        // The default plan's budget, where it is probed.
        let default_budget = match &c {
            Some(c) if answers && c.whole.is_some() => None,
            Some(c) => {
                let at_least = Duration::from_secs_f64(c.predicted_ms.min(1e7) * 1e-3).min(PROBE_MIN);
                Some((2 * c.spent + Duration::from_micros(200)).max(at_least))
            }
            None => Some(budget),
        };
        let (d, default_counted) = match default_budget {
            Some(budget) => probe((plan, space), incumbent, budget),
            None => (None, incumbent),
        };
        incumbent = default_counted;
        // Neither finished: again with twice the budget, each going on from where it stopped,
        // at most ESCALATIONS times, while the next round (at most twice two budgets) keeps
        // the probes within `escalate`.
        let next = t.elapsed() + 4 * budget;
        if c.is_none() && d.is_none() && !trusted && rounds < ESCALATIONS && next <= escalate && !control.should_stop()
        {
            (budget, rounds) = (2 * budget, rounds + 1);
            continue;
        }
        break (c, d, default_budget.is_some());
    };
    let margin = if trusted { 1.0 } else { UNTRUSTED_MARGIN };
    let switched = match (&c, &d) {
        (Some(c), Some(d)) => c.predicted_ms < margin * d.predicted_ms,
        (Some(_), None) => true,
        (None, d) => d.is_none() && trusted,
    };
    let probe = Probe {
        challenger: challenger.0.order.name(),
        challenger_tail: challenger.0.tail,
        default_ms: d.as_ref().map(|d| d.predicted_ms),
        challenger_ms: c.as_ref().map(|c| c.predicted_ms),
        switched,
        default_probed,
        rounds: rounds + 1,
    };
    let answer = if answers { answering(c, d, switched, default_probed) } else { None };
    Probes { probe, answer, challenger: counted, incumbent }
}

/// The run that answers a counting query after the probes `c` (the challenger's) and `d` (the
/// default's; None where one ran out): the challenger's where it is kept, was run whole and the
/// default was not probed; the default's where it stays and was run whole.
fn answering(c: Option<Probed>, d: Option<Probed>, switched: bool, default_probed: bool) -> Option<cpu::Outcome> {
    if switched {
        c.and_then(|c| c.whole).filter(|_| !default_probed)
    } else {
        d.and_then(|d| d.whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probed(whole: Option<u128>) -> Option<Probed> {
        let whole = whole.map(|embeddings| cpu::Outcome { embeddings, ..cpu::Outcome::nothing(2, None) });
        Some(Probed { predicted_ms: 1.0, spent: Duration::ZERO, whole })
    }

    #[test]
    fn a_whole_run_of_the_plan_kept_answers() {
        let count = |a: Option<cpu::Outcome>| a.map(|o| o.embeddings);
        // The challenger kept, run whole, the default not probed: its run.
        assert_eq!(count(answering(probed(Some(7)), None, true, false)), Some(7));
        // Kept after the default was probed (a query that writes its matches): none.
        assert_eq!(count(answering(probed(Some(7)), probed(Some(9)), true, true)), None);
        // The default stays and was run whole (the challenger ran out, or predicted slower):
        // its run, not a second one.
        assert_eq!(count(answering(None, probed(Some(9)), false, true)), Some(9));
        assert_eq!(count(answering(probed(None), probed(Some(9)), false, true)), Some(9));
        // Sampled, not run whole: none.
        assert_eq!(count(answering(probed(Some(7)), probed(None), false, true)), None);
        assert_eq!(count(answering(probed(None), None, true, true)), None);
    }
}
