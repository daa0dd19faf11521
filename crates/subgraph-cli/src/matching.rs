//! `subgraph match`: load the data graph once, then plan, match and report every query.

use crate::progress::with_progress;
use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph_core::cpu::FailingSets;
use subgraph_core::filter::Filter;
use subgraph_core::io::{read_graph, read_graphs, Format, ReadOptions};
use subgraph_core::order::Order;
use subgraph_core::pipeline::{run_query, MatchOptions, Report};
use subgraph_core::sink::{Control, Output, OutputFormat, Stopped};
use subgraph_core::{automorphism, Graph, Semantics};

/// How to read an input graph.
#[derive(Args, Clone)]
pub struct InputArgs {
    /// Input format (default: by extension, then by content): graph (Sun & Luo), gsi, edges.
    #[arg(long, value_name = "FORMAT")]
    pub input_format: Option<String>,
    /// Edge lists: the edges are directed.
    #[arg(long)]
    pub directed: bool,
    /// Edge lists: a file of `id label` lines.
    #[arg(long, value_name = "FILE")]
    pub vertex_labels: Option<PathBuf>,
}

fn format(name: &Option<String>) -> Result<Option<Format>> {
    name.as_deref()
        .map(|n| Format::from_name(n).with_context(|| format!("unknown format '{n}' (one of {})", Format::NAMES.join(", "))))
        .transpose()
}

pub fn load_options(a: &InputArgs) -> Result<ReadOptions> {
    Ok(ReadOptions { format: format(&a.input_format)?, directed: a.directed, vertex_labels: a.vertex_labels.clone() })
}

#[derive(Args)]
pub struct MatchArgs {
    /// Data graph file.
    data: PathBuf,
    /// Query graph files (a GSI file may hold several queries).
    #[arg(required = true)]
    queries: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// Query file format (default: by extension, then by content).
    #[arg(long, value_name = "FORMAT")]
    query_format: Option<String>,
    /// embed (injective, non-induced), induced, or homomorphism.
    #[arg(long, default_value = "embed")]
    semantics: String,
    /// Candidate filter: ldf, nlf, gql, cs.
    #[arg(long, default_value = "gql")]
    filter: String,
    /// Matching order: gql, ri, gsi.
    #[arg(long, default_value = "gql")]
    order: String,
    /// Failing-set pruning: auto (queries of 4+ vertices), on, off.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    failing_sets: String,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Stop each query after N matches.
    #[arg(long)]
    limit: Option<u64>,
    /// Stop each query after SECS seconds.
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Also report distinct subgraphs: matches divided by the query's automorphisms.
    #[arg(long)]
    unique: bool,
    /// Write every match to FILE ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Format of --output: text, csv, jsonl.
    #[arg(long, default_value = "text")]
    output_format: String,
    /// Report format: a table, or one JSON object per query per line.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    format: String,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
}

/// One query's line of the report.
#[derive(Serialize)]
struct Row {
    query: String,
    semantics: &'static str,
    embeddings: u128,
    /// Distinct subgraphs (with --unique, when complete).
    #[serde(skip_serializing_if = "Option::is_none")]
    unique: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    automorphisms: Option<u128>,
    complete: bool,
    stopped: Option<Stopped>,
    elapsed_ms: f64,
    filter_ms: f64,
    order_ms: f64,
    space_ms: f64,
    enumerate_ms: f64,
    candidates: u64,
    candidate_edges: u64,
    device: &'static str,
    threads: usize,
    filter: &'static str,
    order: &'static str,
}

pub fn run(a: MatchArgs) -> Result<ExitCode> {
    let semantics = Semantics::from_name(&a.semantics)
        .with_context(|| format!("unknown semantics '{}' (one of {})", a.semantics, Semantics::NAMES.join(", ")))?;
    let filter = Filter::from_name(&a.filter)
        .with_context(|| format!("unknown filter '{}' (one of {})", a.filter, Filter::NAMES.join(", ")))?;
    let order = Order::from_name(&a.order)
        .with_context(|| format!("unknown order '{}' (one of {})", a.order, Order::NAMES.join(", ")))?;
    let out_format = OutputFormat::from_name(&a.output_format).with_context(|| {
        format!("unknown output format '{}' (one of {})", a.output_format, OutputFormat::NAMES.join(", "))
    })?;
    let failing_sets = match a.failing_sets.as_str() {
        "on" => FailingSets::On,
        "off" => FailingSets::Off,
        _ => FailingSets::Auto,
    };
    if a.unique && semantics == Semantics::Homomorphism {
        bail!("--unique counts distinct subgraphs, which homomorphisms do not define; use --semantics embed or induced");
    }
    if let Some(t) = a.timeout {
        if !(t > 0.0 && t.is_finite()) {
            bail!("--timeout must be a positive number of seconds, got {t}");
        }
    }
    if let Some(n) = a.threads {
        if n == 0 {
            bail!("--threads must be at least 1");
        }
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("starting the thread pool")?;
    }
    let threads = rayon::current_num_threads();

    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        ctrlc::set_handler(move || {
            if flag.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        })
        .context("installing the Ctrl-C handler")?;
    }

    let t = Instant::now();
    let data = read_graph(&a.data, &load_options(&a.input)?)?;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    if !a.quiet {
        let dropped = data.stats.self_loops + data.stats.duplicates;
        eprintln!(
            "data {}: {} vertices, {} edges{}, loaded in {:.0} ms{}",
            a.data.display(),
            data.graph.num_vertices(),
            data.graph.num_edges(),
            if data.graph.is_directed() { " (directed)" } else { "" },
            load_ms,
            if dropped > 0 {
                format!(" ({} self loops and {} duplicate edges dropped)", data.stats.self_loops, data.stats.duplicates)
            } else {
                String::new()
            }
        );
    }
    let data = data.graph;
    let qopts = ReadOptions { format: format(&a.query_format)?, directed: data.is_directed(), vertex_labels: None };

    let output: Option<Output> = match &a.output {
        None => None,
        Some(p) if p.as_os_str() == "-" => Some(Output::new(Box::new(std::io::BufWriter::new(std::io::stdout())), out_format)),
        Some(p) => {
            let f = std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?;
            Some(Output::new(Box::new(std::io::BufWriter::with_capacity(1 << 20, f)), out_format))
        }
    };
    let opts = MatchOptions { semantics, filter, order, limit: a.limit, failing_sets };
    // The query loop runs on a pool thread so no query waits for a sleeping worker to wake.
    rayon::scope(|_| match_all(&a, &data, &qopts, &opts, output.as_ref(), &interrupt, threads))
}

fn match_all(
    a: &MatchArgs,
    data: &Graph,
    qopts: &ReadOptions,
    opts: &MatchOptions,
    output: Option<&Output>,
    interrupt: &Arc<AtomicBool>,
    threads: usize,
) -> Result<ExitCode> {
    let json = a.format == "json";
    if !json {
        println!(
            "{:<40} {:>22} {:>9} {:>11} {:>9} {:>9} {:>9} {:>11}",
            "query", "embeddings", "complete", "elapsed_ms", "filter", "order", "space", "enumerate"
        );
    }
    for path in &a.queries {
        let queries = read_graphs(path, qopts)?;
        let several = queries.len() > 1;
        for (i, q) in queries.into_iter().enumerate() {
            let name = if several { format!("{}#{i}", path.display()) } else { path.display().to_string() };
            let deadline = a.timeout.map(|s| Instant::now() + Duration::from_secs_f64(s));
            let control = Control::new(deadline, interrupt.clone());
            let auts = a.unique.then(|| automorphism::count(&q.graph));
            let report: Report = with_progress(&name, &control, a.quiet, || {
                run_query(data, q.graph, opts, &control, output.map(|o| (o, name.as_str())))
            })
            .with_context(|| format!("query {name}"))?;
            let row = Row {
                query: name.clone(),
                semantics: opts.semantics.name(),
                embeddings: report.embeddings,
                unique: auts.filter(|_| report.complete).map(|k| report.embeddings / k),
                automorphisms: auts,
                complete: report.complete,
                stopped: report.stopped,
                elapsed_ms: report.elapsed_ms,
                filter_ms: report.filter_ms,
                order_ms: report.order_ms,
                space_ms: report.space_ms,
                enumerate_ms: report.enumerate_ms,
                candidates: report.candidates,
                candidate_edges: report.candidate_edges,
                device: "cpu",
                threads,
                filter: opts.filter.name(),
                order: opts.order.name(),
            };
            print_row(&row, json)?;
            if let Some(why) = report.stopped {
                let what = match why {
                    Stopped::Limit => format!("the limit of {} matches was reached", a.limit.unwrap_or(0)),
                    Stopped::Timeout => format!("the timeout of {} s expired", a.timeout.unwrap_or(0.0)),
                    Stopped::Interrupted => "interrupted".to_string(),
                };
                eprintln!("note: {name}: {what}; {} matches is a partial count", report.embeddings);
            }
            if interrupt.load(Ordering::Relaxed) {
                if let Some(o) = output {
                    o.finish().context("writing the matches")?;
                }
                return Ok(ExitCode::from(130));
            }
        }
    }
    if let Some(o) = output {
        o.finish().context("writing the matches")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_row(r: &Row, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(r)?);
    } else {
        let emb = match r.unique {
            Some(u) => format!("{} ({} unique)", r.embeddings, u),
            None => r.embeddings.to_string(),
        };
        println!(
            "{:<40} {:>22} {:>9} {:>11.2} {:>9.2} {:>9.2} {:>9.2} {:>11.2}",
            r.query, emb, r.complete, r.elapsed_ms, r.filter_ms, r.order_ms, r.space_ms, r.enumerate_ms
        );
    }
    Ok(())
}
