//! `subgraph explain`: how a query is planned and why: the plans the planner compared with their
//! estimated embeddings and cost, the chosen order with its symmetry restrictions and counted
//! tail, and per position the estimated against the actual partial matches (the chosen plan
//! is run on the CPU engine); with `--all`, every compared plan is run and timed. A pattern
//! (`--pattern`, `.cypher` files) is explained as the query graphs of its label expansions.

use crate::matching::{items, parse_threads, parse_timeout, stdin_once, InputArgs, Item, PartsArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use subgraph::derived::needs_expansion;
use subgraph::devices::INDUCED_ON_VIEW;
use subgraph::patterns::{check, tree_query, Derived, NOWHERE_NOTE, VIEW_NOTE};
use subgraph::MatchOptions;
use subgraph_core::cpu::FailingSets;
use subgraph_core::estimate::GPU_WEIGHTS;
use subgraph_core::io::ReadOptions;
use subgraph_core::pipeline::{explain_query, Explained, Probe};
use subgraph_core::sink::Control;
use subgraph_core::{Graph, Semantics};
use subgraph_pattern::Pattern;

#[derive(Args)]
#[command(after_help = concat!(
    "Examples (from the repository root, on the shipped test data):\n",
    "  subgraph explain tests/data/hprd/HPRD.graph tests/data/hprd/queries/query_dense_16_2.graph\n",
    "  subgraph explain --all --format json tests/data/yeast/yeast.graph tests/data/yeast/queries/query_dense_8_1.graph\n",
    "  subgraph explain tests/data/yeast/yeast.graph --pattern 'MATCH (a:1)--(b)--(c:2)'",
))]
pub struct ExplainArgs {
    /// Data graph file; `-` reads standard input, and gzip (.gz) and zstd (.zst) files are
    /// decompressed (told by their magic bytes too).
    data: PathBuf,
    /// Query graph files, or pattern files (`.cypher`, one pattern each); `-` and compressed
    /// files as for DATA.
    #[arg(required_unless_present = "pattern")]
    queries: Vec<PathBuf>,
    /// A pattern, as `match --pattern` takes it: each query graph it expands into is explained
    /// (semantics homomorphism unless --semantics says otherwise); may be given several times.
    #[arg(long, value_name = "TEXT")]
    pattern: Vec<String>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    parts: PartsArgs,
    /// Worker threads (default: all cores; at most 4 per core, or 64).
    #[arg(long, value_parser = parse_threads)]
    threads: Option<usize>,
    /// Stop each run after SECS seconds.
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    timeout: Option<f64>,
    /// Stop each run after N matches.
    #[arg(long)]
    limit: Option<u64>,
    /// Also run every plan the planner compared, and report each one's time.
    #[arg(long)]
    all: bool,
    /// A readable report, or one JSON object per query per line.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
}

/// One position of the chosen plan.
#[derive(Serialize)]
struct Position {
    vertex: u32,
    label: u32,
    candidates: usize,
    /// Earlier positions linked to it by query edges.
    links: Vec<usize>,
    /// Earlier positions whose data vertex it must exceed (symmetry breaking).
    greater_than: Vec<usize>,
    /// Counted rather than enumerated (the last position, or the tail).
    counted: bool,
    estimated: Option<f64>,
    actual: u64,
}

/// One run plan: what the planner expected and what happened.
#[derive(Serialize)]
struct Run {
    order: &'static str,
    tail: usize,
    vertices: Vec<u32>,
    estimated_embeddings: Option<f64>,
    estimated_cost: Option<f64>,
    /// The same estimate priced for the GPU engine (`estimate::GPU_WEIGHTS`).
    estimated_gpu_cost: Option<f64>,
    embeddings: u128,
    complete: bool,
    elapsed_ms: f64,
}

#[derive(Serialize)]
struct Explanation {
    query: String,
    semantics: &'static str,
    automorphisms: Option<u128>,
    multiplier: u128,
    restrictions: Vec<(u32, u32)>,
    chosen: Run,
    /// Why this plan: the rule that picked it.
    reason: String,
    /// The probe of the default plan and the plan of least estimated cost, when they differed.
    #[serde(skip_serializing_if = "Option::is_none")]
    probe: Option<Probe>,
    considered: Vec<Run>,
    positions: Vec<Position>,
    filter_ms: f64,
    order_ms: f64,
    space_ms: f64,
    enumerate_ms: f64,
    /// When `--spasm` counted the query instead of enumerating it: the quotients counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    spasm_terms: Option<usize>,
    /// With --all, the other compared plans as run.
    others: Vec<Run>,
    /// Expansions of a pattern only: the pattern's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<String>,
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
    let least = |k| {
        format!("least estimated cost of {k} plans (orders gql, ri, gsi, card, each with and without a counted tail)")
    };
    let reason = match (considered.len(), &chosen.probe) {
        (0, _) => "the order was given and there was nothing to compare".to_string(),
        (1, _) => "the only plan the options allow".to_string(),
        (k, Some(p)) if p.switched => format!("{}, not refuted by the probe", least(k)),
        (_, Some(p)) => format!(
            "the default plan: the probe of the first level found it faster than the plan of least estimated cost ({}{})",
            p.challenger,
            if p.challenger_tail > 0 { format!(" with a tail of {}", p.challenger_tail) } else { String::new() }
        ),
        (k, None) => least(k),
    };
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
        spasm_terms: (chosen.report.spasm_terms > 0).then_some(chosen.report.spasm_terms),
        others: runs[1..].iter().map(run_of).collect(),
        pattern: pattern.map(str::to_string),
    }
}

fn sci(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |x| if x < 1e6 { format!("{x:.0}") } else { format!("{x:.3e}") })
}

fn print_text(e: &Explanation) {
    println!("query {} ({} vertices, semantics {})", e.query, e.positions.len(), e.semantics);
    println!(
        "chosen: order {}, {} ({})",
        e.chosen.order,
        if e.chosen.tail > 0 {
            format!("last {} positions counted together", e.chosen.tail)
        } else {
            "no counted tail".into()
        },
        e.reason
    );
    if let Some(p) = &e.probe {
        let ms = |x: Option<f64>| x.map_or("did not finish".to_string(), |m| format!("{m:.1} ms predicted"));
        println!(
            "probe (heaviest first vertices and a sample of the rest): default plan {}; {} {}",
            ms(p.default_ms),
            p.challenger,
            if p.default_ms.is_none() { "not probed".to_string() } else { ms(p.challenger_ms) }
        );
    }
    match e.automorphisms {
        Some(a) if e.multiplier > 1 => println!(
            "symmetry: |Aut| = {a}; restrictions {}; each match found stands for {} embeddings",
            e.restrictions.iter().map(|(b, w)| format!("f(u{b}) < f(u{w})")).collect::<Vec<_>>().join(", "),
            e.multiplier
        ),
        _ => println!("symmetry: none used (trivial group, homomorphism, or --symmetry off)"),
    }
    if !e.considered.is_empty() {
        println!("{:<6} {:>4} {:>14} {:>14} {:>14}  order", "plan", "tail", "est. embed.", "est. cost", "gpu-priced");
        for c in &e.considered {
            let v: Vec<String> = c.vertices.iter().map(|u| format!("u{u}")).collect();
            println!(
                "{:<6} {:>4} {:>14} {:>14} {:>14}  {}",
                c.order,
                c.tail,
                sci(c.estimated_embeddings),
                sci(c.estimated_cost),
                sci(c.estimated_gpu_cost),
                v.join(" ")
            );
        }
    }
    println!(
        "{:>3} {:>6} {:>6} {:>9} {:>12} {:>10} {:>14} {:>14}",
        "pos", "vertex", "label", "cands", "links", "above", "estimated", "actual"
    );
    for (i, p) in e.positions.iter().enumerate() {
        let list = |v: &[usize]| {
            if v.is_empty() {
                "-".into()
            } else {
                v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
            }
        };
        println!(
            "{:>3} {:>6} {:>6} {:>9} {:>12} {:>10} {:>14} {:>14}{}",
            i,
            format!("u{}", p.vertex),
            p.label,
            p.candidates,
            list(&p.links),
            list(&p.greater_than),
            sci(p.estimated),
            p.actual,
            if p.counted { "  counted" } else { "" }
        );
    }
    println!(
        "result: {} embeddings{}, estimated {}; {:.2} ms (filter {:.2}, plan {:.2}, space {:.2}, enumerate {:.2})",
        e.chosen.embeddings,
        if e.chosen.complete { "" } else { " (partial)" },
        sci(e.chosen.estimated_embeddings),
        e.chosen.elapsed_ms,
        e.filter_ms,
        e.order_ms,
        e.space_ms,
        e.enumerate_ms
    );
    if let Some(k) = e.spasm_terms {
        println!(
            "counted without enumerating (--spasm): the homomorphisms of {k} quotients of the query, \
             signed and summed; the positions above were not run"
        );
    }
    for o in &e.others {
        println!(
            "also ran: order {:<5} tail {} est. cost {:>12}: {:.2} ms{}",
            o.order,
            o.tail,
            sci(o.estimated_cost),
            o.elapsed_ms,
            if o.complete { "" } else { " (stopped)" }
        );
    }
}

pub fn run(a: ExplainArgs) -> Result<()> {
    let parts = a.parts.parse()?;
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("starting the thread pool")?;
    }
    stdin_once([&a.data].into_iter().chain(&a.queries).chain(&a.input.vertex_labels).chain(&a.input.vertex_props))?;
    // Patterns are read before the data graph, so that a mistake in one shows at once.
    let patterns: Vec<Pattern> = a.pattern.iter().map(|t| subgraph_pattern::parse(t)).collect::<Result<_, _>>()?;
    let data = a.input.read_one(&a.data)?.graph;
    let qopts = ReadOptions { directed: data.is_directed(), ids: a.input.ids.mode(), ..ReadOptions::default() };
    let opts = MatchOptions { max_memory: a.input.max_memory, ..parts.options(a.limit, FailingSets::Auto) };
    let pattern_opts = MatchOptions { semantics: parts.pattern_semantics, ..opts };
    let derived = Derived::default();
    for (name, item) in items(&a.queries, patterns, &qopts)? {
        match item {
            // A query over the data's label sets: each query it expands into, as a pattern's.
            Item::Graph(q) if needs_expansion(&q, &data) => {
                let deadline = a.timeout.map(|t| Instant::now() + Duration::from_secs_f64(t));
                let control = Control::new(deadline, Default::default());
                let e = derived.expand(&q, &data, &control).with_context(|| name.clone())?;
                if e.some_edges && opts.semantics == Semantics::Induced {
                    bail!("{name}: {INDUCED_ON_VIEW}");
                }
                let n = e.queries.len();
                if a.format == "text" {
                    println!(
                        "query {name}: {n} expansion {} over the data's sets of labels",
                        if n == 1 { "query" } else { "queries" }
                    );
                }
                for (i, q) in e.queries.iter().enumerate() {
                    let label = if n == 1 { name.clone() } else { format!("{name} (expansion {} of {n})", i + 1) };
                    explain_one(&a, e.view.as_deref().unwrap_or(&data), label, q, &opts, None)?;
                }
            }
            Item::Graph(q) => explain_one(&a, &data, name, &q, &opts, None)?,
            Item::Pattern(pattern) => {
                // Compiled under --timeout too (from before its label expansion).
                let deadline = a.timeout.map(|t| Instant::now() + Duration::from_secs_f64(t));
                let control = Control::new(deadline, Default::default());
                let (compiled, view) = derived.compile(&pattern, &data, &control).with_context(|| name.clone())?;
                check(&compiled, pattern_opts.semantics, false).with_context(|| name.clone())?;
                let n = compiled.queries.len();
                if tree_query(&pattern, &data, pattern_opts.semantics, false).with_context(|| name.clone())?.is_some() {
                    eprintln!(
                        "note: {name}: match counts this tree pattern by GGQ's tree passes, without these plans \
                         (unless its rows are written, or --tree-count off)"
                    );
                }
                if view.is_some() || n == 0 {
                    eprintln!("note: {name}: {}", if n == 0 { NOWHERE_NOTE } else { VIEW_NOTE });
                }
                if a.format == "text" {
                    println!("pattern {name}: {n} expansion {}", if n == 1 { "query" } else { "queries" });
                }
                for (i, q) in compiled.queries.iter().enumerate() {
                    let label = if n == 1 { name.clone() } else { format!("{name} (expansion {} of {n})", i + 1) };
                    let on = view.as_deref().unwrap_or(&data);
                    explain_one(&a, on, label, q, &pattern_opts, Some(&pattern.text))?;
                }
            }
        }
    }
    Ok(())
}

/// Explains `query` (named `name`; an expansion of the pattern `pattern`) on `data` and prints
/// the explanation.
fn explain_one(
    a: &ExplainArgs,
    data: &Graph,
    name: String,
    query: &Graph,
    opts: &MatchOptions,
    pattern: Option<&str>,
) -> Result<()> {
    let timeout = a.timeout.map(Duration::from_secs_f64);
    let control = || Control::new(timeout.map(|t| Instant::now() + t), Default::default());
    let runs = explain_query(data, query.clone(), opts, a.all, control).with_context(|| format!("query {name}"))?;
    let e = explanation(name, query, &runs, opts.semantics.name(), pattern);
    if a.format == "json" {
        println!("{}", serde_json::to_string(&e)?);
    } else {
        print_text(&e);
    }
    Ok(())
}
