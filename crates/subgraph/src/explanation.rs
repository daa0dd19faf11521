//! How a query is planned and why, as `explain` reports it and the server answers it: the plans
//! the planner compared with their estimated embeddings and cost, the chosen order with its
//! symmetry restrictions and counted tail, and per position the estimated against the actual
//! partial matches (the chosen plan is run on the CPU engine). A query over the data's label
//! sets, or a pattern, is explained as the query graphs of its label expansions.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use subgraph_core::estimate::GPU_WEIGHTS;
use subgraph_core::pipeline::{explain_query, Explained, MatchOptions, Probe};
use subgraph_core::planner::Considered;
use subgraph_core::sink::Control;
use subgraph_core::{Graph, Semantics};

use crate::derived::{needs_expansion, Derived};
use crate::devices::INDUCED_ON_VIEW;
use crate::patterns::{check, tree_query, NOWHERE_NOTE, VIEW_NOTE};
use crate::record::{Asked, Item};

/// One position of the chosen plan.
#[derive(Debug, Clone, Serialize)]
pub struct Position {
    pub vertex: u32,
    pub label: u32,
    pub candidates: usize,
    /// Earlier positions linked to it by query edges.
    pub links: Vec<usize>,
    /// Earlier positions whose data vertex it must exceed (symmetry breaking).
    pub greater_than: Vec<usize>,
    /// Counted rather than enumerated (the last position, or the tail).
    pub counted: bool,
    pub estimated: Option<f64>,
    pub actual: u64,
}

/// One run plan: what the planner expected and what happened.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    pub order: &'static str,
    pub tail: usize,
    pub vertices: Vec<u32>,
    pub estimated_embeddings: Option<f64>,
    pub estimated_cost: Option<f64>,
    /// The same estimate priced for the GPU engine (`estimate::GPU_WEIGHTS`).
    pub estimated_gpu_cost: Option<f64>,
    pub embeddings: u128,
    pub complete: bool,
    pub elapsed_ms: f64,
}

/// How one query was planned, and how its plan ran: `explain --format json`'s record.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    pub query: String,
    pub semantics: &'static str,
    pub automorphisms: Option<u128>,
    pub multiplier: u128,
    pub restrictions: Vec<(u32, u32)>,
    pub chosen: Run,
    /// Why this plan: the rule that picked it.
    pub reason: String,
    /// The probe of the default plan and the plan of least estimated cost, when they differed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<Probe>,
    pub considered: Vec<Run>,
    pub positions: Vec<Position>,
    pub filter_ms: f64,
    pub order_ms: f64,
    pub space_ms: f64,
    pub enumerate_ms: f64,
    /// Planning beyond the filter: explain compares every plan (`compare_ms`: `order_ms` and
    /// the candidate bitsets the sampling reads), probes the chosen one against the default
    /// plan with the candidate spaces the probe builds (`probe_ms`), and runs no trial
    /// (`trial_ms`, 0; `match` runs its default plan's trials first). Both are in the chosen
    /// run's `elapsed_ms`.
    pub trial_ms: f64,
    pub compare_ms: f64,
    pub probe_ms: f64,
    /// When `--spasm` counted the query instead of enumerating it: the quotients counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spasm_terms: Option<usize>,
    /// With --all, the other compared plans as run.
    pub others: Vec<Run>,
    /// Expansions of a pattern only: the pattern's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

fn run_of(e: &Explained) -> Run {
    let p = &e.plan;
    Run {
        order: p.order.name(),
        tail: p.tail,
        vertices: p.vertices.clone(),
        estimated_embeddings: p.estimate.as_ref().map(|x| x.matches * p.multiplier as f64),
        estimated_cost: p.estimate.as_ref().map(|x| x.cost),
        estimated_gpu_cost: p.estimate.as_ref().map(|x| x.cost_with(&GPU_WEIGHTS)),
        embeddings: e.report.embeddings,
        complete: e.report.complete,
        elapsed_ms: e.report.elapsed_ms,
    }
}

/// Why the chosen plan (its vertices and tail) was run, from the plans the planner compared
/// (the default plan first) and the probe that settled between two, as `planner::replaces`
/// chooses for a probe: the plan of least estimated cost, unless cheaper ones were not
/// trusted (their particles reached no match: a reliable plan goes first, and a counted tail
/// needs a reliable estimate), and the default plan where the probe found it faster.
fn reason(considered: &[Considered], chosen: (&[u32], usize), probe: Option<&Probe>) -> String {
    let k = considered.len();
    match k {
        0 => return "the order was given and there was nothing to compare".to_string(),
        1 => return "the only plan the options allow".to_string(),
        _ => {}
    }
    let estimates = format!("{k} plans (orders gql, ri, gsi, card, each with and without a counted tail)");
    let Some(picked) = considered.iter().find(|c| c.vertices == chosen.0 && c.tail == chosen.1) else {
        return format!("one of {estimates}");
    };
    let cheaper = match considered.iter().filter(|c| c.estimate.cost < picked.estimate.cost).count() {
        0 => None,
        1 => Some("the one plan estimated cheaper".to_string()),
        m => Some(format!("the {m} plans estimated cheaper")),
    };
    let choice = match (cheaper, std::ptr::eq(picked, &considered[0])) {
        (None, _) => format!("least estimated cost of {estimates}"),
        (Some(those), true) => format!(
            "the default plan of {estimates}: {those} count a tail that their particles did not reach (no match), \
             so their estimates leave its counting out"
        ),
        (Some(those), false) => {
            format!("least estimated cost among the reliable estimates of {estimates}: {those} reached no match")
        }
    };
    match probe {
        Some(p) if !p.switched => format!(
            "the default plan: the probe of the first level found it faster than the plan the estimates chose ({}{})",
            p.challenger,
            if p.challenger_tail > 0 { format!(" with a tail of {}", p.challenger_tail) } else { String::new() }
        ),
        Some(_) => format!("{choice}, not refuted by the probe"),
        None => choice,
    }
}

fn explanation(
    name: String,
    query: &Graph,
    runs: &[Explained],
    semantics: &'static str,
    pattern: Option<&str>,
) -> Explanation {
    let chosen = &runs[0];
    let plan = &chosen.plan;
    let n = plan.len();
    let start = plan.tail_start();
    let considered: Vec<Run> = chosen
        .considered
        .iter()
        .map(|c| Run {
            order: c.order,
            tail: c.tail,
            vertices: c.vertices.clone(),
            estimated_embeddings: Some(c.estimate.matches * plan.multiplier as f64),
            estimated_cost: Some(c.estimate.cost),
            estimated_gpu_cost: Some(c.estimate.cost_with(&GPU_WEIGHTS)),
            embeddings: 0,
            complete: false,
            elapsed_ms: 0.0,
        })
        .collect();
    let reason = reason(&chosen.considered, (&plan.vertices, plan.tail), chosen.probe.as_ref());
    let estimate = plan.estimate.as_ref();
    let positions = (0..n)
        .map(|i| Position {
            vertex: plan.vertices[i],
            label: query.label(plan.vertices[i]),
            candidates: plan.sizes[i],
            links: plan.backward[i].iter().map(|l| l.from).collect(),
            greater_than: plan.greater_than[i].clone(),
            counted: i >= start,
            estimated: estimate.and_then(|e| e.levels.get(i.min(start)).copied()),
            actual: chosen.levels[i],
        })
        .collect();
    let restrictions =
        (0..n).flat_map(|i| plan.greater_than[i].iter().map(move |&p| (plan.vertices[p], plan.vertices[i]))).collect();
    Explanation {
        query: name,
        semantics,
        automorphisms: plan.symmetry.as_ref().and_then(|a| a.order()),
        multiplier: plan.multiplier,
        restrictions,
        chosen: run_of(chosen),
        reason,
        probe: chosen.probe.clone(),
        considered,
        positions,
        filter_ms: chosen.report.filter_ms,
        order_ms: chosen.report.order_ms,
        space_ms: chosen.report.space_ms,
        enumerate_ms: chosen.report.enumerate_ms,
        trial_ms: chosen.report.trial_ms,
        compare_ms: chosen.report.compare_ms,
        probe_ms: chosen.report.probe_ms,
        spasm_terms: (chosen.report.spasm_terms > 0).then_some(chosen.report.spasm_terms),
        others: runs[1..].iter().map(run_of).collect(),
        pattern: pattern.map(str::to_string),
    }
}

/// One item explained: the line a readable report opens it with where it expands into
/// queries (a pattern, a query over the data's label sets), notes on how it would run, and
/// each query's explanation.
#[derive(Debug, Clone, Serialize)]
pub struct ItemExplained {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    pub notes: Vec<String>,
    pub explanations: Vec<Explanation>,
}

/// Why an item could not be explained: what (the query or pattern) and why.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {why}")]
pub struct ExplainError {
    pub what: String,
    pub why: String,
}

/// What an explanation is asked for: each run stopped after `timeout` (and by `interrupt`),
/// and with `all`, every compared plan run too.
#[derive(Debug, Clone)]
pub struct ExplainAsked {
    pub timeout: Option<Duration>,
    pub all: bool,
    pub interrupt: Arc<AtomicBool>,
}

impl ExplainAsked {
    fn control(&self) -> Control {
        Control::new(self.timeout.map(|t| Instant::now() + t), self.interrupt.clone())
    }
}

/// Explains `item` (named `name`) on `data` (`derived` is its); `asked` gives the options of
/// query graphs and of patterns.
pub fn explain_item(
    data: &Graph,
    derived: &Derived,
    name: String,
    item: Item,
    asked: &Asked,
    how: &ExplainAsked,
) -> Result<ItemExplained, ExplainError> {
    let fail = |what: &str, why: String| ExplainError { what: what.to_string(), why };
    let (opts, pattern_opts) = (&asked.opts, &asked.pattern_opts);
    let mut out = ItemExplained { heading: None, notes: Vec::new(), explanations: Vec::new() };
    match item {
        // A query over the data's label sets: each query it expands into, as a pattern's.
        Item::Graph(q) if needs_expansion(&q, data) => {
            let e = derived.expand(&q, data, &how.control()).map_err(|e| fail(&name, e.to_string()))?;
            if e.some_edges && opts.semantics == Semantics::Induced {
                return Err(fail(&name, INDUCED_ON_VIEW.to_string()));
            }
            let n = e.queries.len();
            let plural = if n == 1 { "query" } else { "queries" };
            out.heading = Some(format!("query {name}: {n} expansion {plural} over the data's sets of labels"));
            for (i, q) in e.queries.iter().enumerate() {
                let label = if n == 1 { name.clone() } else { format!("{name} (expansion {} of {n})", i + 1) };
                let on = e.view.as_deref().unwrap_or(data);
                out.explanations.push(explain_one(on, label, q, opts, how, None)?);
            }
        }
        Item::Graph(q) => out.explanations.push(explain_one(data, name, &q, opts, how, None)?),
        Item::Pattern(pattern) => {
            // Compiled under the timeout too (from before its label expansion).
            let (compiled, view) =
                derived.compile(&pattern, data, &how.control()).map_err(|e| fail(&name, e.to_string()))?;
            check(&compiled, pattern_opts.semantics, false).map_err(|e| fail(&name, e.to_string()))?;
            let n = compiled.queries.len();
            if tree_query(&pattern, data, pattern_opts.semantics, false)
                .map_err(|e| fail(&name, e.to_string()))?
                .is_some()
            {
                out.notes.push(format!(
                    "{name}: match counts this tree pattern by GGQ's tree passes, without these plans (unless its \
                     rows are written, or --tree-count off)"
                ));
            }
            if view.is_some() || n == 0 {
                out.notes.push(format!("{name}: {}", if n == 0 { NOWHERE_NOTE } else { VIEW_NOTE }));
            }
            let plural = if n == 1 { "query" } else { "queries" };
            out.heading = Some(format!("pattern {name}: {n} expansion {plural}"));
            for (i, q) in compiled.queries.iter().enumerate() {
                let label = if n == 1 { name.clone() } else { format!("{name} (expansion {} of {n})", i + 1) };
                let on = view.as_deref().unwrap_or(data);
                out.explanations.push(explain_one(on, label, q, pattern_opts, how, Some(&pattern.text))?);
            }
        }
    }
    Ok(out)
}

/// Explains `query` (named `name`; an expansion of the pattern `pattern`) on `data`.
fn explain_one(
    data: &Graph,
    name: String,
    query: &Graph,
    opts: &MatchOptions,
    how: &ExplainAsked,
    pattern: Option<&str>,
) -> Result<Explanation, ExplainError> {
    let runs = explain_query(data, query.clone(), opts, how.all, || how.control())
        .map_err(|e| ExplainError { what: format!("query {name}"), why: e.to_string() })?;
    Ok(explanation(name, query, &runs, opts.semantics.name(), pattern))
}

#[cfg(test)]
mod tests {
    use subgraph_core::estimate::Estimate;

    use super::*;

    fn plan(order: &'static str, first: u32, tail: usize, cost: f64, matches: f64) -> Considered {
        let estimate = Estimate {
            levels: Vec::new(),
            matches,
            cost,
            work: cost,
            nodes: 0.0,
            leaves: 0.0,
            particles: 64,
            read: 0.0,
        };
        Considered { order, vertices: vec![first, 1, 2], tail, estimate }
    }

    #[test]
    fn the_reason_names_the_rule_that_chose() {
        let default = plan("gql", 0, 0, 100.0, 5.0);
        let at = |c: &Considered| (c.vertices.clone(), c.tail);
        let said = |considered: &[Considered], c: &Considered, probe: Option<&Probe>| {
            let (v, t) = at(c);
            reason(considered, (&v, t), probe)
        };
        // The cheapest plan, reliable.
        let ri = plan("ri", 1, 0, 40.0, 3.0);
        let both = [default.clone(), ri.clone()];
        assert!(said(&both, &ri, None).starts_with("least estimated cost of 2 plans"));
        // The default kept: the only plan cheaper counts a tail its particles did not reach.
        let tail = plan("ri", 2, 2, 30.0, 0.0);
        let kept = [default.clone(), tail.clone()];
        let why = said(&kept, &default, None);
        assert!(
            why.starts_with("the default plan of 2 plans") && why.contains("the one plan estimated cheaper"),
            "{why}"
        );
        // A reliable plan before a cheaper unreliable one.
        let card = plan("card", 3, 0, 20.0, 0.0);
        let three = [default.clone(), ri.clone(), card];
        let why = said(&three, &ri, None);
        assert!(why.starts_with("least estimated cost among the reliable") && why.contains("the one plan"), "{why}");
        // The probe: a switch keeps the estimates' reason, a refusal names the challenger.
        let probe = |switched| Probe {
            challenger: "ri",
            challenger_tail: 0,
            default_ms: Some(1.0),
            challenger_ms: Some(2.0),
            switched,
            default_probed: true,
            rounds: 1,
        };
        assert!(said(&both, &ri, Some(&probe(true))).ends_with(", not refuted by the probe"));
        let why = said(&both, &default, Some(&probe(false)));
        assert!(why.starts_with("the default plan: the probe") && why.contains("(ri)"), "{why}");
        // Nothing compared, or one plan.
        assert_eq!(said(&[], &default, None), "the order was given and there was nothing to compare");
        assert_eq!(said(std::slice::from_ref(&default), &default, None), "the only plan the options allow");
    }
}
