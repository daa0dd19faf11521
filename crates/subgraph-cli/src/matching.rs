//! `subgraph match`: load the data graph once, then plan, match and report every query. The
//! argument groups it shares with the other commands are in `args`.

mod args;
mod cluster;

pub use args::{
    note_labels_beside, open_engine, parse_bytes, parse_threads, parse_timeout, stdin_once, GpuArgs, IdArgs, InputArgs,
    Neo4jArgs, PartsArgs,
};

use crate::progress::with_progress;
use anyhow::{bail, Context, Result};
use args::format;
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph::numbering::{self, VertexOrder};
use subgraph::patterns::Derived;
use subgraph::record::{run_one, Asked};
use subgraph::{Engine, Item, MatchOptions, Record};
use subgraph_bench::runner::collect_queries;
use subgraph_core::cpu::FailingSets;
use subgraph_core::io::{read_graphs, source, MapMode, ReadOptions};
use subgraph_core::sink::{Control, Output, OutputFormat, Stopped};
use subgraph_core::{Graph, Semantics};
use subgraph_pattern::Pattern;

#[derive(Args)]
#[command(after_help = concat!(
    "Examples (from the repository root, on the shipped test data):\n",
    "  subgraph match --format json tests/data/hprd/HPRD.graph tests/data/hprd/queries/query_dense_16_2.graph\n",
    "  subgraph match --limit 1000 tests/data/hprd/HPRD.graph tests/data/hprd/queries\n",
    "  subgraph match tests/data/named/people.nt.gz --output - --pattern 'MATCH (a:Person)-[:knows]->(b) RETURN a, b'",
))]
pub struct MatchArgs {
    /// Data graph file; `-` reads standard input, and gzip (.gz) and zstd (.zst) files are
    /// decompressed (told by their magic bytes too). With --nodes there is none: every path is
    /// a QUERY.
    #[arg(required_unless_present = "nodes")]
    data: Option<PathBuf>,
    /// Query graph files (a GSI file may hold several queries), or pattern files (`.cypher`,
    /// one pattern each); `-` and compressed files as for DATA.
    #[arg(required_unless_present_any = ["pattern", "nodes"])]
    queries: Vec<PathBuf>,
    #[command(flatten)]
    neo4j: Neo4jArgs,
    /// A pattern to match, in the pattern language (openCypher's MATCH, a subset: see the
    /// README), e.g. 'MATCH (a:1)-->(b)<--(c:1) RETURN DISTINCT b'; may be given several times.
    /// Its semantics is homomorphism unless --semantics says otherwise.
    #[arg(long, value_name = "TEXT")]
    pattern: Vec<String>,
    #[command(flatten)]
    input: InputArgs,
    /// Query file format (default: by extension, then by content).
    #[arg(long, value_name = "FORMAT")]
    query_format: Option<String>,
    #[command(flatten)]
    parts: PartsArgs,
    /// Where to match: auto (the GPU when one is usable, else the CPU), cpu, gpu.
    #[arg(long, default_value = "auto", value_parser = ["auto", "cpu", "gpu"])]
    device: String,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    cluster: cluster::ClusterArgs,
    /// The data vertices' numbering the engines see: file (as read), degree (ascending degree,
    /// hubs last, so that symmetry breaking cuts hubs' lists: much faster cliques and other
    /// symmetric queries on skewed graphs), auto (degree when the data's vertices are
    /// unlabelled, some query graph has automorphisms that symmetry breaking uses, and the
    /// graph is held in memory, with room for a second copy under --max-memory). Counts and
    /// the set of written rows are the same; written ids are always the file's.
    #[arg(long, default_value = "auto", value_parser = VertexOrder::NAMES.to_vec())]
    vertex_order: String,
    /// Failing-set pruning: auto (queries of 4+ vertices), on, off.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    failing_sets: String,
    /// Worker threads (default: all cores; at most 4 per core, or 64). With --cluster or
    /// --local-processes: timely workers in each process (default 1).
    #[arg(long, value_parser = parse_threads)]
    threads: Option<usize>,
    /// Stop each query after N matches.
    #[arg(long)]
    limit: Option<u64>,
    /// Stop each query after SECS seconds.
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    timeout: Option<f64>,
    /// Also report distinct subgraphs: matches divided by the query's automorphisms.
    #[arg(long)]
    unique: bool,
    /// Tree patterns under homomorphism whose rows need no enumeration (count(*), every match
    /// counted, or DISTINCT of one vertex): auto counts them by GGQ's tree passes, without
    /// enumerating matches or expanding absent labels; off matches them as any pattern.
    #[arg(long, default_value = "auto", value_parser = ["auto", "off"])]
    tree_count: String,
    /// Write every match to FILE ("-" for standard output; the report then goes to standard
    /// error). With --cluster or --local-processes: each process writes FILE.I, and "-" sends
    /// every row through process 0.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Format of --output: text, csv, jsonl, or binary (packed little-endian rows in framed
    /// sections; see the README).
    #[arg(long, default_value = "text", requires = "output")]
    output_format: String,
    /// Report format: a table, or one JSON object per query per line.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    format: String,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(mut a: MatchArgs) -> Result<ExitCode> {
    // With --nodes the data graph is theirs, and every path a query.
    if a.neo4j.given() {
        a.queries.splice(0..0, a.data.take());
        if a.queries.is_empty() && a.pattern.is_empty() {
            bail!("no query: give QUERY files or --pattern");
        }
    }
    let parts = a.parts.parse()?;
    let semantics = parts.semantics;
    let out_format = OutputFormat::from_name(&a.output_format).with_context(|| {
        format!("unknown output format '{}' (one of {})", a.output_format, OutputFormat::NAMES.join(", "))
    })?;
    let failing_sets = match a.failing_sets.as_str() {
        "on" => FailingSets::On,
        "off" => FailingSets::Off,
        _ => FailingSets::Auto,
    };
    if a.unique && semantics == Semantics::Homomorphism {
        bail!(
            "--unique counts distinct subgraphs, which homomorphisms do not define; use --semantics embed or induced"
        );
    }
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("starting the thread pool")?;
    }
    let threads = rayon::current_num_threads();

    stdin_once(
        a.data
            .iter()
            .chain(a.neo4j.files())
            .chain(&a.queries)
            .chain(&a.input.vertex_labels)
            .chain(&a.input.vertex_props),
    )?;
    // Patterns are read before the data graph, so that a mistake in one shows at once.
    let patterns: Vec<Pattern> = a.pattern.iter().map(|t| subgraph_pattern::parse(t)).collect::<Result<_, _>>()?;
    let interrupt = crate::signal::interrupt_flag()?;
    if a.cluster.local_processes.is_some() {
        return a.cluster.spawn_local();
    }
    if a.cluster.given() {
        let opts = parts.options(a.limit, failing_sets);
        return match_cluster(&a, (parts.semantics, opts.symmetry, opts.order, parts.tail), patterns, interrupt);
    }

    let t = Instant::now();
    let (data, data_name) = match &a.data {
        Some(path) => (a.input.read_one(path)?, source::display_name(path).display().to_string()),
        None => (a.input.read_neo4j(&a.neo4j)?, a.neo4j.name()),
    };
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let qopts = ReadOptions {
        format: format(&a.query_format)?,
        directed: data.graph.is_directed(),
        vertex_labels: None,
        ids: a.input.ids.mode(),
        map: MapMode::Off,
        max_bytes: a.input.max_memory,
    };
    let items = items(&a.queries, patterns, &qopts)?;
    let opts = MatchOptions { max_memory: a.input.max_memory, ..parts.options(a.limit, failing_sets) };
    let graphs = items.iter().filter_map(|(_, item)| match item {
        Item::Graph(g) => Some(&**g),
        Item::Pattern(_) => None,
    });
    let renumber = match VertexOrder::from_name(&a.vertex_order).expect("checked by clap") {
        VertexOrder::File => false,
        VertexOrder::Degree => true,
        VertexOrder::Auto => {
            numbering::renumbers(&data.graph, graphs, opts.semantics, opts.symmetry, a.input.max_memory)
        }
    };
    let t = Instant::now();
    let graph = match renumber {
        true => numbering::by_degree(&data.graph, a.input.max_memory).context("--vertex-order degree")?,
        false => data.graph,
    };
    let renumber_ms = t.elapsed().as_secs_f64() * 1e3;
    if !a.quiet {
        let (duplicates, loops) = (data.stats.duplicates, graph.loops().len());
        eprintln!(
            "data {}: {} vertices, {} edges{}, loaded in {:.0} ms{}{}",
            data_name,
            graph.num_vertices(),
            graph.num_edges(),
            if graph.is_directed() { " (directed)" } else { "" },
            load_ms,
            match renumber {
                true => format!(", renumbered by degree in {renumber_ms:.0} ms"),
                false => String::new(),
            },
            match (duplicates, loops) {
                (0, 0) => String::new(),
                (d, 0) => format!(" ({d} duplicate edges dropped)"),
                (0, l) => format!(" ({l} self loops kept as loop labels)"),
                (d, l) => format!(" ({d} duplicate edges dropped, {l} self loops kept as loop labels)"),
            }
        );
    }
    let data = Arc::new(graph);
    let ids = data.ids().cloned();
    if out_format == OutputFormat::Binary && ids.as_deref().is_some_and(|i| !i.are_numbers()) {
        bail!(
            "--output-format binary writes numeric ids, and this data graph's vertices are named \
             (--string-ids); use text, csv or jsonl"
        );
    }
    let output: Option<Arc<Output>> = match &a.output {
        None => None,
        Some(p) if p.as_os_str() == "-" => Some(Output::new(crate::rows::stdout()?, out_format).with_ids(ids)),
        Some(p) => Some(Output::new(crate::rows::file(p)?, out_format).with_ids(ids)),
    }
    .map(Arc::new);
    let mut engine = open_engine(&a.device, &data, a.gpu.options(), a.quiet)?;
    // The query loop runs on a pool thread so no query waits for a sleeping worker to wake.
    let pattern_opts = MatchOptions { semantics: parts.pattern_semantics, ..opts };
    rayon::scope(|_| {
        match_all(
            &a,
            &data,
            &mut engine,
            (&opts, &pattern_opts),
            items,
            output.as_ref(),
            &interrupt,
            (threads, renumber),
        )
    })
}

/// `match` on a partitioned graph as one process of a cluster: DATA is the manifest, and
/// what the cluster matcher does not do yet is refused at once.
fn match_cluster(
    a: &MatchArgs,
    (semantics, symmetry, order, tail): (
        Semantics,
        subgraph_core::plan::Symmetry,
        Option<subgraph_core::order::Order>,
        subgraph_core::plan::Tail,
    ),
    patterns: Vec<Pattern>,
    interrupt: Arc<AtomicBool>,
) -> Result<ExitCode> {
    let refused = [(!patterns.is_empty(), "--pattern"), (a.neo4j.given(), "--nodes")];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        bail!("{flag} is not supported with --cluster or --local-processes yet");
    }
    if a.vertex_order == "degree" {
        bail!(
            "--vertex-order degree: processes match in the numbering their partition was cut from; cut it with \
             `subgraph partition --vertex-order degree`"
        );
    }
    let manifest = a.data.as_ref().context("no manifest: give the partition's manifest.json as DATA")?;
    let qopts = ReadOptions {
        format: format(&a.query_format)?,
        directed: subgraph_cluster::Manifest::load(manifest)?.directed,
        vertex_labels: None,
        ids: a.input.ids.mode(),
        map: MapMode::Off,
        max_bytes: a.input.max_memory,
    };
    let mut queries = Vec::new();
    for (name, item) in items(&a.queries, Vec::new(), &qopts)? {
        match item {
            Item::Graph(g) => queries.push((name, *g)),
            Item::Pattern(_) => bail!("{name}: patterns are not supported with --cluster or --local-processes yet"),
        }
    }
    let asked = cluster::Asked {
        semantics,
        symmetry: symmetry != subgraph_core::plan::Symmetry::Off,
        order: order.unwrap_or(subgraph_cluster::plan::DEFAULT_ORDER),
        // One timely worker per process without --threads, as before --threads was taken:
        // processes started together on one machine share its cores.
        threads: a.threads.unwrap_or(1),
        timeout: a.timeout,
        limit: a.limit,
        output: a.output.clone(),
        output_format: OutputFormat::from_name(&a.output_format).expect("checked by run"),
        json: a.format == "json",
        unique: a.unique,
        tail,
        interrupt,
    };
    a.cluster.run_process(manifest, queries, &asked)
}

/// What a directory of queries holds: query graphs (Sun & Luo's, GSI's) and patterns.
const QUERY_FILES: &[&str] = &["graph", "g", "cypher"];

/// The queries the arguments name, each with its name: query files' graphs (`FILE#i` where a
/// file holds several), `.cypher` files' patterns (a directory: its `.graph`, `.g` and
/// `.cypher` files in natural order), then `--pattern` texts (`pattern#i`).
pub fn items(queries: &[PathBuf], patterns: Vec<Pattern>, qopts: &ReadOptions) -> Result<Vec<(String, Item)>> {
    let mut out = Vec::new();
    for path in &collect_queries(queries, QUERY_FILES)? {
        let file = source::display_name(path).display().to_string();
        if source::uncompressed_name(path).extension().is_some_and(|e| e == "cypher") {
            let text = String::from_utf8(source::read(path, qopts.max_bytes)?).map_err(|e| {
                anyhow::anyhow!("{file}: the pattern is not UTF-8 text (byte {})", e.utf8_error().valid_up_to() + 1)
            })?;
            let pattern = subgraph_pattern::parse(&text).with_context(|| file.clone())?;
            out.push((file, Item::Pattern(pattern)));
            continue;
        }
        let queries = read_graphs(path, qopts)?;
        note_labels_beside(path, &queries);
        let several = queries.len() > 1;
        for (i, q) in queries.into_iter().enumerate() {
            out.push((if several { format!("{file}#{i}") } else { file.clone() }, Item::Graph(Box::new(q.graph))));
        }
    }
    let several = patterns.len() > 1;
    for (i, p) in patterns.into_iter().enumerate() {
        out.push((if several { format!("pattern#{i}") } else { "pattern".to_string() }, Item::Pattern(p)));
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn match_all(
    a: &MatchArgs,
    data: &Arc<Graph>,
    engine: &mut Engine,
    (opts, pattern_opts): (&MatchOptions, &MatchOptions),
    items: Vec<(String, Item)>,
    output: Option<&Arc<Output>>,
    interrupt: &Arc<AtomicBool>,
    (threads, renumbered): (usize, bool),
) -> Result<ExitCode> {
    let json = a.format == "json";
    // Matches on standard output leave it to them, in every format: the report goes to stderr.
    let to_stderr = a.output.as_ref().is_some_and(|p| p.as_os_str() == "-");
    // The query column as wide as the longest name.
    let width = items.iter().map(|(name, _)| name.chars().count()).max().unwrap_or(0).max(40);
    let printer = Printer { json, to_stderr, width };
    if !json {
        printer.line(format!(
            "{:<width$} {:>22} {:>9} {:>11} {:>9} {:>9} {:>9} {:>11}",
            "query", "embeddings", "complete", "elapsed_ms", "filter", "order", "space", "enumerate"
        ));
    }
    let derived = Derived::default();
    // A query that cannot run is reported and the others run; the exit status says so.
    let mut failed = false;
    let asked = Asked { opts: *opts, pattern_opts: *pattern_opts, unique: a.unique, trees: a.tree_count == "auto" };
    for (name, item) in items {
        let deadline = a.timeout.map(|s| Instant::now() + Duration::from_secs_f64(s));
        let control = Arc::new(Control::new(deadline, interrupt.clone()));
        let is_graph = matches!(item, Item::Graph(_));
        let outcome = with_progress(&name, &control, a.quiet, || {
            run_one(engine, data, &derived, &name, item, &asked, &control, output)
        })
        .with_context(|| if is_graph { format!("query {name}") } else { name.clone() });
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                failed = true;
                printer.error(&name, &e)?;
                continue;
            }
        };
        if let Some(note) = &outcome.ran.note {
            eprintln!("note: {note}");
        }
        let (report, choice) = (&outcome.ran.report, outcome.ran.choice);
        let mut row = Record::of(name.clone(), &outcome, threads, a.gpu.gpu_memory.0);
        row.vertex_order = Some(if renumbered { VertexOrder::Degree } else { VertexOrder::File }.name());
        if let (Some(c), false) = (choice, a.quiet) {
            eprintln!("device: {name}: {c}");
        }
        // The query's matches before its report line, where both go to standard output.
        if let Some(o) = output {
            o.finish().context("writing the matches")?;
        }
        printer.row(&row)?;
        if let Some(why) = report.stopped {
            let what = match why {
                Stopped::Limit if row.pattern.is_some() => "the limit was reached".to_string(),
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
    if let Some(o) = output {
        o.finish().context("writing the matches")?;
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Where and how the per-query report is printed: standard output, or standard error when
/// the matches go there.
struct Printer {
    json: bool,
    to_stderr: bool,
    /// The table's query column.
    width: usize,
}

impl Printer {
    fn line(&self, text: String) {
        match self.to_stderr {
            true => eprintln!("{text}"),
            false => println!("{text}"),
        }
    }

    fn row(&self, r: &Record) -> Result<()> {
        if self.json {
            self.line(serde_json::to_string(r)?);
        } else {
            let emb = match (r.unique, r.rows) {
                (Some(u), _) => format!("{} ({} unique)", r.embeddings, u),
                (None, Some(rows)) if rows != r.embeddings && !r.count_star => {
                    format!("{} ({} rows)", r.embeddings, rows)
                }
                _ => r.embeddings.to_string(),
            };
            self.line(format!(
                "{:<w$} {:>22} {:>9} {:>11.2} {:>9.2} {:>9.2} {:>9.2} {:>11.2}",
                r.query,
                emb,
                r.complete,
                r.elapsed_ms,
                r.filter_ms,
                r.order_ms,
                r.space_ms,
                r.enumerate_ms,
                w = self.width
            ));
        }
        Ok(())
    }

    /// A query that could not run: one line on stderr, and under `--format json` a record
    /// `{"query": …, "error": …}` among the reports.
    fn error(&self, query: &str, e: &anyhow::Error) -> Result<()> {
        let message = crate::errors::one_line(e);
        eprintln!("subgraph: error: {message}");
        if self.json {
            #[derive(Serialize)]
            struct Failed<'a> {
                query: &'a str,
                error: &'a str,
            }
            self.line(serde_json::to_string(&Failed { query, error: &message })?);
        }
        Ok(())
    }
}
