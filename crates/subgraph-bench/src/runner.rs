//! The benchmark runner: runs query sets against one loaded data graph with a timeout per
//! query, and reports the results as CSV, a Markdown summary per query class and an SVG plot of
//! the sorted per-query times, optionally compared with an earlier run's CSV.
//!
//! This file runs the queries; what a run records and its CSV are in `results`, the summaries,
//! comparisons and plots in `report`, both re-exported here.

pub(crate) mod report;
mod results;

pub use report::{
    comparison_csv, geomean_ratio, pair_runs, percentile, render_summary, render_svg, summarize, ClassSummary, Memory,
    Pair, SummaryInput,
};
pub use results::{natural_cmp, parse_csv, read_csv, to_csv, BenchError, QueryResult, Status, CSV_HEADER};
pub use subgraph_core::host::{peak_rss_bytes, reset_peak_rss, resident_bytes};

use results::median;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph_core::io::{read_graphs, source, ReadOptions};
use subgraph_core::pipeline::{MatchOptions, Report};
use subgraph_core::sink::Control;
use subgraph_core::Graph;

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

#[cfg(test)]
mod tests {
    use super::results::CSV_HEADER_V1;
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
