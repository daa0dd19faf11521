//! `subgraph explain`: how a query is planned and why: the plans the planner compared with their
//! estimated embeddings and cost, the chosen order with its symmetry restrictions and counted
//! tail, and per position the estimated against the actual partial matches (the chosen plan
//! is run on the CPU engine); with `--all`, every compared plan is run and timed. A pattern
//! (`--pattern`, `.cypher` files) is explained as the query graphs of its label expansions.

use crate::matching::{items, parse_threads, parse_timeout, stdin_once, InputArgs, PartsArgs};
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;
use subgraph::explanation::{explain_item, ExplainAsked, Explanation};
use subgraph::patterns::Derived;
use subgraph::record::Asked;
use subgraph::MatchOptions;
use subgraph_core::cpu::FailingSets;
use subgraph_core::io::ReadOptions;
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
        let default = if p.default_probed { ms(p.default_ms) } else { "not probed".to_string() };
        let rounds =
            if p.rounds > 1 { format!(" ({} rounds, each budget twice the last)", p.rounds) } else { String::new() };
        println!(
            "probe (heaviest first vertices and a sample of the rest): {} {}; default plan {}{rounds}",
            p.challenger,
            ms(p.challenger_ms),
            default
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
    if e.compare_ms + e.probe_ms > 0.0 {
        println!("planning: plans compared in {:.2} ms, the probe {:.2} ms", e.compare_ms, e.probe_ms);
    }
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
    let asked = Asked {
        opts,
        pattern_opts: MatchOptions { semantics: parts.pattern_semantics, ..opts },
        unique: false,
        trees: true,
    };
    let how =
        ExplainAsked { timeout: a.timeout.map(Duration::from_secs_f64), all: a.all, interrupt: Default::default() };
    let derived = Derived::default();
    for (name, item) in items(&a.queries, patterns, &qopts)? {
        let explained = explain_item(&data, &derived, name, item, &asked, &how)?;
        for note in &explained.notes {
            eprintln!("note: {note}");
        }
        if let (Some(heading), "text") = (&explained.heading, a.format.as_str()) {
            println!("{heading}");
        }
        for e in &explained.explanations {
            if a.format == "json" {
                println!("{}", serde_json::to_string(e)?);
            } else {
                print_text(e);
            }
        }
    }
    Ok(())
}
