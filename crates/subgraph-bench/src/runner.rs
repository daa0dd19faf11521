//! The benchmark runner: runs query sets against one loaded data graph with a timeout per
//! query, and reports the results as CSV, a Markdown summary per query class and an SVG plot of
//! the sorted per-query times, optionally compared with an earlier run's CSV.

use crate::GenError;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph_core::io::{read_graphs, source, ReadOptions};
use subgraph_core::pipeline::{MatchOptions, Report};
use subgraph_core::sink::{Control, Stopped};
use subgraph_core::Graph;

/// Errors of the runner.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{file}: {source}")]
    Io { file: PathBuf, source: std::io::Error },
    /// A malformed results CSV.
    #[error("{file}:{line}: {msg}")]
    Csv { file: PathBuf, line: usize, msg: String },
    #[error("{query}: {source}")]
    Query { query: String, source: subgraph_core::Error },
    /// The engine failed on a query.
    #[error("{query}: {msg}")]
    Run { query: String, msg: String },
    #[error(transparent)]
    Gen(#[from] GenError),
}

/// The columns of a results CSV, in order. `stopped` is empty for a complete query, else why
/// it stopped early (limit, timeout, interrupted).
pub const CSV_HEADER: &str = "query,class,device,threads,embeddings,complete,elapsed_ms,filter_ms,order_ms,\
space_ms,enumerate_ms,candidates,peak_rss_bytes,stopped,space_bytes";
/// The header of CSVs written before `space_bytes` was added; still read (space_bytes 0).
const CSV_HEADER_V1: &str = "query,class,device,threads,embeddings,complete,elapsed_ms,filter_ms,order_ms,\
space_ms,enumerate_ms,candidates,peak_rss_bytes,stopped";

/// How each query is run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub options: MatchOptions,
    /// Where the queries run (`cpu` or `gpu`), for the CSV.
    pub device: String,
    /// Worker threads the engine uses, for the CSV.
    pub threads: usize,
    /// Per query and repeat; a query that times out is not repeated.
    pub timeout: Option<Duration>,
    /// Runs per query; phase times are the medians over the runs.
    pub repeat: usize,
}

/// How one query's runs ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Complete,
    /// Stopped at the embedding limit: solved, as in Sun & Luo's protocol.
    Limit,
    Timeout,
    Interrupted,
}

impl Status {
    fn from_stopped(s: Option<Stopped>) -> Status {
        match s {
            None => Status::Complete,
            Some(Stopped::Limit) => Status::Limit,
            Some(Stopped::Timeout) => Status::Timeout,
            Some(Stopped::Interrupted) => Status::Interrupted,
        }
    }

    /// The `stopped` column: empty when complete.
    pub fn stopped_name(self) -> &'static str {
        match self {
            Status::Complete => "",
            Status::Limit => "limit",
            Status::Timeout => "timeout",
            Status::Interrupted => "interrupted",
        }
    }

    fn from_columns(complete: bool, stopped: &str) -> Option<Status> {
        match (complete, stopped) {
            (true, "") => Some(Status::Complete),
            (false, "limit") => Some(Status::Limit),
            (false, "timeout") => Some(Status::Timeout),
            (false, "interrupted") => Some(Status::Interrupted),
            _ => None,
        }
    }

    /// Whether the query counts as solved: complete, or stopped at the limit.
    pub fn solved(self) -> bool {
        matches!(self, Status::Complete | Status::Limit)
    }
}

/// One query's line of the results.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryResult {
    pub query: String,
    pub class: String,
    pub device: String,
    pub threads: usize,
    /// Matches found; a partial count unless complete.
    pub embeddings: u128,
    pub status: Status,
    pub elapsed_ms: f64,
    pub filter_ms: f64,
    pub order_ms: f64,
    pub space_ms: f64,
    pub enumerate_ms: f64,
    pub candidates: u64,
    /// The process's resident-memory high-water mark (VmHWM) after the query, in bytes: it
    /// includes the data graph and everything else the process holds. It is reset before each
    /// query where the kernel allows (/proc/self/clear_refs), so it is then the peak during
    /// that query; otherwise it is the peak since the process started.
    pub peak_rss_bytes: u64,
    /// Bytes of the query's candidate space (the engine's `space_bytes`), largest over the runs.
    pub space_bytes: u64,
}

/// The class of a query file: `query_dense_8_12.graph` gives `dense_8` (Sun & Luo's naming);
/// any other name gives its parent directory's name (`queries` when it has none).
pub fn query_class(path: &Path) -> String {
    let name = source::uncompressed_name(path);
    let stem = name.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let parts: Vec<&str> = stem.split('_').collect();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let ["query", kind, size, index] = parts[..] {
        if !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_alphabetic()) && digits(size) && digits(index) {
            return format!("{kind}_{size}");
        }
    }
    path.parent()
        .and_then(|p| p.file_name())
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("queries")
        .to_string()
}

/// Compares strings with runs of digits compared as numbers: `q_2` before `q_10`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering::Equal;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let run = |s: &[u8], k: usize| k + s[k..].iter().take_while(|c| c.is_ascii_digit()).count();
            let (ei, ej) = (run(a, i), run(b, j));
            let trim = |s: &[u8]| {
                let z = s.iter().take_while(|&&c| c == b'0').count();
                s[z..].to_vec()
            };
            let (na, nb) = (trim(&a[i..ei]), trim(&b[j..ej]));
            let ord = na.len().cmp(&nb.len()).then_with(|| na.cmp(&nb));
            if ord != Equal {
                return ord;
            }
            (i, j) = (ei, ej);
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
}

/// The extensions of query graph files in a directory of queries: Sun & Luo's and GSI's.
pub const QUERY_GRAPHS: &[&str] = &["graph", "g"];

/// The query files named: files (and `-`, standard input) as given, directories replaced by
/// their files of the `extensions` (query graphs: [`QUERY_GRAPHS`]), also under a `.gz` or
/// `.zst` extension, in natural order.
pub fn collect_queries(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<PathBuf>, BenchError> {
    let mut out = Vec::new();
    for p in paths {
        let io = |source| BenchError::Io { file: p.clone(), source };
        if source::is_stdin(p) {
            out.push(p.clone());
            continue;
        }
        if !p.is_dir() {
            std::fs::metadata(p).map_err(io)?;
            out.push(p.clone());
            continue;
        }
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(p).map_err(io)?.map(|e| e.map(|e| e.path()).map_err(io)).collect::<Result<_, _>>()?;
        files.retain(|f| {
            f.is_file()
                && source::uncompressed_name(f)
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| extensions.contains(&e))
        });
        files.sort_by(|x, y| natural_cmp(&x.to_string_lossy(), &y.to_string_lossy()));
        out.extend(files);
    }
    Ok(out)
}

/// The process's resident-memory high-water mark (VmHWM) in bytes; 0 where unknown.
pub fn peak_rss_bytes() -> u64 {
    status_bytes("VmHWM:")
}

/// The process's resident bytes now (VmRSS); 0 where unknown.
pub fn resident_bytes() -> u64 {
    status_bytes("VmRSS:")
}

/// A `kB` field of /proc/self/status in bytes; 0 where unknown.
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Resets VmHWM to the current resident size; false where the kernel does not allow it.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", b"5").is_ok()
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => xs[n / 2],
        _ => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

/// Runs every graph of every query file `repeat` times on `data` through `engine` (the CPU
/// pipeline, or the GPU engine: it gets the query, the options and the stop control);
/// `progress` sees each result as it is made (index, total files, result). Stops early,
/// returning what it has, once `interrupt` is set.
pub fn run_benchmark(
    data: &Graph,
    queries: &[PathBuf],
    cfg: &RunConfig,
    interrupt: &Arc<AtomicBool>,
    mut engine: impl FnMut(Graph, &MatchOptions, &Control) -> Result<Report, String>,
    mut progress: impl FnMut(usize, usize, &QueryResult),
) -> Result<Vec<QueryResult>, BenchError> {
    let qopts = ReadOptions { directed: data.is_directed(), ..ReadOptions::default() };
    let mut results = Vec::new();
    for (index, path) in queries.iter().enumerate() {
        let graphs = read_graphs(path, &qopts)
            .map_err(|source| BenchError::Query { query: path.display().to_string(), source })?;
        let several = graphs.len() > 1;
        for (i, q) in graphs.into_iter().enumerate() {
            let file = source::display_name(path).display();
            let name = if several { format!("{file}#{i}") } else { file.to_string() };
            let mut reports: Vec<Report> = Vec::new();
            reset_peak_rss();
            for _ in 0..cfg.repeat.max(1) {
                let control = Control::new(cfg.timeout.map(|t| Instant::now() + t), interrupt.clone());
                let r = engine(q.graph.clone(), &cfg.options, &control)
                    .map_err(|msg| BenchError::Run { query: name.clone(), msg })?;
                reports.push(r);
                if !Status::from_stopped(r.stopped).solved() {
                    break;
                }
            }
            let last = reports[reports.len() - 1];
            let phase = |f: fn(&Report) -> f64| median(&mut reports.iter().map(f).collect::<Vec<_>>());
            let result = QueryResult {
                query: name,
                class: query_class(path),
                device: cfg.device.clone(),
                threads: cfg.threads,
                embeddings: reports.iter().map(|r| r.embeddings).max().unwrap_or(0),
                status: Status::from_stopped(last.stopped),
                elapsed_ms: phase(|r| r.elapsed_ms),
                filter_ms: phase(|r| r.filter_ms),
                order_ms: phase(|r| r.order_ms),
                space_ms: phase(|r| r.space_ms),
                enumerate_ms: phase(|r| r.enumerate_ms),
                candidates: last.candidates,
                peak_rss_bytes: peak_rss_bytes(),
                space_bytes: reports.iter().map(|r| r.space_bytes).max().unwrap_or(0),
            };
            progress(index, queries.len(), &result);
            results.push(result);
            if interrupt.load(Ordering::Relaxed) {
                return Ok(results);
            }
        }
    }
    Ok(results)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Splits one CSV line, honouring double-quoted fields.
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let field = fields.last_mut().expect("one field");
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            _ => field.push(c),
        }
    }
    fields
}

/// The results as CSV text with [`CSV_HEADER`].
pub fn to_csv(results: &[QueryResult]) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for r in results {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{:.3},{:.3},{:.3},{:.3},{:.3},{},{},{},{}",
            csv_field(&r.query),
            csv_field(&r.class),
            csv_field(&r.device),
            r.threads,
            r.embeddings,
            r.status == Status::Complete,
            r.elapsed_ms,
            r.filter_ms,
            r.order_ms,
            r.space_ms,
            r.enumerate_ms,
            r.candidates,
            r.peak_rss_bytes,
            r.status.stopped_name(),
            r.space_bytes
        );
    }
    s
}

/// Parses CSV text written by [`to_csv`]; `file` names it in errors.
pub fn parse_csv(text: &str, file: &Path) -> Result<Vec<QueryResult>, BenchError> {
    let err = |line: usize, msg: String| BenchError::Csv { file: file.to_path_buf(), line, msg };
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let header = lines.next().map(|(_, l)| l.trim()).unwrap_or("");
    let fields = match header {
        CSV_HEADER => 15,
        CSV_HEADER_V1 => 14,
        _ => return Err(err(1, format!("expected the header {CSV_HEADER}"))),
    };
    lines
        .map(|(i, line)| {
            let f = split_csv(line);
            if f.len() != fields {
                return Err(err(i + 1, format!("expected {fields} fields, found {}", f.len())));
            }
            let num = |k: usize| f[k].parse::<f64>().map_err(|_| err(i + 1, format!("not a number: '{}'", f[k])));
            let int = |k: usize| f[k].parse::<u64>().map_err(|_| err(i + 1, format!("not an integer: '{}'", f[k])));
            let complete = match f[5].as_str() {
                "true" => true,
                "false" => false,
                other => return Err(err(i + 1, format!("complete must be true or false, got '{other}'"))),
            };
            let status = Status::from_columns(complete, &f[13])
                .ok_or_else(|| err(i + 1, format!("complete={complete} with stopped='{}'", f[13])))?;
            Ok(QueryResult {
                query: f[0].clone(),
                class: f[1].clone(),
                device: f[2].clone(),
                threads: int(3)? as usize,
                embeddings: f[4].parse().map_err(|_| err(i + 1, format!("not an integer: '{}'", f[4])))?,
                status,
                elapsed_ms: num(6)?,
                filter_ms: num(7)?,
                order_ms: num(8)?,
                space_ms: num(9)?,
                enumerate_ms: num(10)?,
                candidates: int(11)?,
                peak_rss_bytes: int(12)?,
                space_bytes: if fields == 15 { int(14)? } else { 0 },
            })
        })
        .collect()
}

/// Reads a results CSV.
pub fn read_csv(path: &Path) -> Result<Vec<QueryResult>, BenchError> {
    let text = std::fs::read_to_string(path).map_err(|source| BenchError::Io { file: path.to_path_buf(), source })?;
    parse_csv(&text, path)
}

/// Statistics of one class's elapsed times. Timed-out queries count at their elapsed time (about
/// the timeout), so the statistics are lower bounds when any query timed out.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSummary {
    pub class: String,
    pub queries: usize,
    pub solved: usize,
    pub timed_out: usize,
    pub median_ms: f64,
    pub mean_ms: f64,
    pub p95_ms: f64,
    pub total_ms: f64,
    pub peak_rss_bytes: u64,
    /// The largest (peak RSS − the resident bytes before the graph was loaded) / (2 × graph
    /// bytes + space bytes) over the class's queries, given the [`Memory`]: the engine's memory
    /// bound (issue 2) holds when it is at most 1.
    pub memory_ratio: Option<f64>,
}

/// What the memory ratio is measured against: the data graph's bytes in memory, and the
/// process's resident bytes before the graph was loaded (the program, its libraries and
/// threads), which the peaks include and the bound is not about.
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    pub graph_bytes: u64,
    pub base_rss_bytes: u64,
}

/// The nearest-rank percentile `p` (0 < p <= 100) of `xs`: the smallest value with at least p%
/// of the values at or below it.
pub fn percentile(xs: &[f64], p: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// One summary per class, classes in natural order, then an `all` line. `memory` gives each
/// class its memory ratio.
pub fn summarize(results: &[QueryResult], memory: Option<Memory>) -> Vec<ClassSummary> {
    let mut classes: Vec<&str> = results.iter().map(|r| r.class.as_str()).collect();
    classes.sort_by(|a, b| natural_cmp(a, b));
    classes.dedup();
    let one = |class: &str, rs: Vec<&QueryResult>| {
        let mut t: Vec<f64> = rs.iter().map(|r| r.elapsed_ms).collect();
        let total: f64 = t.iter().sum();
        ClassSummary {
            class: class.to_string(),
            queries: rs.len(),
            solved: rs.iter().filter(|r| r.status.solved()).count(),
            timed_out: rs.iter().filter(|r| r.status == Status::Timeout).count(),
            p95_ms: percentile(&t, 95.0),
            median_ms: median(&mut t),
            mean_ms: total / rs.len().max(1) as f64,
            total_ms: total,
            peak_rss_bytes: rs.iter().map(|r| r.peak_rss_bytes).max().unwrap_or(0),
            memory_ratio: memory.map(|m| {
                let used = |r: &QueryResult| r.peak_rss_bytes.saturating_sub(m.base_rss_bytes) as f64;
                rs.iter().map(|r| used(r) / (2 * m.graph_bytes + r.space_bytes) as f64).fold(0.0, f64::max)
            }),
        }
    };
    let mut out: Vec<ClassSummary> =
        classes.iter().map(|&c| one(c, results.iter().filter(|r| r.class == c).collect())).collect();
    if classes.len() > 1 {
        out.push(one("all", results.iter().collect()));
    }
    out
}

/// One query present in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub query: String,
    pub class: String,
    pub this_ms: f64,
    pub other_ms: f64,
    pub this_status: Status,
    pub other_status: Status,
}

impl Pair {
    /// other / this elapsed time.
    pub fn ratio(&self) -> f64 {
        self.other_ms / self.this_ms
    }

    pub fn both_solved(&self) -> bool {
        self.this_status.solved() && self.other_status.solved()
    }
}

/// Pairs this run's queries with the other run's: by the same query path, else by the same file
/// name when it is unique in the other run. Queries of this run absent from the other are left
/// out.
pub fn pair_runs(this: &[QueryResult], other: &[QueryResult]) -> Vec<Pair> {
    let by_path: HashMap<&str, &QueryResult> = other.iter().map(|r| (r.query.as_str(), r)).collect();
    let base = |q: &str| q.rsplit(['/', '\\']).next().unwrap_or(q).to_string();
    let mut by_name: HashMap<String, Option<&QueryResult>> = HashMap::new();
    for r in other {
        by_name.entry(base(&r.query)).and_modify(|e| *e = None).or_insert(Some(r));
    }
    this.iter()
        .filter_map(|r| {
            let o =
                by_path.get(r.query.as_str()).copied().or_else(|| by_name.get(&base(&r.query)).copied().flatten())?;
            Some(Pair {
                query: r.query.clone(),
                class: r.class.clone(),
                this_ms: r.elapsed_ms,
                other_ms: o.elapsed_ms,
                this_status: r.status,
                other_status: o.status,
            })
        })
        .collect()
}

/// The geometric mean of other/this over the pairs solved by both with positive times; None
/// when there is no such pair.
pub fn geomean_ratio<'a>(pairs: impl IntoIterator<Item = &'a Pair>) -> Option<f64> {
    let logs: Vec<f64> = pairs
        .into_iter()
        .filter(|p| p.both_solved() && p.this_ms > 0.0 && p.other_ms > 0.0)
        .map(|p| p.ratio().ln())
        .collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// The pairs as CSV: query, class, both times, other/this, both statuses.
pub fn comparison_csv(pairs: &[Pair], this_label: &str, other_label: &str) -> String {
    let mut s = format!(
        "query,class,{0}_ms,{1}_ms,ratio_{1}_over_{0},{0}_status,{1}_status\n",
        csv_field(this_label),
        csv_field(other_label)
    );
    let status = |st: Status| {
        if st == Status::Complete {
            "complete"
        } else {
            st.stopped_name()
        }
    };
    for p in pairs {
        let _ = writeln!(
            s,
            "{},{},{:.3},{:.3},{:.4},{},{}",
            csv_field(&p.query),
            csv_field(&p.class),
            p.this_ms,
            p.other_ms,
            p.ratio(),
            status(p.this_status),
            status(p.other_status)
        );
    }
    s
}

/// What a summary shows besides the results.
pub struct SummaryInput<'a> {
    pub title: &'a str,
    /// `key: value` lines shown under the title (data graph, options, machine ...).
    pub facts: &'a [(String, String)],
    pub results: &'a [QueryResult],
    /// What the memory-ratio column measures against.
    pub memory: Option<Memory>,
    /// The other run's label and the paired queries, with --compare.
    pub compare: Option<(&'a str, &'a [Pair])>,
}

fn ms(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// The Markdown summary: a table per class, the queries that did not finish with their partial
/// counts, and with a comparison the geometric mean of other/this per class.
pub fn render_summary(s: &SummaryInput) -> String {
    let mut md = format!("# {}\n\n", s.title);
    for (k, v) in s.facts {
        let _ = writeln!(md, "- {k}: {v}");
    }
    md.push_str(
        "\nTimes in ms, graph loading excluded. Solved: complete, or stopped at the embedding limit. \
         Timed-out queries count at their elapsed time (about the timeout), so statistics of a class \
         with timeouts are lower bounds. Peak RSS is the process's high-water mark (VmHWM, data graph \
         included), the largest over the class's queries; memory ratio is the largest (peak RSS − the \
         resident size before the data graph was loaded) / (2 × data graph + the query's candidate space), \
         at most 1 when memory stays within that bound. On graphs of a few MiB the allocator's retained \
         pages and the threads' stacks (a few MiB) dominate and it exceeds 1 (1.75 on HPRD's 0.9 MiB; 0.52 on \
         an R-MAT graph of 10^7 edges).\n\n",
    );
    md.push_str(
        "| class | queries | solved | timed out | median | mean | p95 | total | peak RSS MiB | memory ratio |\n",
    );
    md.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for c in summarize(s.results, s.memory) {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.0} | {} |",
            c.class,
            c.queries,
            c.solved,
            c.timed_out,
            ms(c.median_ms),
            ms(c.mean_ms),
            ms(c.p95_ms),
            ms(c.total_ms),
            c.peak_rss_bytes as f64 / (1 << 20) as f64,
            c.memory_ratio.map_or("-".to_string(), |r| format!("{r:.2}"))
        );
    }
    let unfinished: Vec<&QueryResult> = s.results.iter().filter(|r| !r.status.solved()).collect();
    if !unfinished.is_empty() {
        let _ = writeln!(md, "\n## Not finished ({})\n", unfinished.len());
        md.push_str("| query | status | partial embeddings | elapsed |\n|---|---|---:|---:|\n");
        for r in unfinished {
            let _ =
                writeln!(md, "| {} | {} | {} | {} |", r.query, r.status.stopped_name(), r.embeddings, ms(r.elapsed_ms));
        }
    }
    if let Some((other, pairs)) = s.compare {
        let _ = writeln!(
            md,
            "\n## Compared with {other}\n\nRatio = {other} time / this time (above 1: this run is faster); \
             geometric mean over the queries solved by both.\n"
        );
        md.push_str("| class | paired | solved by both | geomean ratio |\n|---|---:|---:|---:|\n");
        let mut classes: Vec<&str> = pairs.iter().map(|p| p.class.as_str()).collect();
        classes.sort_by(|a, b| natural_cmp(a, b));
        classes.dedup();
        let line = |md: &mut String, class: &str, ps: Vec<&Pair>| {
            let both = ps.iter().filter(|p| p.both_solved()).count();
            let g = geomean_ratio(ps.iter().copied()).map_or("-".to_string(), |g| format!("{g:.3}"));
            let _ = writeln!(md, "| {class} | {} | {both} | {g} |", ps.len());
        };
        for &c in &classes {
            line(&mut md, c, pairs.iter().filter(|p| p.class == c).collect());
        }
        line(&mut md, "all", pairs.iter().collect());
    }
    md
}

const COLORS: &[&str] = &["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// An SVG plot of each series' per-query times sorted ascending (x: query rank, y: ms on a log
/// scale), one polyline per series, with axis labels and a legend.
pub fn render_svg(title: &str, series: &[(String, Vec<f64>)]) -> String {
    let (w, h) = (800.0, 500.0);
    let (left, right, top, bottom) = (80.0, 20.0, 40.0, 60.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let floor = 1e-3;
    let all = series.iter().flat_map(|(_, v)| v.iter().map(|&x| x.max(floor)));
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let (lo_exp, hi_exp) = if lo.is_finite() {
        (lo.log10().floor() as i32, (hi.log10().ceil() as i32).max(lo.log10().floor() as i32 + 1))
    } else {
        (0, 1)
    };
    let max_n = series.iter().map(|(_, v)| v.len()).max().unwrap_or(0).max(2);
    let x_of = |i: usize| left + pw * i as f64 / (max_n - 1) as f64;
    let y_of = |v: f64| top + ph * (1.0 - (v.max(floor).log10() - lo_exp as f64) / (hi_exp - lo_exp) as f64);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
        w / 2.0,
        xml_escape(title)
    );
    for e in lo_exp..=hi_exp {
        let y = y_of(10f64.powi(e));
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">1e{e}</text>",
            left + pw,
            left - 6.0,
            y + 4.0
        );
    }
    for k in 0..=4 {
        let i = (max_n - 1) * k / 4;
        let _ =
            writeln!(s, "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>", x_of(i), top + ph + 18.0, i + 1);
    }
    let _ = writeln!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">queries, sorted by time (rank)</text>\n\
         <text x=\"18\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">elapsed time (ms, log scale)</text>",
        left + pw / 2.0,
        h - 16.0,
        top + ph / 2.0,
        top + ph / 2.0
    );
    for (k, (name, values)) in series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let mut v = values.clone();
        v.sort_by(f64::total_cmp);
        let points: Vec<String> =
            v.iter().enumerate().map(|(i, &t)| format!("{:.1},{:.1}", x_of(i), y_of(t))).collect();
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{}\"/>",
            points.join(" ")
        );
        let ly = top + 16.0 + 18.0 * k as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{ly}\" x2=\"{1}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"3\"/>\
             <text x=\"{2}\" y=\"{3}\">{4} ({5} queries)</text>",
            left + 12.0,
            left + 36.0,
            left + 42.0,
            ly + 4.0,
            xml_escape(name),
            values.len()
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(query: &str, class: &str, ms: f64, status: Status) -> QueryResult {
        QueryResult {
            query: query.to_string(),
            class: class.to_string(),
            device: "cpu".to_string(),
            threads: 2,
            embeddings: 12345678901234567890123,
            status,
            elapsed_ms: ms,
            filter_ms: 0.125,
            order_ms: 0.5,
            space_ms: 1.25,
            enumerate_ms: ms - 1.875,
            candidates: 42,
            peak_rss_bytes: 1 << 30,
            space_bytes: 1 << 20,
        }
    }

    #[test]
    fn classes_from_names() {
        assert_eq!(query_class(Path::new("d/query_graph/query_dense_8_12.graph")), "dense_8");
        assert_eq!(query_class(Path::new("query_sparse_32_200.graph")), "sparse_32");
        assert_eq!(query_class(Path::new("sets/triangles/q1.graph")), "triangles");
        assert_eq!(query_class(Path::new("sets/mixed/query_dense_x_1.graph")), "mixed");
        assert_eq!(query_class(Path::new("q.g")), "queries");
        assert_eq!(query_class(Path::new("query_dense_8_12.graph.gz")), "dense_8");
    }

    #[test]
    fn collects_plain_compressed_and_stdin_queries() {
        let dir = std::env::temp_dir().join(format!("collect-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["q_10.graph", "q_2.graph.gz", "q_3.g.zst", "notes.txt", "q_4.gz"] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        let got = collect_queries(&[dir.clone(), PathBuf::from("-")], QUERY_GRAPHS).unwrap();
        let names: Vec<_> = got.iter().map(|p| p.file_name().unwrap().to_str().unwrap()).collect();
        assert_eq!(names, ["q_2.graph.gz", "q_3.g.zst", "q_10.graph", "-"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["query_dense_8_10", "query_dense_8_2", "query_dense_16_1", "query_dense_8_1"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["query_dense_8_1", "query_dense_8_2", "query_dense_8_10", "query_dense_16_1"]);
        assert_eq!(natural_cmp("a007", "a7"), std::cmp::Ordering::Equal);
        assert_eq!(natural_cmp("a7", "a7b"), std::cmp::Ordering::Less);
    }

    #[test]
    fn statistics() {
        let xs: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&xs, 95.0), 19.0);
        assert_eq!(percentile(&xs, 50.0), 10.0);
        assert_eq!(percentile(&[5.0], 95.0), 5.0);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        let rs: Vec<QueryResult> =
            [(1.0, Status::Complete), (3.0, Status::Limit), (10.0, Status::Timeout), (2.0, Status::Complete)]
                .iter()
                .enumerate()
                .map(|(i, &(t, st))| result(&format!("q{i}"), "dense_8", t, st))
                .chain([result("s", "sparse_8", 7.0, Status::Complete)])
                .collect();
        let s = summarize(&rs, Some(Memory { graph_bytes: 1 << 29, base_rss_bytes: 1 << 20 }));
        assert_eq!(s.len(), 3);
        // peak 1 GiB less the 1 MiB before loading, over 2 × 512 MiB + 1 MiB of candidate space.
        assert_eq!(s[0].memory_ratio, Some(((1u64 << 30) - (1 << 20)) as f64 / ((1u64 << 30) + (1 << 20)) as f64));
        assert_eq!(summarize(&rs, None)[0].memory_ratio, None);
        assert_eq!((s[0].class.as_str(), s[0].queries, s[0].solved, s[0].timed_out), ("dense_8", 4, 3, 1));
        assert_eq!((s[0].median_ms, s[0].mean_ms, s[0].p95_ms, s[0].total_ms), (2.5, 4.0, 10.0, 16.0));
        assert_eq!((s[2].class.as_str(), s[2].queries, s[2].solved), ("all", 5, 4));
    }

    #[test]
    fn csv_round_trip_and_compare() {
        let this = vec![
            result("a/query_dense_8_1.graph", "dense_8", 2.0, Status::Complete),
            result("a/odd, \"name\".graph", "a", 4.0, Status::Limit),
            result("a/query_dense_8_3.graph", "dense_8", 10000.0, Status::Timeout),
        ];
        let text = to_csv(&this);
        let back = parse_csv(&text, Path::new("r.csv")).unwrap();
        assert_eq!(back, this);
        let mut other = back.clone();
        other[0].query = "b/query_dense_8_1.graph".to_string();
        other[0].elapsed_ms = 8.0;
        other[1].elapsed_ms = 1.0;
        let pairs = pair_runs(&this, &other);
        assert_eq!(pairs.len(), 3);
        assert_eq!(pairs[0].ratio(), 4.0);
        assert_eq!(geomean_ratio(&pairs), Some(1.0));
        let cmp = comparison_csv(&pairs, "new", "old");
        assert!(cmp.starts_with("query,class,new_ms,old_ms,ratio_old_over_new,new_status,old_status\n"));
        assert_eq!(cmp.lines().count(), 4);
        let md = render_summary(&SummaryInput {
            title: "t",
            facts: &[],
            results: &this,
            memory: Some(Memory { graph_bytes: 1 << 30, base_rss_bytes: 0 }),
            compare: Some(("old", &pairs)),
        });
        assert!(md.contains("| 1024 | 0.50 |"), "{md}");
        assert!(md.contains("| all | 3 | 2 | 1.000 |"), "{md}");
        assert!(md.contains("| a/query_dense_8_3.graph | timeout | 12345678901234567890123 |"), "{md}");
        assert!(parse_csv("query,class\n", Path::new("x")).is_err());
        let bad = text.replacen(",true,", ",false,", 1);
        assert!(parse_csv(&bad, Path::new("x")).is_err());
        // A CSV from before the space_bytes column still reads, with space_bytes 0.
        let v1: String = text
            .lines()
            .map(|l| format!("{}\n", l.rsplit_once(',').unwrap().0))
            .collect::<String>()
            .replacen(CSV_HEADER, CSV_HEADER_V1, 1);
        let old = parse_csv(&v1, Path::new("v1.csv")).unwrap();
        assert!(old.iter().zip(&this).all(|(o, t)| o.space_bytes == 0 && o.query == t.query));
    }

    #[test]
    fn svg_has_one_polyline_per_series() {
        let series = vec![
            ("this <run>".to_string(), vec![5.0, 0.0, 1200.0]),
            ("other".to_string(), vec![1.0, 2.0]),
            ("third".to_string(), vec![]),
        ];
        let svg = render_svg("times", &series);
        assert_eq!(svg.matches("<polyline").count(), 3);
        assert!(svg.contains("this &lt;run&gt; (3 queries)"));
        assert!(svg.contains(">1e-3<") && svg.contains(">1e4<"));
        assert!(svg.trim_end().ends_with("</svg>"));
    }
}
