//! A load generator for a running `subgraph serve`: query files replayed in turn by many
//! concurrent clients for a set time, each answer's count checked against the expected one;
//! it reports requests, throughput, latency percentiles, wrong counts, 503s (each retried after
//! its Retry-After), other errors and lost requests (no answer at all). With `--sequential R`,
//! one client asks each of the first `--first` queries R times in a row instead, and reports
//! each one's median round trip beside the server's `elapsed_ms` and, with `--cli`,
//! `subgraph match --format json`'s. The server is only ever on a loopback address here.
//!
//!     cargo run --release -p subgraph-server --example load -- --url http://127.0.0.1:7878 \
//!         --queries tests/data/hprd/queries --expected tests/data/hprd/expected_output.res \
//!         --clients 64 --seconds 60

use anyhow::{bail, ensure, Context, Result};
use clap::Parser;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{header, Request, StatusCode, Uri};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Parser)]
struct Args {
    /// The server, on a loopback address.
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    url: String,
    /// The served graph's name.
    #[arg(long, default_value = "hprd")]
    graph: String,
    /// A bearer token, where the server has a token file.
    #[arg(long)]
    token: Option<String>,
    /// A folder of query graphs, NAME.graph.
    #[arg(long)]
    queries: PathBuf,
    /// The expected counts, `NAME:COUNT` a line; the queries replayed are these, in this order.
    #[arg(long)]
    expected: PathBuf,
    /// Concurrent clients, each with a request in flight at a time.
    #[arg(long, default_value_t = 64)]
    clients: usize,
    /// How long clients start requests; those in flight then are still awaited.
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// Seconds a client waits for an answer before it counts the request lost.
    #[arg(long, default_value_t = 300.0)]
    wait: f64,
    /// Instead of the load: one client asks each query this many times in a row.
    #[arg(long, value_name = "R")]
    sequential: Option<usize>,
    /// With --sequential: how many of the queries, from the first.
    #[arg(long, default_value_t = 20)]
    first: usize,
    /// With --sequential: a `subgraph` binary, whose `match --format json` runs each query as
    /// many times, for its `elapsed_ms`.
    #[arg(long, value_name = "SUBGRAPH")]
    cli: Option<PathBuf>,
    /// With --cli: the data graph's file.
    #[arg(long)]
    data: Option<PathBuf>,
}

/// One query: its name, its request's body, its file and its expected count.
struct Query {
    name: String,
    body: Bytes,
    file: PathBuf,
    expected: u64,
}

fn read_queries(a: &Args) -> Result<Vec<Query>> {
    let text = std::fs::read_to_string(&a.expected).with_context(|| a.expected.display().to_string())?;
    let mut queries = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (name, count) = line.split_once(':').with_context(|| format!("not NAME:COUNT: {line}"))?;
        let file = a.queries.join(format!("{name}.graph"));
        let graph = std::fs::read_to_string(&file).with_context(|| file.display().to_string())?;
        let body = serde_json::to_vec(&serde_json::json!({ "query": graph, "name": name }))?;
        let expected = count.trim().parse().with_context(|| format!("the count of {name}"))?;
        queries.push(Query { name: name.to_string(), body: body.into(), file, expected });
    }
    ensure!(!queries.is_empty(), "no queries in {}", a.expected.display());
    Ok(queries)
}

/// The server's answer to one request.
enum Answer {
    /// A record: its count, whether complete, the server's `elapsed_ms`.
    Record { embeddings: u64, complete: bool, elapsed_ms: f64 },
    /// 503: the seconds Retry-After asks.
    Busy(u64),
    /// Another status, or a body that is not a record.
    Error(String),
    /// No answer: the connection failed or the wait ran out.
    Lost(String),
}

struct Asker {
    client: Client<HttpConnector, Full<Bytes>>,
    uri: Uri,
    token: Option<String>,
    wait: Duration,
}

impl Asker {
    fn new(a: &Args) -> Result<Asker> {
        let url = a.url.trim_end_matches('/');
        ensure!(url.starts_with("http://127.") || url.starts_with("http://localhost"), "a loopback http:// URL");
        let uri = format!("{url}/v1/graphs/{}/match", a.graph).parse()?;
        let mut http = HttpConnector::new();
        http.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(a.clients).build(http);
        Ok(Asker { client, uri, token: a.token.clone(), wait: Duration::from_secs_f64(a.wait) })
    }

    async fn ask(&self, body: &Bytes) -> Answer {
        let mut request = Request::post(self.uri.clone()).header(header::CONTENT_TYPE, "application/json");
        if let Some(t) = &self.token {
            request = request.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        let request = request.body(Full::new(body.clone())).expect("a request");
        let exchange = async {
            let response = self.client.request(request).await.map_err(|e| format!("{e:?}"))?;
            let status = response.status();
            let retry = response.headers().get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()?.parse().ok());
            let bytes = response.into_body().collect().await.map_err(|e| format!("reading the body: {e}"))?;
            Ok::<_, String>((status, retry, bytes.to_bytes()))
        };
        let (status, retry, bytes) = match tokio::time::timeout(self.wait, exchange).await {
            Err(_) => return Answer::Lost(format!("no answer within {:?}", self.wait)),
            Ok(Err(e)) => return Answer::Lost(e),
            Ok(Ok(answer)) => answer,
        };
        if status == StatusCode::SERVICE_UNAVAILABLE {
            return match retry {
                Some(secs) => Answer::Busy(secs),
                None => Answer::Error(format!("503 without Retry-After: {}", String::from_utf8_lossy(&bytes))),
            };
        }
        if status != StatusCode::OK {
            return Answer::Error(format!("{status}: {}", String::from_utf8_lossy(&bytes)));
        }
        let record: serde_json::Value = match serde_json::from_slice(&bytes) {
            Ok(record) => record,
            Err(e) => return Answer::Error(format!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes))),
        };
        match (record["embeddings"].as_u64(), record["complete"].as_bool(), record["elapsed_ms"].as_f64()) {
            (Some(embeddings), Some(complete), Some(elapsed_ms)) => Answer::Record { embeddings, complete, elapsed_ms },
            _ => Answer::Error(format!("not a record: {record}")),
        }
    }
}

/// What one client saw.
#[derive(Default)]
struct Tally {
    /// Round trips of answered requests (retries after 503 included), in ms.
    latencies: Vec<f64>,
    server_ms: f64,
    right: u64,
    wrong: u64,
    incomplete: u64,
    busy: u64,
    errors: u64,
    lost: u64,
    notes: Vec<String>,
}

impl Tally {
    fn note(&mut self, what: String) {
        if self.notes.len() < 5 {
            self.notes.push(what);
        }
    }

    fn add(&mut self, other: Tally) {
        self.latencies.extend(other.latencies);
        self.server_ms += other.server_ms;
        (self.right, self.wrong, self.incomplete) =
            (self.right + other.right, self.wrong + other.wrong, self.incomplete + other.incomplete);
        (self.busy, self.errors, self.lost) =
            (self.busy + other.busy, self.errors + other.errors, self.lost + other.lost);
        for n in other.notes {
            self.note(n);
        }
    }
}

/// One client: asks the next query in turn until `end`, a 503 retried after its Retry-After.
async fn client(asker: Arc<Asker>, queries: Arc<Vec<Query>>, next: Arc<AtomicUsize>, end: Instant) -> Tally {
    let mut t = Tally::default();
    while Instant::now() < end {
        let q = &queries[next.fetch_add(1, Ordering::Relaxed) % queries.len()];
        let start = Instant::now();
        loop {
            match asker.ask(&q.body).await {
                Answer::Busy(secs) => {
                    t.busy += 1;
                    tokio::time::sleep(Duration::from_secs(secs)).await;
                    continue;
                }
                Answer::Record { embeddings, complete, elapsed_ms } => {
                    t.latencies.push(start.elapsed().as_secs_f64() * 1e3);
                    t.server_ms += elapsed_ms;
                    if !complete {
                        t.incomplete += 1;
                        t.note(format!("{}: incomplete ({embeddings} so far)", q.name));
                    } else if embeddings != q.expected {
                        t.wrong += 1;
                        t.note(format!("{}: {embeddings}, expected {}", q.name, q.expected));
                    } else {
                        t.right += 1;
                    }
                }
                Answer::Error(e) => {
                    t.errors += 1;
                    t.note(format!("{}: {e}", q.name));
                }
                Answer::Lost(e) => {
                    t.lost += 1;
                    t.note(format!("{}: lost: {e}", q.name));
                }
            }
            break;
        }
    }
    t
}

/// The value at quantile `q` of sorted `v` (nearest rank).
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    quantile(&v, 0.5)
}

async fn load(a: &Args, queries: Vec<Query>) -> Result<()> {
    let asker = Arc::new(Asker::new(a)?);
    let (queries, next) = (Arc::new(queries), Arc::new(AtomicUsize::new(0)));
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(a.seconds);
    let clients: Vec<_> =
        (0..a.clients).map(|_| tokio::spawn(client(asker.clone(), queries.clone(), next.clone(), end))).collect();
    let mut t = Tally::default();
    for c in clients {
        t.add(c.await?);
    }
    let wall = start.elapsed().as_secs_f64();
    t.latencies.sort_by(f64::total_cmp);
    let answered = t.latencies.len() as u64;
    let requests = answered + t.errors + t.lost;
    println!(
        "{} queries of {} replayed by {} clients for {} s (all answered after {wall:.1} s)\n",
        queries.len(),
        a.expected.display(),
        a.clients,
        a.seconds
    );
    println!("| requests | answered | throughput (answers/s) | p50 ms | p90 ms | p99 ms | max ms | wrong | incomplete | 503s (retried) | errors | lost |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let l = &t.latencies;
    println!(
        "| {requests} | {answered} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} | {} | {} | {} |",
        answered as f64 / wall,
        quantile(l, 0.5),
        quantile(l, 0.9),
        quantile(l, 0.99),
        l.last().copied().unwrap_or(f64::NAN),
        t.wrong,
        t.incomplete,
        t.busy,
        t.errors,
        t.lost
    );
    println!(
        "\nserver's elapsed_ms: {:.1} ms a query on average, {:.2} queries' worth at once over the run",
        t.server_ms / answered.max(1) as f64,
        t.server_ms / 1e3 / wall
    );
    for n in &t.notes {
        println!("note: {n}");
    }
    if t.wrong + t.incomplete + t.errors + t.lost > 0 {
        bail!("{} wrong, {} incomplete, {} errors, {} lost", t.wrong, t.incomplete, t.errors, t.lost);
    }
    Ok(())
}

/// `subgraph match --format json`'s `elapsed_ms` and count for one query.
fn cli_once(cli: &Path, data: &Path, q: &Query) -> Result<(f64, u64)> {
    let out = Command::new(cli).args(["match", "-q", "--format", "json"]).arg(data).arg(&q.file).output()?;
    ensure!(out.status.success(), "{}: {}", q.name, String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let record = if record.is_array() { &record[0] } else { &record };
    match (record["elapsed_ms"].as_f64(), record["embeddings"].as_u64()) {
        (Some(ms), Some(n)) => Ok((ms, n)),
        _ => bail!("{}: not a record: {record}", q.name),
    }
}

async fn sequential(a: &Args, queries: Vec<Query>, repeats: usize) -> Result<()> {
    let asker = Asker::new(a)?;
    let cli = match (&a.cli, &a.data) {
        (Some(cli), Some(data)) => Some((cli, data)),
        (None, _) => None,
        (Some(_), None) => bail!("--cli needs --data"),
    };
    println!("one client, each query {repeats} times in a row; medians in ms\n");
    println!(
        "| query | count | round trip | server elapsed_ms | round trip - elapsed | CLI elapsed_ms | round trip - CLI |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let (mut trips, mut diffs) = (Vec::new(), Vec::new());
    for q in queries.iter().take(a.first) {
        let (mut round, mut server) = (Vec::new(), Vec::new());
        for _ in 0..repeats {
            let start = Instant::now();
            match asker.ask(&q.body).await {
                Answer::Record { embeddings, complete: true, elapsed_ms } if embeddings == q.expected => {
                    round.push(start.elapsed().as_secs_f64() * 1e3);
                    server.push(elapsed_ms);
                }
                Answer::Record { embeddings, .. } => bail!("{}: {embeddings}, expected {}", q.name, q.expected),
                Answer::Busy(_) => bail!("{}: busy with one client", q.name),
                Answer::Error(e) | Answer::Lost(e) => bail!("{}: {e}", q.name),
            }
        }
        let (round, server) = (median(round), median(server));
        let cli_ms = match cli {
            None => None,
            Some((cli, data)) => {
                let mut ms = Vec::new();
                for _ in 0..repeats {
                    let (elapsed, n) = cli_once(cli, data, q)?;
                    ensure!(n == q.expected, "{}: the CLI counts {n}, expected {}", q.name, q.expected);
                    ms.push(elapsed);
                }
                Some(median(ms))
            }
        };
        let (cli_text, diff_text) = match cli_ms {
            Some(c) => {
                diffs.push(round - c);
                (format!("{c:.2}"), format!("{:+.2}", round - c))
            }
            None => ("-".into(), "-".into()),
        };
        trips.push(round - server);
        println!(
            "| {} | {} | {round:.2} | {server:.2} | {:+.2} | {cli_text} | {diff_text} |",
            q.name,
            q.expected,
            round - server
        );
    }
    println!("\nmedian over the queries: round trip - server elapsed {:+.2} ms", median(trips));
    if !diffs.is_empty() {
        println!("median over the queries: round trip - CLI elapsed {:+.2} ms", median(diffs));
    }
    Ok(())
}

fn main() -> Result<()> {
    let a = Args::parse();
    ensure!(a.clients > 0 && a.seconds > 0.0 && a.wait > 0.0, "--clients, --seconds and --wait must be positive");
    let queries = read_queries(&a)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    match a.sequential {
        Some(repeats) => runtime.block_on(sequential(&a, queries, repeats.max(1))),
        None => runtime.block_on(load(&a, queries)),
    }
}
