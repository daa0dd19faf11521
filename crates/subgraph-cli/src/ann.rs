//! `subgraph ann`: vector search over proximity graphs (thesis ch. 4): `build` an index from a
//! vector file, `search` it (recall reported against ground truth when given), `add` vectors,
//! and `bench`, which sweeps the exploration bound and writes the recall–QPS table and plot.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use subgraph_ann::engine::{Device, Engine};
use subgraph_ann::formats::{
    read_ids, read_labels, read_vectors, write_fvecs, write_ivecs, write_npy_f32, write_npy_ids,
};
use subgraph_ann::gen::{self, GenSpec};
use subgraph_ann::{
    file, recall, BuildParams, Filter, GraphKind, Index, Metric, Neighbours, Precision, Prune, SearchParams, NONE,
};
use subgraph_bench::ann_plot::{render_recall_svg, Curve};

#[derive(Args, Debug)]
#[command(after_help = concat!(
    "Examples (from the repository root, on the shipped vectors):\n",
    "  subgraph ann build tests/data/vectors/base.fvecs --output small.sgi\n",
    "  subgraph ann search small.sgi tests/data/vectors/queries.fvecs -k 10 --ground-truth tests/data/vectors/gt.ivecs\n",
    "  subgraph ann bench small.sgi tests/data/vectors/queries.fvecs --ground-truth tests/data/vectors/gt.ivecs --out ann-bench",
))]
pub struct AnnArgs {
    #[command(subcommand)]
    pub what: AnnCommand,
}

#[derive(Subcommand, Debug)]
pub enum AnnCommand {
    /// Build a proximity-graph index over a vector file (.fvecs, .bvecs or .npy).
    Build(BuildArgs),
    /// Find the k nearest indexed vectors of each query.
    Search(SearchArgs),
    /// Add vectors to an index (their ids continue from its size) and write it.
    Add(AddArgs),
    /// Sweep the exploration bound: recall@k and queries per second, as a table and a plot.
    Bench(BenchArgs),
}

#[derive(Args, Debug)]
pub struct DeviceArgs {
    /// auto (a GPU where one is usable, else every CPU core), cpu or gpu.
    #[arg(long, default_value = "auto")]
    pub device: Device,
    /// GPUs to split the work over (searches).
    #[arg(long, default_value_t = 1)]
    pub gpus: usize,
    /// CPU threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The vectors: .fvecs, .bvecs or .npy (float32, float64, uint8 or int32, two-dimensional).
    pub base: PathBuf,
    /// The index file to write (.sgi).
    #[arg(long, short)]
    pub output: PathBuf,
    /// nsw (GGraphCon's navigable small world), hnsw (its layered extension) or knn
    /// (NN-descent's k-nearest-neighbour graph).
    #[arg(long, default_value = "hnsw")]
    pub graph: GraphKind,
    /// Out-degree bound d_max; d_min, the links each vector makes, is five eighths of it.
    #[arg(long, default_value_t = 32)]
    pub degree: usize,
    /// Links each vector makes to earlier ones (default: five eighths of the degree, 20 of 32).
    #[arg(long)]
    pub d_min: Option<usize>,
    /// The exploration bound of the construction's searches (default: 128, or d_min where
    /// larger).
    #[arg(long)]
    pub ef_construction: Option<usize>,
    /// Whom a full row keeps: diverse (HNSW's heuristic) or nearest (the thesis' NSW).
    #[arg(long, default_value = "diverse")]
    pub prune: Prune,
    /// l2 (squared Euclidean), ip (1 - inner product) or cos (1 - cosine).
    #[arg(long, default_value = "l2")]
    pub metric: Metric,
    /// One integer label per vector, one a line (or a one-dimensional .npy), for filtered search.
    #[arg(long)]
    pub labels: Option<PathBuf>,
    /// Index only the first N vectors of the file.
    #[arg(long)]
    pub max_rows: Option<usize>,
    #[arg(long, default_value_t = 0x5eed)]
    pub seed: u64,
    #[command(flatten)]
    pub device: DeviceArgs,
}

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// The index file (.sgi).
    pub index: PathBuf,
    /// The queries: .fvecs, .bvecs or .npy.
    pub queries: PathBuf,
    /// Neighbours per query.
    #[arg(short, long, default_value_t = 10)]
    pub k: usize,
    /// Ground truth (.ivecs or .npy ids, at least k a row): recall@k is reported.
    #[arg(long)]
    pub ground_truth: Option<PathBuf>,
    /// Only vectors with one of these labels (comma-separated integers).
    #[arg(long, value_delimiter = ',')]
    pub filter_labels: Option<Vec<u32>>,
    /// Search only the first N queries.
    #[arg(long)]
    pub max_queries: Option<usize>,
    /// The precision of the rows the graph search reads: single (as given) or half (the GPU
    /// search only: half the memory traffic; the first ef found are ranked again by their exact
    /// distances, which are the distances reported).
    #[arg(long, default_value = "single", value_parser = ["single", "half"])]
    pub precision: String,
    #[command(flatten)]
    pub device: DeviceArgs,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pub query: QueryArgs,
    /// The exploration bound (default: the larger of k and 64); higher is slower and more exact.
    #[arg(long)]
    pub ef: Option<usize>,
    /// Exact answers by brute force instead of the graph.
    #[arg(long)]
    pub brute_force: bool,
    /// Queries searched one at a time (latency) instead of in one batch.
    #[arg(long)]
    pub one_at_a_time: bool,
    /// Where the neighbours go: .ivecs, .npy (int64, -1 for none), .csv or .jsonl (- for
    /// standard output as JSON lines). The report goes to standard error when this is -.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct AddArgs {
    pub index: PathBuf,
    pub vectors: PathBuf,
    /// One label per vector added, where the index has labels.
    #[arg(long)]
    pub labels: Option<PathBuf>,
    /// The index file to write (may be the same file).
    #[arg(long, short)]
    pub output: PathBuf,
    #[command(flatten)]
    pub device: DeviceArgs,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    pub query: QueryArgs,
    /// Exploration bounds to sweep.
    #[arg(long, value_delimiter = ',', default_value = "10,12,16,24,32,48,64,96,128,192,256,384,512")]
    pub efs: Vec<usize>,
    /// Timed runs per bound; the best is kept, as the ANN benchmarks do.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Output directory for ann.csv and ann.svg.
    #[arg(long)]
    pub out: PathBuf,
}

/// What a search reports, one JSON object.
#[derive(Serialize)]
struct Report {
    index: String,
    vectors: usize,
    queries: usize,
    k: usize,
    ef: Option<usize>,
    /// The rows' precision of a graph search.
    #[serde(skip_serializing_if = "Option::is_none")]
    precision: Option<&'static str>,
    method: &'static str,
    device: String,
    seconds: f64,
    qps: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    latency_ms: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recall: Option<f64>,
}

#[derive(Serialize)]
struct Latency {
    median: f64,
    p99: f64,
    max: f64,
}

pub fn run(args: AnnArgs) -> Result<()> {
    match args.what {
        AnnCommand::Build(a) => in_threads(a.device.threads, || build(a)),
        AnnCommand::Search(a) => in_threads(a.query.device.threads, || search(a)),
        AnnCommand::Add(a) => in_threads(a.device.threads, || add(a)),
        AnnCommand::Bench(a) => in_threads(a.query.device.threads, || bench(a)),
    }
}

/// Runs `work` on a pool of `threads` (every core when None).
fn in_threads<T: Send>(threads: Option<usize>, work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    match threads {
        None => work(),
        Some(0) => bail!("--threads 0: give at least one"),
        Some(n) => rayon::ThreadPoolBuilder::new().num_threads(n).build().context("thread pool")?.install(work),
    }
}

/// A spinner with the elapsed time on a terminal's stderr while `work` runs past a second.
pub fn with_spinner<T: Send>(what: &str, work: impl FnOnce() -> T + Send) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("valid template"));
    bar.set_message(what.to_string());
    let start = Instant::now();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if start.elapsed() > Duration::from_secs(1) {
                    bar.tick();
                }
            }
            bar.finish_and_clear();
        });
        let out = work();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        out
    })
}

fn engine(d: &DeviceArgs) -> Result<Engine> {
    let engine = Engine::new(d.device, d.gpus)?;
    if let Some(why) = engine.fallback() {
        eprintln!("subgraph: --device auto runs on the CPU: {why}");
    }
    Ok(engine)
}

fn build(a: BuildArgs) -> Result<()> {
    let engine = engine(&a.device)?;
    let vectors = read_vectors(&a.base, a.max_rows)?;
    let labels = a.labels.as_ref().map(read_labels).transpose()?;
    let mut params = BuildParams::new(a.graph, a.degree)?;
    params.d_min = a.d_min.unwrap_or(params.d_min);
    params.ef_construction = a.ef_construction.unwrap_or(BuildParams::default_ef_construction(params.d_min));
    params.prune = a.prune;
    params.seed = a.seed;
    let (n, dim) = (vectors.len(), vectors.dim());
    let start = Instant::now();
    let (index, phases) =
        with_spinner(&format!("building over {n} vectors"), || engine.build(vectors, a.metric, &params, labels))?;
    let seconds = start.elapsed().as_secs_f64();
    file::save(&index, &a.output)?;
    let report = serde_json::json!({
        "index": a.output.display().to_string(),
        "vectors": n,
        "dim": dim,
        "graph": a.graph.name(),
        "degree": params.d_max,
        "d_min": params.d_min,
        "ef_construction": params.ef_construction,
        "prune": params.prune.name(),
        "metric": a.metric.name(),
        "layers": index.graph().layers.len(),
        "device": engine.build_device(a.graph),
        "build_seconds": seconds,
        "phases": phases.iter().map(|(name, s)| serde_json::json!({"phase": name, "seconds": s})).collect::<Vec<_>>(),
    });
    println!("{report}");
    Ok(())
}

/// The index, the queries (checked against it), the ground truth and the filter of a search.
struct Loaded {
    index: Index,
    queries: subgraph_ann::Vectors,
    truth: Option<(usize, Vec<u32>)>,
    filter: Option<Filter>,
}

fn load(q: &QueryArgs) -> Result<Loaded> {
    let index = file::load(&q.index)?;
    let queries = read_vectors(&q.queries, q.max_queries)?;
    let truth = match &q.ground_truth {
        None => None,
        Some(path) => {
            let rows = read_ids(path)?;
            if rows.len() < queries.len() {
                bail!("{}: {} rows of ground truth for {} queries", path.display(), rows.len(), queries.len());
            }
            if rows.k < q.k {
                bail!("{}: {} ids a row; recall@{} needs {}", path.display(), rows.k, q.k, q.k);
            }
            Some((rows.k, rows.ids[..queries.len() * rows.k].to_vec()))
        }
    };
    let filter = q.filter_labels.clone().map(Filter::Labels);
    Ok(Loaded { index, queries, truth, filter })
}

fn search(a: SearchArgs) -> Result<()> {
    let engine = engine(&a.query.device)?;
    let Loaded { index, queries, truth, filter } = load(&a.query)?;
    let m = queries.len();
    let params = SearchParams::new(a.query.k, a.ef)?.with_precision(Precision::parse(&a.query.precision)?);
    if a.brute_force && params.precision != Precision::Single {
        bail!("--precision {} is the graph search's; --brute-force reads the rows as given", params.precision.name());
    }
    let resident = engine.resident(&index)?;
    // Untimed: the first search compiles its kernel (once per machine) and warms the caches.
    let first = subgraph_ann::Vectors::new(queries.dim(), queries.row(0).to_vec())?;
    if m > 0 {
        if a.brute_force {
            resident.brute_force(&index, first, params.k, filter.as_ref())?;
        } else {
            resident.search(&index, first, params, filter.as_ref())?;
        }
    }
    let (found, seconds, latency) = if a.one_at_a_time {
        let mut times = Vec::with_capacity(m);
        let mut all = Neighbours::empty(0, a.query.k);
        for i in 0..m {
            let one = subgraph_ann::Vectors::new(queries.dim(), queries.row(i).to_vec())?;
            let start = Instant::now();
            let found = if a.brute_force {
                resident.brute_force(&index, one, params.k, filter.as_ref())?
            } else {
                resident.search(&index, one, params, filter.as_ref())?
            };
            times.push(start.elapsed().as_secs_f64() * 1e3);
            all.ids.extend(found.ids);
            all.distances.extend(found.distances);
        }
        let total = times.iter().sum::<f64>() / 1e3;
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
        (all, total, Some(Latency { median: at(0.5), p99: at(0.99), max: at(1.0) }))
    } else {
        let start = Instant::now();
        let found = with_spinner(&format!("searching {m} queries"), || {
            if a.brute_force {
                resident.brute_force(&index, queries, params.k, filter.as_ref())
            } else {
                resident.search(&index, queries, params, filter.as_ref())
            }
        })?;
        (found, start.elapsed().as_secs_f64(), None)
    };
    let recall = truth.map(|(tk, ids)| recall(&found, &ids, tk, a.query.k)).transpose()?;
    let report = Report {
        index: a.query.index.display().to_string(),
        vectors: index.len(),
        queries: m,
        k: a.query.k,
        ef: (!a.brute_force).then_some(params.ef),
        precision: (!a.brute_force).then_some(params.precision.name()),
        method: if a.brute_force { "brute-force" } else { "graph" },
        device: engine.name(),
        seconds,
        qps: m as f64 / seconds.max(1e-12),
        latency_ms: latency,
        recall,
    };
    let to_stdout = a.output.as_deref() == Some(Path::new("-"));
    if let Some(path) = &a.output {
        write_neighbours(path, &found)?;
    }
    let line = serde_json::to_string(&report)?;
    if to_stdout {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
    Ok(())
}

/// Writes the neighbours by `path`'s extension (- is JSON lines on standard output).
fn write_neighbours(path: &Path, found: &Neighbours) -> Result<()> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let (m, k) = (found.queries(), found.k);
    match (path.to_str(), ext) {
        (Some("-"), _) | (_, "jsonl") => {
            let mut out: Box<dyn Write> = if path == Path::new("-") {
                Box::new(BufWriter::new(std::io::stdout().lock()))
            } else {
                Box::new(BufWriter::new(File::create(path).with_context(|| path.display().to_string())?))
            };
            for q in 0..m {
                let ids: Vec<Option<u32>> = found.ids_of(q).iter().map(|&i| (i != NONE).then_some(i)).collect();
                let distances: Vec<Option<f32>> =
                    found.distances_of(q).iter().map(|&d| d.is_finite().then_some(d)).collect();
                writeln!(out, "{}", serde_json::json!({"query": q, "ids": ids, "distances": distances}))?;
            }
            out.flush()?;
        }
        (_, "csv") => {
            let mut out = BufWriter::new(File::create(path).with_context(|| path.display().to_string())?);
            writeln!(out, "query,rank,id,distance")?;
            for q in 0..m {
                for (r, (&id, &d)) in found.ids_of(q).iter().zip(found.distances_of(q)).enumerate() {
                    if id != NONE {
                        writeln!(out, "{q},{r},{id},{d}")?;
                    }
                }
            }
            out.flush()?;
        }
        (_, "ivecs") => write_ivecs(path, k, &found.ids)?,
        (_, "npy") => write_npy_ids(path, m, k, &found.ids)?,
        _ => bail!("{}: the neighbours are written as .ivecs, .npy, .csv or .jsonl", path.display()),
    }
    Ok(())
}

fn add(a: AddArgs) -> Result<()> {
    let engine = engine(&a.device)?;
    let mut index = file::load(&a.index)?;
    let vectors = read_vectors(&a.vectors, None)?;
    let labels = a.labels.as_ref().map(read_labels).transpose()?;
    let added = vectors.len();
    let start = Instant::now();
    with_spinner(&format!("adding {added} vectors"), || engine.add(&mut index, vectors, labels))?;
    let seconds = start.elapsed().as_secs_f64();
    file::save(&index, &a.output)?;
    println!(
        "{}",
        serde_json::json!({"index": a.output.display().to_string(), "added": added, "vectors": index.len(), "device": engine.name(), "seconds": seconds})
    );
    Ok(())
}

fn bench(a: BenchArgs) -> Result<()> {
    let engine = engine(&a.query.device)?;
    let Loaded { index, queries, truth, filter } = load(&a.query)?;
    let Some((tk, truth)) = truth else { bail!("ann bench needs --ground-truth: recall is measured, never assumed") };
    if a.runs == 0 {
        bail!("--runs 0: give at least one");
    }
    std::fs::create_dir_all(&a.out).with_context(|| a.out.display().to_string())?;
    let resident = engine.resident(&index)?;
    let m = queries.len();
    let precision = Precision::parse(&a.query.precision)?;
    let mut csv = String::from("system,device,vectors,dim,queries,k,ef,recall,qps,seconds,precision\n");
    let mut points = Vec::new();
    for &ef in &a.efs {
        let params = SearchParams::new(a.query.k, Some(ef.max(a.query.k)))?.with_precision(precision);
        // Untimed: the first search of a bound compiles its kernel (once per machine).
        let warm =
            subgraph_ann::Vectors::new(queries.dim(), queries.as_slice()[..queries.dim() * m.min(256)].to_vec())?;
        resident.search(&index, warm, params, filter.as_ref())?;
        let mut best = f64::INFINITY;
        let mut found = None;
        for _ in 0..a.runs {
            // The search takes its queries; the copy for each run is the bench's, not timed.
            let run = queries.clone();
            let start = Instant::now();
            let f = resident.search(&index, run, params, filter.as_ref())?;
            best = best.min(start.elapsed().as_secs_f64());
            found = Some(f);
        }
        let r = recall(&found.expect("one run"), &truth, tk, a.query.k)?;
        let qps = m as f64 / best.max(1e-12);
        csv.push_str(&format!(
            "subgraph,{},{},{},{m},{},{},{r:.5},{qps:.1},{best:.6},{}\n",
            engine.name(),
            index.len(),
            index.dim(),
            a.query.k,
            params.ef,
            precision.name()
        ));
        eprintln!("ef {:>4}  recall@{} {r:.4}  {qps:>12.0} queries/s", params.ef, a.query.k);
        points.push((r, qps));
    }
    std::fs::write(a.out.join("ann.csv"), &csv).context("ann.csv")?;
    let title = format!(
        "{} ({} vectors of dimension {}, {m} queries, k = {})",
        a.query.index.display(),
        index.len(),
        index.dim(),
        a.query.k
    );
    let name = match precision {
        Precision::Single => format!("subgraph ({})", engine.name()),
        p => format!("subgraph ({}, {} precision)", engine.name(), p.name()),
    };
    let curves = [Curve { name, points }];
    std::fs::write(a.out.join("ann.svg"), render_recall_svg(&title, &format!("recall@{}", a.query.k), &curves))
        .context("ann.svg")?;
    eprintln!("wrote {}", a.out.join("{ann.csv,ann.svg}").display());
    Ok(())
}

/// `subgraph gen vectors`: a clustered set, its queries and their exact ground truth.
#[derive(Args, Debug)]
pub struct GenVectorsArgs {
    /// Base vectors.
    #[arg(long)]
    pub count: usize,
    /// Dimension.
    #[arg(long)]
    pub dim: usize,
    /// Mixture components.
    #[arg(long, default_value_t = GenSpec::default().clusters)]
    pub clusters: usize,
    /// Directions each cluster spreads along (the set's intrinsic dimension).
    #[arg(long, default_value_t = GenSpec::default().intrinsic_dim)]
    pub intrinsic_dim: usize,
    /// Isotropic noise, relative to a point's offset within its cluster's directions.
    #[arg(long, default_value_t = GenSpec::default().noise)]
    pub noise: f32,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The base file to write (.fvecs or .npy).
    #[arg(long, short)]
    pub output: PathBuf,
    /// Queries, from the same mixture (a stream of their own).
    #[arg(long, default_value_t = 0)]
    pub queries: usize,
    /// The queries' file (.fvecs or .npy).
    #[arg(long, requires = "queries")]
    pub queries_output: Option<PathBuf>,
    /// The queries' exact nearest neighbours, by brute force (.ivecs or .npy).
    #[arg(long, requires = "queries_output")]
    pub ground_truth: Option<PathBuf>,
    /// Neighbours per query in the ground truth.
    #[arg(long, default_value_t = 100)]
    pub gt_k: usize,
    /// The metric of the ground truth.
    #[arg(long, default_value = "l2")]
    pub metric: Metric,
    /// Labels for filtered search, one a line, drawn uniformly from 0..--label-count.
    #[arg(long)]
    pub labels_output: Option<PathBuf>,
    #[arg(long, default_value_t = 100)]
    pub label_count: u32,
    #[command(flatten)]
    pub device: DeviceArgs,
}

/// Writes vectors by `path`'s extension.
fn write_vectors(path: &Path, v: &subgraph_ann::Vectors) -> Result<()> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("fvecs") => write_fvecs(path, v)?,
        Some("npy") => write_npy_f32(path, v.len(), v.dim(), v.as_slice())?,
        _ => bail!("{}: vectors are written as .fvecs or .npy", path.display()),
    }
    Ok(())
}

pub fn gen_vectors(a: GenVectorsArgs) -> Result<()> {
    in_threads(a.device.threads, || {
        let spec = GenSpec { clusters: a.clusters, intrinsic_dim: a.intrinsic_dim, noise: a.noise, seed: a.seed };
        let start = Instant::now();
        let base = with_spinner(&format!("generating {} vectors", a.count), || gen::clustered(a.count, a.dim, &spec))?;
        write_vectors(&a.output, &base)?;
        let mut report = serde_json::json!({
            "base": a.output.display().to_string(), "vectors": a.count, "dim": a.dim, "clusters": a.clusters,
            "intrinsic_dim": a.intrinsic_dim, "noise": a.noise, "seed": a.seed,
        });
        if let Some(path) = &a.labels_output {
            if a.label_count == 0 {
                bail!("--label-count 0: give at least one label");
            }
            let labels = gen::uniform_labels(a.count, a.label_count, a.seed);
            let mut out = BufWriter::new(File::create(path).with_context(|| path.display().to_string())?);
            for l in labels {
                writeln!(out, "{l}")?;
            }
            out.flush()?;
            report["labels"] = path.display().to_string().into();
        }
        if let Some(qpath) = &a.queries_output {
            let queries = gen::clustered_stream(a.queries, a.dim, &spec, gen::QUERIES)?;
            write_vectors(qpath, &queries)?;
            report["queries"] = qpath.display().to_string().into();
            if let Some(gpath) = &a.ground_truth {
                let engine = engine(&a.device)?;
                let gt_start = Instant::now();
                let truth =
                    with_spinner("computing the exact neighbours", || engine.exact(&base, &queries, a.metric, a.gt_k))?;
                match gpath.extension().and_then(|e| e.to_str()) {
                    Some("ivecs") => write_ivecs(gpath, truth.k, &truth.ids)?,
                    Some("npy") => write_npy_ids(gpath, truth.queries(), truth.k, &truth.ids)?,
                    _ => bail!("{}: ground truth is written as .ivecs or .npy", gpath.display()),
                }
                report["ground_truth"] = gpath.display().to_string().into();
                report["gt_k"] = a.gt_k.into();
                report["gt_device"] = engine.name().into();
                report["gt_seconds"] = gt_start.elapsed().as_secs_f64().into();
            }
        }
        report["seconds"] = start.elapsed().as_secs_f64().into();
        println!("{report}");
        Ok(())
    })
}
