//! What a benchmark run records: each query's [`QueryResult`] and [`Status`], the results CSV
//! that holds them (written, and read back to compare runs), the runner's errors, and the
//! ordering and statistic that running and reporting share ([`natural_cmp`], [`median`]).

use crate::GenError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use subgraph_core::sink::Stopped;

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
pub(super) const CSV_HEADER_V1: &str = "query,class,device,threads,embeddings,complete,elapsed_ms,filter_ms,order_ms,\
space_ms,enumerate_ms,candidates,peak_rss_bytes,stopped";

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
    pub(super) fn from_stopped(s: Option<Stopped>) -> Status {
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

/// The median of `xs` (sorted in place): the mean of the middle two for an even count.
pub(super) fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => xs[n / 2],
        _ => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

/// `s` as a CSV field: quoted where it holds a comma, a quote or a line break.
pub(super) fn csv_field(s: &str) -> String {
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
