//! Probing two plans on a sample of their first levels, where the sampled estimates chose a
//! plan other than the default: the default plan gives way only when the probe agrees, a
//! challenger whose probe ran its whole first level has answered a counting query, and a
//! challenger chosen goes on from what its probe counted.

use super::report::Probe;
use crate::cpu::{self, EngineOptions};
use crate::graph::Graph;
use crate::plan::Plan;
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

/// One plan's probe: its predicted milliseconds (the heavy part plus the sample scaled to the
/// whole level), the milliseconds it took, and the run itself where it covered the whole level.
struct Probed {
    predicted_ms: f64,
    spent: Duration,
    whole: Option<cpu::Outcome>,
}

/// What a plan's probe counted, and the work it left (the roots it did not run, and what its
/// stopped runs left): the plan's run, if the plan is chosen, goes on from there.
pub type Counted = (cpu::Outcome, cpu::Rest);

/// Whether `challenger` (a plan and its candidate space) should replace `incumbent` (the
/// default plan), the probes' predictions, and, for a counting query (`answers`), the run that
/// answers it where there is one: the challenger's, where its probe covered its whole first
/// level (the default is then not probed), or the default's, where the default stays and its
/// probe covered its whole first level (its run is the query's count: no need to run it again).
/// Also what the challenger's probe counted and the work it left ([`Counted`]): a counting
/// query that switches goes on from there, its probe not thrown away.
///
/// Each probe counts the matches under its first level's [`PROBE_HEAVY_ROOTS`] candidates of
/// highest degree, then under [`PROBE_ROOTS`] of the others evenly spaced; its predicted time
/// is the first part plus the second scaled to all the others (plans with the same first
/// vertex run the same candidates). A level of fewer than `4 · PROBE_ROOTS` is run whole.
///
/// The challenger is probed first, within `budget` (at least [`PROBE_MIN`]):
/// - finished over its whole level, with `answers`: it switches, and its run is returned;
/// - finished otherwise: the default plan is probed within twice the challenger's time and at
///   least the challenger's prediction up to [`PROBE_MIN`]. A default that does not finish
///   there would be predicted slower (its prediction is at least its probe's time), so the
///   choice is the one probing both in full would make; else the one predicted faster wins;
/// - not finished: the default plan is probed within the same `budget`; it stays where it
///   finishes, else the challenger wins, as the estimates chose it.
///
/// On wordnet's dense_8_3 the sampled estimates chose `card` (435 ms) over the default GQL
/// order (94 ms): the work sits in the subtrees of a few hubs, which uniform resampling misses
/// at any particle count (and an even sample of 64 first vertices missed too, timing `card` at
/// half of GQL).
pub fn probe_prefers(
    data: &Graph,
    challenger: (&Plan, &CandidateSpace),
    incumbent: (&Plan, &CandidateSpace),
    engine: EngineOptions,
    control: &Control,
    budget: Duration,
    answers: bool,
) -> (Probe, Option<cpu::Outcome>, Counted) {
    // A plan's probe, and what it counted and left (the whole level left where it ran out
    // before its first run ended).
    let probe = |(plan, space): (&Plan, &CandidateSpace), budget: Duration| -> (Option<Probed>, Counted) {
        let t = Instant::now();
        let trial = control.trial(budget);
        let first = &plan.candidates[0];
        let len = first.len();
        let (mut found, mut left) = (cpu::Outcome::nothing(plan.len(), None), cpu::Rest::default());
        // Milliseconds to count under `roots`, and the run, if that finished within the budget;
        // what it counted and left joins `found` and `left`.
        let mut run = |roots: Vec<u32>| {
            let t = Instant::now();
            let (out, rest) = cpu::enumerate_rest(data, plan, space, engine, &trial, cpu::Rest::roots(roots));
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let done = out.stopped.is_none();
            found.add(&out);
            left.add(rest);
            done.then_some((ms, out))
        };
        if len < 4 * PROBE_ROOTS {
            let Some((ms, out)) = run((0..len as u32).collect()) else { return (None, (found, left)) };
            return (Some(Probed { predicted_ms: ms, spent: t.elapsed(), whole: Some(out) }), (found, left));
        }
        let mut by_degree: Vec<u32> = (0..len as u32).collect();
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
        let unrun: Vec<u32> = (0..len as u32).filter(|i| ran.binary_search(i).is_err()).collect();
        let heavy_ms = run(heavy).map(|(ms, _)| ms);
        let sample_ms = heavy_ms.and_then(|_| run(sample.clone()).map(|(ms, _)| ms));
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
    let budget = budget.max(PROBE_MIN);
    let (c, counted) = probe(challenger, budget);
    let (d, default_probed) = match &c {
        Some(c) if answers && c.whole.is_some() => (None, false),
        Some(c) => {
            let at_least = Duration::from_secs_f64(c.predicted_ms.min(1e7) * 1e-3).min(PROBE_MIN);
            (probe(incumbent, (2 * c.spent + Duration::from_micros(200)).max(at_least)).0, true)
        }
        None => (probe(incumbent, budget).0, true),
    };
    let switched = match (&c, &d) {
        (Some(c), Some(d)) => c.predicted_ms < d.predicted_ms,
        (Some(_), None) => true,
        (None, d) => d.is_none(),
    };
    let probe = Probe {
        challenger: challenger.0.order.name(),
        challenger_tail: challenger.0.tail,
        default_ms: d.as_ref().map(|d| d.predicted_ms),
        challenger_ms: c.as_ref().map(|c| c.predicted_ms),
        switched,
        default_probed,
    };
    let answer = if answers { answering(c, d, switched, default_probed) } else { None };
    (probe, answer, counted)
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
