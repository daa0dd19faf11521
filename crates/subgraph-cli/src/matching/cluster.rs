//! `match` on a partitioned graph across processes (subgraph-cluster, BiGJoin's design on
//! timely dataflow): `--cluster HOSTS --process I` runs one process of many, and
//! `--local-processes N` starts N of them on this machine over loopback and waits for them.

use super::args::parse_bytes_or_zero;
use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use subgraph::devices::Ran;
use subgraph::record::Outcome;
use subgraph::{Record, Report};
use subgraph_cluster::run::QueryCount;
use subgraph_cluster::{read_hosts, Cluster, Local, Matching, Rows};
use subgraph_core::order::Order;
use subgraph_core::plan::Tail;
use subgraph_core::sink::{Control, Output, OutputFormat, Stopped};
use subgraph_core::{Graph, Semantics};

#[derive(Args)]
pub struct ClusterArgs {
    /// DATA is a partition's manifest.json (`subgraph partition`): start N processes on this
    /// machine, connected over 127.0.0.1, and report from the first.
    #[arg(long, value_name = "N", conflicts_with = "cluster")]
    pub local_processes: Option<usize>,
    /// DATA is a partition's manifest.json: run as one process of those HOSTS lists (one
    /// host:port a line, timely's format), every process started with the same arguments.
    #[arg(long, value_name = "HOSTS", requires = "process")]
    pub cluster: Option<PathBuf>,
    /// With --cluster: this process's line in HOSTS, from 0; process 0 reports.
    #[arg(long, value_name = "I", requires = "cluster")]
    pub process: Option<usize>,
    /// With --cluster or --local-processes: seconds connecting to every process may take.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, value_parser = super::args::parse_timeout)]
    pub connect_timeout: f64,
    /// With --cluster or --local-processes: the memory each process may take for a query's
    /// copies of the adjacency lists its positions read (the positions with the fewest entries
    /// first; 0 for none), so that their extensions are spread over every process rather than
    /// left to the ones owning them. K, M, G suffixes: powers of 1024 [default: 1G]
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes_or_zero)]
    pub cache_memory: Option<u64>,
}

/// How the queries of a cluster run are matched and reported.
pub struct Asked {
    pub semantics: Semantics,
    pub symmetry: bool,
    pub order: Order,
    /// Timely workers per process.
    pub threads: usize,
    pub timeout: Option<f64>,
    pub limit: Option<u64>,
    /// `--output`: FILE (each process writes FILE.i) or `-` (every row through process 0's
    /// standard output).
    pub output: Option<PathBuf>,
    pub output_format: OutputFormat,
    pub json: bool,
    /// `--unique`: distinct subgraphs too, the embeddings over the query's automorphisms.
    pub unique: bool,
    /// `--tail`: counted tails where counting (off: every position enumerated).
    pub tail: Tail,
    pub interrupt: Arc<AtomicBool>,
}

impl Asked {
    /// Whether the matches go to standard output, and the report to standard error.
    fn rows_to_stdout(&self) -> bool {
        self.output.as_ref().is_some_and(|p| p.as_os_str() == "-")
    }

    /// This process's writer of matches: FILE.i for `--output FILE`, process 0's standard
    /// output for `-` (the others format their rows for process 0, writing nothing); None
    /// without `--output`.
    fn rows(&self, process: usize, local: &Local) -> Result<Option<Rows>> {
        let Some(path) = &self.output else { return Ok(None) };
        let ids = local.graph.ids().cloned();
        if self.output_format == OutputFormat::Binary && ids.as_deref().is_some_and(|i| !i.are_numbers()) {
            bail!(
                "--output-format binary writes numeric ids, and this data graph's vertices are named; use text, csv \
                 or jsonl"
            );
        }
        let writer: Box<dyn Write + Send> = match (self.rows_to_stdout(), process) {
            (true, 0) => crate::rows::stdout()?,
            (true, _) => Box::new(std::io::sink()),
            (false, _) => {
                let mut name = path.as_os_str().to_owned();
                name.push(format!(".{process}"));
                crate::rows::file(&PathBuf::from(name))?
            }
        };
        let output = Arc::new(Output::new(writer, self.output_format).with_ids(ids));
        // Under a limit the cluster gathers every row anyway.
        Ok(Some(Rows { output, gather: self.rows_to_stdout() }))
    }
}

/// One query's record: `match --format json`'s, with the cluster's fields after it.
#[derive(Serialize)]
struct ClusterRecord {
    #[serde(flatten)]
    record: Record,
    processes: usize,
    bytes_sent: u64,
    busy_ms: Vec<f64>,
    peak_rss_bytes: Vec<u64>,
    replicated_positions: usize,
    replicated_entries: u64,
    search: &'static str,
}

impl ClusterArgs {
    /// Whether this run is a cluster's.
    pub fn given(&self) -> bool {
        self.local_processes.is_some() || self.cluster.is_some()
    }

    /// Starts `--local-processes` copies of this executable with this run's arguments, each as
    /// one process of a loopback cluster, and waits for them: the first that fails ends the
    /// others, and its failure is the run's.
    pub fn spawn_local(&self) -> Result<ExitCode> {
        let n = self.local_processes.expect("--local-processes");
        if n == 0 {
            bail!("--local-processes 0: at least one process");
        }
        let listeners: Vec<TcpListener> =
            (0..n).map(|_| TcpListener::bind("127.0.0.1:0")).collect::<Result<_, _>>().context("finding free ports")?;
        let hosts: Vec<String> =
            listeners.iter().map(|l| l.local_addr().map(|a| a.to_string())).collect::<Result<_, _>>()?;
        drop(listeners);
        let dir = std::env::temp_dir().join(format!("subgraph-cluster-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let hostfile = dir.join("hosts.txt");
        std::fs::write(&hostfile, hosts.join("\n") + "\n")
            .with_context(|| format!("writing {}", hostfile.display()))?;
        let exe = std::env::current_exe().context("finding this executable")?;
        let args = without_local_processes(std::env::args_os().skip(1));
        let mut children: Vec<Option<Child>> = Vec::with_capacity(n);
        for i in 0..n {
            let child = Command::new(&exe)
                .args(&args)
                .arg("--cluster")
                .arg(&hostfile)
                .arg("--process")
                .arg(i.to_string())
                .stdout(if i == 0 { Stdio::inherit() } else { Stdio::null() })
                .spawn()
                .with_context(|| format!("starting process {i}"))?;
            children.push(Some(child));
        }
        let code = wait_all(&mut children);
        std::fs::remove_dir_all(&dir).ok();
        code
    }

    /// Runs this process of the cluster over the partition at `manifest`: `queries` (name,
    /// graph) counted as `asked` says; process 0 prints the reports.
    pub fn run_process(&self, manifest: &Path, queries: Vec<(String, Graph)>, asked: &Asked) -> Result<ExitCode> {
        let hosts_path = self.cluster.as_ref().expect("--cluster");
        let addresses = read_hosts(hosts_path)?;
        let process = self.process.expect("--process");
        if process >= addresses.len() {
            bail!(
                "--process {process}: {} lists {} processes (0 to {})",
                hosts_path.display(),
                addresses.len(),
                addresses.len() - 1
            );
        }
        let local = Local::load(manifest, process, addresses.len())?;
        let rows = asked.rows(process, &local)?;
        let output = rows.as_ref().map(|r| r.output.clone());
        let connect_timeout = Duration::from_secs_f64(self.connect_timeout);
        let cache_bytes = self.cache_memory.unwrap_or(subgraph_cluster::replicate::DEFAULT_CACHE_BYTES);
        let cluster = Cluster { addresses, process, threads: asked.threads, connect_timeout, cache_bytes };
        let (timeout, interrupt) = (asked.timeout, asked.interrupt.clone());
        let control = Arc::new(move || {
            Control::new(timeout.map(|s| Instant::now() + Duration::from_secs_f64(s)), interrupt.clone())
        });
        let names: Vec<String> = queries.iter().map(|(name, _)| name.clone()).collect();
        let matching = Matching {
            semantics: asked.semantics,
            symmetry: asked.symmetry,
            order: asked.order,
            limit: asked.limit,
            rows,
            unique: asked.unique,
            tail: asked.tail,
        };
        let counts = subgraph_cluster::run::run(&cluster, local, queries, &matching, control)?;
        if let Some(out) = &output {
            out.finish().context("writing the matches")?;
        }
        // Ctrl-C: the partial counts reported, and the single host's status.
        let interrupted = asked.interrupt.load(std::sync::atomic::Ordering::SeqCst);
        let Some(counts) = counts else {
            return Ok(if interrupted { ExitCode::from(130) } else { ExitCode::SUCCESS });
        };
        let line = |text: String| match asked.rows_to_stdout() {
            true => eprintln!("{text}"),
            false => println!("{text}"),
        };
        if !asked.json {
            line(format!(
                "{:<40} {:>22} {:>9} {:>11} {:>9} {:>12}",
                "query", "embeddings", "complete", "elapsed_ms", "processes", "bytes_sent"
            ));
        }
        let mut failed = false;
        for (name, count) in names.into_iter().zip(counts) {
            match count {
                Ok(c) => line(print(name, c, asked)?),
                Err(e) => {
                    failed = true;
                    eprintln!("subgraph: error: query {name}: {e}");
                    if asked.json {
                        line(serde_json::json!({ "query": name, "error": format!("query {name}: {e}") }).to_string());
                    }
                }
            }
        }
        Ok(match (interrupted, failed) {
            (true, _) => ExitCode::from(130),
            (_, true) => ExitCode::from(1),
            _ => ExitCode::SUCCESS,
        })
    }
}

/// One query's count as a record (`--format json`) or a table row.
fn print(name: String, c: QueryCount, asked: &Asked) -> Result<String> {
    let elapsed_ms = c.filter_ms + c.order_ms + c.enumerate_ms;
    let report = Report {
        embeddings: c.embeddings,
        complete: c.complete,
        stopped: c.stopped,
        filter_ms: c.filter_ms,
        order_ms: c.order_ms,
        enumerate_ms: c.enumerate_ms,
        elapsed_ms,
        candidates: c.candidates,
        order: c.order,
        tail: c.tail,
        restrictions: c.restrictions,
        multiplier: c.multiplier,
        ..Report::nothing(subgraph_cluster::filter::FILTER, c.stopped)
    };
    let ran = Ran { report, gpu: None, choice: None, note: None };
    let (unique, automorphisms) = (c.unique(), c.automorphisms);
    let outcome = Outcome { semantics: asked.semantics, ran, unique, automorphisms, rows: None, pattern: None };
    let record = Record::of(name, &outcome, 1, None);
    if let Some(why) = c.stopped {
        let what = match why {
            Stopped::Limit => format!("the limit of {} matches was reached", asked.limit.unwrap_or(0)),
            Stopped::Timeout => format!("the timeout of {} s expired", asked.timeout.unwrap_or(0.0)),
            Stopped::Interrupted => "interrupted".to_string(),
        };
        eprintln!("note: {}: {what}; {} matches is a partial count", record.query, c.embeddings);
    }
    Ok(if asked.json {
        let r = ClusterRecord {
            record,
            processes: c.processes,
            bytes_sent: c.bytes_sent,
            busy_ms: c.busy_ms,
            peak_rss_bytes: c.peak_rss_bytes,
            replicated_positions: c.replicated_positions,
            replicated_entries: c.replicated_entries,
            search: c.search,
        };
        serde_json::to_string(&r)?
    } else {
        let embeddings = match record.unique {
            Some(u) => format!("{} ({u} unique)", record.embeddings),
            None => record.embeddings.to_string(),
        };
        format!(
            "{:<40} {:>22} {:>9} {:>11.2} {:>9} {:>12}",
            record.query, embeddings, record.complete, elapsed_ms, c.processes, c.bytes_sent
        )
    })
}

/// The arguments without `--local-processes N` (or `--local-processes=N`).
fn without_local_processes(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        match a.to_str() {
            Some("--local-processes") => skip = true,
            Some(s) if s.starts_with("--local-processes=") => {}
            _ => out.push(a),
        }
    }
    out
}

/// Waits for every child: the first to fail ends the others and is reported; else process
/// 0's status.
fn wait_all(children: &mut [Option<Child>]) -> Result<ExitCode> {
    let mut first = ExitCode::SUCCESS;
    while children.iter().any(Option::is_some) {
        for i in 0..children.len() {
            let Some(child) = children[i].as_mut() else { continue };
            let Some(status) = child.try_wait().with_context(|| format!("waiting for process {i}"))? else { continue };
            children[i] = None;
            if status.success() {
                continue;
            }
            for other in children.iter_mut().filter_map(Option::take) {
                end(other);
            }
            if i == 0 {
                first = ExitCode::from(status.code().map_or(1, |c| c.clamp(1, 255) as u8));
            } else {
                bail!(
                    "process {i} of {} ended with {status}; the query was abandoned on every process",
                    children.len()
                );
            }
        }
        // Often enough that a short run is not kept waiting; a wait is one cheap system call.
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(first)
}

/// Ends a child this run started, and reaps it.
fn end(mut child: Child) {
    child.kill().ok();
    child.wait().ok();
}
