//! `subgraph bench`: time query sets against one data graph and write results.csv, summary.md
//! and times.svg into an output directory, optionally compared with an earlier run's CSV.

use crate::matching::{open_engine, parse_threads, parse_timeout, stdin_once, GpuArgs, InputArgs, PartsArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use subgraph::MatchOptions;
use subgraph_bench::runner::{
    collect_queries, comparison_csv, pair_runs, read_csv, render_summary, render_svg, reset_peak_rss, resident_bytes,
    run_benchmark, to_csv, Memory, RunConfig, Status, SummaryInput, QUERY_GRAPHS,
};
use subgraph_core::cpu::FailingSets;
use subgraph_core::io::source;

#[derive(Args)]
#[command(after_help = concat!(
    "Examples (from the repository root, on the shipped test data):\n",
    "  subgraph bench tests/data/hprd/HPRD.graph tests/data/hprd/queries --out bench-hprd --repeat 3\n",
    "  subgraph bench --threads 1 --compare bench-hprd/results.csv tests/data/hprd/HPRD.graph tests/data/hprd/queries --out bench-hprd-1t",
))]
pub struct BenchArgs {
    /// Data graph file; `-` reads standard input, and gzip (.gz) and zstd (.zst) files are
    /// decompressed (told by their magic bytes too).
    data: PathBuf,
    /// Query files (`-` and compressed files as for DATA), or directories whose *.graph and *.g
    /// files (also .gz or .zst compressed) are run in natural order.
    #[arg(required = true)]
    queries: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// Where to match: cpu, gpu, or auto (the GPU when one is usable, else the CPU).
    #[arg(long, default_value = "cpu", value_parser = ["auto", "cpu", "gpu"])]
    device: String,
    #[command(flatten)]
    gpu: GpuArgs,
    /// Worker threads (default: all cores; at most 4 per core, or 64).
    #[arg(long, value_parser = parse_threads)]
    threads: Option<usize>,
    /// Stop each query run after SECS seconds (counted as timed out).
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    timeout: Option<f64>,
    /// Runs per query; phase times are medians over the runs.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Stop each query after N matches (counted as solved).
    #[arg(long)]
    limit: Option<u64>,
    #[command(flatten)]
    parts: PartsArgs,
    /// Output directory for results.csv, summary.md and times.svg.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// An earlier results.csv: adds comparison.csv (per-query other/this ratios) and the
    /// geometric mean of the ratios to the summary, and its curve to the plot.
    #[arg(long, value_name = "OTHER.csv")]
    compare: Option<PathBuf>,
    /// This run's name in the summary, the plot and comparison.csv (default: the --out folder name).
    #[arg(long, value_name = "NAME")]
    label: Option<String>,
    /// No line per query on stderr.
    #[arg(long, short)]
    quiet: bool,
}

fn folder_name(p: &Path) -> String {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    abs.file_name().map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into_owned())
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Runs `subgraph bench`.
pub fn run(a: BenchArgs) -> Result<()> {
    let parts = a.parts.parse()?;
    if a.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    let threads = a.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    stdin_once([&a.data].into_iter().chain(&a.queries).chain(&a.input.vertex_labels))?;
    let other = a.compare.as_deref().map(read_csv).transpose()?;
    let queries = collect_queries(&a.queries, QUERY_GRAPHS)?;
    if let Some(p) = queries.iter().find(|p| source::uncompressed_name(p).extension().is_some_and(|e| e == "cypher")) {
        bail!(
            "{}: bench times query graphs, and a .cypher file is a pattern; time patterns with `subgraph match \
             --format json`",
            p.display()
        );
    }
    if queries.is_empty() {
        bail!(
            "no query files (*.graph, *.g) in {}",
            a.queries.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" ")
        );
    }
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;

    let interrupt = crate::signal::interrupt_flag()?;

    let base_rss_bytes = resident_bytes();
    let t = Instant::now();
    let data = std::sync::Arc::new(a.input.read_one(&a.data)?.graph);
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    eprintln!(
        "data {}: {} vertices, {} edges, loaded in {load_ms:.0} ms; {} query files",
        a.data.display(),
        data.num_vertices(),
        data.num_edges(),
        queries.len()
    );
    let mut engine = open_engine(&a.device, &data, a.gpu.options(), a.quiet)?;
    let on_gpu = engine.has_gpu();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("starting the thread pool")?;
    let cfg = RunConfig {
        options: MatchOptions { max_memory: a.input.max_memory, ..parts.options(a.limit, FailingSets::Auto) },
        device: if on_gpu { a.device.clone() } else { "cpu".to_string() },
        threads,
        timeout: a.timeout.map(Duration::from_secs_f64),
        repeat: a.repeat,
    };
    let start = Instant::now();
    let derived = subgraph::Derived::default();
    let run = |q, opts: &MatchOptions, control: &subgraph_core::sink::Control| {
        let ran = pool.install(|| engine.run(&data, q, &derived, opts, control, None)).map_err(|e| format!("{e:#}"))?;
        if let Some(note) = ran.note {
            eprintln!("note: {note}");
        }
        Ok(ran.report)
    };
    let results = run_benchmark(&data, &queries, &cfg, &interrupt, run, |i, n, r| {
        if !a.quiet {
            let note = match r.status {
                Status::Complete => "",
                Status::Limit => " (limit)",
                Status::Timeout => " (timeout, partial count)",
                Status::Interrupted => " (interrupted, partial count)",
            };
            eprintln!("[{}/{n}] {} {} embeddings{note} {:.2} ms", i + 1, r.query, r.embeddings, r.elapsed_ms);
        }
    })?;
    let wall_s = start.elapsed().as_secs_f64();

    let label = a.label.clone().unwrap_or_else(|| folder_name(&a.out));
    let other_label = a.compare.as_deref().map(|p| {
        let name = folder_name(p.parent().unwrap_or(Path::new(".")));
        if name == label {
            format!("{name} (compared)")
        } else {
            name
        }
    });
    let pairs = other.as_ref().map(|o| pair_runs(&results, o));
    let opt = |x: Option<String>| x.unwrap_or_else(|| "none".to_string());
    let facts = vec![
        (
            "data".to_string(),
            format!("{} ({} vertices, {} edges)", a.data.display(), data.num_vertices(), data.num_edges()),
        ),
        ("data load".to_string(), format!("{load_ms:.0} ms")),
        ("data graph in memory".to_string(), format!("{:.1} MiB", data.memory_bytes() as f64 / (1 << 20) as f64)),
        ("queries".to_string(), format!("{} graphs from {} files", results.len(), queries.len())),
        ("device".to_string(), format!("{}, {threads} threads", cfg.device)),
        (
            "options".to_string(),
            format!(
                "semantics {}, filter {}, order {}, symmetry {}, tail {}, limit {}, timeout {}, repeat {}",
                parts.semantics.name(),
                engine.filter_name(on_gpu, parts.filter),
                parts.order_name(),
                a.parts.symmetry_name(),
                a.parts.tail_name(),
                opt(a.limit.map(|l| l.to_string())),
                opt(a.timeout.map(|t| format!("{t} s"))),
                a.repeat
            ),
        ),
        ("wall time".to_string(), format!("{wall_s:.1} s")),
        (
            "peak RSS".to_string(),
            if reset_peak_rss() {
                "reset before each query (the peak during it)".to_string()
            } else {
                "not resettable here: the peak since the process started".to_string()
            },
        ),
    ];
    let summary = render_summary(&SummaryInput {
        title: &format!("subgraph bench: {label}"),
        facts: &facts,
        results: &results,
        memory: Some(Memory { graph_bytes: data.memory_bytes(), base_rss_bytes }),
        compare: other_label.as_deref().zip(pairs.as_deref()),
    });
    let mut series = vec![(label.clone(), results.iter().map(|r| r.elapsed_ms).collect::<Vec<f64>>())];
    if let (Some(o), Some(name)) = (&other, &other_label) {
        series.push((name.clone(), o.iter().map(|r| r.elapsed_ms).collect()));
    }
    let title = format!("{}: per-query elapsed time, sorted", folder_name(&a.data));
    write(&a.out.join("results.csv"), &to_csv(&results))?;
    write(&a.out.join("summary.md"), &summary)?;
    write(&a.out.join("times.svg"), &render_svg(&title, &series))?;
    if let (Some(p), Some(name)) = (&pairs, &other_label) {
        write(&a.out.join("comparison.csv"), &comparison_csv(p, &label, name))?;
    }
    let solved = results.iter().filter(|r| r.status.solved()).count();
    eprintln!(
        "{solved}/{} solved in {wall_s:.1} s; wrote {}",
        results.len(),
        a.out.join("{results.csv,summary.md,times.svg}").display()
    );
    if interrupt.load(Ordering::Relaxed) {
        bail!("interrupted; the files hold the {} queries run so far", results.len());
    }
    Ok(())
}
