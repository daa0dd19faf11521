//! Patterns on the engine, the runner the command line (`match --pattern`, `.cypher` files)
//! and the Python package share: a pattern compiled onto the data graph, each of its label
//! expansions matched by the [`Engine`] (or on the CPU over the label-free view), and its rows
//! (RETURN, DISTINCT, LIMIT) counted and written; or, for a tree pattern under homomorphism
//! whose rows need no enumeration, counted by GGQ's tree passes (`subgraph_core::tree`,
//! [`subgraph_gpu::ggq`]) without expanding its absent labels; or one whose rows must be enumerated,
//! by GGQ's thread IDs on the GPU ([`subgraph_gpu::ggq::ids`]) where `--gpu-strategy` says so.

use std::sync::Arc;

use std::time::Instant;
use subgraph_core::automorphism::{isomorphism_classes, Automorphisms};
use subgraph_core::pipeline::{MatchOptions, Report};
use subgraph_core::sink::{Control, Output, OutputFormat, Stopped, OUTPUT_BATCH};
use subgraph_core::tree::TreeQuery;
use subgraph_core::{Graph, Semantics};
use subgraph_gpu::ggq::ids::{Ask, IdPlan};
use subgraph_gpu::{GpuError, GpuReport, Strategy};
use subgraph_pattern::compile::{tree, CompileError, Compiled};
use subgraph_pattern::rows::Rows;
use subgraph_pattern::{Pattern, Return};

pub use crate::derived::Derived;
use crate::devices::{merged, on_view, Engine, Ran};

/// Why a pattern could not run.
#[derive(Debug, thiserror::Error)]
pub enum PatternRunError {
    #[error(
        "--unique counts distinct subgraphs, which homomorphisms (the default for patterns) do not define; add \
         --semantics embed"
    )]
    UniqueHomomorphism,
    #[error(
        "--unique divides by the pattern's automorphisms, which its property tests or its edges without direction \
         on directed data break; leave --unique out"
    )]
    UniqueRestricted,
    #[error(
        "--unique counts distinct subgraphs, and an edge without label that binds to one of a pair's several edges \
         makes one subgraph of each; give the edge a label, or leave --unique out"
    )]
    UniqueBindings,
    #[error(
        "--semantics induced does not say which direction an edge without direction forbids on directed data; \
         write -> or <-"
    )]
    InducedWithoutDirection,
    #[error(
        "--semantics induced forbids edges of every label, and the pattern's labels expand into too many queries: it \
         would run over the data's edges of its edge label alone; give more of its vertices a label"
    )]
    InducedOnView,
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error(transparent)]
    Engine(#[from] GpuError),
    #[error("writing the rows: {0}")]
    Rows(std::io::Error),
    #[error("the pattern has more than 2^128 - 1 matches, more than a count can hold")]
    TooManyMatches,
}

/// Why a pattern runs on the CPU over the label-free view (`Ran::note`, after the pattern's
/// name).
pub const VIEW_NOTE: &str = "the pattern's unlabelled vertices expand into too many label combinations: it runs on \
                             the CPU over the data graph without labels, its labelled vertices restricted to their \
                             labels";

/// Why a pattern has nothing to run (`Ran::note`, after the pattern's name).
pub const NOWHERE_NOTE: &str = "the pattern's labels occur together nowhere in the data graph";

/// Refuses what `compiled` cannot mean under `semantics` (and `unique`): distinct subgraphs
/// where property tests or edges without direction break the automorphisms, and induced
/// matches of edges without direction on directed data.
pub fn check(compiled: &Compiled, semantics: Semantics, unique: bool) -> Result<(), PatternRunError> {
    let skipping = skipping(compiled);
    if unique && (compiled.restricted || skipping) {
        return Err(PatternRunError::UniqueRestricted);
    }
    if unique && compiled.weights.iter().any(|&w| w > 1) {
        return Err(PatternRunError::UniqueBindings);
    }
    if skipping && semantics == Semantics::Induced {
        return Err(PatternRunError::InducedWithoutDirection);
    }
    if compiled.view && compiled.view_edges.is_some() && semantics == Semantics::Induced {
        return Err(PatternRunError::InducedOnView);
    }
    Ok(())
}

/// Some query of `compiled` matches an edge without direction reversed (`Compiled::skips`).
fn skipping(compiled: &Compiled) -> bool {
    compiled.skips.iter().any(|s| !s.is_empty())
}

/// What a pattern came to.
pub struct PatternRun {
    /// The expansions' runs merged; `gpu` only where there was one expansion.
    pub ran: Ran,
    /// Result rows after RETURN, DISTINCT and LIMIT.
    pub rows: u128,
    /// Distinct subgraphs, when asked for and complete.
    pub unique: Option<u128>,
    /// The rows' column names (`count(*)` for a count).
    pub names: Vec<String>,
    /// The pattern returns `count(*)`: its one row is `ran.report.embeddings`, written by
    /// [`Output::write_count`] (nothing in `OutputFormat::Words`).
    pub count_star: bool,
}

/// Matches `pattern` (named `name`) on `data` under `opts`, writing its rows to `output`
/// (`OutputFormat::Words` writes each row's data vertex numbers); `derived` is `data`'s. With
/// `unique`, distinct subgraphs are counted too (refused where they are not defined); with
/// `trees`, a tree pattern whose rows need no enumeration is counted by the tree passes.
#[allow(clippy::too_many_arguments)]
pub fn run_pattern(
    pattern: &Pattern,
    name: &str,
    data: &Arc<Graph>,
    engine: &mut Engine,
    opts: &MatchOptions,
    control: &Arc<Control>,
    output: Option<&Arc<Output>>,
    unique: bool,
    trees: bool,
    derived: &Derived,
) -> Result<PatternRun, PatternRunError> {
    if unique && opts.semantics == Semantics::Homomorphism {
        return Err(PatternRunError::UniqueHomomorphism);
    }
    let strategy = engine.strategy();
    if matches!(strategy, Some(Strategy::Auto | Strategy::Ggq)) {
        if let Some(run) = run_ids(pattern, name, data, engine, opts, control, output)? {
            return Ok(run);
        }
    }
    if trees && strategy != Some(Strategy::Ggq) {
        if let Some(run) = run_tree(pattern, name, data, engine, opts, control, output)? {
            return Ok(run);
        }
    }
    let start = Instant::now();
    let (compiled, view) = match derived.compile(pattern, data, control) {
        Err(CompileError::Stopped) => {
            let mut report = Report::nothing(opts.filter, control.stopped());
            report.elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
            let ran = Ran { report, gpu: None, choice: None, note: None };
            return Ok(PatternRun { ran, rows: 0, unique: None, names: pattern.column_names(), count_star: false });
        }
        compiled => compiled?,
    };
    check(&compiled, opts.semantics, unique)?;
    let skipping = skipping(&compiled);
    let limit = compiled.limit.into_iter().chain(opts.limit).min();
    // Matches are followed one by one where rows are written or made distinct, or where
    // some are skipped (edges without direction on directed data); otherwise every match is a
    // row and counting is enough.
    let follow = skipping || (!compiled.count_star && (output.is_some() || compiled.distinct));
    let rows = follow.then(|| {
        let out = output.filter(|_| !compiled.count_star).map(|o| (o.clone(), name.to_string()));
        Rows::new(&compiled, view.clone().unwrap_or_else(|| data.clone()), limit, out, control.clone())
    });
    let words = rows.as_ref().map(|r| Output::new(r.writer(), OutputFormat::Words));
    if let (Some(o), true) = (output, follow && !compiled.count_star) {
        o.begin_rows(name, &compiled.names);
    }
    let mut merged: Option<Ran> = None;
    // Distinct subgraphs: isomorphic expansions (one labelling of a subgraph read from
    // different pattern vertices) find the same subgraphs, so each class counts once.
    let classes = unique.then(|| isomorphism_classes(&compiled.queries));
    let mut unique_sum = Some(0u128);
    for (k, (query, skip)) in compiled.queries.iter().zip(&compiled.skips).enumerate() {
        let found = merged.as_ref().map_or(0, |m| m.report.embeddings);
        // Without DISTINCT or skipped matches a match is a row (weight rows, one per binding
        // of its edges), so the engine stops at the limit itself; otherwise the rows stop it.
        let weight = compiled.weights[k];
        let left = match compiled.distinct || skipping {
            true => None,
            false => limit.map(|l| l.saturating_sub(found.min(u64::MAX as u128) as u64)),
        };
        if left == Some(0) || control.should_stop() {
            break;
        }
        let first_of_class = classes.as_ref().is_some_and(|c| c[k] == k);
        let auts = first_of_class.then(|| Automorphisms::of(query).order()).flatten();
        let this = MatchOptions { limit: left.map(|l| l.div_ceil(weight)), ..*opts };
        if let Some(r) = &rows {
            r.start_query(skip, weight);
        }
        let output = words.as_ref().map(|w| (w, name));
        let mut ran = match &view {
            Some(view) => on_view(view, query.clone(), &this, control, output, format!("{name}: {VIEW_NOTE}"))?,
            None => engine.run_as_is(data, query.clone(), &this, control, output)?,
        };
        let weighed = ran.report.embeddings.checked_mul(weight as u128).ok_or(PatternRunError::TooManyMatches)?;
        ran.report.embeddings = left.map_or(weighed, |l| weighed.min(l as u128));
        if let Some(g) = &mut ran.gpu {
            g.report.embeddings = ran.report.embeddings;
        }
        if first_of_class {
            unique_sum = unique_sum.zip(ran.report.unique(auts)).map(|(a, b)| a + b);
        }
        merged = Some(self::merged(merged, ran));
    }
    if let Some(w) = &words {
        w.finish().map_err(PatternRunError::Rows)?;
    }
    // No expansion ran: none exists, or the control stopped the pattern before the first.
    let mut ran = merged.unwrap_or_else(|| Ran {
        report: Report::nothing(opts.filter, control.stopped()),
        gpu: None,
        choice: None,
        note: control.stopped().is_none().then(|| format!("{name}: {NOWHERE_NOTE}")),
    });
    ran.report.elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
    if let (Some(r), true) = (&rows, skipping) {
        ran.report.embeddings = r.matches() as u128;
    }
    let rows = match &rows {
        _ if compiled.count_star => 1,
        Some(r) => r.count() as u128,
        None => limit.map_or(ran.report.embeddings, |l| ran.report.embeddings.min(l as u128)),
    };
    if let (Some(o), true) = (output, compiled.count_star) {
        o.begin_rows(name, &compiled.names);
        o.write_count(name, &compiled.names[0], ran.report.embeddings);
    }
    Ok(PatternRun {
        unique: unique_sum.filter(|_| unique && ran.report.complete),
        ran,
        rows,
        names: compiled.names,
        count_star: compiled.count_star,
    })
}

/// Whether `pattern`'s rows must be made distinct: DISTINCT over fewer columns than it has
/// vertices (over all of them, distinct matches are distinct rows), not `count(*)`.
fn distinct_rows(pattern: &Pattern) -> bool {
    let mut columns = pattern.returned_vertices();
    columns.sort_unstable();
    columns.dedup();
    pattern.distinct && !matches!(pattern.returns, Return::CountStar) && columns.len() < pattern.vertices.len()
}

/// The tree query GGQ's passes count `pattern` by on `data` under `semantics` (rooted at its
/// one DISTINCT vertex), where it is a tree pattern under homomorphism whose rows need no
/// enumeration (`count(*)`; every match a row, none written (`writes` false); DISTINCT of one
/// vertex), and whether its rows are that vertex's answers (the DISTINCT case); None otherwise.
pub fn tree_query(
    pattern: &Pattern,
    data: &Graph,
    semantics: Semantics,
    writes: bool,
) -> Result<Option<(TreeQuery, bool)>, PatternRunError> {
    if semantics != Semantics::Homomorphism {
        return Ok(None);
    }
    let count_star = matches!(pattern.returns, Return::CountStar);
    let mut columns = pattern.returned_vertices();
    columns.sort_unstable();
    columns.dedup();
    let distinct = distinct_rows(pattern);
    let projection = distinct && columns.len() == 1;
    // Every match a row and none written: counting them is enough.
    let counted = !(distinct || writes);
    if count_star || projection || counted {
        let root = columns.first().copied().unwrap_or(0);
        return Ok(tree(pattern, data, root)?.map(|t| (t, projection)));
    }
    Ok(None)
}

/// A tree pattern under homomorphism whose rows need no enumeration (`count(*)`; every match a
/// row and none written; or DISTINCT of one vertex, its answers), counted by GGQ's tree passes
/// (`subgraph_core::tree`, on the GPU [`subgraph_gpu::ggq`]) rooted at that vertex, absent labels
/// left as wildcards. None where it does not apply.
fn run_tree(
    pattern: &Pattern,
    name: &str,
    data: &Arc<Graph>,
    engine: &mut Engine,
    opts: &MatchOptions,
    control: &Arc<Control>,
    output: Option<&Arc<Output>>,
) -> Result<Option<PatternRun>, PatternRunError> {
    let Some((tree, projection)) = tree_query(pattern, data, opts.semantics, output.is_some())? else {
        return Ok(None);
    };
    let count_star = matches!(pattern.returns, Return::CountStar);
    let ran = engine.count_tree(data, &tree, opts, control)?;
    let where_ = if ran.gpu.is_some() { "the GPU" } else { "the CPU" };
    let mut note = format!("{name}: a tree pattern, counted on {where_} without enumerating its matches (GGQ)");
    if ran.recounted {
        note.push_str("; the GPU's 64-bit counts saturated, so the CPU counted again in 128 bits");
    }
    if let Some(why) = &ran.why {
        note.push_str(&format!(" ({why})"));
    }
    let Some(count) = ran.count else {
        let report = Report::nothing(opts.filter, control.stopped());
        let run = Ran { report, gpu: None, choice: None, note: Some(note) };
        return Ok(Some(PatternRun { ran: run, rows: 0, unique: None, names: pattern.column_names(), count_star }));
    };
    let limit = pattern.limit.into_iter().chain(opts.limit).min().map(u128::from);
    let names = pattern.column_names();
    let (embeddings, stopped, rows) = match (projection, count.total) {
        (false, None) => return Err(PatternRunError::TooManyMatches),
        (false, Some(total)) => {
            let kept = limit.map_or(total, |l| total.min(l));
            let stopped = (kept < total).then_some(Stopped::Limit);
            (kept, stopped, if count_star { 1 } else { kept })
        }
        (true, total) => {
            let rows = limit.map_or(count.roots.len(), |l| count.roots.len().min(l as usize));
            if let Some(o) = output {
                o.begin_rows(name, &names);
                let mut buf = Vec::new();
                for &v in &count.roots[..rows] {
                    o.format_row(name, &names, &[v], &mut buf);
                    if buf.len() >= OUTPUT_BATCH {
                        o.write_batch(&buf);
                        buf.clear();
                    }
                }
                o.write_batch(&buf);
            }
            if total.is_none() {
                note.push_str("; its matches exceed 2^128 - 1 and are reported as that");
            }
            (total.unwrap_or(u128::MAX), None, rows as u128)
        }
    };
    if let (Some(o), true) = (output, count_star) {
        o.begin_rows(name, &names);
        o.write_count(name, &names[0], embeddings);
    }
    let report = Report {
        embeddings,
        complete: stopped.is_none(),
        stopped,
        elapsed_ms: ran.ms,
        enumerate_ms: ran.ms,
        candidates: count.roots.len() as u64,
        order: "tree",
        ..Report::nothing(opts.filter, None)
    };
    let gpu = ran.gpu.map(|g| GpuReport { report, ..g });
    Ok(Some(PatternRun {
        ran: Ran { report, gpu, choice: None, note: Some(note) },
        rows,
        unique: None,
        names,
        count_star,
    }))
}

/// Under `--gpu-strategy auto`, GGQ's thread IDs enumerate a tree pattern whose matches are
/// followed one by one (written, or made distinct) where they are estimated at most this many
/// per match: on an H100 a thread ID costs about 0.03 ns and a match the general join hands
/// to the host about 300 ns (bench/results/2026-11-26-ggq-ids.md).
pub const IDS_PER_MATCH: u128 = 1 << 13;

/// Under `--gpu-strategy auto`, GGQ's thread IDs also answer a tree pattern whose matches are
/// only counted (where the tree passes would, in about a millisecond) when it needs at most
/// this many (about a millisecond on an H100) in one phase.
pub const FEW_IDS: u128 = 1 << 25;

/// A tree pattern under homomorphism enumerated by GGQ's thread IDs on the GPU
/// ([`subgraph_gpu::ggq::ids`]), rooted at its vertex of fewest candidates (by label and tests): under
/// `--gpu-strategy ggq` always; under `auto` where it needs at most [`FEW_IDS`] in one phase,
/// or where its matches are followed one by one (written, or made distinct) and its thread IDs
/// (exact, from the tree passes' counts of each phase's prefix) are at most [`IDS_PER_MATCH`]
/// per match. None where it does not apply, was not chosen, or the engine runs on the CPU.
fn run_ids(
    pattern: &Pattern,
    name: &str,
    data: &Arc<Graph>,
    engine: &mut Engine,
    opts: &MatchOptions,
    control: &Arc<Control>,
    output: Option<&Arc<Output>>,
) -> Result<Option<PatternRun>, PatternRunError> {
    if opts.semantics != Semantics::Homomorphism || !engine.has_gpu() {
        return Ok(None);
    }
    let Some(tree) = tree(pattern, data, 0)? else {
        return Ok(None);
    };
    let candidates = |u: usize| {
        let by_label = tree.labels[u].map_or(data.num_vertices(), |l| data.vertices_with_label(l).len());
        by_label.min(
            tree.allowed[u].as_ref().map_or(usize::MAX, |a| a.words().iter().map(|w| w.count_ones() as usize).sum()),
        )
    };
    let root = (0..tree.len()).min_by_key(|&u| candidates(u)).unwrap_or(0) as u32;
    let tree = tree.rerooted(root, data.is_directed());
    let Some(plan) = IdPlan::new(data, &tree) else {
        return Ok(None);
    };
    let count_star = matches!(pattern.returns, Return::CountStar);
    let columns: Vec<u32> = pattern.returned_vertices().iter().map(|&v| v as u32).collect();
    let names = pattern.column_names();
    let writes = output.filter(|_| !count_star);
    let ask = Ask {
        distinct: distinct_rows(pattern),
        write: writes.is_some(),
        limit: pattern.limit.into_iter().chain(opts.limit).min(),
        columns,
    };
    let mut why = "--gpu-strategy ggq".to_string();
    let one_phase = (plan.phases.len() == 1).then(|| plan.threads(&[]));
    if let (Some(Strategy::Auto), Some(threads)) = (engine.strategy(), one_phase.filter(|&t| t <= FEW_IDS)) {
        why = format!("{threads} thread IDs in one phase");
    } else if engine.strategy() == Some(Strategy::Auto) {
        if !(ask.write || ask.distinct) {
            return Ok(None);
        }
        let mut prefix_rows = Vec::new();
        for k in 1..plan.phases.len() {
            let prefix = plan.prefix(&tree, k, data.is_directed());
            match engine.count_tree(data, &prefix, opts, control)?.count.and_then(|c| c.total) {
                Some(rows) => prefix_rows.push(rows),
                None => return Ok(None),
            }
        }
        let Some(matches) = engine.count_tree(data, &tree, opts, control)?.count.and_then(|c| c.total) else {
            return Ok(None);
        };
        let threads = plan.threads(&prefix_rows);
        if threads > IDS_PER_MATCH * matches.max(1) {
            return Ok(None);
        }
        why = format!("estimated {threads} thread IDs for {matches} matches");
    }
    if let Some(o) = writes {
        o.begin_rows(name, &names);
    }
    let mut buf = Vec::new();
    let p = ask.columns.len();
    let mut sink = |rows: &[u32], count: u64| {
        let Some(o) = writes else { return };
        for i in 0..count as usize {
            o.format_row(name, &names, &rows[i * p..(i + 1) * p], &mut buf);
            if buf.len() >= OUTPUT_BATCH {
                o.write_batch(&buf);
                buf.clear();
            }
        }
    };
    let Some((run, peak)) = engine.enumerate_tree(data, &tree, &plan, &ask, control, &mut sink)? else {
        return Ok(None);
    };
    if let Some(o) = writes {
        o.write_batch(&buf);
    }
    if let (Some(o), true) = (output, count_star) {
        o.begin_rows(name, &names);
        o.write_count(name, &names[0], run.matches as u128);
    }
    let where_distinct = if run.device_distinct { "on the device" } else { "on the host" };
    let note = format!(
        "{name}: a tree pattern, enumerated on the GPU by GGQ's thread IDs ({why}): {} phase{}, {} thread IDs in {} \
         launches{}",
        run.phases,
        if run.phases == 1 { "" } else { "s" },
        run.threads,
        run.launches,
        if ask.distinct { format!(", rows made distinct {where_distinct}") } else { String::new() }
    );
    let report = Report {
        embeddings: run.matches as u128,
        complete: run.stopped.is_none(),
        stopped: run.stopped,
        elapsed_ms: run.ms,
        enumerate_ms: run.ms,
        candidates: plan.roots.len() as u64,
        order: "tree",
        ..Report::nothing(opts.filter, None)
    };
    let gpu = GpuReport::of(report, ("ggq", "streams"), 0.0, 0.0, run.ms, peak);
    Ok(Some(PatternRun {
        ran: Ran { report, gpu: Some(gpu), choice: None, note: Some(note) },
        rows: if count_star { 1 } else { run.rows as u128 },
        unique: None,
        names,
        count_star,
    }))
}
